"""Running both check engines on the same input and comparing what they report (the local engine is the
reference; every Spark deployment must find exactly the same)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from core.consistency.findings import CheckReport
from core.consistency.params import CheckParams
from core.consistency.pipeline import LocalEngine, SparkChecks, run_checks
from core.consistency.spark_engine import SparkEngine
from core.consistency.synthetic import FaultMix, write_synthetic
from core.snapshot.model import ClusterSnapshot


def both(
    spark: SparkEngine,
    *,
    snapshot: ClusterSnapshot | None = None,
    snapshot_file: Path | None = None,
    params: CheckParams | None = None,
    only: frozenset[str] | None = None,
) -> tuple[CheckReport, CheckReport]:
    """The local and the Spark report on the same input."""
    local = run_checks(LocalEngine(), snapshot=snapshot, snapshot_file=snapshot_file, params=params, only=only)
    remote = run_checks(SparkChecks(spark), snapshot=snapshot, snapshot_file=snapshot_file, params=params, only=only)
    return local, remote


def assert_same(local: CheckReport, remote: CheckReport) -> None:
    """Identical findings (check, location, evidence, hence detail) in identical order."""
    only_local = set(local.findings) - set(remote.findings)
    only_spark = set(remote.findings) - set(local.findings)
    assert not only_local and not only_spark, {"local only": only_local, "spark only": only_spark}
    assert local.findings == remote.findings
    assert local.partitions == remote.partitions
    assert local.checks_run == remote.checks_run


def both_staged(spark: SparkEngine, tmp_path: Path) -> tuple[CheckReport, CheckReport, Path]:
    """The local and the Spark report on a synthetic file with every fault, Spark staging it in a new
    directory (``--stage-dir``), which is returned too."""
    path = tmp_path / "synthetic.jsonl"
    write_synthetic(path, 500, topics=50, brokers=6, faults=FaultMix.every_fault(), seed=6)
    stage = tmp_path / "stage"
    stage.mkdir()
    original = spark.settings
    spark.settings = dataclasses.replace(original, stage_dir=stage.as_uri())
    try:
        local, remote = both(spark, snapshot_file=path)
    finally:
        spark.settings = original
    return local, remote, stage
