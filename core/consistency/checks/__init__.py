"""The registry of consistency checks: one unit per check, in one module per scope.

``REGISTRY`` lists every check in report order (the catalog's order). Each unit is its ``CheckSpec``, its
typed evidence record with the finding's sentence, and the passes of each engine that produce it; see
``docs/development.md`` ("Adding a check") for everything a new check needs.
"""

from __future__ import annotations

from core.consistency.checks import (
    availability,
    cluster_wide,
    deletions,
    leaders,
    migration,
    partition_states,
    reassignments,
    replicas,
    served,
    topics,
)
from core.consistency.checks.unit import Check, Evidence

REGISTRY: tuple[Check, ...] = (
    cluster_wide.NO_CONTROLLER,
    cluster_wide.CONTROLLER_NOT_REGISTERED,
    cluster_wide.BROKER_REGISTRATION_INVALID,
    replicas.RACK_VIOLATION,
    cluster_wide.UNREADABLE_ZNODE,
    topics.TOPIC_NAME_INVALID,
    topics.TOPIC_NAME_COLLISION,
    topics.NON_CONTIGUOUS_PARTITIONS,
    topics.INCONSISTENT_REPLICATION_FACTOR,
    replicas.DUPLICATE_REPLICA,
    partition_states.PARTITION_STATE_MISSING,
    partition_states.ORPHAN_PARTITION_STATE,
    partition_states.EMPTY_ISR,
    partition_states.LEADER_NOT_IN_ISR,
    partition_states.ISR_NOT_SUBSET_OF_REPLICAS,
    partition_states.CONTROLLER_EPOCH_AHEAD,
    availability.OFFLINE_PARTITION,
    availability.UNDER_MIN_ISR,
    availability.UNDER_REPLICATED,
    replicas.REPLICA_ON_UNKNOWN_BROKER,
    leaders.LEADER_IMBALANCE,
    leaders.PREFERRED_LEADER_NOT_LEADER,
    deletions.DELETION_STUCK,
    deletions.DELETION_PENDING,
    cluster_wide.STALE_DELETION_MARKER,
    cluster_wide.ORPHAN_TOPIC_CONFIG,
    reassignments.REASSIGNMENT_IN_PROGRESS,
    reassignments.INVALID_REASSIGNMENT_REQUEST,
    cluster_wide.NOTIFICATION_BACKLOG,
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
