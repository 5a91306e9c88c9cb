"""Per-partition checks: replica lists, partition states, availability (``partition_health``), racks,
preferred leaders and the leader balance of each broker; each with its Python rule (over
``facts.PartitionFacts``) beside its Spark rule (over ``columns.PartitionColumns``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, DataFrame, Many, PartitionColumns, SparkInput, finding, ints, rows
from core.consistency.checks.facts import (
    BrokerLeads,
    ClusterFacts,
    Found,
    PartitionFacts,
    TopicFacts,
    state_path,
    topic_path,
)
from core.consistency.checks.text import count, ids, names, offline_note, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes import PartitionState
from core.kafka.znodes.paths import BROKER_IDS, broker_path
from core.snapshot.health import over_imbalance_threshold, replication_factor

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
            f"{self.led_elsewhere} are not led by it, above leader.imbalance.per.broker.percentage="
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


# ---- the rules: Python over facts.PartitionFacts (the slow path's partitions), Spark over
# columns.PartitionColumns (the partition rows that are not quiet), side by side ----------------------


def _rack_violation(f: PartitionFacts) -> Iterator[Found]:
    if f.replica.rack is not None:
        racks, distinct, expected = f.replica.rack
        yield (
            RackViolation(replicas=f.replicas, replica_racks=racks, distinct_racks=distinct, expected_racks=expected),
            f.at_topic(),
        )


def _rack_violation_spark(c: PartitionColumns) -> Col | None:
    from pyspark.sql import functions as F

    rack_map = c.rack_map
    if rack_map is None or not c.racks_complete:
        return None
    registered = ints(sorted(c.inputs.frames.facts.registered))
    distinct = F.array_distinct(c.replicas)
    racks = F.transform(distinct, lambda b: F.element_at(rack_map, b))
    expected = F.least(F.size(distinct), F.lit(c.rack_count))
    return F.when(
        c.assigned & (F.size(c.replicas) > 0) & (F.size(c.offline) == 0)
        & (F.size(F.array_except(c.replicas, registered)) == 0) & (F.size(F.array_distinct(racks)) < expected),
        finding(RackViolation, c.topic, c.partition, F.lit(None), c.tpath, replicas=c.replicas, replica_racks=racks,
                distinct_racks=F.size(F.array_distinct(racks)), expected_racks=expected),
    )  # fmt: skip


def _partial_racks(c: ClusterFacts) -> Iterator[Found]:
    with_rack = tuple(sorted(b for b, r in c.racks.items() if r is not None))
    without = tuple(sorted(b for b, r in c.racks.items() if r is None))
    if with_rack and without:
        yield RackViolation(brokers_with_rack=with_rack, brokers_without_rack=without), Where(BROKER_IDS)


def _partial_racks_spark(i: SparkInput) -> DataFrame | None:
    from pyspark.sql import functions as F

    racks = i.frames.facts.racks
    with_rack = sorted(k for k, r in racks.items() if r is not None)
    without = sorted(k for k, r in racks.items() if r is None)
    if not (with_rack and without):
        return None
    none = F.lit(None)
    one = finding(RackViolation, none, none, none, F.lit(BROKER_IDS), brokers_with_rack=ints(with_rack),
                  brokers_without_rack=ints(without))  # fmt: skip
    return rows(i.frames.one_row, one)


def _duplicate_replica(f: PartitionFacts) -> Iterator[Found]:
    if f.replica.duplicates:
        yield DuplicateReplica(replicas=f.replicas, duplicates=f.replica.duplicates), f.at_topic()


def _duplicate_replica_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.assigned & (F.size(c.duplicates) > 0),
        finding(DuplicateReplica, c.topic, c.partition, F.lit(None), c.tpath, replicas=c.replicas,
                duplicates=c.duplicates),
    )  # fmt: skip


def _state_missing(f: PartitionFacts) -> Iterator[Found]:
    if f.state is None:
        yield PartitionStateMissing(replicas=f.replicas, offline_replicas=f.replica.offline), f.at_state()


def _state_missing_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.assigned & (c.state == "missing"),
        finding(PartitionStateMissing, c.topic, c.partition, F.lit(None), c.spath, replicas=c.replicas,
                offline_replicas=c.offline),
    )  # fmt: skip


def _orphan_states(t: TopicFacts) -> Iterator[Found]:
    states = t.entry.states
    for p in t.orphans():
        where = state_path(t.name, p) if states[p] is not None else f"{topic_path(t.name)}/partitions/{p}"
        yield OrphanPartitionState(partition_count=len(t.partition_ids)), Where(where, t.name, p)


def _orphan_state_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    where = F.when(c.state == "missing", F.concat(c.tpath, F.lit("/partitions/"), c.partition.cast("string")))
    return F.when(
        ~c.assigned,
        finding(OrphanPartitionState, c.topic, c.partition, F.lit(None), where.otherwise(c.spath),
                partition_count=c.partition_count),
    )  # fmt: skip


def _empty_isr(f: PartitionFacts) -> Iterator[Found]:
    st = f.ok
    if st is not None and not st.isr:
        yield EmptyIsr(leader=st.leader, replicas=f.replicas), f.at_state()


def _empty_isr_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.assigned & c.has_state & ~c.nonempty_isr,
        finding(EmptyIsr, c.topic, c.partition, F.lit(None), c.spath, leader=c.leader, replicas=c.replicas),
    )


def _leader_not_in_isr(f: PartitionFacts) -> Iterator[Found]:
    st = f.ok
    if st is not None and st.isr and st.leader >= 0 and st.leader not in st.isr:
        yield LeaderNotInIsr(leader=st.leader, isr=st.isr), f.at_state()


def _leader_not_in_isr_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.assigned & c.has_state & c.nonempty_isr & (c.leader >= 0) & ~F.array_contains(c.isr, c.leader),
        finding(LeaderNotInIsr, c.topic, c.partition, F.lit(None), c.spath, leader=c.leader, isr=c.isr),
    )


def _isr_not_subset(f: PartitionFacts) -> Iterator[Found]:
    st = f.ok
    members = f.replica.members
    if st is not None and st.isr and not members.issuperset(st.isr):
        strangers = tuple(dict.fromkeys(b for b in st.isr if b not in members))
        yield IsrNotSubsetOfReplicas(isr=st.isr, replicas=f.replicas, not_replicas=strangers), f.at_state()


def _isr_not_subset_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    strangers = F.filter(c.isr, lambda x: ~F.array_contains(c.replicas, x))
    return F.when(
        c.assigned & c.has_state & c.nonempty_isr & (F.size(strangers) > 0),
        finding(IsrNotSubsetOfReplicas, c.topic, c.partition, F.lit(None), c.spath, isr=c.isr, replicas=c.replicas,
                not_replicas=F.array_distinct(strangers)),
    )  # fmt: skip


def _epoch_ahead(f: PartitionFacts) -> Iterator[Found]:
    st = f.ok
    epoch = f.cluster.controller_epoch
    if st is not None and epoch is not None and st.controller_epoch > epoch:
        yield ControllerEpochAhead(state_controller_epoch=st.controller_epoch, controller_epoch=epoch), f.at_state()


def _epoch_ahead_spark(c: PartitionColumns) -> Col | None:
    from pyspark.sql import functions as F

    epoch = c.controller_epoch
    if epoch is None:
        return None
    return F.when(
        c.assigned & c.has_state & (c.state_controller_epoch > F.lit(epoch)),
        finding(ControllerEpochAhead, c.topic, c.partition, F.lit(None), c.spath,
                state_controller_epoch=c.state_controller_epoch, controller_epoch=F.lit(epoch)),
    )  # fmt: skip


def _queued(f: PartitionFacts) -> bool | None:
    return True if f.deleting else None


def _offline(f: PartitionFacts) -> Iterator[Found]:
    h = f.health
    if h.offline is not None:
        st = f.ok
        yield (
            OfflinePartition(leader=st.leader if st is not None else None, isr=h.isr, replicas=f.replicas,
                             offline_replicas=f.replica.offline, queued_for_deletion=_queued(f)),
            f.at_state(),
        )  # fmt: skip


def _offline_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.h_offline,
        finding(OfflinePartition, c.topic, c.partition, F.lit(None), c.spath, leader=F.when(c.has_state, c.leader),
                isr=c.h_isr, replicas=c.replicas, offline_replicas=c.offline, queued_for_deletion=c.queued),
    )  # fmt: skip


def _under_min_isr(f: PartitionFacts) -> Iterator[Found]:
    h = f.health
    if h.under_min_isr:
        yield (
            UnderMinIsr(isr=h.isr, replicas=f.replicas, min_insync_replicas=h.min_isr.value,
                        min_isr_source=h.min_isr.source, has_live_leader=h.offline is None,
                        offline_replicas=f.replica.offline, queued_for_deletion=_queued(f)),
            f.at_state(),
        )  # fmt: skip


def _under_min_isr_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.h_under_min,
        finding(UnderMinIsr, c.topic, c.partition, F.lit(None), c.spath, isr=c.h_isr, replicas=c.replicas,
                min_insync_replicas=c.h_min_isr, min_isr_source=c.h_source, has_live_leader=~c.h_offline,
                offline_replicas=c.offline, queued_for_deletion=c.queued),
    )  # fmt: skip


def _under_replicated(f: PartitionFacts) -> Iterator[Found]:
    h = f.health
    if h.under_replicated:
        yield (
            UnderReplicated(isr=h.isr, replicas=f.replicas, replication_factor=replication_factor(f.replicas, f.adding),
                            offline_replicas=f.replica.offline, queued_for_deletion=_queued(f)),
            f.at_state(),
        )  # fmt: skip


def _under_replicated_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.h_urp,
        finding(UnderReplicated, c.topic, c.partition, F.lit(None), c.spath, isr=c.h_isr, replicas=c.replicas,
                replication_factor=c.h_factor, offline_replicas=c.offline, queued_for_deletion=c.queued),
    )  # fmt: skip


def _served_and_healthy(f: PartitionFacts) -> PartitionState | None:
    """The readable state of a partition with an ISR and a live leader, not being deleted."""
    st = f.ok
    return st if st is not None and st.isr and not f.deleting and f.health.offline is None else None


def _unknown_broker(f: PartitionFacts) -> Iterator[Found]:
    # Only when no availability finding explains the replica (e.g. no controller shrank the ISR).
    if _served_and_healthy(f) is not None and not f.health.under_replicated and not f.health.under_min_isr:
        for broker in f.replica.offline:
            yield ReplicaOnUnknownBroker(replicas=f.replicas), f.at_topic(broker)


def _unknown_broker_spark(c: PartitionColumns) -> Many:
    from pyspark.sql import functions as F

    fires = c.available & c.nonempty_isr & ~c.h_offline & ~c.h_urp & ~c.h_under_min
    return Many(
        F.transform(
            c.offline,
            lambda b: F.when(fires, finding(ReplicaOnUnknownBroker, c.topic, c.partition, b, c.tpath,
                                            replicas=c.replicas)),
        )
    )  # fmt: skip


def _preferred_not_leader(f: PartitionFacts) -> Iterator[Found]:
    st = _served_and_healthy(f)
    preferred = f.replica.preferred
    if st is not None and preferred is not None and st.leader != preferred:
        live = f.cluster.live
        yield (
            PreferredLeaderNotLeader(leader=st.leader, preferred_live=preferred in live,
                                     preferred_in_isr=preferred in st.isr),
            f.at_state(preferred),
        )  # fmt: skip


def _preferred_not_leader_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    live = c.inputs.brokers.live
    return F.when(
        c.available & c.nonempty_isr & c.leader_live & (F.size(c.replicas) > 0) & (c.leader != c.preferred),
        finding(PreferredLeaderNotLeader, c.topic, c.partition, c.preferred, c.spath, leader=c.leader,
                preferred_live=live(c.preferred), preferred_in_isr=F.array_contains(c.isr, c.preferred)),
    )  # fmt: skip


def _imbalance(b: BrokerLeads) -> Iterator[Found]:
    if over_imbalance_threshold(True, b.preferred, b.elsewhere, b.threshold_percent):  # only live brokers come here
        yield (
            LeaderImbalance(preferred_partitions=b.preferred, led_elsewhere=b.elsewhere,
                            threshold_percent=b.threshold_percent),
            Where(broker_path(b.broker), broker=b.broker),
        )  # fmt: skip


def _imbalance_spark(i: SparkInput) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    live = i.brokers.live
    preferred = F.element_at("replicas", 1)
    led_elsewhere = (c("state") == "ok") & (c("leader") != preferred)  # as _imbalance counts: offline included
    agg = (
        i.p.where(c("assigned") & ~c("deleting") & (F.size("replicas") > 0))
        .groupBy(preferred.alias("broker"))
        .agg(F.count(F.lit(1)).alias("total"), F.sum(F.when(led_elsewhere, 1).otherwise(0)).alias("elsewhere"))
    )
    threshold = i.params.imbalance_percent
    broker = c("broker")
    return rows(
        agg.where(live(broker) & (c("elsewhere") * 100 > F.lit(threshold) * c("total"))),
        finding(LeaderImbalance, F.lit(None), F.lit(None), broker, F.concat(F.lit(f"{BROKER_IDS}/"),
                broker.cast("string")), preferred_partitions=c("total"), led_elsewhere=c("elsewhere"),
                threshold_percent=F.lit(threshold)),
    )  # fmt: skip


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
    local={"partition": _rack_violation, "cluster": _partial_racks},
    spark={"partitions": _rack_violation_spark, "cluster": _partial_racks_spark},
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
    local={"partition": _duplicate_replica},
    spark={"partitions": _duplicate_replica_spark},
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
    local={"partition": _state_missing},
    spark={"partitions": _state_missing_spark},
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
    local={"topic": _orphan_states},
    spark={"partitions": _orphan_state_spark},
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
    local={"partition": _empty_isr},
    spark={"partitions": _empty_isr_spark},
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
    local={"partition": _leader_not_in_isr},
    spark={"partitions": _leader_not_in_isr_spark},
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
    local={"partition": _isr_not_subset},
    spark={"partitions": _isr_not_subset_spark},
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
    local={"partition": _epoch_ahead},
    spark={"partitions": _epoch_ahead_spark},
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
    local={"partition": _offline},
    spark={"partitions": _offline_spark},
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
    local={"partition": _under_min_isr},
    spark={"partitions": _under_min_isr_spark},
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
    local={"partition": _under_replicated},
    spark={"partitions": _under_replicated_spark},
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
    local={"partition": _unknown_broker},
    spark={"partitions": _unknown_broker_spark},
)
LEADER_IMBALANCE = Check(
    CheckSpec(
        "leader_imbalance",
        Severity.WARNING,
        Subject.BROKER,
        "Broker leads too few of its preferred partitions",
        "The controller rebalances when the share of a live broker's preferred partitions not led by it "
        "(offline ones included) exceeds leader.imbalance.per.broker.percentage (10 by default), topics being "
        "deleted excluded.",
        "§2.5 (preferred replica election)",
    ),
    LeaderImbalance,
    local={"leaders": _imbalance},
    spark={"leaders": _imbalance_spark},
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
    local={"partition": _preferred_not_leader},
    spark={"partitions": _preferred_not_leader_spark},
)
