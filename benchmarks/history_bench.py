"""The history questions at scale: synthetic history (``core.testdata.history``) of an N-partition cluster over D
days with realistic churn, every question timed on the local engine and on Spark, and disk per day.

For each scale given it writes a store (or reuses ``--dir``), then times ``kzc diff`` of two moments (a third and
two thirds into the span), ``kzc history isr`` (one topic, the whole span), ``flapping`` and ``urp --by
broker|topic|rack`` (the whole span) on both engines; Spark runs each
question twice (cold: first plan and JIT; warm), in one session started once (its start time printed apart).
Disk: the store's bytes per day, and one snapshot's bytes (times 96 for the recorder's default 15 minutes).
The synthetic snapshots are written every ``--snapshot-every`` (6h by default: the questions read only the
base snapshot and the events, so this changes disk, not the timings).

``--fleet N``: N clusters of each scale in one store (the generator with seeds 1..N), and the fleet questions
(``--cluster all``): the local engine cluster by cluster, Spark as one job over the fleet, and with
``--per-cluster`` Spark cluster by cluster in the same session.

Run::

    .venv/bin/python benchmarks/history_bench.py --scale 10000x3 --scale 100000x1 [--spark-master local[*]]
    .venv/bin/python benchmarks/history_bench.py --fleet 20 --scale 10000x7 --dir /tmp/h --per-cluster
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from core.history.diff import diff, state_at  # noqa: E402
from core.history.flapping import flapping, fleet_flapping  # noqa: E402
from core.history.isr import isr_history  # noqa: E402
from core.history.observations import Window  # noqa: E402
from core.history.schema import SNAPSHOTS  # noqa: E402
from core.history.store import HistoryStore  # noqa: E402
from core.history.urp import fleet_urp, urp  # noqa: E402
from core.spark.session import LOCAL_DEFAULTS, start_session  # noqa: E402
from core.testdata.history import write_history  # noqa: E402


def size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


class Diff:
    """``kzc diff @A @B``'s answer: the differences between two moments (``to_json`` for the identity check)."""

    def __init__(self, store: HistoryStore, window: Window, spark: Any) -> None:
        span = window.data_end_ms - window.start_ms
        a, b = (state_at(store, window.cluster, window.start_ms + span * k // 3, spark=spark) for k in (1, 2))
        self.found = diff(a, b)

    def to_json(self) -> list[dict[str, str]]:
        return [d.to_json() for d in self.found]


def questions(store: HistoryStore, window: Window) -> dict[str, Any]:
    return {
        "diff (2 moments)": lambda s: Diff(store, window, s),
        "isr (1 topic)": lambda s: isr_history(window, "t00007", spark=s),
        "flapping": lambda s: flapping(window, 20, spark=s),
        "urp --by broker": lambda s: urp(window, "broker", spark=s),
        "urp --by topic": lambda s: urp(window, "topic", spark=s),
        "urp --by rack": lambda s: urp(window, "rack", spark=s),
    }


def fleet_questions(windows: list[Window]) -> dict[str, Any]:
    return {
        "flapping --cluster all": lambda s: fleet_flapping(windows, 20, spark=s),
        "urp --by broker --cluster all": lambda s: fleet_urp(windows, "broker", spark=s),
        "urp --by topic --cluster all": lambda s: fleet_urp(windows, "topic", spark=s),
        "urp --by rack --cluster all": lambda s: fleet_urp(windows, "rack", spark=s),
    }


def per_cluster(windows: list[Window]) -> dict[str, Any]:
    """The fleet questions asked cluster by cluster (what an operator without ``--cluster all`` would run)."""
    return {
        "flapping --cluster all": lambda s: [flapping(w, 20, spark=s) for w in windows],
        "urp --by broker --cluster all": lambda s: [urp(w, "broker", spark=s) for w in windows],
        "urp --by topic --cluster all": lambda s: [urp(w, "topic", spark=s) for w in windows],
        "urp --by rack --cluster all": lambda s: [urp(w, "rack", spark=s) for w in windows],
    }


def run_fleet(args: argparse.Namespace, base: Path, spark: Any, partitions: int, days: int) -> None:
    """``--fleet N``: N clusters of ``partitions`` x ``days`` in one store (seeds 1..N), the fleet questions."""
    root = base / f"fleet{args.fleet}x{partitions}x{days}"
    if not (root / "kzc-history.json").exists():
        started = time.perf_counter()
        events = 0
        for i in range(args.fleet):
            info = write_history(
                root, partitions, days, cluster=f"c{i + 1:02d}", seed=i + 1, snapshot_every_s=args.snapshot_every
            )
            events += info.events
        print(
            f"\n{args.fleet} clusters x {partitions:,} partitions x {days} days: written in "
            f"{time.perf_counter() - started:.0f} s, {events:,} events"
        )
    store = HistoryStore.open(root)
    windows = [Window.of(store, c, 0) for c in store.clusters()]
    print(f"  disk: {size(root) / 2**20:,.1f} MiB; {len(windows)} clusters")
    print(f"  {'question':<30} {'local':>9} {'spark (one job)':>16} {'spark per cluster':>18}  same")
    singles = per_cluster(windows)
    for name, ask in fleet_questions(windows).items():
        if args.only and not any(text in name for text in args.only):
            continue
        local_s, local = (0.0, None) if args.no_local else timed(lambda a=ask: a(None))
        line = f"  {name:<30} {'-' if local is None else f'{local_s:.2f}s ({CPU[0]:.0f} CPU s)':>9}"
        if spark is not None:
            fleet_s, remote = timed(lambda a=ask: a(spark))
            cpu = f"{CPU[0]:.0f}"
            each = "-"
            if args.per_cluster:
                each = f"{timed(lambda n=name: singles[n](spark))[0]:.2f}s"
                cpu += f" / {CPU[0]:.0f}"
            same = "-" if local is None else remote.to_json() == local.to_json()
            line += f" {fleet_s:>15.2f}s {each:>18}  {same}  (Spark CPU s: {cpu})"
        print(line, flush=True)


CPU: list[float] = [0.0]  # the CPU seconds of the last timed call (this process and its JVM)


def cpu_seconds() -> float:
    """CPU time of this process and of its children still running (Spark's JVM): on a machine shared with
    other work, wall times swing with the load; the CPU a question costs much less."""
    tick = os.sysconf("SC_CLK_TCK")
    total = time.process_time()
    me = str(os.getpid())
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:  # ppid
            total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def timed(call: Any) -> tuple[float, Any]:
    started, cpu = time.perf_counter(), cpu_seconds()
    value = call()
    CPU[:] = [cpu_seconds() - cpu]
    return time.perf_counter() - started, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", action="append", metavar="PARTITIONSxDAYS", help="e.g. 100000x30 (repeatable)")
    parser.add_argument("--snapshot-every", type=float, default=6 * 3600, metavar="SECONDS")
    parser.add_argument("--spark-master", default="local[*]")
    parser.add_argument("--no-spark", action="store_true")
    parser.add_argument("--no-local", action="store_true", help="Spark only (no local run, no identity check)")
    parser.add_argument("--spark-once", action="store_true", help="one Spark run per question (no warm repeat)")
    parser.add_argument("--dir", type=Path, help="keep the stores here (reused when present)")
    parser.add_argument("--fleet", type=int, metavar="N", help="N clusters of each scale in one store: the fleet "
                        "questions (--cluster all) instead of the single-cluster ones")  # fmt: skip
    parser.add_argument("--per-cluster", action="store_true", help="with --fleet: also each cluster in turn on Spark")
    parser.add_argument("--only", action="append", metavar="TEXT", help="only the questions whose name holds TEXT")
    args = parser.parse_args()
    scales = [tuple(int(x) for x in s.split("x")) for s in (args.scale or ["10000x3"])]
    base = args.dir or Path(tempfile.mkdtemp(prefix="kzc-history-bench-"))
    spark = None
    if not args.no_spark:
        seconds, spark = timed(lambda: start_session(args.spark_master, dict(LOCAL_DEFAULTS)))
        print(f"Spark session ({args.spark_master}) started in {seconds:.1f} s")
    try:
        for partitions, days in scales:
            if args.fleet:
                run_fleet(args, base, spark, partitions, days)
                continue
            root = base / f"{partitions}x{days}"
            if not (root / "kzc-history.json").exists():
                seconds, info = timed(
                    lambda p=partitions, d=days, r=root: write_history(r, p, d, snapshot_every_s=args.snapshot_every)
                )
                print(
                    f"\n{partitions:,} partitions x {days} days: written in {seconds:.0f} s, {info.events:,} events, "
                    f"{info.flaps:,} ISR flaps, {len(info.restarts)} broker restarts, "
                    f"{info.snapshot_rows:,} snapshot rows"
                )
            store = HistoryStore.open(root)
            cluster = store.clusters()[0]
            first_snapshot = store.files(SNAPSHOTS, cluster)[0]
            total = size(root)
            print(
                f"  disk: {total / 2**20:,.1f} MiB, {total / days / 2**20:,.1f} MiB/day as written; one snapshot "
                f"{first_snapshot.stat().st_size / 2**20:,.2f} MiB (x96/day at --snapshot-every 15m)"
            )
            window = Window.of(store, cluster, 0)
            print(f"  {'question':<18} {'local':>9} {'spark cold':>11} {'spark warm':>11}  same")
            for name, ask in questions(store, window).items():
                if args.only and not any(text in name for text in args.only):
                    continue
                local_s, local = (0.0, None) if args.no_local else timed(lambda a=ask: a(None))
                line = f"  {name:<18} {'-' if local is None else f'{local_s:.2f}s':>9}"
                if spark is not None:
                    cold_s, remote = timed(lambda a=ask: a(spark))
                    cold_cpu = CPU[0]
                    warm = "-" if args.spark_once else f"{timed(lambda a=ask: a(spark))[0]:.2f}s"
                    same = "-" if local is None else remote.to_json() == local.to_json()
                    line += f" {cold_s:>10.2f}s {warm:>11}  {same}  (cold: {cold_cpu:.0f} CPU s)"
                print(line, flush=True)
    finally:
        if spark is not None:
            spark.stop()
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
