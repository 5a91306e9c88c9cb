"""Reassignments: in flight (adding/removing replicas, ``/admin/reassign_partitions``) and those that
cannot complete."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, DataFrame, PartitionColumns, SparkInput, duplicates_of, finding, rows
from core.consistency.checks.facts import ClusterFacts, Found, PartitionFacts
from core.consistency.checks.text import ids, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes import ReassignmentRequest, TopicAssignment
from core.kafka.znodes.paths import REASSIGN_PARTITIONS

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


# ---- the rules ----------------------------------------------------------------------------------------


def _in_progress(f: PartitionFacts) -> Iterator[Found]:
    if f.adding or f.removing or f.requested:
        # The controller reads /admin/reassign_partitions' entries into a map: the last one wins.
        requested = f.requested[-1] if f.requested else None
        record = ReassignmentInProgress(replicas=f.replicas, adding=f.adding, removing=f.removing, requested=requested)
        yield record, f.at_topic()


def _in_progress_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.assigned & c.reassigning,
        finding(ReassignmentInProgress, c.topic, c.partition, F.lit(None), c.tpath, replicas=c.replicas,
                adding=c.adding, removing=c.removing, requested=c.requested),
    )  # fmt: skip


def _bad_moves(f: PartitionFacts) -> Iterator[Found]:
    """Adding and removing replicas in the topic znode: subsets of the replicas, disjoint."""
    members = f.replica.members
    problems = []
    if not members.issuperset(f.adding):
        problems.append("adding_not_in_replicas")
    if not members.issuperset(f.removing):
        problems.append("removing_not_in_replicas")
    if set(f.adding) & set(f.removing):
        problems.append("adding_and_removing")
    if problems:
        record = InvalidReassignmentRequest(
            replicas=f.replicas, adding=f.adding, removing=f.removing, problems=tuple(problems)
        )
        yield record, f.at_topic()


def _bad_moves_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    problems = F.filter(
        F.array(
            F.when(F.size(F.array_except(c.adding, c.replicas)) > 0, F.lit("adding_not_in_replicas")),
            F.when(F.size(F.array_except(c.removing, c.replicas)) > 0, F.lit("removing_not_in_replicas")),
            F.when(F.size(F.array_intersect(c.adding, c.removing)) > 0, F.lit("adding_and_removing")),
        ),
        lambda x: x.isNotNull(),
    )
    return F.when(
        c.assigned & c.reassigning & (F.size(problems) > 0),
        finding(InvalidReassignmentRequest, c.topic, c.partition, F.lit(None), c.tpath, replicas=c.replicas,
                adding=c.adding, removing=c.removing, problems=problems),
    )  # fmt: skip


def _bad_requests(c: ClusterFacts) -> Iterator[Found]:
    """Entries of /admin/reassign_partitions the controller would hang on."""
    request = c.snapshot.reassignment
    if not isinstance(request, ReassignmentRequest):
        return
    for topic, partition, replicas in request.partitions:
        problems = []
        entry = c.snapshot.topics.get(topic)
        if entry is None:
            problems.append("missing_topic")
        elif isinstance(entry.assignment, TopicAssignment) and partition not in entry.assignment.partition_ids:
            problems.append("missing_partition")
        if not replicas:
            problems.append("empty")
        duplicates = tuple(sorted(b for b in set(replicas) if replicas.count(b) > 1))
        if duplicates:
            problems.append("duplicates")
        if any(b < 0 for b in replicas):
            problems.append("negative_ids")
        unknown = tuple(dict.fromkeys(b for b in replicas if b >= 0 and b not in c.live))
        if unknown:
            problems.append("unknown_brokers")
        if problems:
            record = InvalidReassignmentRequest(
                requested=replicas,
                problems=tuple(problems),
                duplicates=duplicates or None,
                unknown_brokers=unknown or None,
            )
            yield record, Where(REASSIGN_PARTITIONS, topic, partition)


def _bad_requests_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    requests = i.frames.requests
    topics = i.frames.topics.select("topic", "readable")
    existing = (
        i.p.where(c("assigned"))
        .join(F.broadcast(requests.select("topic").distinct()), "topic", "inner")
        .select("topic", "partition", F.lit(True).alias("partition_exists"))
    )
    r = requests.join(topics, "topic", "left").join(existing, ["topic", "partition"], "left")
    replicas = c("replicas")
    duplicates = duplicates_of(replicas)
    unknown = F.array_distinct(F.filter(replicas, lambda x: (x >= 0) & ~i.brokers.live(x)))
    problems = F.filter(
        F.array(
            F.when(c("readable").isNull(), F.lit("missing_topic")),
            F.when(c("readable") & c("partition_exists").isNull(), F.lit("missing_partition")),
            F.when(F.size(replicas) == 0, F.lit("empty")),
            F.when(F.size(duplicates) > 0, F.lit("duplicates")),
            F.when(F.exists(replicas, lambda x: x < 0), F.lit("negative_ids")),
            F.when(F.size(unknown) > 0, F.lit("unknown_brokers")),
        ),
        lambda x: x.isNotNull(),
    )
    return rows(
        r.where(F.size(problems) > 0),
        finding(InvalidReassignmentRequest, c("topic"), c("partition"), F.lit(None),
                F.lit(REASSIGN_PARTITIONS), requested=replicas, problems=problems,
                duplicates=F.when(F.size(duplicates) > 0, duplicates),
                unknown_brokers=F.when(F.size(unknown) > 0, unknown)),
    )  # fmt: skip


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
    local={"partition": _in_progress},
    spark={"partitions": _in_progress_spark},
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
    local={"partition": _bad_moves, "requests": _bad_requests},
    spark={"partitions": _bad_moves_spark, "reassignment requests": _bad_requests_spark},
)
