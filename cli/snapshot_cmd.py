"""``kzc snapshot -o FILE``: every piece of Kafka metadata in ZooKeeper, written as a JSON Lines file.

Also home of ``take_snapshot``, the connected read with progress on a terminal that ``kzc describe``
shares. The file format is ``docs/snapshot-format.md``.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.options import add_command
from core.config import ConnectionSettings
from core.errors import UsageError
from core.snapshot.jsonl.write import write_snapshot_file
from core.snapshot.kraft import with_kraft_brokers
from core.snapshot.model import ClusterSnapshot
from core.snapshot.reader import DEFAULT_MAX_IN_FLIGHT, ReadStats, SnapshotProgress, SnapshotReader
from core.zookeeper.kafka_root import open_kafka_session


def register(sub: Any) -> None:
    """Declare ``kzc snapshot``."""
    snapshot = add_command(sub, "snapshot")
    snapshot.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="FILE",
        help="file to write (.gz: gzip-compressed); replaced atomically",
    )
    add_read_options(snapshot)
    snapshot.set_defaults(handler=_snapshot)


def add_read_options(parser: argparse.ArgumentParser) -> None:
    """The options of reading a snapshot, shared with ``kzc describe``."""
    parser.add_argument(
        "--max-in-flight",
        type=int,
        default=DEFAULT_MAX_IN_FLIGHT,
        metavar="N",
        help=f"ZooKeeper requests outstanding at once (default {DEFAULT_MAX_IN_FLIGHT})",
    )


def take_snapshot(settings: ConnectionSettings, max_in_flight: int) -> tuple[ClusterSnapshot, ReadStats]:
    """Connect, read the snapshot (progress on stderr when it is a terminal), disconnect.

    Raises:
        UsageError: no cluster named, or a bad ``max_in_flight``.
        ConnectError, SessionLostError: ZooKeeper unreachable, or the session kept being lost.
    """
    if max_in_flight < 1:
        raise UsageError("--max-in-flight must be at least 1")
    progress = _TerminalProgress() if sys.stderr.isatty() else None
    with open_kafka_session(settings) as session:
        try:
            reader = SnapshotReader(session, progress=progress, max_in_flight=max_in_flight)
            snapshot = reader.read()
        finally:
            if progress is not None:
                progress.clear()
    return snapshot, reader.stats


class _TerminalProgress:
    """One self-overwriting stderr line: requests done of those known so far."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, p: SnapshotProgress) -> None:
        retry = f" (attempt {p.attempt})" if p.attempt > 1 else ""
        print(
            f"\rreading ZooKeeper: {p.done:,}/{p.total:,} znodes, {p.topics:,} topics{retry}   ",
            end="",
            file=sys.stderr,
            flush=True,
        )
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            print("\r\033[K", end="", file=sys.stderr, flush=True)


def _snapshot(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    snapshot, stats = take_snapshot(settings, args.max_in_flight)
    # During a migration the file records which brokers run KRaft (alive though gone from /brokers/ids).
    snapshot = with_kraft_brokers(snapshot, settings.bootstrap_servers, settings.kafka_security)
    records = write_snapshot_file(snapshot, args.output)
    epoch = snapshot.controller_epoch if isinstance(snapshot.controller_epoch, int) else None
    summary = {
        "file": args.output,
        "records": records,
        "brokers": len(snapshot.brokers),
        "topics": len(snapshot.topics),
        "partitions": snapshot.partition_count,
        "unreadable_znodes": len(snapshot.unreadable),
        "zxid": snapshot.zxid,
        "controller_epoch": epoch,
        "point_in_time": stats.point_in_time,
        "attempts": stats.attempts,
        "requests": stats.requests,
        "seconds": round(stats.seconds, 3),
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    rate = stats.requests / stats.seconds if stats.seconds else 0.0
    consistency = (
        "nothing changed in ZooKeeper while reading"
        if stats.point_in_time
        else f"ZooKeeper changed while reading (zxid {hex(stats.first_zxid)} to {hex(snapshot.zxid)})"
    )
    lines = [
        f"wrote {args.output}: {len(snapshot.brokers)} brokers, {len(snapshot.topics):,} topics, "
        f"{snapshot.partition_count:,} partitions ({records:,} records)",
        f"  read {stats.requests:,} znodes in {stats.seconds:.1f} s ({rate:,.0f}/s) at zxid {hex(snapshot.zxid)}, "
        f"controller epoch {epoch if epoch is not None else '-'}; {consistency}",
    ]
    if snapshot.unreadable:
        lines.append(f"  {len(snapshot.unreadable)} znode(s) unreadable: see the 'unreadable' records")
    if stats.retaken_for:
        lines.append(f"  read again {len(stats.retaken_for)} time(s): {'; '.join(stats.retaken_for)}")
    print("\n".join(lines))
    return 0
