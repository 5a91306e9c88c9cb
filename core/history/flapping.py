"""``kzc history flapping``: partitions and brokers ranked by ISR shrinks, expands and leader changes.

Counted from the outages and leader changes of ``core.history.isr`` (the same rule on both engines): a
shrink is an outage whose start was observed in the window (``left_known``), an expand an outage that
ended ``back`` in it, a leader change one observed in it. A broker's shrinks and expands are its own
(it left or rejoined an ISR); its leaderships lost and gained are the leader changes away from and to it
("no leader", -1, is nobody's). The local engine counts the outages themselves; Spark counts the rows where
they start and end (``_ranked_spark``), in one pass: the same counts, compared in the tests.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.history.isr import Transitions, spark_leader_changed, spark_observed, transitions_local
from core.history.observations import (
    KEYS,
    Window,
    fleet_window_json,
    fleet_window_lines,
    read_observations,
    spark_fleet_observations,
    spark_observations,
)
from core.history.question import Question, Span
from core.history.schema import PARTITION_REMOVED
from core.human_time import utc_text

PARTITION_COUNTS = ("shrinks", "expands", "leader_changes")
BROKER_COUNTS = ("shrinks", "expands", "leaderships_lost", "leaderships_gained")


@dataclass(frozen=True, slots=True)
class Ranked:
    """One ranked partition (``key`` ``(topic, partition)``) or broker (``key`` ``(broker,)``) and its counts."""

    key: tuple[Any, ...]
    counts: tuple[int, ...]

    @property
    def total(self) -> int:
        """Every flap counted."""
        return sum(self.counts)


@dataclass(frozen=True)
class FlappingAnswer:
    """The top partitions and brokers of the window."""

    window: Window
    partitions: tuple[Ranked, ...]
    brokers: tuple[Ranked, ...]

    def to_json(self) -> dict[str, object]:
        w = self.window
        return {
            "cluster": w.cluster, "since_ms": w.since_ms, "until_ms": w.until_ms, "data_from_ms": w.start_ms,
            "data_end_ms": w.data_end_ms, "gaps": [g.to_json() for g in w.gaps],
            "partitions": [{"topic": r.key[0], "partition": r.key[1], **dict(zip(PARTITION_COUNTS, r.counts,
                                                                                   strict=True))}
                           for r in self.partitions],
            "brokers": [{"broker": r.key[0], **dict(zip(BROKER_COUNTS, r.counts, strict=True))} for r in self.brokers],
        }  # fmt: skip

    def lines(self) -> list[str]:
        w = self.window
        out = [f"Flapping in cluster {w.cluster}, {utc_text(w.since_ms)} to {utc_text(w.until_ms)}"]
        out.append(f"  data from {utc_text(w.start_ms)} to {utc_text(w.data_end_ms)}")
        out += [f"  gap {utc_text(g.from_ms)} to {utc_text(g.to_ms)}: {g.reason}" for g in w.gaps]
        return out + count_lines(self.partitions, self.brokers, lambda key: "")


def count_lines(
    partitions: Sequence[Ranked], brokers: Sequence[Ranked], cluster: Callable[[tuple[Any, ...]], str]
) -> list[str]:
    """The text of the ranked partitions and brokers; a key may start with its cluster (a fleet's answer), which
    ``cluster(key)`` writes ("" for one cluster's)."""
    out = ["Partitions (ISR shrinks, expands, leader changes):" if partitions else "Partitions: none"]
    for r in partitions:
        topic, partition = r.key[-2:]
        shrinks, expands, moves = r.counts
        out.append(
            f"  {cluster(r.key)}{topic}-{partition}: {shrinks} shrinks, {expands} expands, {moves} leader changes"
        )
    out.append("Brokers (left an ISR, rejoined, leaderships lost, gained):" if brokers else "Brokers: none")
    for r in brokers:
        shrinks, expands, lost, gained = r.counts
        out.append(
            f"  {cluster(r.key)}broker {r.key[-1]}: {shrinks} shrinks, {expands} expands, {lost} leaderships lost, "
            f"{gained} gained"
        )
    return out


def _rank(counts: dict[tuple[Any, ...], tuple[int, ...]], top: int) -> tuple[Ranked, ...]:
    ranked = [Ranked(k, v) for k, v in counts.items() if sum(v)]
    ranked.sort(key=lambda r: (-r.total, r.key))
    return tuple(ranked[:top])


def counts_local(window: Window, found: Transitions) -> tuple[dict[Any, tuple[int, ...]], dict[Any, tuple[int, ...]]]:
    """Per partition and per broker counts of ``found`` within ``window`` (the reference)."""
    since, until = window.since_ms, window.until_ms
    parts: dict[tuple[Any, ...], Counter[str]] = {}
    brokers: dict[tuple[Any, ...], Counter[str]] = {}
    for o in found.outages:
        key, broker = (o.topic, o.partition), (o.replica,)
        if o.left_known and since <= o.left_ms <= until:
            parts.setdefault(key, Counter())["shrinks"] += 1
            brokers.setdefault(broker, Counter())["shrinks"] += 1
        if o.end == "back" and o.back_ms is not None and since <= o.back_ms <= until:
            parts.setdefault(key, Counter())["expands"] += 1
            brokers.setdefault(broker, Counter())["expands"] += 1
    for c in found.leader_changes:
        if since <= c.at_ms <= until:
            parts.setdefault((c.topic, c.partition), Counter())["leader_changes"] += 1
            if c.old_leader != c.new_leader and c.old_leader >= 0:
                brokers.setdefault((c.old_leader,), Counter())["leaderships_lost"] += 1
            if c.old_leader != c.new_leader and c.new_leader >= 0:
                brokers.setdefault((c.new_leader,), Counter())["leaderships_gained"] += 1
    return (
        {k: tuple(v[n] for n in PARTITION_COUNTS) for k, v in parts.items()},
        {k: tuple(v[n] for n in BROKER_COUNTS) for k, v in brokers.items()},
    )


Counts = dict[tuple[Any, ...], tuple[int, ...]]


def _ranked_spark(observations: Any, top: int) -> tuple[tuple[Ranked, ...], tuple[Ranked, ...]]:
    """``_rank(counts_local(...))`` on Spark, keyed by cluster too: ``(cluster, topic, partition)`` and
    ``(cluster, broker)``; ranked in Spark, so only the ``top`` rows of each reach Python.

    Counted at the rows of ``spark_observed``, in its one window pass: an outage starts where its replica
    ``went_out`` (a shrink when the row has a previous one: ``left_known``) and ends ``back`` where it
    ``came_back`` (a replica's moves alternate); a leader change is a row ``spark_leader_changed``."""
    from pyspark.sql import functions as F

    observed = spark_observed(observations)
    inside = F.col("ts_ms").between(F.col("since_ms"), F.col("until_ms"))
    none = F.array().cast("array<int>")
    shrunk = F.when(inside & F.col("prev_ts").isNotNull(), F.col("went_out")).otherwise(none)
    expanded = F.when(inside, F.col("came_back")).otherwise(none)
    changed = inside & (F.col("kind") != PARTITION_REMOVED) & spark_leader_changed()
    old, new = F.col("before.leader"), F.col("leader")
    moved = changed & (old != new)
    # One row per partition (the window pass left the rows partitioned by it: no exchange), cached (100k rows
    # of 100k partitions): the brokers' counts come from its lists.
    per_partition = observed.groupBy(*KEYS).agg(
        F.sum(F.size(shrunk)).alias("s"), F.sum(F.size(expanded)).alias("e"), F.sum(changed.cast("int")).alias("l"),
        F.flatten(F.collect_list(shrunk)).alias("shrunk"), F.flatten(F.collect_list(expanded)).alias("expanded"),
        F.collect_list(F.when(moved & (old >= 0), old)).alias("lost"),
        F.collect_list(F.when(moved & (new >= 0), new)).alias("gained"),
    ).cache()  # fmt: skip
    try:
        tallies = [
            per_partition.select("cluster", F.explode(listed).alias("b"),
                                 *(F.lit(int(c == counted)).alias(c) for c in SPARK_BROKER_COUNTS))
            for listed, counted in zip(("shrunk", "expanded", "lost", "gained"), SPARK_BROKER_COUNTS, strict=True)
        ]  # fmt: skip
        per_broker = tallies[0]
        for tally in tallies[1:]:
            per_broker = per_broker.unionByName(tally)
        per_broker = per_broker.groupBy("cluster", "b").agg(*(F.sum(c).alias(c) for c in SPARK_BROKER_COUNTS))
        return _top(per_partition.select(*KEYS, "s", "e", "l"), 3, top), _top(per_broker, 2, top)
    finally:
        per_partition.unpersist(blocking=True)


SPARK_BROKER_COUNTS = ("s", "e", "lost", "gained")  # BROKER_COUNTS' columns in ``_ranked_spark``


def _top(counts: Any, keys: int, top: int) -> tuple[Ranked, ...]:
    """``_rank`` in Spark: rows with a count, most first, then by key (strings compare as in Python)."""
    from pyspark.sql import functions as F

    names = counts.columns
    total = sum((F.col(n) for n in names[keys:]), F.lit(0))
    ranked = counts.where(total > 0).orderBy(total.desc(), *names[:keys]).limit(top).collect()
    return tuple(Ranked(tuple(r[:keys]), tuple(int(v) for v in r[keys:])) for r in ranked)


def _of_cluster(ranked: tuple[Ranked, ...]) -> tuple[Ranked, ...]:
    return tuple(Ranked(r.key[1:], r.counts) for r in ranked)


def flapping(window: Window, top: int = 20, spark: Any = None) -> FlappingAnswer:
    """The ``top`` flapping partitions and brokers of ``window``; on Spark when ``spark`` is given."""
    if spark is None:
        parts, brokers = counts_local(window, transitions_local(read_observations(window)))
        return FlappingAnswer(window, _rank(parts, top), _rank(brokers, top))
    ranked_parts, ranked_brokers = _ranked_spark(spark_observations(spark, window), top)
    return FlappingAnswer(window, _of_cluster(ranked_parts), _of_cluster(ranked_brokers))


@dataclass(frozen=True)
class FleetFlappingAnswer:
    """``kzc history flapping --cluster all``: the top partitions (``(cluster, topic, partition)``) and brokers
    (``(cluster, broker)``) across every cluster of the store, each cluster over its own data."""

    windows: tuple[Window, ...]
    partitions: tuple[Ranked, ...]
    brokers: tuple[Ranked, ...]

    def to_json(self) -> dict[str, object]:
        first = self.windows[0]
        return {
            "clusters": [fleet_window_json(w) for w in self.windows],
            "since_ms": first.since_ms, "until_ms": first.until_ms,
            "partitions": [{"cluster": r.key[0], "topic": r.key[1], "partition": r.key[2],
                            **dict(zip(PARTITION_COUNTS, r.counts, strict=True))} for r in self.partitions],
            "brokers": [{"cluster": r.key[0], "broker": r.key[1], **dict(zip(BROKER_COUNTS, r.counts, strict=True))}
                        for r in self.brokers],
        }  # fmt: skip

    def lines(self) -> list[str]:
        first = self.windows[0]
        out = [f"Flapping in {len(self.windows)} clusters, {utc_text(first.since_ms)} to {utc_text(first.until_ms)}"]
        out += fleet_window_lines(self.windows)
        return out + count_lines(self.partitions, self.brokers, lambda key: f"{key[0]} ")


def fleet_flapping(windows: list[Window], top: int = 20, spark: Any = None) -> FleetFlappingAnswer:
    """``flapping`` across the clusters of ``windows``, ranked together; on Spark (one job) when ``spark`` is
    given, else each cluster on the local engine in turn."""
    if spark is not None:
        return FleetFlappingAnswer(tuple(windows), *_ranked_spark(spark_fleet_observations(spark, windows), top))
    parts: Counts = {}
    brokers: Counts = {}
    for w in windows:
        p, b = counts_local(w, transitions_local(read_observations(w)))
        parts.update({(w.cluster, *k): v for k, v in p.items()})
        brokers.update({(w.cluster, *k): v for k, v in b.items()})
    return FleetFlappingAnswer(tuple(windows), _rank(parts, top), _rank(brokers, top))


def ask(span: Span, spark: Any, top: int = 20) -> FlappingAnswer | FleetFlappingAnswer:
    """``kzc history flapping``: the question of the span (of every cluster together when a fleet)."""
    return fleet_flapping(span.windows(), top, spark) if span.fleet else flapping(span.window(), top, spark)


QUESTION = Question(
    "flapping", "partitions and brokers ranked by ISR shrinks/expands, leader changes", counts_local,
    _ranked_spark, ask, fleet=True,
)  # fmt: skip
