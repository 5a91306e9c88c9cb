"""Availability checks, from the one derivation of a partition's health (``core.snapshot.health``):
offline, under ``min.insync.replicas`` and under-replicated partitions; each with its Python rule (over
``facts.PartitionFacts``) beside its Spark rule (over ``columns.PartitionColumns``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, PartitionColumns, finding
from core.consistency.checks.facts import (
    Found,
    PartitionFacts,
)
from core.consistency.checks.text import ids, offline_note, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.snapshot.health import replication_factor

Ints = tuple[int, ...]


def _queued(f: PartitionFacts) -> bool | None:
    return True if f.deleting else None


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
