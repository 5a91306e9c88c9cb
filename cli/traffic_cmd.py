"""``kzc traffic [--by topic|broker|partition|logdir] [--topic T] [--window 30s] [--follow] [--json]``: how much
flows in, where, and how fast the disks fill, with no broker plugin (``core.traffic``, docs/traffic.md).

One ZooKeeper read says who leads what; then two ticks ``--window`` apart (one ListOffsets and one
DescribeLogDirs per broker each) give the rates, so the first output comes after one window. ``--follow``
prints every window after that (``--json``: one object a line) until Ctrl-C, reading ZooKeeper again only
when a broker did not answer or a partition's leader moved.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from cli.options import add_command, duration_option
from cli.snapshot_cmd import add_read_options, take_snapshot
from core.brokers.capabilities import registered_bootstrap
from core.config import ConnectionSettings, KafkaSecurity
from core.errors import UsageError
from core.groups.lag import GroupLag
from core.groups.ops import open_group_ops
from core.groups.waiting import WaitingReads
from core.human_size import human_size
from core.human_time import age_text, clock_text
from core.metrics.reader import MetricsReader
from core.metrics.traffic_rows import with_metrics
from core.snapshot.model import ClusterSnapshot
from core.traffic.cause import LoadFinding, StoppedProducers, load_findings
from core.traffic.rates import rate_text
from core.traffic.sample import Layout, Sample, windows
from core.traffic.view import BY, METRICS_UNKNOWN, Row, Traffic

DEFAULT_WINDOW = "30s"
MIN_WINDOW_S, MAX_WINDOW_S = 1.0, 3600.0
SHOWN_REASONS = 10
GROUPS_TIMEOUT_S = 8.0  # each AdminClient call of the consumer groups read (only once a topic's producers stopped)


def register(sub: Any) -> None:
    """Declare ``kzc traffic``."""
    traffic = add_command(sub, "traffic")
    traffic.add_argument("--by", choices=BY, default="topic", help="what a row is (default topic)")
    traffic.add_argument("--topic", metavar="T", help="only this topic's partitions (not with --by logdir)")
    traffic.add_argument(
        "--window",
        default=DEFAULT_WINDOW,
        metavar="DURATION",
        help=f"the time between the two reads a rate covers (default {DEFAULT_WINDOW}; 1s to 1h)",
    )
    traffic.add_argument("--follow", action="store_true", help="print every window until Ctrl-C")
    add_read_options(traffic)
    traffic.set_defaults(handler=_traffic)


def parse_window(text: str, option: str = "--window") -> float:
    """``--window`` (or ``option``): a duration from 1 s to 1 h.

    Raises:
        UsageError: anything else, with what was given.
    """
    seconds = duration_option(text, option)
    if not MIN_WINDOW_S <= seconds <= MAX_WINDOW_S:
        raise UsageError(f"{option} must be from 1s to 1h, got '{text}'")
    return seconds


def measure(
    snapshot: ClusterSnapshot, window_s: float, security: KafkaSecurity, count: int = 1
) -> tuple[Traffic, list[LoadFinding]]:
    """The rates of every topic over the last of ``count`` windows, one after the other, starting now (``kzc
    broker ID --traffic``, ``kzc describe --traffic``): who leads what from ``snapshot``, every broker read at
    the start and the end of each window. With the topics whose producers stopped (``StoppedProducers``: they
    took messages in a window and none in every window after it, so with ``count`` 1 none)."""
    layout = Layout.of(snapshot, security)
    stopped = StoppedProducers()
    for n, (before, after) in enumerate(windows(lambda: layout, window_s, security), 1):
        traffic = Traffic(before, after)
        found = stopped.update(traffic)
        if n >= count:
            return traffic, found
    raise AssertionError("windows() never ends")


def _traffic(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    window_s = parse_window(args.window)
    if args.topic is not None and args.by == "logdir":
        raise UsageError("--topic does not apply to --by logdir (a log dir holds every topic's replicas)")
    if settings.zookeeper is None:
        raise UsageError("no cluster: give --zookeeper HOST:PORT[/chroot] or --context NAME")
    security = settings.kafka_security
    reader = MetricsReader(settings.metrics_url) if settings.metrics_url else None
    latest: list[ClusterSnapshot] = []  # the brokers' hosts for the metrics URLs, from the last layout read

    def layout() -> Layout:
        snapshot, _ = take_snapshot(settings, args.max_in_flight)
        if args.topic is not None and args.topic not in snapshot.topics:
            raise UsageError(f"topic '{args.topic}' does not exist")
        if reader is not None and not latest:
            reader.read(snapshot)  # the metrics' first scrape, as the first window starts
        latest[:] = [snapshot]
        return Layout.of(snapshot, security, args.topic)

    stopped, waiting = StoppedProducers(), WaitingReads()  # held window after window (--follow)
    for before, after in windows(layout, window_s, security):
        traffic = Traffic(before, after)
        rows = traffic.rows(args.by)
        found = load_findings(traffic) + stopped.update(traffic)
        findings = waiting.complete(found, groups_reader(settings, latest[0]), sample_read_ms(after))
        if reader is not None:
            rows = with_metrics(args.by, rows, reader.read(latest[0]))
        if args.json:
            payload = {"by": args.by, "window_s": window_s, "rows": [r.to_json() for r in rows]}
            print(json.dumps({**payload, "load": [f.to_json() for f in findings]}), flush=True)
        else:
            print(render_traffic(args.by, window_s, rows, findings), flush=True)
        if not args.follow:
            break
    return 0


def sample_read_ms(sample: Sample) -> int:
    """When ``sample`` was read: its latest broker reply."""
    return max((r.read_ms for r in sample.offsets.values()), default=0)


def groups_reader(settings: ConnectionSettings, snapshot: ClusterSnapshot) -> Callable[[str], list[GroupLag]]:
    """The consumer groups for ``core.groups.waiting``: read once per window, when first asked (a topic's producers
    stopped and its groups are due), as ``kzc groups`` reads them, from the brokers the registrations list when no
    ``--bootstrap-server`` is given.
    Raises ``KzcError`` (from the call) when neither the brokers nor ZooKeeper answer."""
    read: list[list[GroupLag]] = []

    def groups_of(topic: str) -> list[GroupLag]:
        if not read:
            brokers = {b: entry.registration for b, entry in snapshot.brokers.items()}
            found = settings.bootstrap_servers or registered_bootstrap(brokers, settings.kafka_security.protocol)
            with open_group_ops(replace(settings, bootstrap_servers=found or None), GROUPS_TIMEOUT_S) as ops:
                read.append(list(ops.overview().groups))
        return read[0]

    return groups_of


def _cells(by: str, row: Row) -> list[str]:
    rates = [rate_text(row.messages_in), rate_text(row.bytes_in, "bytes")]
    if by == "topic":
        parts = row.extra.get("partitions")
        return [row.topic or "", "?" if parts is None else f"{parts:,}", *rates]
    if by == "broker":
        return [str(row.broker), f"{row.extra.get('leads', 0):,}", *rates]
    if by == "partition":
        return [row.topic or "", str(row.partition), "-" if row.broker is None else str(row.broker), *rates]
    extra = row.extra
    growth = extra.get("growth_bytes_per_hour")
    full = extra.get("full_in_s")
    return [
        str(row.broker),
        row.log_dir or "?",
        human_size(extra.get("used_bytes")),
        rates[1],
        "?" if growth is None else f"{human_size(int(growth))}/h",
        human_size(extra.get("usable_bytes")),
        age_text(full) if full is not None else "-",
    ]


HEADERS = {
    "topic": ["TOPIC", "PARTITIONS", "MSG/S IN", "BYTES/S IN"],
    "broker": ["BROKER", "LEADS", "MSG/S IN", "BYTES/S IN"],
    "partition": ["TOPIC", "PARTITION", "LEADER", "MSG/S IN", "BYTES/S IN"],
    "logdir": ["BROKER", "LOG DIR", "USED", "BYTES/S IN", "GROWTH/H", "FREE", "FULL IN"],
}


# The broker metrics' columns (--metrics-url), where the brokers' meters give them.
METRIC_HEADERS = {"broker": ["BYTES/S OUT", "P99 PRODUCE", "P99 FETCH"], "topic": ["BYTES/S OUT"]}


def _metric_cells(by: str, row: Row) -> list[str]:
    def shown(name: str, unit: str) -> str:
        value = row.metrics.get(name)
        if value is None or isinstance(value, str):
            return "?"
        return f"{human_size(int(value))}/s" if unit == "bytes" else f"{value:,.1f} ms"

    cells = [shown("bytes_out_per_s", "bytes")]
    return [*cells, shown("produce_p99_ms", "ms"), shown("fetch_p99_ms", "ms")] if by == "broker" else cells


def render_traffic(by: str, window_s: float, rows: list[Row], findings: Sequence[LoadFinding] = ()) -> str:
    """The text form: a table (``?``: unknown, its reason listed under it; ``idle``: nothing moved), then what
    the load says (``core.traffic.cause``)."""
    read = max((r.read_ms for row in rows for r in (row.messages_in, row.bytes_in) if r and r.read_ms), default=None)
    when = f", read {clock_text(read)}" if read else ""
    lines = [f"traffic by {by} over {age_text(window_s)}{when}"]
    metrics = by in METRIC_HEADERS and any(row.metrics for row in rows)
    table = [HEADERS[by] + (METRIC_HEADERS[by] if metrics else [])]
    table += [_cells(by, row) + (_metric_cells(by, row) if metrics else []) for row in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    numeric = 1 if by in ("topic", "broker") else 2
    for cells in table:
        lines.append(
            "  ".join(
                c.ljust(w) if i < numeric else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            )
        )
    if not rows:
        lines.append("(no partitions)")
    reasons = _reasons(by, rows)
    lines += [f"? {r}" for r in reasons[:SHOWN_REASONS]]
    if len(reasons) > SHOWN_REASONS:
        lines.append(f"? ... and {len(reasons) - SHOWN_REASONS} more (--json gives every reason)")
    if by == "logdir":
        lines.append("FULL IN: free space at the current growth ('-': " + _full_notes(rows) + ")")
    if not any(row.metrics for row in rows):
        lines.append(f"bytes out and request times: {METRICS_UNKNOWN}")
    lines += [f"load: {f.text}" for f in findings]
    return "\n".join(lines)


def _reasons(by: str, rows: list[Row]) -> list[str]:
    out = []
    for row in rows:
        name = {
            "topic": row.topic or "",
            "broker": f"broker {row.broker}",
            "partition": f"{row.topic}-{row.partition}",
            "logdir": f"broker {row.broker} {row.log_dir or ''}".rstrip(),
        }[by]
        for what, r in (("messages in", row.messages_in), ("bytes in", row.bytes_in)):
            if r is not None and r.per_s is None:
                out.append(f"{name}: {what}: {r.unknown}")
        if by in METRIC_HEADERS and isinstance(why := row.metrics.get("bytes_out_per_s"), str):
            out.append(f"{name}: bytes out: {why}")
    return out


def _full_notes(rows: list[Row]) -> str:
    notes = sorted({str(r.extra.get("full_in_unknown")) for r in rows if r.extra.get("full_in_s") is None})
    return "; ".join(notes) if notes else "none"
