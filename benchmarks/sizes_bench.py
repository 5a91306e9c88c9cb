"""What the console's sizes cost on a large cluster, off the UI thread, every 30 s while a screen shows them:
decoding one broker's DescribeLogDirs answer (every replica), indexing every broker's, every topic's size and
bytes on disk (``core.snapshot.sizes``), and the topics table's rows with them; beside a bare baseline in the
same run (a dict of every replica's size summed per topic, no rules).

No brokers: the answers are built from a synthetic cluster (``core.testdata``) in the wire format kzc reads.

Run::

    .venv/bin/python benchmarks/sizes_bench.py [--topics 25000] [--partitions-per-topic 4] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from core.brokers.logdirs import BrokerLogDirs, decode_log_dirs  # noqa: E402
from core.brokers.wire import CORRELATION  # noqa: E402
from core.console.view import ViewBuilder  # noqa: E402
from core.snapshot.sizes import SizesView  # noqa: E402
from core.testdata.log_dirs import synthetic_log_dirs  # noqa: E402
from core.testdata.snapshots import synthetic_snapshot  # noqa: E402
from tui.screens.topics import TopicRowCache  # noqa: E402


def answer(read: BrokerLogDirs) -> bytes:
    """The DescribeLogDirs v1 response body a broker would send for ``read`` (correlation id first)."""
    body = struct.pack(">ii", CORRELATION, 0) + struct.pack(">i", len(read.dirs or ()))
    for d in read.dirs or ():
        by_topic: dict[str, list[tuple[int, int]]] = {}
        for r in d.replicas:
            by_topic.setdefault(r.topic, []).append((r.partition, r.size))
        raw = d.path.encode()
        body += struct.pack(">hh", d.error, len(raw)) + raw + struct.pack(">i", len(by_topic))
        for topic, parts in by_topic.items():
            body += struct.pack(">h", len(topic)) + topic.encode() + struct.pack(">i", len(parts))
            body += b"".join(struct.pack(">iqqb", p, size, 0, 0) for p, size in parts)
    return body


def timed(rounds: int, run: Callable[[], object]) -> float:
    """The median seconds of ``rounds`` runs."""
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=25_000)
    parser.add_argument("--partitions-per-topic", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    snapshot = synthetic_snapshot(topics=args.topics, partitions_per_topic=args.partitions_per_topic)
    reads = synthetic_log_dirs(snapshot, 1)
    partitions = sum(len(e.partition_ids) for e in snapshot.topics.values())
    replicas = sum(len(d.replicas) for r in reads.values() for d in r.dirs or ())
    body = answer(reads[1])
    view = ViewBuilder().build(snapshot, 1)
    sizes = SizesView.of(reads, 1)

    def bare() -> dict[str, int]:
        totals: dict[str, int] = {}
        for r in reads.values():
            for d in r.dirs or ():
                for rep in d.replicas:
                    totals[rep.topic] = totals.get(rep.topic, 0) + rep.size
        return totals

    print(f"{partitions:,} partitions, {replicas:,} replicas on {len(reads)} brokers, median of {args.rounds}")
    decode = timed(args.rounds, lambda: decode_log_dirs(body))
    print(f"decode one broker's answer ({len(body) / 1e6:.1f} MB)   {decode:.2f} s")
    print(f"index every broker's read (SizesView.of) {timed(args.rounds, lambda: SizesView.of(reads, 1)):.2f} s")
    print(f"every topic's size and on disk           {timed(args.rounds, lambda: sizes.topics(snapshot)):.2f} s")
    print(f"brokers never asked (unasked)            {timed(args.rounds, lambda: sizes.unasked(snapshot)):.2f} s")
    topic_sizes = sizes.topics(snapshot)
    print(
        f"topics table rows with sizes (no cache)  "
        f"{timed(args.rounds, lambda: TopicRowCache().derive(view, topic_sizes)):.2f} s"
    )
    print(f"baseline: bare per-topic sum            {timed(args.rounds, bare):.2f} s")


if __name__ == "__main__":
    main()
