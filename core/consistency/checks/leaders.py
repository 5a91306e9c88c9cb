"""Leader checks: the leader balance of each broker (``leader_imbalance``) and partitions not led by their
preferred replica; each with its Python rule (over ``facts.BrokerLeads``, ``facts.PartitionFacts``) beside
its Spark rule."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.consistency.checks.columns import Col, DataFrame, PartitionColumns, SparkInput, finding, rows
from core.consistency.checks.facts import (
    BrokerLeads,
    Found,
    PartitionFacts,
    served_and_healthy,
)
from core.consistency.checks.text import count, tp
from core.consistency.checks.unit import Check, CheckSpec, Evidence, Severity, Subject, Where
from core.kafka.znodes.paths import BROKER_IDS, broker_path
from core.snapshot.health import over_imbalance_threshold

Ints = tuple[int, ...]


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


def _imbalance(b: BrokerLeads) -> Iterator[Found]:
    if over_imbalance_threshold(True, b.preferred, b.elsewhere, b.threshold_percent):  # only live brokers come here
        yield (
            LeaderImbalance(
                preferred_partitions=b.preferred, led_elsewhere=b.elsewhere, threshold_percent=b.threshold_percent
            ),
            Where(broker_path(b.broker), broker=b.broker),
        )


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


def _preferred_not_leader(f: PartitionFacts) -> Iterator[Found]:
    st = served_and_healthy(f)
    preferred = f.replica.preferred
    if st is not None and preferred is not None and st.leader != preferred:
        live = f.cluster.live
        yield (
            PreferredLeaderNotLeader(
                leader=st.leader, preferred_live=preferred in live, preferred_in_isr=preferred in st.isr
            ),
            f.at_state(preferred),
        )


def _preferred_not_leader_spark(c: PartitionColumns) -> Col:
    from pyspark.sql import functions as F

    live = c.inputs.brokers.live
    return F.when(
        c.available & c.nonempty_isr & c.leader_live & (F.size(c.replicas) > 0) & (c.leader != c.preferred),
        finding(PreferredLeaderNotLeader, c.topic, c.partition, c.preferred, c.spath, leader=c.leader,
                preferred_live=live(c.preferred), preferred_in_isr=F.array_contains(c.isr, c.preferred)),
    )  # fmt: skip


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
