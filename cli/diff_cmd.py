"""``kzc diff A B``: what differs between two snapshots, two moments of a history store, or two live clusters.

Each side is a snapshot file (a path), ``@WHEN`` (a moment of the history store: ``--store``, the context's
``history`` or ``$KZC_HISTORY``; ``@2h`` ago, ``@2026-11-26T19:30:00`` UTC, or epoch milliseconds),
``context:NAME`` (that context, read live) or ``live`` (the cluster of the global options, read live).
An ``@WHEN`` side is read by the local engine or, ``--engine spark``, by Spark (the same state).
Topics, partitions, replicas, ISR, leaders, topic configs (not in the history store: said when skipped),
brokers and the controller; never ACLs.
"""

from __future__ import annotations

import argparse
import json
import time
from contextlib import nullcontext
from pathlib import Path
from typing import Any

from cli.history_cmd import engine, open_store, pick_cluster
from cli.options import add_command, add_spark_options
from cli.snapshot_cmd import take_snapshot
from core import human_time
from core.config import ConnectionSettings, resolve_settings
from core.config_file import load_config
from core.errors import UsageError
from core.history.diff import ClusterState, configs_compared, diff, state_at, state_of
from core.snapshot.jsonl.read import read_snapshot_file
from core.snapshot.reader import DEFAULT_MAX_IN_FLIGHT


def register(sub: Any) -> None:
    """Declare ``kzc diff``."""
    parser = add_command(sub, "diff")
    parser.add_argument("a", metavar="A", help="FILE, @WHEN (history store), context:NAME or live")
    parser.add_argument("b", metavar="B", help="the same kinds as A")
    parser.add_argument(
        "--store", metavar="DIR", help="the history store for @WHEN (default: the context's history, else $KZC_HISTORY)"
    )
    parser.add_argument("--cluster", metavar="NAME", help="the recorded cluster for @WHEN (default: the context's)")
    parser.add_argument("--engine", choices=["local", "spark"], default="local",
                        help="what reads an @WHEN side from the store: local (default) or spark")  # fmt: skip
    add_spark_options(parser, suppress=True)
    parser.set_defaults(handler=_diff)


def parse_moment(text: str, now_ms: int) -> int:
    """``@WHEN`` without the ``@``: a duration ago, an ISO UTC time, or epoch milliseconds."""
    try:
        return human_time.parse_moment(text, now_ms)
    except ValueError:
        raise UsageError(f"@{text}: give a duration ago (@2h), a UTC time (@2026-11-26T19:30:00) or epoch ms") from None


def _side(text: str, args: argparse.Namespace, settings: ConnectionSettings, spark: Any) -> ClusterState:
    if text.startswith("@"):
        store = open_store(args, settings)
        cluster = pick_cluster(store, args, settings)
        at = parse_moment(text[1:], int(time.time() * 1000))
        return state_at(store, cluster, at, spark=spark)
    if text == "live" or text.startswith("context:"):
        target = settings
        if text.startswith("context:"):
            config = load_config(Path(args.config).expanduser() if args.config else None)
            target = resolve_settings(config, context=text.removeprefix("context:"), read_only=True)
        snapshot, _ = take_snapshot(target, DEFAULT_MAX_IN_FLIGHT)
        return state_of(snapshot, f"{target.context or target.zookeeper} (live)")
    return state_of(read_snapshot_file(text), text)


def _diff(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    from_store = args.a.startswith("@") or args.b.startswith("@")
    with engine(args, settings) if from_store else nullcontext() as spark:
        a, b = _side(args.a, args, settings, spark), _side(args.b, args, settings, spark)
    found = diff(a, b)
    compared = configs_compared(a, b)
    if args.json:
        print(json.dumps({"a": a.name, "b": b.name, "configs_compared": compared,
                          "differences": [d.to_json() for d in found]}))  # fmt: skip
        return 0
    print(f"Differences from {a.name} to {b.name}: {len(found) or 'none'}")
    for difference in found:
        print(f"  {difference.text()}")
    if not compared:
        print("  (topic configs not compared: the history store does not record them)")
    return 0
