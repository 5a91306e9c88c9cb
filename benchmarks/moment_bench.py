"""Opening the console at a recorded moment (``kzc --at``) and stepping through the recording, beside the live
console's open of a cluster of the same size measured in the same run.

- **live** (the baseline): ``console_open_bench.console_open``, from ``ZkBackend.connect`` to the first cluster
  view, on the synthetic layout (``benchmarks/zk_layout.py``) in a standalone ZooKeeper;
- **moment**: ``MomentBackend.connect`` (the state at the moment: its base snapshot and every event up to it,
  ``core.history.diff.state_at``) and ``ViewBuilder.build``, on a synthetic store of as many partitions
  (``core.testdata.history``) at a moment half way through its last snapshot interval;
- **step**: ``]`` (``MomentBackend.step``, the next recorded change: the replay held applies only the events
  in between, and only the topics that changed get new entries) and the view built again by the same
  ``ViewBuilder`` (it re-tallies only the topics that changed, as in the console), each step; then ``[`` back
  over the same changes (a replay from the base snapshot held); then across the base snapshot of the moment:
  back (the first time the base before it is read: the baseline), on, and back again (both bases kept); then
  across the base before, after ``MomentBackend.prefetch`` (what the console runs in a worker once a moment is
  drawn: the state where that step lands, replayed ahead), the prefetch's own time beside it; and back across a
  base right after a fresh open there (three times), while its prefetch still runs in a thread (the step waits
  for the prefetch's replay rather than reading the base a second time);
- **re-read** (the step's baseline): the same moments read afresh, as a step did before the replay was kept
  (``state_at``, ``snapshot_of``, the view built by the same ``ViewBuilder``).

Goals (issue 34): the moment opens in at most 1.5x the live open; a step redraws in under 200 ms. The process's
peak RSS after the moment open is printed beside the store's size on disk (bounded memory: the moment, not the
store).

    .venv/bin/python benchmarks/moment_bench.py [--partitions 20000] [--days 1] [--steps 5] [--no-live]

``--no-live`` leaves the live open out (populating ZooKeeper with 100,000 partitions takes minutes): the step
figures have their own baselines.
"""

from __future__ import annotations

import argparse
import gc
import logging
import resource
import shutil
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import zk_layout
from benchmarks.console_open_bench import console_open
from benchmarks.snapshot_bench import BareZooKeeper
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.moment import MomentBackend
from core.console.view import ViewBuilder
from core.history.diff import state_at
from core.history.moment import snapshot_of
from core.history.observations import Window
from core.history.store import HistoryStore
from core.testdata.history import write_history

SNAPSHOT_EVERY_S = 6 * 3600


def moment_open(
    store: HistoryStore, cluster: str, at_ms: int, builder: ViewBuilder
) -> tuple[float, MomentBackend, int]:
    """Wall seconds from ``connect`` to the first cluster view, the backend, and the partitions shown."""
    gc.collect()
    started = time.perf_counter()
    backend = MomentBackend(store, cluster, at_ms)
    backend.connect()
    view = builder.build(backend.snapshot(), at_ms)
    return time.perf_counter() - started, backend, view.snapshot.partition_count


def across(store: HistoryStore, cluster: str, backend: MomentBackend, builder: ViewBuilder, at_ms: int) -> None:
    """Steps across the base snapshot of ``at_ms``: back from it the first time (the base before it is read: the
    baseline), on again and back again (both bases kept: the events only), each with its view."""
    base = Window.of(store, cluster, at_ms, at_ms).base_ms
    assert base is not None
    backend.move_to(base)
    builder.build(backend.snapshot(), base)
    figures = []
    for name, direction in (("back across it, first time (reads the base before)", -1), ("on across it", 1),
                            ("back across it again (bases kept)", -1)):  # fmt: skip
        t0 = time.perf_counter()
        backend.step(direction)
        builder.build(backend.snapshot(), backend.moment.at_ms)
        figures.append(f"{name} {(time.perf_counter() - t0) * 1000:.0f} ms")
    before = Window.of(store, cluster, base - 1, base - 1).base_ms  # across the base before, prefetched
    assert before is not None
    backend.move_to(before)
    builder.build(backend.snapshot(), before)
    t0 = time.perf_counter()
    backend.prefetch()
    figures.append(f"prefetch (a worker, once drawn) {(time.perf_counter() - t0) * 1000:.0f} ms")
    t0 = time.perf_counter()
    backend.step(-1)
    builder.build(backend.snapshot(), backend.moment.at_ms)
    figures.append(f"back across the base before, prefetched {(time.perf_counter() - t0) * 1000:.0f} ms")
    print("step across a base snapshot and view: " + "; ".join(figures), flush=True)


def back_right_after_open(store: HistoryStore, cluster: str, builder: ViewBuilder, at_ms: int) -> None:
    """A fresh open at the base snapshot of ``at_ms``, its prefetch started in a thread as the console's worker
    does, and a step back across the base pressed at once (before the prefetch ends): the step's wall time, and
    the wall and CPU time (both threads) until both are done."""
    base = Window.of(store, cluster, at_ms, at_ms).base_ms
    assert base is not None
    for _ in range(3):
        backend = MomentBackend(store, cluster, base)
        backend.connect()
        builder.build(backend.snapshot(), base)
        gc.collect()
        cpu, t0 = time.process_time(), time.perf_counter()
        prefetch = threading.Thread(target=backend.prefetch)
        prefetch.start()
        backend.step(-1)
        builder.build(backend.snapshot(), backend.moment.at_ms)
        step = time.perf_counter() - t0
        prefetch.join()
        print(
            f"step back right after the open (the prefetch running): step and view {step * 1000:.0f} ms; both done "
            f"{(time.perf_counter() - t0) * 1000:.0f} ms wall, {time.process_time() - cpu:.2f} s CPU",
            flush=True,
        )


def live_open(partitions: int) -> float:
    """The baseline: the live console's open of a ZooKeeper holding ``partitions`` partitions (seconds)."""
    server = BareZooKeeper(heap="1g")
    try:
        chroot = f"/kzc-moment-{uuid.uuid4().hex[:8]}"
        layout = zk_layout.populate(server.hosts, chroot, partitions)
        settings = ConnectionSettings(zookeeper=parse_zookeeper(server.hosts + chroot), session_timeout=30.0)
        live, _, _, shown = console_open(settings)
        print(f"live console open: {live:.2f} s ({shown:,} partitions of {layout.partitions:,})", flush=True)
        return live
    finally:
        server.stop()


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=20_000)
    parser.add_argument("--days", type=float, default=1.0)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--no-live", action="store_true", help="leave the live open (the baseline) out")
    parser.add_argument("--dir", help="write (or reuse) the store here, kept after (default: a temporary one)")
    args = parser.parse_args()
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="kzc-moment-bench-")) / "store"
    live = None if args.no_live else live_open(args.partitions)
    started = time.perf_counter()
    if (root / "kzc-history.json").exists():  # a store written before (e.g. by report_bench.py --dir)
        cluster = HistoryStore.open(root).clusters()[0]
        end_ms = Window.of(HistoryStore.open(root), cluster, 0, 2**62).data_end_ms
        written = "reused"
    else:
        info = write_history(root, partitions=args.partitions, days=args.days, snapshot_every_s=SNAPSHOT_EVERY_S)
        cluster, end_ms = info.cluster, info.end_ms
        written = f"{info.events:,} events, written in {time.perf_counter() - started:.1f} s"
    size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file())
    print(f"store: {args.partitions:,} partitions x {args.days:g} day(s), {size / 2**20:.1f} MiB, {written}")
    try:
        store = HistoryStore.open(root)
        at = end_ms - SNAPSHOT_EVERY_S * 500  # half way through the last snapshot interval
        builder = ViewBuilder()  # one for the open and every step, as the console's live link keeps one
        took, backend, shown = moment_open(store, cluster, at, builder)
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        ratio = f"ratio to live {took / live:.2f} (goal <= 1.5)" if live is not None else "live not measured"
        print(f"moment open: {took:.2f} s ({shown:,} partitions), peak RSS {rss:.0f} MiB; {ratio}", flush=True)
        moments, forward, back, fresh = [], [], [], []
        for _ in range(args.steps):
            t0 = time.perf_counter()
            backend.step(1)
            builder.build(backend.snapshot(), backend.moment.at_ms)
            forward.append(time.perf_counter() - t0)
            moments.append(backend.moment.at_ms)
        for _ in range(args.steps):
            t0 = time.perf_counter()
            backend.step(-1)
            builder.build(backend.snapshot(), backend.moment.at_ms)
            back.append(time.perf_counter() - t0)
        for moment in moments:
            t0 = time.perf_counter()
            builder.build(snapshot_of(state_at(store, cluster, moment), moment), moment)
            fresh.append(time.perf_counter() - t0)
        for name, took_s in (("step on (])", forward), ("step back ([)", back), ("re-read (the old step)", fresh)):
            print(
                f"{name} and view: median {sorted(took_s)[len(took_s) // 2] * 1000:.0f} ms, max "
                f"{max(took_s) * 1000:.0f} ms over {len(took_s)} moments (goal < 200 ms)"
            )
        across(store, cluster, backend, builder, at)
        back_right_after_open(store, cluster, builder, at)
    finally:
        if not args.dir:
            shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
