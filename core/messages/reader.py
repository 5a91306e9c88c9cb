"""Reading a topic's messages without a trace: a consumer that is assigned partitions, never subscribes, never
joins a group and never commits.

librdkafka's consumer wants a ``group.id`` even when it is only assigned partitions; kzc gives it a unique
``kzc-tail-<random>`` one that no request ever uses to join or commit (``enable.auto.commit`` and
``enable.auto.offset.store`` off, every start position explicit, no commit call), so nothing appears among
the cluster's groups.

Memory stays bounded whatever the topic holds: librdkafka prefetches at most ``queued.max.messages.kbytes``
(and ``queued.min.messages``), asks each broker for at most ``fetch.max.bytes`` and each partition for at
most ``max.partition.fetch.bytes`` (a larger message still comes whole, as Kafka's Fetch v3+ returns the
first batch even when it is larger), and ``MessageReader.poll`` hands over at most ``batch`` messages at a
time: the caller decides what it keeps.

Start positions are decided here once, from the partition's offsets when the read starts (the one place
``--from-end N``, ``--offset O`` and ``--timestamp T`` become offsets): ``--from-end N`` is N offsets back
from each partition's end, per partition, as ``kcat -o -N`` does.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from confluent_kafka import (
    TIMESTAMP_CREATE_TIME,
    TIMESTAMP_LOG_APPEND_TIME,
    Consumer,
    KafkaError,
    KafkaException,
    TopicPartition,
)

from core.brokers.client_config import HandshakeRefusals, kafka_client_config
from core.config import KafkaSecurity
from core.connect import HostPort
from core.errors import ConnectError, KafkaRuleError, UsageError

CREATE_TIME = "CreateTime"
LOG_APPEND_TIME = "LogAppendTime"
GROUP_PREFIX = "kzc-tail-"
DEFAULT_FROM_END = 10

# Bounds of what librdkafka may hold at once (see the module docstring).
FETCH_MAX_BYTES = 8 * 1024 * 1024
PARTITION_FETCH_BYTES = 1024 * 1024
QUEUED_KBYTES = 16 * 1024
QUEUED_MESSAGES = 1000
BATCH_BYTES = 8 * 1024 * 1024  # at most about this much handed over by one poll
CONSUME_STEP = 8  # messages asked of librdkafka at once
FETCH_WAIT_MS = 100  # a new message reaches a follower within this, not the broker's default 500 ms


@dataclass(frozen=True)
class Message:
    """One message as read: where it is, when, its key, headers (None: the format has none) and value."""

    topic: str
    partition: int
    offset: int
    timestamp_type: str | None  # CreateTime, LogAppendTime, None (not available: message format v0)
    timestamp_ms: int | None
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] | None
    broker: int = -1  # the partition's leader when the read started (-1: unknown), as kcat -J's ``broker``
    value_size: int | None = None  # the full size when ``value`` was cut (``cut``); None: ``value`` is whole

    @property
    def size(self) -> int:
        """The value's full size in bytes (0 for null), even after ``cut``."""
        if self.value_size is not None:
            return self.value_size
        return len(self.value) if self.value is not None else 0

    @property
    def is_cut(self) -> bool:
        """Whether ``value`` holds only the start of the value (read the message again to see it whole)."""
        return self.value_size is not None and self.value is not None and len(self.value) < self.value_size

    def cut(self, limit: int) -> Message:
        """This message with at most ``limit`` bytes of its value kept (a list keeps many; memory stays bounded)."""
        if self.value is None or len(self.value) <= limit:
            return self
        return replace(self, value=self.value[:limit], value_size=len(self.value))


@dataclass(frozen=True)
class TailRequest:
    """What to read: ``topic`` (all its partitions, or ``partition``), from where, and whether to follow."""

    topic: str
    partition: int | None = None
    from_end: int | None = None
    offset: int | None = None
    timestamp_ms: int | None = None
    follow: bool = False
    count: int | None = None  # stop after this many messages (None: at the end, or never when following)

    def __post_init__(self) -> None:
        chosen = [x for x in (self.from_end, self.offset, self.timestamp_ms) if x is not None]
        if len(chosen) > 1:
            raise UsageError("give one of --from-end, --offset and --timestamp")
        if self.from_end is not None and self.from_end < 0:
            raise UsageError(f"--from-end takes a count of messages, got {self.from_end}")
        if self.offset is not None and self.offset < 0:
            raise UsageError(f"--offset takes an offset (0 or more), got {self.offset}")
        if self.count is not None and self.count <= 0:
            raise UsageError(f"--count takes a positive number, got {self.count}")

    @property
    def start_description(self) -> str:
        """Where the read starts, as the header line says it."""
        if self.offset is not None:
            return f"from offset {self.offset}"
        if self.timestamp_ms is not None:
            return f"from the first message at or after {self.timestamp_ms} ms"
        if self.from_end == 0:
            return "from the end (new messages only)"
        return f"the last {self.effective_from_end} offsets of each partition (per partition, as kcat -o -N)"

    @property
    def effective_from_end(self) -> int:
        """``--from-end``, or the default when no start was given."""
        if self.from_end is not None:
            return self.from_end
        return DEFAULT_FROM_END


@dataclass(frozen=True)
class PartitionStart:
    """A partition's offsets when the read started, and where it starts (``note``: why it moved)."""

    partition: int
    low: int
    high: int
    start: int
    leader: int = -1
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"partition", "low", "high", "start", "leader", "note"}``."""
        return {
            "partition": self.partition,
            "low": self.low,
            "high": self.high,
            "start": self.start,
            "leader": self.leader,
            "note": self.note,
        }


def start_offset(request: TailRequest, low: int, high: int, by_time: int | None) -> tuple[int, str | None]:
    """Where a partition with offsets ``low``..``high`` starts, and why it moved when it did.

    Args:
        by_time: the offset ListOffsets found for ``--timestamp`` (-1 or None: no message at or after it).
    """
    if request.offset is not None:
        if request.offset < low:
            return low, f"offset {request.offset} is before the log start {low}: starting there"
        if request.offset > high:
            return high, f"offset {request.offset} is past the end {high}: starting at the end"
        return request.offset, None
    if request.timestamp_ms is not None:
        if by_time is None or by_time < 0:
            return high, "no message at or after that time: starting at the end"
        return by_time, None
    return max(low, high - request.effective_from_end), None


def consumer_config(bootstrap: Sequence[HostPort], security: KafkaSecurity, timeout: float) -> dict[str, Any]:
    """The consumer's settings: no group join, no commits, bounded prefetch (see the module docstring)."""
    return kafka_client_config(bootstrap, security, {
        "group.id": GROUP_PREFIX + secrets.token_hex(6),
        "enable.auto.commit": False,
        "enable.auto.offset.store": False,
        "enable.partition.eof": True,
        "auto.offset.reset": "earliest",  # only when a start offset vanished (retention) mid-read
        "fetch.max.bytes": FETCH_MAX_BYTES,
        "max.partition.fetch.bytes": PARTITION_FETCH_BYTES,
        "receive.message.max.bytes": FETCH_MAX_BYTES + 1024 * 1024,
        "queued.max.messages.kbytes": QUEUED_KBYTES,
        "queued.min.messages": QUEUED_MESSAGES,
        "fetch.wait.max.ms": FETCH_WAIT_MS,
        "socket.connection.setup.timeout.ms": int(min(max(timeout, 1.0), 30.0) * 1000),
        "check.crcs": True,
        "logger": _quiet_logger(),
    })  # fmt: skip


def _quiet_logger() -> logging.Logger:
    """librdkafka's log lines go to ``kzc.kafka`` (as the AdminClient's do), never to the terminal."""
    log = logging.getLogger("kzc.kafka")
    log.addHandler(logging.NullHandler())
    log.propagate = False
    return log


class MessageReader:
    """A read of one topic's partitions: ``plan`` the starts, ``start``, then ``poll`` until ``finished``.

    One thread uses a reader at a time (the CLI's command thread, or one console worker); ``close`` from that
    thread. Ctrl+C: the caller stops polling (each poll waits at most its ``timeout``) and closes.
    """

    def __init__(self, bootstrap: Sequence[HostPort], *, security: KafkaSecurity, timeout: float = 15.0) -> None:
        self.timeout = timeout
        self.group_id: str
        config = consumer_config(bootstrap, security, timeout)
        self._refusals = HandshakeRefusals()
        config["error_cb"] = self._refusals
        self.group_id = str(config["group.id"])
        try:
            self._consumer = Consumer(config)
        except (KafkaException, ValueError) as exc:
            raise ConnectError(f"cannot make a Kafka consumer: {exc}") from exc
        self._open: set[int] = set()  # partitions not yet at their end (not following)
        self._follow = False
        self._left: int | None = None
        self._leaders: dict[int, int] = {}
        self._closed = False
        self._largest = BATCH_BYTES  # bytes: the largest message seen lately (the first step takes one)

    def partitions(self, topic: str) -> dict[int, int]:
        """The topic's partitions as the brokers serve them, each with its leader (-1: none).

        Raises:
            KafkaRuleError: the brokers do not know the topic; ConnectError: no answer.
        """
        try:
            metadata = self._consumer.list_topics(topic, timeout=self.timeout)
        except KafkaException as exc:
            self._consumer.poll(0)  # serves the error callback: a refused login is said, not a transport failure
            if (refused := self._refusals.sentence()) is not None:
                raise ConnectError(f"cannot read {topic}: the Kafka brokers {refused}") from exc
            raise ConnectError(f"the brokers did not answer a metadata request for {topic}: {exc}") from exc
        found = metadata.topics.get(topic)
        if found is None or (found.error is not None and found.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
            raise KafkaRuleError(f"Topic '{topic}' does not exist.", "UnknownTopicOrPartitionException")
        if found.error is not None and not found.partitions:
            raise ConnectError(f"the brokers cannot serve {topic}: {found.error.str()}")
        return {p: meta.leader for p, meta in sorted(found.partitions.items())}

    def plan(self, request: TailRequest) -> list[PartitionStart]:
        """Each partition's offsets now and where the read starts (see ``start_offset``).

        Raises:
            UsageError: ``--partition`` the topic does not have; KafkaRuleError, ConnectError: as ``partitions``.
        """
        leaders = self.partitions(request.topic)
        if request.partition is not None:
            if request.partition not in leaders:
                raise UsageError(f"topic {request.topic} has no partition {request.partition} (it has {len(leaders)})")
            leaders = {request.partition: leaders[request.partition]}
        self._leaders = leaders
        by_time: dict[int, int] = {}
        if request.timestamp_ms is not None:
            asked = [TopicPartition(request.topic, p, request.timestamp_ms) for p in leaders]
            try:
                answered = self._consumer.offsets_for_times(asked, timeout=self.timeout)
            except KafkaException as exc:
                raise ConnectError(f"the brokers did not answer ListOffsets by time: {exc}") from exc
            by_time = {tp.partition: tp.offset for tp in answered}
        starts = []
        for partition, leader in leaders.items():
            try:
                low, high = self._consumer.get_watermark_offsets(
                    TopicPartition(request.topic, partition), timeout=self.timeout, cached=False
                )
            except KafkaException as exc:
                raise ConnectError(f"the offsets of {request.topic}-{partition} cannot be read: {exc}") from exc
            start, note = start_offset(request, low, high, by_time.get(partition))
            starts.append(PartitionStart(partition, low, high, start, leader, note))
        return starts

    def start(self, request: TailRequest, starts: Sequence[PartitionStart]) -> None:
        """Assign the partitions at their start offsets (no subscribe, no group join)."""
        self._follow = request.follow
        self._left = request.count
        self._open = {s.partition for s in starts if request.follow or s.start < s.high}
        self._consumer.assign([TopicPartition(request.topic, s.partition, s.start) for s in starts])

    @property
    def finished(self) -> bool:
        """Every partition reached the end it had when the read started (not following), or ``count`` read."""
        if self._left is not None and self._left <= 0:
            return True
        return not self._follow and not self._open

    def poll(self, timeout: float, batch: int = 100) -> list[Message]:
        """Up to ``batch`` messages, waiting at most ``timeout`` seconds for the first.

        Raises:
            ConnectError: the consumer reported a fatal error; KafkaRuleError: a partition's error (with Kafka's
                message: not authorized, offset out of range...).
        """
        if self.finished:
            return []
        limit = batch if self._left is None else max(1, min(batch, self._left))
        raw = self._consume(limit, timeout)
        messages = []
        for item in raw:
            error = item.error()
            if error is not None:
                if error.code() == KafkaError._PARTITION_EOF:
                    if not self._follow:
                        self._open.discard(item.partition())
                    continue
                if error.fatal() or error.code() in (KafkaError._ALL_BROKERS_DOWN, KafkaError._TRANSPORT):
                    if error.fatal():
                        raise ConnectError(f"reading messages failed: {error.str()}")
                    continue  # librdkafka reconnects by itself; the caller keeps polling
                raise KafkaRuleError(f"{item.topic()}-{item.partition()}: {error.str()}", error.name())
            messages.append(self._message(item))
            if self._left is not None:
                self._left -= 1
                if self._left <= 0:
                    break
        return messages

    def _consume(self, limit: int, timeout: float) -> list[Any]:
        """Up to ``limit`` messages and at most about ``BATCH_BYTES`` of them: librdkafka hands over whatever
        arrives within the wait, so one ``consume(100)`` on a topic of 5 MiB messages held 500 MiB. Messages
        are taken at most ``CONSUME_STEP`` at a time, fewer when the largest seen lately would not fit the
        budget (so a batch holds at most the budget plus ``CONSUME_STEP`` messages)."""
        taken: list[Any] = []
        size = 0
        wait = timeout
        while len(taken) < limit and size < BATCH_BYTES:
            fits = (BATCH_BYTES - size) // max(self._largest, 1)
            step = max(1, min(limit - len(taken), CONSUME_STEP, fits))
            try:
                more = self._consumer.consume(step, wait)
            except KafkaException as exc:
                raise ConnectError(f"reading messages failed: {exc}") from exc
            if not more:
                break
            for item in more:
                weight = len(item.value() or b"") + len(item.key() or b"")
                size += weight
                self._largest = max(weight, self._largest * 15 // 16)  # forgets a big one after ~100 small
            taken += more
            wait = 0  # the first wait is the caller's; the rest takes only what is already there
        return taken

    def _message(self, item: Any) -> Message:
        kind, stamp = item.timestamp()
        timestamp_type = {TIMESTAMP_CREATE_TIME: CREATE_TIME, TIMESTAMP_LOG_APPEND_TIME: LOG_APPEND_TIME}.get(kind)
        raw_headers = item.headers()
        headers = None if raw_headers is None else tuple((str(k), v) for k, v in raw_headers)
        return Message(
            topic=str(item.topic()),
            partition=int(item.partition()),
            offset=int(item.offset()),
            timestamp_type=timestamp_type,
            timestamp_ms=int(stamp) if timestamp_type is not None else None,
            key=item.key(),
            value=item.value(),
            headers=headers,
            broker=self._leaders.get(int(item.partition()), -1),
        )

    def close(self) -> None:
        """Leave: no commit (none is configured), nothing left behind; safe to call twice."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(KafkaException, RuntimeError):
            self._consumer.close()
