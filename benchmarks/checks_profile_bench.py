"""Where a small check job's time goes: one Spark job per hand-built case (a few partitions), one after the other
in one ``local[*]`` session, each split into its Py4J calls, its passes' plan building (Python through Py4J,
with Spark's eager analysis of every new DataFrame) and their ``collect`` (Catalyst's analysis, optimisation and
physical planning as ``QueryExecution.tracker`` records them, and the rest: scheduling and running the tasks).

CPU seconds of the driver and the JVM beside wall time (the machine is shared). The first cases warm the JVM up;
read the last. Run::

    .venv/bin/python benchmarks/checks_profile_bench.py [--cases 4] [--together]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import py4j.clientserver
import py4j.java_gateway

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.checks_small_bench import cpu_seconds, driver_and_jvm
from core.consistency import spark_checks
from core.consistency.catalog import CHECK_IDS
from core.consistency.params import CheckParams
from core.consistency.pipeline import write_snapshot_file
from core.consistency.spark_frames import union_all
from core.consistency.spark_job import PARALLEL_PASSES, JobInput, JobRequest, run_job
from core.spark.session import LOCAL_DEFAULTS, start_session
from core.testdata.checks import CASES

_calls = {"job": 0}
_per_thread = threading.local()


def _count_py4j_calls() -> None:
    for connection in (py4j.clientserver.ClientServerConnection, py4j.java_gateway.GatewayConnection):
        original = connection.send_command

        def send_command(self: Any, command: str, _original: Any = original) -> Any:
            _calls["job"] += 1
            _per_thread.calls = getattr(_per_thread, "calls", 0) + 1
            return _original(self, command)

        connection.send_command = send_command  # type: ignore[method-assign]


_passes: list[tuple[str, float, int, float, dict[str, float]]] = []


def _timed_rows(self: spark_checks.Pass) -> list[list[Any]]:
    """``Pass.rows`` as it is, with its build and collect timed apart and Catalyst's phases read back."""
    from pyspark.sql import functions as F

    _per_thread.calls = 0
    started = time.monotonic()
    tagged = [
        build().where(F.col("check").isin(sorted(checks))).select(F.lit(cluster).alias("cluster"), "*")
        for cluster, checks, build in self.plans
    ]
    df = union_all(tagged)
    built, calls = time.monotonic(), _per_thread.calls
    rows = [list(r) for r in df.collect()]
    collected = time.monotonic()
    phases = df._jdf.queryExecution().tracker().phases()
    keys = phases.keySet().iterator()
    seconds: dict[str, float] = {}
    while keys.hasNext():
        key = keys.next()
        seconds[key] = phases.apply(key).durationMs() / 1000
    _passes.append((self.name, built - started, calls, collected - built, seconds))
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=4, help="how many of the hand-built cases, in name order")
    parser.add_argument("--together", action="store_true", help="then the same cases as the clusters of one job")
    args = parser.parse_args()
    _count_py4j_calls()
    spark_checks.Pass.rows = _timed_rows  # type: ignore[method-assign]
    spark = start_session("local[*]", dict(LOCAL_DEFAULTS))
    pids = driver_and_jvm()  # the driver and Spark's JVM
    scratch = Path(tempfile.mkdtemp(prefix="kzc-profile-bench-"))
    names = sorted(CASES)[: args.cases]
    inputs = {name: JobInput(str(scratch / f"{name}.jsonl"), None, CHECK_IDS, CheckParams()) for name in names}
    for name in names:
        write_snapshot_file(CASES[name][0](), Path(inputs[name].snapshot))
    # Each case alone, then (--together) the same cases as the clusters of one job, as run_checks_many sends them.
    jobs = [(name, (inputs[name],)) for name in names]
    if args.together:
        jobs.append((f"{len(names)} together", tuple(inputs.values())))
    try:
        for name, job in jobs:
            _report(name, job, spark, pids)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def _report(name: str, job: tuple[JobInput, ...], spark: Any, pids: list[int]) -> None:
    """Run one job and print its figures."""
    _passes.clear()
    _calls["job"] = 0
    cpu, driver, started = cpu_seconds(pids), time.process_time(), time.monotonic()
    result = run_job(spark, JobRequest(job), lambda _s, _c: None)
    print(
        f"{name}: {time.monotonic() - started:.2f} s wall, {cpu_seconds(pids) - cpu:.2f} s CPU "
        f"(driver's Python {time.process_time() - driver:.2f}), {_calls['job']} Py4J calls, "
        f"load {result.timings['load']:.2f} s, checks {result.timings['checks']:.2f} s"
    )
    build = sum(p[1] for p in _passes)
    collect = sum(p[3] for p in _passes)
    phase = {key: sum(p[4].get(key, 0.0) for p in _passes) for key in ("analysis", "optimization", "planning")}
    rest = collect - sum(phase.values())
    print(
        f"  passes (thread wall, {len(_passes)} passes, {PARALLEL_PASSES} at a time): build {build:.1f} s "
        f"({sum(p[2] for p in _passes)} Py4J calls), collect {collect:.1f} s: "
        + ", ".join(f"{key} {value:.1f}" for key, value in phase.items())
        + f", scheduling and tasks {rest:.1f}"
    )
    for one in _passes:
        print(f"    {one[0]}: build {one[1]:.2f} s ({one[2]} calls), collect {one[3]:.2f} s {one[4]}")


if __name__ == "__main__":
    sys.exit(main())
