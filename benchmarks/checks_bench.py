"""The consistency checks on synthetic snapshots: the local engine against the Spark engine, side by side.

For each size (``--sizes``, default 100k and 1M partitions; 3m also works) it writes a synthetic snapshot
file with planted faults (``core.consistency.synthetic``, every fault kind at 0.05 %), then measures on
that same file:

- **local**: the plain-Python engine in a fresh child process (so its peak RSS is its own): load (read
  the file into memory), checks, end to end, peak RSS (``ru_maxrss``);
- **Spark cold**: a new Spark worker (``local[*]``): start-up (JVM, session, warm-up job), then the first
  run; end to end from nothing to findings;
- **Spark warm**: a second run on the same worker: load (Spark reads the file), checks, end to end, and
  the peak RSS of the worker process and its JVM (the sum of their ``VmHWM``).

Both engines must return identical findings (the script stops otherwise). Then it prints how each figure
grows from the smallest to the largest size, and the goals at 1M partitions on this 2-core machine:
local checks <= 2 s and peak <= 1 GiB; Spark warm <= 15 s, cold <= 60 s (ok / MISSED).

``--standalone`` also starts a Spark standalone master and two one-core workers on 127.0.0.1 from
pyspark's bundled ``spark-class``, runs the same job there, compares the findings and stops them.
``--connect`` starts a Spark Connect server on 127.0.0.1 from pyspark's bundled jars and runs the job
through it; when the Connect client libraries are missing it names the pip packages to install and that
part fails (exit code 1). Everything listens on loopback only. Run::

    .venv/bin/python benchmarks/checks_bench.py [--sizes 100k,1m] [--standalone] [--connect] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.consistency.pipeline import LocalEngine, SparkChecks, run_checks  # noqa: E402
from core.consistency.spark_engine import SparkEngine, SparkSettings  # noqa: E402
from core.consistency.synthetic import FaultMix, write_synthetic  # noqa: E402
from core.spark.servers import (  # noqa: E402
    connect_client_missing,
    connect_server,
    spark_home,
    standalone_cluster,
)

GIB = 1024**3
GOALS_AT = 1_000_000
LOCAL_CHECKS_GOAL_S = 2.0
LOCAL_PEAK_GOAL = 1 * GIB
SPARK_WARM_GOAL_S = 15.0
SPARK_COLD_GOAL_S = 60.0
LOOPBACK = "127.0.0.1"


@dataclass
class Run:
    """One engine's figures on one file (seconds, bytes)."""

    load: float
    checks: float
    total: float
    peak: int | None
    findings: list[dict[str, Any]] = field(repr=False)
    start: float | None = None  # Spark: start-up before the run (cold only)


@dataclass
class Size:
    partitions: int
    file_mb: float
    planted: dict[str, int]
    local: Run
    cold: Run
    warm: Run


# ---- the local engine, in a child process ------------------------------------------------------------


def local_child(snapshot: Path, out: Path) -> None:
    """Run the local engine on ``snapshot``; write its figures and findings to ``out`` (child process)."""
    report = run_checks(LocalEngine(), snapshot_file=snapshot)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux
    data = {"timings": dict(report.timings), "peak": peak, "findings": report.to_json()["findings"]}
    out.write_text(json.dumps(data))


def run_local(snapshot: Path, scratch: Path) -> Run:
    out = scratch / "local.json"
    command = [sys.executable, __file__, "--local-child", str(snapshot), str(out)]
    subprocess.run(command, check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    data = json.loads(out.read_text())
    t = data["timings"]
    return Run(t["load"], t["checks"], t["total"], int(data["peak"]), data["findings"])


# ---- the Spark engine -------------------------------------------------------------------------------------


def tree_peak_rss(pid: int) -> int:
    """The sum of the peak RSS (VmHWM) of ``pid`` and every process below it, in bytes."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        todo.extend(children.get(current, []))
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1]) * 1024
        except OSError:
            continue
    return total


def spark_run(engine: SparkEngine, snapshot: Path) -> Run:
    report = run_checks(SparkChecks(engine), snapshot_file=snapshot)
    t = report.timings
    pid = engine.pid
    peak = tree_peak_rss(pid) if pid is not None else None
    return Run(t["load"], t["checks"], t["total"], peak, report.to_json()["findings"])


def run_spark(snapshot: Path, settings: SparkSettings) -> tuple[Run, Run]:
    """A cold run (a new worker: start-up, then the first run) and a warm one (the same worker again)."""
    started = time.monotonic()
    engine = SparkEngine(settings)
    try:
        engine.start()
        start = engine.wait_ready()
        cold = spark_run(engine, snapshot)
        cold.start = start
        cold.total = time.monotonic() - started
        warm = spark_run(engine, snapshot)
    finally:
        engine.close()
    return cold, warm


# ---- Spark standalone and Spark Connect on loopback -------------------------------------------------------


def standalone(snapshot: Path, scratch: Path) -> tuple[Run, Run]:
    """The job on a standalone master with two one-core workers on loopback."""
    with standalone_cluster(scratch, workers=2) as cluster:
        return run_spark(snapshot, SparkSettings(master=cluster.master, conf=cluster.conf))


def connect_jar() -> str:
    """The Spark Connect server jar pyspark bundles, or a note that there is none."""
    jars = sorted((spark_home() / "jars").glob("spark-connect_*.jar"))
    return f"jars/{jars[0].name}" if jars else "no spark-connect jar in this pyspark"


def connect(snapshot: Path, scratch: Path) -> tuple[Run, Run]:
    """The job through a Spark Connect server on loopback (``local[*]`` behind it)."""
    with connect_server(scratch) as server:
        return run_spark(snapshot, SparkSettings(master=server.master))


# ---- reporting ---------------------------------------------------------------------------------------------


def seconds(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f} s"


def size_of(value: int | None) -> str:
    if value is None:
        return "-"
    return f"{value / GIB:.2f} GiB" if value >= GIB else f"{value / 1024**2:.0f} MiB"


def table(size: Size) -> str:
    rows = [
        ("", "local", "spark cold", "spark warm"),
        ("spark start-up", "", seconds(size.cold.start), ""),
        ("load", seconds(size.local.load), seconds(size.cold.load), seconds(size.warm.load)),
        ("checks", seconds(size.local.checks), seconds(size.cold.checks), seconds(size.warm.checks)),
        ("end to end", seconds(size.local.total), seconds(size.cold.total), seconds(size.warm.total)),
        ("peak RSS", size_of(size.local.peak), size_of(size.cold.peak), size_of(size.warm.peak)),
    ]
    return "\n".join(f"  {a:<16}{b:>12}{c:>14}{d:>14}" for a, b, c, d in rows)


def growth(sizes: list[Size]) -> str:
    small, large = sizes[0], sizes[-1]
    factor = large.partitions / small.partitions

    def ratio(a: float | int | None, b: float | int | None) -> str:
        return "-" if not a or b is None else f"x{b / a:.1f}"

    lines = [f"growth {small.partitions:,} -> {large.partitions:,} partitions (x{factor:.0f} data):"]
    local = [
        f"checks {ratio(small.local.checks, large.local.checks)}",
        f"end to end {ratio(small.local.total, large.local.total)}",
        f"peak RSS {ratio(small.local.peak, large.local.peak)}",
    ]
    spark = [
        f"warm checks {ratio(small.warm.checks, large.warm.checks)}",
        f"warm end to end {ratio(small.warm.total, large.warm.total)}",
        f"cold end to end {ratio(small.cold.total, large.cold.total)}",
        f"peak RSS {ratio(small.warm.peak, large.warm.peak)}",
    ]
    lines.append("  local   " + ", ".join(local))
    lines.append("  spark   " + ", ".join(spark))
    return "\n".join(lines)


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def goals(size: Size) -> str:
    lines = [f"goals at {size.partitions:,} partitions (snapshot file to findings, 2-core machine):"]
    for label, value, limit, shown in (
        ("local checks", size.local.checks, LOCAL_CHECKS_GOAL_S, seconds(size.local.checks)),
        ("local peak RSS", size.local.peak or 0, LOCAL_PEAK_GOAL, size_of(size.local.peak)),
        ("spark warm end to end", size.warm.total, SPARK_WARM_GOAL_S, seconds(size.warm.total)),
        ("spark cold end to end", size.cold.total, SPARK_COLD_GOAL_S, seconds(size.cold.total)),
    ):
        goal = size_of(int(limit)) if "RSS" in label else seconds(limit)
        lines.append(f"  {label:<24} {shown:>10}  (goal <= {goal:>8})  {verdict(value <= limit)}")
    return "\n".join(lines)


def same(what: str, expected: list[dict[str, Any]], found: list[dict[str, Any]]) -> None:
    if expected != found:
        a = {json.dumps(f, sort_keys=True) for f in expected}
        b = {json.dumps(f, sort_keys=True) for f in found}
        raise SystemExit(
            f"{what}: findings differ from the local engine's ({len(a - b)} only local, {len(b - a)} only {what}); "
            f"first differences: {sorted(a - b)[:2]} / {sorted(b - a)[:2]}"
        )


def parse_size(text: str) -> int:
    text = text.strip().lower()
    for suffix, scale in (("k", 1_000), ("m", 1_000_000)):
        if text.endswith(suffix):
            return int(float(text[:-1]) * scale)
    return int(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="100k,1m", help="partition counts, e.g. 100k,1m,3m (default 100k,1m)")
    parser.add_argument("--standalone", action="store_true", help="also on a loopback standalone master + 2 workers")
    parser.add_argument("--connect", action="store_true", help="also through a loopback Spark Connect server")
    parser.add_argument("--keep", metavar="DIR", help="write the snapshot files here and keep them")
    parser.add_argument("--local-child", nargs=2, metavar=("SNAPSHOT", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.local_child:
        local_child(Path(args.local_child[0]), Path(args.local_child[1]))
        return 0
    counts = sorted(parse_size(s) for s in args.sizes.split(","))
    scratch = Path(tempfile.mkdtemp(prefix="kzc-checks-bench-"))
    files = Path(args.keep) if args.keep else scratch
    files.mkdir(parents=True, exist_ok=True)
    print(f"kzc checks benchmark: {os.cpu_count()} cores, python {sys.version.split()[0]}, scratch {scratch}")
    failed: list[str] = []
    results: list[Size] = []
    missing = connect_client_missing() if args.connect else []
    if missing:
        print(
            f"Spark Connect: pyspark bundles the server ({connect_jar()}), but the client libraries are missing; "
            "install them with:\n"
            f"  {sys.executable} -m pip install " + " ".join(f"'{m}'" for m in missing)
        )
        failed.append("--connect (client libraries missing)")
    try:
        for count in counts:
            path = files / f"synthetic-{count}.jsonl"
            t = time.monotonic()
            info = write_synthetic(path, count, faults=FaultMix.default(), seed=42)
            mb = path.stat().st_size / 1e6
            print(
                f"\n{count:,} partitions: {info.topics:,} topics, {info.brokers} brokers, {mb:.0f} MB file, "
                f"{sum(info.planted.values()):,} faults planted ({time.monotonic() - t:.1f} s to write)"
            )
            local = run_local(path, scratch)
            cold, warm = run_spark(path, SparkSettings())
            same("spark (cold)", local.findings, cold.findings)
            same("spark (warm)", local.findings, warm.findings)
            size = Size(info.partitions, mb, info.planted, local, cold, warm)
            results.append(size)
            print(f"  findings: {len(local.findings):,}, identical on both engines")
            print(table(size))
            remote_runs = [
                (args.standalone, standalone, f"standalone (master + 2 workers on {LOOPBACK})"),
                (args.connect and not missing, connect, f"Spark Connect (server on {LOOPBACK})"),
            ]
            for wanted, run_remote, label in remote_runs:
                if wanted:
                    r_cold, r_warm = run_remote(path, scratch)
                    same(f"{label} (cold)", local.findings, r_cold.findings)
                    same(f"{label} (warm)", local.findings, r_warm.findings)
                    print(
                        f"  {label}: start-up {seconds(r_cold.start)}, cold end to end {seconds(r_cold.total)}, "
                        f"warm end to end {seconds(r_warm.total)}; findings identical"
                    )
        print()
        if len(results) > 1:
            print(growth(results))
        at_goal = [s for s in results if s.partitions >= GOALS_AT]
        if at_goal:
            print(goals(at_goal[0]))
        else:
            print(f"(goals are for {GOALS_AT:,} partitions: add 1m to --sizes)")
    except BaseException:
        print(f"logs kept in {scratch}", file=sys.stderr)
        raise
    shutil.rmtree(scratch, ignore_errors=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
