"""Topic-wide checks: names Kafka rejects or that collide, partition ids, replication factors."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import count, ids, names
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

Ints = tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicNameInvalid(Evidence):
    check = "topic_name_invalid"
    reason: str

    def sentence(self, at: Where) -> str:
        return f"Kafka rejects this topic name: {self.reason}."


@dataclass(frozen=True, slots=True, kw_only=True)
class TopicNameCollision(Evidence):
    check = "topic_name_collision"
    colliding_with: tuple[str, ...]

    def sentence(self, at: Where) -> str:
        return (
            f"Topic '{at.topic}' collides with {names(self.colliding_with)}: the names are equal once '.' and '_' "
            "are treated alike, so their metric names clash."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class NonContiguousPartitions(Evidence):
    check = "non_contiguous_partitions"
    partition_count: int
    missing: Ints
    unexpected: Ints

    def sentence(self, at: Where) -> str:
        parts = []
        if self.missing:
            parts.append(f"missing {ids(self.missing)}")
        if self.unexpected:
            parts.append(f"unexpected {ids(self.unexpected)}")
        return (
            f"Topic '{at.topic}' has {count(self.partition_count, 'partition')} whose ids are not 0..N-1 "
            f"({', '.join(parts)})."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class InconsistentReplicationFactor(Evidence):
    check = "inconsistent_replication_factor"
    replication_factors: Ints
    partition_0_replication_factor: int | None = None

    def sentence(self, at: Where) -> str:
        rf0 = self.partition_0_replication_factor
        tail = f"; Kafka's tools use partition 0's ({rf0}) for new partitions" if rf0 is not None else ""
        return f"Topic '{at.topic}' mixes replication factors {ids(self.replication_factors)}{tail}."


TOPIC_NAME_INVALID = Check(
    CheckSpec(
        "topic_name_invalid",
        Severity.ERROR,
        Subject.TOPIC,
        "Topic name Kafka rejects",
        "Topic.validate: non-empty, not '.' or '..', at most 249 characters, only [a-zA-Z0-9._-].",
        "§6.1, §9.12",
    ),
    TopicNameInvalid,
    "partitions",
    ("names",),
)
TOPIC_NAME_COLLISION = Check(
    CheckSpec(
        "topic_name_collision",
        Severity.WARNING,
        Subject.TOPIC,
        "Topic names collide in metric names",
        "Two names that are equal once every '.' becomes '_' collide; creation rejects this from 0.9 on.",
        "§6.2, §9.12",
    ),
    TopicNameCollision,
    "partitions",
    ("names",),
)
NON_CONTIGUOUS_PARTITIONS = Check(
    CheckSpec(
        "non_contiguous_partitions",
        Severity.ERROR,
        Subject.TOPIC,
        "Partition ids are not 0..N-1",
        "Kafka writes partitions 0..N-1; adding partitions needs partition 0 and creation requires a "
        "consecutive 0-based sequence (2.3+).",
        "§4.2, §4.3, §9.1",
    ),
    NonContiguousPartitions,
    "partitions",
    ("topics",),
)
INCONSISTENT_REPLICATION_FACTOR = Check(
    CheckSpec(
        "inconsistent_replication_factor",
        Severity.WARNING,
        Subject.TOPIC,
        "Partitions have different replication factors",
        "Legal (reassignment can change it per partition) but suspicious; Kafka's tools take partition 0's "
        "replication factor for new partitions.",
        "§9.2",
    ),
    InconsistentReplicationFactor,
    "partitions",
    ("topics",),
)
