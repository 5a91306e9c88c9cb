"""What a traffic tick costs the console at scale: the UI thread's share of it (the topics screen showing the
tick's rows and the cluster screen its line, brokers' columns and load line) beside the UI thread's share of a
sizes read on the same screens in the same run (the baseline: the one other periodic read they show), and the
worker's share (the ticker: rates, every topic's and broker's sums, the load findings).

No brokers: a recorded cluster (``synthetic_snapshot``) and synthetic high watermarks and log sizes
(``core.testdata.traffic``), served through the real ticker; the sample's wire cost is ``traffic_bench.py``'s.

    .venv/bin/python benchmarks/console_traffic_bench.py [--topics 12500] [--ticks 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config import ConnectionSettings, KafkaSecurity, UserConfig
from core.testdata.log_dirs import synthetic_log_dirs
from core.testdata.snapshots import synthetic_snapshot
from core.testdata.traffic import SyntheticTraffic
from core.traffic.ticker import TrafficTicker
from tests.recorded_backend import RecordedBackend
from tui.app import KzcApp
from tui.screens.cluster import ClusterScreen
from tui.screens.topics import TopicsScreen

NOW = 1_700_000_000.0
WALL: dict[int, list[float]] = {}


def timing(target: Any, name: str, into: list[float]) -> None:
    """Wrap ``target.name`` (a reads' UI-thread callback) so that each call's CPU seconds on the UI thread go
    ``into`` (its wall time, which also counts waits for the GIL held by workers, goes to ``WALL``)."""
    inner: Callable[..., None] = getattr(target, name)

    def timed(*args: Any) -> None:
        start, wall = time.thread_time(), time.perf_counter()
        inner(*args)
        into.append(time.thread_time() - start)
        WALL.setdefault(id(into), []).append(time.perf_counter() - wall)

    setattr(target, name, timed)


async def settle(app: KzcApp, pilot: Any, done: Callable[[], bool]) -> None:
    for _ in range(600):
        await pilot.pause(0.05)
        if done():
            return
    raise SystemExit("the read never finished")


async def measure(app: KzcApp, pilot: Any, screen: Any, tick: list[float], sizes: list[float], ticks: int) -> None:
    """``ticks`` traffic ticks and sizes reads on ``screen``, one after the other, their UI time into ``tick``
    and ``sizes``."""
    pairs = ((screen._traffic_reads, tick), (screen._size_reads, sizes))
    for reads, into in pairs:
        timing(reads, "done", into)
    for _ in range(ticks):
        for reads, into in pairs:
            n = len(into)
            reads.now()
            await settle(app, pilot, lambda into=into, n=n: len(into) > n)  # type: ignore[misc]


async def run(topics: int, ticks: int) -> dict[str, list[float]]:
    snapshot = synthetic_snapshot(topics=topics, partitions_per_topic=4)
    rates = {name: float(n % 50) for n, name in enumerate(snapshot.topics)}  # most topics busy, some idle
    traffic = SyntheticTraffic(rates, int(NOW * 1000) - 3_600_000)
    backend = RecordedBackend(snapshot, (), now_ms=lambda: int(NOW * 1000), traffic=traffic,
                              log_dirs=synthetic_log_dirs(snapshot, int(NOW * 1000)))  # fmt: skip
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: NOW)
    out: dict[str, list[float]] = {"cluster tick": [], "topics tick": [], "cluster sizes": [], "topics sizes": []}
    async with app.run_test(size=(160, 48)) as pilot:
        assert isinstance(app.screen, ClusterScreen)
        await measure(app, pilot, app.screen, out["cluster tick"], out["cluster sizes"], ticks)
        await pilot.press("t")
        await settle(app, pilot, lambda: isinstance(app.screen, TopicsScreen))
        await measure(app, pilot, app.screen, out["topics tick"], out["topics sizes"], ticks)
    worker: list[float] = []
    ticker = TrafficTicker(KafkaSecurity(), lambda: 0, SyntheticTraffic(rates, 0).read)
    ticker.tick(snapshot)
    for _ in range(ticks):
        start = time.thread_time()
        view = ticker.tick(snapshot)
        view.findings()
        worker.append(time.thread_time() - start)
    out["worker: tick, sums and findings"] = worker
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=12_500)
    parser.add_argument("--ticks", type=int, default=5)
    args = parser.parse_args()
    figures = asyncio.run(run(args.topics, args.ticks))
    print(f"{args.topics:,} topics x 4 partitions, {args.ticks} ticks, median (max) ms: CPU of the thread / wall")
    for name, times in figures.items():
        wall = WALL.get(id(times), times)
        cpu = f"{statistics.median(times) * 1000:8.1f} ({max(times) * 1000:.1f})"
        print(f"  {name:34} {cpu} / {statistics.median(wall) * 1000:.1f} ({max(wall) * 1000:.1f})")


if __name__ == "__main__":
    main()
