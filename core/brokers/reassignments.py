"""Cancel reassignments: AlterPartitionReassignments v0 (KIP-455, Kafka 2.4+) with null replicas, over kzc's
own socket to the controller.

Why kzc's own request: confluent-kafka 2.16 (librdkafka) has no AlterPartitionReassignments, and only the
controller serves it. It goes to the controller's listener of the client's security protocol (TLS and the
SASL login of ``core.brokers.apiversions.open_broker``); without one the message names Kafka's own tool.

Only v0 exists (``AlterPartitionReassignmentsRequest.json`` "0" from 2.4.0 through 3.9). It is sent only
when the controller's ApiVersions lists it (``core.brokers.apiversions``); before 2.4 ``NoVersion`` says the
controller has none, and Kafka of those releases had no cancel at all.

Wire format (flexible version 0): request header v2 (api key 45, version 0, correlation id, client id as
an INT16-length string, no tagged fields), then ``timeout_ms`` INT32 and a compact array of topics (compact
string name, compact array of partitions: INT32 index, compact nullable INT32 array of replicas, here null;
each struct ends with an empty tag buffer). The response (header v1) holds throttle time, a top-level error
code and message, and per topic and partition an error code and message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.brokers.apiversions import ALTER_PARTITION_REASSIGNMENTS, request
from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame
from core.config import KafkaSecurity
from core.kafka.topic_partition import TopicPartition

VERSIONS = (0, 0)

# Kafka error codes seen here, with their Java exception names.
ERRORS = {
    0: "NONE",
    41: "NOT_CONTROLLER",
    29: "CLUSTER_AUTHORIZATION_FAILED",
    3: "UNKNOWN_TOPIC_OR_PARTITION",
    85: "NO_REASSIGNMENT_IN_PROGRESS",
    7: "REQUEST_TIMED_OUT",
}


@dataclass(frozen=True)
class CancelResult:
    """The controller's answer: a top-level error (code, message) and each partition's."""

    error: tuple[int, str | None]
    partitions: Mapping[TopicPartition, tuple[int, str | None]]


def encode_cancel(partitions: Sequence[TopicPartition], timeout_ms: int = 30000, version: int = 0) -> bytes:
    """The framed request (size prefix included, v0) cancelling ``partitions``."""
    if version != 0:
        raise ValueError(f"kzc encodes AlterPartitionReassignments v0, not v{version}")
    by_topic: dict[str, list[int]] = {}
    for topic, partition in partitions:
        by_topic.setdefault(topic, []).append(partition)
    body = Encoder(flexible=True).int32(timeout_ms)
    # each partition: its id, replicas null (cancel), its tag buffer (written by ``array``)
    body.array(list(by_topic.items()), lambda e, t: e.string(t[0]).array(t[1], lambda p, i: p.int32(i).int32s(None)))
    return frame(ALTER_PARTITION_REASSIGNMENTS.key, version, body.body(), flexible=True)


def decode_cancel_response(body: bytes) -> CancelResult:
    """Parse a response body (after the size prefix).

    Raises:
        ValueError: not an AlterPartitionReassignments v0 response.
    """
    reader = Decoder(body, flexible=True)

    def partition(r: Decoder) -> tuple[int, int, str | None]:
        return r.int32(), r.int16(), r.string()

    def topic(r: Decoder) -> tuple[str, list[tuple[int, int, str | None]]]:
        return r.string() or "", r.array(partition) or []

    try:
        reader.header()
        reader.int32()  # throttle time
        code = reader.int16()
        message = reader.string()
        topics = reader.array(topic) or []
        reader.tags()
    except (ValueError, IndexError) as exc:
        raise ValueError(f"not an AlterPartitionReassignments v0 response: {exc}") from None
    partitions = {(name, p): (c, text) for name, entries in topics for p, c, text in entries}
    return CancelResult((code, message), partitions)


def cancel_reassignments(
    host: str,
    port: int,
    partitions: Sequence[TopicPartition],
    timeout: float,
    who: str = "the controller",
    security: KafkaSecurity | None = None,
) -> CancelResult:
    """Send the cancellation to the controller at ``host:port`` and read its answer.

    Raises:
        NoVersion: the controller has no AlterPartitionReassignments (before 2.4): nothing was sent.
        OSError: connection refused, closed or timed out. ValueError: an answer kzc cannot parse.
    """
    timeout_ms = int(timeout * 1000)
    _, body = request(
        host,
        port,
        timeout,
        ALTER_PARTITION_REASSIGNMENTS,
        VERSIONS,
        lambda v: encode_cancel(partitions, timeout_ms, v),
        who,
        security,
    )
    return decode_cancel_response(body)
