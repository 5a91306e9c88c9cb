"""``kzc describe [--json]``: the cluster at a glance, read from ZooKeeper (works with every broker down).

Cluster id, controller and its epoch, brokers (endpoints, rack, registered since), topic and partition
counts, pending admin work and unhealthy partition counts, and the likely cause of unhealthy partitions
(``core.snapshot.likely_cause``; on a live cluster refined by the named broker's log dirs, DescribeLogDirs).
``--snapshot FILE`` describes a file written by ``kzc snapshot`` instead of the live cluster.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from cli.options import add_command
from cli.snapshot_cmd import add_read_options, take_snapshot
from core.config import PLAINTEXT, ConnectionSettings
from core.errors import UsageError
from core.human_time import since_text, utc_text
from core.snapshot.broker_view import log_dir_json
from core.snapshot.deletion import replica_states_text
from core.snapshot.health import DEFAULT_IMBALANCE_PERCENT, assess
from core.snapshot.jsonl.read import read_snapshot_file
from core.snapshot.kraft import with_kraft_brokers
from core.snapshot.likely_cause import read_likely_cause
from core.snapshot.model import ClusterSnapshot, StaticMinIsr
from core.snapshot.sizes import SizesView, read_sizes
from core.snapshot.static_min_isr import read_static_min_isr
from core.snapshot.summary import ClusterSummary, summarize


def register(sub: Any) -> None:
    """Declare ``kzc describe``."""
    describe = add_command(sub, "describe")
    describe.add_argument("--snapshot", metavar="FILE", help="describe a file written by kzc snapshot instead")
    describe.add_argument(
        "--min-insync-replicas",
        type=int,
        metavar="N",
        help="the brokers' static min.insync.replicas (server.properties), used where no topic or dynamic "
        "override exists and --bootstrap-server does not report it; without either, acks=all shows as unknown",
    )
    describe.add_argument(
        "--delete-topic-enable",
        choices=["true", "false"],
        help="the brokers' delete.topic.enable, when known (it is not stored in ZooKeeper)",
    )
    describe.add_argument(
        "--imbalance-percent",
        type=float,
        default=DEFAULT_IMBALANCE_PERCENT,
        metavar="P",
        help="leader.imbalance.per.broker.percentage (default 10)",
    )
    describe.add_argument(
        "--sizes",
        action="store_true",
        help="also ask every registered broker its log dirs (DescribeLogDirs, Kafka 1.0+): each broker's bytes, "
        "each topic's size (its partitions' leader replicas) and bytes on disk (all replicas)",
    )
    describe.add_argument(
        "--traffic",
        metavar="DURATION",
        help="also measure the load over this window (e.g. 10s, as kzc traffic): the likely cause then says what "
        "the load says (leader and key skew, a log dir full within a day), after the health it explains",
    )
    add_read_options(describe)
    describe.set_defaults(handler=_describe)


def _describe(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.sizes and args.snapshot:
        raise UsageError("--sizes asks the brokers: it needs a live cluster, not --snapshot")
    if args.traffic is not None and args.snapshot:
        raise UsageError("--traffic asks the brokers: it needs a live cluster, not --snapshot")
    # The load's modules (the brokers' metrics, groups, rates) load only when it is measured: `kzc describe`
    # is run in loops during an incident, and --help must not pay for them.
    from cli.traffic_cmd import measure, parse_window
    from core.traffic.cause import load_findings

    window_s = parse_window(args.traffic, "--traffic") if args.traffic is not None else None
    if args.min_insync_replicas is not None and args.min_insync_replicas < 1:
        raise UsageError("--min-insync-replicas must be at least 1")
    if args.snapshot:
        snapshot = read_snapshot_file(args.snapshot)
        if snapshot.kraft_brokers is None:
            snapshot = with_kraft_brokers(
                snapshot, None, PLAINTEXT
            )  # a file without them: the ISR tells (as the console)
    else:
        if settings.zookeeper is None:
            raise UsageError(
                "no cluster to describe: give --zookeeper HOST:PORT[/chroot], --context NAME or --snapshot FILE"
            )
        snapshot, _ = take_snapshot(settings, args.max_in_flight)
        snapshot = with_kraft_brokers(
            snapshot, settings.bootstrap_servers, settings.kafka_security
        )  # alive, though not in /brokers/ids
    delete_enabled = None if args.delete_topic_enable is None else args.delete_topic_enable == "true"
    static = StaticMinIsr(given=args.min_insync_replicas)
    if not args.snapshot and settings.bootstrap_servers:
        read = read_static_min_isr(settings.bootstrap_servers, settings.kafka_security, snapshot.brokers)
        static = StaticMinIsr(by_broker=read.by_broker, given=args.min_insync_replicas, reason=read.reason)
    report = assess(
        snapshot,
        static,
        delete_topic_enable=delete_enabled,
        imbalance_percent=args.imbalance_percent,
    )
    summary = summarize(snapshot, report)
    # One window measures no "producers stopped" (it needs the window before): the other findings only.
    load = None if window_s is None else load_findings(measure(snapshot, window_s, settings.kafka_security)[0])
    cause = read_likely_cause(snapshot, settings.kafka_security, live=not args.snapshot, load=load)
    now = int(time.time() * 1000)
    log_dirs = read_sizes(snapshot, 10.0, now, settings.kafka_security) if args.sizes else None
    sizes = SizesView.of(log_dirs, snapshot.taken_at_ms) if log_dirs is not None else None
    if args.json:
        payload = {**summary.to_json(), "likely_cause": cause.to_json() if cause is not None else None}
        if sizes is not None:
            payload["sizes"] = sizes_json(snapshot, sizes)
        print(json.dumps(payload))
    else:
        text = render(summary) + (f"\nLikely cause {cause.text}" if cause is not None else "")
        print(text + ("\n" + "\n".join(render_sizes(snapshot, sizes)) if sizes is not None else ""))
    return 0


TOP_TOPICS = 20  # topics listed by size in the text form (--json lists them all)


def sizes_json(snapshot: ClusterSnapshot, sizes: SizesView) -> dict[str, Any]:
    """``--sizes`` in ``--json``: per broker its bytes (online log dirs) and dirs, per topic its size (leader
    replicas) and bytes on disk (all replicas); ``null`` with the reason where a broker cannot say."""
    return {
        "read_ms": sizes.at_ms,
        "brokers": {
            str(b): {
                "bytes": read.total,
                "unknown": read.unknown,
                "log_dirs": [log_dir_json(d) for d in read.dirs] if read.dirs is not None else None,
            }
            for b, read in sizes.brokers.items()
        },
        "topics": {
            name: {"size_bytes": size.size, "on_disk_bytes": size.on_disk, "unknown": size.unknown}
            for name, size in sorted(sizes.topics(snapshot).items())
        },
    }


def render_sizes(snapshot: ClusterSnapshot, sizes: SizesView) -> list[str]:
    """``--sizes`` in text: each broker's bytes, then the largest topics."""
    lines = ["Sizes        (DescribeLogDirs; a topic's size is its partitions' leader replicas, on disk all replicas)"]
    for b, read in sizes.brokers.items():
        offline = [d.path for d in read.offline_dirs]
        state = f"{read.total:,} bytes in {len(read.dirs or ())} log dir(s)" if read.total is not None else "unknown"
        lines.append(f"  broker {b:>4}  {state}" + (f"; OFFLINE: {', '.join(offline)}" if offline else "")
                     + (f" ({read.unknown})" if read.unknown else ""))  # fmt: skip
    topics = sizes.topics(snapshot)
    ranked = sorted(topics.items(), key=lambda kv: (kv[1].size is None, -(kv[1].size or 0), kv[0]))
    for name, size in ranked[:TOP_TOPICS]:
        if size.size is None:
            lines.append(f"  {name}  unknown ({size.unknown})")
        else:
            disk = f"{size.on_disk:,}" if size.on_disk is not None else f"unknown ({size.unknown})"
            lines.append(f"  {name}  {size.size:,} bytes, on disk {disk}")
    if len(ranked) > TOP_TOPICS:
        lines.append(f"  ... and {len(ranked) - TOP_TOPICS:,} more topics (--json lists them all)")
    return lines


def render(summary: ClusterSummary) -> str:
    """The text form of ``kzc describe``."""
    now = summary.taken_at_ms
    lines = [
        f"Cluster      {summary.cluster_id or '-'}"
        + (f"  ({summary.cluster_id_problem})" if summary.cluster_id_problem else ""),
        f"ZooKeeper    {summary.zookeeper}  zxid {hex(summary.zxid)}  read at {utc_text(summary.taken_at_ms)}",
    ]
    c = summary.controller
    epoch = "-" if c.epoch is None else str(c.epoch)
    if c.broker_id is None:
        lines.append(f"Controller   none, epoch {epoch}  ({c.problem})")
    else:
        kind = "KRaft controller" if c.kraft else "broker"
        lines.append(
            f"Controller   {kind} {c.broker_id}, epoch {epoch}, since {since_text(c.since_ms, now)}"
            + (f"  ({c.problem})" if c.problem else "")
        )
    kraft = summary.kraft_brokers
    on_kraft = f", {len(kraft)} on KRaft ({', '.join(map(str, kraft))}: serving, not in /brokers/ids)" if kraft else ""
    missing = summary.missing_brokers
    not_registered = f"; NOT registered, though they hold replicas: {', '.join(map(str, missing))}" if missing else ""
    lines.append(f"Brokers      {len(summary.brokers)} registered{on_kraft}{not_registered}")
    if summary.brokers:
        width = max(len(", ".join(b.endpoints)) for b in summary.brokers)
        width = max(width, len("ENDPOINTS"))
        lines.append(f"  {'ID':>6}  {'RACK':<8}  {'ENDPOINTS':<{width}}  REGISTERED SINCE")
        for b in summary.brokers:
            if b.problem:
                lines.append(f"  {b.id:>6}  registration unreadable: {b.problem}")
                continue
            endpoints = ", ".join(b.endpoints) or "-"
            lines.append(
                f"  {b.id:>6}  {b.rack or '-':<8}  {endpoints:<{width}}  {since_text(b.registered_since_ms, now)}"
            )
    lines.append(f"Topics       {summary.topics:,}")
    lines.append(f"Partitions   {summary.partitions:,}")
    p = summary.pending
    lines.append(
        f"Pending      {len(p.queued_deletions)} topic deletion(s), {p.reassigning_partitions} partition(s) "
        f"reassigning, {p.preferred_elections} preferred election(s), {p.isr_change_notifications} ISR change "
        f"and {p.log_dir_event_notifications} log dir notification(s), {p.config_change_notifications} config change(s)"
    )
    for d in p.deletions[:10]:
        # Every blocker (core.snapshot.deletion.deletion_blockers) and the replicas as the controller holds them.
        lines.append(f"             deletion of {d.topic}, queued {since_text(d.queued_since_ms, now)}:")
        lines.extend(f"               - {r.detail}" for r in d.reasons)
        if d.replicas:
            lines.append(f"               {replica_states_text(d.replicas)}")
    if len(p.deletions) > 10:
        lines.append(f"             ... {len(p.deletions) - 10} more queued deletion(s) (--json lists them all)")
    h = summary.health
    imbalanced = ", ".join(map(str, h.imbalanced_brokers)) or "none"
    lines.append(
        f"Health       {h.offline_partitions:,} offline, {h.under_replicated_partitions:,} under-replicated, "
        f"{h.under_min_isr_partitions:,} under min ISR"
        + (f" (+{h.acks_all_unknown_partitions:,} unknown)" if h.acks_all_unknown_partitions else "")
        + f"; leader imbalance over threshold on brokers: {imbalanced}"
    )
    refused = [f"{t}-{p}" for t, p, _, _ in h.acks_all_refused]
    if refused:
        shown = ", ".join(refused[:10]) + (" ..." if len(refused) > 10 else "")
        lines.append(f"             acks=all refused (NOT_ENOUGH_REPLICAS) on {len(refused):,}: {shown}")
    if h.acks_all_unknown_partitions:
        lines.append(
            f"             acks=all ? on {h.acks_all_unknown_partitions:,} partition(s): {h.acks_all_unknown_reason}"
        )
    if h.unreadable_znodes:
        lines.append(f"             {h.unreadable_znodes:,} znode(s) unreadable (kzc snapshot lists them)")
    return "\n".join(lines)
