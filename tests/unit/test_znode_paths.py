"""Kafka's ZooKeeper layout (``core.kafka.znodes.paths``): the paths built match ZkData.scala, every built
path classifies as the format it holds, and the patterns parse exactly the paths they name."""

from __future__ import annotations

import pytest

from core.kafka.znodes import ZnodeKind, classify
from core.kafka.znodes import paths as layout


@pytest.mark.parametrize(
    ("built", "expected", "kind"),
    [
        (layout.CONTROLLER, "/controller", ZnodeKind.CONTROLLER),
        (layout.CONTROLLER_EPOCH, "/controller_epoch", ZnodeKind.CONTROLLER_EPOCH),
        (layout.broker_path(3), "/brokers/ids/3", ZnodeKind.BROKER),
        (layout.topic_path("orders"), "/brokers/topics/orders", ZnodeKind.TOPIC),
        (layout.partitions_path("orders"), "/brokers/topics/orders/partitions", ZnodeKind.STRUCTURAL),
        (layout.partition_path("orders", 2), "/brokers/topics/orders/partitions/2", ZnodeKind.STRUCTURAL),
        (layout.state_path("orders", 2), "/brokers/topics/orders/partitions/2/state", ZnodeKind.PARTITION_STATE),
        (layout.deletion_marker_path("orders"), "/admin/delete_topics/orders", ZnodeKind.DELETE_TOPIC),
        (layout.REASSIGN_PARTITIONS, "/admin/reassign_partitions", ZnodeKind.REASSIGN_PARTITIONS),
        (layout.PREFERRED_REPLICA_ELECTION, "/admin/preferred_replica_election", ZnodeKind.PREFERRED_REPLICA_ELECTION),
        (layout.config_type_path("topics"), "/config/topics", ZnodeKind.STRUCTURAL),
        (layout.config_path("topics", "orders"), "/config/topics/orders", ZnodeKind.ENTITY_CONFIG),
        (layout.config_path("brokers", "<default>"), "/config/brokers/<default>", ZnodeKind.ENTITY_CONFIG),
        (
            layout.CONFIG_CHANGE_SEQUENCE + "0000000042",
            "/config/changes/config_change_0000000042",
            ZnodeKind.CONFIG_CHANGE,
        ),
        (
            layout.child_path(layout.ISR_CHANGE_NOTIFICATIONS, layout.ISR_CHANGE_PREFIX + "0000000001"),
            "/isr_change_notification/isr_change_0000000001",
            ZnodeKind.ISR_CHANGE,
        ),
        (
            layout.child_path(layout.LOG_DIR_EVENT_NOTIFICATIONS, layout.LOG_DIR_EVENT_PREFIX + "0000000001"),
            "/log_dir_event_notification/log_dir_event_0000000001",
            ZnodeKind.LOG_DIR_EVENT,
        ),
        (layout.CLUSTER_ID, "/cluster/id", ZnodeKind.CLUSTER_ID),
        (layout.PRODUCER_ID_BLOCK, "/latest_producer_id_block", ZnodeKind.PRODUCER_ID_BLOCK),
        (layout.FEATURE, "/feature", ZnodeKind.FEATURE),
        (layout.MIGRATION, "/migration", ZnodeKind.MIGRATION),
        (layout.DELEGATION_TOKENS, "/delegation_token/tokens", ZnodeKind.STRUCTURAL),
        (layout.consumer_group_path("g"), "/consumers/g", ZnodeKind.OLD_CONSUMER),
        (layout.consumer_offset_path("g", "orders", 1), "/consumers/g/offsets/orders/1", ZnodeKind.OLD_CONSUMER),
    ],
)
def test_built_paths_are_kafkas_and_classify_as_what_they_hold(built: str, expected: str, kind: ZnodeKind) -> None:
    assert built == expected
    assert classify(built) is kind


def test_every_root_is_a_kafka_znode() -> None:
    assert all(classify(root) is not None for root in layout.KAFKA_ROOTS)


def test_builders_make_format_strings_for_spark() -> None:
    assert layout.state_path("%s", "%s") % ("orders", 7) == layout.state_path("orders", 7)
    assert layout.broker_path("%s") % 5 == layout.broker_path(5)


@pytest.mark.parametrize(
    ("path", "topic"),
    [("/brokers/topics/orders", "orders"), ("/brokers/topics/a.b_c-1", "a.b_c-1")],
)
def test_topic_path_parses_back(path: str, topic: str) -> None:
    assert layout.parse_topic_path(path) == topic
    assert layout.parse_topic_path(layout.topic_path(topic)) == topic


@pytest.mark.parametrize(
    "path",
    ["/brokers/topics", "/brokers/topics/", "/brokers/topics/t/partitions", "/config/topics/t", "brokers/topics/t"],
)
def test_topic_path_rejects_other_paths(path: str) -> None:
    assert layout.parse_topic_path(path) is None


def test_state_path_parses_back() -> None:
    assert layout.parse_state_path(layout.state_path("orders", 12)) == ("orders", 12)


@pytest.mark.parametrize(
    "path",
    [
        "/brokers/topics/t/partitions/x/state",
        "/brokers/topics/t/partitions/1",
        "/brokers/topics/t/partitions/1/state/extra",
        "/brokers/topics/t",
    ],
)
def test_state_path_rejects_other_paths(path: str) -> None:
    assert layout.parse_state_path(path) is None


@pytest.mark.parametrize(
    ("path", "where"),
    [
        ("/brokers/topics/t/partitions/3/state", ("t", 3)),
        ("/brokers/topics/t", ("t", None)),
        ("/config/topics/t", ("t", None)),
        ("/admin/delete_topics/t", ("t", None)),
        ("/config/brokers/1", (None, None)),
        ("/brokers/ids/1", (None, None)),
        ("/brokers/topics/t/partitions/3", (None, None)),
    ],
)
def test_located_names_the_topic_and_partition_of_a_topics_znode(
    path: str, where: tuple[str | None, int | None]
) -> None:
    assert layout.located(path) == where


@pytest.mark.parametrize(
    ("path", "broker"),
    [("/brokers/ids/3", 3), ("/brokers/ids/x", None), ("/brokers/ids", None), ("/brokers/ids/3/x", None)],
)
def test_broker_path_parses_back(path: str, broker: int | None) -> None:
    assert layout.parse_broker_path(path) == broker
