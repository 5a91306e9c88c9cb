"""Readiness for a ZooKeeper-to-KRaft migration (``kzc migration``; ``kzc check --only migration_...``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import DataFrame, SparkInput, finding, rows
from core.consistency.checks.columns import state_path as state_path_col
from core.consistency.checks.columns import topic_path as topic_path_col
from core.consistency.checks.facts import ClusterFacts, Found, state_path, topic_path
from core.consistency.checks.text import ids, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes import BrokerRegistration, PartitionState, TopicAssignment, Unreadable
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CLUSTER_ID,
    DELEGATION_TOKENS,
    DELETE_TOPICS,
    REASSIGN_PARTITIONS,
    broker_path,
    deletion_marker_path,
)

MIGRATION = "migration"


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationClusterIdMissing(Evidence):
    check = "migration_cluster_id_missing"
    reason: str

    def sentence(self, at: Where) -> str:
        return (
            f"{CLUSTER_ID} is {self.reason}: the KRaft controllers need this cluster's id to be formatted with "
            "(kafka-storage format -t)."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationProtocolTooOld(Evidence):
    """``version``: the registration's (v4 or older); ``ibp``: the configured inter.broker.protocol.version,
    which ``kzc migration --bootstrap-server`` reads."""

    check = "migration_protocol_too_old"
    version: int | None = None
    ibp: str | None = None

    def sentence(self, at: Where) -> str:
        if self.ibp is not None:
            seen = f"reports inter.broker.protocol.version={self.ibp}"
        else:
            seen = f"registers with a v{self.version} registration (inter.broker.protocol.version below 2.7-IV0)"
        return (
            f"Broker {at.broker} {seen}: migration mode needs 3.4 or higher, equal to the controllers' "
            "metadata.version."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationReassignmentPending(Evidence):
    check = "migration_reassignment_pending"
    partitions: tuple[int, ...]
    requested: bool

    def sentence(self, at: Where) -> str:
        where = "requested in /admin/reassign_partitions" if self.requested else "in flight"
        return f"Topic '{at.topic}' has a reassignment {where} (partitions {ids(self.partitions)}): finish it first."


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationDeletionPending(Evidence):
    check = "migration_deletion_pending"

    def sentence(self, at: Where) -> str:
        return f"Topic '{at.topic}' is queued for deletion ({at.path}): let the deletion finish before migrating."


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationLeaderlessPartition(Evidence):
    check = "migration_leaderless_partition"
    isr: tuple[int, ...]

    def sentence(self, at: Where) -> str:
        return f"{tp(at.topic, at.partition)} has no leader (-1, ISR {ids(self.isr)}): it would stay offline in KRaft."


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationDelegationTokens(Evidence):
    check = "migration_delegation_tokens"
    tokens: int | None = None
    reason: str | None = None  # why they could not be counted

    def sentence(self, at: Where) -> str:
        if self.tokens is None:
            return (
                f"{at.path} could not be counted ({self.reason or 'unreadable'}): delegation tokens migrate only from "
                "Kafka 3.6 at metadata.version 3.6-IV2 or higher."
            )
        return (
            f"{at.path} holds {self.tokens} delegation token(s): they migrate only from Kafka 3.6 at metadata.version "
            "3.6-IV2 or higher; on 3.4-3.5 (or a lower metadata.version) they are lost and their clients fail."
        )


# ---- the rules ----------------------------------------------------------------------------------------

TOKENS = DELEGATION_TOKENS


def _cluster_id(c: ClusterFacts) -> Iterator[Found]:
    cluster_id = c.snapshot.cluster_id
    if cluster_id is None or isinstance(cluster_id, Unreadable):
        reason = "missing" if cluster_id is None else f"unreadable ({cluster_id.reason})"
        yield MigrationClusterIdMissing(reason=reason), Where(CLUSTER_ID)


def _cluster_id_spark(i: SparkInput) -> DataFrame | None:
    from pyspark.sql import functions as F

    reason = i.frames.facts.cluster_id_reason
    if reason is None:
        return None
    return rows(i.frames.one_row, finding(MigrationClusterIdMissing, F.lit(None), F.lit(None), F.lit(None),
                                          F.lit(CLUSTER_ID), reason=F.lit(reason)))  # fmt: skip


def _protocol(c: ClusterFacts) -> Iterator[Found]:
    for broker_id, broker in sorted(c.snapshot.brokers.items()):
        reg = broker.registration
        if isinstance(reg, BrokerRegistration) and reg.version < 5:
            yield MigrationProtocolTooOld(version=reg.version), Where(broker_path(broker_id), broker=broker_id)


def _protocol_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    broker = c("broker")
    return rows(i.frames.brokers.where(c("readable") & (c("version") < 5)),
                finding(MigrationProtocolTooOld, F.lit(None), F.lit(None), broker,
                        F.concat(F.lit(f"{BROKER_IDS}/"), broker.cast("string")), version=c("version")))  # fmt: skip


def _reassignments(c: ClusterFacts) -> Iterator[Found]:
    moving: dict[str, set[int]] = defaultdict(set)
    for name, entry in c.snapshot.topics.items():
        if isinstance(entry.assignment, TopicAssignment):
            moving[name].update(entry.assignment.reassigning_partitions)
    for topic, partition in c.requests:
        moving[topic].add(partition)
    for name in sorted(t for t, parts in moving.items() if parts):
        requested = name in c.requested_topics
        path = REASSIGN_PARTITIONS if requested else topic_path(name)
        yield (
            MigrationReassignmentPending(partitions=tuple(sorted(moving[name])), requested=requested),
            Where(path, name),
        )


def _reassignments_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    parts = i.frames.parts.where(c("assigned"))
    moving = parts.where((F.size("adding") > 0) | (F.size("removing") > 0)).select("topic", "partition")
    requested = i.frames.requests.select("topic", "partition")
    asked = requested.select("topic").distinct().withColumn("requested", F.lit(True))
    grouped = (
        moving.unionByName(requested)
        .groupBy("topic")
        .agg(F.array_sort(F.collect_set("partition")).alias("partitions"))
        .join(asked, "topic", "left")
    )
    was_asked = F.coalesce(c("requested"), F.lit(False))
    where = F.when(was_asked, F.lit(REASSIGN_PARTITIONS)).otherwise(topic_path_col(c("topic")))
    return rows(grouped, finding(MigrationReassignmentPending, c("topic"), F.lit(None), F.lit(None), where,
                                 partitions=c("partitions"), requested=was_asked))  # fmt: skip


def _deletions(c: ClusterFacts) -> Iterator[Found]:
    for name in sorted(c.snapshot.deletion_markers):
        yield MigrationDeletionPending(), Where(deletion_marker_path(name), name)


def _deletions_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    return rows(i.frames.markers, finding(MigrationDeletionPending, c("topic"), F.lit(None), F.lit(None),
                                          F.concat(F.lit(f"{DELETE_TOPICS}/"), c("topic"))))  # fmt: skip


def _leaderless(c: ClusterFacts) -> Iterator[Found]:
    for topic, partition, _replicas, state in c.snapshot.iter_partitions():
        if isinstance(state, PartitionState) and state.leader == -1:
            yield MigrationLeaderlessPartition(isr=state.isr), Where(state_path(topic, partition), topic, partition)


def _leaderless_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    parts = i.frames.parts.where(c("assigned"))
    return rows(parts.where((c("state") == "ok") & (c("leader") == -1)),
                finding(MigrationLeaderlessPartition, c("topic"), c("partition"), F.lit(None),
                        state_path_col(c("topic"), c("partition")), isr=c("isr")))  # fmt: skip


def _tokens(c: ClusterFacts) -> Iterator[Found]:
    tokens = c.snapshot.delegation_tokens
    if isinstance(tokens, Unreadable):
        yield MigrationDelegationTokens(reason=tokens.reason), Where(TOKENS)
    elif tokens:
        yield MigrationDelegationTokens(tokens=tokens), Where(TOKENS)


def _tokens_spark(i: SparkInput) -> DataFrame | None:
    from pyspark.sql import functions as F

    facts = i.frames.facts
    none, path = F.lit(None), F.lit(TOKENS)
    if facts.delegation_tokens_reason is not None:
        reason = F.lit(facts.delegation_tokens_reason)
        return rows(i.frames.one_row, finding(MigrationDelegationTokens, none, none, none, path, reason=reason))
    if facts.delegation_tokens:
        tokens = F.lit(facts.delegation_tokens)
        return rows(i.frames.one_row, finding(MigrationDelegationTokens, none, none, none, path, tokens=tokens))
    return None


MIGRATION_CLUSTER_ID_MISSING = Check(
    CheckSpec(
        "migration_cluster_id_missing",
        Severity.ERROR,
        Subject.CLUSTER,
        "No cluster id to format the KRaft controllers with",
        "The KRaft controllers must be formatted with the ZooKeeper cluster's id (/cluster/id, written by the "
        "first broker): ZooKeeper brokers with another cluster id cannot register with them.",
        "§2.11, §9.15; Kafka's migration guide",
        group=MIGRATION,
    ),
    MigrationClusterIdMissing,
    local={MIGRATION: _cluster_id},
    spark={MIGRATION: _cluster_id_spark},
)
MIGRATION_PROTOCOL_TOO_OLD = Check(
    CheckSpec(
        "migration_protocol_too_old",
        Severity.ERROR,
        Subject.BROKER,
        "Broker's inter.broker.protocol.version is below 3.4",
        "A broker enters migration mode only at inter.broker.protocol.version 3.4 or higher (KafkaConfig: 'Cannot "
        "enable ZooKeeper migration without setting inter.broker.protocol.version to 3.4 or higher'), equal to "
        "the controllers' metadata.version; a v4 or older registration means an IBP below 2.7-IV0.",
        "§2.3, §10; KIP-866",
        group=MIGRATION,
    ),
    MigrationProtocolTooOld,
    local={MIGRATION: _protocol},
    spark={MIGRATION: _protocol_spark},
)
MIGRATION_REASSIGNMENT_PENDING = Check(
    CheckSpec(
        "migration_reassignment_pending",
        Severity.ERROR,
        Subject.TOPIC,
        "Partition reassignment in progress",
        "Kafka's migration guide asks for no reassignment in flight: the ZooKeeper controller that runs it is "
        "replaced by the KRaft controller, which does not resume /admin/reassign_partitions requests.",
        "§2.4, §2.7; Kafka's migration guide",
        group=MIGRATION,
    ),
    MigrationReassignmentPending,
    local={MIGRATION: _reassignments},
    spark={MIGRATION: _reassignments_spark},
)
MIGRATION_DELETION_PENDING = Check(
    CheckSpec(
        "migration_deletion_pending",
        Severity.ERROR,
        Subject.TOPIC,
        "Topic queued for deletion",
        "The KRaft controller migrates topics, not the ZooKeeper controller's deletion queue "
        "(/admin/delete_topics); finish or cancel deletions before migrating.",
        "§2.6, §7",
        group=MIGRATION,
    ),
    MigrationDeletionPending,
    local={MIGRATION: _deletions},
    spark={MIGRATION: _deletions_spark},
)
MIGRATION_LEADERLESS_PARTITION = Check(
    CheckSpec(
        "migration_leaderless_partition",
        Severity.ERROR,
        Subject.PARTITION,
        "Partition without a leader",
        "The migration copies partition states as they are: a partition with leader -1 stays offline in KRaft, "
        "and Kafka's guide asks for a healthy cluster before migrating.",
        "§2.5",
        group=MIGRATION,
    ),
    MigrationLeaderlessPartition,
    local={MIGRATION: _leaderless},
    spark={MIGRATION: _leaderless_spark},
)
MIGRATION_DELEGATION_TOKENS = Check(
    CheckSpec(
        "migration_delegation_tokens",
        Severity.WARNING,
        Subject.CLUSTER,
        "Delegation tokens that only Kafka 3.6+ migrates",
        "The KRaft controller copies /delegation_token/tokens only from Kafka 3.6 at metadata.version 3.6-IV2 or "
        "higher (KAFKA-15219: ZkDelegationTokenMigrationClient, MetadataVersion.isDelegationTokenSupported); "
        "3.4-3.5 controllers, or a lower metadata.version, leave them behind (the image writer drops them), and "
        "clients authenticating with them fail once the brokers run KRaft.",
        "§2.12; KIP-866, KAFKA-15219",
        group=MIGRATION,
    ),
    MigrationDelegationTokens,
    local={MIGRATION: _tokens},
    spark={MIGRATION: _tokens_spark},
)
