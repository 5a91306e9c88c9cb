"""kzc's own Kafka requests: ApiVersions negotiation, the bytes of each request per version, and that
nothing goes out at a version a broker of that release cannot parse (loopback stand-ins of each release,
``tests/unit/fake_broker.py``; the real brokers in tests/integration/test_release_paths.py)."""

from __future__ import annotations

import struct
from dataclasses import replace

import pytest

from core.brokers.apiversions import (
    ALTER_PARTITION_REASSIGNMENTS,
    CREATE_PARTITIONS,
    DESCRIBE_LOG_DIRS,
    ELECT_LEADERS,
    INCREMENTAL_ALTER_CONFIGS,
    NoVersion,
    decode_api_versions,
    encode_api_versions,
    negotiate,
)
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, BrokerApis, Capabilities, read_capabilities, route
from core.brokers.logdirs import LogDir, ReplicaLog, decode_describe_log_dirs, encode_describe_log_dirs, log_sizes
from core.brokers.reassignments import cancel_reassignments, encode_cancel
from core.brokers.wire import CLIENT_ID, CORRELATION
from core.kafka.znodes import BrokerRegistration, Endpoint
from tests.unit.fake_broker import RELEASE_APIS, Received, api_versions_body, fake_broker, log_dirs_answer

# ---- negotiation -----------------------------------------------------------------------------------


def test_negotiation_picks_the_highest_version_both_sides_speak() -> None:
    assert negotiate(DESCRIBE_LOG_DIRS, (0, 1), RELEASE_APIS["3.9"], "broker 1") == 1
    assert negotiate(DESCRIBE_LOG_DIRS, (0, 1), RELEASE_APIS["1.1"], "broker 1") == 0


def test_a_broker_without_the_api_is_named_with_the_release_that_brought_it() -> None:
    with pytest.raises(NoVersion) as caught:
        negotiate(DESCRIBE_LOG_DIRS, (0, 1), RELEASE_APIS["0.10.2"], "broker 1")
    assert str(caught.value) == "broker 1 has no DescribeLogDirs (Kafka 1.0.0+; its ApiVersions lacks api key 35)"


def test_a_broker_whose_versions_do_not_meet_kzcs_says_what_kzc_needs() -> None:
    with pytest.raises(NoVersion, match=r"broker 2 serves ElectLeaders v0-v0: kzc needs the election type"):
        negotiate(ELECT_LEADERS, (1, 2), RELEASE_APIS["2.2"], "broker 2", "the election type (v1, Kafka 2.4.0+)")


def test_api_versions_goes_out_at_v0_with_an_empty_body() -> None:
    frame = encode_api_versions()
    assert frame == struct.pack(">ihhih", 13, 18, 0, CORRELATION, 3) + CLIENT_ID.encode()


def test_an_api_versions_answer_is_read_as_ranges_by_api_key() -> None:
    body = struct.pack(">i", CORRELATION) + api_versions_body(RELEASE_APIS["1.1"])
    assert decode_api_versions(body) == RELEASE_APIS["1.1"]


def test_an_api_versions_error_is_not_taken_for_ranges() -> None:
    with pytest.raises(ValueError, match="error code 35"):
        decode_api_versions(struct.pack(">ihi", CORRELATION, 35, 0))


# ---- DescribeLogDirs -------------------------------------------------------------------------------


def _log_dirs_reply(request: Received | None) -> bytes:
    """One log dir holding orders-0 (100 bytes) and a future replica of orders-1 (not counted); v0/v1 bytes
    written out, later versions through the stand-in's encoder."""
    if request is not None and request.version >= 2:
        replicas = (ReplicaLog("orders", 0, 100, 0, False), ReplicaLog("orders", 1, 999, 0, True))
        return log_dirs_answer(request.version, [LogDir("/d/1", 0, replicas)])
    partitions = struct.pack(">i", 2) + struct.pack(">iqqb", 0, 100, 0, 0) + struct.pack(">iqqb", 1, 999, 0, 1)
    topic = struct.pack(">h", 6) + b"orders" + partitions
    log_dir = struct.pack(">h", 0) + struct.pack(">h", 4) + b"/d/1" + struct.pack(">i", 1) + topic
    return struct.pack(">i", 0) + struct.pack(">i", 1) + log_dir


@pytest.mark.parametrize("version", [0, 1])
def test_describe_log_dirs_bytes_are_the_same_at_v0_and_v1_but_the_version(version: int) -> None:
    frame = encode_describe_log_dirs({"orders": [0, 1]}, version)
    header = struct.pack(">ihhih", len(frame) - 4, 35, version, CORRELATION, len(CLIENT_ID)) + CLIENT_ID.encode()
    body = struct.pack(">i", 1) + struct.pack(">h", 6) + b"orders" + struct.pack(">iii", 2, 0, 1)
    assert frame == header + body


def test_kzc_never_encodes_describe_log_dirs_beyond_v4() -> None:
    with pytest.raises(ValueError, match="v0-v4, not v5"):
        encode_describe_log_dirs({"orders": [0]}, 5)


@pytest.mark.parametrize(("release", "version"), [("1.1", 0), ("2.2", 1), ("2.6", 2), ("3.9", 4)])
def test_log_sizes_go_out_at_the_version_the_broker_lists(release: str, version: int) -> None:
    with fake_broker(RELEASE_APIS[release], {35: _log_dirs_reply}) as (port, received):
        assert log_sizes("127.0.0.1", port, {"orders": [0, 1]}, 5.0) == {("orders", 0): 100}
    assert [(r.api_key, r.version) for r in received] == [(18, 0), (35, version)]


def test_a_0_10_broker_is_asked_only_its_api_versions_for_log_sizes() -> None:
    with fake_broker(RELEASE_APIS["0.10.2"]) as (port, received), pytest.raises(NoVersion, match="no DescribeLogDirs"):
        log_sizes("127.0.0.1", port, {"orders": [0]}, 5.0, "broker 1")
    assert [r.api_key for r in received] == [18]


def test_a_log_dirs_answer_cut_short_is_not_taken_for_sizes() -> None:
    with pytest.raises(ValueError, match="not a DescribeLogDirs v0 response"):
        decode_describe_log_dirs(struct.pack(">i", CORRELATION) + _log_dirs_reply(None)[:20])  # type: ignore[arg-type]


# ---- AlterPartitionReassignments (cancel) ----------------------------------------------------------


def _cancel_reply(request: Received) -> bytes:
    partition = struct.pack(">ih", 0, 0) + b"\x00" + b"\x00"  # index, no error, null message, no tags
    topic = b"\x07orders" + b"\x02" + partition + b"\x00"
    return b"\x00" + struct.pack(">ih", 0, 0) + b"\x00" + b"\x02" + topic + b"\x00"


def test_the_cancel_request_is_v0_with_header_v2_and_null_replicas() -> None:
    frame = encode_cancel([("orders", 0)], 30000)
    header = struct.pack(">ihhih", len(frame) - 4, 45, 0, CORRELATION, len(CLIENT_ID)) + CLIENT_ID.encode() + b"\x00"
    body = struct.pack(">i", 30000) + b"\x02" + b"\x07orders" + b"\x02" + struct.pack(">i", 0) + b"\x00\x00" + b"\x00"
    assert frame == header + body + b"\x00"


def test_a_controller_of_3_9_gets_the_cancel() -> None:
    with fake_broker(RELEASE_APIS["3.9"], {45: _cancel_reply}) as (port, received):
        result = cancel_reassignments("127.0.0.1", port, [("orders", 0)], 5.0)
    assert result.error == (0, None)
    assert result.partitions == {("orders", 0): (0, None)}
    assert [(r.api_key, r.version) for r in received] == [(18, 0), (45, 0)]


@pytest.mark.parametrize("release", ["0.10.2", "1.1", "2.2"])
def test_a_controller_before_2_4_is_never_sent_the_cancel(release: str) -> None:
    with fake_broker(RELEASE_APIS[release]) as (port, received), pytest.raises(NoVersion, match="Kafka 2.4.0"):
        cancel_reassignments("127.0.0.1", port, [("orders", 0)], 5.0, "broker 1")
    assert [r.api_key for r in received] == [18]


# ---- the cluster's capabilities and the path of each write ------------------------------------------


def _registration(broker: int, port: int, protocol: str = "PLAINTEXT") -> BrokerRegistration:
    endpoint = Endpoint(protocol, protocol, "127.0.0.1", port)
    return BrokerRegistration(
        broker_id=broker,
        version=4,
        host="127.0.0.1",
        port=port,
        jmx_port=-1,
        timestamp_ms=0,
        endpoints=(endpoint,),
        rack=None,
        listener_security_protocol_map=((protocol, protocol),),
        features=None,
    )


def _caps(**releases: str) -> Capabilities:
    return Capabilities(tuple(BrokerApis(int(b[1:]), RELEASE_APIS[r]) for b, r in releases.items()))


def test_in_a_mixed_cluster_the_oldest_broker_decides() -> None:
    caps = _caps(b1="3.9", b2="0.10.2", b3="3.9")
    assert caps.lacking(CREATE_PARTITIONS) == (
        "broker 2 has no CreatePartitions (Kafka 1.0.0+; its ApiVersions lacks api key 37)"
    )
    assert _caps(b1="3.9", b2="3.9").lacking(CREATE_PARTITIONS) is None


@pytest.mark.parametrize(
    ("release", "api", "via"),
    [
        ("0.10.2", CREATE_PARTITIONS, VIA_ZOOKEEPER),
        ("1.1", CREATE_PARTITIONS, VIA_ADMIN),
        ("1.1", INCREMENTAL_ALTER_CONFIGS, VIA_ZOOKEEPER),
        ("2.2", INCREMENTAL_ALTER_CONFIGS, VIA_ZOOKEEPER),
        ("2.2", ALTER_PARTITION_REASSIGNMENTS, VIA_ZOOKEEPER),
        ("3.9", INCREMENTAL_ALTER_CONFIGS, VIA_ADMIN),
    ],
)
def test_each_release_takes_the_path_its_own_tools_took(release: str, api: object, via: str) -> None:
    chosen = route(_caps(b1=release), api, "as Kafka's tool did")  # type: ignore[arg-type]
    assert chosen.via == via
    if via == VIA_ZOOKEEPER:
        assert chosen.reason.startswith("broker 1 has no ")
        assert chosen.reason.endswith("written through ZooKeeper, as Kafka's tool did")


def test_without_bootstrap_servers_every_write_goes_through_zookeeper() -> None:
    assert route(None, CREATE_PARTITIONS, "x").via == VIA_ZOOKEEPER


def test_brokers_whose_api_versions_are_unknown_constrain_nothing_and_are_named() -> None:
    caps = Capabilities((BrokerApis(1, None, "no PLAINTEXT or SASL_PLAINTEXT listener"),))
    chosen = route(caps, CREATE_PARTITIONS, "x")
    assert chosen.via == VIA_ADMIN
    assert "ApiVersions unknown for broker 1: no PLAINTEXT" in chosen.reason


def test_capabilities_are_read_from_every_registered_broker() -> None:
    with fake_broker(RELEASE_APIS["1.1"]) as (port1, _), fake_broker(RELEASE_APIS["0.10.2"]) as (port2, _):
        brokers = {1: _registration(1, port1), 2: _registration(2, port2), 3: _registration(3, 9, "SSL")}
        caps = read_capabilities(brokers, 5.0)  # type: ignore[arg-type]
    assert caps.of(1) == BrokerApis(1, RELEASE_APIS["1.1"])
    assert caps.of(2) == BrokerApis(2, RELEASE_APIS["0.10.2"])
    third = caps.of(3)
    assert third is not None and third.ranges is None and "no PLAINTEXT or SASL_PLAINTEXT" in (third.problem or "")
    assert caps.lacking(DESCRIBE_LOG_DIRS) is not None and caps.lacking(DESCRIBE_LOG_DIRS).startswith("broker 2 ")  # type: ignore[union-attr]


def test_the_capabilities_are_read_again_when_a_broker_registers_anew(monkeypatch: pytest.MonkeyPatch) -> None:
    """A console open all day sees a rolling upgrade: a restarted broker re-registers with a new timestamp."""
    import core.brokers.capabilities as capabilities

    reads: list[list[int]] = []

    def fake_read(brokers: dict[int, BrokerRegistration], timeout: float, security: object = None) -> Capabilities:
        reads.append(sorted(brokers))
        return _caps(b1="3.9", b2="3.9")

    monkeypatch.setattr(capabilities, "read_capabilities", fake_read)
    cache = capabilities.CapabilityCache(5.0, _caps(b1="3.9", b2="2.2"))
    brokers = {1: _registration(1, 9091), 2: _registration(2, 9092)}
    assert cache.get(brokers) == _caps(b1="3.9", b2="2.2")  # the preset, while nothing changes
    assert cache.get(dict(brokers)) == _caps(b1="3.9", b2="2.2") and reads == []
    restarted = {**brokers, 2: replace(brokers[2], timestamp_ms=1)}
    assert cache.get(restarted) == _caps(b1="3.9", b2="3.9") and reads == [[1, 2]]
    assert capabilities.CapabilityCache(None).get(brokers) is None  # no AdminClient: nothing is asked


def test_with_no_registered_broker_the_path_does_not_claim_every_broker_serves_the_api() -> None:
    chosen = route(Capabilities(()), CREATE_PARTITIONS, "x")
    assert (chosen.via, chosen.reason) == (
        VIA_ADMIN,
        "no broker is registered to ask: CreatePartitions through the AdminClient",
    )
