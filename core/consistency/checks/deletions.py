"""Topic deletion: why a queued topic's deletion cannot progress (``core.snapshot.health.deletion_blockers``)."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import offline_note
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

# The check's reason codes for core.snapshot.health.deletion_blockers' codes (docs/checks.md).
DELETION_CODES = {
    "no_controller": "no_controller",
    "assignment_unreadable": "assignment_unreadable",
    "replica_on_dead_broker": "offline_replicas",
    "reassignment_in_progress": "reassignment",
}

_REASONS = {
    "no_controller": "there is no controller",
    "assignment_unreadable": "its topic znode is unreadable, for the controller too",
    "offline_replicas": "replicas are on unregistered brokers",
    "reassignment": "a reassignment of its partitions is in progress",
    "old_marker": "it has been queued for more than 15 minutes (delete.topic.enable=false or a failed StopReplica)",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class DeletionStuck(Evidence):
    check = "deletion_stuck"
    reasons: tuple[str, ...]
    offline_replicas: tuple[int, ...] | None = None
    queued_s: int

    def sentence(self, at: Where) -> str:
        text = " and ".join(_REASONS.get(r, r) for r in self.reasons)
        return f"Deletion of topic '{at.topic}' cannot progress: {text}{offline_note(self.offline_replicas)}."


@dataclass(frozen=True, slots=True, kw_only=True)
class DeletionPending(Evidence):
    check = "deletion_pending"
    queued_s: int

    def sentence(self, at: Where) -> str:
        return f"Topic '{at.topic}' is queued for deletion; nothing visible blocks it."


DELETION_STUCK = Check(
    CheckSpec(
        "deletion_stuck",
        Severity.WARNING,
        Subject.TOPIC,
        "Topic deletion cannot progress",
        "A queued topic stays while a replica's broker is down, a reassignment of it is in progress, there "
        "is no controller, or (marker older than 15 minutes) delete.topic.enable=false or a failed "
        "StopReplica.",
        "§7.4, §9.8",
    ),
    DeletionStuck,
    "partitions",
    ("deletions",),
)
DELETION_PENDING = Check(
    CheckSpec(
        "deletion_pending",
        Severity.INFO,
        Subject.TOPIC,
        "Topic queued for deletion",
        "/admin/delete_topics/<t> is the deletion request; the controller removes it when the topic is gone.",
        "§2.6, §7",
    ),
    DeletionPending,
    "partitions",
    ("deletions",),
)
