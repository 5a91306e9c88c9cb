"""The check catalog as one Spark job over a snapshot file (runs inside the Spark worker process only).

Spark reads the snapshot file itself (``spark.read.json`` with an explicit schema, see
``core.consistency.spark_frames``): no Python rows are pushed through ``createDataFrame``. The input is
cached once; the few values every row needs (live brokers, racks, controller epoch, the snapshot time)
are collected to the driver and inlined as literals; then every check is a column expression over the
partition rows (one fused ``select`` producing an array of findings per row), plus three aggregations
(per topic, per preferred leader, per notification parent) and small joins, all unioned into ONE
action. Findings come back as rows ``[check, topic, partition, broker, path, evidence JSON]`` and are
turned into ``Finding`` objects (severity and detail) by the same code as the local engine's.

Every pyspark import is inside a function: importing this module never loads pyspark.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.consistency.catalog import CHECK_IDS
from core.consistency.params import CheckParams

Progress = Callable[[str, tuple[str, ...]], None]


@dataclass(frozen=True)
class JobRequest:
    """What the console asks the worker to check."""

    snapshot: str
    served: str | None
    checks: tuple[str, ...]
    params: CheckParams
    stage_dir: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobRequest:
        """The request as sent by ``SparkEngine.run``."""
        return cls(
            snapshot=str(data["snapshot"]),
            served=data.get("served"),
            checks=tuple(data.get("checks") or CHECK_IDS),
            params=CheckParams(**data.get("params", {})),
            stage_dir=data.get("stage_dir"),
        )


@dataclass
class JobResult:
    """Finding rows, the number of partitions checked and timings (seconds)."""

    rows: list[list[Any]]
    partitions: int
    timings: dict[str, float] = field(default_factory=dict)


def start_session(master: str, conf: dict[str, str]) -> Any:
    """A SparkSession on ``master`` (or a Spark Connect session for ``sc://``)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("kzc-check")
    builder = builder.remote(master) if master.startswith("sc://") else builder.master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not master.startswith("sc://"):
        spark.sparkContext.setLogLevel("ERROR")
    return spark


def warm_up(spark: Any, scratch: Path) -> None:
    """Run the whole job once on a tiny synthetic snapshot, so the first real run finds Spark warm
    (JIT, code generation, the JSON reader)."""
    from core.consistency.synthetic import FaultMix, write_synthetic

    path = scratch / "warm.jsonl"
    write_synthetic(path, partitions=300, topics=30, brokers=6, faults=FaultMix.every_fault(), seed=1)
    run_job(spark, JobRequest(str(path), None, CHECK_IDS, CheckParams()), lambda _s, _c: None)


def run_job(spark: Any, request: JobRequest, progress: Progress) -> JobResult:
    """Load the snapshot, run the requested checks, return their finding rows."""
    from core.consistency.spark_checks import all_findings
    from core.consistency.spark_frames import load_frames

    timings: dict[str, float] = {}
    started = time.monotonic()
    frames = load_frames(spark, request.snapshot, request.served, request.stage_dir)
    timings["load"] = time.monotonic() - started
    progress("load", ())
    started = time.monotonic()
    findings = all_findings(frames, request.params, frozenset(request.checks))
    rows = [[r[0], r[1], r[2], r[3], r[4], r[5]] for r in findings.collect()]
    timings["checks"] = time.monotonic() - started
    progress("checks", request.checks)  # one fused job: every check finishes with it
    frames.release()
    return JobResult(rows, frames.partition_count, timings)
