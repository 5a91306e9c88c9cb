"""A group's committed offsets through kzc's own FindCoordinator and OffsetFetch (``core.brokers.offset_fetch``):
the bytes each release is sent, the answers read, and a coordinator that moves (request-level NOT_COORDINATOR,
where librdkafka's admin client dies of SIGSEGV) found again. Real brokers answer in
tests/integration/test_groups.py."""

from __future__ import annotations

import struct

import pytest

from core.brokers.offset_fetch import (
    IN_FLIGHT,
    Coordinator,
    Retriable,
    committed_offsets,
    decode_find_coordinator,
    decode_offset_fetch,
    encode_find_coordinator,
    encode_offset_fetch,
)
from core.config import PLAINTEXT
from core.connect import HostPort
from core.errors import ConnectError, KzcError
from tests.unit.fake_broker import Received, fake_broker

# ApiVersions of OffsetFetch (9) and FindCoordinator (10), as each release lists them.
V0_10_2 = {9: (0, 2), 10: (0, 0)}
V3_9 = {9: (0, 9), 10: (0, 6)}
NOT_COORDINATOR, GROUP_AUTHORIZATION_FAILED = 16, 30


def _s(text: str | None) -> bytes:
    return struct.pack(">h", -1) if text is None else struct.pack(">h", len(text)) + text.encode()


def coordinator_answer(version: int, port: int, code: int = 0) -> bytes:
    """A FindCoordinator answer body (after the correlation id) naming node 1 at 127.0.0.1:``port``."""
    head = struct.pack(">ih", 0, code) + _s(None) if version >= 1 else struct.pack(">h", code)
    return head + struct.pack(">i", 1) + _s("127.0.0.1") + struct.pack(">i", port)


def offsets_answer(version: int, partitions: list[tuple[str, int, int, int]], code: int = 0) -> bytes:
    """An OffsetFetch answer body: (topic, partition, offset, error) rows, then the group's error code."""
    body = struct.pack(">i", 0) if version >= 3 else b""
    topics: dict[str, list[tuple[int, int, int]]] = {}
    for topic, index, offset, error in partitions:
        topics.setdefault(topic, []).append((index, offset, error))
    body += struct.pack(">i", len(topics))
    for topic, rows in topics.items():
        body += _s(topic) + struct.pack(">i", len(rows))
        for index, offset, error in rows:
            body += struct.pack(">iq", index, offset)
            body += struct.pack(">i", 7) if version >= 5 else b""
            body += _s("") + struct.pack(">h", error)
    return body + struct.pack(">h", code)


ROWS = [("orders", 0, 40, 0), ("orders", 1, -1, 0), ("clicks", 0, 12, 3)]


def test_the_requests_are_laid_out_as_the_schemas_say() -> None:
    find = encode_find_coordinator("g1", 0)
    assert struct.unpack_from(">hh", find, 4) == (10, 0) and find.endswith(_s("g1"))
    assert encode_find_coordinator("g1", 2).endswith(_s("g1") + b"\x00")  # KeyType 0: a group
    fetch = encode_offset_fetch("g1", 5)
    assert struct.unpack_from(">hh", fetch, 4) == (9, 5)
    assert fetch.endswith(_s("g1") + struct.pack(">i", -1))  # a null topic list: every committed offset
    with pytest.raises(ValueError, match="v2-v5"):
        encode_offset_fetch("g1", 1)  # needs the topics named


@pytest.mark.parametrize("version", [2, 3, 5])
def test_an_answer_gives_each_committed_offset_and_none_where_there_is_none(version: int) -> None:
    answer = struct.pack(">i", 1) + offsets_answer(version, ROWS)
    assert decode_offset_fetch(answer, version, "g1") == {("orders", 0): 40, ("orders", 1): None, ("clicks", 0): None}


def test_a_moved_coordinator_is_retriable_and_a_refusal_is_the_groups_error() -> None:
    with pytest.raises(Retriable, match="NOT_COORDINATOR"):
        decode_offset_fetch(struct.pack(">i", 1) + offsets_answer(5, [], NOT_COORDINATOR), 5, "g1")
    with pytest.raises(KzcError, match="GROUP_AUTHORIZATION_FAILED") as refused:
        decode_offset_fetch(struct.pack(">i", 1) + offsets_answer(5, [], GROUP_AUTHORIZATION_FAILED), 5, "g1")
    assert not isinstance(refused.value, Retriable)
    with pytest.raises(Retriable, match="COORDINATOR_NOT_AVAILABLE"):
        decode_find_coordinator(struct.pack(">i", 1) + coordinator_answer(1, 9092, 15), 1, "g1")
    answer = struct.pack(">i", 1) + coordinator_answer(0, 9092)
    assert decode_find_coordinator(answer, 0, "g1") == Coordinator(1, "127.0.0.1", 9092)


@pytest.mark.parametrize(("ranges", "versions"), [(V0_10_2, (0, 2)), (V3_9, (2, 5))])
def test_each_release_is_asked_at_the_highest_version_both_speak(
    ranges: dict[int, tuple[int, int]], versions: tuple[int, int]
) -> None:
    port = [0]
    handlers = {
        10: lambda r: coordinator_answer(r.version, port[0]),
        9: lambda r: offsets_answer(r.version, ROWS),
    }
    with fake_broker({18: (0, 0), **ranges}, handlers) as (port[0], got):
        found = committed_offsets([HostPort("127.0.0.1", port[0])], PLAINTEXT, 5.0, ["g1", "g2"])
    assert found == {g: {("orders", 0): 40, ("orders", 1): None, ("clicks", 0): None} for g in ("g1", "g2")}
    sent = [(r.api_key, r.version) for r in got]
    # One connection to find both coordinators, one to the coordinator for both groups' offsets.
    assert sent == [(18, 0), (10, versions[0]), (10, versions[0]), (18, 0), (9, versions[1]), (9, versions[1])]


def test_a_coordinator_that_moved_is_found_again_and_asked_again() -> None:
    port = [0]
    answers = iter([NOT_COORDINATOR, 0])

    def fetch(request: Received) -> bytes:
        return offsets_answer(request.version, ROWS, next(answers))

    with fake_broker({18: (0, 0), **V3_9}, {10: lambda r: coordinator_answer(r.version, port[0]), 9: fetch}) as (
        port[0],
        got,
    ):
        found = committed_offsets([HostPort("127.0.0.1", port[0])], PLAINTEXT, 5.0, ["g1"])
    assert found["g1"] == {("orders", 0): 40, ("orders", 1): None, ("clicks", 0): None}
    assert [r.api_key for r in got if r.api_key != 18] == [10, 9, 10, 9]


def test_a_refused_group_is_its_error_beside_the_others() -> None:
    port = [0]

    def fetch(request: Received) -> bytes:
        group = request.body[2 : 2 + struct.unpack_from(">h", request.body)[0]].decode()
        return offsets_answer(request.version, ROWS, GROUP_AUTHORIZATION_FAILED if group == "secret" else 0)

    with fake_broker({18: (0, 0), **V3_9}, {10: lambda r: coordinator_answer(r.version, port[0]), 9: fetch}) as (
        port[0],
        _,
    ):
        found = committed_offsets([HostPort("127.0.0.1", port[0])], PLAINTEXT, 5.0, ["open", "secret"])
    assert found["open"] == {("orders", 0): 40, ("orders", 1): None, ("clicks", 0): None}
    secret = found["secret"]
    assert isinstance(secret, KzcError) and "GROUP_AUTHORIZATION_FAILED" in str(secret)


def test_no_bootstrap_server_answering_is_a_connect_error() -> None:
    with fake_broker(None) as (port, _), pytest.raises(ConnectError, match="no bootstrap server answered"):
        committed_offsets([HostPort("127.0.0.1", port)], PLAINTEXT, 2.0, ["g1"])


def test_many_groups_pipelined_on_one_connection_each_get_their_own_answer() -> None:
    # More groups than IN_FLIGHT: requests are written ahead, answers read in order, each mapped to its group.
    port = [0]
    groups = [f"g{n}" for n in range(IN_FLIGHT * 2 + 5)]

    def fetch(request: Received) -> bytes:
        group = request.body[2 : 2 + struct.unpack_from(">h", request.body)[0]].decode()
        return offsets_answer(request.version, [("orders", 0, int(group[1:]), 0)])

    with fake_broker({18: (0, 0), **V3_9}, {10: lambda r: coordinator_answer(r.version, port[0]), 9: fetch}) as (
        port[0],
        got,
    ):
        found = committed_offsets([HostPort("127.0.0.1", port[0])], PLAINTEXT, 10.0, groups)
    assert found == {g: {("orders", 0): int(g[1:])} for g in groups}
    assert [r.api_key for r in got].count(18) == 2  # one connection to find, one to fetch
