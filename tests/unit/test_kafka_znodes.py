"""Tests for ``core.kafka.znodes``: recorded data of every znode format version, malformed data, and
property tests showing that no parser, ``parse_znode``, ``decode_data`` or ``explain`` ever raises."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.kafka.znodes import (
    AclChangeEvent,
    AclEntry,
    AclResource,
    BrokerRegistration,
    ClusterId,
    ConfigChangeNotification,
    ControllerInfo,
    DecodedData,
    DeletionMarker,
    Endpoint,
    EntityConfig,
    FeatureZNode,
    GenericKafkaData,
    IsrChangeNotification,
    LogDirEventNotification,
    MigrationState,
    PartitionState,
    PreferredElectionRequest,
    ProducerIdBlock,
    ReassignmentRequest,
    StructuralZnode,
    TopicAssignment,
    Unreadable,
    ZnodeKind,
    classify,
    decode_data,
    explain,
    hexdump,
    parse_acl_change,
    parse_acl_resource,
    parse_broker,
    parse_cluster_id,
    parse_config_change,
    parse_controller,
    parse_controller_epoch,
    parse_delegation_token,
    parse_deletion_marker,
    parse_entity_config,
    parse_feature,
    parse_generic,
    parse_isr_change,
    parse_log_dir_event,
    parse_migration,
    parse_partition_state,
    parse_preferred_election,
    parse_producer_id_block,
    parse_reassignment,
    parse_topic,
    parse_znode,
)
from core.kafka.znodes.brokers import releases_of_registration

FIXTURES = Path(__file__).parent / "fixtures" / "znodes"


def fixture(name: str) -> bytes:
    """The recorded bytes of fixture ``name``."""
    return (FIXTURES / name).read_bytes()


def replace_fields(name: str, **changes: Any) -> bytes:
    """Fixture ``name`` with top-level fields replaced (``...`` removes a field), re-encoded compactly."""
    obj = json.loads(fixture(name))
    for key, value in changes.items():
        if value is ...:
            obj.pop(key, None)
        else:
            obj[key] = value
    return json.dumps(obj, separators=(",", ":")).encode()


# --- recorded data, one fixture per format version -------------------------------------------------

RECORDED: list[tuple[str, str, object]] = [
    ("controller_v1_2.8.json", "/controller", ControllerInfo(1, 1623839402156, 1, None)),
    # Recorded from a real 0.10.2.2 sandbox (tests/integration/test_release_paths.py), as that release writes.
    ("controller_v1_0.10.2.json", "/controller", ControllerInfo(2, 1795709969384, 1, None)),
    (
        "broker_v4_0.10.2.json",
        "/brokers/ids/1",
        BrokerRegistration(
            broker_id=1,
            version=4,
            host="127.0.0.1",
            port=40657,
            jmx_port=-1,
            timestamp_ms=1795709970710,
            endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 40657),),
            rack=None,
            listener_security_protocol_map=(("PLAINTEXT", "PLAINTEXT"),),
            features=None,
        ),
    ),
    # The ISR shrunk to the leader: a follower that fell behind on a loaded machine.
    ("state_0.10.2.json", "/brokers/topics/grow/partitions/0/state", PartitionState(3, 1, (3,), 1, 0, 1)),
    ("controller_v2_3.6.json", "/controller", ControllerInfo(2, 1700000000123, 2, -1)),
    ("controller_v2_kraft_migration.json", "/controller", ControllerInfo(3000, 1700000100000, 2, 7)),
    ("controller_epoch.txt", "/controller_epoch", 12),
    (
        "broker_v1_0.8.2.json",
        "/brokers/ids/1",
        BrokerRegistration(
            broker_id=1,
            version=1,
            host="kafka1.example.com",
            port=9092,
            jmx_port=-1,
            timestamp_ms=1428512949385,
            endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "kafka1.example.com", 9092),),
            rack=None,
            listener_security_protocol_map=None,
            features=None,
        ),
    ),
    (
        "broker_v2_0.9.0.json",
        "/brokers/ids/1",
        BrokerRegistration(
            broker_id=1,
            version=2,
            host="kafka1.example.com",
            port=9092,
            jmx_port=9999,
            timestamp_ms=1453304738291,
            endpoints=(
                Endpoint("PLAINTEXT", "PLAINTEXT", "kafka1.example.com", 9092),
                Endpoint("SSL", "SSL", "kafka1.example.com", 9093),
            ),
            rack=None,
            listener_security_protocol_map=None,
            features=None,
        ),
    ),
    (
        "broker_v3_0.10.0.json",
        "/brokers/ids/11",
        BrokerRegistration(
            broker_id=11,
            version=3,
            host="10.0.0.11",
            port=9092,
            jmx_port=-1,
            timestamp_ms=1466985807242,
            endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "10.0.0.11", 9092),),
            rack="us-east-1a",
            listener_security_protocol_map=None,
            features=None,
        ),
    ),
    (
        "broker_v4_2.6.json",
        "/brokers/ids/1",
        BrokerRegistration(
            broker_id=1,
            version=4,
            host="10.0.0.11",
            port=9092,
            jmx_port=-1,
            timestamp_ms=1600000000000,
            endpoints=(
                Endpoint("CLIENT", "SASL_SSL", "kafka1.example.com", 9094),
                Endpoint("REPLICATION", "SSL", "10.0.0.11", 9093),
                Endpoint("PLAINTEXT", "PLAINTEXT", "10.0.0.11", 9092),
            ),
            rack="r1",
            listener_security_protocol_map=(
                ("CLIENT", "SASL_SSL"),
                ("REPLICATION", "SSL"),
                ("PLAINTEXT", "PLAINTEXT"),
            ),
            features=None,
        ),
    ),
    (
        "broker_v4_no_plaintext_ipv6.json",
        "/brokers/ids/2",
        BrokerRegistration(
            broker_id=2,
            version=4,
            host=None,
            port=-1,
            jmx_port=-1,
            timestamp_ms=1600000000000,
            endpoints=(
                Endpoint("INTERNAL", "SSL", "fd00::11", 9093),
                Endpoint("EXTERNAL", "SASL_SSL", "kafka1.example.com", 9094),
            ),
            rack=None,
            listener_security_protocol_map=(("INTERNAL", "SSL"), ("EXTERNAL", "SASL_SSL")),
            features=None,
        ),
    ),
    (
        "broker_v5_3.6.json",
        "/brokers/ids/1",
        BrokerRegistration(
            broker_id=1,
            version=5,
            host="kafka1.example.com",
            port=9092,
            jmx_port=-1,
            timestamp_ms=1700000000000,
            endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "kafka1.example.com", 9092),),
            rack=None,
            listener_security_protocol_map=(("PLAINTEXT", "PLAINTEXT"),),
            features=(),
        ),
    ),
    (
        "broker_v5_features.json",
        "/brokers/ids/3",
        BrokerRegistration(
            broker_id=3,
            version=5,
            host="kafka3.example.com",
            port=9092,
            jmx_port=9999,
            timestamp_ms=1730000000000,
            endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "kafka3.example.com", 9092),),
            rack=None,
            listener_security_protocol_map=(("PLAINTEXT", "PLAINTEXT"),),
            features=(("metadata.version", 1, 21),),
        ),
    ),
    (
        "topic_v1_1.1.json",
        "/brokers/topics/orders",
        TopicAssignment("orders", 1, ((0, (1, 2, 3)), (1, (2, 3, 1)), (2, (3, 1, 2))), (), (), None),
    ),
    (
        "topic_v2_2.4.json",
        "/brokers/topics/orders",
        TopicAssignment("orders", 2, ((0, (1, 2)), (1, (2, 3))), (), (), None),
    ),
    (
        "topic_v2_reassigning.json",
        "/brokers/topics/orders",
        TopicAssignment("orders", 2, ((0, (1, 2, 3, 4)), (1, (2, 3))), ((0, (4,)),), ((0, (1,)),), None),
    ),
    (
        "topic_v3_2.8.json",
        "/brokers/topics/payments",
        TopicAssignment(
            "payments", 3, ((0, (2, 1, 3)), (1, (3, 2, 1)), (2, (1, 3, 2))), (), (), "oA8LnHoaQYy4CwR0dQNaLA"
        ),
    ),
    (
        "topic_v3_no_topic_id.json",
        "/brokers/topics/_schemas",
        TopicAssignment("_schemas", 3, ((0, (1,)),), (), (), None),
    ),
    ("state_1.1.json", "/brokers/topics/orders/partitions/0/state", PartitionState(1, 0, (1, 2, 3), 1, 0, 1)),
    ("state_offline.json", "/brokers/topics/orders/partitions/1/state", PartitionState(-1, 4, (2,), 3, 0, 1)),
    (
        "state_3.2_recovering.json",
        "/brokers/topics/orders/partitions/2/state",
        PartitionState(2, 5, (2,), 7, 1, 1),
    ),
    (
        "reassign_partitions.json",
        "/admin/reassign_partitions",
        ReassignmentRequest(1, (("orders", 0, (1, 2, 3)), ("orders", 1, (2, 3, 4)))),
    ),
    (
        "preferred_replica_election.json",
        "/admin/preferred_replica_election",
        PreferredElectionRequest(1, (("orders", 0),)),
    ),
    (
        "isr_change.json",
        "/isr_change_notification/isr_change_0000000003",
        IsrChangeNotification(1, (("orders", 0), ("payments", 3))),
    ),
    (
        "log_dir_event.json",
        "/log_dir_event_notification/log_dir_event_0000000000",
        LogDirEventNotification(1, 2, 1),
    ),
    (
        "config_topic.json",
        "/config/topics/orders",
        EntityConfig(1, (("retention.ms", "604800000"), ("cleanup.policy", "compact"))),
    ),
    ("config_empty.json", "/config/brokers/<default>", EntityConfig(1, ())),
    (
        "config_user_scram.json",
        "/config/users/User%3Aalice",
        EntityConfig(
            1,
            (
                (
                    "SCRAM-SHA-512",
                    "salt=MWtxOG56cHNybGhoank2Mm1kaW5kMGs0,stored_key=SFIxPNm3S8QqUgP1Jq8kWw==,"
                    "server_key=b6Il3wpE9vtOtnK1+Pu1Nw==,iterations=4096",
                ),
                ("producer_byte_rate", "1048576"),
            ),
        ),
    ),
    (
        "config_change_v2.json",
        "/config/changes/config_change_0000000042",
        ConfigChangeNotification(2, "topics", "orders", "topics/orders"),
    ),
    (
        "config_change_v2_user_client.json",
        "/config/changes/config_change_0000000043",
        ConfigChangeNotification(2, "users", "User%3Aalice/clients/app-1", "users/User%3Aalice/clients/app-1"),
    ),
    (
        "config_change_v1.json",
        "/config/changes/config_change_0000000007",
        ConfigChangeNotification(1, "topics", "orders", "topics/orders"),
    ),
    (
        "config_change_0.8.json",
        "/config/changes/config_change_0000000001",
        ConfigChangeNotification(0, "topics", "orders", "topics/orders"),
    ),
    ("cluster_id.json", "/cluster/id", ClusterId("1", "nd9mOF7uRxK0h7zrZGuSHw")),
    ("producer_id_block.json", "/latest_producer_id_block", ProducerIdBlock(1, 1, 2000, 2999)),
    ("feature_v1_disabled.json", "/feature", FeatureZNode(1, 0, ())),
    ("feature_v1_enabled.json", "/feature", FeatureZNode(1, 1, (("metadata.version", 5, 5),))),
    ("feature_v2.json", "/feature", FeatureZNode(2, 1, (("metadata.version", None, 14),))),
    ("migration.json", "/migration", MigrationState(0, 3000, 7, 127, 7)),
    (
        "acl_topic.json",
        "/kafka-acl/Topic/orders",
        AclResource(
            1,
            (
                AclEntry("User:alice", "Allow", "Read", "*"),
                AclEntry("User:bob", "Deny", "Write", "10.0.0.5"),
            ),
        ),
    ),
    (
        "acl_change_literal.txt",
        "/kafka-acl-changes/acl_changes_0000000004",
        AclChangeEvent(None, "Topic", "orders", "LITERAL"),
    ),
    (
        "acl_change_extended.json",
        "/kafka-acl-extended-changes/acl_changes_0000000001",
        AclChangeEvent(1, "TOPIC", "orders-", "PREFIXED"),
    ),
    (
        "token_change.txt",
        "/delegation_token/token_changes/token_change_0000000000",
        GenericKafkaData("cQyt8jYxQvqyW7XzNbXnYg", None, ()),
    ),
]


@pytest.mark.parametrize(("name", "path", "expected"), RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_data_parses_to_the_expected_value(name: str, path: str, expected: object) -> None:
    assert parse_znode(path, fixture(name)) == expected


@pytest.mark.parametrize(("name", "path", "expected"), RECORDED, ids=[r[0] for r in RECORDED])
def test_recorded_data_is_explained_and_displayed_as_kafka(name: str, path: str, expected: object) -> None:
    rows = explain(parse_znode(path, fixture(name)))  # type: ignore[arg-type]
    assert rows
    assert all(len(row) == 3 and all(isinstance(cell, str) for cell in row) for row in rows)
    decoded = decode_data(path, fixture(name))
    assert decoded.kind == "kafka"
    assert decoded.parsed == expected


def test_every_fixture_file_is_used() -> None:
    used = {r[0] for r in RECORDED} | {"delegation_token_v3.json"}
    assert {p.name for p in FIXTURES.iterdir()} == used


def test_fixtures_are_compact_single_line_bytes_as_kafka_writes_them() -> None:
    for path in FIXTURES.iterdir():
        data = path.read_bytes()
        assert b"\n" not in data and b": " not in data, path.name


def test_delegation_token_is_read_generically_with_its_fields() -> None:
    token = parse_znode("/delegation_token/tokens/cQyt8jYxQvqyW7XzNbXnYg", fixture("delegation_token_v3.json"))
    assert isinstance(token, GenericKafkaData)
    assert token.version == 3
    assert dict(token.fields)["owner"] == '"User%3Aalice"'
    assert ("owner", '"User%3Aalice"', "principal that owns the token") in explain(token)


# --- behaviour of the parsed types ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "is_kraft"),
    [
        ("controller_v1_2.8.json", False),
        ("controller_v2_3.6.json", False),
        ("controller_v2_kraft_migration.json", True),
    ],
)
def test_controller_is_kraft_only_with_a_kraft_epoch(name: str, is_kraft: bool) -> None:
    controller = parse_controller("/controller", fixture(name))
    assert isinstance(controller, ControllerInfo)
    assert controller.is_kraft is is_kraft


def test_endpoint_text_brackets_ipv6_hosts_like_kafka() -> None:
    assert str(Endpoint("INTERNAL", "SSL", "fd00::11", 9093)) == "INTERNAL://[fd00::11]:9093"
    assert str(Endpoint("CLIENT", "SASL_SSL", "kafka1", 9094)) == "CLIENT://kafka1:9094"
    assert str(Endpoint("PLAINTEXT", "PLAINTEXT", "", 9092)) == "PLAINTEXT://:9092"


def test_broker_without_protocol_map_uses_the_default_map() -> None:
    data = replace_fields("broker_v4_2.6.json", listener_security_protocol_map=..., endpoints=["SASL_SSL://h:9094"])
    broker = parse_broker("/brokers/ids/1", data)
    assert isinstance(broker, BrokerRegistration)
    assert broker.endpoints == (Endpoint("SASL_SSL", "SASL_SSL", "h", 9094),)
    assert broker.listener_security_protocol_map is None


def test_broker_listener_names_are_normalised_and_wildcard_host_kept_empty() -> None:
    broker = parse_broker("/brokers/ids/4", replace_fields("broker_v5_3.6.json", endpoints=["plaintext://:9092"]))
    assert isinstance(broker, BrokerRegistration)
    assert broker.endpoints == (Endpoint("PLAINTEXT", "PLAINTEXT", "", 9092),)
    assert broker.endpoint("plaintext") == broker.endpoints[0]
    assert broker.endpoint("SSL") is None


@pytest.mark.parametrize("rack", [..., None])
def test_broker_rack_may_be_absent_or_null(rack: object) -> None:
    broker = parse_broker("/brokers/ids/1", replace_fields("broker_v4_2.6.json", rack=rack))
    assert isinstance(broker, BrokerRegistration)
    assert broker.rack is None


def test_topic_helpers() -> None:
    topic = parse_topic("/brokers/topics/orders", fixture("topic_v2_reassigning.json"))
    assert isinstance(topic, TopicAssignment)
    assert topic.partition_count == 2
    assert topic.partition_ids == (0, 1)
    assert topic.replicas(0) == (1, 2, 3, 4)
    assert topic.replicas(1) == (2, 3)
    assert topic.replicas(7) == ()
    assert topic.adding_replicas(0) == (4,)
    assert topic.removing_replicas(0) == (1,)
    assert topic.is_reassigning(0) and not topic.is_reassigning(1)
    assert topic.reassigning_partitions == (0,)


def test_topic_lookup_works_when_ids_are_not_0_to_n() -> None:
    topic = parse_topic("/brokers/topics/t", b'{"version":1,"partitions":{"5":[1],"1":[2]}}')
    assert isinstance(topic, TopicAssignment)
    assert topic.partitions == ((1, (2,)), (5, (1,)))
    assert topic.replicas(1) == (2,) and topic.replicas(5) == (1,) and topic.replicas(0) == ()


def test_topic_tolerates_missing_optional_maps_and_even_missing_partitions() -> None:
    assert parse_topic("/brokers/topics/t", b'{"version":3}') == TopicAssignment("t", 3, (), (), (), None)


def test_topic_ignores_moving_replicas_of_unlisted_partitions_and_empty_lists() -> None:
    data = b'{"version":2,"partitions":{"0":[1,2]},"adding_replicas":{"0":[],"9":"junk"},"removing_replicas":{}}'
    assert parse_topic("/brokers/topics/t", data) == TopicAssignment("t", 2, ((0, (1, 2)),), (), (), None)


def test_partition_state_is_compact() -> None:
    state = parse_partition_state("/brokers/topics/t/partitions/0/state", fixture("state_1.1.json"))
    assert isinstance(state, PartitionState)
    assert not hasattr(state, "__dict__")
    assert sys.getsizeof(state) <= 96  # a snapshot holds 100k+ of these
    assert state.has_leader
    with pytest.raises(AttributeError):
        state.leader = 3  # type: ignore[misc]


def test_partition_state_accepts_explicit_recovered() -> None:
    state = parse_partition_state(
        "/s",
        b'{"leader":1,"leader_epoch":0,"isr":[1],"controller_epoch":1,"version":1,"leader_recovery_state":0}',
    )
    assert state == PartitionState(1, 0, (1,), 1, 0, 1)


def test_entity_config_as_dict() -> None:
    config = parse_entity_config("/config/topics/orders", fixture("config_topic.json"))
    assert isinstance(config, EntityConfig)
    assert config.as_dict() == {"retention.ms": "604800000", "cleanup.policy": "compact"}


def test_scram_credentials_and_passwords_are_never_shown_by_explain() -> None:
    config = parse_entity_config("/config/users/User%3Aalice", fixture("config_user_scram.json"))
    assert isinstance(config, EntityConfig)
    rows = explain(config)
    assert not any("stored_key" in row[1] for row in rows)
    assert ("SCRAM-SHA-512", "(hidden) iterations=4096") in [row[:2] for row in rows]
    secret = EntityConfig(1, (("listener.name.ssl.ssl.keystore.password", "encrypted-blob"),))
    assert explain(secret)[1][1] == "(hidden)"


def test_producer_id_block_size() -> None:
    block = parse_producer_id_block("/latest_producer_id_block", fixture("producer_id_block.json"))
    assert isinstance(block, ProducerIdBlock)
    assert block.size == 1000


def test_feature_enabled_flag() -> None:
    assert parse_feature("/feature", fixture("feature_v2.json")) == FeatureZNode(
        2, 1, (("metadata.version", None, 14),)
    )
    disabled = parse_feature("/feature", fixture("feature_v1_disabled.json"))
    assert isinstance(disabled, FeatureZNode) and not disabled.enabled


def test_deletion_marker_names_the_topic_whatever_the_data() -> None:
    assert parse_deletion_marker("/admin/delete_topics/orders", None) == DeletionMarker("orders")
    assert parse_znode("/admin/delete_topics/orders", b"\xff junk") == DeletionMarker("orders")


def test_parsers_read_names_from_the_end_of_the_path_so_a_chroot_prefix_is_harmless() -> None:
    extended = parse_acl_change("/kafka/kafka-acl-extended-changes/acl_changes_1", fixture("acl_change_extended.json"))
    assert extended == AclChangeEvent(1, "TOPIC", "orders-", "PREFIXED")
    topic = parse_topic("/kafka/brokers/topics/orders", fixture("topic_v1_1.1.json"))
    assert isinstance(topic, TopicAssignment) and topic.topic == "orders"
    broker = parse_broker("/kafka/brokers/ids/7", fixture("broker_v5_3.6.json"))
    assert isinstance(broker, BrokerRegistration) and broker.broker_id == 7


def test_empty_acl_data_means_no_acls() -> None:
    assert parse_acl_resource("/kafka-acl/Topic/orders", b"") == AclResource(None, ())


# --- explain ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "meaning"),
    [
        (PartitionState(-1, 3, (2,), 1, 0, 1), "no leader: partition is offline"),
        (PartitionState(-2, 3, (2,), 1, 0, 1), "LeaderDuringDelete"),
        (PartitionState(3, 3, (2,), 1, 0, 1), "not in the ISR"),
        (PartitionState(2, 3, (2,), 1, 0, 1), "broker 2 serves reads and writes"),
    ],
)
def test_explain_partition_leader(state: PartitionState, meaning: str) -> None:
    field, value, text = explain(state)[0]
    assert (field, value) == ("leader", str(state.leader))
    assert meaning in text


def test_explain_unreadable_names_the_error_and_the_expected_format() -> None:
    bad = parse_znode("/brokers/topics/orders/partitions/0/state", b'{"leader":true}')
    assert isinstance(bad, Unreadable)
    rows = explain(bad)
    assert rows[0][0] == "error" and "partition state" in rows[0][2]
    assert rows[2] == ("data", '{"leader":true}', "start of the raw data")


def test_explain_kraft_controller() -> None:
    rows = explain(parse_controller("/controller", fixture("controller_v2_kraft_migration.json")))
    assert "KRaft controller node 3000" in rows[1][2]


def test_explain_caps_very_large_topics() -> None:
    partitions = {str(p): [1, 2, 3] for p in range(2000)}
    topic = parse_topic("/brokers/topics/big", json.dumps({"version": 1, "partitions": partitions}).encode())
    rows = explain(topic)
    assert len(rows) < 600
    assert rows[-1][:2] == ("...", "1500 more")


# --- malformed data ---------------------------------------------------------------------------------

STATE = "/brokers/topics/t/partitions/0/state"
BROKER = "/brokers/ids/1"
TOPIC = "/brokers/topics/t"
CHANGE = "/config/changes/config_change_0000000001"

MALFORMED: list[tuple[str, str, bytes, str]] = [
    # data that is not JSON at all
    ("empty", "/controller", b"", "empty data"),
    ("not-json", "/controller", b"brokerid=1", "not JSON"),
    ("non-utf8", BROKER, b'{"version":1,"host":"\xff"}', "not UTF-8"),
    ("utf16", "/controller", '{"version":1}'.encode("utf-16"), "not UTF-8"),
    ("truncated", STATE, fixture("state_1.1.json")[:-3], "not JSON"),
    ("trailing-garbage", STATE, fixture("state_1.1.json") + b"x", "not JSON"),
    ("nan", "/controller", b'{"version":1,"brokerid":NaN}', "NaN"),
    ("infinity", STATE, b'{"leader":Infinity}', "Infinity"),
    ("deep-nesting", "/controller", b"[" * 100_000 + b"]" * 100_000, "not JSON"),
    ("too-many-digits", "/controller", b'{"version":1,"brokerid":' + b"9" * 5000 + b"}", "not JSON"),
    # JSON of the wrong shape
    ("null", "/controller", b"null", "null, expected a JSON object"),
    ("array", TOPIC, b"[1,2,3]", "an array, expected a JSON object"),
    ("string", STATE, b'"leader"', "a string, expected a JSON object"),
    ("number", "/feature", b"1", "expected a JSON object"),
    ("partitions-array", TOPIC, b'{"version":1,"partitions":[[1,2]]}', '"partitions" is an array'),
    ("config-array", "/config/topics/t", b'{"version":1,"config":[]}', '"config" is an array'),
    # missing required fields
    (
        "controller-no-brokerid",
        "/controller",
        replace_fields("controller_v1_2.8.json", brokerid=...),
        "brokerid",
    ),
    (
        "controller-no-version",
        "/controller",
        replace_fields("controller_v1_2.8.json", version=...),
        "version",
    ),
    ("state-no-isr", STATE, replace_fields("state_1.1.json", isr=...), '"isr" is missing'),
    ("state-no-leader", STATE, replace_fields("state_1.1.json", leader=...), '"leader" is missing'),
    ("broker-no-jmx", BROKER, replace_fields("broker_v4_2.6.json", jmx_port=...), "jmx_port"),
    ("broker-v2-no-endpoints", BROKER, replace_fields("broker_v2_0.9.0.json", endpoints=...), "endpoints"),
    ("broker-v1-no-host", BROKER, replace_fields("broker_v1_0.8.2.json", host=...), "host"),
    ("broker-v1-null-host", BROKER, replace_fields("broker_v1_0.8.2.json", host=None), "host"),
    ("config-no-config", "/config/topics/t", b'{"version":1}', "config"),
    (
        "reassign-no-replicas",
        "/admin/reassign_partitions",
        b'{"version":1,"partitions":[{"topic":"t","partition":0}]}',
        "replicas",
    ),
    ("isr-change-no-partitions", "/isr_change_notification/isr_change_1", b'{"version":1}', "partitions"),
    (
        "log-dir-no-broker",
        "/log_dir_event_notification/log_dir_event_1",
        b'{"version":1,"event":1}',
        "broker",
    ),
    ("cluster-id-no-id", "/cluster/id", b'{"version":"1"}', '"id"'),
    (
        "producer-no-end",
        "/latest_producer_id_block",
        replace_fields("producer_id_block.json", block_end=...),
        "end",
    ),
    (
        "migration-no-offset",
        "/migration",
        replace_fields("migration.json", kraft_metadata_offset=...),
        "offset",
    ),
    # bool where Kafka expects an int (Python's bool is an int)
    ("bool-brokerid", "/controller", replace_fields("controller_v1_2.8.json", brokerid=True), "true"),
    ("bool-leader", STATE, replace_fields("state_1.1.json", leader=True), "true"),
    ("bool-in-isr", STATE, replace_fields("state_1.1.json", isr=[1, False]), "false"),
    ("bool-version", TOPIC, replace_fields("topic_v1_1.1.json", version=True), "true"),
    ("bool-replica", TOPIC, b'{"version":1,"partitions":{"0":[1,true]}}', "true"),
    ("bool-jmx", BROKER, replace_fields("broker_v4_2.6.json", jmx_port=False), "false"),
    ("bool-status", "/feature", replace_fields("feature_v2.json", status=True), "true"),
    (
        "bool-partition",
        "/admin/preferred_replica_election",
        b'{"version":1,"partitions":[{"topic":"t","partition":true}]}',
        "true",
    ),
    ("bool-migration-id", "/migration", replace_fields("migration.json", kraft_controller_id=True), "true"),
    (
        "bool-log-dir-broker",
        "/log_dir_event_notification/log_dir_event_1",
        b'{"version":1,"broker":false}',
        "false",
    ),
    # other wrong types
    ("float-leader", STATE, replace_fields("state_1.1.json", leader=1.0), "1.0"),
    ("string-leader", STATE, replace_fields("state_1.1.json", leader="1"), "a string"),
    ("null-epoch", STATE, replace_fields("state_1.1.json", controller_epoch=None), "null"),
    ("isr-object", STATE, replace_fields("state_1.1.json", isr={"0": 1}), "an object"),
    (
        "int-timestamp",
        "/controller",
        replace_fields("controller_v1_2.8.json", timestamp=1623839402156),
        "timestamp",
    ),
    (
        "bad-timestamp",
        "/controller",
        replace_fields("controller_v1_2.8.json", timestamp="yesterday"),
        "timestamp",
    ),
    (
        "string-config-value",
        "/config/topics/t",
        b'{"version":1,"config":{"retention.ms":604800000}}',
        "retention",
    ),
    ("null-config-value", "/config/topics/t", b'{"version":1,"config":{"retention.ms":null}}', "null"),
    (
        "int-block-start",
        "/latest_producer_id_block",
        replace_fields("producer_id_block.json", block_start=2000),
        "block_start",
    ),
    (
        "hex-block-start",
        "/latest_producer_id_block",
        replace_fields("producer_id_block.json", block_start="0x7d0"),
        "not a decimal",
    ),
    ("int-cluster-version", "/cluster/id", b'{"version":1,"id":"nd9mOF7uRxK0h7zrZGuSHw"}', "string"),
    (
        "endpoints-string",
        BROKER,
        replace_fields("broker_v4_2.6.json", endpoints="PLAINTEXT://h:1"),
        "endpoints",
    ),
    ("rack-int", BROKER, replace_fields("broker_v4_2.6.json", rack=1), "rack"),
    ("topic-id-null", TOPIC, replace_fields("topic_v3_2.8.json", topic_id=None), "topic_id"),
    # numbers beyond what Kafka reads
    ("huge-leader", STATE, replace_fields("state_1.1.json", leader=2**31), "32-bit"),
    ("huge-negative-epoch", STATE, replace_fields("state_1.1.json", leader_epoch=-(2**31) - 1), "32-bit"),
    ("huge-brokerid", "/controller", replace_fields("controller_v1_2.8.json", brokerid=10**30), "32-bit"),
    ("huge-offset", "/migration", replace_fields("migration.json", kraft_metadata_offset=2**63), "64-bit"),
    (
        "huge-block",
        "/latest_producer_id_block",
        replace_fields("producer_id_block.json", block_end=str(2**63)),
        "beyond",
    ),
    (
        "huge-block-size",
        "/latest_producer_id_block",
        replace_fields("producer_id_block.json", block_end=str(2**40)),
        "32-bit",
    ),
    ("huge-epoch-text", "/controller_epoch", b"2147483648", "beyond"),
    (
        "huge-endpoint-port",
        BROKER,
        replace_fields("broker_v5_3.6.json", endpoints=["PLAINTEXT://h:99999999999"]),
        "port",
    ),
    # controller epoch text
    ("epoch-spaces", "/controller_epoch", b" 5\n", "not a decimal"),
    ("epoch-empty", "/controller_epoch", b"", "not a decimal"),
    ("epoch-json", "/controller_epoch", b'{"epoch":5}', "not a decimal"),
    # partition state values
    (
        "recovery-state-2",
        STATE,
        replace_fields("state_1.1.json", leader_recovery_state=2),
        "leader_recovery_state",
    ),
    ("recovery-state-bool", STATE, replace_fields("state_1.1.json", leader_recovery_state=True), "true"),
    # broker registration rules (Kafka 3.9 BrokerIdZNode.decode)
    (
        "broker-v0",
        BROKER,
        replace_fields("broker_v1_0.8.2.json", version=0),
        "Unsupported version of broker registration: {",
    ),
    (
        "broker-negative-version",
        BROKER,
        replace_fields("broker_v4_2.6.json", version=-1),
        "Unsupported version",
    ),
    (
        "broker-unmapped-listener",
        BROKER,
        replace_fields("broker_v4_2.6.json", endpoints=["OTHER://h:1"]),
        "No security protocol defined for listener OTHER",
    ),
    (
        "broker-bad-endpoint",
        BROKER,
        replace_fields("broker_v4_2.6.json", endpoints=["h:9092"]),
        "Unable to parse",
    ),
    (
        "broker-unknown-protocol",
        BROKER,
        replace_fields("broker_v4_2.6.json", listener_security_protocol_map={"PLAINTEXT": "QUIC"}),
        "QUIC",
    ),
    ("broker-id-not-a-number", "/brokers/ids/kafka-1", fixture("broker_v4_2.6.json"), "not a broker id"),
    (
        "broker-feature-min-above-max",
        BROKER,
        replace_fields("broker_v5_3.6.json", features={"f": {"min_version": 3, "max_version": 1}}),
        "min_version",
    ),
    (
        "broker-feature-no-max",
        BROKER,
        replace_fields("broker_v5_3.6.json", features={"f": {"min_version": 1}}),
        "max_version",
    ),
    # topic assignment rules
    ("partition-key-word", TOPIC, b'{"version":1,"partitions":{"zero":[1]}}', "not a partition number"),
    ("partition-key-negative", TOPIC, b'{"version":1,"partitions":{"-1":[1]}}', "not a partition number"),
    ("partition-key-leading-zero", TOPIC, b'{"version":1,"partitions":{"01":[1]}}', "not a partition number"),
    (
        "partition-key-decimal-point",
        TOPIC,
        b'{"version":1,"partitions":{"1.0":[1]}}',
        "not a partition number",
    ),
    (
        "partition-key-unicode-digit",
        TOPIC,
        '{"version":1,"partitions":{"١":[1]}}'.encode(),
        "not a partition",
    ),
    ("partition-key-huge", TOPIC, b'{"version":1,"partitions":{"2147483648":[1]}}', "not a partition number"),
    (
        "topic-id-short",
        TOPIC,
        replace_fields("topic_v3_2.8.json", topic_id="oA8LnHoaQYy4"),
        "not a base64 UUID",
    ),
    (
        "topic-id-dashed-uuid",
        TOPIC,
        replace_fields("topic_v3_2.8.json", topic_id="a00f0b9c-7a1a-418c-b80b-047475035a2c"),
        "not a base64 UUID",
    ),
    ("adding-not-object", TOPIC, replace_fields("topic_v2_2.4.json", adding_replicas=[]), "adding_replicas"),
    ("adding-bad-list", TOPIC, replace_fields("topic_v2_2.4.json", adding_replicas={"0": [1.5]}), "adding"),
    # /feature rules (Kafka 3.9 FeatureZNode.decode)
    ("feature-v0", "/feature", replace_fields("feature_v2.json", version=0), "Unsupported version: 0"),
    ("feature-v3", "/feature", replace_fields("feature_v2.json", version=3), "Unsupported version: 3"),
    (
        "feature-no-status",
        "/feature",
        replace_fields("feature_v2.json", status=...),
        "Status can not be absent",
    ),
    (
        "feature-null-status",
        "/feature",
        replace_fields("feature_v2.json", status=None),
        "Status can not be absent",
    ),
    ("feature-status-2", "/feature", replace_fields("feature_v2.json", status=2), "Malformed status: 2"),
    (
        "feature-no-map",
        "/feature",
        replace_fields("feature_v2.json", features=...),
        "Features map can not be absent",
    ),
    (
        "feature-v1-no-min",
        "/feature",
        replace_fields("feature_v1_enabled.json", features={"f": {"max_version_level": 2}}),
        "min_version_level absent",
    ),
    (
        "feature-v1-max-below-min",
        "/feature",
        replace_fields("feature_v1_enabled.json", features={"f": {"min_version_level": 3, "max_version_level": 2}}),
        "maxValue >= minValue",
    ),
    (
        "feature-v1-min-zero",
        "/feature",
        replace_fields("feature_v1_enabled.json", features={"f": {"min_version_level": 0, "max_version_level": 2}}),
        "minValue >= 1",
    ),
    (
        "feature-v2-no-max",
        "/feature",
        replace_fields("feature_v2.json", features={"f": {}}),
        "max_version_level absent",
    ),
    (
        "feature-v2-max-zero",
        "/feature",
        replace_fields("feature_v2.json", features={"f": {"max_version_level": 0}}),
        "maxValue >= 1",
    ),
    (
        "feature-string-level",
        "/feature",
        replace_fields("feature_v2.json", features={"f": {"max_version_level": "1"}}),
        "a string",
    ),
    # other version rules
    ("migration-v1", "/migration", replace_fields("migration.json", version=1), "unknown version 1"),
    ("config-change-v3", CHANGE, b'{"version":3,"entity_path":"topics/t"}', "unsupported version '3'"),
    (
        "config-change-v1-users",
        CHANGE,
        b'{"version":1,"entity_type":"users","entity_name":"alice"}',
        "'clients' or 'topics'",
    ),
    ("config-change-v1-no-name", CHANGE, b'{"version":1,"entity_type":"topics"}', "entity_name"),
    ("config-change-v2-no-slash", CHANGE, b'{"version":2,"entity_path":"topics"}', "entity_path"),
    ("config-change-v2-unknown-type", CHANGE, b'{"version":2,"entity_path":"groups/g"}', "entity_path"),
    ("config-change-number", CHANGE, b"42", "expected a JSON object"),
    ("acl-version-2", "/kafka-acl/Topic/t", b'{"version":2,"acls":[]}', "version 2"),
    (
        "acl-bad-principal",
        "/kafka-acl/Topic/t",
        b'{"version":1,"acls":[{"principal":"alice","permissionType":"Allow","operation":"Read","host":"*"}]}',
        "Type:name",
    ),
    (
        "acl-missing-host",
        "/kafka-acl/Topic/t",
        b'{"version":1,"acls":[{"principal":"User:a","permissionType":"Allow","operation":"Read"}]}',
        "host",
    ),
    ("acl-change-no-colon", "/kafka-acl-changes/acl_changes_1", b"orders", "ResourceType:ResourceName"),
    (
        "acl-change-extended-v2",
        "/kafka-acl-extended-changes/acl_changes_1",
        b'{"version":2,"resourceType":"TOPIC","name":"a","patternType":"PREFIXED"}',
        "unsupported version: 2",
    ),
    ("token-no-version", "/delegation_token/tokens/x", b'{"owner":"User%3Aa"}', "version"),
    ("token-change-binary", "/delegation_token/token_changes/token_change_1", b"\xff\xfe", "not UTF-8"),
]


@pytest.mark.parametrize(("path", "data", "reason"), [m[1:] for m in MALFORMED], ids=[m[0] for m in MALFORMED])
def test_malformed_data_is_unreadable_with_a_reason(path: str, data: bytes, reason: str) -> None:
    result = parse_znode(path, data)
    assert isinstance(result, Unreadable), result
    assert reason in result.reason
    assert result.path == path and result.raw == data
    assert not result.reason.startswith("kzc parser error")
    explain(result)
    decode_data(path, data)


def test_parsers_accept_none_data_like_kazoo_returns_for_null_znodes() -> None:
    assert isinstance(parse_controller("/controller", None), Unreadable)
    assert isinstance(parse_partition_state(STATE, None), Unreadable)
    assert parse_znode("/brokers/ids", None) == StructuralZnode("/brokers/ids", "one ephemeral child per live broker")


def test_endpoint_accepts_trace_from_0_10_clusters() -> None:
    broker = parse_broker(BROKER, replace_fields("broker_v2_0.9.0.json", endpoints=["TRACE://h:9099"]))
    assert isinstance(broker, BrokerRegistration)
    assert broker.endpoints[0].security_protocol == "TRACE"


# --- classify ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("/controller", ZnodeKind.CONTROLLER),
        ("/controller_epoch", ZnodeKind.CONTROLLER_EPOCH),
        ("/brokers", ZnodeKind.STRUCTURAL),
        ("/brokers/ids", ZnodeKind.STRUCTURAL),
        ("/brokers/ids/1001", ZnodeKind.BROKER),
        ("/brokers/seqid", ZnodeKind.STRUCTURAL),
        ("/brokers/topics", ZnodeKind.STRUCTURAL),
        ("/brokers/topics/orders.v1_x-y", ZnodeKind.TOPIC),
        ("/brokers/topics/orders/partitions", ZnodeKind.STRUCTURAL),
        ("/brokers/topics/orders/partitions/12", ZnodeKind.STRUCTURAL),
        ("/brokers/topics/orders/partitions/12/state", ZnodeKind.PARTITION_STATE),
        ("/admin", ZnodeKind.STRUCTURAL),
        ("/admin/delete_topics", ZnodeKind.STRUCTURAL),
        ("/admin/delete_topics/orders", ZnodeKind.DELETE_TOPIC),
        ("/admin/reassign_partitions", ZnodeKind.REASSIGN_PARTITIONS),
        ("/admin/preferred_replica_election", ZnodeKind.PREFERRED_REPLICA_ELECTION),
        ("/config", ZnodeKind.STRUCTURAL),
        ("/config/topics", ZnodeKind.STRUCTURAL),
        ("/config/topics/orders", ZnodeKind.ENTITY_CONFIG),
        ("/config/clients/<default>", ZnodeKind.ENTITY_CONFIG),
        ("/config/users/User%3Aalice", ZnodeKind.ENTITY_CONFIG),
        ("/config/users/User%3Aalice/clients", ZnodeKind.STRUCTURAL),
        ("/config/users/<default>/clients/app-1", ZnodeKind.ENTITY_CONFIG),
        ("/config/brokers/<default>", ZnodeKind.ENTITY_CONFIG),
        ("/config/ips/10.0.0.1", ZnodeKind.ENTITY_CONFIG),
        ("/config/changes", ZnodeKind.STRUCTURAL),
        ("/config/changes/config_change_0000000042", ZnodeKind.CONFIG_CHANGE),
        ("/isr_change_notification", ZnodeKind.STRUCTURAL),
        ("/isr_change_notification/isr_change_0000000001", ZnodeKind.ISR_CHANGE),
        ("/log_dir_event_notification/log_dir_event_0000000001", ZnodeKind.LOG_DIR_EVENT),
        ("/cluster", ZnodeKind.STRUCTURAL),
        ("/cluster/id", ZnodeKind.CLUSTER_ID),
        ("/latest_producer_id_block", ZnodeKind.PRODUCER_ID_BLOCK),
        ("/feature", ZnodeKind.FEATURE),
        ("/migration", ZnodeKind.MIGRATION),
        ("/kafka-acl", ZnodeKind.STRUCTURAL),
        ("/kafka-acl/Topic", ZnodeKind.STRUCTURAL),
        ("/kafka-acl/Topic/orders", ZnodeKind.ACL),
        ("/kafka-acl-changes/acl_changes_0000000001", ZnodeKind.ACL_CHANGE),
        ("/kafka-acl-extended/prefixed/Group/app-", ZnodeKind.ACL),
        ("/kafka-acl-extended/prefixed", ZnodeKind.STRUCTURAL),
        ("/kafka-acl-extended-changes/acl_changes_0000000001", ZnodeKind.ACL_CHANGE),
        ("/delegation_token/tokens/abc", ZnodeKind.DELEGATION_TOKEN),
        ("/delegation_token/token_changes/token_change_0000000001", ZnodeKind.DELEGATION_TOKEN_CHANGE),
        ("/consumers", ZnodeKind.STRUCTURAL),
        ("/consumers/group1/offsets/orders/0", ZnodeKind.OLD_CONSUMER),
        ("/", None),
        ("", None),
        ("/zookeeper", None),
        ("/zookeeper/quota", None),
        ("/kafka/brokers/ids/1", None),
        ("brokers/ids/1", None),
        ("/brokers/ids/1/extra", None),
        ("/brokers//ids", None),
        ("/brokers/topics/t/partitions/0/state/x", None),
        ("/brokers/topics/t/other", None),
        ("/config/client-metrics/m", None),
        ("/config/topics/t/extra", None),
        ("/config/changes/not_a_change", None),
        ("/admin/other", None),
        ("/brokers/ids/", None),
    ],
)
def test_classify(path: str, kind: ZnodeKind | None) -> None:
    assert classify(path) is kind


# --- decode_data ------------------------------------------------------------------------------------


def test_decode_data_kafka_is_pretty_json_of_the_parsed_value() -> None:
    decoded = decode_data("/controller", fixture("controller_v1_2.8.json"))
    assert decoded == DecodedData(
        "kafka",
        '{\n  "version": 1,\n  "brokerid": 1,\n  "timestamp": "1623839402156"\n}',
        ControllerInfo(1, 1623839402156, 1, None),
    )


def test_decode_data_kafka_text_formats_are_shown_as_is() -> None:
    assert decode_data("/kafka-acl-changes/acl_changes_1", b"Topic:orders").text == "Topic:orders"
    assert decode_data("/controller_epoch", b"12").text == "12"


def test_decode_data_unreadable_kafka_data_falls_back_to_generic_display() -> None:
    decoded = decode_data("/controller", b'{"brokerid":"one"}')
    assert decoded.kind == "json"
    assert isinstance(decoded.parsed, Unreadable)


@pytest.mark.parametrize(
    ("path", "data", "kind", "text"),
    [
        (
            "/zookeeper/config",
            b"server.1=zk1:2888:3888\nversion=100000000",
            "text",
            "server.1=zk1:2888:3888\nversion=100000000",
        ),
        ("/app/settings", b'{"a":[1,2]}', "json", '{\n  "a": [\n    1,\n    2\n  ]\n}'),
        ("/app/number", b"42", "text", "42"),
        ("/app/empty", b"", "empty", ""),
        ("/app/none", None, "empty", ""),
        ("/app/control", b"a\x00b", "hex", "00000000  " + "61 00 62".ljust(47) + "  |a.b|"),
        ("/app/binary", b"\xff\xfe", "hex", "00000000  " + "ff fe".ljust(47) + "  |..|"),
        ("/brokers/ids", b"\x01", "hex", "00000000  " + "01".ljust(47) + "  |.|"),
    ],
)
def test_decode_data_generic(path: str, data: bytes | None, kind: str, text: str) -> None:
    decoded = decode_data(path, data)
    assert (decoded.kind, decoded.text) == (kind, text)


def test_decode_data_empty_kafka_znode_keeps_its_parsed_value() -> None:
    assert decode_data("/admin/delete_topics/orders", b"") == DecodedData("empty", "", DeletionMarker("orders"))


def test_hexdump_layout_and_limit() -> None:
    dump = hexdump(bytes(range(40)), limit=32)
    lines = dump.split("\n")
    assert lines[0] == "00000000  " + " ".join(f"{b:02x}" for b in range(16)) + "  |................|"
    assert lines[1].startswith("00000010  10 11")
    assert lines[-1] == "... 8 more bytes"


# --- property tests: nothing ever raises --------------------------------------------------------------

ALL_PARSERS: list[Callable[[str, bytes | None], object]] = [
    parse_controller,
    parse_controller_epoch,
    parse_broker,
    parse_topic,
    parse_partition_state,
    parse_deletion_marker,
    parse_reassignment,
    parse_preferred_election,
    parse_entity_config,
    parse_config_change,
    parse_isr_change,
    parse_log_dir_event,
    parse_cluster_id,
    parse_producer_id_block,
    parse_feature,
    parse_migration,
    parse_acl_resource,
    parse_acl_change,
    parse_delegation_token,
    parse_generic,
]

KAFKA_PATHS = [r[1] for r in RECORDED] + [
    "/brokers/ids",
    "/delegation_token/tokens/t1",
    "/consumers/g/offsets/t/0",
    "/kafka-acl-extended/prefixed/Topic/p-",
    "/zookeeper/config",
]

FIELD_NAMES = sorted(
    {key for name, _, _ in RECORDED if name.endswith(".json") for key in json.loads(fixture(name)) or ()}
    | {
        "leader_recovery_state",
        "min_version_level",
        "max_version_level",
        "min_version",
        "max_version",
        "0",
        "1",
    }
)

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
    | st.sampled_from(["PLAINTEXT://h:9092", "1", "topics/t", "Topic:t", "oA8LnHoaQYy4CwR0dQNaLA"])
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.sampled_from(FIELD_NAMES) | st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=15,
)
# Objects built from the field names Kafka uses reach far deeper into the parsers than random JSON.
kafka_like_objects = st.dictionaries(st.sampled_from(FIELD_NAMES), json_values, max_size=8)


def assert_total(path: str, result: object) -> None:
    """A parse result is a value or an ``Unreadable`` from a known check, and explains without error."""
    if isinstance(result, Unreadable):
        assert not result.reason.startswith("kzc parser error"), result.reason
    if result is not None:
        rows = explain(result)  # type: ignore[arg-type]
        assert all(len(row) == 3 and all(isinstance(cell, str) for cell in row) for row in rows)


@pytest.mark.parametrize("parse", ALL_PARSERS, ids=lambda f: f.__name__)
@given(path=st.sampled_from(KAFKA_PATHS) | st.text(max_size=30), data=st.binary(max_size=200))
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
def test_parsers_never_raise_on_arbitrary_bytes(parse: Callable[[str, bytes], object], path: str, data: bytes) -> None:
    assert_total(path, parse(path, data))


@pytest.mark.parametrize("parse", ALL_PARSERS, ids=lambda f: f.__name__)
@given(path=st.sampled_from(KAFKA_PATHS), value=json_values | kafka_like_objects)
@settings(max_examples=80, suppress_health_check=[HealthCheck.too_slow])
def test_parsers_never_raise_on_arbitrary_json(parse: Callable[[str, bytes], object], path: str, value: Any) -> None:
    assert_total(path, parse(path, json.dumps(value).encode()))


@given(
    name=st.sampled_from([r[0] for r in RECORDED if r[0].endswith(".json")]),
    key=st.sampled_from(FIELD_NAMES),
    value=json_values | st.just(...),
)
@settings(max_examples=300)
def test_mutated_recorded_data_never_raises(name: str, key: str, value: Any) -> None:
    path = next(r[1] for r in RECORDED if r[0] == name)
    obj = json.loads(fixture(name))
    if isinstance(obj, dict):
        if value is ...:
            obj.pop(key, None)
        else:
            obj[key] = value
    data = json.dumps(obj).encode()
    assert_total(path, parse_znode(path, data))
    decode_data(path, data)


@given(
    path=st.sampled_from(KAFKA_PATHS) | st.text(max_size=40),
    data=st.binary(max_size=300) | json_values.map(lambda v: json.dumps(v).encode()) | st.none(),
)
@settings(max_examples=300)
def test_parse_znode_decode_data_and_explain_never_raise(path: str, data: bytes | None) -> None:
    assert_total(path, parse_znode(path, data))
    decoded = decode_data(path, data)
    assert decoded.kind in ("kafka", "json", "text", "hex", "empty")
    assert isinstance(decoded.text, str)
    if decoded.parsed is not None:
        explain(decoded.parsed)


@given(path=st.text(max_size=60))
def test_classify_never_raises(path: str) -> None:
    classify(path)


@pytest.mark.parametrize(
    ("version", "releases"),
    [(1, "0.8"), (2, "0.9+"), (3, "0.10.0-0.10.1"), (4, "0.10.2+"), (5, "2.7+"), (6, "unknown"), (0, "unknown")],
)
def test_a_registration_version_tells_the_releases_that_write_it(version: int, releases: str) -> None:
    # zk-layout §2.3: v2 and v4 are also written by newer brokers on an older inter.broker.protocol.version.
    assert releases_of_registration(version) == releases


def test_whitespace_around_the_json_reads_as_jackson_reads_it() -> None:
    state = b'{"controller_epoch":7,"leader":1,"version":1,"leader_epoch":3,"isr":[1,2]}'
    expected = PartitionState(1, 3, (1, 2), 7, 0, 1)
    for data in (state, b" \n" + state, state + b"\n ", b"\t" + state + b"\r\n"):
        assert parse_partition_state(STATE, data) == expected


def test_a_bad_replica_is_named_by_its_place_in_the_list() -> None:
    data = b'{"version":3,"partitions":{"0":[1,2],"1":[3,true]},"adding_replicas":{},"removing_replicas":{}}'
    parsed = parse_topic(TOPIC, data)
    assert isinstance(parsed, Unreadable)
    assert parsed.reason == "replicas of partition 1[1] is true, expected an integer"
