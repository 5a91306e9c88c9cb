"""``kzc report`` over the last two hours of a synthetic store (``core.testdata.history``: an N-partition cluster
over D days with realistic churn), on the local engine, beside the baseline measured in the same run: the
``kzc history urp --by topic`` question alone over the same window (one of the report's parts). Goal (issue 34):
under 10 s for two hours of a 100k-partition store. The report's wall and CPU time (``time.process_time``) are
both printed: on a shared machine the CPU time is its own work.

Run::

    .venv/bin/python benchmarks/report_bench.py --partitions 100000 --days 1 [--dir /tmp/report-store]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from core.audit import read_audit  # noqa: E402
from core.history.observations import Window  # noqa: E402
from core.history.store import HistoryStore  # noqa: E402
from core.history.urp import urp  # noqa: E402
from core.incident.render import render  # noqa: E402
from core.incident.report import build_report  # noqa: E402
from core.testdata.history import write_history  # noqa: E402

WINDOW_MS = 2 * 3_600_000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--days", type=float, default=1.0)
    parser.add_argument("--dir", help="write (or reuse) the store here (default: a temporary directory)")
    args = parser.parse_args()
    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="kzc-report-bench-")) / "store"
    started = time.perf_counter()
    if not (root / "kzc-history.json").exists():
        info = write_history(root, partitions=args.partitions, days=args.days, snapshot_every_s=6 * 3600)
        cluster, end = info.cluster, info.end_ms
        print(
            f"store: {args.partitions:,} partitions x {args.days:g} day(s) written in "
            f"{time.perf_counter() - started:.1f} s"
        )
    else:
        store = HistoryStore.open(root)
        cluster = store.clusters()[0]
        end = Window.of(store, cluster, 0, 2**62).data_end_ms
    store = HistoryStore.open(root)
    since = end - WINDOW_MS
    t0 = time.perf_counter()
    urp(Window.of(store, cluster, since, end), "topic")
    baseline = time.perf_counter() - t0
    t0, cpu = time.perf_counter(), time.process_time()
    report = build_report(store, cluster, since, end, read_audit(root / "no-audit.jsonl"))
    html = render(report, "html")
    took, cpu = time.perf_counter() - t0, time.process_time() - cpu
    print(f"baseline, kzc history urp --by topic over the 2 h window: {baseline:.2f} s")
    what = f"{len(html) / 1024:.0f} KiB, {len(report.bursts)} bursts, {len(report.isr.outages)} ISR spells"
    print(f"kzc report over the 2 h window (build + HTML, {what}): {took:.2f} s wall, {cpu:.2f} s CPU (goal: < 10 s)")
    if not args.dir:
        shutil.rmtree(root.parent, ignore_errors=True)


if __name__ == "__main__":
    main()
