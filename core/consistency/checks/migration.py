"""Readiness for a ZooKeeper-to-KRaft migration (``kzc migration``; ``kzc check --only migration_...``)."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import ids, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

MIGRATION = "migration"


@dataclass(frozen=True, slots=True, kw_only=True)
class MigrationClusterIdMissing(Evidence):
    check = "migration_cluster_id_missing"
    reason: str

    def sentence(self, at: Where) -> str:
        return (
            f"/cluster/id is {self.reason}: the KRaft controllers need this cluster's id to be formatted with "
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
    MIGRATION,
    (MIGRATION,),
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
    MIGRATION,
    (MIGRATION,),
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
    MIGRATION,
    (MIGRATION,),
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
    MIGRATION,
    (MIGRATION,),
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
    MIGRATION,
    (MIGRATION,),
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
    MIGRATION,
    (MIGRATION,),
)
