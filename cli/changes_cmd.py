"""``kzc changes [--since 1h] [--topic T] [--broker ID] [--json]``: what changed, as ZooKeeper dates it.

Every change the znode stats date (``core.changes.timeline``), newest first, grouped into bursts of changes
that happened together; each kind says what ZooKeeper cannot tell about it. One snapshot read: the stats
come with the data, so this costs no more than ``kzc describe``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from cli.options import add_command, duration_option
from cli.snapshot_cmd import add_read_options, take_snapshot
from core.changes.timeline import LIMITS, Burst, Change, bursts, dated_changes, select
from core.config import ConnectionSettings
from core.human_time import utc_text
from core.kafka.znodes import ClusterId

DEFAULT_SINCE = "24h"


def register(sub: Any) -> None:
    """Declare ``kzc changes``."""
    changes = add_command(sub, "changes")
    changes.add_argument(
        "--since",
        default=DEFAULT_SINCE,
        metavar="DURATION",
        help=f"how far back: 15m, 1h, 7d... (default {DEFAULT_SINCE})",
    )
    changes.add_argument("--topic", metavar="T", help="only changes of this topic and its partitions")
    changes.add_argument("--broker", type=int, metavar="ID", help="only changes that concern this broker")
    changes.add_argument("--expand", action="store_true", help="list every change of each burst")
    add_read_options(changes)
    changes.set_defaults(handler=_changes)


def _changes(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    window_s = duration_option(args.since, "--since")
    snapshot, _ = take_snapshot(settings, args.max_in_flight)
    now_ms = int(time.time() * 1000)
    since_ms = now_ms - int(window_s * 1000)
    chosen = select(dated_changes(snapshot), since_ms, args.topic, args.broker)
    grouped = bursts(chosen)
    cluster_id = snapshot.cluster_id.id if isinstance(snapshot.cluster_id, ClusterId) else None
    if args.json:
        print(
            json.dumps(
                {
                    "cluster_id": cluster_id,
                    "zookeeper": snapshot.zookeeper,
                    "now_ms": now_ms,
                    "since_ms": since_ms,
                    "count": len(chosen),
                    "bursts": [b.to_json() for b in grouped],
                    "limits": {kind.value: text for kind, text in LIMITS.items()},
                    "not_dated": NOT_DATED,
                }
            )
        )
        return 0
    print(
        f"Changes ZooKeeper dates in cluster {cluster_id or '(no id)'} at {snapshot.zookeeper}, "
        f"since {utc_text(since_ms)} ({args.since}), newest first:"
    )
    if not grouped:
        print("  none")
    for burst in grouped:
        _print_burst(burst, args.expand)
    kinds = sorted({c.kind for c in chosen}, key=lambda k: k.value)
    if kinds:
        print("\nWhat ZooKeeper cannot tell:")
        for kind in kinds:
            print(f"  {kind.value}: {LIMITS[kind]}")
    print(f"  not dated at all: {NOT_DATED}")
    return 0


# Said once with every answer: what leaves no trace in ZooKeeper.
NOT_DATED = (
    "a broker's stop (its registration just goes), a deleted topic, configs and requests already processed "
    "and purged, every leader/ISR change before the last of each partition"
)


def _print_burst(burst: Burst, expand: bool) -> None:
    when = utc_text(burst.start_ms)
    if burst.end_ms != burst.start_ms:
        end = utc_text(burst.end_ms)
        when += f" to {end[11:19] if end[:10] == when[:10] else end}"
    print(f"  {when}  {burst.text}")
    if len(burst.changes) == 1:
        print(f"  {'':{len(when)}}  ({burst.changes[0].source})")
        return
    if not expand:
        print(f"  {'':{len(when)}}  ({len(burst.changes)} changes; --expand lists them)")
        return
    for change in burst.changes:
        _print_change(change, len(when))


def _print_change(change: Change, indent: int) -> None:
    print(f"  {'':{indent}}    {utc_text(change.at_ms)[11:19]}  {change.text}  ({change.source})")
