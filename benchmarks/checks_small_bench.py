"""The Spark check job on small snapshots (the hand-built cases, a few partitions each): CPU seconds per job
with the session's settings (before) and with the settings the job takes for a small input
(``spark_job.SMALL_INPUT_CONF``, after), one after the other on the same snapshot in one warm session.

CPU seconds (this process, the driver, plus Spark's JVM) rather than wall time: the machine is shared. Both
settings must return the same finding rows (the script stops otherwise). Run::

    .venv/bin/python benchmarks/checks_small_bench.py [--cases 4]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from core.consistency import spark_job
from core.consistency.catalog import CHECK_IDS
from core.consistency.params import CheckParams
from core.consistency.pipeline import write_snapshot_file
from core.consistency.spark_job import SMALL_INPUT_BYTES, SMALL_INPUT_CONF, JobInput, JobRequest, run_job
from core.spark.session import LOCAL_DEFAULTS, start_session
from core.testdata.checks import CASES


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of ``pids`` (the driver and Spark's JVM), in seconds."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def driver_and_jvm() -> list[int]:
    """This process and its children (the Spark session's JVM, once started)."""
    me = os.getpid()
    children = [
        int(c)
        for t in os.listdir(f"/proc/{me}/task")
        for c in Path(f"/proc/{me}/task/{t}/children").read_text().split()
    ]
    return [me, *children]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4, help="how many of the hand-built cases (spread evenly)")
    args = parser.parse_args()
    spark = start_session("local[*]", dict(LOCAL_DEFAULTS))
    pids = driver_and_jvm()
    names = sorted(CASES)[:: max(1, len(CASES) // args.cases)][: args.cases]
    scratch = Path(tempfile.mkdtemp(prefix="kzc-small-bench-"))

    def job(path: Path, small_below: int = SMALL_INPUT_BYTES) -> list[Any]:
        spark_job.SMALL_INPUT_BYTES = small_below  # 0: the session's settings, as for a large input
        request = JobRequest((JobInput(str(path), None, CHECK_IDS, CheckParams()),))
        result = run_job(spark, request, lambda _s, _c: None)
        return sorted(map(str, result.rows))

    totals = {"before": 0.0, "after": 0.0}
    try:
        small = scratch / "warm.jsonl"
        write_snapshot_file(CASES[names[0]][0](), small)
        job(small)  # the JVM's first job pays its own warm-up
        for name in names:
            small = scratch / f"{name}.jsonl"
            write_snapshot_file(CASES[name][0](), small)
            rows = {}
            for label, small_below in (("before", 0), ("after", SMALL_INPUT_BYTES)):
                cpu, wall = cpu_seconds(pids), time.monotonic()
                rows[label] = job(small, small_below)
                cpu, wall = cpu_seconds(pids) - cpu, time.monotonic() - wall
                totals[label] += cpu
                print(f"{name:45} {label:6}: {cpu:5.1f} s CPU, {wall:5.1f} s wall, {len(rows[label])} findings")
            if rows["before"] != rows["after"]:
                print(f"{name}: the findings differ", file=sys.stderr)
                return 1
    finally:
        spark.stop()
        for path in scratch.iterdir():
            path.unlink()
        scratch.rmdir()
    n = len(names)
    print(
        f"mean per job: before {totals['before'] / n:.1f} s CPU, after {totals['after'] / n:.1f} s CPU "
        f"({SMALL_INPUT_CONF})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
