"""The registry of consistency checks: one unit per check, in one module per scope.

``REGISTRY`` lists every check in report order (the catalog's order). Each unit is its ``CheckSpec``, its
typed evidence record with the finding's sentence, and the passes of each engine that produce it; see
``docs/development.md`` ("Adding a check") for everything a new check needs.
"""

from __future__ import annotations

from core.consistency.checks import cluster, deletions, migration, partitions, reassignments, served, topics
from core.consistency.checks.unit import Check, Evidence

REGISTRY: tuple[Check, ...] = (
    cluster.NO_CONTROLLER,
    cluster.CONTROLLER_NOT_REGISTERED,
    cluster.BROKER_REGISTRATION_INVALID,
    partitions.RACK_VIOLATION,
    cluster.UNREADABLE_ZNODE,
    topics.TOPIC_NAME_INVALID,
    topics.TOPIC_NAME_COLLISION,
    topics.NON_CONTIGUOUS_PARTITIONS,
    topics.INCONSISTENT_REPLICATION_FACTOR,
    partitions.DUPLICATE_REPLICA,
    partitions.PARTITION_STATE_MISSING,
    partitions.ORPHAN_PARTITION_STATE,
    partitions.EMPTY_ISR,
    partitions.LEADER_NOT_IN_ISR,
    partitions.ISR_NOT_SUBSET_OF_REPLICAS,
    partitions.CONTROLLER_EPOCH_AHEAD,
    partitions.OFFLINE_PARTITION,
    partitions.UNDER_MIN_ISR,
    partitions.UNDER_REPLICATED,
    partitions.REPLICA_ON_UNKNOWN_BROKER,
    partitions.LEADER_IMBALANCE,
    partitions.PREFERRED_LEADER_NOT_LEADER,
    deletions.DELETION_STUCK,
    deletions.DELETION_PENDING,
    cluster.STALE_DELETION_MARKER,
    cluster.ORPHAN_TOPIC_CONFIG,
    reassignments.REASSIGNMENT_IN_PROGRESS,
    reassignments.INVALID_REASSIGNMENT_REQUEST,
    cluster.NOTIFICATION_BACKLOG,
    served.METADATA_MISMATCH,
    migration.MIGRATION_CLUSTER_ID_MISSING,
    migration.MIGRATION_PROTOCOL_TOO_OLD,
    migration.MIGRATION_REASSIGNMENT_PENDING,
    migration.MIGRATION_DELETION_PENDING,
    migration.MIGRATION_LEADERLESS_PARTITION,
    migration.MIGRATION_DELEGATION_TOKENS,
)

UNITS: dict[str, Check] = {unit.id: unit for unit in REGISTRY}
EVIDENCE: dict[str, type[Evidence]] = {unit.id: unit.evidence for unit in REGISTRY}
