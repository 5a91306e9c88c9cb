"""Several clusters in one check run (``run_checks_many``): the request the Spark worker reads, and the local
engine's reports, each the one ``run_checks`` gives for its cluster alone (no JVM here; the Spark engine's
one job over many clusters is held to the local engine in ``tests/integration/test_checks_engines.py``)."""

from __future__ import annotations

import json
from pathlib import Path

from core.consistency.catalog import MIGRATION_CHECKS
from core.consistency.params import CheckParams
from core.consistency.pipeline import CheckRequest, LocalEngine, SparkChecks, run_checks, run_checks_many
from core.consistency.spark_engine import RunInput, SparkEngine
from core.consistency.spark_job import JobInput, JobRequest
from core.testdata.checks import CASES


def test_each_input_reaches_the_worker_with_its_own_checks_and_params(tmp_path: Path) -> None:
    inputs = [
        RunInput(tmp_path / "a.jsonl", None, CheckParams(), ("no_controller",)),
        RunInput(tmp_path / "b.jsonl", tmp_path / "b-served.jsonl", CheckParams(min_isr_given=3), MIGRATION_CHECKS),
    ]
    sent = json.loads(json.dumps({"inputs": [one.to_json() for one in inputs], "stage_dir": None}))
    request = JobRequest.from_json(sent)
    assert request.inputs == (
        JobInput(str((tmp_path / "a.jsonl").resolve()), None, ("no_controller",), CheckParams()),
        JobInput(
            str((tmp_path / "b.jsonl").resolve()),
            str((tmp_path / "b-served.jsonl").resolve()),
            tuple(MIGRATION_CHECKS),
            CheckParams(min_isr_given=3),
        ),
    )


def test_each_cluster_s_report_is_the_one_it_gets_alone() -> None:
    names = sorted(CASES)[:6]
    requests = [CheckRequest(snapshot=CASES[name][0]()) for name in names]
    requests.append(CheckRequest(snapshot=CASES[names[0]][0](), only=frozenset(MIGRATION_CHECKS)))
    reports = run_checks_many(LocalEngine(), requests)
    for request, report in zip(requests, reports, strict=True):
        alone = run_checks(LocalEngine(), snapshot=request.snapshot, only=request.only)
        assert (report.findings, report.partitions, report.checks_run) == (
            alone.findings,
            alone.partitions,
            alone.checks_run,
        )


def test_no_cluster_starts_no_spark() -> None:
    engine = SparkEngine()
    assert run_checks_many(SparkChecks(engine), []) == [] and not engine.started
