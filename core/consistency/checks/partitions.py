"""Per-partition checks: replica lists, partition states, availability (``partition_health``), racks,
preferred leaders and the leader balance of each broker."""

from __future__ import annotations

from dataclasses import dataclass

from core.consistency.checks.text import count, ids, names, offline_note, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

Ints = tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RackViolation(Evidence):
    """Cluster-wide form (``brokers_with_rack``/``brokers_without_rack``) or per partition (the rest)."""

    check = "rack_violation"
    brokers_with_rack: Ints | None = None
    brokers_without_rack: Ints | None = None
    replicas: Ints | None = None
    replica_racks: tuple[str, ...] | None = None
    distinct_racks: int | None = None
    expected_racks: int | None = None

    def sentence(self, at: Where) -> str:
        if at.topic is None:
            return (
                f"Only some brokers have a rack (without: {ids(self.brokers_without_rack)}, with: "
                f"{ids(self.brokers_with_rack)}): rack-aware admin operations (Enforced mode) fail."
            )
        return (
            f"Partition {tp(at.topic, at.partition)} has replicas {ids(self.replicas)} on racks "
            f"{names(self.replica_racks)}: {self.distinct_racks} distinct rack(s) where rack-aware placement gives "
            f"{self.expected_racks}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateReplica(Evidence):
    check = "duplicate_replica"
    replicas: Ints
    duplicates: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} lists broker(s) {ids(self.duplicates)} more than once in its "
            f"replicas {ids(self.replicas)}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PartitionStateMissing(Evidence):
    check = "partition_state_missing"
    replicas: Ints
    offline_replicas: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} (replicas {ids(self.replicas)}) has no state znode: no leader "
            f"was ever elected for it{offline_note(self.offline_replicas)}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class OrphanPartitionState(Evidence):
    check = "orphan_partition_state"
    partition_count: int

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} has a state znode but topic '{at.topic}' is assigned "
            f"{count(self.partition_count, 'partition')}: a leftover of a restored delete or a manual edit."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class EmptyIsr(Evidence):
    check = "empty_isr"
    leader: int
    replicas: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} has an empty ISR (leader {self.leader}, replicas "
            f"{ids(self.replicas)}): no replica can be elected cleanly."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderNotInIsr(Evidence):
    check = "leader_not_in_isr"
    leader: int
    isr: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} is led by broker {self.leader}, which is not in its ISR "
            f"{ids(self.isr)}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class IsrNotSubsetOfReplicas(Evidence):
    check = "isr_not_subset_of_replicas"
    isr: Ints
    replicas: Ints
    not_replicas: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} has ISR {ids(self.isr)} with broker(s) {ids(self.not_replicas)} "
            f"that are not among its replicas {ids(self.replicas)}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ControllerEpochAhead(Evidence):
    check = "controller_epoch_ahead"
    state_controller_epoch: int
    controller_epoch: int

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} was written by controller epoch {self.state_controller_epoch}, "
            f"ahead of /controller_epoch {self.controller_epoch}: the state was edited by hand or /controller_epoch "
            "reset."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class OfflinePartition(Evidence):
    check = "offline_partition"
    leader: int | None = None  # absent without a readable state
    isr: Ints
    replicas: Ints
    offline_replicas: Ints
    queued_for_deletion: bool | None = None

    def sentence(self, at: Where) -> str:
        if self.leader is None:
            why = "it has no readable state znode, so no leader"
        elif self.leader < 0:
            why = f"it has no leader (leader {self.leader})"
        else:
            why = f"its leader, broker {self.leader}, is not registered"
        note = offline_note(self.offline_replicas, self.queued_for_deletion)
        return f"Partition {tp(at.topic, at.partition)} is offline: {why}; ISR {ids(self.isr)}{note}."


@dataclass(frozen=True, slots=True, kw_only=True)
class UnderMinIsr(Evidence):
    check = "under_min_isr"
    isr: Ints
    replicas: Ints
    min_insync_replicas: int | None = None
    min_isr_source: str | None = None
    has_live_leader: bool
    offline_replicas: Ints
    queued_for_deletion: bool | None = None

    def sentence(self, at: Where) -> str:
        note = offline_note(self.offline_replicas, self.queued_for_deletion)
        if self.has_live_leader is False:
            return f"Partition {tp(at.topic, at.partition)} has no live leader: producers with acks=all fail{note}."
        return (
            f"Partition {tp(at.topic, at.partition)} has {len(self.isr)} in-sync replica(s) {ids(self.isr)}, fewer "
            f"than min.insync.replicas={self.min_insync_replicas} ({self.min_isr_source}): producers with acks=all "
            f"fail{note}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class UnderReplicated(Evidence):
    check = "under_replicated"
    isr: Ints
    replicas: Ints
    replication_factor: int
    offline_replicas: Ints
    queued_for_deletion: bool | None = None

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} is under-replicated: {len(self.isr)} of "
            f"{self.replication_factor} replicas in sync (ISR {ids(self.isr)}, replicas {ids(self.replicas)})"
            f"{offline_note(self.offline_replicas, self.queued_for_deletion)}."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplicaOnUnknownBroker(Evidence):
    check = "replica_on_unknown_broker"
    replicas: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} has a replica on broker {at.broker}, which is not registered "
            f"(replicas {ids(self.replicas)}): that replica is offline."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class LeaderImbalance(Evidence):
    check = "leader_imbalance"
    preferred_partitions: int
    led_elsewhere: int
    threshold_percent: int

    def sentence(self, at: Where) -> str:
        return (
            f"Broker {at.broker} is the preferred leader of {count(self.preferred_partitions, 'partition')} but "
            f"{self.led_elsewhere} are led elsewhere, above leader.imbalance.per.broker.percentage="
            f"{self.threshold_percent}: a preferred replica election would move them back."
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class PreferredLeaderNotLeader(Evidence):
    check = "preferred_leader_not_leader"
    leader: int
    preferred_live: bool
    preferred_in_isr: bool

    def sentence(self, at: Where) -> str:
        if self.preferred_live and self.preferred_in_isr:
            electable = "it is live and in the ISR, so a preferred election would move leadership back"
        elif not self.preferred_live:
            electable = "it is not registered"
        else:
            electable = "it is not in the ISR"
        return (
            f"Partition {tp(at.topic, at.partition)} is led by broker {self.leader}, not its preferred leader "
            f"{at.broker}: {electable}."
        )


RACK_VIOLATION = Check(
    CheckSpec(
        "rack_violation",
        Severity.WARNING,
        Subject.PARTITION,
        "Rack information is partial, or replicas share a rack",
        "Racks are all present or all absent (otherwise Enforced-mode admin operations fail); rack-aware "
        "assignment puts replicas on min(replication factor, racks) distinct racks.",
        "§3.1, §3.4, §3.6, §9.14",
    ),
    RackViolation,
    "partitions",
    ("partitions", "cluster"),
)
DUPLICATE_REPLICA = Check(
    CheckSpec(
        "duplicate_replica",
        Severity.ERROR,
        Subject.PARTITION,
        "Replica list names a broker twice",
        "No replica list may hold a broker twice (creation and expansion reject it).",
        "§4.2, §9.1",
    ),
    DuplicateReplica,
    "partitions",
    ("partitions",),
)
PARTITION_STATE_MISSING = Check(
    CheckSpec(
        "partition_state_missing",
        Severity.ERROR,
        Subject.PARTITION,
        "Partition has no state znode",
        "The controller creates partitions/<p>/state when the partition first goes online; it is missing "
        "when no replica was ever live or the controller never processed the topic.",
        "§2.5, §9.5",
    ),
    PartitionStateMissing,
    "partitions",
    ("partitions",),
)
ORPHAN_PARTITION_STATE = Check(
    CheckSpec(
        "orphan_partition_state",
        Severity.WARNING,
        Subject.PARTITION,
        "State znode of a partition the topic does not have",
        "State znodes beyond the assignment are left over from the restore-on-delete path or manual edits.",
        "§9.7",
    ),
    OrphanPartitionState,
    "partitions",
    ("partitions",),
)
EMPTY_ISR = Check(
    CheckSpec(
        "empty_isr",
        Severity.ERROR,
        Subject.PARTITION,
        "ISR is empty",
        "Kafka 1.1+ never shrinks the ISR below its last member; an empty ISR (possible before 1.1 with "
        "unclean election) leaves no replica to elect cleanly.",
        "§2.5, §9.6",
    ),
    EmptyIsr,
    "partitions",
    ("partitions",),
)
LEADER_NOT_IN_ISR = Check(
    CheckSpec(
        "leader_not_in_isr",
        Severity.ERROR,
        Subject.PARTITION,
        "Leader is not in the ISR",
        "The leader is always an ISR member (or -1 when there is none).",
        "§2.5, §9.6",
    ),
    LeaderNotInIsr,
    "partitions",
    ("partitions",),
)
ISR_NOT_SUBSET_OF_REPLICAS = Check(
    CheckSpec(
        "isr_not_subset_of_replicas",
        Severity.ERROR,
        Subject.PARTITION,
        "ISR holds a broker that is not a replica",
        "The ISR is a subset of the partition's replicas.",
        "§2.5, §9.6",
    ),
    IsrNotSubsetOfReplicas,
    "partitions",
    ("partitions",),
)
CONTROLLER_EPOCH_AHEAD = Check(
    CheckSpec(
        "controller_epoch_ahead",
        Severity.ERROR,
        Subject.PARTITION,
        "State written by a controller newer than /controller_epoch",
        "Every state's controller_epoch is at most /controller_epoch, which only ever grows.",
        "§2.2, §9.6",
    ),
    ControllerEpochAhead,
    "partitions",
    ("partitions",),
)
OFFLINE_PARTITION = Check(
    CheckSpec(
        "offline_partition",
        Severity.ERROR,
        Subject.PARTITION,
        "Partition is offline",
        "A partition is online only while its leader is a registered (live) broker; leader -1 means none.",
        "§2.5, §9.1",
    ),
    OfflinePartition,
    "partitions",
    ("partitions",),
)
UNDER_MIN_ISR = Check(
    CheckSpec(
        "under_min_isr",
        Severity.ERROR,
        Subject.PARTITION,
        "Fewer in-sync replicas than min.insync.replicas",
        "Producers with acks=all fail while the ISR is smaller than min.insync.replicas (topic override, "
        "else the broker default).",
        "§2.9",
    ),
    UnderMinIsr,
    "partitions",
    ("partitions",),
)
UNDER_REPLICATED = Check(
    CheckSpec(
        "under_replicated",
        Severity.WARNING,
        Subject.PARTITION,
        "Partition is under-replicated",
        "The ISR should hold every replica; during a reassignment the adding replicas do not count "
        "(Kafka's OngoingReassignmentState.replicationFactor).",
        "§2.4, §2.5",
    ),
    UnderReplicated,
    "partitions",
    ("partitions",),
)
REPLICA_ON_UNKNOWN_BROKER = Check(
    CheckSpec(
        "replica_on_unknown_broker",
        Severity.WARNING,
        Subject.PARTITION,
        "Replica on a broker that is not registered",
        "Every replica's broker should be in /brokers/ids; a missing one means that replica is offline.",
        "§9.1",
    ),
    ReplicaOnUnknownBroker,
    "partitions",
    ("partitions",),
)
LEADER_IMBALANCE = Check(
    CheckSpec(
        "leader_imbalance",
        Severity.WARNING,
        Subject.BROKER,
        "Broker leads too few of its preferred partitions",
        "The controller rebalances when the share of a live broker's preferred partitions led elsewhere "
        "exceeds leader.imbalance.per.broker.percentage (10 by default), topics being deleted excluded.",
        "§2.5 (preferred replica election)",
    ),
    LeaderImbalance,
    "partitions",
    ("leaders",),
)
PREFERRED_LEADER_NOT_LEADER = Check(
    CheckSpec(
        "preferred_leader_not_leader",
        Severity.INFO,
        Subject.PARTITION,
        "Leader is not the preferred replica",
        "The first replica of the assignment is the preferred leader; a preferred election moves leadership "
        "back when it is live and in the ISR.",
        "§2.5, §3",
    ),
    PreferredLeaderNotLeader,
    "partitions",
    ("partitions",),
)
