"""``kzc history isr``: each replica's time out of the ISR, and the leader changes with their epochs.

The rule (one place, the local engine is its reference and the Spark engine computes the same columns): at
each observation of a partition (``core.history.observations``) every replica the partition had in the
window is ``in`` (in the ISR), ``out`` (assigned, not in the ISR) or ``gone`` (not assigned, or the partition
is removed). An outage starts at an observation where a replica is ``out`` and was not before, and ends at
the next observation where it is not ``out``: ``back`` (``in``), ``removed`` (reassigned away) or
``partition removed``; still ``out`` at the end of the data, it is ``open``. An outage seen ``out`` at the
very first observation started earlier than the data shows (``left_known`` False). A leader change is an
observation whose leader or leader epoch differs from the previous readable one.

Observations are when the recorder saw a change, within the model's coalescing (tens of milliseconds); when a
recorded gap lies between a transition and the observation before it, the transition happened somewhere in
that gap and the answer says so (``uncertain``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from core.history.location import HistoryPlace
from core.history.observations import KEYS, Window, read_observations, spark_observations
from core.history.question import Question, Span
from core.history.schema import PARTITION_REMOVED
from core.history.store import Gap
from core.human_time import age_text, utc_text
from core.kafka.topic_partition import TopicPartition

IN, OUT, GONE = "in", "out", "gone"
ENDS = {IN: "back", GONE: "removed"}


@dataclass(frozen=True, slots=True)
class Outage:
    """One replica out of a partition's ISR: from ``left_ms`` to ``back_ms`` (None: still out at the end)."""

    topic: str
    partition: int
    replica: int
    left_ms: int
    left_prev_ms: int | None  # the observation before the one that saw it out (None: it was the first)
    back_ms: int | None
    back_prev_ms: int | None
    end: str  # back, removed, partition removed, open

    @property
    def left_known(self) -> bool:
        """False when the replica was already out at the first observation (it left earlier)."""
        return self.left_prev_ms is not None

    def out_ms(self, data_end_ms: int) -> int:
        """How long it was out (until the end of the data when open)."""
        return (self.back_ms if self.back_ms is not None else data_end_ms) - self.left_ms


@dataclass(frozen=True, slots=True)
class LeaderChange:
    """A partition's leader or leader epoch changed at ``at_ms``."""

    topic: str
    partition: int
    at_ms: int
    prev_ms: int
    old_leader: int
    new_leader: int
    old_epoch: int
    leader_epoch: int


@dataclass(frozen=True)
class Transitions:
    """What both engines compute: every outage and leader change of the observations, sorted."""

    outages: tuple[Outage, ...]
    leader_changes: tuple[LeaderChange, ...]


# ---- local engine (the reference) ------------------------------------------------------------------------


def _sorted_rows(table: pa.Table) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = table.to_pylist()
    rows.sort(key=lambda r: (r["topic"], r["partition"], r["ts_ms"], r["src"], r["seq"]))
    return rows


def _readable(row: dict[str, Any]) -> bool:
    return row["kind"] == PARTITION_REMOVED or row["isr"] is not None


def _status(row: dict[str, Any], replica: int) -> str:
    if row["kind"] == PARTITION_REMOVED or replica not in (row["replicas"] or ()):
        return GONE
    return IN if replica in row["isr"] else OUT


def transitions_local(table: pa.Table) -> Transitions:
    """The outages and leader changes of an observations table (``read_observations``)."""
    outages: list[Outage] = []
    changes: list[LeaderChange] = []
    by_partition: dict[TopicPartition, list[dict[str, Any]]] = {}
    for row in _sorted_rows(table):
        if _readable(row):
            by_partition.setdefault((row["topic"], row["partition"]), []).append(row)
    for (topic, partition), rows in by_partition.items():
        candidates = sorted({r for row in rows for r in (row["replicas"] or ())})
        for replica in candidates:
            outages.extend(_outages(topic, partition, replica, rows))
        changes.extend(_leader_changes(topic, partition, rows))
    return _sorted(outages, changes)


def _outages(topic: str, partition: int, replica: int, rows: list[dict[str, Any]]) -> Iterable[Outage]:
    previous: str | None = None
    prev_ts: int | None = None
    start: tuple[int, int | None] | None = None
    for row in rows:
        status = _status(row, replica)
        if status == OUT and previous != OUT:
            start = (row["ts_ms"], prev_ts)
        elif status != OUT and previous == OUT and start is not None:
            end = "partition removed" if row["kind"] == PARTITION_REMOVED else ENDS[status]
            yield Outage(topic, partition, replica, start[0], start[1], row["ts_ms"], prev_ts, end)
            start = None
        previous, prev_ts = status, row["ts_ms"]
    if start is not None:
        yield Outage(topic, partition, replica, start[0], start[1], None, None, "open")


def _leader_changes(topic: str, partition: int, rows: list[dict[str, Any]]) -> Iterable[LeaderChange]:
    before: dict[str, Any] | None = None
    for row in rows:
        if row["kind"] == PARTITION_REMOVED:
            continue
        if before is not None and (row["leader"], row["leader_epoch"]) != (before["leader"], before["leader_epoch"]):
            yield LeaderChange(
                topic, partition, row["ts_ms"], before["ts_ms"], before["leader"], row["leader"],
                before["leader_epoch"], row["leader_epoch"],
            )  # fmt: skip
        before = row


def _sorted(outages: Iterable[Outage], changes: Iterable[LeaderChange]) -> Transitions:
    return Transitions(
        tuple(sorted(outages, key=lambda o: (o.topic, o.partition, o.replica, o.left_ms))),
        tuple(sorted(changes, key=lambda c: (c.topic, c.partition, c.at_ms))),
    )


# ---- Spark engine ------------------------------------------------------------------------------------------


BOUNDS = ("since_ms", "until_ms", "upper_ms")  # each row's window (``spark_observations``), for clipping


@dataclass(frozen=True)
class SparkTransitions:
    """The Spark engine's shared work for one question: the observed rows (``spark_observed``), then the
    outages and leader changes derived from them. ``observed`` is cached when the question reads it more than
    once over a small slice (one topic); over a whole cluster, computing it again is cheaper than caching it
    (benchmarks/README.md). ``release`` frees the cache."""

    observed: Any
    outages: Any
    leader_changes: Any
    cached: bool

    def release(self) -> None:
        """Drop the cached frame (the session may go on with another question)."""
        if self.cached:
            self.observed.unpersist(blocking=True)  # freed before the session's next question plans its own


def spark_observed(observations: Any) -> Any:
    """The readable observations of ``observations`` (``spark_observations``) in one window pass per
    partition, each row with the previous and next moments (``prev_ts``, ``next_ts``), the previous
    non-removed row (``before``: its ``ts``, ``leader`` and ``epoch``) and the replicas whose status it
    changes to or from ``out``: ``went_out`` (``out`` now, not at the previous row, or this is the first),
    ``left_out`` (``out`` at the previous row, not now) and ``came_back`` (those of ``left_out`` now ``in``).

    A replica is ``out`` at a row exactly when it is in ``replicas`` and not in ``isr`` and the row is not a
    removal, so these are set differences of each row's and its predecessor's ``out`` replicas: Spark's
    array functions, compiled, with no per-replica pass."""
    from pyspark.sql import Window as W
    from pyspark.sql import functions as F

    removed = F.col("kind") == PARTITION_REMOVED
    readable = observations.where(removed | F.col("isr").isNotNull())
    order = W.partitionBy(*KEYS).orderBy("ts_ms", "src", "seq")
    none = F.array().cast("array<int>")
    replicas = F.coalesce("replicas", none)
    out = F.when(removed, none).otherwise(F.array_except(replicas, F.col("isr")))
    # A leader change compares with the previous row that is not a removal (the local rule skips those).
    kept = F.when(~removed, F.struct(F.col("ts_ms").alias("ts"), "leader", F.col("leader_epoch").alias("epoch")))
    rows = readable.select(
        *KEYS, "ts_ms", "src", "seq", "kind", "leader", "leader_epoch", "isr", "replicas", *BOUNDS,
        F.lag("ts_ms").over(order).alias("prev_ts"),
        F.lead("ts_ms").over(order).alias("next_ts"),
        F.last(kept, ignorenulls=True).over(order.rowsBetween(W.unboundedPreceding, -1)).alias("before"),
        out.alias("out"),
        F.coalesce(F.lag(out).over(order), none).alias("prev_out"),
    )  # fmt: skip
    now, was = F.col("out"), F.col("prev_out")
    left = F.array_except(was, now)
    in_isr = F.when(removed, none).otherwise(F.array_intersect(replicas, F.col("isr")))
    return rows.select(
        *(c for c in rows.columns if c not in ("out", "prev_out")),
        F.array_except(now, was).alias("went_out"),
        left.alias("left_out"),
        F.array_intersect(left, in_isr).alias("came_back"),
    )


def spark_transitions(observations: Any, cache: bool = False) -> SparkTransitions:
    """The outages and leader changes of ``observations`` (``spark_observations``) as Spark frames with
    ``Outage``'s and ``LeaderChange``'s columns plus ``cluster`` and the window bounds: the rules of
    ``_outages`` and ``_leader_changes``, from ``spark_observed`` (cached when ``cache``) and one window pass
    over its moves."""
    from pyspark.sql import Window as W
    from pyspark.sql import functions as F

    observed = spark_observed(observations)
    if cache:
        observed = observed.cache()
    moved = observed.select(
        *KEYS, "ts_ms", "src", "seq", "kind", "prev_ts", *BOUNDS, "went_out", "came_back",
        F.posexplode(F.concat("went_out", "left_out")).alias("i", "replica"),
    )  # fmt: skip
    status = (
        F.when(F.col("i") < F.size("went_out"), F.lit(OUT))
        .when(F.array_contains("came_back", F.col("replica")), F.lit(IN))
        .otherwise(F.lit(GONE))
    )
    moved = moved.select(*KEYS, "ts_ms", "src", "seq", "kind", "prev_ts", *BOUNDS, "replica", status.alias("status"))
    # An outage ends at the replica's next move (a replica's moves alternate: into ``out``, out of it).
    by_replica = W.partitionBy(*KEYS, "replica").orderBy("ts_ms", "src", "seq")
    following = [F.lead(c).over(by_replica).alias(f"next_{c}") for c in ("ts_ms", "prev_ts", "status", "kind")]
    moved = moved.select("*", *following)
    end = (
        F.when(F.col("next_ts_ms").isNull(), F.lit("open"))
        .when(F.col("next_kind") == PARTITION_REMOVED, F.lit("partition removed"))
        .when(F.col("next_status") == IN, F.lit("back"))
        .otherwise(F.lit("removed"))
    )
    outages = moved.where(F.col("status") == OUT).select(
        *KEYS, "replica", F.col("ts_ms").alias("left_ms"), F.col("prev_ts").alias("left_prev_ms"),
        F.col("next_ts_ms").alias("back_ms"), F.col("next_prev_ts").alias("back_prev_ms"), end.alias("end"), *BOUNDS,
    )  # fmt: skip
    changes = observed.where(F.col("kind") != PARTITION_REMOVED).where(spark_leader_changed()).select(
        *KEYS, F.col("ts_ms").alias("at_ms"), F.col("before.ts").alias("prev_ms"),
        F.col("before.leader").alias("old_leader"), F.col("leader").alias("new_leader"),
        F.col("before.epoch").alias("old_epoch"), "leader_epoch", *BOUNDS,
    )  # fmt: skip
    return SparkTransitions(observed, outages, changes, cache)


def spark_leader_changed() -> Any:
    """A leader change at a non-removed row of ``spark_observed``: its leader or epoch differs from ``before``."""
    from pyspark.sql import functions as F

    before = F.col("before")
    return before.isNotNull() & (
        ~F.col("leader").eqNullSafe(before["leader"]) | ~F.col("leader_epoch").eqNullSafe(before["epoch"])
    )


def transitions_spark(observations: Any) -> Transitions:
    """``transitions_local`` on Spark (the outages and leader changes collected)."""
    found = spark_transitions(observations, cache=True)
    try:
        outages = [Outage(*row) for row in found.outages.select(*_OUTAGE_COLUMNS).collect()]
        changes = [LeaderChange(*row) for row in found.leader_changes.select(*_CHANGE_COLUMNS).collect()]
    finally:
        found.release()
    return _sorted(outages, changes)


_OUTAGE_COLUMNS = ("topic", "partition", "replica", "left_ms", "left_prev_ms", "back_ms", "back_prev_ms", "end")
_CHANGE_COLUMNS = (
    "topic", "partition", "at_ms", "prev_ms", "old_leader", "new_leader", "old_epoch", "leader_epoch",
)  # fmt: skip


# ---- the question ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class IsrAnswer:
    """``kzc history isr``: the outages and leader changes overlapping the window, and what the store lacks."""

    window: Window
    topic: str | None  # None: every topic
    partition: int | None
    outages: tuple[Outage, ...]
    leader_changes: tuple[LeaderChange, ...]

    def uncertain(self, start_ms: int | None, prev_ms: int | None) -> Gap | None:
        """The recorded gap a transition lies in (it happened somewhere in it), if any."""
        if start_ms is None or prev_ms is None:
            return None
        return next((g for g in self.window.gaps if g.from_ms < start_ms and g.to_ms > prev_ms), None)

    def to_json(self) -> dict[str, object]:
        end = self.window.data_end_ms

        def outage(o: Outage) -> dict[str, object]:
            left_gap, back_gap = self.uncertain(o.left_ms, o.left_prev_ms), self.uncertain(o.back_ms, o.back_prev_ms)
            return {
                "topic": o.topic, "partition": o.partition, "replica": o.replica, "left_ms": o.left_ms,
                "left_known": o.left_known, "back_ms": o.back_ms, "end": o.end, "out_ms": o.out_ms(end),
                "left_in_gap": left_gap.to_json() if left_gap else None,
                "back_in_gap": back_gap.to_json() if back_gap else None,
            }  # fmt: skip

        return {
            "cluster": self.window.cluster, "topic": self.topic, "partition": self.partition,
            "since_ms": self.window.since_ms, "until_ms": self.window.until_ms,
            "data_from_ms": self.window.start_ms, "data_end_ms": end,
            "gaps": [g.to_json() for g in self.window.gaps],
            "outages": [outage(o) for o in self.outages],
            "leader_changes": [
                {"topic": c.topic, "partition": c.partition, "at_ms": c.at_ms, "old_leader": c.old_leader,
                 "new_leader": c.new_leader, "leader_epoch": c.leader_epoch} for c in self.leader_changes
            ],
        }  # fmt: skip

    def lines(self) -> list[str]:
        """The answer as text for a terminal."""
        w = self.window
        name = self.topic if self.partition is None else f"{self.topic}-{self.partition}"
        name = name if name is not None else "every partition"
        out = [f"ISR history of {name} in cluster {w.cluster}, {utc_text(w.since_ms)} to {utc_text(w.until_ms)}"]
        out.append(f"  data from {utc_text(w.start_ms)} to {utc_text(w.data_end_ms)}")
        for gap in w.gaps:
            out.append(f"  gap {utc_text(gap.from_ms)} to {utc_text(gap.to_ms)}: {gap.reason}")
        out.append("Out of ISR (replica: left at, back at, time out):" if self.outages else "Out of ISR: none")
        for o in self.outages:
            left = utc_text(o.left_ms) if o.left_known else f"before {utc_text(o.left_ms)} (already out)"
            back = utc_text(o.back_ms) if o.back_ms is not None else "still out at the end of the data"
            note = "" if o.end in ("back", "open") else f" ({o.end})"
            out.append(
                f"  {o.topic}-{o.partition} replica {o.replica}: {left} -> {back}{note}, "
                f"out {age_text(o.out_ms(w.data_end_ms) / 1000)}"
            )
            for label, inside in (
                ("left", self.uncertain(o.left_ms, o.left_prev_ms)),
                ("back", self.uncertain(o.back_ms, o.back_prev_ms)),
            ):
                if inside is not None:
                    out.append(
                        f"    {label} somewhere in the gap {utc_text(inside.from_ms)} to {utc_text(inside.to_ms)}"
                    )
        out.append("Leader changes:" if self.leader_changes else "Leader changes: none")
        for c in self.leader_changes:
            out.append(
                f"  {utc_text(c.at_ms)}  {c.topic}-{c.partition} leader {c.old_leader} -> {c.new_leader} "
                f"(epoch {c.old_epoch} -> {c.leader_epoch})"
            )
        return out


def _overlapping(window: Window, found: Transitions) -> tuple[tuple[Outage, ...], tuple[LeaderChange, ...]]:
    outages = tuple(
        o for o in found.outages if o.left_ms <= window.until_ms and (o.back_ms is None or o.back_ms >= window.since_ms)
    )
    changes = tuple(c for c in found.leader_changes if window.since_ms <= c.at_ms <= window.until_ms)
    return outages, changes


Observed = tuple[pa.Table, Transitions]  # a window's observations and their transitions (local engine)


def observed(window: Window) -> Observed:
    """Every observation of ``window`` and its transitions, read once for several questions (local engine)."""
    table = read_observations(window)
    return table, transitions_local(table)


def isr_history(
    window: Window, topic: str | None, partition: int | None = None, spark: Any = None, read: Observed | None = None
) -> IsrAnswer:
    """The ISR history of ``topic`` (one ``partition`` or all; None: every topic) over ``window``; on Spark when
    ``spark`` is given; ``read``: the whole window already read (``observed``; every topic), local engine."""
    if read is not None and topic is None:
        found = read[1]
    elif spark is None:
        found = transitions_local(read_observations(window, topic, partition))
    else:
        found = transitions_spark(spark_observations(spark, window, topic, partition))
    outages, changes = _overlapping(window, found)
    return IsrAnswer(window, topic, partition, outages, changes)


def ask(span: Span, spark: Any, topic: str | None, partition: int | None = None) -> IsrAnswer:
    """``kzc history isr``: the question of one cluster's span."""
    return isr_history(span.window(), topic, partition, spark=spark)


QUESTION = Question(
    "isr", "each replica's time out of the ISR, and leader changes with epochs", transitions_local,
    transitions_spark, ask,
)  # fmt: skip


def partition_history_lines(place: HistoryPlace, topic: str, partition: int, since_ms: int) -> list[str]:
    """The console's view of one partition's ISR history, from the store ``place`` names (local engine); a line
    saying why when there is none. Blocks: call it in a worker."""
    from core.errors import KzcError
    from core.history.schema import cluster_key
    from core.history.store import HistoryStore

    if place.root is None:
        return [place.source]
    try:
        store = HistoryStore.open(place.root)
        known = store.clusters()
        if cluster_key(place.cluster) not in known:
            return [f"the store {place.root} holds {', '.join(known) or 'no cluster'}, not {place.cluster}"]
        return isr_history(Window.of(store, place.cluster, since_ms), topic, partition).lines()
    except KzcError as exc:
        return [str(exc)]
