"""``kzc history flapping``: partitions and brokers ranked by ISR shrinks, expands and leader changes.

Counted from the outages and leader changes of ``core.history.isr`` (the same rule on both engines): a
shrink is an outage whose start was observed in the window (``left_known``), an expand an outage that
ended ``back`` in it, a leader change one observed in it. A broker's shrinks and expands are its own
(it left or rejoined an ISR); its leaderships lost and gained are the leader changes away from and to it
("no leader", -1, is nobody's).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from core.history.isr import Transitions, spark_leader_frame, spark_outage_frame, transitions_local
from core.history.observations import Window, read_observations, spark_observations
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
        out.append("Partitions (ISR shrinks, expands, leader changes):" if self.partitions else "Partitions: none")
        for r in self.partitions:
            out.append(f"  {r.key[0]}-{r.key[1]}: {r.counts[0]} shrinks, {r.counts[1]} expands, "
                       f"{r.counts[2]} leader changes")  # fmt: skip
        out.append("Brokers (left an ISR, rejoined, leaderships lost, gained):" if self.brokers else "Brokers: none")
        for r in self.brokers:
            out.append(f"  broker {r.key[0]}: {r.counts[0]} shrinks, {r.counts[1]} expands, "
                       f"{r.counts[2]} leaderships lost, {r.counts[3]} gained")  # fmt: skip
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


def _counts_spark(window: Window, observations: Any) -> tuple[dict[Any, tuple[int, ...]], dict[Any, tuple[int, ...]]]:
    from pyspark.sql import functions as F

    since, until = window.since_ms, window.until_ms
    outages = spark_outage_frame(observations)
    changes = spark_leader_frame(observations).where(F.col("at_ms").between(since, until))
    shrink = (F.col("left_prev_ms").isNotNull() & F.col("left_ms").between(since, until)).cast("int")
    expand = ((F.col("end") == "back") & F.col("back_ms").between(since, until)).cast("int")
    flags = outages.select("topic", "partition", "replica", shrink.alias("s"), expand.alias("e"))
    zero = F.lit(0)
    per_partition = (
        flags.select("topic", "partition", "s", "e", zero.alias("l"))
        .unionByName(changes.select("topic", "partition", zero.alias("s"), zero.alias("e"), F.lit(1).alias("l")))
        .groupBy("topic", "partition")
        .agg(F.sum("s"), F.sum("e"), F.sum("l"))
    )
    moved = changes.where(F.col("old_leader") != F.col("new_leader"))
    lost = moved.where(F.col("old_leader") >= 0).select(F.col("old_leader").alias("b"), F.lit(1).alias("lost"))
    gained = moved.where(F.col("new_leader") >= 0).select(F.col("new_leader").alias("b"), F.lit(1).alias("gained"))
    per_broker = flags.select(F.col("replica").alias("b"), "s", "e", zero.alias("lost"), zero.alias("gained"))
    per_broker = per_broker.unionByName(lost, allowMissingColumns=True).unionByName(gained, allowMissingColumns=True)
    per_broker = per_broker.fillna(0)
    per_broker = per_broker.groupBy("b").agg(F.sum("s"), F.sum("e"), F.sum("lost"), F.sum("gained"))
    parts = {(r[0], r[1]): tuple(int(v) for v in r[2:]) for r in per_partition.collect()}
    brokers = {(r[0],): tuple(int(v) for v in r[1:]) for r in per_broker.collect()}
    return parts, brokers


def flapping(window: Window, top: int = 20, spark: Any = None) -> FlappingAnswer:
    """The ``top`` flapping partitions and brokers of ``window``; on Spark when ``spark`` is given."""
    if spark is None:
        parts, brokers = counts_local(window, transitions_local(read_observations(window)))
    else:
        parts, brokers = _counts_spark(window, spark_observations(spark, window))
    return FlappingAnswer(window, _rank(parts, top), _rank(brokers, top))
