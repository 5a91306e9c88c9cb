"""A consumer group's committed offsets as kzc's own requests: FindCoordinator (10), then OffsetFetch (9) for every
partition the group committed (a null topic list, KIP-88, Kafka 0.10.2+), on a plain socket.

Not librdkafka's ListConsumerGroupOffsets: when the coordinator answers OffsetFetch with a request-level
NOT_COORDINATOR (the group's coordinator moved: a broker died or came back), librdkafka's admin client hands the
error to a consumer-group handle it does not have and dies of SIGSEGV (``rd_kafka_cgrp_op`` with a null group,
confluentinc/librdkafka#5040, still in 2.16): the console died so in the middle of a broker outage. Here the error
is retried on the coordinator found again, until the deadline.

Schemas (``FindCoordinator{Request,Response}.json``, ``OffsetFetch{Request,Response}.json``), classic versions only:
- FindCoordinator v0-v2: ``Key`` STRING, ``KeyType`` INT8 (v1+, 0: a group); the answer: ThrottleTimeMs (v1+),
  ErrorCode, ErrorMessage (v1+), NodeId, Host, Port.
- OffsetFetch v2-v5: ``GroupId``, ``Topics`` (null: every partition with a committed offset); the answer:
  ThrottleTimeMs (v3+), ``Topics`` [Name, ``Partitions`` [PartitionIndex, CommittedOffset, CommittedLeaderEpoch
  (v5+), Metadata, ErrorCode]], ErrorCode (the group's).
"""

from __future__ import annotations

import itertools
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from core.brokers.apiversions import FIND_COORDINATOR, OFFSET_FETCH, BrokerConnection, NoVersion, open_broker
from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame, receive
from core.config import KafkaSecurity
from core.connect import HostPort
from core.errors import ConnectError, KzcError
from core.kafka.topic_partition import TopicPartition

FIND_COORDINATOR_VERSIONS = (0, 2)
OFFSET_FETCH_VERSIONS = (2, 5)
GROUP_KEY = 0  # FindCoordinator's KeyType of a consumer group
# The coordinator is loading, gone or elsewhere (Errors.java): find it again and ask again, until the deadline.
RETRIABLE = {14: "COORDINATOR_LOAD_IN_PROGRESS", 15: "COORDINATOR_NOT_AVAILABLE", 16: "NOT_COORDINATOR"}
ERROR_NAMES = {**RETRIABLE, 30: "GROUP_AUTHORIZATION_FAILED", 24: "INVALID_GROUP_ID", 69: "GROUP_ID_NOT_FOUND"}
RETRY_PAUSE_S = 0.2
IN_FLIGHT = 32  # OffsetFetch requests written ahead on one connection
ALL_OFFSETS = "every offset of a group at once (v2, Kafka 0.10.2+)"

Committed = dict[TopicPartition, int | None]
T = TypeVar("T")


@dataclass(frozen=True)
class Coordinator:
    """A group's coordinator as FindCoordinator named it."""

    node: int
    host: str
    port: int


class Retriable(Exception):
    """The coordinator answered with an error worth finding it again for."""


def encode_find_coordinator(group: str, version: int) -> bytes:
    """The framed FindCoordinator request for ``group``'s coordinator."""
    if not FIND_COORDINATOR_VERSIONS[0] <= version <= FIND_COORDINATOR_VERSIONS[1]:
        raise ValueError(f"kzc encodes FindCoordinator v0-v2, not v{version}")
    body = Encoder(False).string(group)
    if version >= 1:
        body.int8(GROUP_KEY)
    return frame(FIND_COORDINATOR.key, version, body.body())


def decode_find_coordinator(body: bytes, version: int, group: str) -> Coordinator:
    """The coordinator of a FindCoordinator answer.

    Raises:
        Retriable: no coordinator yet (loading, not available). KzcError: another error. ValueError: not such
            an answer.
    """
    d = Decoder(body, False).header()
    if version >= 1:
        d.int32()  # throttle
    code = d.int16()
    message = d.string() if version >= 1 else None
    node, host, port = d.int32(), d.string() or "", d.int32()
    if code in RETRIABLE:
        raise Retriable(_error("FindCoordinator", group, code, message))
    if code:
        raise KzcError(_error("FindCoordinator", group, code, message))
    return Coordinator(node, host, port)


def encode_offset_fetch(group: str, version: int) -> bytes:
    """The framed OffsetFetch request for every committed offset of ``group``."""
    if not OFFSET_FETCH_VERSIONS[0] <= version <= OFFSET_FETCH_VERSIONS[1]:
        raise ValueError(f"kzc encodes OffsetFetch v2-v5, not v{version}")
    return frame(OFFSET_FETCH.key, version, Encoder(False).string(group).null_array().body())


def decode_offset_fetch(body: bytes, version: int, group: str) -> Committed:
    """Each partition's committed offset in an OffsetFetch answer (``None``: none, or that partition's error).

    Raises:
        Retriable: the coordinator moved or is loading. KzcError: the group's error. ValueError: not such an answer.
    """
    d = Decoder(body, False).header()
    if version >= 3:
        d.int32()  # throttle

    def partition(r: Decoder) -> tuple[int, int, int]:
        index, offset = r.int32(), r.int64()
        if version >= 5:
            r.int32()  # the leader epoch
        r.string()  # metadata
        return index, offset, r.int16()

    topics = d.array(lambda t: (t.string() or "", t.array(partition) or [])) or []
    code = d.int16()
    if code in RETRIABLE:
        raise Retriable(_error("OffsetFetch", group, code, None))
    if code:
        raise KzcError(_error("OffsetFetch", group, code, None))
    return {
        (topic, index): (offset if offset >= 0 and not error else None)
        for topic, partitions in topics
        for index, offset, error in partitions
    }


def committed_offsets(
    servers: Sequence[HostPort], security: KafkaSecurity, timeout: float, groups: Sequence[str]
) -> dict[str, Committed | KzcError]:
    """Each group's committed offsets, or the error its coordinator gave (one coordinator's groups on one
    connection; the coordinators asked side by side). A coordinator that moves meanwhile is found again until
    ``timeout`` has passed; then that group maps to the error.

    Raises:
        ConnectError: no bootstrap server answered FindCoordinator at all.
    """
    deadline = time.monotonic() + timeout
    found: dict[str, Committed | KzcError] = {}
    pending = list(dict.fromkeys(groups))
    while pending:
        coordinators, errors, retry = find_coordinators(servers, security, deadline, pending)
        found.update(errors)
        by_coordinator: dict[Coordinator, list[str]] = {}
        for group, coordinator in coordinators.items():
            by_coordinator.setdefault(coordinator, []).append(group)
        with ThreadPoolExecutor(max(1, len(by_coordinator)), thread_name_prefix="kzc-offset-fetch") as pool:
            answers = pool.map(lambda item: fetch_offsets(item[0], item[1], security, deadline), by_coordinator.items())
            for done, again in answers:
                found.update(done)
                retry += again
        if retry and time.monotonic() + RETRY_PAUSE_S < deadline:
            time.sleep(RETRY_PAUSE_S)  # the coordinator moves within a moment: ask where it is again then
            pending = retry
        else:
            found.update({g: KzcError(f"group {g}: its coordinator did not settle within {timeout:g}s") for g in retry})
            pending = []
    return found


def find_coordinators(
    servers: Sequence[HostPort], security: KafkaSecurity, deadline: float, groups: Sequence[str]
) -> tuple[dict[str, Coordinator], dict[str, KzcError], list[str]]:
    """Each group's coordinator, through the first bootstrap server that answers (pipelined); the groups refused
    one, and those whose coordinator is not available yet."""
    failures: list[str] = []
    for server in servers:
        try:
            with open_broker(server.host, server.port, _left(deadline), str(server), security) as broker:
                version = broker.negotiate(FIND_COORDINATOR, FIND_COORDINATOR_VERSIONS)
                return ask_each(
                    broker,
                    groups,
                    partial(encode_find_coordinator, version=version),
                    partial(decode_find_coordinator, version=version),
                )
        except NoVersion as exc:
            failures.append(str(exc))
        except (OSError, ValueError) as exc:
            failures.append(f"{server}: {exc}")
    raise ConnectError("no bootstrap server answered FindCoordinator: " + "; ".join(failures))


def fetch_offsets(
    coordinator: Coordinator, groups: Sequence[str], security: KafkaSecurity, deadline: float
) -> tuple[dict[str, Committed | KzcError], list[str]]:
    """OffsetFetch for each of ``groups`` on one connection to their coordinator, pipelined: the answers, and the
    groups to find the coordinator of again."""
    who = f"broker {coordinator.node} ({coordinator.host}:{coordinator.port})"
    try:
        with open_broker(coordinator.host, coordinator.port, _left(deadline), who, security) as broker:
            version = broker.negotiate(OFFSET_FETCH, OFFSET_FETCH_VERSIONS, ALL_OFFSETS)
            answers, errors, again = ask_each(
                broker,
                groups,
                partial(encode_offset_fetch, version=version),
                partial(decode_offset_fetch, version=version),
            )
            return {**answers, **errors}, again
    except NoVersion as exc:
        return {g: KzcError(str(exc)) for g in groups}, []
    except (OSError, ValueError):  # the coordinator went away mid-way: find where its groups are now
        return {}, list(groups)


def ask_each(
    broker: BrokerConnection,
    groups: Sequence[str],
    encode: Callable[[str], bytes],
    decode: Callable[..., T],
) -> tuple[dict[str, T], dict[str, KzcError], list[str]]:
    """Each group's answer to ``encode(group)``, pipelined, as ``decode(answer, group=group)`` reads it; the groups the
    broker refused, and those to ask again (a coordinator moved, loading or not available yet)."""
    answers: dict[str, T] = {}
    errors: dict[str, KzcError] = {}
    again: list[str] = []
    for group, answer in pipelined(broker, groups, encode):
        try:
            answers[group] = decode(answer, group=group)
        except Retriable:
            again.append(group)
        except KzcError as exc:
            errors[group] = exc
    return answers, errors, again


def pipelined(
    broker: BrokerConnection, groups: Iterable[str], request: Callable[[str], bytes]
) -> Iterator[tuple[str, bytes]]:
    """Each group's answer to ``request(group)``, with up to IN_FLIGHT requests written ahead of the answers (a broker
    answers one connection's requests in order): a thousand groups cost no thousand round trips, and bounded, so
    neither side's buffers fill while the other waits."""
    sent: deque[str] = deque()
    ahead = iter(groups)
    for group in itertools.islice(ahead, IN_FLIGHT):
        broker.sock.sendall(request(group))
        sent.append(group)
    while sent:
        group = sent.popleft()
        answer = receive(broker.sock, broker.who)
        following = next(ahead, None)
        if following is not None:
            broker.sock.sendall(request(following))
            sent.append(following)
        yield group, answer


def _left(deadline: float) -> float:
    return max(0.5, deadline - time.monotonic())


def _error(api: str, group: str, code: int, message: str | None) -> str:
    name = ERROR_NAMES.get(code, f"error code {code}")
    return f"{api} for group {group}: {name}" + (f" ({message})" if message else "")
