"""``kzc broker ID``: one broker (``core.snapshot.broker_view``; its release exact from its ApiVersions, else the
era of its registration: ``core.snapshot.release``). ``kzc broker stop-check ID [ID...]``: is it
safe to stop these brokers now? Which partitions would go offline, fall under ``min.insync.replicas``
(``acks=all`` fails), be left with one in-sync copy, and which leaders move where (``core.snapshot.stop_check``,
on a snapshot read from ZooKeeper now)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.options import add_command
from cli.snapshot_cmd import add_read_options, take_snapshot
from cli.traffic_cmd import groups_reader, measure, parse_window, sample_read_ms
from core.brokers.capabilities import read_capabilities
from core.config import ConnectionSettings
from core.errors import UsageError
from core.groups.waiting import WaitingReads
from core.human_size import human_size
from core.human_time import age_text, since_text
from core.kafka.znodes.paths import broker_path
from core.metrics.reader import MetricsReader
from core.metrics.text import broker_metric_lines
from core.snapshot.broker_view import BrokerLive, BrokerView, broker_view, read_broker_live
from core.snapshot.kraft import with_kraft_brokers
from core.snapshot.model import StaticMinIsr
from core.snapshot.release import UNKNOWN, Release, broker_release
from core.snapshot.static_min_isr import read_static_min_isr
from core.snapshot.stop_check import PartitionChange, StopCheck, stop_check
from core.traffic.cause import BrokerLoad, broker_load
from core.traffic.rates import rate_text
from core.zookeeper.kafka_root import open_kafka_session

SHOWN = 50  # partitions listed per section in the text form (--json lists them all)


def register(sub: Any) -> None:
    """Declare ``kzc broker ID`` and ``kzc broker stop-check ID [ID...]``."""
    broker = add_command(sub, "broker")
    broker.add_argument("what", metavar="ID|stop-check", help="a broker id, or stop-check followed by broker ids")
    broker.add_argument("ids", type=int, nargs="*", metavar="ID", help="with stop-check: the brokers (several: a rack)")
    broker.add_argument(
        "--min-insync-replicas",
        type=int,
        metavar="N",
        help="the brokers' static min.insync.replicas, where no topic or dynamic override exists and "
        "--bootstrap-server does not report it (without either, acks=all is unknown and not called safe)",
    )
    broker.add_argument(
        "--traffic",
        metavar="DURATION",
        help="kzc broker ID: also its load over this window (e.g. 10s): messages and bytes in as leader, its share "
        "of the cluster's bytes in, its log dirs' growth and time until full (reads of every broker's offsets "
        "and log dirs, as kzc traffic), and the topics it leads whose producers stopped: it measures the window "
        "before too (so it takes twice as long)",
    )
    add_read_options(broker)
    broker.set_defaults(handler=_broker)


def _broker(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.what == "stop-check":
        if args.traffic is not None:
            raise UsageError("--traffic applies to kzc broker ID, not to stop-check")
        if not args.ids:
            raise UsageError("kzc broker stop-check needs at least one broker id")
        return _stop_check(args, settings)
    if not args.what.isdigit() or args.ids:
        raise UsageError("give one broker id (kzc broker ID) or: kzc broker stop-check ID [ID...]")
    if args.traffic is not None:
        parse_window(args.traffic, "--traffic")
    return _show(int(args.what), args, settings)


def _show(broker_id: int, args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if settings.zookeeper is None:
        raise UsageError("no cluster: give --zookeeper HOST:PORT[/chroot] or --context NAME")
    snapshot, _ = take_snapshot(settings, args.max_in_flight)
    snapshot = with_kraft_brokers(snapshot, settings.bootstrap_servers, settings.kafka_security)
    view = broker_view(snapshot, broker_id)
    if not view.registered and not view.hosted:
        raise UsageError(f"broker {broker_id} is not registered and holds no replica")
    with open_kafka_session(settings) as session:
        live = read_broker_live(session, view, settings.kafka_security)
    entry = snapshot.brokers.get(broker_id)
    asked = {broker_id: entry.registration} if entry is not None else {}
    release = broker_release(snapshot, broker_id, read_capabilities(asked, 5.0, settings.kafka_security))
    load = None
    if args.traffic is not None:
        # Two windows: stopped producers need the one before (it took messages, the measured one none).
        window_s = parse_window(args.traffic, "--traffic")
        traffic, stopped = measure(snapshot, window_s, settings.kafka_security, count=2)
        if stopped:  # the consumer groups waiting on them, as kzc traffic --follow reads them
            at_ms = sample_read_ms(traffic.after)
            stopped = WaitingReads().complete(stopped, groups_reader(settings, snapshot), at_ms)
        over = f"two windows of {age_text(window_s)}, the one before the measured one and it"
        load = broker_load(traffic, broker_id, stopped, over)
    # One scrape (no window to wait for): the exporter's one-minute rates.
    metrics = MetricsReader(settings.metrics_url).read(snapshot, broker_id)[0] if settings.metrics_url else None
    if args.json:
        print(
            json.dumps(
                {
                    **view.to_json(),
                    **live.to_json(),
                    "release": release.to_json(),
                    "traffic": None if load is None else load.to_json(),
                    "metrics": metrics.to_json() if metrics else None,
                }
            )
        )
    else:
        print(render_broker(view, live, snapshot.taken_at_ms, release, load))
        if metrics is not None:
            print("\n".join(broker_metric_lines(metrics)))
    return 0


def render_broker(
    view: BrokerView, live: BrokerLive, now_ms: int, release: Release = UNKNOWN, load: BrokerLoad | None = None
) -> str:
    """The text form of ``kzc broker ID`` (with its load when ``--traffic`` read it)."""
    lines = [f"Broker {view.broker_id}" + ("" if view.registered else "  NOT REGISTERED")]
    if view.problem:
        lines.append(f"  {view.problem}")
    if view.registered and not view.problem:
        since = since_text(view.registered_ms, now_ms) if view.registered_ms else "-"
        lines += [
            f"  endpoints     {', '.join(view.endpoints) or '-'}",
            f"  rack          {view.rack or '-'}",
            f"  release       {release}",
            f"  registered    {since} (registration JSON v{view.registration_version}, broker epoch "
            f"{view.broker_epoch})",
        ]
    session = hex(live.session_id) if live.session_id is not None else f"unknown ({live.session_note})"
    lines.append(f"  ZK session    {session} (ephemeralOwner of {broker_path(view.broker_id)})")
    size = f"{live.total_bytes:,} bytes" if live.total_bytes is not None else "unknown"
    lines.append(f"  log size      {size}" + (f" ({live.log_note})" if live.log_note else ""))
    lines += log_dir_lines(live)
    if load is not None:
        lines += load_lines(load)
    lines.append(f"  hosts {len(view.hosted):,} partitions, leads {len(view.leads):,}")
    lines += _listed(
        "replicas out of the ISR",
        [
            f"{r.name}  leader {r.leader if r.leader is not None else 'none'}, ISR {_ids(r.isr)}"
            for r in view.out_of_isr
        ],
    )
    lines += _listed("offline partitions it hosts", [f"{r.name}  {r.offline}" for r in view.offline])
    return "\n".join(lines)


def log_dir_lines(live: BrokerLive) -> list[str]:
    """Its log dirs (DescribeLogDirs): path, size or error; then its replicas in no online dir."""
    dirs = live.log_dirs.dirs if live.log_dirs is not None else None
    if dirs is None:
        return []
    width = max((len(d.path) for d in dirs), default=0)
    lines = [f"  log dirs ({len(dirs)}):"]
    for d in dirs:
        state = f"{d.size:,} bytes, {sum(1 for r in d.replicas if not r.future):,} replicas" if not d.error else ""
        if d.offline:
            state = "OFFLINE (KAFKA_STORAGE_ERROR: the broker stopped using it)"
        elif d.error:
            state = f"error {d.error_name}"
        future = sum(1 for r in d.replicas if r.future)
        lines.append(f"    {d.path:<{width}}  {state}" + (f", {future} future (moving here)" if future else ""))
    return lines + _listed("replicas in no online log dir (were on an offline dir)", list(live.missing))


def load_lines(load: BrokerLoad) -> list[str]:
    """Its load over the window: in as leader with its share, each log dir's growth and time until full, and
    what the load says about it; ``?`` with the reason where unknown."""
    row = load.broker
    window = row.to_json()["window_s"]
    share = f" ({load.share_of_bytes_in:.0%} of the cluster's bytes in)" if load.share_of_bytes_in is not None else ""
    over = age_text(window) if window else "-"
    lines = [
        f"  load ({over})  messages in {rate_text(row.messages_in, 'messages')}, bytes in "
        f"{rate_text(row.bytes_in, 'bytes')} as leader of {row.extra.get('leads', 0):,} partitions{share}"
    ]
    for figure in (row.messages_in, row.bytes_in):
        if figure is not None and figure.per_s is None:
            lines.append(f"    ? {figure.unknown}")
    for d in load.log_dirs:
        extra = d.extra
        growth = extra.get("growth_bytes_per_hour")
        full = extra.get("full_in_s")
        lines.append(
            f"    {d.log_dir or '?'}  growth {'?' if growth is None else human_size(int(growth)) + '/h'}, free "
            f"{human_size(extra.get('usable_bytes'))}, full in "
            + (age_text(full) if full is not None else f"- ({extra.get('full_in_unknown')})")
        )
    lines += [f"  load: {f.text}" for f in load.findings]
    if load.stopped_from is not None:
        lines.append(f"  (producers stopped: looked for over {load.stopped_from}; a stop before them is not seen)")
    return lines


def _listed(title: str, items: list[str]) -> list[str]:
    if not items:
        return [f"  {title}: none"]
    lines = [f"  {title} ({len(items):,}):"] + [f"    {i}" for i in items[:SHOWN]]
    if len(items) > SHOWN:
        lines.append(f"    ... and {len(items) - SHOWN:,} more (--json lists them all)")
    return lines


def _stop_check(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if settings.zookeeper is None:
        raise UsageError("no cluster: give --zookeeper HOST:PORT[/chroot] or --context NAME")
    if args.min_insync_replicas is not None and args.min_insync_replicas < 1:
        raise UsageError("--min-insync-replicas must be at least 1")
    snapshot, _ = take_snapshot(settings, args.max_in_flight)
    snapshot = with_kraft_brokers(snapshot, settings.bootstrap_servers, settings.kafka_security)
    static = StaticMinIsr(given=args.min_insync_replicas)
    if settings.bootstrap_servers:
        read = read_static_min_isr(settings.bootstrap_servers, settings.kafka_security, snapshot.brokers)
        static = StaticMinIsr(by_broker=read.by_broker, given=args.min_insync_replicas, reason=read.reason)
    result = stop_check(snapshot, args.ids, static)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(render_stop_check(result))
    return 0 if result.safe else 1


def _ids(values: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _section(title: str, changes: tuple[PartitionChange, ...], line: Any) -> list[str]:
    if not changes:
        return []
    lines = [f"{title} ({len(changes):,}):"]
    lines += [f"  {c.topic}-{c.partition}  {line(c)}" for c in changes[:SHOWN]]
    if len(changes) > SHOWN:
        lines.append(f"  ... and {len(changes) - SHOWN:,} more (--json lists them all)")
    return lines


def render_stop_check(result: StopCheck) -> str:
    """The text form of ``kzc broker stop-check``."""
    who = f"broker{'s' if len(result.brokers) > 1 else ''} {', '.join(map(str, result.brokers))}"
    lines = [f"Stopping {who} now:"]
    if result.unknown_brokers:
        lines.append(f"  not registered now (already stopped?): {', '.join(map(str, result.unknown_brokers))}")
    if result.safe:
        lines.append("  SAFE: no partition goes offline or under min.insync.replicas")
    else:
        lines.append(
            f"  NOT SAFE: {len(result.offline):,} partition(s) go offline, {len(result.under_min_isr):,} fall under "
            f"min.insync.replicas (acks=all fails)"
            + (f", {len(result.min_isr_unknown):,} with min.insync.replicas unknown" if result.min_isr_unknown else "")
        )
    lines += _section(
        "offline: every in-sync copy is on a stopped broker (only an unclean election, losing their writes, "
        "would bring them back)",
        result.offline,
        lambda c: (
            f"replicas {_ids(c.replicas)} ISR {_ids(c.isr_before)}; alive out of sync: "
            f"{_ids(c.live_out_of_sync) if c.live_out_of_sync else 'none'}"
        ),
    )
    lines += _section(
        "under min.insync.replicas: acks=all producers fail",
        result.under_min_isr,
        lambda c: (
            f"ISR {_ids(c.isr_before)} -> {_ids(c.isr_after)}, min.insync.replicas {c.after.min_isr.value} "
            f"({c.after.min_isr.source})"
        ),
    )
    lines += _section(
        "min.insync.replicas unknown (give --bootstrap-server or --min-insync-replicas)",
        result.min_isr_unknown,
        lambda c: f"ISR {_ids(c.isr_before)} -> {_ids(c.isr_after)}: {c.after.min_isr.source}",
    )
    lines += _section(
        "leaders move (the first live in-sync replica in assignment order)",
        result.leader_moves,
        lambda c: f"{c.leader_before} -> {c.leader_after}",
    )
    lines += _section(
        "left with one in-sync copy", result.single_copy, lambda c: f"ISR {_ids(c.isr_before)} -> {_ids(c.isr_after)}"
    )
    if result.unreadable_topics:
        lines.append(f"not predicted (assignment unreadable): {', '.join(result.unreadable_topics)}")
    return "\n".join(lines)
