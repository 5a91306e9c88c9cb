"""Replica-list checks: racks (``rack_violation``), a broker listed twice (``duplicate_replica``) and a replica
on a broker that is not registered (``replica_on_unknown_broker``); each with its Python rule (over
``facts.PartitionFacts``, ``facts.ClusterFacts``) beside its Spark rule (over ``columns.PartitionColumns``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, DataFrame, Many, PartitionColumns, SparkInput, finding, ints, rows
from core.consistency.checks.facts import (
    ClusterFacts,
    Found,
    PartitionFacts,
    served_and_healthy,
)
from core.consistency.checks.text import ids, names, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes.paths import BROKER_IDS

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


def _duplicate_replica(f: PartitionFacts) -> Iterator[Found]:
    if f.replica.duplicates:
        yield DuplicateReplica(replicas=f.replicas, duplicates=f.replica.duplicates), f.at_topic()


def _duplicate_replica_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    return F.when(
        c.assigned & (F.size(c.duplicates) > 0),
        finding(
            DuplicateReplica, c.topic, c.partition, F.lit(None), c.tpath, replicas=c.replicas, duplicates=c.duplicates
        ),
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


@dataclass(frozen=True, slots=True, kw_only=True)
class ReplicaOnUnknownBroker(Evidence):
    check = "replica_on_unknown_broker"
    replicas: Ints

    def sentence(self, at: Where) -> str:
        return (
            f"Partition {tp(at.topic, at.partition)} has a replica on broker {at.broker}, which is not registered "
            f"(replicas {ids(self.replicas)}): that replica is offline."
        )


def _unknown_broker(f: PartitionFacts) -> Iterator[Found]:
    # Only when no availability finding explains the replica (e.g. no controller shrank the ISR).
    if served_and_healthy(f) is not None and not f.health.under_replicated and not f.health.under_min_isr:
        for broker in f.replica.offline:
            yield ReplicaOnUnknownBroker(replicas=f.replicas), f.at_topic(broker)


def _unknown_broker_spark(c: PartitionColumns) -> Many:
    from pyspark.sql import functions as F

    fires = c.available & c.nonempty_isr & ~c.h_offline & ~c.h_urp & ~c.h_under_min
    return Many(
        F.transform(
            c.offline,
            lambda b: F.when(
                fires, finding(ReplicaOnUnknownBroker, c.topic, c.partition, b, c.tpath, replicas=c.replicas)
            ),
        )
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
