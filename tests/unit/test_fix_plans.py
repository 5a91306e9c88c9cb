"""Election and config-change plans without a cluster: who is sent or skipped and why, the unclean risk,
Kafka's config checks and the diff, and the writes each path makes."""

from __future__ import annotations

import json

import pytest

from core.configs.plan import ConfigRequest, parse_request, plan_change
from core.configs.zk import StoredConfig
from core.elections.ops import planned_writes as election_writes
from core.elections.plan import ALREADY, encode_preferred_election, plan_preferred, plan_unclean, preferred_candidates
from core.errors import GuardError, KafkaRuleError, UsageError
from core.kafka.znodes import PartitionState


def state(leader: int, *isr: int) -> PartitionState:
    return PartitionState(
        leader=leader, leader_epoch=0, isr=isr, controller_epoch=1, leader_recovery_state=0, version=1
    )


def test_preferred_sends_only_partitions_whose_preferred_replica_can_lead() -> None:
    assignment = {("t", 0): (1, 2), ("t", 1): (2, 1), ("t", 2): (3, 1), ("t", 3): (1, 3), ("d", 0): (1, 2)}
    states = {
        ("t", 0): state(1, 1, 2),  # already preferred
        ("t", 1): state(1, 1, 2),  # sent
        ("t", 2): state(1, 1),  # preferred 3 is not in the ISR
        ("t", 3): state(3, 3),  # preferred 1 is in no ISR... and alive
        ("d", 0): state(2, 1, 2),  # topic being deleted
    }
    candidates = preferred_candidates(assignment, states, frozenset({1, 2}), frozenset({"d"}))
    why = {(c.topic, c.partition): c.skipped for c in candidates}
    assert why[("t", 0)] == ALREADY
    assert why[("t", 1)] is None
    assert why[("t", 2)] == "preferred replica 3 is not registered (broker down)"
    assert why[("t", 3)] == "preferred replica 1 is not in the ISR [3]"
    assert why[("d", 0)] == "the topic is being deleted"
    plan = plan_preferred(candidates, "zookeeper")
    assert plan.keys == (("t", 1),)
    (write,) = election_writes(plan)
    assert (write.op, write.path) == ("create", "/admin/preferred_replica_election")
    assert write.data == b'{"version":1,"partitions":[{"topic":"t","partition":1}]}'
    assert encode_preferred_election([("a", 2)]) == b'{"version":1,"partitions":[{"topic":"a","partition":2}]}'
    (admin,) = election_writes(plan_preferred(candidates, "admin"))
    assert admin.path == "ElectLeaders"
    assert json.loads(admin.data)["partitions"] == [{"topic": "t", "partition": 1}]


def test_unclean_names_the_new_leader_and_the_loss() -> None:
    plan = plan_unclean(("t", 0), (1, 2, 3), state(-1, 1), frozenset({2, 3}), None)
    assert plan.new_leader == 2
    assert plan.loses_data
    assert plan.confirmation == "t-0"
    assert any("DATA LOSS" in line for line in plan.describe())
    with pytest.raises(GuardError, match="has a leader"):
        plan_unclean(("t", 0), (1, 2), state(1, 1), frozenset({1, 2}), None)
    with pytest.raises(GuardError, match="no broker could lead"):
        plan_unclean(("t", 0), (1, 2), state(-1, 1), frozenset({5}), None)


def test_config_change_diff_and_kafkas_checks_in_order() -> None:
    stored = StoredConfig("topics", "t", (("cleanup.policy", "compact"), ("retention.ms", "5")), 4)
    plan = plan_change(
        parse_request("t", ["retention.ms=10", "segment.ms=100"], ["cleanup.policy"]), stored, True, "zookeeper"
    )
    assert dict(plan.after) == {"retention.ms": "10", "segment.ms": "100"}
    assert [c.describe() for c in plan.changes] == [
        "  - cleanup.policy=compact",
        "  ~ retention.ms: 5 -> 10",
        "  + segment.ms=100",
    ]
    with pytest.raises(KafkaRuleError, match=r"^Topic 't' does not exist.$"):
        plan_change(ConfigRequest("t", (("retention.ms", "1"),)), stored, False, "zookeeper")
    with pytest.raises(KafkaRuleError, match=r"^Invalid config\(s\): flush.ms$"):
        plan_change(ConfigRequest("t", (), ("flush.ms",)), stored, True, "zookeeper")
    with pytest.raises(KafkaRuleError, match="Unknown topic config name: nope"):
        plan_change(ConfigRequest("t", (("nope", "1"),)), stored, True, "zookeeper")
    with pytest.raises(KafkaRuleError, match="Invalid value x for configuration retention.ms"):
        plan_change(ConfigRequest("t", (("retention.ms", "x"),)), stored, True, "zookeeper")


def test_config_request_parsing_refuses_what_cannot_mean_anything() -> None:
    with pytest.raises(UsageError):
        parse_request("t", [], [])
    with pytest.raises(UsageError):
        parse_request("t", ["novalue"], [])
    with pytest.raises(UsageError, match="both set and deleted"):
        parse_request("t", ["a=1"], ["a"])
