"""Topic create, expand and delete as values: the requests, their plans (frozen, with the exact assignment,
nothing written) and the results of applying them.

A plan is the preview → apply contract: the console and the CLI show a plan, and ``core.topics.ops``
applies exactly that plan (the assignment shown is the assignment sent). Plans turn into JSON with
``to_json()``. They are made by ``core.topics.planning``, which validates each request.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.brokers.capabilities import VIA_ZOOKEEPER
from core.kafka.assignment import (
    AssignmentStart,
)
from core.kafka.assignment_metrics import AssignmentMetrics
from core.topics.guard import (
    Check,
)

Assignment = tuple[tuple[int, tuple[int, ...]], ...]
"""Partition → replicas (first = preferred leader), ascending by partition."""


def assignment_json(assignment: Assignment) -> dict[str, list[int]]:
    """``{"0": [1, 2], ...}`` as Kafka writes partition maps."""
    return {str(p): list(replicas) for p, replicas in assignment}


def frozen_assignment(assignment: Mapping[int, Sequence[int]]) -> Assignment:
    """A partition map as an ``Assignment``: ascending by partition, each replica list a tuple."""
    return tuple((p, tuple(assignment[p])) for p in sorted(assignment))


# ---- requests ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreateRequest:
    """What the user asked for, from the form or the command line to the write: ``partitions`` +
    ``replication_factor``, or a manual ``replica_assignment`` (Kafka's ``1:2,2:3`` syntax).

    ``seed`` fixes Kafka's two random draws (the console's reshuffle is a new seed); ``None`` draws anew
    for every plan, as Kafka does. ``rack_aware`` False is ``--disable-rack-aware``.
    """

    topic: str
    partitions: int | None = None
    replication_factor: int | None = None
    replica_assignment: str | None = None
    config: tuple[tuple[str, str], ...] = ()
    rack_aware: bool = True
    seed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The arguments as the audit log records them."""
        return {
            "topic": self.topic,
            "partitions": self.partitions,
            "replication_factor": self.replication_factor,
            "replica_assignment": self.replica_assignment,
            "config": dict(self.config),
            "rack_aware": self.rack_aware,
            "seed": self.seed,
        }


@dataclass(frozen=True)
class ExpandRequest:
    """Grow ``topic`` to ``partitions`` in total; ``replica_assignment`` lists every partition, as Kafka's
    ``--alter --replica-assignment`` does (the entries of existing partitions are dropped). ``rack_aware``
    False is ``--disable-rack-aware``."""

    topic: str
    partitions: int
    replica_assignment: str | None = None
    rack_aware: bool = True
    keep_unknown_fields: bool = False  # write through ZooKeeper even with an AdminClient (fields a broker drops)

    def to_json(self) -> dict[str, Any]:
        """The arguments as the audit log records them."""
        return {
            "topic": self.topic,
            "partitions": self.partitions,
            "replica_assignment": self.replica_assignment,
            "rack_aware": self.rack_aware,
            "keep_unknown_fields": self.keep_unknown_fields,
        }


@dataclass(frozen=True)
class DeleteRequest:
    """Delete the named topics, or every topic whose whole name matches ``regex``."""

    topics: tuple[str, ...] = ()
    regex: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The arguments as the audit log records them."""
        return {"topics": list(self.topics), "regex": self.regex}


# ---- plans ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreatePlan:
    """A validated topic creation. ``blocked`` says why it cannot be applied (read-only, migration).

    ``config_zk_version`` is the version of a ``/config/topics/<t>`` left over from an earlier failed
    create (the ZooKeeper path replaces it, as Kafka does, but only at that version). ``start`` is where
    Kafka's algorithm started (the random draws of this plan; None for a manual assignment): a new plan
    draws again, so apply this plan to get exactly what it shows. ``topic_znode_version`` is what the
    ZooKeeper path writes (``core.topics.facts.zk_create_format``). ``controller_zk_version`` is the version
    of ``/controller`` when planned: the fence a dry run of this plan lists (the write fences on the version
    it reads then).
    """

    topic: str
    assignment: Assignment
    config: tuple[tuple[str, str], ...]
    manual: bool
    metrics: AssignmentMetrics
    via: str
    racks: tuple[tuple[int, str | None], ...] = ()
    checks: tuple[Check, ...] = ()
    warnings: tuple[str, ...] = ()
    blocked: str | None = None
    config_zk_version: int | None = None
    start: AssignmentStart | None = None
    rack_aware: bool = True
    topic_znode_version: int = 3
    seed: int | None = None
    controller_zk_version: int | None = None

    @property
    def partitions(self) -> int:
        """Number of partitions."""
        return len(self.assignment)

    @property
    def replication_factor(self) -> int:
        """Replicas of partition 0 (all partitions have the same count)."""
        return len(self.assignment[0][1]) if self.assignment else 0

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON: ``assignment`` is ``{"0": [..], ...}``."""
        return {
            "operation": "create",
            "topic": self.topic,
            "partitions": self.partitions,
            "replication_factor": self.replication_factor,
            "assignment": assignment_json(self.assignment),
            "config": dict(self.config),
            "manual": self.manual,
            "start": self.start.to_json() if self.start is not None else None,
            "rack_aware": self.rack_aware,
            "metrics": self.metrics.to_json(),
            "via": self.via,
            "racks": {str(b): r for b, r in self.racks},
            "topic_znode_version": self.topic_znode_version if self.via == VIA_ZOOKEEPER else None,
            "checks": [c.to_json() for c in self.checks],
            "warnings": list(self.warnings),
            "blocked": self.blocked,
        }


@dataclass(frozen=True)
class ExpandPlan:
    """A validated partition increase. ``new_assignment`` holds only the new partitions, ``existing`` the
    partitions the topic had; ``metrics`` are the whole topic's after the increase, ``metrics_before``
    before it.

    ``topic_zk_version`` and ``topic_raw`` are ``/brokers/topics/<t>`` as read when planning: applying
    through ZooKeeper writes ``topic_raw`` plus the new partitions at exactly that version, and applying
    through the AdminClient first checks the version is unchanged, so a plan never overwrites a change
    made after it was shown.
    """

    topic: str
    current_partitions: int
    target_partitions: int
    new_assignment: Assignment
    manual: bool
    metrics: AssignmentMetrics
    metrics_before: AssignmentMetrics
    via: str
    topic_id: str | None
    topic_zk_version: int
    topic_raw: bytes = field(repr=False)
    existing: Assignment = ()
    racks: tuple[tuple[int, str | None], ...] = ()
    checks: tuple[Check, ...] = ()
    warnings: tuple[str, ...] = ()
    blocked: str | None = None
    rack_aware: bool = True

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON: ``assignment`` holds the new partitions."""
        return {
            "operation": "expand",
            "topic": self.topic,
            "current_partitions": self.current_partitions,
            "partitions": self.target_partitions,
            "assignment": assignment_json(self.new_assignment),
            "manual": self.manual,
            "rack_aware": self.rack_aware,
            "metrics": {"before": self.metrics_before.to_json(), "after": self.metrics.to_json()},
            "via": self.via,
            "racks": {str(b): r for b, r in self.racks},
            "topic_id": self.topic_id,
            "checks": [c.to_json() for c in self.checks],
            "warnings": list(self.warnings),
            "blocked": self.blocked,
        }


@dataclass(frozen=True)
class DeletePlan:
    """Topics to mark for deletion, the guards' outcomes, and what would hold each deletion now."""

    topics: tuple[str, ...]
    regex: str | None
    via: str
    delete_topic_enable: bool | None
    obstacles: tuple[tuple[str, tuple[str, ...]], ...] = ()
    checks: tuple[Check, ...] = ()
    warnings: tuple[str, ...] = ()
    blocked: str | None = None

    @property
    def confirmation(self) -> str:
        """What the user types to confirm: the topic's name for one topic, the count for several."""
        return self.topics[0] if len(self.topics) == 1 else str(len(self.topics))

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON."""
        return {
            "operation": "delete",
            "topics": list(self.topics),
            "regex": self.regex,
            "via": self.via,
            "delete_topic_enable": self.delete_topic_enable,
            "obstacles": {t: list(r) for t, r in self.obstacles if r},
            "checks": [c.to_json() for c in self.checks],
            "warnings": list(self.warnings),
            "blocked": self.blocked,
        }


# ---- results ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreateResult:
    """A topic created: ``assignment`` is what ``/brokers/topics/<t>`` holds right after the write."""

    plan: CreatePlan
    assignment: Assignment

    def to_json(self) -> dict[str, Any]:
        """``{"operation", "topic", "assignment", "via"}``."""
        return {
            "operation": "create",
            "topic": self.plan.topic,
            "assignment": assignment_json(self.assignment),
            "via": self.plan.via,
        }


@dataclass(frozen=True)
class ExpandResult:
    """Partitions added: ``assignment`` is what ``/brokers/topics/<t>`` holds for the new partitions."""

    plan: ExpandPlan
    assignment: Assignment

    def to_json(self) -> dict[str, Any]:
        """``{"operation", "topic", "partitions", "assignment", "via"}`` (``assignment``: new partitions)."""
        return {
            "operation": "expand",
            "topic": self.plan.topic,
            "partitions": self.plan.target_partitions,
            "assignment": assignment_json(self.assignment),
            "via": self.plan.via,
        }


@dataclass(frozen=True)
class DeleteResult:
    """Topics marked for deletion, and those the brokers did not delete (AdminClient path only).

    ``refused`` holds (topic, Kafka exception) for the ``errors`` that were the brokers' refusals
    (``TopicDeletionDisabledException``, authorization...), as opposed to failures (unexpected errors).
    """

    plan: DeletePlan
    marked: tuple[str, ...]
    errors: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict[str, Any]:
        """``{"operation", "deleted", "errors", "via"}`` (``deleted``: marked for deletion)."""
        return {
            "operation": "delete",
            "deleted": list(self.marked),
            "errors": dict(self.errors),
            "via": self.plan.via,
        }
