"""Reassignments: in flight (adding/removing replicas, ``/admin/reassign_partitions``) and those that
cannot complete."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import ids, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

Ints = tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ReassignmentInProgress(Evidence):
    check = "reassignment_in_progress"
    replicas: Ints
    adding: Ints
    removing: Ints
    requested: Ints | None = None  # the last entry of /admin/reassign_partitions for the partition

    def sentence(self, at: Where) -> str:
        parts = []
        if self.adding:
            parts.append(f"adding {ids(self.adding)}")
        if self.removing:
            parts.append(f"removing {ids(self.removing)}")
        if self.requested:
            parts.append(f"requested {ids(self.requested)}")
        return (
            f"Partition {tp(at.topic, at.partition)} is being reassigned (replicas {ids(self.replicas)}: "
            f"{', '.join(parts)})."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class InvalidReassignmentRequest(Evidence):
    """In /admin/reassign_partitions (``requested``, ``duplicates``, ``unknown_brokers``) or in the topic
    znode (``replicas``, ``adding``, ``removing``)."""

    check = "invalid_reassignment_request"
    problems: tuple[str, ...]
    requested: Ints | None = None
    duplicates: Ints | None = None
    unknown_brokers: Ints | None = None
    replicas: Ints | None = None
    adding: Ints | None = None
    removing: Ints | None = None

    def sentence(self, at: Where) -> str:
        return f"Reassignment of {tp(at.topic, at.partition)} in {at.path} cannot complete: {'; '.join(self.problems)}."


REASSIGNMENT_IN_PROGRESS = Check(
    CheckSpec(
        "reassignment_in_progress",
        Severity.INFO,
        Subject.PARTITION,
        "Partition reassignment in progress",
        "Non-empty adding/removing replicas (2.4+) or an entry in /admin/reassign_partitions mean a "
        "reassignment is in flight; it blocks CreatePartitions and topic deletion.",
        "§2.4, §2.7, §9.3",
    ),
    ReassignmentInProgress,
    "partitions",
    ("partitions",),
)
INVALID_REASSIGNMENT_REQUEST = Check(
    CheckSpec(
        "invalid_reassignment_request",
        Severity.ERROR,
        Subject.PARTITION,
        "Reassignment that cannot complete",
        "The controller does not validate /admin/reassign_partitions: entries for missing topics or "
        "partitions, empty or duplicate lists and unknown brokers must be caught here; and adding and "
        "removing replicas are disjoint subsets of the replicas.",
        "§2.4, §2.7, §9.3, §9.10",
    ),
    InvalidReassignmentRequest,
    "partitions",
    ("partitions", "reassignment requests"),
)
