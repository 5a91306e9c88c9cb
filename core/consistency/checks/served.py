"""What the brokers serve against ZooKeeper (``--bootstrap-server``)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

from core.brokers.metadata import ServedPartition
from core.consistency.checks.columns import DataFrame, SparkInput, exploded, finding, ints, rows, union
from core.consistency.checks.columns import state_path as state_path_col
from core.consistency.checks.columns import topic_path as topic_path_col
from core.consistency.checks.facts import ClusterFacts, Found, state_path, topic_path
from core.consistency.checks.text import ids, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes import PartitionState, TopicAssignment
from core.kafka.znodes.paths import BROKER_IDS

Ints = tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class MetadataMismatch(Evidence):
    """``differs`` names the fields that differ; ``zk_<field>``/``served_<field>`` hold each side's value."""

    check = "metadata_mismatch"
    differs: tuple[str, ...]
    side: str | None = None  # a topic or partition only one side knows: "zookeeper" or "brokers"
    zk_brokers: Ints | None = None
    served_brokers: Ints | None = None
    zk_leader: int | None = None
    served_leader: int | None = None
    zk_isr: Ints | None = None
    served_isr: Ints | None = None
    zk_replicas: Ints | None = None
    served_replicas: Ints | None = None

    def sentence(self, at: Where) -> str:
        if at.topic is None:
            return (
                f"Brokers report live brokers {ids(self.served_brokers)} while /brokers/ids holds "
                f"{ids(self.zk_brokers)}."
            )
        if self.differs == ("topic",):
            where = (
                "ZooKeeper has it but no broker serves it"
                if self.side == "zookeeper"
                else "brokers serve it but ZooKeeper has no such topic"
            )
            return f"Topic '{at.topic}': {where}."
        if self.differs == ("partition",):
            where = (
                "ZooKeeper has it but no broker serves it"
                if self.side == "zookeeper"
                else "brokers serve it but ZooKeeper has no such partition"
            )
            return f"Partition {tp(at.topic, at.partition)}: {where}."
        sides = {
            "leader": (self.zk_leader, self.served_leader),
            "isr": (self.zk_isr, self.served_isr),
            "replicas": (self.zk_replicas, self.served_replicas),
        }
        parts = [f"{name} {ids(sides[name][0])} in ZooKeeper, {ids(sides[name][1])} served" for name in self.differs]
        return f"Partition {tp(at.topic, at.partition)} differs: {'; '.join(parts)}."


# ---- the rules ----------------------------------------------------------------------------------------


def _mismatches(c: ClusterFacts) -> Iterator[Found]:
    served = c.served
    if served is None:
        return
    s = c.snapshot
    if served.brokers != c.live:
        record = MetadataMismatch(
            differs=("brokers",), zk_brokers=tuple(sorted(c.live)), served_brokers=tuple(sorted(served.brokers))
        )
        yield record, Where(BROKER_IDS)
    for name in sorted(set(served.topics) - set(s.topics)):
        yield MetadataMismatch(differs=("topic",), side="brokers"), Where(topic_path(name), name)
    for name in sorted(s.topics):
        entry = s.topics[name]
        a = entry.assignment
        if name in c.deleting or not isinstance(a, TopicAssignment):
            continue  # topics being deleted are not compared
        with_state = [p for p, _ in a.partitions if type(entry.states.get(p)) is PartitionState]
        topic_served = served.topics.get(name)
        if topic_served is None:
            if with_state:
                yield MetadataMismatch(differs=("topic",), side="zookeeper"), Where(topic_path(name), name)
            continue
        for p in with_state:
            state = entry.states[p]
            assert isinstance(state, PartitionState)
            at = Where(state_path(name, p), name, p)
            part = topic_served.get(p)
            if part is None:
                yield MetadataMismatch(differs=("partition",), side="zookeeper"), at
            elif (differs := _compared(a.replicas(p), state, part)) is not None:
                yield differs, at
        for p in sorted(set(topic_served) - set(a.partition_ids)):
            yield MetadataMismatch(differs=("partition",), side="brokers"), Where(state_path(name, p), name, p)


def _compared(replicas: Ints, state: PartitionState, part: ServedPartition) -> MetadataMismatch | None:
    """How a partition the brokers serve differs from ZooKeeper: leader, ISR as a set, replicas as a set
    (0.10.x brokers keep a partition's replicas as a set and serve them in another order)."""
    record = MetadataMismatch(differs=())
    if state.leader != part.leader:
        record = replace(record, differs=(*record.differs, "leader"), zk_leader=state.leader, served_leader=part.leader)
    if sorted(state.isr) != sorted(part.isr):
        record = replace(record, differs=(*record.differs, "isr"), zk_isr=tuple(sorted(state.isr)),
                         served_isr=tuple(sorted(part.isr)))  # fmt: skip
    if set(replicas) != set(part.replicas):
        record = replace(
            record, differs=(*record.differs, "replicas"), zk_replicas=replicas, served_replicas=part.replicas
        )
    return record if record.differs else None


def _mismatches_spark(i: SparkInput) -> DataFrame | None:
    from pyspark.sql import functions as F

    c = F.col
    f = i.frames
    if f.served_parts is None or f.served_topics is None:
        return None
    facts = f.facts
    out = []
    if facts.served_brokers is not None and facts.served_brokers != facts.live:
        out.append(
            rows(f.one_row, finding(MetadataMismatch, F.lit(None), F.lit(None), F.lit(None), F.lit(BROKER_IDS),
                                    differs=F.array(F.lit("brokers")), zk_brokers=ints(sorted(facts.live)),
                                    served_brokers=ints(sorted(facts.served_brokers))))
        )  # fmt: skip
    served_topics = f.served_topics.select("topic")
    ghosts = served_topics.join(f.topics.select("topic"), "topic", "left_anti")
    out.append(
        rows(ghosts, finding(MetadataMismatch, c("topic"), F.lit(None), F.lit(None), topic_path_col(c("topic")),
                             differs=F.array(F.lit("topic")), side=F.lit("brokers")))
    )  # fmt: skip
    zk = i.p.where(c("assigned") & ~c("deleting"))
    with_state = zk.where(c("state") == "ok")
    served_flag = served_topics.select("topic", F.lit(True).alias("served"))
    unserved = with_state.select("topic").distinct().join(served_flag, "topic", "left").where(c("served").isNull())
    out.append(
        rows(unserved, finding(MetadataMismatch, c("topic"), F.lit(None), F.lit(None), topic_path_col(c("topic")),
                               differs=F.array(F.lit("topic")), side=F.lit("zookeeper")))
    )  # fmt: skip
    sp = f.served_parts.select(
        "topic",
        "partition",
        c("leader").alias("s_leader"),
        c("replicas").alias("s_replicas"),
        c("isr").alias("s_isr"),
        F.lit(True).alias("s_present"),
    )
    compared = with_state.join(served_flag, "topic", "inner").join(sp, ["topic", "partition"], "left")
    topic, part = c("topic"), c("partition")
    spath = state_path_col(topic, part)
    leader_differs = c("leader") != c("s_leader")
    isr_differs = F.array_sort("isr") != F.array_sort("s_isr")
    # As sets: 0.10.x brokers keep a partition's replicas as a set and serve them in another order.
    replicas_differ = F.array_sort(F.array_distinct("replicas")) != F.array_sort(F.array_distinct("s_replicas"))
    differs = F.filter(
        F.array(
            F.when(leader_differs, F.lit("leader")),
            F.when(isr_differs, F.lit("isr")),
            F.when(replicas_differ, F.lit("replicas")),
        ),
        lambda x: x.isNotNull(),
    )
    out.append(
        exploded(
            compared,
            [
                F.when(c("s_present").isNull(),
                       finding(MetadataMismatch, topic, part, F.lit(None), spath,
                               differs=F.array(F.lit("partition")), side=F.lit("zookeeper"))),
                F.when(c("s_present") & (F.size(differs) > 0),
                       finding(MetadataMismatch, topic, part, F.lit(None), spath, differs=differs,
                               zk_leader=F.when(leader_differs, c("leader")),
                               served_leader=F.when(leader_differs, c("s_leader")),
                               zk_isr=F.when(isr_differs, F.array_sort("isr")),
                               served_isr=F.when(isr_differs, F.array_sort("s_isr")),
                               zk_replicas=F.when(replicas_differ, c("replicas")),
                               served_replicas=F.when(replicas_differ, c("s_replicas")))),
            ],
        )
    )  # fmt: skip
    zk_topics = f.topics.where(c("readable")).join(i.deleting_topics, "topic", "left_anti").select("topic")
    extra = f.served_parts.join(zk_topics, "topic", "inner").join(
        zk.select("topic", "partition"), ["topic", "partition"], "left_anti"
    )
    out.append(
        rows(extra, finding(MetadataMismatch, c("topic"), c("partition"), F.lit(None),
                            state_path_col(c("topic"), c("partition")), differs=F.array(F.lit("partition")),
                            side=F.lit("brokers")))
    )  # fmt: skip
    return union(out)


METADATA_MISMATCH = Check(
    CheckSpec(
        "metadata_mismatch",
        Severity.WARNING,
        Subject.PARTITION,
        "Brokers serve different metadata than ZooKeeper holds",
        "Brokers learn leaders, ISRs and replicas from the controller (UpdateMetadata); a lasting difference "
        "means a broker missed updates or ZooKeeper was edited behind the controller's back.",
        "§2.5",
        needs_brokers=True,
    ),
    MetadataMismatch,
    local={"served": _mismatches},
    spark={"served": _mismatches_spark},
)
