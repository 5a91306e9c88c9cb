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
from core.metrics.reader import BrokerMetrics, MetricsReader
from core.metrics.text import broker_metric_lines

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
