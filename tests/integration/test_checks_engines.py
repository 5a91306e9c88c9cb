"""The Spark engine returns exactly the local engine's findings on the same input.

Both engines run on every hand-built case of ``test_local_checks.CASES`` (the snapshot in memory, which
the Spark engine stages to a file as the console does), on the brokers' metadata cases, and on synthetic
snapshot files from ``core.consistency.synthetic`` with at least one of every fault the generator can
plant, read by each engine from the same file. The run's one warm Spark worker (``spark_worker``,
``local[*]``) serves the module; only the warm-up test starts its own.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from pathlib import Path

import pytest

from core.brokers.metadata import ServedMetadata, ServedPartition
from core.consistency.catalog import CHECK_IDS, MIGRATION_CHECKS, parse_only, selected
from core.consistency.findings import CheckReport, Finding, StageProgress
from core.consistency.params import CheckParams
from core.consistency.pipeline import STEP_START, STEP_WRITE, CheckInput, LocalEngine, SparkChecks, run_checks
from core.consistency.spark_checks import PASSES
from core.consistency.spark_engine import SparkEngine, SparkSettings
from core.consistency.spark_frames import STEP_READ
from core.consistency.spark_worker import NICENESS
from core.consistency.synthetic import NOT_PLANTABLE, PLANTED_AS, FaultMix, write_synthetic
from core.snapshot.model import ClusterSnapshot
from core.testdata.checks import (
    CASES,
    MIGRATION_CASES,
    MINUTE,
    NOW,
    broker_json,
    healthy,
    state_json,
    topic_json,
    with_states,
)
from tests.integration.engines import assert_same, both, both_staged


@pytest.fixture
def spark(spark_worker: SparkEngine) -> SparkEngine:
    """The run's warm Spark worker (``spark_worker``, shared with the other modules that run Spark)."""
    return spark_worker


@pytest.mark.parametrize("case", sorted(CASES))
def test_spark_finds_what_the_local_engine_finds_on_every_hand_built_case(spark: SparkEngine, case: str) -> None:
    builder, expected = CASES[case]
    local, remote = both(spark, snapshot=builder())
    assert {f.check for f in local.findings} == expected
    assert_same(local, remote)
    assert all(
        isinstance(f, Finding) and hash(f) == hash(g) for f, g in zip(local.findings, remote.findings, strict=True)
    )
    assert {"stage", "spark_start", "load", "checks", "total"} <= set(remote.timings)  # staged to a file for Spark


@pytest.mark.parametrize("case", sorted(MIGRATION_CASES))
def test_spark_finds_the_migration_readiness_findings_the_local_engine_finds(spark: SparkEngine, case: str) -> None:
    builder, expected = MIGRATION_CASES[case]
    local, remote = both(spark, snapshot=builder(), only=frozenset(MIGRATION_CHECKS))
    assert {f.check for f in local.findings} == expected
    assert_same(local, remote)


# name -> (snapshot, params, checks with default params, checks with these params)
PARAMS_CASES: dict[str, tuple[ClusterSnapshot, CheckParams, set[str], set[str]]] = {
    "min_isr_given": (
        healthy(states=with_states(p_1=state_json(2, [2, 3]))),
        CheckParams(min_isr_given=3),
        {"under_replicated"},
        {"under_min_isr", "under_replicated"},
    ),
    "static_min_isr_of_the_leader": (
        # Broker 2 reported 3 through DescribeConfigs; broker 1's value is unknown: not judged.
        healthy(states=with_states(p_0=state_json(1, [1, 2]), p_1=state_json(2, [2, 3]))),
        CheckParams(static_min_isr=((2, 3),)),
        {"under_replicated"},
        {"under_min_isr", "under_replicated"},
    ),
    "imbalance_percent": (
        healthy(states=with_states(p_0=state_json(2, [1, 2, 3]))),
        CheckParams(imbalance_percent=100),
        {"leader_imbalance", "preferred_leader_not_leader"},
        {"preferred_leader_not_leader"},
    ),
    "ages": (
        healthy(
            markers={"orders": NOW - MINUTE},
            isr_changes={'{"version":1,"partitions":[{"topic":"orders","partition":0}]}': NOW - 2 * MINUTE},
        ),
        CheckParams(notification_max_age_ms=MINUTE, deletion_stuck_after_ms=MINUTE // 2),
        {"deletion_pending"},
        {"deletion_stuck", "notification_backlog"},
    ),
}


@pytest.mark.parametrize("case", sorted(PARAMS_CASES))
def test_both_engines_apply_the_same_thresholds(spark: SparkEngine, case: str) -> None:
    snapshot, params, by_default, with_params = PARAMS_CASES[case]
    local, remote = both(spark, snapshot=snapshot, params=params)
    assert_same(local, remote)
    assert {f.check for f in local.findings} == with_params
    assert {f.check for f in run_checks(LocalEngine(), snapshot=snapshot).findings} == by_default


def test_metadata_mismatch_is_the_same_on_both_engines(spark: SparkEngine) -> None:
    served = ServedMetadata(
        frozenset({1, 2}),
        {
            # Partition 1: another replica set; partition 2 below: the same set in another order (as 0.10.x
            # brokers serve it), no finding.
            "orders": {0: ServedPartition(2, (1, 2, 3), (2, 1)), 1: ServedPartition(2, (2, 3, 4), (2, 3, 1))},
            "ghost": {0: ServedPartition(1, (1,), (1,))},
            "other": {0: ServedPartition(1, (3, 2, 1), (1, 2, 3))},
        },
    )
    snapshot = healthy(
        markers={"gone": NOW - MINUTE},
        topics={"orders": topic_json({0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}), "other": topic_json({0: [1, 2, 3]})},
    )
    data = CheckInput(snapshot=snapshot, served=served)
    checks = selected(None, with_brokers=True)
    results = [
        engine.check(data, CheckParams(), checks, lambda _p: None) for engine in (LocalEngine(), SparkChecks(spark))
    ]
    local, remote = (CheckReport.build(r.findings, r.partitions, checks, "x") for r in results)
    assert_same(local, remote)
    found = {
        (f.topic, f.partition, f.evidence_dict.get("differs")) for f in local.findings if f.check == "metadata_mismatch"
    }
    assert found == {
        (None, None, ("brokers",)),
        ("ghost", None, ("topic",)),
        ("orders", 0, ("leader", "isr")),
        ("orders", 1, ("replicas",)),
        ("orders", 2, ("partition",)),
    }


def test_both_engines_agree_when_broker_ids_are_far_apart(spark: SparkEngine) -> None:
    # Ids spread wider than the Spark engine indexes by (its lookups fall back to scanning the list).
    ids = (1, 70_001, 150_000)
    brokers = {b: broker_json(b, rack=rack) for b, rack in zip(ids, ("ra", "rb", "ra"), strict=True)}
    assignment = {0: [1, 70_001, 150_000], 1: [70_001, 150_000, 1], 2: [150_000, 1, 99], 3: [1, 150_000]}
    states = {
        ("orders", 0): state_json(1, [1, 70_001, 150_000]),
        ("orders", 1): state_json(150_000, [150_000, 70_001, 1]),
        ("orders", 2): state_json(150_000, [150_000, 1]),
        ("orders", 3): state_json(1, [1, 150_000]),
    }
    snapshot = healthy(brokers=brokers, topics={"orders": topic_json(assignment)}, states=states)
    local, remote = both(spark, snapshot=snapshot)
    assert_same(local, remote)
    assert {"preferred_leader_not_leader", "rack_violation", "under_replicated"} <= {f.check for f in local.findings}


@pytest.mark.parametrize("no_controller", [True, False], ids=["no_controller", "with_controller"])
def test_both_engines_agree_on_a_synthetic_snapshot_with_every_fault(
    spark: SparkEngine, tmp_path: Path, no_controller: bool
) -> None:
    faults = FaultMix.every_fault()
    if not no_controller:  # with a controller, a fresh deletion marker is pending rather than stuck
        faults = dataclasses.replace(faults, cluster=faults.cluster - {"no_controller"})
    path = tmp_path / "synthetic.jsonl"
    info = write_synthetic(path, 3000, faults=faults, seed=11)
    local, remote = both(spark, snapshot_file=path)
    assert_same(local, remote)
    fired = Counter(f.check for f in local.findings)
    planted = {PLANTED_AS[kind] for kind in info.planted}
    if no_controller:
        planted.discard("deletion_pending")  # no controller: every queued deletion is stuck
    assert planted <= set(fired), planted - set(fired)
    assert set(PLANTED_AS.values()) | set(NOT_PLANTABLE) == set(CHECK_IDS) - set(MIGRATION_CHECKS)  # run when asked
    assert local.partitions == info.partitions


def test_spark_reports_progress_and_honours_only(spark: SparkEngine, tmp_path: Path) -> None:
    path = tmp_path / "synthetic.jsonl"
    write_synthetic(path, 500, topics=50, brokers=6, faults=FaultMix.every_fault(), seed=5)
    only = parse_only("offline_partition,under_replicated,notification_backlog,orphan_topic_config")
    assert only is not None
    stages: list[StageProgress] = []
    remote = run_checks(SparkChecks(spark), snapshot_file=path, only=only, progress=stages.append)
    local = run_checks(LocalEngine(), snapshot_file=path, only=only)
    assert_same(local, remote)
    assert {f.check for f in remote.findings} == only
    finished = {p.stage for p in stages if p.finished}
    assert finished == {"load"} | {f"check {c}" for c in only}
    assert {"load", "checks"} <= set(remote.timings) and remote.timings["checks"] > 0


def test_the_spark_load_reports_its_steps_in_order_before_any_check(spark: SparkEngine) -> None:
    stages: list[StageProgress] = []
    run_checks(SparkChecks(spark), snapshot=healthy(), progress=stages.append)  # in memory, as the console's
    load = [p for p in stages if p.stage == "load"]
    first_check = next(i for i, p in enumerate(stages) if p.stage.startswith("check "))
    assert all(stages.index(p) < first_check for p in load)
    total = load[0].total
    assert total >= 2 and all(p.total == total for p in load)
    assert [p.done for p in load] == sorted(p.done for p in load) and load[0].done == 0
    assert any(0 < p.done < total for p in load)  # the bar moves before the load ends
    assert load[-1] == StageProgress("load", total, total, finished=True)
    steps = [p.step for p in load[:-1] if p.step != STEP_START]  # Spark may be up already
    assert steps == [STEP_WRITE, STEP_READ]


def test_a_run_right_after_start_up_interrupts_the_warm_up_and_finds_the_same(tmp_path: Path) -> None:
    log = tmp_path / "spark.log"
    engine = SparkEngine(SparkSettings(), log_path=log)
    engine.start()
    try:
        local, remote = both(engine, snapshot=healthy())  # sent as soon as the session is up
        assert_same(local, remote)
    finally:
        engine.close()
    text = log.read_text()
    assert "kzc: warm-up interrupted by a run" in text and "kzc: warm-up done" not in text


def test_the_spark_worker_and_its_jvm_run_below_the_console_s_priority(spark: SparkEngine) -> None:
    spark.wait_ready()
    assert spark.pid is not None
    children = Path(f"/proc/{spark.pid}/task/{spark.pid}/children").read_text().split()
    assert children  # Spark's JVM
    expected = min(19, os.getpriority(os.PRIO_PROCESS, 0) + NICENESS)
    for pid in (spark.pid, *map(int, children)):
        assert os.getpriority(os.PRIO_PROCESS, pid) == expected


def test_spark_reports_checks_as_their_passes_finish(spark: SparkEngine, tmp_path: Path) -> None:
    path = tmp_path / "synthetic.jsonl"
    write_synthetic(path, 500, topics=50, brokers=6, faults=FaultMix.every_fault(), seed=5)
    events: list[tuple[str, tuple[str, ...]]] = []
    spark.run(path, None, CheckParams(), CHECK_IDS, on_event=lambda stage, ids: events.append((stage, ids)))
    assert events[0] == ("load", ())
    assert {stage for stage, _ in events[1:]} == {"checks"}
    groups = [ids for _, ids in events[1:]]
    finished = [check for ids in groups for check in ids]
    assert sorted(finished) == sorted(CHECK_IDS)  # every check finishes once (metadata_mismatch: not run)
    assert len(groups) >= len(PASSES) - 1  # pass by pass, not all at the end


def test_a_staged_parquet_copy_gives_the_same_findings(spark: SparkEngine, tmp_path: Path) -> None:
    local, remote, stage = both_staged(spark, tmp_path)
    assert_same(local, remote)
    assert any(p.name.endswith(".parquet") for p in stage.iterdir())  # the checks did read the staged copy
