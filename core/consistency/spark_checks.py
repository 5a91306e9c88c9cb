"""The Spark engine's driver: the catalog as Spark column expressions over ``spark_frames.Frames`` (worker
process only).

Each check's Spark rule lives in its unit (``core.consistency.checks``) beside its Python rule; this module
derives what the rules read and runs them as the passes of ``PASSES``, one Spark action each. The two
engines must return identical findings (``tests/integration/test_checks_engines.py`` runs both on every
input). The partition rows, joined with their topic's facts through broadcast joins (the partitions are
never shuffled) and flagged ``quiet`` when no partition check can fire on them (the local engine's fast
path), are cached once; the partition rules are one fused ``select`` that builds an array of finding
structs per non-quiet row and explodes it; topic rules read plain aggregates per topic, with partition
lists collected only for the few topics that need them; the rest are small joins over the small records.

A finding row is ``check, topic, partition, broker, path, evidence`` where ``evidence`` is
``to_json(struct(...))``: null fields are left out, as the local engine drops ``None`` evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.consistency.checks import REGISTRY
from core.consistency.checks.cluster_wide import UnreadableZnode
from core.consistency.checks.columns import (
    BrokerLookup,
    Col,
    DataFrame,
    Many,
    PartitionColumns,
    duplicates_of,
    empty,
    exploded,
    ints,
    state_path,
    topic_path,
    union,
)
from core.consistency.checks.deletions import deletion_rows
from core.consistency.checks.topics import topic_rows
from core.consistency.checks.unit import SPARK_PASSES
from core.consistency.params import CheckParams
from core.consistency.spark_frames import Frames, union_all
from core.snapshot.health import MinIsrResolver

QUIET_MAX_REPLICAS = 6  # replica lists up to this long can take the partition pass's fast path


# The passes, in the order they run, and the checks each produces (each check's unit names its passes).
# Each pass is one Spark action, so a check is done (for progress) when every pass producing it has run.
PASSES: dict[str, tuple[str, ...]] = {
    name: tuple(unit.id for unit in REGISTRY if name in unit.spark_passes) for name in SPARK_PASSES
}


# Passes that read only the small records, not the partition rows.
SMALL_PASSES = frozenset({"names", "cluster", "notifications", "unreadable"})


@dataclass(frozen=True)
class Pass:
    """One Spark action: the finding rows of ``checks`` (the wanted ones this pass produces) over every
    cluster of the job that wants some of them. Each cluster's plan is its own (its facts are literals in
    it), tagged with the cluster's index; the plans are unioned, so N clusters still cost one action."""

    name: str
    checks: frozenset[str]
    plans: tuple[tuple[int, frozenset[str], Callable[[], DataFrame]], ...]  # (cluster, its checks, its plan)

    @property
    def reads_partitions(self) -> bool:
        """Whether it reads the (cached) partition rows."""
        return self.name not in SMALL_PASSES

    def rows(self) -> list[list[Any]]:
        """Plan and run the pass: finding rows ``[cluster, check, topic, partition, broker, path, evidence JSON]``."""
        from pyspark.sql import functions as F

        tagged = [
            build().where(F.col("check").isin(sorted(checks))).select(F.lit(cluster).alias("cluster"), "*")
            for cluster, checks, build in self.plans
        ]
        return [list(r) for r in union_all(tagged).collect()]


def check_passes(inputs: Sequence[tuple[Frames, CheckParams, frozenset[str]]]) -> list[Pass]:
    """The passes that produce some of the checks wanted, in ``PASSES`` order (planned when run), over the
    clusters of ``inputs``: each its frames, its params and the checks it wants."""
    rows = [PartitionRows(frames, params) for frames, params, _ in inputs]
    passes = []
    for name, produced in PASSES.items():
        plans = tuple(
            (cluster, checks, _builder(name, checks, rows[cluster]))
            for cluster, (_, _, want) in enumerate(inputs)
            if (checks := frozenset(produced) & want)
        )
        if plans:
            passes.append(Pass(name, frozenset().union(*(checks for _, checks, _ in plans)), plans))
    return passes


# Passes whose rules read one row's columns: the rows and their columns.
_ROW_PASSES: dict[str, Callable[[PartitionRows], tuple[DataFrame, Any]]] = {
    "partitions": lambda rows: rows.partition_columns(),
    "topics": topic_rows,
    "deletions": deletion_rows,
}


def _builder(name: str, checks: frozenset[str], rows: PartitionRows) -> Callable[[], DataFrame]:
    rules = [unit.spark[name] for unit in REGISTRY if unit.id in checks]

    def build() -> DataFrame:
        if name in _ROW_PASSES:
            df, columns = _ROW_PASSES[name](rows)
            found = [found for rule in rules if (found := rule(columns)) is not None]
            singles = [f for f in found if not isinstance(f, Many)]
            arrays = [f.array for f in found if isinstance(f, Many)]
            return exploded(df, singles, arrays) if found else empty(df, UnreadableZnode)
        pieces = [piece for rule in rules if (piece := rule(rows)) is not None]
        return union(pieces) if pieces else empty(rows.frames.one_row, UnreadableZnode)

    return build


# ---- the partition rows and their facts as columns ----------------------------------------------


class PartitionRows:
    """The partition rows every partition pass reads (``columns.SparkInput``), and their facts as columns.

    The rows are joined with their topic's facts through broadcast joins (the partitions are never
    shuffled), flagged ``quiet`` when no partition rule can fire on them (the local engine's fast path),
    and cached once by the first pass that reads them."""

    def __init__(self, frames: Frames, params: CheckParams) -> None:
        from pyspark.sql import functions as F

        self.frames = frames
        self.params = params
        facts = frames.facts
        self.live = ints(sorted(facts.live))
        self.brokers = BrokerLookup(facts.live, facts.racks)
        rack_pairs = [x for b, r in sorted(facts.racks.items()) if r is not None for x in (F.lit(b), F.lit(r))]
        self.rack_map = F.create_map(*rack_pairs) if rack_pairs else None
        # min.insync.replicas as core.snapshot.health resolves it, per live leader (None: no live leader);
        # the resolver runs here in the driver, the rows only look its answers up.
        resolver = MinIsrResolver(None, params.static(), facts.broker_configs)
        self.no_leader_min_isr = resolver.resolve(None, None)
        self.broker_min_isr = {b: resolver.resolve(None, b) for b in sorted(facts.live)}
        topics = frames.topics.select("topic", "readable", "partition_count")
        trimmed = F.regexp_replace(F.col("min_isr"), r"^[\x00-\x20]+|[\x00-\x20]+$", "")
        configs = frames.topic_configs.select(
            "topic",
            # core.snapshot.health.min_isr_value: Java's trim, then Integer.parseInt, at least 1.
            F.when(
                trimmed.rlike(r"^[+-]?[0-9]{1,10}\z") & trimmed.cast("long").between(1, 2**31 - 1),
                trimmed.cast("long").cast("int"),
            ).alias("min_isr_override"),
        ).where(F.col("min_isr_override").isNotNull())
        last_request = frames.requests.groupBy("topic", "partition").agg(
            F.max_by("replicas", "idx").alias("requested")  # the last entry wins, as in Kafka's toMap
        )
        self.requested_topics = frames.requests.select("topic").distinct()
        self.deleting_topics = frames.markers.join(F.broadcast(topics.select("topic")), "topic", "inner").select(
            "topic", F.lit(True).alias("deleting_flag")
        )
        # Everything a partition row needs from its topic, in one small table broadcast to the partition
        # rows: the partitions (the big side) are never shuffled for these joins.
        topic_info = (
            topics.where(F.col("readable"))
            .join(F.broadcast(configs), "topic", "left")  # topics that override min.insync.replicas
            .join(F.broadcast(self.deleting_topics), "topic", "left")
        )
        p = frames.parts.join(F.broadcast(topic_info), "topic", "inner").join(
            F.broadcast(last_request), ["topic", "partition"], "left"
        )
        live_leader = F.when(
            (F.col("state") == "ok") & (F.col("leader") >= 0) & self.brokers.live(F.col("leader")), F.col("leader")
        )
        p = p.select(
            "*",
            live_leader.alias("live_leader"),
            F.coalesce(F.col("min_isr_override"), self._broker_min_isr(live_leader, "value")).alias("min_isr"),
            F.coalesce(F.col("deleting_flag"), F.lit(False)).alias("deleting"),
        )
        # Every pass reads these rows: computed once (joins and the quiet flag), cached, released with the
        # frames. The costly per-row arrays (offline replicas, duplicates) are left to the few rows that are
        # not quiet.
        self.p = frames.kept(self._with_quiet(p))

    def _broker_min_isr(self, live_leader: Col, field: str) -> Col:
        """The resolver's ``value`` or ``source`` for the row's live leader (a literal when all agree)."""
        from pyspark.sql import functions as F

        kind = "int" if field == "value" else "string"
        none = F.lit(getattr(self.no_leader_min_isr, field)).cast(kind)
        answers = {b: getattr(m, field) for b, m in self.broker_min_isr.items()}
        if len(set(answers.values())) <= 1:
            same = F.lit(next(iter(answers.values()), None)).cast(kind)
            return F.when(live_leader.isNull(), none).otherwise(same)
        pairs = [x for b, v in answers.items() for x in (F.lit(b), F.lit(v).cast(kind))]
        return F.when(live_leader.isNull(), none).otherwise(F.element_at(F.create_map(*pairs), live_leader))

    def with_problems(self, rows: DataFrame) -> DataFrame:
        """``rows`` with the replica lists the finding expressions need: offline and duplicate replicas."""
        from pyspark.sql import functions as F

        replicas = F.col("replicas")
        return rows.select(
            "*",
            # array_except keeps the first occurrences in order, like the local engine's dict.fromkeys.
            F.coalesce(F.array_except(replicas, self.live), ints([])).alias("offline"),
            F.when(F.size(F.array_distinct(replicas)) < F.size(replicas), duplicates_of(replicas))
            .otherwise(ints([]))
            .alias("duplicates"),
        )

    def partition_columns(self) -> tuple[DataFrame, PartitionColumns]:
        """The rows a partition rule may fire on (not quiet), with their facts as columns;
        ``core.snapshot.health.partition_health`` as the ``h_*`` columns (the engine-equivalence tests hold
        them equal to the local engine's)."""
        from pyspark.sql import functions as F

        c = F.col
        facts = self.frames.facts
        topic, part = c("topic"), c("partition")
        replicas, isr, leader, adding = c("replicas"), c("isr"), c("leader"), c("adding")
        assigned = c("assigned")
        has_state = c("state") == "ok"
        live = self.brokers.live
        h_isr = F.when(has_state, isr).otherwise(ints([]))
        h_n = F.size(h_isr)
        h_offline = assigned & ~(has_state & (leader >= 0) & live(leader))
        h_factor = F.size(F.filter(replicas, lambda x: ~F.array_contains(adding, x)))
        h_min_isr = c("min_isr")
        columns = PartitionColumns(
            topic=topic,
            partition=part,
            replicas=replicas,
            adding=adding,
            removing=c("removing"),
            isr=isr,
            leader=leader,
            offline=c("offline"),
            duplicates=c("duplicates"),
            tpath=topic_path(topic),
            spath=state_path(topic, part),
            state=c("state"),
            assigned=assigned,
            has_state=has_state,
            available=assigned & has_state & ~c("deleting"),
            nonempty_isr=F.size(isr) > 0,
            leader_live=(leader >= 0) & live(leader),
            preferred=F.element_at(replicas, 1),
            requested=c("requested"),
            reassigning=(F.size(adding) > 0) | (F.size("removing") > 0) | c("requested").isNotNull(),
            partition_count=c("partition_count"),
            state_controller_epoch=c("state_controller_epoch"),
            controller_epoch=facts.controller_epoch,
            h_isr=h_isr,
            h_offline=h_offline,
            h_factor=h_factor,
            h_urp=assigned & (h_n < h_factor),
            h_min_isr=h_min_isr,
            h_under_min=assigned & (h_offline | (h_min_isr.isNotNull() & (h_n < h_min_isr))),
            h_source=F.when(c("min_isr_override").isNotNull(), F.lit("topic")).otherwise(
                self._broker_min_isr(c("live_leader"), "source")
            ),
            queued=F.when(c("deleting"), F.lit(True)),
            inputs=self,
            rack_map=self.rack_map,
            racks_complete=facts.racks_complete,
            rack_count=facts.rack_count,
        )
        return self.with_problems(self.p.where(~c("quiet"))), columns

    def _with_quiet(self, rows: DataFrame) -> DataFrame:
        """``rows`` with ``quiet``: true for a partition none of the partition checks can fire on: in sync
        at its preferred leader, every replica registered and on enough racks, nothing moving. It keeps the
        costly finding expressions to the few other rows, as the local engine's fast path does. The first
        ``QUIET_MAX_REPLICAS`` replicas are looked up one by one (a longer list takes the slow path). Never
        null: a null would drop the row from both sides of the filter. One expression: computing the
        replicas' lookups in columns of their own first measured twice as slow to cache."""
        from pyspark.sql import functions as F

        c = F.col
        facts = self.frames.facts
        n = QUIET_MAX_REPLICAS
        replicas, leader = c("replicas"), c("leader")
        size = F.size(replicas)
        at = [F.try_element_at(replicas, F.lit(i + 1)) for i in range(n)]
        quiet = (
            c("assigned") & (c("state") == "ok") & ~c("deleting") & c("requested").isNull()
            & (F.size("adding") == 0) & (F.size("removing") == 0)
            & (size > 0) & (size <= n) & (F.size(F.array_distinct(replicas)) == size)
            & (c("isr") == replicas) & (leader >= 0) & (leader == at[0])
            & (c("min_isr").isNull() | (size >= c("min_isr")))
        )  # fmt: skip
        for i in range(n):
            quiet = quiet & ((size <= i) | self.brokers.live(at[i]))
        if facts.controller_epoch is not None:
            quiet = quiet & (c("state_controller_epoch") <= F.lit(facts.controller_epoch))
        if self.rack_map is not None and facts.racks_complete:
            # Distinct racks among the replicas, by plain comparisons (higher-order functions such as
            # ``transform`` are interpreted, not compiled).
            racks = [self.brokers.rack(replica) for replica in at]
            used = F.lit(0)
            for i in range(n):
                new = F.lit(True)
                for j in range(i):
                    new = new & (racks[i] != racks[j])
                used = used + F.when((size > i) & new, 1).otherwise(0)
            quiet = quiet & (used >= F.least(size, F.lit(facts.rack_count)))
        return rows.select("*", F.coalesce(quiet, F.lit(False)).alias("quiet"))
