"""The pure parts of topic operations: plans (Kafka's checks in Kafka's order), guards, the byte-exact
topic znode extension, Kafka's encodings, deletion diagnosis, the audit log and CLI argument parsing."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cli.assign_cmd import parse_broker_list, parse_int_option, parse_racks
from core.audit import AuditLog, read_audit_log
from core.errors import GuardError, KafkaRuleError, KzcError, UsageError
from core.kafka.assignment import BrokerMeta, assign_expansion, assign_replicas_to_brokers
from core.kafka.topic_rules import (
    parse_configs,
    parse_create_assignment,
    parse_expand_assignment,
    validate_config,
    validate_create_assignment,
)
from core.kafka.znodes import (
    BrokerRegistration,
    ControllerInfo,
    MigrationState,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
    parse_broker,
    parse_controller,
    parse_migration,
    parse_partition_state,
    parse_reassignment,
    parse_topic,
)
from core.kafka.znodes.encode import add_partitions_to_raw, encode_new_topic, encode_topic_config
from core.topics.facts import ClusterFacts, LiveTopic
from core.topics.guard import deletion_obstacles, migration_warnings, read_only_reason
from core.topics.plan import CreateRequest, DeleteRequest, ExpandRequest
from core.topics.planning import (
    plan_create,
    plan_delete,
    plan_expand,
    select_topics,
    unknown_topic_fields,
)
from core.topics.progress import TopicDeletion, online_progress

ZK_CONTROLLER = b'{"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1}'
KRAFT_CONTROLLER = b'{"version":2,"brokerid":3000,"timestamp":"1700000000000","kraftControllerEpoch":7}'
MIGRATION = (
    b'{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":7,'
    b'"kraft_metadata_offset":100,"kraft_metadata_epoch":5}'
)


def _broker(broker_id: int, rack: str | None) -> BrokerRegistration:
    data: dict[str, Any] = {
        "version": 5,
        "host": "127.0.0.1",
        "port": 9092 + broker_id,
        "jmx_port": -1,
        "timestamp": "1700000000000",
        "endpoints": [f"PLAINTEXT://127.0.0.1:{9092 + broker_id}"],
        "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
        "features": {},
    }
    if rack is not None:
        data["rack"] = rack
    value = parse_broker(f"/brokers/ids/{broker_id}", json.dumps(data).encode())
    assert isinstance(value, BrokerRegistration)
    return value


def _facts(
    racks: dict[int, str | None] | None = None,
    topics: tuple[str, ...] = (),
    marked: tuple[str, ...] = (),
    controller: bytes | None = ZK_CONTROLLER,
    migration: bytes | None = None,
    reassignment: bytes | None = None,
) -> ClusterFacts:
    racks = {1: "r1", 2: "r2", 3: "r3"} if racks is None else racks
    return ClusterFacts(
        brokers={b: _broker(b, r) for b, r in racks.items()},
        topic_names=frozenset(topics),
        topic_order=topics,
        marked_for_deletion=frozenset(marked),
        controller=None if controller is None else parse_controller("/controller", controller),
        controller_zk_version=None if controller is None else 0,
        migration=None if migration is None else parse_migration("/migration", migration),
        reassignment=None if reassignment is None else parse_reassignment("/admin/reassign_partitions", reassignment),
    )


def _live(name: str, data: dict[str, Any] | bytes, version: int = 3) -> LiveTopic:
    raw = data if isinstance(data, bytes) else json.dumps(data, separators=(",", ":")).encode()
    return LiveTopic(name, parse_topic(f"/brokers/topics/{name}", raw), raw, version)


def _topic_json(partitions: dict[int, list[int]], **extra: Any) -> dict[str, Any]:
    return {
        "version": 3,
        "partitions": {str(p): r for p, r in partitions.items()},
        "adding_replicas": {},
        "removing_replicas": {},
        **extra,
    }


# ---- create ----------------------------------------------------------------------------------------


def test_create_plan_uses_kafkas_algorithm_on_the_id_sorted_registered_brokers() -> None:
    facts = _facts({3: "r3", 1: "r1", 2: "r2"})
    plan = plan_create(facts, CreateRequest("orders", 6, 2, seed=7), via="admin")
    sorted_brokers = [BrokerMeta(1, "r1"), BrokerMeta(2, "r2"), BrokerMeta(3, "r3")]
    expected = assign_replicas_to_brokers(sorted_brokers, 6, 2, rng=random.Random(7))
    assert dict((p, list(r)) for p, r in plan.assignment) == expected
    assert plan.partitions == 6 and plan.replication_factor == 2 and not plan.manual
    assert plan.to_json()["assignment"] == {str(p): r for p, r in expected.items()}
    assert plan.to_json()["metrics"]["replicas_per_broker"] == {"1": 4, "2": 4, "3": 4}


def test_every_create_plan_draws_its_own_random_start_and_records_it() -> None:
    # Kafka draws per call: the same name planned again (e.g. deleted and recreated) lands elsewhere.
    facts = _facts({b: None for b in range(1, 7)})
    starts = {plan_create(facts, CreateRequest("payments", 12, 3), via="admin").start for _ in range(60)}
    assert len(starts) > 1
    plan = plan_create(facts, CreateRequest("payments", 12, 3), via="admin")
    assert plan.start is not None and plan.start.random and plan.start.start_partition == 0
    # The recorded draws reproduce the assignment: Kafka's algorithm fed exactly those two numbers.
    draws = [plan.start.start_index, plan.start.replica_shift]

    class Scripted(random.Random):
        def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
            return draws.pop(0)

    expected = assign_replicas_to_brokers([BrokerMeta(b) for b in range(1, 7)], 12, 3, rng=Scripted())
    assert dict((p, list(r)) for p, r in plan.assignment) == expected
    assert plan.to_json()["start"] == {
        "start_index": plan.start.start_index,
        "replica_shift": plan.start.replica_shift,
        "start_partition": 0,
        "random": True,
    }
    assert plan_create(facts, CreateRequest("m", replica_assignment="1:2"), via="admin").start is None


def test_a_seed_makes_a_create_plan_reproducible() -> None:
    facts = _facts()
    first = plan_create(facts, CreateRequest("payments", 12, 3, seed=5), via="admin")
    again = plan_create(facts, CreateRequest("payments", 12, 3, seed=5), via="zookeeper")
    assert first.assignment == again.assignment and first.start == again.start and first.seed == 5


@pytest.mark.parametrize(
    ("request_", "facts_args", "message"),
    [
        # The assignment is computed before validateTopicCreate, as AdminZkClient.createTopic does.
        (CreateRequest("dup", 3, 4), {"topics": ("dup",)}, "Replication factor: 4 larger than available brokers: 3."),
        (CreateRequest("a b", 3, 1), {"marked": ("a b",)}, "Topic name is invalid: 'a b' contains one or more"),
        (
            CreateRequest("gone", 3, 1),
            {"topics": ("gone",), "marked": ("gone",)},
            "Topic 'gone' is marked for deletion.",
        ),
        (CreateRequest("dup", 3, 1), {"topics": ("dup",)}, "Topic 'dup' already exists."),
        (CreateRequest("a.b", 3, 1), {"topics": ("x", "a_b")}, "Topic 'a.b' collides with existing topics: a_b"),
        (CreateRequest("t", 0, 1), {}, "Number of partitions must be larger than 0."),
        (CreateRequest("t", replica_assignment="1:2,3"), {}, "Partition 1 has different replication factor: [3]"),
        (
            CreateRequest("t", replica_assignment="1:1"),
            {},
            "Partition replica lists may not contain duplicate entries: 1",
        ),
        (CreateRequest("t", replica_assignment="1:x"), {}, 'For input string: "x"'),
        (CreateRequest("t", 1, 1, config=(("retention.mss", "1"),)), {}, "Unknown topic config name: retention.mss"),
    ],
)
def test_create_raises_kafkas_first_error_in_kafkas_order(
    request_: CreateRequest, facts_args: dict[str, Any], message: str
) -> None:
    with pytest.raises(KafkaRuleError) as info:
        plan_create(_facts(**facts_args), request_, via="zookeeper")
    assert str(info.value).startswith(message)


def test_partial_racks_are_refused_in_enforced_mode_as_kafka_topics_does() -> None:
    with pytest.raises(KafkaRuleError, match="Not all brokers have rack information. Add --disable-rack-aware"):
        plan_create(_facts({1: "r1", 2: None, 3: "r3"}), CreateRequest("t", 3, 2), via="zookeeper")


def test_a_manual_assignment_on_an_unregistered_broker_is_refused_by_kzc() -> None:
    with pytest.raises(GuardError, match=r"Unknown broker\(s\) in replica assignment: 9\. Registered brokers: 1, 2, 3"):
        plan_create(_facts(), CreateRequest("t", replica_assignment="1:9,2:3"), via="admin")


def test_a_manual_assignment_is_kept_as_given_with_a_collision_warning_and_the_orphan_config_noted() -> None:
    plan = plan_create(
        _facts(), CreateRequest("a.b", replica_assignment="3:1, 1:2 ,2:3,"), via="zookeeper", config_zk_version=4
    )
    assert plan.assignment == ((0, (3, 1)), (1, (1, 2)), (2, (2, 3)))
    assert plan.manual and plan.config_zk_version == 4
    assert any("could collide" in w for w in plan.warnings)
    assert any("/config/topics/a.b exists without the topic" in w for w in plan.warnings)


def test_partitions_and_a_manual_assignment_together_are_a_usage_error() -> None:
    with pytest.raises(UsageError):
        plan_create(_facts(), CreateRequest("t", 3, 1, replica_assignment="1"), via="admin")
    with pytest.raises(UsageError):
        plan_create(_facts(), CreateRequest("t", 3), via="admin")


def test_the_plan_carries_why_it_cannot_be_applied() -> None:
    facts = _facts()
    blocked = read_only_reason("context 'prod' has read_only = true", facts)
    plan = plan_create(facts, CreateRequest("t", 1, 1), via="admin", blocked=blocked)
    assert plan.blocked == "kzc is read-only (context 'prod' has read_only = true): refusing every mutation"
    assert plan.to_json()["blocked"] == plan.blocked


# ---- expand ----------------------------------------------------------------------------------------


def test_expand_plans_kafkas_automatic_assignment_and_keeps_the_znode_as_read() -> None:
    existing = {0: [2, 3], 1: [3, 1], 2: [1, 2]}
    live = _live("t", _topic_json(existing, topic_id="Mecwe6R0R--ubf0v3yP3iA"), version=9)
    plan = plan_expand(_facts(), live, ExpandRequest("t", 5), via="zookeeper")
    expected = assign_expansion([BrokerMeta(1, "r1"), BrokerMeta(2, "r2"), BrokerMeta(3, "r3")], existing, 5, topic="t")
    assert dict((p, list(r)) for p, r in plan.new_assignment) == expected
    assert (plan.current_partitions, plan.target_partitions) == (3, 5)
    assert plan.topic_zk_version == 9 and plan.topic_raw == live.raw
    assert plan.topic_id == "Mecwe6R0R--ubf0v3yP3iA"
    assert sum(plan.metrics.leaders_per_broker.values()) == 5  # the whole topic after the increase
    assert sum(plan.metrics_before.leaders_per_broker.values()) == 3
    assert plan.existing == ((0, (2, 3)), (1, (3, 1)), (2, (1, 2)))


def test_expand_warns_about_a_stray_state_znode_of_a_partition_about_to_be_created() -> None:
    live = replace(_live("t", _topic_json({0: [1, 2], 1: [2, 3]})), stray_states=frozenset({2, 7}))
    plan = plan_expand(_facts(), live, ExpandRequest("t", 4), via="zookeeper")
    [stray] = [w for w in plan.warnings if "already have a state znode" in w]
    assert stray.startswith("partition(s) 2 already have a state znode (/brokers/topics/t/partitions/2/state)")
    assert "the controller does not initialise a new partition whose state exists" in stray
    clean = plan_expand(_facts(), _live("t", _topic_json({0: [1, 2], 1: [2, 3]})), ExpandRequest("t", 4), via="zk")
    assert not [w for w in clean.warnings if "state znode" in w]


def test_expand_names_manual_entries_of_existing_partitions_that_differ_from_their_replicas() -> None:
    live = _live("t", _topic_json({0: [1, 2], 1: [2, 3]}))
    plan = plan_expand(_facts(), live, ExpandRequest("t", 3, "1:2,3:1,3:1"), via="zookeeper")
    [differ] = [w for w in plan.warnings if "--replica-assignment entries" in w]
    assert "(1: given [3,1], current [2,3])" in differ and "Kafka ignores them and moves nothing" in differ
    assert dict((p, list(r)) for p, r in plan.new_assignment) == {2: [3, 1]}
    same = plan_expand(_facts(), live, ExpandRequest("t", 3, "1:2,2:3,3:1"), via="zookeeper")
    assert not [w for w in same.warnings if "--replica-assignment entries" in w]


@pytest.mark.parametrize(
    ("request_", "topic", "facts_args", "error", "message"),
    [
        (ExpandRequest("__consumer_offsets", 60), None, {}, GuardError,
         "The number of partitions for the internal topic __consumer_offsets cannot be changed."),
        (ExpandRequest("t", 5), None, {"racks": {1: "r1", 2: None}}, KafkaRuleError,
         "Not all brokers have rack information."),
        (ExpandRequest("missing", 5), None, {}, KafkaRuleError, "The topic 'missing' does not exist."),
        (ExpandRequest("t", 5), _topic_json({0: [1, 2], 1: [2, 3]}, adding_replicas={"1": [3]}), {},
         KafkaRuleError, "A partition reassignment is in progress for the topic 't'."),
        (ExpandRequest("t", 5), _topic_json({0: [1, 2]}), {"reassignment":
         b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[2,3]}]}'},
         KafkaRuleError, "A partition reassignment is in progress for the topic 't'."),
        (ExpandRequest("t", 1), _topic_json({0: [1], 1: [2]}), {}, KafkaRuleError,
         "Topic currently has 2 partitions, which is higher than the requested 1."),
        (ExpandRequest("t", 2), _topic_json({0: [1], 1: [2]}), {}, KafkaRuleError, "Topic already has 2 partitions."),
        (ExpandRequest("t", 3, "1,2,9"), _topic_json({0: [1], 1: [2]}), {}, KafkaRuleError,
         "Unknown broker(s) in replica assignment: 9."),
        (ExpandRequest("t", 4, "1,2,3"), _topic_json({0: [1], 1: [2]}), {}, KafkaRuleError,
         "Increasing the number of partitions by 2 but 1 assignments provided."),
        (ExpandRequest("t", 3, "1:2,2:3,3"), _topic_json({0: [1, 2], 1: [2, 3]}), {}, KafkaRuleError,
         "Partition 2 has different replication factor: [3]"),
        (ExpandRequest("t", 3), _topic_json({0: [1], 1: [2]}), {"marked": ("t",)}, GuardError,
         "Topic 't' is marked for deletion: the controller would skip the new partitions"),
        (ExpandRequest("t", 3), b'{"version":3,"partitions":[1]}', {}, GuardError, "/brokers/topics/t is unreadable"),
    ],
)  # fmt: skip
def test_expand_refuses_in_kafkas_order_with_kafkas_words(
    request_: ExpandRequest,
    topic: dict[str, Any] | bytes | None,
    facts_args: dict[str, Any],
    error: type[Exception],
    message: str,
) -> None:
    live = None if topic is None else _live(request_.topic, topic)
    with pytest.raises(error) as info:
        plan_expand(_facts(**facts_args), live, request_, via="zookeeper")
    assert str(info.value).startswith(message)


def test_a_manual_expansion_drops_the_entries_of_existing_partitions() -> None:
    live = _live("t", _topic_json({0: [1, 2], 1: [2, 3]}))
    plan = plan_expand(_facts(), live, ExpandRequest("t", 4, "1:2,2:3,3:1,1:3"), via="admin")
    assert plan.new_assignment == ((2, (3, 1)), (3, (1, 3)))
    assert plan.manual


# ---- delete ----------------------------------------------------------------------------------------


def _delete(
    facts: ClusterFacts, request: DeleteRequest, enabled: bool | None = True, live: dict[str, LiveTopic] | None = None
) -> Any:
    topics = select_topics(facts, request)
    return plan_delete(
        facts, request, topics, live or {}, via="admin", delete_topic_enable=enabled, delete_topic_enable_source="test"
    )


def test_delete_selects_whole_name_regex_matches_and_reports_what_would_hold_them() -> None:
    facts = _facts({1: None, 2: None}, topics=("logs-a", "logs-b", "xlogs-c"))
    live = _live("logs-b", _topic_json({0: [2, 3]}))
    plan = _delete(facts, DeleteRequest(regex="logs-.*"), live={"logs-b": live})
    assert plan.topics == ("logs-a", "logs-b")
    [[obstacle]] = plan.to_json()["obstacles"].values()
    assert list(plan.to_json()["obstacles"]) == ["logs-b"]
    assert obstacle.startswith("replicas on broker(s) 3, which are not registered: the controller marks them")
    assert [c.status for c in plan.checks] == ["ok", "ok", "ok"]


@pytest.mark.parametrize(
    ("request_", "facts_args", "enabled", "error", "message"),
    [
        (DeleteRequest(("t", "__consumer_offsets")), {"topics": ("t",)}, True, GuardError,
         "Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion."),
        (DeleteRequest(regex="__.*|t"), {"topics": ("t", "__transaction_state")}, True, GuardError,
         "Topic __transaction_state is a kafka internal topic"),
        (DeleteRequest(("t", "u")), {"topics": ("t",)}, True, KafkaRuleError, "Topic `u` to delete does not exist"),
        (DeleteRequest(("t",)), {"topics": ("t",), "marked": ("t",)}, True, GuardError,
         "Topic t is already marked for deletion."),
        (DeleteRequest(("t",)), {"topics": ("t",)}, False, GuardError, "delete.topic.enable=false (test)"),
        (DeleteRequest(regex="nomatch.*"), {"topics": ("t",)}, True, KafkaRuleError,
         "Topic 'nomatch.*' does not exist as expected"),
        (DeleteRequest(regex="("), {"topics": ("t",)}, True, UsageError, "invalid --regex '('"),
        (DeleteRequest(("t",), regex="t"), {"topics": ("t",)}, True, UsageError, "give topic names or --regex"),
    ],
)  # fmt: skip
def test_delete_guards(
    request_: DeleteRequest, facts_args: dict[str, Any], enabled: bool, error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as info:
        _delete(_facts(**facts_args), request_, enabled)
    assert str(info.value).startswith(message)


def test_an_unknown_delete_topic_enable_is_a_warning_not_a_refusal() -> None:
    plan = _delete(_facts(topics=("t",)), DeleteRequest(("t",)), None)
    assert plan.delete_topic_enable is None
    assert plan.checks[-1].status == "warning"
    assert any("delete.topic.enable is unknown" in w for w in plan.warnings)


def test_an_already_marked_topic_says_why_it_is_stuck() -> None:
    facts = _facts({1: "r1", 2: "r2"}, topics=("t",), marked=("t",))
    live = _live("t", _topic_json({0: [1, 3]}))
    with pytest.raises(GuardError, match=r"already marked for deletion. It is stuck: replicas on broker\(s\) 3, which"):
        _delete(facts, DeleteRequest(("t",)), live={"t": live})


# ---- guards and diagnosis ---------------------------------------------------------------------------


def test_a_kraft_controller_during_migration_makes_kzc_read_only_with_the_explanation() -> None:
    facts = _facts(controller=KRAFT_CONTROLLER, migration=MIGRATION)
    reason = read_only_reason(None, facts)
    assert reason is not None
    assert "ZooKeeper-to-KRaft migration is in progress (/migration exists and KRaft controller 3000" in reason
    assert "Give --bootstrap-server" in reason
    assert isinstance(facts.migration, MigrationState)
    # Through the brokers Kafka forwards creates, expansions and deletions to the KRaft controller while it
    # dual-writes; once no broker is left in ZooKeeper kzc cannot read the result back, so it refuses.
    assert facts.broker_ids
    assert read_only_reason(None, facts, via_admin=True) is None
    finalized = _facts({}, controller=KRAFT_CONTROLLER, migration=MIGRATION)
    assert "cannot tell that it still dual-writes" in (read_only_reason(None, finalized, via_admin=True) or "")


def test_a_migration_znode_under_a_zookeeper_controller_only_warns() -> None:
    facts = _facts(migration=MIGRATION)
    assert read_only_reason(None, facts) is None
    assert migration_warnings(facts) and "ZooKeeper controller is active" in migration_warnings(facts)[0]
    unreadable = _facts(controller=b"garbage", migration=MIGRATION)
    assert isinstance(unreadable.controller, Unreadable)
    assert "cannot rule out a ZooKeeper-to-KRaft migration" in (read_only_reason(None, unreadable) or "")


def test_deletion_obstacles_follow_the_controllers_ineligibility_rules() -> None:
    reassigning = _topic_json({0: [1, 2], 1: [2, 4]}, removing_replicas={"0": [1]})
    facts = _facts({1: None, 2: None}, controller=None)
    # The shared rule (core.snapshot.deletion.deletion_blockers): every blocker, in its order.
    assert [o.split(":")[0] for o in deletion_obstacles(facts, _live("t", reassigning))] == [
        "no active controller (/controller is missing)",
        "replicas on broker(s) 4, which are not registered",
        "partition(s) 0 are being reassigned",
    ]
    assert TopicDeletion("t", True, True, ("replica on dead broker 4",)).describe() == (
        "t: stuck: replica on dead broker 4"
    )
    assert TopicDeletion("t", False, False, ()).done


def test_the_reassignment_znode_counts_as_a_reassignment_in_progress() -> None:
    facts = _facts(reassignment=b'{"version":1,"partitions":[{"topic":"t","partition":1,"replicas":[1]}]}')
    assert isinstance(facts.reassignment, ReassignmentRequest)
    assert facts.reassigning_in_znode("t") == (1,)
    assert isinstance(facts.controller, ControllerInfo)


# ---- what kzc writes --------------------------------------------------------------------------------


def test_a_new_topic_is_written_as_adminzkclient_39_writes_it() -> None:
    assert encode_new_topic(((0, (1, 2)), (1, (2, 3)))) == (
        b'{"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{},"version":3}'
    )
    assert encode_topic_config(()) == b'{"version":1,"config":{}}'
    assert encode_topic_config((("retention.ms", "1000"),)) == b'{"version":1,"config":{"retention.ms":"1000"}}'


def test_extending_a_topic_znode_keeps_every_other_byte() -> None:
    raw = (
        b'{ "removing_replicas" : {"0":[3]}, "partitions": {"0": [1, 2, 3], "1":[2,3,1]} ,'
        b'"topic_id":"Mecwe6R0R--ubf0v3yP3iA","x-future":{"k":"\\u00e9", "n": 1.50},'
        b'"adding_replicas":{"0":[1]},"version":3}'
    )
    updated = add_partitions_to_raw(raw, ((2, (3, 1, 2)), (3, (1, 2, 3))))
    assert updated == raw.replace(b'"1":[2,3,1]}', b'"1":[2,3,1],"2":[3,1,2],"3":[1,2,3]}')
    parsed = parse_topic("/brokers/topics/t", updated)
    assert isinstance(parsed, TopicAssignment)
    assert parsed.topic_id == "Mecwe6R0R--ubf0v3yP3iA" and parsed.adding == ((0, (1,)),)
    assert parsed.replicas(3) == (1, 2, 3)


def test_extending_uses_the_last_partitions_key_and_handles_an_empty_object() -> None:
    assert add_partitions_to_raw(b'{"version":1,"partitions":{}}', ((0, (1,)),)) == (
        b'{"version":1,"partitions":{"0":[1]}}'
    )
    twice = b'{"partitions":{"0":[9]},"version":1,"partitions":{"0":[1]}}'
    assert (
        add_partitions_to_raw(twice, ((1, (2,)),))
        == b'{"partitions":{"0":[9]},"version":1,"partitions":{"0":[1],"1":[2]}}'
    )


@pytest.mark.parametrize(
    "raw",
    [b"[1]", b'{"version":3}', b'{"partitions":[1]}', b'{"partitions":{"2":[1]}}', b"\xff", b'{"partitions":{}} x'],
)
def test_extending_refuses_what_it_cannot_extend_faithfully(raw: bytes) -> None:
    with pytest.raises(GuardError, match="nothing was written"):
        add_partitions_to_raw(raw, ((2, (1,)),))


# ---- manual assignment rules (kzc's adapter until core.kafka.manual_assignment lands) -------------------


def test_replica_assignment_parsing_follows_javas_split_and_parseint() -> None:
    assert parse_create_assignment("1:2,3:4,") == {0: [1, 2], 1: [3, 4]}
    assert parse_create_assignment(" 1 :+2") == {0: [1, 2]}
    with pytest.raises(KafkaRuleError, match='For input string: ""'):
        parse_create_assignment("1:2,,3:4")
    with pytest.raises(KafkaRuleError, match="may not contain duplicate entries: 1,2"):
        parse_create_assignment("2:1:2:1")
    with pytest.raises(KafkaRuleError, match="partitions should be a consecutive 0-based integer sequence"):
        validate_create_assignment({1: [1], 2: [2]})
    with pytest.raises(KafkaRuleError, match="All partitions should have the same number of replicas"):
        validate_create_assignment({0: [1], 1: [1, 2]})


def test_expansion_checks_each_new_partition_with_kafkas_messages() -> None:
    assert parse_expand_assignment("t", "1:2,2:3,3:1", {0: [1, 2], 1: [2, 3]}, 3, [1, 2, 3]) == {2: [3, 1]}
    with pytest.raises(KafkaRuleError, match=r"Inconsistent replication factor between partitions, partition 0 has 2"):
        parse_expand_assignment("t", "3,1", {0: [1, 2]}, 2, [1, 2, 3])


# ---- audit ------------------------------------------------------------------------------------------


def test_every_attempt_appends_exactly_one_line_whatever_its_outcome(tmp_path: Path) -> None:
    log = AuditLog("zk:2181/kafka", tmp_path / "sub" / "audit.jsonl")
    with log.attempt("topic create", {"topic": "t"}) as attempt:
        attempt.dry_run("plan shown", plan={"partitions": 1})
    with pytest.raises(GuardError), log.attempt("topic delete", {"topics": ["x"]}):
        raise GuardError("internal topic")
    with pytest.raises(KzcError), log.attempt("topic expand", {"topic": "t"}) as attempt:
        attempt.cancelled("confirmation did not match")
        raise KzcError("cancelled")
    with pytest.raises(RuntimeError), log.attempt("topic create", {}):
        raise RuntimeError("boom")
    lines = read_audit_log(tmp_path / "sub" / "audit.jsonl")
    assert [line["outcome"] for line in lines] == ["dry-run", "refused", "cancelled", "failed"]
    assert lines[0]["details"] == {"plan": {"partitions": 1}} and lines[1]["message"] == "internal topic"
    assert {"time", "user", "host", "cluster", "operation", "arguments", "outcome"} <= set(lines[0])
    assert lines[0]["cluster"] == "zk:2181/kafka" and lines[1]["arguments"] == {"topics": ["x"]}


def test_an_unwritable_audit_log_stops_the_attempt_before_it_runs(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    ran = []
    with (
        pytest.raises(KzcError, match="cannot write the audit log"),
        AuditLog("c", blocker / "audit.jsonl").attempt("topic delete", {}),
    ):
        ran.append(True)
    assert ran == []


def test_the_audit_log_location_is_the_env_var_else_the_config_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from core.audit import audit_log_path

    monkeypatch.setenv("KZC_CONFIG", str(tmp_path / "cfg" / "config.toml"))
    monkeypatch.delenv("KZC_AUDIT_LOG", raising=False)
    assert audit_log_path() == tmp_path / "cfg" / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "elsewhere.jsonl"))
    assert audit_log_path() == tmp_path / "elsewhere.jsonl"


# ---- CLI argument parsing ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (("retention.mss", "1"), "Unknown topic config name: retention.mss"),
        (("retention.ms", "1h"), "Invalid value 1h for configuration retention.ms: Not a number of type LONG"),
        (("retention.ms", "-2"), "Invalid value -2 for configuration retention.ms: Value must be at least -1"),
        (
            ("segment.bytes", "4096"),
            "Invalid value 4096 for configuration segment.bytes: Value must be at least 1048576",
        ),
        (("min.insync.replicas", "99999999999"), "Not a number of type INT"),
        (("cleanup.policy", "compact,zap"), "String must be one of: compact, delete"),
        (("unclean.leader.election.enable", "yes"), "Expected value to be either true or false"),
        (("min.cleanable.dirty.ratio", "1.5"), "Value must be no more than 1"),
        (("compression.type", "brotli"), "String must be one of: uncompressed, zstd, lz4, snappy, gzip, producer"),
    ],
)
def test_topic_configs_are_checked_as_logconfig_checks_them(config: tuple[str, str], message: str) -> None:
    with pytest.raises(KafkaRuleError) as info:
        validate_config([config])
    assert message in str(info.value)
    validate_config([("cleanup.policy", "compact, delete"), ("retention.ms", "-1"), ("preallocate", "TRUE")])


def test_cli_values_are_parsed_strictly_with_one_line_errors() -> None:
    assert parse_int_option("--partitions", " 12 ") == 12 and parse_int_option("--x", None) is None
    with pytest.raises(UsageError, match="--partitions must be an integer, got 'abc'"):
        parse_int_option("--partitions", "abc")
    assert parse_int_option("--start-index", "2147483647") == 2**31 - 1
    for big in ("99999999999", "-2147483649", "1" * 5000):
        with pytest.raises(UsageError, match=r"--start-index must be a Java int \(-2147483648 to 2147483647\)"):
            parse_int_option("--start-index", big)
    with pytest.raises(UsageError, match="--brokers must be a Java int"):
        parse_broker_list("0,3000000000")
    assert parse_broker_list("3,1,2") == [3, 1, 2]
    with pytest.raises(UsageError, match="lists broker 1 twice"):
        parse_broker_list("1,1")
    assert parse_racks("1:r1,2:r2", [1, 2]) == {1: "r1", 2: "r2"}
    with pytest.raises(UsageError, match="not in --brokers"):
        parse_racks("5:r1", [1, 2])
    assert parse_configs(["a=1", "b = x=y", "a=2"]) == (("a", "2"), ("b", "x=y"))
    with pytest.raises(UsageError, match="a config takes KEY=VALUE"):
        parse_configs(["novalue"])


def test_an_unreadable_reassignment_znode_is_a_warning_on_expansion() -> None:
    live = _live("t", _topic_json({0: [1]}))
    plan = plan_expand(_facts(reassignment=b"[]"), live, ExpandRequest("t", 2), via="zookeeper")
    assert any(w.startswith("/admin/reassign_partitions is unreadable") for w in plan.warnings)


def test_an_unreadable_broker_registration_blocks_a_computed_expand_but_not_a_manual_one() -> None:
    facts = _facts()
    broken = dict(facts.brokers)
    broken[3] = Unreadable("/brokers/ids/3", b"{garbage", "not JSON")
    facts = replace(facts, brokers=broken)
    live = _live("t", {"version": 3, "partitions": {"0": [1, 2]}, "adding_replicas": {}, "removing_replicas": {}})
    with pytest.raises(GuardError, match="registration of broker 3"):
        plan_expand(facts, live, ExpandRequest("t", 2), via="zookeeper")
    plan = plan_expand(facts, live, ExpandRequest("t", 2, "1:2,2:3"), via="zookeeper")
    assert plan.new_assignment == ((1, (2, 3)),)
    assert any("broker(s) 3 is unreadable" in w for w in plan.warnings)


def test_the_fields_a_broker_drops_from_a_topic_znode_are_the_ones_kafka_does_not_write() -> None:
    raw = b'{"version":3,"partitions":{"0":[1]},"topic_id":"x","future_field":1,"adding_replicas":{},"z":[]}'
    assert unknown_topic_fields(raw) == ("future_field", "z")
    assert unknown_topic_fields(b"not json") == ()


def test_a_too_large_expansion_is_refused_before_it_is_computed() -> None:
    live = _live("t", {"version": 3, "partitions": {"0": [1, 2]}, "adding_replicas": {}, "removing_replicas": {}})
    with pytest.raises(GuardError, match=r"/brokers/topics/t at least [\d,]+ bytes .*jute.maxbuffer is 1,048,576"):
        plan_expand(_facts(), live, ExpandRequest("t", 2**31 - 1), via="zookeeper")
    with pytest.raises(GuardError, match="jute.maxbuffer is 100 bytes"):
        plan_expand(_facts(), live, ExpandRequest("t", 3), via="zookeeper", znode_limit=100)


class _StateReader:
    """``online_progress``'s reads over a fixed topic and states."""

    def __init__(self, live: LiveTopic, states: dict[int, bytes]) -> None:
        self.live = live
        self.states = states

    def facts(self) -> ClusterFacts:
        return _facts()

    def topic(self, name: str) -> LiveTopic:
        return self.live

    def partition_states(self, topic: str, partitions: list[int]) -> dict[int, Any]:
        path = "/brokers/topics/t/partitions/{}/state"
        return {
            p: parse_partition_state(path.format(p), self.states[p]) if p in self.states else None for p in partitions
        }


def test_wait_counts_a_new_partition_online_only_when_its_leader_is_one_of_its_replicas() -> None:
    def state(leader: int, isr: list[int]) -> bytes:
        return json.dumps(
            {"controller_epoch": 1, "leader": leader, "version": 1, "leader_epoch": 0, "isr": isr}
        ).encode()

    live = _live("t", _topic_json({0: [1, 2], 1: [2, 3], 2: [3, 1]}))
    # Partition 1 kept a stray state (leader 1, not a replica); partition 2 was initialised by the controller.
    progress = online_progress(_StateReader(live, {1: state(1, [1]), 2: state(3, [3, 1])}), "t", [1, 2])  # type: ignore[arg-type]
    assert not progress.done
    assert progress.with_leader == (2,) and progress.foreign_leader == (1,)
    assert "partition 1: leader 1 (ISR [1]) is not one of its replicas [2, 3]" in progress.describe()
    assert progress.to_json()["leader_not_a_replica"] == [1]
