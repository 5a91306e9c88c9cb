"""The progress a check run reports, stage by stage: the local engine's sequence is fixed (its load is one
unit, then each check as its pass finishes); the Spark engine's load steps are counted up front
(``core.consistency.spark_frames.load_steps``; the sequence itself runs in
``tests/integration/test_checks_engines.py``)."""

from __future__ import annotations

from pathlib import Path

from core.consistency.catalog import MIGRATION_CHECKS, selected
from core.consistency.findings import StageProgress
from core.consistency.local_engine import CLUSTER_PASS, PARTITION_PASS
from core.consistency.pipeline import LocalEngine, run_checks, write_snapshot_file
from core.consistency.spark_frames import STEP_PARQUET, STEP_READ, STEP_SERVED, STEP_STAGE, load_steps
from core.testdata.checks import healthy


def expected_local(checks: tuple[str, ...]) -> list[StageProgress]:
    """Load as one unit, then the partition pass's checks, the cluster pass's, the migration pass's."""
    order = [c for one in (PARTITION_PASS, CLUSTER_PASS, MIGRATION_CHECKS) for c in one if c in checks]
    return [
        StageProgress("load", 0, 1),
        StageProgress("load", 1, 1, finished=True),
        *(StageProgress(f"check {c}", n, len(checks), finished=True) for n, c in enumerate(order, 1)),
    ]


def test_the_local_engine_reports_load_then_each_check_in_pass_order_on_a_snapshot_in_memory() -> None:
    seen: list[StageProgress] = []
    run_checks(LocalEngine(), snapshot=healthy(), progress=seen.append)
    assert seen == expected_local(selected(None, False))


def test_the_local_engine_reports_the_same_sequence_on_a_snapshot_file(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.jsonl"
    write_snapshot_file(healthy(), path)
    seen: list[StageProgress] = []
    run_checks(LocalEngine(), snapshot_file=path, progress=seen.append)
    assert seen == expected_local(selected(None, False))
    assert not any(p.step for p in seen)  # the local load has no steps of its own


def test_the_spark_load_steps_follow_what_the_worker_reads() -> None:
    assert load_steps(staged=False, served=False) == (STEP_READ,)
    assert load_steps(staged=False, served=True) == (STEP_READ, STEP_SERVED)
    assert load_steps(staged=True, served=True) == (STEP_STAGE, STEP_PARQUET, STEP_READ, STEP_SERVED)


def test_the_snapshot_file_written_off_the_process_is_the_writers_own(tmp_path: Path) -> None:
    # The Spark run's snapshot file is written in a forked child (the console's keys keep the GIL): the file
    # must be byte for byte what the writer writes in-process.
    from core.consistency.pipeline import _write_in_child
    from core.snapshot.jsonl.write import write_snapshot_file as write_here

    snapshot = healthy()
    assert _write_in_child(snapshot, tmp_path / "child.jsonl")  # the child wrote it and exited 0
    write_here(snapshot, tmp_path / "here.jsonl")
    assert (tmp_path / "child.jsonl").read_bytes() == (tmp_path / "here.jsonl").read_bytes()
