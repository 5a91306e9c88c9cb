"""``kzc metrics [--broker ID] [--window DURATION] [--json]``: each broker's own metrics from its Prometheus JMX
exporter (``core.metrics``): bytes in and out, messages in, ISR shrinks and expands per second, produce and fetch
p99 request time, request handler and network processor idle %, and its under-replicated count beside
ZooKeeper's. Two scrapes ``--window`` apart give the rates as count deltas; ``--window 0`` reads once and shows
the exporter's one-minute rates."""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from cli.options import add_command, duration_option
from cli.snapshot_cmd import add_read_options, take_snapshot
from core.config import ConnectionSettings
from core.errors import UsageError
from core.human_size import human_size
from core.human_time import utc_text
from core.metrics.rates import COUNT_DELTA, Rate
from core.metrics.reader import BrokerMetrics, MetricsReader

DEFAULT_WINDOW = "5s"
MAX_WINDOW_S = 600.0


def register(sub: Any) -> None:
    """Declare ``kzc metrics``."""
    parser = add_command(sub, "metrics")
    parser.add_argument("--broker", type=int, metavar="ID", help="only this broker")
    parser.add_argument(
        "--window",
        default=DEFAULT_WINDOW,
        metavar="DURATION",
        help=f"time between the two scrapes whose count deltas are the rates (default {DEFAULT_WINDOW}); 0: one "
        "scrape, the exporter's one-minute rates",
    )
    add_read_options(parser)
    parser.set_defaults(handler=_metrics)


def _metrics(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    window = duration_option(args.window, "--window")
    if window > MAX_WINDOW_S:
        raise UsageError(f"--window must be at most {MAX_WINDOW_S:g} s")
    if settings.zookeeper is None:
        raise UsageError("no cluster: give --zookeeper HOST:PORT[/chroot] or --context NAME")
    if settings.metrics_url is None:
        raise UsageError(
            "no metrics URL: give --metrics-url http://{host}:7071/metrics (a template over each broker's "
            "registration) or --metrics-url ID=URL per broker, or the context's metrics_url"
        )
    snapshot, _ = take_snapshot(settings, args.max_in_flight)
    own_urls = {b for b, _ in settings.metrics_url.brokers}
    if args.broker is not None and args.broker not in snapshot.brokers and args.broker not in own_urls:
        raise UsageError(f"broker {args.broker} is not registered and has no --metrics-url of its own")
    reader = MetricsReader(settings.metrics_url)
    brokers = reader.read(snapshot, args.broker)
    if window > 0:
        time.sleep(window)  # the window the count deltas cover
        brokers = reader.read(snapshot, args.broker)
    if args.json:
        print(json.dumps({"window_s": window or None, "brokers": [b.to_json() for b in brokers]}))
    else:
        print(render_metrics(brokers))
    return 1 if brokers and all(b.failure for b in brokers) else 0


def render_metrics(brokers: tuple[BrokerMetrics, ...]) -> str:
    """The text form: a block per broker, a failing one with its reason."""
    lines: list[str] = []
    for b in brokers:
        if lines:
            lines.append("")
        lines += broker_metric_lines(b)
    return "\n".join(lines)


def broker_metric_lines(b: BrokerMetrics) -> list[str]:
    """One broker's metrics as lines (``kzc metrics``; ``kzc broker ID`` shows them too)."""
    head = f"Broker {b.broker} metrics ({b.url or 'no URL'})"
    if b.failure:
        return [head, f"  unavailable: {b.failure}"]
    f = b.figures
    assert f is not None
    read = f"read {utc_text(b.read_ms)}" if b.read_ms else ""
    lines = [f"{head} {read}".rstrip()]
    lines.append(f"  bytes in      {_rate(f.rates['bytes_in'], _bytes)}")
    lines.append(f"  bytes out     {_rate(f.rates['bytes_out'], _bytes)}")
    lines.append(f"  messages in   {_rate(f.rates['messages_in'], _count)}")
    lines.append(f"  produce p99   {_ms(f.p99_ms['produce'])}")
    lines.append(f"  fetch p99     {_ms(f.p99_ms['fetch'])} (consumers' fetches)")
    lines.append(f"  idle          request handlers {_rate(f.request_idle_pct, _pct)}; network processors "
                 f"{_pct(f.network_idle_pct) if f.network_idle_pct is not None else 'unknown'}")  # fmt: skip
    lines.append(f"  ISR           shrinks {_rate(f.rates['isr_shrinks'], _count)}; expands "
                 f"{_rate(f.rates['isr_expands'], _count)}")  # fmt: skip
    zk = b.zookeeper_under_replicated
    urp = str(f.under_replicated) if f.under_replicated is not None else "unknown"
    lines.append(f"  under-replicated (it leads) {urp}; ZooKeeper's ISRs: {zk if zk is not None else 'not registered'}")
    if b.disagreement:
        lines.append(f"  ! {b.disagreement}")
    if f.restarted:
        lines.append("  the broker restarted within the window: its counts began again")
    return lines


def _rate(rate: Rate, shown: Any) -> str:
    if rate.value is None:
        return f"unknown ({rate.why})"
    text = shown(rate.value)
    per = "" if shown is _pct else "/s"
    how = f"over {rate.window_s:.1f} s" if rate.source == COUNT_DELTA and rate.window_s else rate.source
    if rate.source == COUNT_DELTA and rate.value == 0:
        how = f"idle: nothing {how}"
    return f"{text}{per} ({how}{'; ' + rate.why if rate.why else ''})"


def _bytes(value: float) -> str:
    return human_size(round(value))


def _count(value: float) -> str:
    return f"{value:,.1f}"


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _ms(value: float | None) -> str:
    return f"{value:,.1f} ms" if value is not None else "unknown"
