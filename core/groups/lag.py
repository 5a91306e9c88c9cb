"""Consumer lag: the one computation every surface uses, for Kafka-stored and ZooKeeper-stored groups alike.

A partition's lag is Kafka's (``ConsumerGroupCommand.getLag``): the log-end offset (the high watermark the
brokers report) minus the committed offset, when both are known. A partition whose end offset the brokers
did not return is *unknown* (with the reason), never zero; a partition without a committed offset has no
lag (Kafka prints ``-``) and does not count in the totals. A total is ``None`` as soon as one of its
partitions is unknown; ``lag_at_least`` then says how much is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.human_time import clock_text
from core.kafka.topic_partition import TopicPartition

KAFKA = "kafka"
ZOOKEEPER = "zookeeper"


def partition_lag(committed: int | None, end: int | None) -> int | None:
    """Kafka's lag of one partition: ``end - committed`` when both are known (``None`` otherwise)."""
    if committed is None or committed < 0 or end is None or end < 0:
        return None
    return end - committed


@dataclass(frozen=True, slots=True)
class PartitionLag:
    """One partition of a group: committed and end offsets, lag, and who consumes it.

    ``unknown`` says why the lag cannot be known (the brokers did not return the end offset, the group's
    offsets could not be read); ``member`` is the consumer id owning the partition, ``None`` if none.
    """

    topic: str
    partition: int
    committed: int | None
    end: int | None
    member: str | None = None
    host: str | None = None
    client_id: str | None = None
    unknown: str | None = None

    @property
    def lag(self) -> int | None:
        """The lag (``partition_lag``), ``None`` when unknown or without a committed offset."""
        return None if self.unknown else partition_lag(self.committed, self.end)

    def to_json(self) -> dict[str, Any]:
        """``{"topic", "partition", "committed", "end", "lag", "member", "host", "client_id", "unknown"}``."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "committed": self.committed,
            "end": self.end,
            "lag": self.lag,
            "member": self.member,
            "host": self.host,
            "client_id": self.client_id,
            "unknown": self.unknown,
        }


@dataclass(frozen=True, slots=True)
class LagTotal:
    """Lag summed over partitions: ``lag`` is ``None`` when some partition is unknown."""

    partitions: int
    lag_at_least: int
    max_lag: int | None
    unknown: int

    @property
    def lag(self) -> int | None:
        """The total lag, ``None`` when any partition's lag is unknown."""
        return None if self.unknown else self.lag_at_least


def total(rows: Iterable[PartitionLag]) -> LagTotal:
    """The lag of ``rows`` together (one group, or one topic of one group)."""
    count = known = unknown = 0
    largest: int | None = None
    for row in rows:
        count += 1
        if row.unknown:
            unknown += 1
            continue
        lag = row.lag
        if lag is not None:
            known += lag
            largest = lag if largest is None else max(largest, lag)
    return LagTotal(count, known, largest, unknown)


@dataclass(frozen=True, slots=True)
class Member:
    """A member of a group: its consumer id, client id, host and how many partitions it owns."""

    member_id: str
    client_id: str
    host: str
    partitions: int


@dataclass(frozen=True, slots=True)
class Stale:
    """Numbers read at ``since_ms`` that could not be read again since, and why."""

    since_ms: int
    reason: str

    def text(self) -> str:
        """``stale since 14:36:32 (reason)``."""
        return f"stale since {clock_text(self.since_ms)} ({self.reason})"


@dataclass(frozen=True)
class GroupLag:
    """A consumer group with its lag, from the brokers (``source`` ``kafka``) or ZooKeeper (``zookeeper``).

    ``error`` says why part of the group could not be read (then its lag is unknown, not zero);
    ``notes`` say what is missing and what would provide it (e.g. ``--bootstrap-server``). The console sets
    ``as_of_ms`` (when the numbers were read) and ``stale`` (they could not be read again since:
    ``core.groups.freshness``).
    """

    group: str
    source: str
    state: str
    members: tuple[Member, ...] = ()
    partitions: tuple[PartitionLag, ...] = ()
    protocol: str = ""
    coordinator: int | None = None
    error: str | None = None
    notes: tuple[str, ...] = ()
    as_of_ms: int | None = None
    stale: Stale | None = None
    _total: LagTotal | None = field(default=None, repr=False, compare=False)

    @property
    def lag_total(self) -> LagTotal:
        """The group's lag over all its partitions (computed once)."""
        if self._total is None:
            object.__setattr__(self, "_total", total(self.partitions))
        assert self._total is not None
        return self._total

    @property
    def lag(self) -> int | None:
        """The total lag; ``None`` when unknown (an error, or a partition without an end offset)."""
        return None if self.error else self.lag_total.lag

    @property
    def max_lag(self) -> int | None:
        """The largest partition lag (of the partitions whose lag is known)."""
        return self.lag_total.max_lag

    @property
    def topics(self) -> tuple[str, ...]:
        """The topics the group has partitions of, sorted."""
        return tuple(sorted({row.topic for row in self.partitions}))

    @property
    def active(self) -> bool:
        """Whether the group has members."""
        return bool(self.members)

    @property
    def has_committed(self) -> bool:
        """Whether the group holds at least one committed offset."""
        return any(row.committed is not None for row in self.partitions)

    def topic_lag(self, topic: str) -> LagTotal:
        """The group's lag on one topic."""
        return total(row for row in self.partitions if row.topic == topic)

    def summary_json(self) -> dict[str, Any]:
        """One row of ``kzc groups --json``."""
        totals = self.lag_total
        return {
            "group": self.group,
            "state": self.state,
            "members": len(self.members),
            "topics": list(self.topics),
            "lag": self.lag,
            "lag_at_least": totals.lag_at_least,
            "max_lag": totals.max_lag,
            "unknown_partitions": totals.unknown,
            "source": self.source,
            "error": self.error,
        }

    def to_json(self) -> dict[str, Any]:
        """``kzc group GROUP --json``: the summary, members and one entry per partition."""
        return {
            **self.summary_json(),
            "protocol": self.protocol,
            "coordinator": self.coordinator,
            "member_list": [
                {"member_id": m.member_id, "client_id": m.client_id, "host": m.host, "partitions": m.partitions}
                for m in self.members
            ],
            "partitions": [row.to_json() for row in self.partitions],
            "notes": list(self.notes),
        }


def group_rows(
    assigned: Sequence[tuple[Member, Sequence[TopicPartition]]],
    committed: Mapping[TopicPartition, int | None] | None,
    ends: Mapping[TopicPartition, int | str],
    committed_error: str | None = None,
) -> tuple[PartitionLag, ...]:
    """A group's partition rows as ``kafka-consumer-groups --describe`` lists them.

    First the partitions assigned to each member (members with the most partitions first), then the
    partitions with a committed offset that no member owns (member ``None``). ``ends`` maps a partition to
    its end offset, or to why the brokers did not give it; ``committed`` is ``None`` (with
    ``committed_error``) when the group's offsets could not be read.
    """
    rows: list[PartitionLag] = []
    seen: set[TopicPartition] = set()

    def row(key: TopicPartition, member: Member | None) -> PartitionLag:
        end = ends.get(key, "the brokers did not return the end offset")
        unknown = committed_error or (end if isinstance(end, str) else None)
        return PartitionLag(
            key[0],
            key[1],
            committed.get(key) if committed is not None else None,
            end if isinstance(end, int) else None,
            member.member_id if member else None,
            member.host if member else None,
            member.client_id if member else None,
            unknown,
        )

    for member, partitions in sorted(assigned, key=lambda pair: -len(pair[1])):
        for key in sorted(partitions):
            seen.add(key)
            rows.append(row(key, member))
    for key in sorted(committed or {}):
        if key not in seen:
            rows.append(row(key, None))
    return tuple(rows)


def lagging(groups: Iterable[GroupLag]) -> int:
    """How many groups are behind: lag above zero, or unknown (it may be the worst)."""
    return sum(1 for g in groups if g.lag is None or g.lag > 0)
