"""Topic-wide checks: names Kafka rejects or that collide, partition ids, replication factors."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, DataFrame, SparkInput, finding, rows
from core.consistency.checks.columns import topic_path as topic_path_col
from core.consistency.checks.facts import ClusterFacts, Found, TopicFacts, topic_path
from core.consistency.checks.text import count, ids, names
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.names import name_problem, unify_collision_chars

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


# ---- the rules ----------------------------------------------------------------------------------------


def _invalid_names(c: ClusterFacts) -> Iterator[Found]:
    for name in sorted(c.snapshot.topics):
        problem = name_problem(name)
        if problem is not None:
            yield TopicNameInvalid(reason=problem), Where(topic_path(name), name)


def _invalid_names_spark(i: SparkInput) -> DataFrame:
    """``core.kafka.names.name_problem`` as columns: Kafka's checks in Kafka's order, with its messages."""
    from pyspark.sql import functions as F

    name = F.col("topic")
    java_length = (F.octet_length(F.encode(name, "UTF-16LE")) / 2).cast("int")
    problem = (
        F.when(name == "", F.lit("Topic name is invalid: the empty string is not allowed"))
        .when(name.isin(".", ".."), F.concat(F.lit("Topic name is invalid: '"), name, F.lit("' is not allowed")))
        .when(java_length > 249, F.concat(F.lit("Topic name is invalid: the length of '"), name,
                                          F.lit("' is longer than the max allowed length 249")))
        .when(~name.rlike(r"^[a-zA-Z0-9._-]+\z"),
              F.concat(F.lit("Topic name is invalid: '"), name,
                       F.lit("' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")))
    )  # fmt: skip
    return rows(
        i.frames.topics.where(problem.isNotNull()),
        finding(TopicNameInvalid, name, F.lit(None), F.lit(None), topic_path_col(name), reason=problem),
    )


def _collisions(c: ClusterFacts) -> Iterator[Found]:
    groups: dict[str, list[str]] = defaultdict(list)
    for name in c.snapshot.topics:
        groups[unify_collision_chars(name)].append(name)
    for name in sorted(c.snapshot.topics):
        group = groups[unify_collision_chars(name)]
        if len(group) > 1:
            others = tuple(sorted(n for n in group if n != name))
            yield TopicNameCollision(colliding_with=others), Where(topic_path(name), name)


def _collisions_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    keyed = i.frames.topics.select("topic", F.translate("topic", ".", "_").alias("key"))
    groups = keyed.groupBy("key").agg(F.collect_list("topic").alias("group")).where(F.size("group") > 1)
    members = groups.select(F.explode("group").alias("topic"), "group")
    others = F.array_sort(F.filter(c("group"), lambda x: x != c("topic")))
    return rows(
        members,
        finding(
            TopicNameCollision, c("topic"), F.lit(None), F.lit(None), topic_path_col(c("topic")), colliding_with=others
        ),
    )


@dataclass(frozen=True)
class TopicColumns:
    """One topic's partitions, aggregated (the Spark counterpart of ``facts.TopicFacts``)."""

    topic: Col
    tpath: Col
    ids: Col  # the assigned partition ids, sorted
    n: Col  # how many
    rfs: Col  # the distinct replication factors, sorted
    rf0: Col  # partition 0's replica count, or null


def topic_rows(i: SparkInput) -> tuple[DataFrame, TopicColumns]:
    """The rows of the topics a topic check may fire on, with their columns. Plain aggregates over every
    partition (compiled, no per-topic lists), then the lists only for the few topics that need them:
    partition ids are distinct, so they are 0..n-1 exactly when the smallest is 0 and the largest n-1."""
    from pyspark.sql import functions as F

    c = F.col
    assigned = i.p.where(c("assigned"))
    # A quiet partition's replicas are distinct and none is being removed: no set difference needed.
    rf = F.when(c("quiet"), F.size("replicas")).otherwise(F.size(F.array_except("replicas", "removing")))
    agg = assigned.groupBy("topic").agg(
        F.count(F.lit(1)).cast("int").alias("n"),
        F.min("partition").alias("first"),
        F.max("partition").alias("last"),
        F.min(rf).alias("rf_min"),
        F.max(rf).alias("rf_max"),
        F.max(F.when(c("partition") == 0, F.size("replicas"))).alias("rf0"),
    )
    flagged = agg.where((c("first") != 0) | (c("last") != c("n") - 1) | (c("rf_min") != c("rf_max")))
    lists = (
        assigned.join(F.broadcast(flagged.select("topic")), "topic", "left_semi")
        .groupBy("topic")
        .agg(F.array_sort(F.collect_list("partition")).alias("ids"), F.array_sort(F.collect_set(rf)).alias("rfs"))
    )
    detail = lists.join(F.broadcast(flagged), "topic", "inner")
    return detail, TopicColumns(c("topic"), topic_path_col(c("topic")), c("ids"), c("n"), c("rfs"), c("rf0"))


def _non_contiguous(t: TopicFacts) -> Iterator[Found]:
    assigned = t.partition_ids
    n = len(assigned)
    if assigned != tuple(range(n)):
        present = set(assigned)
        yield (
            NonContiguousPartitions(partition_count=n, missing=tuple(i for i in range(n) if i not in present),
                                    unexpected=tuple(i for i in assigned if i >= n)),
            t.at(),
        )  # fmt: skip


def _non_contiguous_spark(t: TopicColumns) -> Col:
    from pyspark.sql import functions as F

    missing = F.filter(F.sequence(F.lit(0), t.n - 1), lambda x: ~F.array_contains(t.ids, x))
    unexpected = F.filter(t.ids, lambda x: x >= t.n)
    return F.when(
        F.size(missing) + F.size(unexpected) > 0,
        finding(NonContiguousPartitions, t.topic, F.lit(None), F.lit(None), t.tpath, partition_count=t.n,
                missing=missing, unexpected=unexpected),
    )  # fmt: skip


def _inconsistent_rf(t: TopicFacts) -> Iterator[Found]:
    if len(t.rfs) > 1:
        rf0 = len(t.assignment.replicas(0)) if 0 in t.partition_ids else None
        yield (
            InconsistentReplicationFactor(replication_factors=tuple(sorted(t.rfs)), partition_0_replication_factor=rf0),
            t.at(),
        )


def _inconsistent_rf_spark(t: TopicColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        F.size(t.rfs) > 1,
        finding(InconsistentReplicationFactor, t.topic, F.lit(None), F.lit(None), t.tpath,
                replication_factors=t.rfs, partition_0_replication_factor=t.rf0),
    )  # fmt: skip


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
    local={"name": _invalid_names},
    spark={"names": _invalid_names_spark},
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
    local={"name": _collisions},
    spark={"names": _collisions_spark},
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
    local={"topic": _non_contiguous},
    spark={"topics": _non_contiguous_spark},
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
    local={"topic": _inconsistent_rf},
    spark={"topics": _inconsistent_rf_spark},
)
