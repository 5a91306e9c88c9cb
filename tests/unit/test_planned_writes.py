"""The dry run is the list the writers execute: broker requests through the AdminClient, or znode writes."""

from __future__ import annotations

import dataclasses

from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER
from core.kafka.assignment_metrics import compute_metrics
from core.kafka.znodes.encode import add_partitions_to_raw
from core.topics.plan import CreatePlan, DeletePlan, ExpandPlan
from core.topics.write import PlannedWrite, describe_writes, planned_writes

METRICS = compute_metrics({0: [1, 2]}, [])


def _create(via: str, config_zk_version: int | None = None) -> CreatePlan:
    return CreatePlan(
        "t", ((0, (1, 2)),), (("retention.ms", "1000"),), False, METRICS, via, config_zk_version=config_zk_version
    )


def test_a_dry_run_through_the_brokers_names_the_request_not_znodes() -> None:
    text = describe_writes((PlannedWrite("admin", "CreateTopics", b'{"topic":"t"}'),))
    assert text == [
        "DRY RUN: nothing is sent. This request would go to the brokers (AdminClient):",
        "CreateTopics",
        '    {"topic":"t"}',
    ]


def test_a_zookeeper_dry_run_lists_each_znode_write_with_its_expected_version() -> None:
    text = describe_writes((PlannedWrite("set", "/brokers/topics/t", b'{"version":3}', 4),))
    assert text == [
        "DRY RUN: nothing is written. These znodes would be written in one ZooKeeper multi-op:",
        "set /brokers/topics/t (if version is 4)",
        '    {"version":3}',
    ]


def test_a_zookeeper_create_writes_the_config_then_the_topic_znode_as_kafka_does() -> None:
    config, topic = planned_writes(_create(VIA_ZOOKEEPER))
    assert (config.op, config.path, config.data) == (
        "create",
        "/config/topics/t",
        b'{"version":1,"config":{"retention.ms":"1000"}}',
    )
    assert (topic.op, topic.path) == ("create", "/brokers/topics/t")
    assert topic.data == b'{"partitions":{"0":[1,2]},"adding_replicas":{},"removing_replicas":{},"version":3}'


def test_an_orphan_config_is_replaced_at_the_version_the_plan_saw() -> None:
    config, _ = planned_writes(_create(VIA_ZOOKEEPER, config_zk_version=2))
    assert (config.op, config.expected_version) == ("set", 2)


def test_a_preview_without_facts_lists_the_controller_fence_the_plan_saw() -> None:
    plan = dataclasses.replace(_create(VIA_ZOOKEEPER), controller_zk_version=7)
    fence, config, topic = planned_writes(plan)
    assert (fence.op, fence.path, fence.expected_version) == ("check", "/controller", 7)
    assert (config.path, topic.path) == ("/config/topics/t", "/brokers/topics/t")
    assert planned_writes(dataclasses.replace(plan, controller_zk_version=None))[0].op == "create"


def test_an_admin_create_sends_the_planned_assignment_and_config() -> None:
    (request,) = planned_writes(_create(VIA_ADMIN))
    assert request.to_json() == {
        "op": "admin",
        "path": "CreateTopics",
        "data": '{"topic":"t","replica_assignment":[[1,2]],"config":{"retention.ms":"1000"}}',
        "expected_version": None,
    }


def test_a_zookeeper_expand_sets_the_read_bytes_plus_the_new_partitions_at_the_read_version() -> None:
    raw = b'{"version":3,"partitions":{"0":[1,2]},"future_field":1}'
    plan = ExpandPlan("t", 1, 2, ((1, (2, 1)),), False, METRICS, METRICS, VIA_ZOOKEEPER, None, 7, raw)
    (write,) = planned_writes(plan)
    assert (write.op, write.path, write.expected_version) == ("set", "/brokers/topics/t", 7)
    assert write.data == add_partitions_to_raw(raw, ((1, (2, 1)),))


def test_a_zookeeper_delete_creates_one_marker_per_topic() -> None:
    plan = DeletePlan(("a", "b"), None, VIA_ZOOKEEPER, None)
    assert [(w.op, w.path) for w in planned_writes(plan)] == [
        ("create", "/admin/delete_topics/a"),
        ("create", "/admin/delete_topics/b"),
    ]
    assert plan.confirmation == "2"
