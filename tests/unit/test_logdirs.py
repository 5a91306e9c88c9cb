"""core.brokers.logdirs: every log dir of a DescribeLogDirs answer (path, error, replicas), the null topic list
that asks for every replica, and one broker's log dirs or why they are unknown (loopback stand-ins of each
release, ``tests/unit/fake_broker.py``)."""

from __future__ import annotations

import struct

import pytest

from core.brokers.logdirs import (
    KAFKA_STORAGE_ERROR,
    BrokerLogDirs,
    LogDir,
    ReplicaLog,
    decode_log_dirs,
    encode_describe_log_dirs,
    read_broker_log_dirs,
    read_log_dirs,
)
from core.brokers.wire import CLIENT_ID, CORRELATION
from tests.unit.fake_broker import RELEASE_APIS, Received, fake_broker, log_dirs_answer


def _dir(error: int, path: str, topic: str, entries: list[tuple[int, int, int]]) -> bytes:
    partitions = b"".join(struct.pack(">iqqb", p, size, 0, future) for p, size, future in entries)
    raw = path.encode()
    topics = struct.pack(">i", 1) + struct.pack(">h", len(topic)) + topic.encode() + struct.pack(">i", len(entries))
    return struct.pack(">h", error) + struct.pack(">h", len(raw)) + raw + (topics + partitions if entries else
                                                                           struct.pack(">i", 0))  # fmt: skip


def _answer(*dirs: bytes) -> bytes:
    return struct.pack(">ii", 0, len(dirs)) + b"".join(dirs)


def _two_dirs(request: Received) -> bytes:
    """/a holds orders-0 (100 bytes) and a future replica of orders-1; /b is offline."""
    if request is None or request.version < 2:
        return _answer(_dir(0, "/a", "orders", [(0, 100, 0), (1, 7, 1)]), _dir(KAFKA_STORAGE_ERROR, "/b", "", []))
    dirs = decode_log_dirs(struct.pack(">i", CORRELATION) + _two_dirs(None))  # type: ignore[arg-type]
    return log_dirs_answer(request.version, dirs)


def test_a_null_topic_list_asks_for_every_replica() -> None:
    frame = encode_describe_log_dirs(None, 1)
    assert frame.endswith(CLIENT_ID.encode() + struct.pack(">i", -1))


def test_every_dir_is_decoded_with_its_path_error_and_replicas() -> None:
    dirs = decode_log_dirs(struct.pack(">i", CORRELATION) + _two_dirs(None))  # type: ignore[arg-type]
    assert dirs == (
        LogDir("/a", 0, (ReplicaLog("orders", 0, 100, 0, False), ReplicaLog("orders", 1, 7, 0, True))),
        LogDir("/b", KAFKA_STORAGE_ERROR, ()),
    )
    assert dirs[0].size == 100  # the future replica is not counted
    assert dirs[1].offline and dirs[1].error_name == "KAFKA_STORAGE_ERROR"
    assert dirs[0].error_name is None and not dirs[0].offline


def test_a_broker_names_its_offline_dir_and_the_replicas_in_no_live_dir() -> None:
    with fake_broker(RELEASE_APIS["3.9"], {35: _two_dirs}) as (port, received):
        read = read_broker_log_dirs(2, ("127.0.0.1", port), None, 5.0, now_ms=1000)
    assert [(r.api_key, r.version) for r in received] == [(18, 0), (35, 4)]
    assert read.unknown is None and read.read_ms == 1000 and read.whole
    assert [d.path for d in read.offline_dirs] == ["/b"]
    assert read.total == 100 and read.sizes() == {("orders", 0): 100}
    # orders-1 is only a future replica there: it is in no live dir, as orders-2 (on /b before it failed)
    assert read.missing([("orders", 0), ("orders", 1), ("orders", 2)]) == [("orders", 1), ("orders", 2)]
    assert read.dir_of(("orders", 0)) == "/a" and read.dir_of(("orders", 2)) is None


def test_a_0_11_broker_is_unknown_with_the_release_that_brought_describe_log_dirs() -> None:
    with fake_broker(RELEASE_APIS["0.10.2"]) as (port, received):
        read = read_broker_log_dirs(1, ("127.0.0.1", port), None, 5.0, now_ms=1)
    assert read.dirs is None and read.total is None and read.missing([("t", 0)]) == []
    assert read.unknown is not None and "broker 1 has no DescribeLogDirs (Kafka 1.0.0+" in read.unknown
    assert [r.api_key for r in received] == [18]


def test_no_plaintext_listener_and_no_answer_are_unknown_with_the_reason() -> None:
    assert (
        read_broker_log_dirs(3, None, None, 1.0, 0).unknown
        == "kzc's own requests (DescribeLogDirs) need a PLAINTEXT listener; broker 3 has none"
    )
    with fake_broker(RELEASE_APIS["3.9"]) as (port, _):
        pass  # closed: nothing listens on the port any more
    read = read_log_dirs({4: ("127.0.0.1", port)}, None, 1.0, 0)[4]
    assert read.dirs is None and read.unknown is not None
    assert read.unknown.startswith(f"broker 4: DescribeLogDirs to 127.0.0.1:{port} failed")


def test_an_empty_list_asks_only_for_the_dirs() -> None:
    read = BrokerLogDirs(1, 0, (LogDir("/a", 0, ()),), whole=False)
    assert read.total == 0 and read.offline_dirs == ()


def test_v4_answers_carry_each_volume_s_total_and_usable_bytes() -> None:
    # As a 3.3+ broker writes it: header tags, throttle, top-level error, one dir holding orders-0 (100 bytes),
    # the volume's total and usable bytes, then the tag buffers.
    replica = struct.pack(">iqqb", 0, 100, 0, 0) + b"\x00"
    topic = b"\x07orders" + b"\x02" + replica + b"\x00"
    log_dir = struct.pack(">h", 0) + b"\x03/a" + b"\x02" + topic + struct.pack(">qq", 1000, 400) + b"\x00"
    body = struct.pack(">i", CORRELATION) + b"\x00" + struct.pack(">ih", 0, 0) + b"\x02" + log_dir + b"\x00"
    assert decode_log_dirs(body, 4) == (LogDir("/a", 0, (ReplicaLog("orders", 0, 100, 0, False),), 1000, 400),)
    unknown = body.replace(struct.pack(">qq", 1000, 400), struct.pack(">qq", -1, -1))
    assert decode_log_dirs(unknown, 4)[0].usable_bytes is None  # -1: the broker could not read the volume


def test_a_v3_refusal_of_the_whole_request_is_not_taken_for_no_dirs() -> None:
    body = struct.pack(">i", CORRELATION) + log_dirs_answer(3, [], error=31)
    with pytest.raises(ValueError, match="^the broker refused DescribeLogDirs: CLUSTER_AUTHORIZATION_FAILED$"):
        decode_log_dirs(body, 3)


def test_the_null_topic_list_is_a_null_compact_array_when_flexible() -> None:
    assert encode_describe_log_dirs(None, 4).endswith(CLIENT_ID.encode() + b"\x00" + b"\x00" + b"\x00")
