"""Topic deletion: why a queued topic's deletion cannot progress (``core.snapshot.deletion.deletion_blockers``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, DataFrame, SparkInput, finding, floor_seconds, ints
from core.consistency.checks.facts import ClusterFacts, Found, QueuedTopic
from core.consistency.checks.text import offline_note
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes.paths import DELETE_TOPICS, deletion_marker_path
from core.snapshot.deletion import topic_deletion_blockers

# The check's reason codes for core.snapshot.deletion.deletion_blockers' codes (docs/checks.md).
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


# ---- what keeps a queued topic, on both engines, and the rules --------------------------------------


def queued_topic(c: ClusterFacts, name: str, offline: Iterable[int]) -> QueuedTopic:
    """What keeps the existing topic ``name`` queued: ``core.snapshot.deletion.deletion_blockers`` (as describe
    and the console list them) under this catalog's codes, and a marker older than the params allow; the
    0.8.1 to 0.10.x election rule is not applied by the checks. ``offline``: its replicas on dead brokers."""
    blockers = topic_deletion_blockers(c.snapshot, name, old_rules=False)
    reasons = [DELETION_CODES[r.code] for r in blockers if r.code in DELETION_CODES]
    age_ms = c.snapshot.taken_at_ms - c.snapshot.deletion_markers[name].ctime_ms
    if age_ms > c.params.deletion_stuck_after_ms:
        reasons.append("old_marker")
    return QueuedTopic(name, tuple(reasons), tuple(sorted(set(offline))), age_ms // 1000)


@dataclass(frozen=True)
class DeletionColumns:
    """A queued topic's columns (the Spark counterpart of ``facts.QueuedTopic``)."""

    topic: Col
    path: Col
    reasons: Col
    offline: Col
    queued_s: Col


def deletion_rows(i: SparkInput) -> tuple[DataFrame, DeletionColumns]:
    """The existing topics queued for deletion with ``queued_topic``'s facts as columns."""
    from pyspark.sql import functions as F

    c = F.col
    facts = i.frames.facts
    moving = (F.size("adding") > 0) | (F.size("removing") > 0) | c("requested").isNotNull()
    per_topic = (
        i.with_problems(i.p.where(c("assigned") & c("deleting")))
        .groupBy("topic")
        .agg(
            F.max(moving).alias("moving"),
            F.array_sort(F.array_distinct(F.flatten(F.collect_list("offline")))).alias("offline_all"),
        )
    )
    markers = i.frames.markers.join(F.broadcast(i.frames.topics.select("topic", "readable")), "topic", "inner")
    markers = markers.join(F.broadcast(per_topic), "topic", "left").join(
        F.broadcast(i.requested_topics.select("topic", F.lit(True).alias("requested_topic"))), "topic", "left"
    )
    readable = c("readable")
    offline = F.when(readable, F.coalesce(c("offline_all"), ints([]))).otherwise(ints([]))
    moving = readable & (F.coalesce(c("moving"), F.lit(False)) | F.coalesce(c("requested_topic"), F.lit(False)))
    age = F.lit(facts.taken_at_ms) - c("ctime_ms")
    reasons = F.filter(
        F.array(
            F.when(F.lit(facts.controller_missing), F.lit("no_controller")),
            F.when(~readable, F.lit("assignment_unreadable")),
            F.when(F.size(offline) > 0, F.lit("offline_replicas")),
            F.when(moving, F.lit("reassignment")),
            F.when(age > F.lit(i.params.deletion_stuck_after_ms), F.lit("old_marker")),
        ),
        lambda x: x.isNotNull(),
    )
    path = F.concat(F.lit(f"{DELETE_TOPICS}/"), c("topic"))
    return markers, DeletionColumns(c("topic"), path, reasons, offline, floor_seconds(age))


def _where(q: QueuedTopic) -> Where:
    return Where(deletion_marker_path(q.name), q.name)


def _stuck(q: QueuedTopic) -> Iterator[Found]:
    if q.reasons:
        yield DeletionStuck(reasons=q.reasons, offline_replicas=q.offline or None, queued_s=q.queued_s), _where(q)


def _stuck_spark(d: DeletionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        F.size(d.reasons) > 0,
        finding(DeletionStuck, d.topic, F.lit(None), F.lit(None), d.path, reasons=d.reasons,
                offline_replicas=F.when(F.size(d.offline) > 0, d.offline), queued_s=d.queued_s),
    )  # fmt: skip


def _pending(q: QueuedTopic) -> Iterator[Found]:
    if not q.reasons:
        yield DeletionPending(queued_s=q.queued_s), _where(q)


def _pending_spark(d: DeletionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        F.size(d.reasons) == 0,
        finding(DeletionPending, d.topic, F.lit(None), F.lit(None), d.path, queued_s=d.queued_s),
    )


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
    local={"deletion": _stuck},
    spark={"deletions": _stuck_spark},
)
DELETION_PENDING = Check(
    CheckSpec(
        "deletion_pending",
        Severity.INFO,
        Subject.TOPIC,
        "Topic queued for deletion",
        f"{DELETE_TOPICS}/<t> is the deletion request; the controller removes it when the topic is gone.",
        "§2.6, §7",
    ),
    DeletionPending,
    local={"deletion": _pending},
    spark={"deletions": _pending_spark},
)
