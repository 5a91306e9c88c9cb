"""core.brokers.offsets: ListOffsets for the latest offset of every partition a broker leads, in one request,
at the version each release serves (v1 on 0.10.2 to v7 on 3.9), and a broker that cannot answer is unknown
with why (loopback stand-ins of each release, ``tests/unit/fake_broker.py``)."""

from __future__ import annotations

import struct

import pytest

from core.brokers.offsets import decode_list_offsets, encode_list_offsets, read_broker_offsets, read_offsets
from core.brokers.wire import CLIENT_ID, CORRELATION
from tests.unit.fake_broker import RELEASE_APIS, Received, fake_broker, list_offsets_answer

ORDERS = {"orders": [0, 1, 2]}


def _answer(request: Received) -> bytes:
    """orders-0 at 10, orders-1 at 0, orders-2 moved away (NOT_LEADER_OR_FOLLOWER)."""
    return list_offsets_answer(request.version, {("orders", 0): 10, ("orders", 1): 0}, {("orders", 2): 6})


def test_v1_asks_the_latest_offset_of_every_partition_in_one_request() -> None:
    frame = encode_list_offsets({"orders": [0, 1]}, 1)
    header = struct.pack(">ihhih", len(frame) - 4, 2, 1, CORRELATION, len(CLIENT_ID)) + CLIENT_ID.encode()
    body = struct.pack(">ii", -1, 1) + struct.pack(">h", 6) + b"orders" + struct.pack(">i", 2)
    body += struct.pack(">iq", 0, -1) + struct.pack(">iq", 1, -1)
    assert frame == header + body


def test_v4_adds_the_isolation_level_and_an_unknown_leader_epoch() -> None:
    frame = encode_list_offsets({"orders": [0]}, 4)
    body = struct.pack(">ib", -1, 0) + struct.pack(">i", 1) + struct.pack(">h", 6) + b"orders"
    body += struct.pack(">i", 1) + struct.pack(">iiq", 0, -1, -1)
    assert frame.endswith(body)


def test_v6_is_flexible() -> None:
    frame = encode_list_offsets({"orders": [0]}, 6)
    # header v2 (tag buffer), replica id, isolation, compact array (1+1) of compact string "orders" (6+1)
    body = b"\x00" + struct.pack(">ib", -1, 0) + b"\x02" + b"\x07orders" + b"\x02" + struct.pack(">iiq", 0, -1, -1)
    assert frame.endswith(body + b"\x00" + b"\x00" + b"\x00")  # partition, topic and request tag buffers


def test_kzc_never_encodes_list_offsets_outside_v1_v7() -> None:
    for version in (0, 8):
        with pytest.raises(ValueError, match="v1-v7"):
            encode_list_offsets(ORDERS, version)


@pytest.mark.parametrize(("release", "version"), [("0.10.2", 1), ("1.1", 2), ("2.2", 5), ("2.6", 5), ("3.9", 7)])
def test_one_request_per_broker_at_the_version_it_serves(release: str, version: int) -> None:
    with fake_broker(RELEASE_APIS[release], {2: _answer}) as (port, received):
        read = read_broker_offsets(1, ("127.0.0.1", port), ORDERS, 5.0)
    assert [(r.api_key, r.version) for r in received] == [(18, 0), (2, version)]
    assert read.offsets == {("orders", 0): 10, ("orders", 1): 0}
    assert read.errors == {("orders", 2): "NOT_LEADER_OR_FOLLOWER"}
    assert read.unknown is None and read.version == version


def test_an_answer_cut_short_is_not_taken_for_offsets() -> None:
    body = struct.pack(">i", CORRELATION) + list_offsets_answer(1, {("orders", 0): 10}, {})
    assert decode_list_offsets(body, 1) == ({("orders", 0): 10}, {})
    with pytest.raises(ValueError, match="not a ListOffsets v1 response"):
        decode_list_offsets(body[:-4], 1)


def test_no_listener_no_answer_and_a_broker_before_list_offsets_v1_are_unknown_with_the_reason() -> None:
    assert read_broker_offsets(3, None, ORDERS, 1.0).unknown == (
        "kzc's own requests (ListOffsets) need a PLAINTEXT listener; broker 3 has none"
    )
    with fake_broker(RELEASE_APIS["3.9"]) as (port, _):
        pass  # closed: nothing listens on the port any more
    read = read_offsets({4: ("127.0.0.1", port)}, {4: ORDERS}, 1.0)[4]
    assert read.offsets is None and read.unknown is not None
    assert read.unknown.startswith(f"broker 4: ListOffsets to 127.0.0.1:{port} failed")
    with fake_broker({18: (0, 0), 2: (0, 0)}) as (port, received):  # a 0.10.0 broker: ListOffsets v0 only
        old = read_broker_offsets(5, ("127.0.0.1", port), ORDERS, 5.0)
    assert old.offsets is None and old.unknown == "broker 5 serves ListOffsets v0-v0, kzc speaks v1-v7"
    assert [r.api_key for r in received] == [18]


def test_a_broker_leading_nothing_is_not_asked() -> None:
    read = read_broker_offsets(1, ("127.0.0.1", 1), {}, 1.0)
    assert read.offsets == {} and read.unknown is None
