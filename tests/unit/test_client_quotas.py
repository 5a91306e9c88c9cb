"""Client quotas through the brokers: the bytes of DescribeClientQuotas and AlterClientQuotas at v0 (classic)
and v1 (flexible) as their schemas lay them out, their answers read back, the release the brokers' ApiVersions
date, and the path a quota change takes per release (loopback stand-ins, ``tests/unit/fake_broker.py``)."""

from __future__ import annotations

import struct

import pytest

from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, BrokerApis, Capabilities, release_floor
from core.brokers.client_quotas import (
    alter_client_quotas,
    decode_alter,
    decode_describe,
    describe_client_quotas,
    encode_alter,
    encode_describe,
)
from core.brokers.wire import CLIENT_ID, CORRELATION
from core.errors import KafkaRuleError, UsageError
from core.kafka.quotas import DEFAULT, QuotaEntity, parse_quota
from core.kafka.znodes import BrokerRegistration, Endpoint
from core.security.quotas import quota_path, same_quotas
from tests.unit.fake_broker import RELEASE_APIS, Received, fake_broker


def _s(text: str | None) -> bytes:
    return struct.pack(">h", -1) if text is None else struct.pack(">h", len(text)) + text.encode()


def _cs(text: str | None) -> bytes:
    return b"\x00" if text is None else bytes([len(text) + 1]) + text.encode()


def _body(frame: bytes) -> tuple[int, int, bytes]:
    """(api key, version, body) of a framed request with client id ``CLIENT_ID``."""
    api_key, version = struct.unpack_from(">hh", frame, 4)
    header = 4 + 8 + 2 + len(CLIENT_ID)
    flexible = version >= 1
    return api_key, version, frame[header + (1 if flexible else 0) :]


# ---- request bytes, per the schemas ------------------------------------------------------------------


def test_describe_every_entity_is_no_components_not_strict_at_v0_and_v1() -> None:
    assert _body(encode_describe(0)) == (48, 0, struct.pack(">i", 0) + b"\x00")
    # v1: a compact array of 0 (varint 1), strict false, the top-level tag buffer
    assert _body(encode_describe(1)) == (48, 1, b"\x01\x00\x00")


def test_alter_v0_lays_out_entity_ops_and_validate_only_as_the_schema_says() -> None:
    frame = encode_alter(QuotaEntity("alice", DEFAULT), {"producer_byte_rate": "1024"}, ["request_percentage"], True, 0)
    expected = (
        struct.pack(">i", 1)  # entries
        + struct.pack(">i", 2) + _s("user") + _s("alice") + _s("client-id") + _s(None)  # entity; <default>: null
        + struct.pack(">i", 2)  # ops
        + _s("producer_byte_rate") + struct.pack(">d", 1024.0) + b"\x00"
        + _s("request_percentage") + struct.pack(">d", 0.0) + b"\x01"
        + b"\x01"  # validate only
    )  # fmt: skip
    assert _body(frame) == (49, 0, expected)


def test_alter_v1_is_the_same_fields_in_the_flexible_encoding() -> None:
    frame = encode_alter(QuotaEntity(None, "app"), {"consumer_byte_rate": "2048"}, [], False, 1)
    expected = (
        b"\x02"  # one entry
        + b"\x02" + _cs("client-id") + _cs("app") + b"\x00"  # entity, its tags
        + b"\x02" + _cs("consumer_byte_rate") + struct.pack(">d", 2048.0) + b"\x00" + b"\x00"  # op, its tags
        + b"\x00"  # the entry's tags
        + b"\x00"  # validate only false
        + b"\x00"  # top-level tags
    )  # fmt: skip
    assert _body(frame) == (49, 1, expected)
    with pytest.raises(ValueError, match="v0-v1"):
        encode_alter(QuotaEntity(None, "app"), {}, [], False, 2)


# ---- answers ---------------------------------------------------------------------------------------------


def _describe_answer_v0(code: int = 0, message: str | None = None) -> bytes:
    entries = (
        struct.pack(">i", 2)
        + struct.pack(">i", 1) + _s("user") + _s(None)
        + struct.pack(">i", 1) + _s("producer_byte_rate") + struct.pack(">d", 1048576.0)
        + struct.pack(">i", 2) + _s("user") + _s("bob") + _s("client-id") + _s("app")
        + struct.pack(">i", 1) + _s("request_percentage") + struct.pack(">d", 12.5)
    )  # fmt: skip
    return struct.pack(">ih", 0, code) + _s(message) + entries


def test_a_describe_answer_is_read_as_entities_with_their_quotas() -> None:
    body = struct.pack(">i", CORRELATION) + _describe_answer_v0()
    assert decode_describe(body, 0) == {
        QuotaEntity(DEFAULT, None): {"producer_byte_rate": "1048576"},
        QuotaEntity("bob", "app"): {"request_percentage": "12.5"},
    }


def test_a_describe_answer_v1_is_read_with_its_tag_buffers() -> None:
    body = (
        struct.pack(">i", CORRELATION) + b"\x00" + struct.pack(">ih", 0, 0) + b"\x00"  # header, throttle, error, no msg
        + b"\x02"  # one entry
        + b"\x02" + _cs("client-id") + _cs("app") + b"\x00"
        + b"\x02" + _cs("consumer_byte_rate") + struct.pack(">d", 10.0) + b"\x00"
        + b"\x00" + b"\x00"
    )  # fmt: skip
    assert decode_describe(body, 1) == {QuotaEntity(None, "app"): {"consumer_byte_rate": "10"}}


def test_a_describe_error_is_the_brokers_refusal_and_a_short_answer_is_not_quotas() -> None:
    body = struct.pack(">i", CORRELATION) + _describe_answer_v0(31, "denied")
    with pytest.raises(KafkaRuleError, match="CLUSTER_AUTHORIZATION_FAILED: denied"):
        decode_describe(body, 0)
    with pytest.raises(ValueError):
        decode_describe(body[:20], 0)


def test_an_alter_answer_carries_each_entitys_error() -> None:
    body = (
        struct.pack(">i", CORRELATION) + struct.pack(">i", 0) + struct.pack(">i", 1)
        + struct.pack(">h", 42) + _s("Invalid quota") + struct.pack(">i", 1) + _s("client-id") + _s("app")
    )  # fmt: skip
    assert decode_alter(body, 0).entries == ((QuotaEntity(None, "app"), 42, "Invalid quota"),)


# ---- against stand-ins of each release ----------------------------------------------------------------


def _alter_ok(request: Received) -> bytes:
    flexible = request.version >= 1
    if flexible:
        return b"\x00" + struct.pack(">i", 0) + b"\x01" + b"\x00"  # tags, throttle, no entries, tags
    return struct.pack(">ii", 0, 0)


def test_a_3_9_broker_gets_alter_client_quotas_at_v1() -> None:
    with fake_broker(RELEASE_APIS["3.9"], {49: _alter_ok}, flexible=lambda k, v: k == 49 and v >= 1) as (port, got):
        alter_client_quotas("127.0.0.1", port, 5.0, QuotaEntity(None, "app"), {"producer_byte_rate": "10"}, [])
    assert [(r.api_key, r.version) for r in got] == [(18, 0), (49, 1)]


def test_a_2_6_broker_gets_v0() -> None:
    with fake_broker(RELEASE_APIS["2.6"], {49: _alter_ok}) as (port, got):
        alter_client_quotas("127.0.0.1", port, 5.0, QuotaEntity("u", None), {"producer_byte_rate": "10"}, [], True)
    assert [(r.api_key, r.version) for r in got] == [(18, 0), (49, 0)]
    assert got[1].body.endswith(b"\x01")  # validate only


def test_a_broker_refusing_the_change_is_a_kafka_refusal() -> None:
    def refuse(request: Received) -> bytes:
        return struct.pack(">ii", 0, 1) + struct.pack(">h", 42) + _s("bad") + struct.pack(">i", 0)

    with fake_broker(RELEASE_APIS["2.6"], {49: refuse}) as (port, _), pytest.raises(KafkaRuleError, match="bad"):
        alter_client_quotas("127.0.0.1", port, 5.0, QuotaEntity("u", None), {"producer_byte_rate": "10"}, [])


@pytest.mark.parametrize("release", ["0.10.2", "1.1", "2.2"])
def test_a_broker_before_2_6_is_never_sent_a_quota_request(release: str) -> None:
    from core.brokers.apiversions import NoVersion

    with fake_broker(RELEASE_APIS[release]) as (port, got), pytest.raises(NoVersion, match="Kafka 2.6.0"):
        describe_client_quotas("127.0.0.1", port, 5.0)
    assert [r.api_key for r in got] == [18]


# ---- the release and the path ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    # The stand-ins answer only the APIs kzc sends: a lower bound (3.9's answers DescribeCluster v1: 3.7+).
    ("release", "floor"),
    [("0.10.2", (0, 10, 2)), ("1.1", (1, 1)), ("2.2", (2, 2)), ("2.6", (2, 6)), ("3.9", (3, 7))],
)
def test_the_api_versions_date_a_release(release: str, floor: tuple[int, ...]) -> None:
    assert release_floor(RELEASE_APIS[release]) == floor


def test_a_key_the_oldest_broker_lacks_is_refused_before_anything_is_sent() -> None:
    caps = Capabilities((BrokerApis(1, RELEASE_APIS["3.9"]), BrokerApis(2, RELEASE_APIS["2.6"])))
    assert caps.release() == (2, 6)
    with pytest.raises(UsageError, match=r"controller_mutation_rate needs Kafka 2.7\+; the oldest broker runs 2.6"):
        parse_quota("controller_mutation_rate", "1", caps.release())
    assert parse_quota("controller_mutation_rate", "1", (2, 8)) == "1"


def _registration(broker: int) -> BrokerRegistration:
    return BrokerRegistration(
        broker_id=broker, version=4, host="127.0.0.1", port=9092 + broker, jmx_port=-1, timestamp_ms=0,
        endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092 + broker),), rack=None,
        listener_security_protocol_map=(("PLAINTEXT", "PLAINTEXT"),), features=None,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("releases", "via"),
    [
        (("3.9", "3.9"), VIA_ADMIN),
        (("2.6", "3.9"), VIA_ADMIN),
        (("2.2", "3.9"), VIA_ZOOKEEPER),
        (("1.1",), VIA_ZOOKEEPER),
    ],
)
def test_a_quota_change_goes_through_alter_client_quotas_only_where_every_broker_serves_it(
    releases: tuple[str, ...], via: str
) -> None:
    caps = Capabilities(tuple(BrokerApis(i + 1, RELEASE_APIS[r]) for i, r in enumerate(releases)))
    path = quota_path(caps, {i + 1: _registration(i + 1) for i in range(len(releases))})
    assert path.route.via == via
    if via == VIA_ADMIN:
        assert path.broker == (1, "127.0.0.1", 9093) and "AlterClientQuotas" in path.route.reason
    else:
        assert "has no AlterClientQuotas (Kafka 2.6.0+" in path.route.reason
        assert "kafka-configs --zookeeper" in path.route.reason


def test_without_bootstrap_servers_a_quota_change_goes_through_zookeeper() -> None:
    path = quota_path(None, {})
    assert path.route.via == VIA_ZOOKEEPER and path.route.reason.startswith("no --bootstrap-server")


def test_via_forces_a_quota_change_path_or_is_refused_with_the_reason() -> None:
    caps = Capabilities((BrokerApis(1, RELEASE_APIS["3.9"]),))
    forced = quota_path(caps, {1: _registration(1)}, via=VIA_ZOOKEEPER)
    assert forced.route.via == VIA_ZOOKEEPER and forced.route.reason.startswith("--via zookeeper")
    assert forced.release is not None
    with pytest.raises(UsageError, match="--via admin needs --bootstrap-server"):
        quota_path(None, {}, via=VIA_ADMIN)
    with pytest.raises(UsageError, match="--via admin cannot be taken: broker 1 .*has no AlterClientQuotas"):
        quota_path(Capabilities((BrokerApis(1, RELEASE_APIS["2.2"]),)), {1: _registration(1)}, via=VIA_ADMIN)
    with pytest.raises(UsageError, match="--via admin cannot be taken: no broker kzc can send"):
        quota_path(caps, {}, via=VIA_ADMIN)


def test_stored_quotas_are_compared_as_numbers() -> None:
    assert same_quotas({"request_percentage": "50.0"}, {"request_percentage": "50"})
    assert not same_quotas({"request_percentage": "50.0"}, {"request_percentage": "51"})
    assert not same_quotas({}, {"request_percentage": "50"})


def test_user_quotas_are_refused_on_a_cluster_older_than_0_10_1() -> None:
    from core.brokers.capabilities import Route
    from core.security.quotas import QuotaPath, plan_quota

    path = QuotaPath(Route(VIA_ZOOKEEPER, "test"), None, (0, 10))
    with pytest.raises(UsageError, match=r"user quotas need Kafka 0.10.1\+ \(KIP-55\); the oldest broker runs 0.10"):
        plan_quota(None, QuotaEntity("alice", None), {"producer_byte_rate": "1"}, [], path)  # type: ignore[arg-type]
