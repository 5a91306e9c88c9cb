"""The check catalog as Spark column expressions over ``spark_frames.Frames`` (worker process only).

Each check mirrors ``core.consistency.local_engine`` rule for rule, evidence key for evidence key: the
two engines must return identical findings (``tests/integration/test_checks_engines.py`` runs both on
every input). The catalog runs as the passes of ``PASSES``, one Spark action each. The partition rows,
joined with their topic's facts through broadcast joins (the partitions are never shuffled) and flagged
``quiet`` when no partition check can fire on them (the local engine's fast path), are cached once; the
partition checks are one fused ``select`` that builds an array of finding structs per non-quiet row and
explodes it; topic checks are plain aggregates per topic, with partition lists collected only for the
few topics that need them; the rest are small joins over the small records.

A finding row is ``check, topic, partition, broker, path, evidence`` where ``evidence`` is
``to_json(struct(...))``: null fields are left out, as the local engine drops ``None`` evidence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.consistency.params import CheckParams
from core.consistency.spark_frames import Frames
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CLUSTER_ID,
    CONFIG_CHANGES,
    CONTROLLER,
    DELEGATION_TOKENS,
    REASSIGN_PARTITIONS,
    broker_path,
    deletion_marker_path,
    partition_path,
    state_path,
    topic_config_path,
    topic_path,
)
from core.snapshot.health import MinIsrResolver

Col = Any
DataFrame = Any

QUIET_MAX_REPLICAS = 6  # replica lists up to this long can take the partition pass's fast path


# The passes, in the order they run, and the checks each produces. Each pass is one Spark action, so
# a check is done (for progress) when every pass producing it has run.
PASSES: dict[str, tuple[str, ...]] = {
    "partitions": (
        "duplicate_replica", "partition_state_missing", "orphan_partition_state", "controller_epoch_ahead",
        "empty_isr", "leader_not_in_isr", "isr_not_subset_of_replicas", "offline_partition", "under_min_isr",
        "under_replicated", "preferred_leader_not_leader", "reassignment_in_progress",
        "invalid_reassignment_request", "rack_violation", "replica_on_unknown_broker",
    ),
    "topics": ("non_contiguous_partitions", "inconsistent_replication_factor"),
    "leaders": ("leader_imbalance",),
    "deletions": ("deletion_stuck", "deletion_pending"),
    "names": ("topic_name_invalid", "topic_name_collision"),
    "reassignment requests": ("invalid_reassignment_request",),
    "cluster": (
        "no_controller", "controller_not_registered", "broker_registration_invalid", "rack_violation",
        "stale_deletion_marker", "orphan_topic_config",
    ),
    "notifications": ("notification_backlog",),
    "unreadable": ("unreadable_znode",),
    "served": ("metadata_mismatch",),
    "migration": (
        "migration_cluster_id_missing", "migration_protocol_too_old", "migration_reassignment_pending",
        "migration_deletion_pending", "migration_leaderless_partition", "migration_delegation_tokens",
    ),
}  # fmt: skip


# Passes that read only the small records, not the partition rows.
SMALL_PASSES = frozenset({"names", "cluster", "notifications", "unreadable"})


@dataclass(frozen=True)
class Pass:
    """One Spark action: the finding rows of ``checks`` (the wanted ones this pass produces)."""

    name: str
    checks: frozenset[str]
    build: Callable[[], DataFrame]

    @property
    def reads_partitions(self) -> bool:
        """Whether it reads the (cached) partition rows."""
        return self.name not in SMALL_PASSES

    def rows(self) -> list[list[Any]]:
        """Plan and run the pass: finding rows ``[check, topic, partition, broker, path, evidence JSON]``."""
        from pyspark.sql import functions as F

        findings = self.build().where(F.col("check").isin(sorted(self.checks)))
        return [[r[0], r[1], r[2], r[3], r[4], r[5]] for r in findings.collect()]


def check_passes(frames: Frames, params: CheckParams, want: frozenset[str]) -> list[Pass]:
    """The passes that produce some of the ``want`` checks, in ``PASSES`` order (planned when run)."""
    parts = _PartitionChecks(frames, params, want)
    builders: dict[str, Callable[[], DataFrame]] = {
        "partitions": parts.partition_findings,
        "topics": parts.topic_findings,
        "leaders": parts.imbalance_findings,
        "deletions": parts.deletion_findings,
        "names": parts.name_findings,
        "reassignment requests": parts.request_findings,
        "cluster": lambda: _cluster_findings(frames, params, want),
        "notifications": lambda: _notification_findings(frames, params, want),
        "unreadable": lambda: _unreadable_findings(frames, want),
        "migration": lambda: _migration_findings(frames),
    }
    if frames.served_parts is not None:
        builders["served"] = parts.served_findings
    passes = []
    for name, produced in PASSES.items():
        checks = frozenset(produced) & want
        if checks and name in builders:
            passes.append(Pass(name, checks, builders[name]))
    return passes


# ---- building blocks -------------------------------------------------------------------------------


def _finding(check: str, topic: Col, partition: Col, broker: Col, path: Col, **evidence: Col) -> Col:
    """A finding struct; ``evidence`` values are columns (nulls are dropped by ``to_json``)."""
    from pyspark.sql import functions as F

    if evidence:
        ev = F.to_json(F.struct(*[value.alias(key) for key, value in sorted(evidence.items())]))
    else:
        ev = F.lit("{}")
    return F.struct(
        F.lit(check).alias("check"),
        topic.cast("string").alias("topic"),
        partition.cast("int").alias("partition"),
        broker.cast("int").alias("broker"),
        path.cast("string").alias("path"),
        ev.alias("evidence"),
    )


def _rows(df: DataFrame, finding: Col) -> DataFrame:
    """The finding struct column of ``df`` flattened into finding rows."""
    return df.select(finding.alias("f")).select("f.*")


def _exploded(df: DataFrame, findings: list[Col], arrays: list[Col] | None = None) -> DataFrame:
    """One finding row per non-null struct in ``findings`` and per element of the ``arrays`` of structs."""
    from pyspark.sql import functions as F

    merged = F.filter(F.concat(F.array(*findings), *(arrays or [])), lambda x: x.isNotNull())
    return df.select(F.explode(merged).alias("f")).select("f.*")


def _ints(values: list[int]) -> Col:
    """A literal array<int> (typed even when empty)."""
    from pyspark.sql import functions as F

    return F.array(*[F.lit(v) for v in values]).cast("array<int>")


def _empty(spark_df: DataFrame) -> DataFrame:
    """A finding-shaped DataFrame without rows."""
    from pyspark.sql import functions as F

    return _rows(spark_df.limit(0), _finding("unreadable_znode", F.lit(None), F.lit(None), F.lit(None), F.lit("")))


# The layout's paths as format strings, one %s per column (topic names cannot contain %).
_TOPIC = topic_path("%s")
_STATE = state_path("%s", "%s")


def _znode(path_format: str, *columns: Col) -> Col:
    """A znode path column: ``path_format`` is the layout's path built with ``%s`` for each column."""
    from pyspark.sql import functions as F

    return F.format_string(path_format, *columns)


def _floor_seconds(ms: Col) -> Col:
    """Python's ``ms // 1000`` (floor, also for negative values)."""
    from pyspark.sql import functions as F

    return F.floor(ms / F.lit(1000)).cast("long")


class _BrokerLookup:
    """Per-row questions about a broker id. When the registered ids are dense enough (the usual 0..n or
    1001..n) they are answered by indexing a literal int array by the id; otherwise by scanning the list.
    ``array_contains`` on a literal list and a map lookup both scan it, which on a million rows and a few
    hundred brokers costs seconds; ``isin`` compiles into a switch per use, too big for Spark's code
    generation. The table is written as ``split`` of a string literal, which Spark folds into one literal
    array while planning: ``array(lit, lit, ...)`` would be one expression per broker id to analyse."""

    DENSE_SPAN = 1 << 16

    def __init__(self, live: frozenset[int], racks: dict[int, str | None]) -> None:
        self.ids = sorted(live)
        names = sorted({r for b, r in racks.items() if r is not None and b in live})
        self.rack_index = {b: names.index(r) for b, r in racks.items() if r is not None and b in live}
        self.low = self.ids[0] if self.ids else 0
        self.span = self.ids[-1] - self.low + 1 if self.ids else 0
        self.dense = 0 < self.span <= self.DENSE_SPAN

    def _lookup(self, table: list[int], broker: Col) -> Col:
        """``table[broker - low]`` (null when out of range)."""
        from pyspark.sql import functions as F

        array = F.split(F.lit(",".join(map(str, table))), ",").cast("array<int>")
        index = broker - F.lit(self.low)
        return F.when((index >= 0) & (index < len(table)), F.element_at(array, index + 1))

    def live(self, broker: Col) -> Col:
        """Whether ``broker`` is registered (false for null)."""
        from pyspark.sql import functions as F

        if not self.ids:
            return F.lit(False)
        if not self.dense:
            return F.coalesce(F.array_contains(_ints(self.ids), broker), F.lit(False))
        flags = [0] * self.span
        for b in self.ids:
            flags[b - self.low] = 1
        return F.coalesce(self._lookup(flags, broker) == 1, F.lit(False))

    def rack(self, broker: Col) -> Col:
        """A number standing for the rack of ``broker``, equal for brokers on the same rack (null: no rack or
        not registered)."""
        from pyspark.sql import functions as F

        if not self.rack_index:
            return F.lit(None).cast("int")
        if not self.dense:
            pairs = [x for b, r in sorted(self.rack_index.items()) for x in (F.lit(b), F.lit(r))]
            return F.try_element_at(F.create_map(*pairs), broker)
        table = [-1] * self.span
        for b, r in self.rack_index.items():
            table[b - self.low] = r
        rack = self._lookup(table, broker)
        return F.when(rack >= 0, rack)


# ---- partitions, topics, preferred leaders, reassignments, served metadata ------------------------


class _PartitionChecks:
    """Checks over the partition rows; shares the derived columns they all need."""

    def __init__(self, frames: Frames, params: CheckParams, want: frozenset[str]) -> None:
        from pyspark.sql import functions as F

        self.f = frames
        self.params = params
        self.want = want
        facts = frames.facts
        self.live = _ints(sorted(facts.live))
        self.registered = _ints(sorted(facts.registered))
        self.brokers = _BrokerLookup(facts.live, facts.racks)
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
        )  # fmt: skip
        # Every pass reads these rows: computed once (joins and the quiet flag), cached, released with the
        # frames. The costly per-row arrays (offline replicas, duplicates) are left to the few rows that are
        # not quiet.
        self.p = self._with_quiet(p).cache()
        frames.cached.append(self.p)

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

    def _with_problems(self, rows: DataFrame) -> DataFrame:
        """``rows`` with the replica lists the finding expressions need: offline and duplicate replicas."""
        from pyspark.sql import functions as F

        replicas = F.col("replicas")
        return rows.select(
            "*",
            # array_except keeps the first occurrences in order, like the local engine's dict.fromkeys.
            F.coalesce(F.array_except(replicas, self.live), _ints([])).alias("offline"),
            F.when(
                F.size(F.array_distinct(replicas)) < F.size(replicas),
                F.array_sort(
                    F.array_distinct(F.filter(replicas, lambda x: F.size(F.filter(replicas, lambda y: y == x)) > 1))
                ),
            ).otherwise(_ints([])).alias("duplicates"),
        )  # fmt: skip

    # -- per partition (one fused pass) --

    def partition_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        topic, part = c("topic"), c("partition")
        replicas, isr, leader, offline = c("replicas"), c("isr"), c("leader"), c("offline")
        tpath, spath = _znode(_TOPIC, topic), _znode(_STATE, topic, part)
        assigned = c("assigned")
        has_state = c("state") == "ok"
        available = assigned & has_state & ~c("deleting")
        nonempty_isr = F.size(isr) > 0
        leader_live = (leader >= 0) & self.brokers.live(leader)
        adding, removing = c("adding"), c("removing")
        reassigning = (F.size(adding) > 0) | (F.size(removing) > 0) | c("requested").isNotNull()
        epoch = self.f.facts.controller_epoch
        preferred = F.element_at(replicas, 1)
        no_finding = F.lit(None)
        # core.snapshot.health.partition_health, as columns (the engine-equivalence tests hold them equal).
        h_isr = F.when(has_state, isr).otherwise(_ints([]))
        h_n = F.size(h_isr)
        h_offline = assigned & ~(has_state & (leader >= 0) & self.brokers.live(leader))
        h_factor = F.size(F.filter(replicas, lambda x: ~F.array_contains(adding, x)))
        h_urp = assigned & (h_n < h_factor)
        h_min_isr = c("min_isr")
        h_under_min = assigned & (h_offline | (h_min_isr.isNotNull() & (h_n < h_min_isr)))
        h_source = F.when(c("min_isr_override").isNotNull(), F.lit("topic")).otherwise(
            self._broker_min_isr(c("live_leader"), "source")
        )
        queued = F.when(c("deleting"), F.lit(True))

        def when(cond: Col, finding: Col) -> Col:
            return F.when(cond, finding).otherwise(no_finding)

        findings: list[Col] = [
            when(assigned & (F.size(c("duplicates")) > 0),
                 _finding("duplicate_replica", topic, part, F.lit(None), tpath, replicas=replicas,
                          duplicates=c("duplicates"))),
            when(assigned & (c("state") == "missing"),
                 _finding("partition_state_missing", topic, part, F.lit(None), spath, replicas=replicas,
                          offline_replicas=offline)),
            when(~assigned,
                 _finding("orphan_partition_state", topic, part, F.lit(None),
                          F.when(c("state") == "missing",
                                 _znode(partition_path("%s", "%s"), topic, part)).otherwise(spath),
                          partition_count=c("partition_count"))),
            when(assigned & has_state & F.lit(epoch is not None)
                 & (c("state_controller_epoch") > F.lit(epoch if epoch is not None else 0)),
                 _finding("controller_epoch_ahead", topic, part, F.lit(None), spath,
                          state_controller_epoch=c("state_controller_epoch"),
                          controller_epoch=F.lit(epoch))),
            when(assigned & has_state & ~nonempty_isr,
                 _finding("empty_isr", topic, part, F.lit(None), spath, leader=leader, replicas=replicas)),
            when(assigned & has_state & nonempty_isr & (leader >= 0) & ~F.array_contains(isr, leader),
                 _finding("leader_not_in_isr", topic, part, F.lit(None), spath, leader=leader, isr=isr)),
            when(assigned & has_state & nonempty_isr
                 & (F.size(F.filter(isr, lambda x: ~F.array_contains(replicas, x))) > 0),
                 _finding("isr_not_subset_of_replicas", topic, part, F.lit(None), spath, isr=isr, replicas=replicas,
                          not_replicas=F.array_distinct(F.filter(isr, lambda x: ~F.array_contains(replicas, x))))),
            when(h_offline,
                 _finding("offline_partition", topic, part, F.lit(None), spath, leader=F.when(has_state, leader),
                          isr=h_isr, replicas=replicas, offline_replicas=offline, queued_for_deletion=queued)),
            when(h_under_min,
                 _finding("under_min_isr", topic, part, F.lit(None), spath, isr=h_isr, replicas=replicas,
                          min_insync_replicas=h_min_isr, min_isr_source=h_source, has_live_leader=~h_offline,
                          offline_replicas=offline, queued_for_deletion=queued)),
            when(h_urp,
                 _finding("under_replicated", topic, part, F.lit(None), spath, isr=h_isr, replicas=replicas,
                          replication_factor=h_factor, offline_replicas=offline, queued_for_deletion=queued)),
            when(available & nonempty_isr & leader_live & (F.size(replicas) > 0) & (leader != preferred),
                 _finding("preferred_leader_not_leader", topic, part, preferred, spath, leader=leader,
                          preferred_live=self.brokers.live(preferred),
                          preferred_in_isr=F.array_contains(isr, preferred))),
            when(assigned & reassigning,
                 _finding("reassignment_in_progress", topic, part, F.lit(None), tpath, replicas=replicas,
                          adding=adding, removing=removing, requested=c("requested"))),
            when(assigned & reassigning & self._bad_moves(),
                 _finding("invalid_reassignment_request", topic, part, F.lit(None), tpath, replicas=replicas,
                          adding=adding, removing=removing, problems=self._move_problems())),
        ]  # fmt: skip
        rack_map = self.rack_map
        if rack_map is not None and self.f.facts.racks_complete:
            distinct = F.array_distinct(replicas)
            racks = F.transform(distinct, lambda b: F.element_at(rack_map, b))
            expected = F.least(F.size(distinct), F.lit(self.f.facts.rack_count))
            findings.append(
                when(assigned & (F.size(replicas) > 0) & (F.size(offline) == 0)
                     & (F.size(F.array_except(replicas, self.registered)) == 0)
                     & (F.size(F.array_distinct(racks)) < expected),
                     _finding("rack_violation", topic, part, F.lit(None), tpath, replicas=replicas,
                              replica_racks=racks, distinct_racks=F.size(F.array_distinct(racks)),
                              expected_racks=expected))
            )  # fmt: skip
        unknown_ok = available & nonempty_isr & ~h_offline & ~h_urp & ~h_under_min
        unknown = F.transform(
            offline,
            lambda b: F.when(
                unknown_ok, _finding("replica_on_unknown_broker", topic, part, b, tpath, replicas=replicas)
            ),
        )
        return _exploded(self._with_problems(self.p.where(~F.col("quiet"))), findings, [unknown])

    def _with_quiet(self, rows: DataFrame) -> DataFrame:
        """``rows`` with ``quiet``: true for a partition none of the partition checks can fire on: in sync
        at its preferred leader, every replica registered and on enough racks, nothing moving. It keeps the
        costly finding expressions to the few other rows, as the local engine's fast path does. The first
        ``QUIET_MAX_REPLICAS`` replicas are looked up one by one (a longer list takes the slow path). Never
        null: a null would drop the row from both sides of the filter. One expression: computing the
        replicas' lookups in columns of their own first measured twice as slow to cache."""
        from pyspark.sql import functions as F

        c = F.col
        facts = self.f.facts
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

    def _move_problems(self) -> Col:
        from pyspark.sql import functions as F

        adding, removing, replicas = F.col("adding"), F.col("removing"), F.col("replicas")
        tokens = [
            F.when(F.size(F.array_except(adding, replicas)) > 0, F.lit("adding_not_in_replicas")),
            F.when(F.size(F.array_except(removing, replicas)) > 0, F.lit("removing_not_in_replicas")),
            F.when(F.size(F.array_intersect(adding, removing)) > 0, F.lit("adding_and_removing")),
        ]
        return F.filter(F.array(*tokens), lambda x: x.isNotNull())

    def _bad_moves(self) -> Col:
        from pyspark.sql import functions as F

        return F.size(self._move_problems()) > 0

    # -- per topic --

    def topic_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        assigned = self.p.where(c("assigned"))
        # A quiet partition's replicas are distinct and none is being removed: no set difference needed.
        rf = F.when(c("quiet"), F.size("replicas")).otherwise(F.size(F.array_except("replicas", "removing")))
        # Plain aggregates over every partition (compiled, no per-topic lists), then the lists only for the
        # few topics that need them: partition ids are distinct, so they are 0..n-1 exactly when the
        # smallest is 0 and the largest n-1.
        agg = assigned.groupBy("topic").agg(
            F.count(F.lit(1)).cast("int").alias("n"),
            F.min("partition").alias("first"),
            F.max("partition").alias("last"),
            F.min(rf).alias("rf_min"),
            F.max(rf).alias("rf_max"),
            F.max(F.when(c("partition") == 0, F.size("replicas"))).alias("rf0"),
        )
        flagged = agg.where((c("first") != 0) | (c("last") != c("n") - 1) | (c("rf_min") != c("rf_max")))
        lists = (
            assigned.join(F.broadcast(flagged.select("topic")), "topic", "left_semi")
            .groupBy("topic")
            .agg(
                F.array_sort(F.collect_list("partition")).alias("ids"),
                F.array_sort(F.collect_set(rf)).alias("rfs"),
            )
        )
        detail = lists.join(F.broadcast(flagged), "topic", "inner")
        topic = c("topic")
        tpath = _znode(_TOPIC, topic)
        ids, n = c("ids"), c("n")
        missing = F.filter(F.sequence(F.lit(0), n - 1), lambda x: ~F.array_contains(ids, x))
        unexpected = F.filter(ids, lambda x: x >= n)
        per_topic = _exploded(
            detail,
            [
                F.when(F.size(missing) + F.size(unexpected) > 0,
                       _finding("non_contiguous_partitions", topic, F.lit(None), F.lit(None), tpath,
                                partition_count=n, missing=missing, unexpected=unexpected)),
                F.when(F.size(c("rfs")) > 1,
                       _finding("inconsistent_replication_factor", topic, F.lit(None), F.lit(None), tpath,
                                replication_factors=c("rfs"), partition_0_replication_factor=c("rf0"))),
            ],
        )  # fmt: skip
        return per_topic

    def name_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        topics = self.f.topics
        name = c("topic")
        java_length = (F.octet_length(F.encode(name, "UTF-16LE")) / 2).cast("int")
        problem = (
            F.when(name == "", F.lit("Topic name is invalid: the empty string is not allowed"))
            .when(name.isin(".", ".."), F.concat(F.lit("Topic name is invalid: '"), name, F.lit("' is not allowed")))
            .when(java_length > 249, F.concat(F.lit("Topic name is invalid: the length of '"), name,
                                              F.lit("' is longer than the max allowed length 249")))
            .when(~name.rlike(r"^[a-zA-Z0-9._-]+\z"),
                  F.concat(F.lit("Topic name is invalid: '"), name,
                           F.lit("' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'")))
        )  # fmt: skip
        invalid = _rows(
            topics.where(problem.isNotNull()),
            _finding("topic_name_invalid", name, F.lit(None), F.lit(None), _znode(_TOPIC, name), reason=problem),
        )
        keyed = topics.select("topic", F.translate("topic", ".", "_").alias("key"))
        groups = keyed.groupBy("key").agg(F.collect_list("topic").alias("group")).where(F.size("group") > 1)
        members = groups.select(F.explode("group").alias("topic"), "group")
        others = F.array_sort(F.filter(c("group"), lambda x: x != c("topic")))
        collisions = _rows(
            members,
            _finding("topic_name_collision", name, F.lit(None), F.lit(None), _znode(_TOPIC, name),
                     colliding_with=others),
        )
        return invalid.unionByName(collisions)

    def deletion_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        facts = self.f.facts
        moving = (F.size("adding") > 0) | (F.size("removing") > 0) | c("requested").isNotNull()
        per_topic = (
            self._with_problems(self.p.where(c("assigned") & c("deleting")))
            .groupBy("topic")
            .agg(
                F.max(moving).alias("moving"),
                F.array_sort(F.array_distinct(F.flatten(F.collect_list("offline")))).alias("offline_all"),
            )
        )
        markers = self.f.markers.join(F.broadcast(self.f.topics.select("topic", "readable")), "topic", "inner")
        markers = markers.join(F.broadcast(per_topic), "topic", "left").join(
            F.broadcast(self.requested_topics.select("topic", F.lit(True).alias("requested_topic"))), "topic", "left"
        )
        readable = c("readable")
        offline = F.when(readable, F.coalesce(c("offline_all"), _ints([]))).otherwise(_ints([]))
        moving = readable & (F.coalesce(c("moving"), F.lit(False)) | F.coalesce(c("requested_topic"), F.lit(False)))
        age = F.lit(facts.taken_at_ms) - c("ctime_ms")
        reasons = F.filter(
            F.array(
                F.when(F.lit(facts.controller_missing), F.lit("no_controller")),
                F.when(~readable, F.lit("assignment_unreadable")),
                F.when(F.size(offline) > 0, F.lit("offline_replicas")),
                F.when(moving, F.lit("reassignment")),
                F.when(age > F.lit(self.params.deletion_stuck_after_ms), F.lit("old_marker")),
            ),
            lambda x: x.isNotNull(),
        )
        topic = c("topic")
        path = _znode(deletion_marker_path("%s"), topic)
        return _exploded(
            markers,
            [
                F.when(F.size(reasons) > 0,
                       _finding("deletion_stuck", topic, F.lit(None), F.lit(None), path, reasons=reasons,
                                offline_replicas=F.when(F.size(offline) > 0, offline), queued_s=_floor_seconds(age))),
                F.when(F.size(reasons) == 0,
                       _finding("deletion_pending", topic, F.lit(None), F.lit(None), path,
                                queued_s=_floor_seconds(age))),
            ],
        )  # fmt: skip

    # -- per preferred leader --

    def imbalance_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        rows = self.p.where(c("assigned") & ~c("deleting") & (F.size("replicas") > 0))
        preferred = F.element_at("replicas", 1)
        led_elsewhere = (
            (c("state") == "ok") & (c("leader") != preferred) & (c("leader") >= 0)
            & self.brokers.live(c("leader"))
        )  # fmt: skip
        agg = rows.groupBy(preferred.alias("broker")).agg(
            F.count(F.lit(1)).alias("total"), F.sum(F.when(led_elsewhere, 1).otherwise(0)).alias("elsewhere")
        )
        threshold = self.params.imbalance_percent
        flagged = agg.where(self.brokers.live(c("broker")) & (c("elsewhere") * 100 > F.lit(threshold) * c("total")))
        broker = c("broker")
        return _rows(
            flagged,
            _finding("leader_imbalance", F.lit(None), F.lit(None), broker,
                     _znode(broker_path("%s"), broker), preferred_partitions=c("total"),
                     led_elsewhere=c("elsewhere"), threshold_percent=F.lit(threshold)),
        )  # fmt: skip

    # -- /admin/reassign_partitions --

    def request_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        requests = self.f.requests
        topics = self.f.topics.select("topic", "readable")
        existing = (
            self.p.where(c("assigned"))
            .join(F.broadcast(requests.select("topic").distinct()), "topic", "inner")
            .select("topic", "partition", F.lit(True).alias("partition_exists"))
        )
        r = requests.join(topics, "topic", "left").join(existing, ["topic", "partition"], "left")
        replicas = c("replicas")
        duplicates = F.array_sort(
            F.array_distinct(F.filter(replicas, lambda x: F.size(F.filter(replicas, lambda y: y == x)) > 1))
        )
        unknown = F.array_distinct(F.filter(replicas, lambda x: (x >= 0) & ~self.brokers.live(x)))
        problems = F.filter(
            F.array(
                F.when(c("readable").isNull(), F.lit("missing_topic")),
                F.when(c("readable") & c("partition_exists").isNull(), F.lit("missing_partition")),
                F.when(F.size(replicas) == 0, F.lit("empty")),
                F.when(F.size(duplicates) > 0, F.lit("duplicates")),
                F.when(F.exists(replicas, lambda x: x < 0), F.lit("negative_ids")),
                F.when(F.size(unknown) > 0, F.lit("unknown_brokers")),
            ),
            lambda x: x.isNotNull(),
        )
        return _rows(
            r.where(F.size(problems) > 0),
            _finding("invalid_reassignment_request", c("topic"), c("partition"), F.lit(None),
                     F.lit(REASSIGN_PARTITIONS), requested=replicas, problems=problems,
                     duplicates=F.when(F.size(duplicates) > 0, duplicates),
                     unknown_brokers=F.when(F.size(unknown) > 0, unknown)),
        )  # fmt: skip

    # -- what the brokers serve --

    def served_findings(self) -> DataFrame:
        from pyspark.sql import functions as F

        c = F.col
        f = self.f
        assert f.served_parts is not None and f.served_topics is not None
        facts = f.facts
        out = []
        if facts.served_brokers is not None and facts.served_brokers != facts.live:
            out.append(
                _rows(
                    f.one_row,
                    _finding("metadata_mismatch", F.lit(None), F.lit(None), F.lit(None), F.lit(BROKER_IDS),
                             differs=F.array(F.lit("brokers")), zk_brokers=_ints(sorted(facts.live)),
                             served_brokers=_ints(sorted(facts.served_brokers))),
                )
            )  # fmt: skip
        served_topics = f.served_topics.select("topic")
        ghosts = served_topics.join(f.topics.select("topic"), "topic", "left_anti")
        out.append(
            _rows(ghosts, _finding("metadata_mismatch", c("topic"), F.lit(None), F.lit(None),
                                   _znode(_TOPIC, c("topic")), differs=F.array(F.lit("topic")), side=F.lit("brokers")))
        )  # fmt: skip
        zk = self.p.where(c("assigned") & ~c("deleting"))
        with_state = zk.where(c("state") == "ok")
        served_flag = served_topics.select("topic", F.lit(True).alias("served"))
        unserved = with_state.select("topic").distinct().join(served_flag, "topic", "left").where(c("served").isNull())
        out.append(
            _rows(unserved, _finding("metadata_mismatch", c("topic"), F.lit(None), F.lit(None),
                                     _znode(_TOPIC, c("topic")), differs=F.array(F.lit("topic")),
                                     side=F.lit("zookeeper")))
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
        spath = _znode(_STATE, topic, part)
        leader_differs = c("leader") != c("s_leader")
        isr_differs = F.array_sort("isr") != F.array_sort("s_isr")
        replicas_differ = c("replicas") != c("s_replicas")
        differs = F.filter(
            F.array(
                F.when(leader_differs, F.lit("leader")),
                F.when(isr_differs, F.lit("isr")),
                F.when(replicas_differ, F.lit("replicas")),
            ),
            lambda x: x.isNotNull(),
        )
        out.append(
            _exploded(
                compared,
                [
                    F.when(c("s_present").isNull(),
                           _finding("metadata_mismatch", topic, part, F.lit(None), spath,
                                    differs=F.array(F.lit("partition")), side=F.lit("zookeeper"))),
                    F.when(c("s_present") & (F.size(differs) > 0),
                           _finding("metadata_mismatch", topic, part, F.lit(None), spath, differs=differs,
                                    zk_leader=F.when(leader_differs, c("leader")),
                                    served_leader=F.when(leader_differs, c("s_leader")),
                                    zk_isr=F.when(isr_differs, F.array_sort("isr")),
                                    served_isr=F.when(isr_differs, F.array_sort("s_isr")),
                                    zk_replicas=F.when(replicas_differ, c("replicas")),
                                    served_replicas=F.when(replicas_differ, c("s_replicas")))),
                ],
            )
        )  # fmt: skip
        zk_topics = f.topics.where(c("readable")).join(self.deleting_topics, "topic", "left_anti").select("topic")
        extra = f.served_parts.join(zk_topics, "topic", "inner").join(
            zk.select("topic", "partition"), ["topic", "partition"], "left_anti"
        )
        out.append(
            _rows(extra, _finding("metadata_mismatch", c("topic"), c("partition"), F.lit(None),
                                  _znode(_STATE, c("topic"), c("partition")), differs=F.array(F.lit("partition")),
                                  side=F.lit("brokers")))
        )  # fmt: skip
        result = out[0]
        for piece in out[1:]:
            result = result.unionByName(piece)
        return result


# ---- cluster-wide: controller, brokers, markers, configs, notifications, unreadable ---------------


def _strings(values: list[str]) -> Col:
    from pyspark.sql import functions as F

    return F.array(*[F.lit(v) for v in values]).cast("array<string>")


def _cluster_findings(frames: Frames, params: CheckParams, want: frozenset[str]) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    facts = frames.facts
    one = frames.one_row
    registered_ids = facts.registered
    registered = _ints(sorted(registered_ids))
    out = [_empty(one)]
    if facts.controller_missing:
        out.append(
            _rows(one, _finding("no_controller", F.lit(None), F.lit(None), F.lit(None), F.lit(CONTROLLER),
                                registered_brokers=registered))
        )  # fmt: skip
    elif (
        facts.controller_id is not None
        and not facts.controller_is_kraft
        and facts.controller_id not in facts.registered
    ):
        cid = F.lit(facts.controller_id)
        out.append(
            _rows(one, _finding("controller_not_registered", F.lit(None), F.lit(None), cid, F.lit(CONTROLLER),
                                controller=cid, registered_brokers=registered))
        )  # fmt: skip
    brokers = frames.brokers
    endpoints = (
        brokers.where(c("readable"))
        .select("broker", F.explode(F.array_distinct("endpoints")).alias("address"))
        .where(~c("address").startswith(":"))
    )
    shared = (
        endpoints.groupBy("address").agg(F.array_sort(F.collect_set("broker")).alias("ids")).where(F.size("ids") > 1)
    )
    mine = (
        endpoints.join(shared, "address", "inner")
        .groupBy("broker")
        .agg(
            F.array_sort(F.collect_set("address")).alias("dup_addresses"),
            F.array_sort(F.array_distinct(F.flatten(F.collect_list("ids")))).alias("dup_ids"),
        )
    )
    b = brokers.join(mine, "broker", "left")
    version = c("version")
    problems = F.filter(
        F.array(
            F.when(c("rack").isNotNull() & (version < 3), F.lit("rack_before_v3")),
            F.when(c("has_protocol_map") & (version < 4), F.lit("protocol_map_before_v4")),
            F.when(~c("has_protocol_map") & (version >= 4), F.lit("no_protocol_map")),
            F.when(c("has_features") & (version < 5), F.lit("features_before_v5")),
            F.when(~c("has_features") & (version >= 5), F.lit("no_features")),
            F.when(c("dup_addresses").isNotNull(), F.lit("duplicate_endpoint")),
        ),
        lambda x: x.isNotNull(),
    )
    broker = c("broker")
    bpath = _znode(broker_path("%s"), broker)
    others = F.filter(F.coalesce(c("dup_ids"), _ints([])), lambda x: x != broker)
    out.append(
        _rows(b.where(~c("readable")),
              _finding("broker_registration_invalid", F.lit(None), F.lit(None), broker, bpath,
                       problems=F.array(F.lit("unreadable")), reason=c("reason")))
    )  # fmt: skip
    out.append(
        _rows(b.where(c("readable") & (F.size(problems) > 0)),
              _finding("broker_registration_invalid", F.lit(None), F.lit(None), broker, bpath, problems=problems,
                       version=version, duplicate_endpoints=c("dup_addresses"),
                       shared_with=F.when(F.size(others) > 0, others)))
    )  # fmt: skip
    with_rack = sorted(k for k, r in facts.racks.items() if r is not None)
    without = sorted(k for k, r in facts.racks.items() if r is None)
    if with_rack and without:
        out.append(
            _rows(one, _finding("rack_violation", F.lit(None), F.lit(None), F.lit(None), F.lit(BROKER_IDS),
                                brokers_with_rack=_ints(with_rack), brokers_without_rack=_ints(without)))
        )  # fmt: skip
    topic_names = F.broadcast(frames.topics.select("topic"))
    stale = frames.markers.join(topic_names, "topic", "left_anti")
    out.append(
        _rows(stale, _finding("stale_deletion_marker", c("topic"), F.lit(None), F.lit(None),
                              _znode(deletion_marker_path("%s"), c("topic"))))
    )  # fmt: skip
    orphans = frames.topic_configs.select("topic").join(topic_names, "topic", "left_anti")
    out.append(
        _rows(orphans, _finding("orphan_topic_config", c("topic"), F.lit(None), F.lit(None),
                                _znode(topic_config_path("%s"), c("topic"))))
    )  # fmt: skip
    result = out[0]
    for piece in out[1:]:
        result = result.unionByName(piece)
    return result


def _notification_findings(frames: Frames, params: CheckParams, want: frozenset[str]) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    taken_at = frames.facts.taken_at_ms
    limit = params.notification_max_age_ms
    grouped = frames.notes.groupBy("parent").agg(
        F.collect_list("ctime_ms").alias("ctimes"), F.max("ctime_ms").alias("newest"), F.count(F.lit(1)).alias("total")
    )
    from_newest = c("parent") == CONFIG_CHANGES
    reference = F.when(from_newest, c("newest")).otherwise(F.lit(taken_at))
    stale = F.filter("ctimes", lambda t: reference - t > F.lit(limit))
    oldest = F.array_min(stale)
    return _rows(
        grouped.where(F.size(stale) > 0),
        _finding("notification_backlog", F.lit(None), F.lit(None), F.lit(None), c("parent"), stale=F.size(stale),
                 total=c("total").cast("int"), oldest_age_s=_floor_seconds(reference - oldest),
                 measured_from=F.when(from_newest, F.lit("newest")).otherwise(F.lit("snapshot"))),
    )  # fmt: skip


def _unreadable_findings(frames: Frames, want: frozenset[str]) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    path = c("path")
    state_re = r"^/brokers/topics/([^/]+)/partitions/([0-9]{1,9})/state\z"
    state = F.regexp_extract(path, state_re, 1)
    state_partition = F.regexp_extract(path, state_re, 2)
    topic_only = F.regexp_extract(path, r"^/(?:brokers/topics|config/topics|admin/delete_topics)/([^/]+)\z", 1)
    topic = F.when(state != "", state).when(topic_only != "", topic_only)
    partition = F.when(state != "", state_partition.cast("int"))
    broker_paths = [broker_path(b) for b in sorted(frames.facts.registered)]
    rows = frames.unreadable.where(~path.isin(broker_paths)) if broker_paths else frames.unreadable
    return _rows(
        rows.dropDuplicates(["path"]),
        _finding("unreadable_znode", topic, partition, F.lit(None), path, reason=c("reason")),
    )


# ---- readiness for a ZooKeeper-to-KRaft migration -------------------------------------------------


def _migration_findings(frames: Frames) -> DataFrame:
    from pyspark.sql import functions as F

    c = F.col
    one = frames.one_row
    out = [_empty(one)]
    if frames.facts.cluster_id_reason is not None:
        out.append(
            _rows(one, _finding("migration_cluster_id_missing", F.lit(None), F.lit(None), F.lit(None),
                                F.lit(CLUSTER_ID), reason=F.lit(frames.facts.cluster_id_reason)))
        )  # fmt: skip
    broker = c("broker")
    out.append(
        _rows(frames.brokers.where(c("readable") & (c("version") < 5)),
              _finding("migration_protocol_too_old", F.lit(None), F.lit(None), broker,
                       _znode(broker_path("%s"), broker), version=c("version")))
    )  # fmt: skip
    parts = frames.parts.where(c("assigned"))
    moving = parts.where((F.size("adding") > 0) | (F.size("removing") > 0)).select("topic", "partition")
    requested = frames.requests.select("topic", "partition")
    asked = requested.select("topic").distinct().withColumn("requested", F.lit(True))
    grouped = (
        moving.unionByName(requested)
        .groupBy("topic")
        .agg(F.array_sort(F.collect_set("partition")).alias("partitions"))
        .join(asked, "topic", "left")
    )
    was_asked = F.coalesce(c("requested"), F.lit(False))
    where = F.when(was_asked, F.lit(REASSIGN_PARTITIONS)).otherwise(_znode(_TOPIC, c("topic")))
    out.append(
        _rows(grouped, _finding("migration_reassignment_pending", c("topic"), F.lit(None), F.lit(None), where,
                                partitions=c("partitions"), requested=was_asked))
    )  # fmt: skip
    out.append(
        _rows(frames.markers, _finding("migration_deletion_pending", c("topic"), F.lit(None), F.lit(None),
                                       _znode(deletion_marker_path("%s"), c("topic"))))
    )  # fmt: skip
    out.append(
        _rows(parts.where((c("state") == "ok") & (c("leader") == -1)),
              _finding("migration_leaderless_partition", c("topic"), c("partition"), F.lit(None),
                       _znode(_STATE, c("topic"), c("partition")), isr=c("isr")))
    )  # fmt: skip
    facts = frames.facts
    tokens_path = F.lit(DELEGATION_TOKENS)
    if facts.delegation_tokens_reason is not None:
        out.append(
            _rows(one, _finding("migration_delegation_tokens", F.lit(None), F.lit(None), F.lit(None), tokens_path,
                                reason=F.lit(facts.delegation_tokens_reason)))
        )  # fmt: skip
    elif facts.delegation_tokens:
        out.append(
            _rows(one, _finding("migration_delegation_tokens", F.lit(None), F.lit(None), F.lit(None), tokens_path,
                                tokens=F.lit(facts.delegation_tokens)))
        )  # fmt: skip
    result = out[0]
    for piece in out[1:]:
        result = result.unionByName(piece)
    return result
