"""Partition-state checks: each assigned partition's state znode against its assignment, ISR and leader,
and against ``/controller_epoch``; each with its Python rule (over ``facts.PartitionFacts``,
``facts.TopicFacts``) beside its Spark rule (over ``columns.PartitionColumns``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, PartitionColumns, finding
from core.consistency.checks.facts import (
    Found,
    PartitionFacts,
    TopicFacts,
    state_path,
    topic_path,
)
from core.consistency.checks.text import count, ids, offline_note, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where

Ints = tuple[int, ...]


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


@dataclass(frozen=True, slots=True, kw_only=True)
class OrphanPartitionState(Evidence):
    check = "orphan_partition_state"
    partition_count: int

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} has a state znode but topic '{at.topic}' is assigned "
            f"{count(self.partition_count, 'partition')}: a leftover of a restored delete or a manual edit."
        )


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
