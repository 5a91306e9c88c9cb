"""Cluster-default and pre-2.3 broker configs through kzc's own requests: the bytes of IncrementalAlterConfigs
(v0 classic, v1 flexible) and AlterConfigs (v0-v1 classic, v2 flexible) for a BROKER resource named ``""``,
their answers, the path each release takes, and Kafka's refusals on each path (loopback stand-ins,
``tests/unit/fake_broker.py``)."""

from __future__ import annotations

import re
import struct

import pytest

from core.brokers.alter_configs import (
    decode_answer,
    encode_incremental,
    encode_whole_set,
    incremental_alter_broker,
)
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, BrokerApis, Capabilities
from core.brokers.wire import CLIENT_ID, CORRELATION
from core.configs.broker import WHOLE_SET, BrokerConfigRequest, broker_route, plan_broker_change
from core.configs.zk import BROKER_DEFAULT, BROKERS, StoredConfig
from core.errors import KafkaRuleError, UsageError
from core.kafka.broker_config_rules import check_zookeeper_update, is_password_config, per_broker_keys
from core.kafka.znodes import BrokerRegistration, Endpoint
from tests.unit.fake_broker import RELEASE_APIS, Received, fake_broker


def _s(text: str | None) -> bytes:
    return struct.pack(">h", -1) if text is None else struct.pack(">h", len(text)) + text.encode()


def _cs(text: str | None) -> bytes:
    return b"\x00" if text is None else bytes([len(text) + 1]) + text.encode()


def _body(frame: bytes, flexible: bool) -> tuple[int, int, bytes]:
    api_key, version = struct.unpack_from(">hh", frame, 4)
    header = 4 + 8 + 2 + len(CLIENT_ID)
    return api_key, version, frame[header + (1 if flexible else 0) :]


def test_incremental_v0_names_the_default_with_an_empty_broker_resource() -> None:
    frame = encode_incremental("", {"log.cleaner.threads": "2"}, ["background.threads"], True, 0)
    expected = (
        struct.pack(">i", 1) + struct.pack(">b", 4) + _s("")
        + struct.pack(">i", 2)
        + _s("log.cleaner.threads") + b"\x00" + _s("2")
        + _s("background.threads") + b"\x01" + _s(None)
        + b"\x01"
    )  # fmt: skip
    assert _body(frame, False) == (44, 0, expected)


def test_incremental_v1_is_flexible() -> None:
    frame = encode_incremental("", {"a": "1"}, [], False, 1)
    expected = b"\x02" + b"\x04" + _cs("") + b"\x02" + _cs("a") + b"\x00" + _cs("1") + b"\x00" + b"\x00" + b"\x00\x00"
    assert _body(frame, True) == (44, 1, expected)


def test_alter_configs_sends_the_whole_set_sorted() -> None:
    frame = encode_whole_set("1", {"b": "2", "a": "1"}, False, 1)
    expected = (
        struct.pack(">i", 1)
        + b"\x04"
        + _s("1")
        + struct.pack(">i", 2)
        + _s("a")
        + _s("1")
        + _s("b")
        + _s("2")
        + b"\x00"
    )
    assert _body(frame, False) == (33, 1, expected)
    with pytest.raises(ValueError):
        encode_whole_set("1", {}, False, 3)


def _answer(code: int, message: str | None, flexible: bool) -> bytes:
    if flexible:
        return (
            b"\x00"
            + struct.pack(">i", 0)
            + b"\x02"
            + struct.pack(">h", code)
            + _cs(message)
            + b"\x04"
            + _cs("")
            + b"\x00\x00"
        )
    return struct.pack(">ii", 0, 1) + struct.pack(">h", code) + _s(message) + b"\x04" + _s("")


def test_answers_are_read_in_both_encodings() -> None:
    for flexible in (False, True):
        body = struct.pack(">i", CORRELATION) + _answer(40, "Cannot update these configs", flexible)
        assert decode_answer(body, flexible) == [(40, "Cannot update these configs", 4, "")]


def test_a_3_9_broker_gets_v1_and_its_refusal_is_kafkas_message() -> None:
    def refuse(request: Received) -> bytes:
        return _answer(40, "Invalid config value for resource", request.version >= 1)

    with (
        fake_broker(RELEASE_APIS["3.9"], {44: refuse}, flexible=lambda k, v: k == 44 and v >= 1) as (port, got),
        pytest.raises(KafkaRuleError, match="Invalid config value"),
    ):
        incremental_alter_broker("127.0.0.1", port, 5.0, "", {"log.cleaner.threads": "x"}, [])
    assert [(r.api_key, r.version) for r in got] == [(18, 0), (44, 1)]


# ---- the path per release -----------------------------------------------------------------------------


def _registration(broker: int) -> BrokerRegistration:
    return BrokerRegistration(
        broker_id=broker, version=4, host="127.0.0.1", port=9092 + broker, jmx_port=-1, timestamp_ms=0,
        endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", "127.0.0.1", 9092 + broker),), rack=None,
        listener_security_protocol_map=(("PLAINTEXT", "PLAINTEXT"),), features=None,
    )  # fmt: skip


def _caps(*releases: str) -> Capabilities:
    return Capabilities(tuple(BrokerApis(i + 1, RELEASE_APIS[r]) for i, r in enumerate(releases)))


BROKERS_UP = {1: _registration(1), 2: _registration(2)}


@pytest.mark.parametrize(
    ("releases", "entity", "via", "method", "target"),
    [
        (("3.9", "3.9"), BROKER_DEFAULT, VIA_ADMIN, "IncrementalAlterConfigs", 1),
        (("3.9", "3.9"), "2", VIA_ADMIN, "IncrementalAlterConfigs", None),  # the AdminClient
        (("2.2", "2.2"), BROKER_DEFAULT, VIA_ADMIN, WHOLE_SET, 1),
        (("2.2", "2.2"), "2", VIA_ADMIN, WHOLE_SET, 2),  # to that broker itself
        (("1.1", "3.9"), "2", VIA_ADMIN, WHOLE_SET, 2),
        (("0.10.2", "3.9"), BROKER_DEFAULT, VIA_ZOOKEEPER, "IncrementalAlterConfigs", None),
    ],
)
def test_each_release_takes_the_path_its_own_tools_took(
    releases: tuple[str, ...], entity: str, via: str, method: str, target: int | None
) -> None:
    path, chosen, to = broker_route(_caps(*releases), entity, BROKERS_UP)
    assert (path.via, chosen if via == VIA_ADMIN else "IncrementalAlterConfigs") == (via, method)
    assert (to[0] if to else None) == target
    if entity == BROKER_DEFAULT and via == VIA_ADMIN:
        assert "librdkafka refuses" in path.reason


def test_without_bootstrap_servers_the_default_goes_through_zookeeper() -> None:
    path, _, target = broker_route(None, BROKER_DEFAULT, BROKERS_UP)
    assert path.via == VIA_ZOOKEEPER and target is None


@pytest.mark.parametrize(
    ("releases", "entity", "via", "outcome"),
    [
        (("3.9", "3.9"), "2", VIA_ADMIN, "admin IncrementalAlterConfigs None"),
        (("3.9", "3.9"), BROKER_DEFAULT, VIA_ADMIN, "admin IncrementalAlterConfigs 1"),
        (("2.2", "2.2"), "2", VIA_ADMIN, "admin AlterConfigs 2"),
        (("3.9", "3.9"), "2", VIA_ZOOKEEPER, "zookeeper IncrementalAlterConfigs None --via zookeeper: written"),
        (("2.2", "2.2"), BROKER_DEFAULT, VIA_ZOOKEEPER, "zookeeper IncrementalAlterConfigs None --via zookeeper"),
        (("0.10.2", "3.9"), "2", None, "zookeeper IncrementalAlterConfigs None broker 1 has no DescribeConfigs"),
        (("0.10.2", "3.9"), "2", VIA_ADMIN, "--via admin cannot be taken: broker 1 has no DescribeConfigs"),
        (None, "2", VIA_ADMIN, "--via admin needs --bootstrap-server"),
        (None, "2", VIA_ZOOKEEPER, "zookeeper IncrementalAlterConfigs None --via zookeeper"),
    ],
)
def test_via_forces_a_broker_configs_path_or_says_why_it_cannot(
    releases: tuple[str, ...] | None, entity: str, via: str | None, outcome: str
) -> None:
    """``broker_route`` takes the one ``--via`` decision (``write_route``) on every release row."""
    caps = None if releases is None else _caps(*releases)
    if outcome.startswith("--via admin"):
        with pytest.raises(UsageError) as refused:
            broker_route(caps, entity, BROKERS_UP, via=via)
        assert str(refused.value).startswith(outcome)
        return
    path, method, target = broker_route(caps, entity, BROKERS_UP, via=via)
    assert f"{path.via} {method} {target[0] if target else None} {path.reason}".startswith(outcome)


@pytest.mark.parametrize("via", [None, VIA_ADMIN])
def test_the_default_without_a_listener_to_send_to_goes_through_zookeeper_unless_via_admin(via: str | None) -> None:
    unreachable = "every broker serves IncrementalAlterConfigs (Kafka 2.3+), but no broker to send kzc's own request"
    if via == VIA_ADMIN:
        with pytest.raises(UsageError, match=f"--via admin cannot be taken: {re.escape(unreachable)}"):
            broker_route(_caps("3.9"), BROKER_DEFAULT, {}, via=via)
        return
    path, _, target = broker_route(_caps("3.9"), BROKER_DEFAULT, {}, via=via)
    assert path.via == VIA_ZOOKEEPER and path.reason.startswith(unreachable) and target is None


# ---- Kafka's validation on each path ------------------------------------------------------------------


def test_a_per_broker_key_is_refused_at_the_default_on_every_path() -> None:
    assert per_broker_keys(["listener.name.internal.ssl.keystore.location", "listener.name.x.max.connections"]) == [
        "listener.name.internal.ssl.keystore.location"
    ]
    request = BrokerConfigRequest(BROKER_DEFAULT, (("ssl.keystore.location", "/k"),))
    empty = StoredConfig(BROKERS, BROKER_DEFAULT, (), None)
    for via, running in ((VIA_ADMIN, [1]), (VIA_ZOOKEEPER, [])):
        with pytest.raises(KafkaRuleError, match=r"default cluster level, broker id must be specified: Set\(ssl"):
            plan_broker_change(request, empty, via, running, before_1_1=False)
    with pytest.raises(KafkaRuleError, match="for default cluster if any broker is running"):
        plan_broker_change(request, empty, VIA_ZOOKEEPER, [1], before_1_1=False)  # Kafka's first check


def test_a_password_config_is_never_written_to_zookeeper() -> None:
    assert is_password_config("listener.name.internal.ssl.key.password")
    with pytest.raises(KafkaRuleError, match="password.encoder.secret must be specified"):
        check_zookeeper_update([("listener.name.x.ssl.key.password", "p")], "1", [], before_1_1=False)


def test_the_whole_set_path_asks_for_every_password_config_already_set() -> None:
    stored = StoredConfig(BROKERS, "1", (("ssl.key.password", "encrypted"),), 3)
    request = BrokerConfigRequest("1", (("log.cleaner.threads", "2"),))
    with pytest.raises(KafkaRuleError, match="All sensitive broker config entries must be specified"):
        plan_broker_change(request, stored, VIA_ADMIN, [1], False, method=WHOLE_SET, target=(1, "h", 1))
    plan = plan_broker_change(request, StoredConfig(BROKERS, "1", (("a", "1"),), 3), VIA_ADMIN, [1], False,
                              method=WHOLE_SET, target=(1, "h", 1))  # fmt: skip
    assert dict(plan.after) == {"a": "1", "log.cleaner.threads": "2"}
    assert plan.to_json()["request"] == WHOLE_SET and plan.to_json()["sent_to"] == 1
