"""The check catalog: every consistency check kzc runs, with its stable id, severity and the Kafka rule.

Ids are stable: scripts filter on them (``kzc check --only``) and ``docs/checks.md`` documents each one.
The order of ``CHECKS`` is the order findings are reported in. Every check has one severity; a problem
is reported under the most specific id only (``docs/checks.md`` lists which id wins over which).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from core.errors import UsageError
from core.kafka.znodes.paths import CONTROLLER, deletion_marker_path, topic_config_path


class Severity(enum.Enum):
    """How bad a finding is; any ``ERROR`` makes ``kzc check`` exit with 1."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """0 for errors, 1 for warnings, 2 for info: the report's sort order."""
        return _RANKS[self]


_RANKS = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


class Scope(enum.Enum):
    """What one finding of a check is about."""

    CLUSTER = "cluster"
    BROKER = "broker"
    TOPIC = "topic"
    PARTITION = "partition"
    ZNODE = "znode"


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One check of the catalog.

    ``rule`` is the Kafka behaviour the check relies on, ``reference`` the section of zk-layout.md that
    describes it. ``needs_brokers`` checks run only when the brokers' metadata was fetched
    (``--bootstrap-server``).
    """

    id: str
    severity: Severity
    scope: Scope
    title: str
    rule: str
    reference: str
    needs_brokers: bool = False
    group: str = "consistency"  # "migration": readiness for a ZooKeeper-to-KRaft migration, run when asked


CHECKS: tuple[CheckSpec, ...] = (
    CheckSpec(
        "no_controller",
        Severity.ERROR,
        Scope.CLUSTER,
        "No active controller",
        f"{CONTROLLER} is an ephemeral znode held by the active controller; without it nothing elects leaders, "
        "shrinks ISRs, reassigns or deletes.",
        "§2.1, §9.13",
    ),
    CheckSpec(
        "controller_not_registered",
        Severity.ERROR,
        Scope.CLUSTER,
        "Controller is not a registered broker",
        f"{CONTROLLER} brokerid must be a broker in /brokers/ids, unless a KRaft controller holds it during "
        "migration (kraftControllerEpoch >= 0).",
        "§2.1, §9.13",
    ),
    CheckSpec(
        "broker_registration_invalid",
        Severity.ERROR,
        Scope.BROKER,
        "Broker registration is invalid",
        "A registration must decode as Kafka 3.9 decodes it, carry the fields of its version, map every "
        "listener to a security protocol (v4+), and no two brokers may advertise the same endpoint.",
        "§2.3, §9.14",
    ),
    CheckSpec(
        "rack_violation",
        Severity.WARNING,
        Scope.PARTITION,
        "Rack information is partial, or replicas share a rack",
        "Racks are all present or all absent (otherwise Enforced-mode admin operations fail); rack-aware "
        "assignment puts replicas on min(replication factor, racks) distinct racks.",
        "§3.1, §3.4, §3.6, §9.14",
    ),
    CheckSpec(
        "unreadable_znode",
        Severity.ERROR,
        Scope.ZNODE,
        "Znode not in Kafka's format",
        "Kafka's readers fail on data that is not in the format it writes; the controller cannot use it.",
        "§2",
    ),
    CheckSpec(
        "topic_name_invalid",
        Severity.ERROR,
        Scope.TOPIC,
        "Topic name Kafka rejects",
        "Topic.validate: non-empty, not '.' or '..', at most 249 characters, only [a-zA-Z0-9._-].",
        "§6.1, §9.12",
    ),
    CheckSpec(
        "topic_name_collision",
        Severity.WARNING,
        Scope.TOPIC,
        "Topic names collide in metric names",
        "Two names that are equal once every '.' becomes '_' collide; creation rejects this from 0.9 on.",
        "§6.2, §9.12",
    ),
    CheckSpec(
        "non_contiguous_partitions",
        Severity.ERROR,
        Scope.TOPIC,
        "Partition ids are not 0..N-1",
        "Kafka writes partitions 0..N-1; adding partitions needs partition 0 and creation requires a "
        "consecutive 0-based sequence (2.3+).",
        "§4.2, §4.3, §9.1",
    ),
    CheckSpec(
        "inconsistent_replication_factor",
        Severity.WARNING,
        Scope.TOPIC,
        "Partitions have different replication factors",
        "Legal (reassignment can change it per partition) but suspicious; Kafka's tools take partition 0's "
        "replication factor for new partitions.",
        "§9.2",
    ),
    CheckSpec(
        "duplicate_replica",
        Severity.ERROR,
        Scope.PARTITION,
        "Replica list names a broker twice",
        "No replica list may hold a broker twice (creation and expansion reject it).",
        "§4.2, §9.1",
    ),
    CheckSpec(
        "partition_state_missing",
        Severity.ERROR,
        Scope.PARTITION,
        "Partition has no state znode",
        "The controller creates partitions/<p>/state when the partition first goes online; it is missing "
        "when no replica was ever live or the controller never processed the topic.",
        "§2.5, §9.5",
    ),
    CheckSpec(
        "orphan_partition_state",
        Severity.WARNING,
        Scope.PARTITION,
        "State znode of a partition the topic does not have",
        "State znodes beyond the assignment are left over from the restore-on-delete path or manual edits.",
        "§9.7",
    ),
    CheckSpec(
        "empty_isr",
        Severity.ERROR,
        Scope.PARTITION,
        "ISR is empty",
        "Kafka 1.1+ never shrinks the ISR below its last member; an empty ISR (possible before 1.1 with "
        "unclean election) leaves no replica to elect cleanly.",
        "§2.5, §9.6",
    ),
    CheckSpec(
        "leader_not_in_isr",
        Severity.ERROR,
        Scope.PARTITION,
        "Leader is not in the ISR",
        "The leader is always an ISR member (or -1 when there is none).",
        "§2.5, §9.6",
    ),
    CheckSpec(
        "isr_not_subset_of_replicas",
        Severity.ERROR,
        Scope.PARTITION,
        "ISR holds a broker that is not a replica",
        "The ISR is a subset of the partition's replicas.",
        "§2.5, §9.6",
    ),
    CheckSpec(
        "controller_epoch_ahead",
        Severity.ERROR,
        Scope.PARTITION,
        "State written by a controller newer than /controller_epoch",
        "Every state's controller_epoch is at most /controller_epoch, which only ever grows.",
        "§2.2, §9.6",
    ),
    CheckSpec(
        "offline_partition",
        Severity.ERROR,
        Scope.PARTITION,
        "Partition is offline",
        "A partition is online only while its leader is a registered (live) broker; leader -1 means none.",
        "§2.5, §9.1",
    ),
    CheckSpec(
        "under_min_isr",
        Severity.ERROR,
        Scope.PARTITION,
        "Fewer in-sync replicas than min.insync.replicas",
        "Producers with acks=all fail while the ISR is smaller than min.insync.replicas (topic override, "
        "else the broker default).",
        "§2.9",
    ),
    CheckSpec(
        "under_replicated",
        Severity.WARNING,
        Scope.PARTITION,
        "Partition is under-replicated",
        "The ISR should hold every replica; during a reassignment the adding replicas do not count "
        "(Kafka's OngoingReassignmentState.replicationFactor).",
        "§2.4, §2.5",
    ),
    CheckSpec(
        "replica_on_unknown_broker",
        Severity.WARNING,
        Scope.PARTITION,
        "Replica on a broker that is not registered",
        "Every replica's broker should be in /brokers/ids; a missing one means that replica is offline.",
        "§9.1",
    ),
    CheckSpec(
        "leader_imbalance",
        Severity.WARNING,
        Scope.BROKER,
        "Broker leads too few of its preferred partitions",
        "The controller rebalances when the share of a live broker's preferred partitions led elsewhere "
        "exceeds leader.imbalance.per.broker.percentage (10 by default), topics being deleted excluded.",
        "§2.5 (preferred replica election)",
    ),
    CheckSpec(
        "preferred_leader_not_leader",
        Severity.INFO,
        Scope.PARTITION,
        "Leader is not the preferred replica",
        "The first replica of the assignment is the preferred leader; a preferred election moves leadership "
        "back when it is live and in the ISR.",
        "§2.5, §3",
    ),
    CheckSpec(
        "deletion_stuck",
        Severity.WARNING,
        Scope.TOPIC,
        "Topic deletion cannot progress",
        "A queued topic stays while a replica's broker is down, a reassignment of it is in progress, there "
        "is no controller, or (marker older than 15 minutes) delete.topic.enable=false or a failed "
        "StopReplica.",
        "§7.4, §9.8",
    ),
    CheckSpec(
        "deletion_pending",
        Severity.INFO,
        Scope.TOPIC,
        "Topic queued for deletion",
        f"{deletion_marker_path('<t>')} is the deletion request; the controller removes it when the topic is gone.",
        "§2.6, §7",
    ),
    CheckSpec(
        "stale_deletion_marker",
        Severity.WARNING,
        Scope.TOPIC,
        "Deletion marker for a topic that does not exist",
        "The controller removes markers of unknown topics on its next deletion event; a lingering one means "
        "no controller event since.",
        "§7.1, §9.8",
    ),
    CheckSpec(
        "orphan_topic_config",
        Severity.WARNING,
        Scope.TOPIC,
        "Topic config without a topic",
        f"{topic_config_path('<t>')} is written before /brokers/topics/<t> and deleted after it, not transactionally: "
        "a failed create or an interrupted delete leaves an orphan.",
        "§5.1, §9.9",
    ),
    CheckSpec(
        "reassignment_in_progress",
        Severity.INFO,
        Scope.PARTITION,
        "Partition reassignment in progress",
        "Non-empty adding/removing replicas (2.4+) or an entry in /admin/reassign_partitions mean a "
        "reassignment is in flight; it blocks CreatePartitions and topic deletion.",
        "§2.4, §2.7, §9.3",
    ),
    CheckSpec(
        "invalid_reassignment_request",
        Severity.ERROR,
        Scope.PARTITION,
        "Reassignment that cannot complete",
        "The controller does not validate /admin/reassign_partitions: entries for missing topics or "
        "partitions, empty or duplicate lists and unknown brokers must be caught here; and adding and "
        "removing replicas are disjoint subsets of the replicas.",
        "§2.4, §2.7, §9.3, §9.10",
    ),
    CheckSpec(
        "notification_backlog",
        Severity.WARNING,
        Scope.ZNODE,
        "Notifications nobody consumes",
        "The controller deletes ISR-change and log-dir-event notifications once processed, and brokers purge "
        "config changes older than 15 minutes when they process a newer one; older entries mean the "
        "controller is absent or stuck, or brokers are not consuming them.",
        "§2.9, §2.10, §9.11",
    ),
    CheckSpec(
        "metadata_mismatch",
        Severity.WARNING,
        Scope.PARTITION,
        "Brokers serve different metadata than ZooKeeper holds",
        "Brokers learn leaders, ISRs and replicas from the controller (UpdateMetadata); a lasting difference "
        "means a broker missed updates or ZooKeeper was edited behind the controller's back.",
        "§2.5",
        needs_brokers=True,
    ),
    # ---- readiness for a ZooKeeper-to-KRaft migration (kzc migration; kzc check --only migration_...) ----
    CheckSpec(
        "migration_cluster_id_missing",
        Severity.ERROR,
        Scope.CLUSTER,
        "No cluster id to format the KRaft controllers with",
        "The KRaft controllers must be formatted with the ZooKeeper cluster's id (/cluster/id, written by the "
        "first broker): ZooKeeper brokers with another cluster id cannot register with them.",
        "§2.11, §9.15; Kafka's migration guide",
        group="migration",
    ),
    CheckSpec(
        "migration_protocol_too_old",
        Severity.ERROR,
        Scope.BROKER,
        "Broker's inter.broker.protocol.version is below 3.4",
        "A broker enters migration mode only at inter.broker.protocol.version 3.4 or higher (KafkaConfig: 'Cannot "
        "enable ZooKeeper migration without setting inter.broker.protocol.version to 3.4 or higher'), equal to "
        "the controllers' metadata.version; a v4 or older registration means an IBP below 2.7-IV0.",
        "§2.3, §10; KIP-866",
        group="migration",
    ),
    CheckSpec(
        "migration_reassignment_pending",
        Severity.ERROR,
        Scope.TOPIC,
        "Partition reassignment in progress",
        "Kafka's migration guide asks for no reassignment in flight: the ZooKeeper controller that runs it is "
        "replaced by the KRaft controller, which does not resume /admin/reassign_partitions requests.",
        "§2.4, §2.7; Kafka's migration guide",
        group="migration",
    ),
    CheckSpec(
        "migration_deletion_pending",
        Severity.ERROR,
        Scope.TOPIC,
        "Topic queued for deletion",
        "The KRaft controller migrates topics, not the ZooKeeper controller's deletion queue "
        "(/admin/delete_topics); finish or cancel deletions before migrating.",
        "§2.6, §7",
        group="migration",
    ),
    CheckSpec(
        "migration_leaderless_partition",
        Severity.ERROR,
        Scope.PARTITION,
        "Partition without a leader",
        "The migration copies partition states as they are: a partition with leader -1 stays offline in KRaft, "
        "and Kafka's guide asks for a healthy cluster before migrating.",
        "§2.5",
        group="migration",
    ),
    CheckSpec(
        "migration_delegation_tokens",
        Severity.WARNING,
        Scope.CLUSTER,
        "Delegation tokens that only Kafka 3.6+ migrates",
        "The KRaft controller copies /delegation_token/tokens only from Kafka 3.6 at metadata.version 3.6-IV2 or "
        "higher (KAFKA-15219: ZkDelegationTokenMigrationClient, MetadataVersion.isDelegationTokenSupported); "
        "3.4-3.5 controllers, or a lower metadata.version, leave them behind (the image writer drops them), and "
        "clients authenticating with them fail once the brokers run KRaft.",
        "§2.12; KIP-866, KAFKA-15219",
        group="migration",
    ),
)

MIGRATION_CHECKS: tuple[str, ...] = tuple(s.id for s in CHECKS if s.group == "migration")

BY_ID: dict[str, CheckSpec] = {spec.id: spec for spec in CHECKS}
CHECK_IDS: tuple[str, ...] = tuple(spec.id for spec in CHECKS)
ORDER: dict[str, int] = {check_id: index for index, check_id in enumerate(CHECK_IDS)}


def parse_only(text: str | None) -> frozenset[str] | None:
    """The check ids of ``--only id,id`` (``None`` when not given: run every check).

    Raises:
        UsageError: an id is not in the catalog, or the list is empty.
    """
    if text is None:
        return None
    ids = [part.strip() for part in text.split(",") if part.strip()]
    if not ids:
        raise UsageError("--only needs at least one check id, e.g. --only offline_partition,under_replicated")
    unknown = [i for i in ids if i not in BY_ID]
    if unknown:
        raise UsageError(f"unknown check id(s) {', '.join(unknown)}; known: {', '.join(CHECK_IDS)} (docs/checks.md)")
    return frozenset(ids)


def selected(only: Iterable[str] | None, with_brokers: bool) -> tuple[str, ...]:
    """The ids to run, in catalog order: ``only`` (or all but the migration readiness checks), minus broker
    checks without broker metadata."""
    wanted = set(CHECK_IDS if only is None else only) - (set(MIGRATION_CHECKS) if only is None else set())
    return tuple(s.id for s in CHECKS if s.id in wanted and (with_brokers or not s.needs_brokers))
