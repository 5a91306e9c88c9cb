"""Each partition's latest offset (its high watermark) from its leader: ListOffsets over kzc's own socket.

Why kzc's own request: the rates of ``core.traffic`` need one request per broker per tick for every partition
it leads; librdkafka's ``list_offsets`` fans out per partition and its client costs a metadata refresh.

Versions (``ListOffsetsRequest.json``): v1 (0.10.1, KIP-79) asks one offset per partition by timestamp; v2
(0.11) adds the isolation level and the response's throttle time; v3 is v2; v4 (2.1) the current leader epoch
(request) and the leader epoch (response); v5 is v4 (a new error code); v6 (2.8) is the first flexible
version; v7 (3.0) is v6 (max timestamp). kzc speaks v1-v7 and asks for timestamp -1 (LATEST) with isolation
READ_UNCOMMITTED: the leader answers its high watermark (``UnifiedLog.fetchOffsetByTimestamp``). Only the leader
answers for a partition; any other broker says NOT_LEADER_OR_FOLLOWER for it, so the request goes to the
leader ZooKeeper names.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from core.brokers.apiversions import LIST_OFFSETS, NoVersion, no_listener, request
from core.brokers.codec import Decoder, Encoder, FixedRow
from core.brokers.wire import frame
from core.config import KafkaSecurity
from core.kafka.topic_partition import TopicPartition

VERSIONS = (1, 7)
_NEEDS = "one offset per partition by timestamp (v1, Kafka 0.10.1+)"
_FIRST_FLEXIBLE = 6
_LATEST = -1
# Error codes a partition may carry (``Errors.java``); others are shown by number.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    5: "LEADER_NOT_AVAILABLE",
    6: "NOT_LEADER_OR_FOLLOWER",
    29: "TOPIC_AUTHORIZATION_FAILED",
    45: "OFFSET_NOT_AVAILABLE",
    56: "KAFKA_STORAGE_ERROR",
    74: "FENCED_LEADER_EPOCH",
    75: "UNKNOWN_LEADER_EPOCH",
}
# partition, error, timestamp, offset (v1-v3); + leader epoch (v4+): one per partition, read at once
_ANSWER = FixedRow("int32", "int16", "int64", "int64")
_ANSWER_EPOCH = FixedRow("int32", "int16", "int64", "int64", "int32")


def encode_list_offsets(partitions: Mapping[str, Sequence[int]], version: int) -> bytes:
    """The framed request (size prefix included) at ``version`` (1-7): the latest offset of ``partitions``."""
    if not VERSIONS[0] <= version <= VERSIONS[1]:
        raise ValueError(f"kzc encodes ListOffsets v{VERSIONS[0]}-v{VERSIONS[1]}, not v{version}")
    flexible = version >= _FIRST_FLEXIBLE
    out = Encoder(flexible).int32(-1)  # replica id: a client, not a follower
    if version >= 2:
        out.int8(0)  # READ_UNCOMMITTED: the high watermark, not the last stable offset

    def partition(e: Encoder, index: int) -> None:
        e.int32(index)
        if version >= 4:
            e.int32(-1)  # current leader epoch: not known, not checked
        e.int64(_LATEST)

    out.array(list(partitions.items()), lambda e, item: e.string(item[0]).array(list(item[1]), partition))
    return frame(LIST_OFFSETS.key, version, out.body(), flexible)


def decode_list_offsets(body: bytes, version: int) -> tuple[dict[TopicPartition, int], dict[TopicPartition, int]]:
    """A ListOffsets response body at ``version``: ({(topic, partition): offset}, {(topic, partition): error
    code}) for the partitions answered.

    Raises:
        ValueError: not a ListOffsets response of that version.
    """
    flexible = version >= _FIRST_FLEXIBLE
    answer = _ANSWER_EPOCH if version >= 4 else _ANSWER
    d = Decoder(body, flexible)
    offsets: dict[TopicPartition, int] = {}
    errors: dict[TopicPartition, int] = {}

    def topic(_d: Decoder) -> None:
        name = d.string() or ""
        for fields in d.rows(answer) or ():
            partition, error, offset = fields[0], fields[1], fields[3]
            if error:
                errors[(name, partition)] = error
            else:
                offsets[(name, partition)] = offset

    try:
        d.header()
        if version >= 2:
            d.int32()  # throttle time
        d.array(topic)
    except ValueError as exc:
        raise ValueError(f"not a ListOffsets v{version} response: {exc}") from None
    return offsets, errors


def error_name(code: int) -> str:
    """``NOT_LEADER_OR_FOLLOWER``, or ``error code N`` for one kzc does not name."""
    return ERROR_NAMES.get(code, f"error code {code}")


@dataclass(frozen=True)
class BrokerOffsets:
    """The latest offsets of the partitions one broker was asked for (as their leader), answered at
    ``read_ms``; ``offsets`` None with the reason (``unknown``) when the broker could not be asked or did not
    answer. ``errors``: partitions it answered with an error, by name."""

    broker: int
    read_ms: int
    offsets: Mapping[TopicPartition, int] | None = None
    errors: Mapping[TopicPartition, str] = field(default_factory=dict)
    unknown: str | None = None
    version: int | None = None


def latest_offsets(
    host: str,
    port: int,
    partitions: Mapping[str, Sequence[int]],
    timeout: float,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> tuple[int, dict[TopicPartition, int], dict[TopicPartition, int]]:
    """One ListOffsets to the broker at ``host:port`` for ``partitions``: (version, offsets, error codes).

    Raises:
        NoVersion: the broker serves no ListOffsets v1+ (nothing was sent).
        OSError: connection refused, closed or timed out. ValueError: an answer kzc cannot parse.
    """
    version, body = request(
        host,
        port,
        timeout,
        LIST_OFFSETS,
        VERSIONS,
        lambda v: encode_list_offsets(partitions, v),
        who,
        security,
    )
    offsets, errors = decode_list_offsets(body, version)
    return version, offsets, errors


def read_broker_offsets(
    broker: int,
    endpoint: tuple[str, int] | None,
    partitions: Mapping[str, Sequence[int]],
    timeout: float,
    security: KafkaSecurity | None = None,
) -> BrokerOffsets:
    """``latest_offsets`` of one broker, never raising: unknown with the reason instead. ``endpoint``: its
    (host, port) of the ``security`` protocol, None when it has none (or is not registered)."""
    who = f"broker {broker}"
    if endpoint is None:
        return BrokerOffsets(broker, _now_ms(), unknown=no_listener(LIST_OFFSETS, who, security))
    if not partitions:
        return BrokerOffsets(broker, _now_ms(), {})
    host, port = endpoint
    try:
        version, offsets, errors = latest_offsets(host or "127.0.0.1", port, partitions, timeout, who, security)
    except NoVersion as exc:
        return BrokerOffsets(broker, _now_ms(), unknown=str(exc))
    except (OSError, ValueError) as exc:
        return BrokerOffsets(broker, _now_ms(), unknown=f"{who}: ListOffsets to {host}:{port} failed: {exc}")
    named = {key: error_name(code) for key, code in errors.items()}
    return BrokerOffsets(broker, _now_ms(), offsets, named, version=version)


def read_offsets(
    endpoints: Mapping[int, tuple[str, int] | None],
    partitions: Mapping[int, Mapping[str, Sequence[int]]],
    timeout: float,
    parallel: int = 8,
    security: KafkaSecurity | None = None,
) -> dict[int, BrokerOffsets]:
    """``read_broker_offsets`` of every broker of ``partitions`` (what each leads) at once, ``parallel``
    sockets at a time."""
    if not partitions:
        return {}

    def one(broker: int) -> BrokerOffsets:
        return read_broker_offsets(broker, endpoints.get(broker), partitions[broker], timeout, security)

    with ThreadPoolExecutor(max_workers=min(parallel, len(partitions)), thread_name_prefix="kzc-offsets") as pool:
        return dict(zip(partitions, pool.map(one, partitions), strict=True))


def _now_ms() -> int:
    return int(time.time() * 1000)
