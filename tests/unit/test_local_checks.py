"""The local (plain Python) check engine: each check fires on a hand-built snapshot and stays quiet on a
healthy one; findings carry the right location, severity and evidence.

Snapshots are built from Kafka's own JSON through kzc's parsers, as the snapshot reader does
(``core.testdata.checks``, whose ``CASES`` the Spark engine test runs too).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from core.brokers.metadata import ServedMetadata, ServedPartition
from core.consistency.catalog import BY_ID, CHECK_IDS, Severity, parse_only
from core.consistency.findings import CheckReport, Finding
from core.consistency.local_engine import run_local
from core.consistency.params import CheckParams
from core.errors import UsageError
from core.kafka.names import name_problem
from core.kafka.znodes import (
    Unreadable,
)
from core.snapshot.health import assess
from core.snapshot.model import ClusterSnapshot
from core.testdata.checks import (
    CASES,
    MIGRATION_CASES,
    MINUTE,
    NOW,
    RF3,
    broker_json,
    healthy,
    state_json,
    topic_json,
    with_states,
)


def run(snapshot: ClusterSnapshot, **kwargs: Any) -> list[Finding]:
    return run_local(snapshot, **kwargs)


def checks_of(findings: list[Finding]) -> set[str]:
    return {f.check for f in findings}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_case_fires_exactly_its_checks(case: str) -> None:
    builder, expected = CASES[case]
    findings = run(builder())
    assert checks_of(findings) == expected, [f.detail for f in findings]
    for f in findings:
        assert f.severity is BY_ID[f.check].severity
        assert f.detail.endswith(".") and "None" not in f.detail, f.detail
        assert f.path.startswith("/")


def test_every_check_in_the_catalog_has_a_case_that_fires_it() -> None:
    fired = set().union(*(expected for _, expected in [*CASES.values(), *MIGRATION_CASES.values()]))
    assert fired | {"metadata_mismatch"} == set(CHECK_IDS)


def test_a_healthy_cluster_has_no_findings_at_all() -> None:
    assert run(healthy()) == []


def test_offline_partition_names_the_partition_the_state_and_why() -> None:
    findings = run(healthy(states=with_states(p_0=state_json(-1, [1]))))
    offline = next(f for f in findings if f.check == "offline_partition")
    assert (offline.check, offline.severity, offline.topic, offline.partition, offline.broker) == (
        "offline_partition", Severity.ERROR, "orders", 0, None
    )  # fmt: skip
    assert offline.path == "/brokers/topics/orders/partitions/0/state"
    assert offline.evidence_dict == {"leader": -1, "isr": (1,), "replicas": (1, 2, 3), "offline_replicas": ()}
    assert offline.detail == "Partition orders-0 is offline: it has no leader (leader -1); ISR [1]."


def test_an_offline_partition_is_also_under_replicated_and_under_min_isr_as_kafkas_tool_lists_it() -> None:
    snapshot = healthy(
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"2"}}'},
        states=with_states(p_0=state_json(-1, [1])),
    )
    findings = run(snapshot)
    # One of its preferred broker's few partitions is offline: above the 10 % threshold, as Kafka's controller counts.
    assert sorted(f.check for f in findings) == [
        "leader_imbalance", "offline_partition", "under_min_isr", "under_replicated"
    ]  # fmt: skip
    under_min = next(f for f in findings if f.check == "under_min_isr")
    assert under_min.evidence_dict["has_live_leader"] is False
    assert under_min.detail == "Partition orders-0 has no live leader: producers with acks=all fail."


def test_checks_count_exactly_the_partitions_the_health_derivation_counts() -> None:
    snapshot = healthy(
        brokers={1: broker_json(1), 2: broker_json(2)},
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"2"}}'},
        states=with_states(p_0=None, p_1=state_json(2, [2]), p_2=state_json(3, [3, 1])),
        markers={"orders": NOW - MINUTE},
    )
    report = assess(snapshot)
    findings = run(snapshot)

    def found(check: str) -> set[tuple[str, int]]:
        return {(f.topic, f.partition) for f in findings if f.check == check and f.partition is not None}

    assert found("offline_partition") == {(o.topic, o.partition) for o in report.offline}
    assert found("under_replicated") == {(u.topic, u.partition) for u in report.under_replicated}
    assert found("under_min_isr") == {(u.topic, u.partition) for u in report.under_min_isr}
    assert all(f.evidence_dict.get("queued_for_deletion") for f in findings if f.check == "offline_partition")


def test_under_min_isr_and_under_replicated_both_name_the_partition_and_the_source() -> None:
    snapshot = healthy(
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"3"}}'},
        states=with_states(p_1=state_json(2, [2, 3])),
    )
    findings = run(snapshot)
    assert sorted(f.check for f in findings) == ["under_min_isr", "under_replicated"]
    finding = next(f for f in findings if f.check == "under_min_isr")
    assert finding.partition == 1
    assert finding.evidence_dict["min_insync_replicas"] == 3
    assert finding.evidence_dict["min_isr_source"] == "topic"


def test_min_isr_falls_back_to_the_given_static_value_and_is_not_judged_without_one() -> None:
    snapshot = healthy(states=with_states(p_1=state_json(2, [2, 3])))
    assert checks_of(run(snapshot)) == {"under_replicated"}
    assert checks_of(run(snapshot, params=CheckParams(min_isr_given=3))) == {"under_min_isr", "under_replicated"}
    invalid = healthy(
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"two"}}'},
        states=with_states(p_1=state_json(2, [2, 3])),
    )
    assert checks_of(run(invalid, params=CheckParams(min_isr_given=1))) == {"under_replicated"}


def test_a_killed_broker_shows_as_under_replication_not_as_unknown_replicas() -> None:
    # Broker 3 is gone and the controller has shrunk the ISRs: under_replicated says it all.
    snapshot = healthy(
        brokers={1: broker_json(1), 2: broker_json(2)},
        states=with_states(p_0=state_json(1, [1, 2]), p_1=state_json(2, [2, 1]), p_2=state_json(1, [1, 2])),
    )
    findings = run(snapshot)
    assert checks_of(findings) == {"under_replicated", "preferred_leader_not_leader"}
    under = [f for f in findings if f.check == "under_replicated"]
    assert {f.partition for f in under} == {0, 1, 2}
    assert all(f.evidence_dict["offline_replicas"] == (3,) for f in under)
    assert "replicas on unregistered brokers: [3]" in under[0].detail


def test_under_replication_ignores_replicas_being_added() -> None:
    snapshot = healthy(
        topics={
            "orders": topic_json(
                {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}, adding_replicas={"0": [3]}, removing_replicas={}
            )
        },
        states=with_states(p_0=state_json(1, [1, 2])),
    )
    assert checks_of(run(snapshot)) == {"reassignment_in_progress"}


def test_leader_imbalance_follows_kafkas_ratio_and_threshold() -> None:
    topics = {"orders": topic_json({p: [1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3] for p in range(30)})}
    # Broker 1 prefers partitions 0, 3, ..., 27 (10 of them); broker 2 leads one of them: 10% is not > 10%.
    one = healthy(topics=topics, states={("orders", 0): state_json(2, [1, 2, 3])})
    assert "leader_imbalance" not in checks_of(run(one))
    two = healthy(
        topics=topics, states={("orders", 0): state_json(2, [1, 2, 3]), ("orders", 3): state_json(2, [1, 2, 3])}
    )
    (imbalance,) = [f for f in run(two) if f.check == "leader_imbalance"]
    assert imbalance.broker == 1 and imbalance.topic is None
    assert imbalance.evidence_dict == {"preferred_partitions": 10, "led_elsewhere": 2, "threshold_percent": 10}
    assert "leader_imbalance" not in checks_of(run(two, params=CheckParams(imbalance_percent=20)))


def test_a_topic_being_deleted_reports_its_deletion_and_its_availability_flagged_as_queued() -> None:
    snapshot = healthy(
        brokers={1: broker_json(1), 2: broker_json(2)},
        markers={"orders": NOW - MINUTE},
        states=with_states(p_0=state_json(-1, [1]), p_1=state_json(-1, [2]), p_2=state_json(-1, [3])),
    )
    findings = run(snapshot)
    (stuck,) = [f for f in findings if f.check == "deletion_stuck"]
    health = [f for f in findings if f.check != "deletion_stuck"]
    assert len(health) == 9 and all(f.evidence_dict["queued_for_deletion"] is True for f in health)
    assert "queued for deletion" in health[0].detail
    assert stuck.check == "deletion_stuck" and stuck.path == "/admin/delete_topics/orders"
    assert stuck.evidence_dict["reasons"] == ("offline_replicas",)
    assert stuck.evidence_dict["offline_replicas"] == (3,)


def test_deletion_stuck_names_every_reason() -> None:
    snapshot = healthy(
        controller=None,
        markers={"orders": NOW - 20 * MINUTE},
        topics={"orders": topic_json(RF3, adding_replicas={"0": [3]}, removing_replicas={})},
    )
    stuck = [f for f in run(snapshot) if f.check == "deletion_stuck"]
    assert stuck[0].evidence_dict["reasons"] == ("no_controller", "reassignment", "old_marker")
    assert "there is no controller" in stuck[0].detail


def test_invalid_reassignment_request_lists_each_problem() -> None:
    snapshot = healthy(
        reassignment=b'{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,1,9,-1]},'
        b'{"topic":"orders","partition":8,"replicas":[]}]}'
    )
    invalid = sorted((f for f in run(snapshot) if f.check == "invalid_reassignment_request"), key=Finding.sort_key)
    assert [(f.partition, f.evidence_dict["problems"]) for f in invalid] == [
        (0, ("duplicates", "negative_ids", "unknown_brokers")),
        (8, ("missing_partition", "empty")),
    ]
    assert invalid[0].evidence_dict["unknown_brokers"] == (9,)
    assert invalid[0].path == "/admin/reassign_partitions"


def test_topic_name_messages_are_kafkas() -> None:
    assert name_problem("") == "Topic name is invalid: the empty string is not allowed"
    assert name_problem("..") == "Topic name is invalid: '..' is not allowed"
    assert name_problem("a" * 250) == (
        f"Topic name is invalid: the length of '{'a' * 250}' is longer than the max allowed length 249"
    )
    assert name_problem("a" * 249) is None and name_problem("...") is None
    assert name_problem("a b") == (
        "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    )
    # Java counts UTF-16 units: 248 letters and one emoji are 250, so the length rule fires first.
    assert "length" in str(name_problem("a" * 248 + "\U0001f600"))


def test_topic_name_collision_names_the_other_topics() -> None:
    findings = run(
        healthy(
            topics={"a.b": topic_json({0: [1, 2, 3]}), "a_b": topic_json({0: [2, 3, 1]}), "orders": topic_json(RF3)}
        )
    )
    by_topic = {f.topic: f.evidence_dict["colliding_with"] for f in findings if f.check == "topic_name_collision"}
    assert by_topic == {"a.b": ("a_b",), "a_b": ("a.b",)}


def test_metadata_mismatch_compares_what_brokers_serve() -> None:
    snapshot = healthy()
    same = ServedMetadata(
        frozenset({1, 2, 3}),
        {"orders": {p: ServedPartition(r[0], tuple(r), tuple(r)) for p, r in RF3.items()}},
    )
    assert run(snapshot, served=same) == []
    different = ServedMetadata(
        frozenset({1, 2}),
        {
            "orders": {0: ServedPartition(2, (1, 2, 3), (2, 1)), 1: ServedPartition(2, (2, 3, 1), (2, 3, 1))},
            "ghost": {0: ServedPartition(1, (1,), (1,))},
        },
    )
    found = {(f.topic, f.partition, f.evidence_dict.get("differs")) for f in run(snapshot, served=different)}
    assert found == {
        (None, None, ("brokers",)),
        ("ghost", None, ("topic",)),
        ("orders", 0, ("leader", "isr")),
        ("orders", 2, ("partition",)),
    }


def test_metadata_mismatch_compares_replicas_as_sets_as_0_10_brokers_serve_them() -> None:
    # 0.10.x brokers keep a partition's replicas as a set: the order they serve is not the assignment's.
    snapshot = healthy()
    reordered = ServedMetadata(
        frozenset({1, 2, 3}),
        {"orders": {p: ServedPartition(r[0], tuple(reversed(r)), tuple(r)) for p, r in RF3.items()}},
    )
    assert run(snapshot, served=reordered) == []
    other_set = ServedMetadata(
        frozenset({1, 2, 3}),
        {"orders": {p: ServedPartition(r[0], (*r[:2], 4) if p == 1 else tuple(r), tuple(r)) for p, r in RF3.items()}},
    )
    (mismatch,) = run(snapshot, served=other_set)
    assert (mismatch.partition, mismatch.evidence_dict["differs"]) == (1, ("replicas",))
    assert (mismatch.evidence_dict["zk_replicas"], mismatch.evidence_dict["served_replicas"]) == ((2, 3, 1), (2, 3, 4))


def test_metadata_mismatch_runs_only_with_broker_metadata() -> None:
    assert "metadata_mismatch" not in {f.check for f in run(healthy(controller=None))}


def test_only_restricts_the_checks_and_rejects_unknown_ids() -> None:
    snapshot = healthy(controller=None, states=with_states(p_1=state_json(2, [2, 3])))
    assert checks_of(run(snapshot)) == {"no_controller", "under_replicated"}
    assert checks_of(run(snapshot, only=parse_only("under_replicated"))) == {"under_replicated"}
    with pytest.raises(UsageError, match="unknown check id"):
        parse_only("under_replicated,nope")


def test_unreadable_znodes_are_reported_once_with_their_location() -> None:
    extra = (Unreadable("/brokers/topics/orders/partitions/x", b"", "'x' is not a partition number"),)
    snapshot = healthy(states=with_states(p_1=b"{"), extra_unreadable=extra)
    found = sorted((f.path, f.topic, f.partition) for f in run(snapshot) if f.check == "unreadable_znode")
    assert found == [
        ("/brokers/topics/orders/partitions/1/state", "orders", 1),
        ("/brokers/topics/orders/partitions/x", None, None),
    ]


def test_report_json_has_findings_summary_and_timings() -> None:
    findings = run(healthy(controller=None, states=with_states(p_1=state_json(2, [2, 3]))))
    report = CheckReport.build(findings, partitions=3, checks_run=CHECK_IDS, engine="local", timings={"checks": 0.01})
    data = json.loads(json.dumps(report.to_json()))
    assert [f["check"] for f in data["findings"]] == ["no_controller", "under_replicated"]
    assert data["findings"][1]["evidence"]["isr"] == [2, 3]
    assert data["summary"]["partitions"] == 3 and data["summary"]["by_check"]["under_replicated"] == 1
    assert data["summary"]["by_check"]["offline_partition"] == 0 and data["timings"] == {"checks": 0.01}
    assert report.has_errors


def test_findings_are_frozen_and_compare_by_value() -> None:
    a = run(healthy(controller=None))
    b = run(healthy(controller=None))
    assert a == b and hash(a[0]) == hash(b[0])
    with pytest.raises(AttributeError):
        a[0].check = "x"  # type: ignore[misc]
    assert replace(a[0], detail="x") != a[0]
