"""``kzc history traffic [--topic T | --broker ID]``: per hour, the mean, peak and p95 of messages and bytes in per
second, from the ``traffic`` rows the recorder wrote (``core.history.schema.traffic_rows``), on either engine.

Each tick is one value per figure: the sum over the partitions in scope (the topic's; those the broker led at
the end of the tick's window; else every partition). A tick in which one of them is unknown is unknown (never
a partial sum), counted with the smallest of its reasons, and left out of the figures. The ticks of the
scope are those with a row in it (a topic that did not exist has none); a broker's are every tick, and one in
which it led nothing is 0. Per UTC hour of the known ticks:

- ``mean``: their sum divided by their count;
- ``peak``: the largest;
- ``p95``: nearest rank, the value at rank ``ceil(95 n / 100)`` of the ``n`` values sorted ascending.

Both engines compute exactly these, and print them rounded to the thousandth.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from core.history.question import Question, Span
from core.history.schema import HOUR_MS, PARTITION, TRAFFIC, hour_of
from core.history.store import Gap, HistoryStore
from core.human_time import utc_text

FIGURES = (("messages_in_per_s", "messages_unknown"), ("bytes_in_per_s", "bytes_unknown"))
_COLUMNS = ["ts_ms", "kind", "topic", "broker", "window_s", "read_ms", *(c for pair in FIGURES for c in pair)]
RATE_CHANGE = 0.1  # kzc diff lists a rate that changed by at least this share of the larger value


def p95_rank(n: int) -> int:
    """The nearest rank of the 95th percentile among ``n`` values (1-based): ``ceil(95 n / 100)``."""
    return (95 * n + 99) // 100


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure over one hour's ticks: ``known`` of them had a value (``mean``, ``peak``, ``p95`` are None
    when none did), ``unknown`` did not, the smallest of their reasons in ``why``."""

    known: int
    unknown: int
    mean: float | None
    peak: float | None
    p95: float | None
    why: str | None

    @classmethod
    def of(cls, values: list[float], reasons: list[str]) -> Figure:
        """The figure of the known ``values`` and the ``reasons`` of the unknown ticks."""
        if not values:
            return cls(0, len(reasons), None, None, None, min(reasons, default=None))
        ranked = sorted(values)
        mean = sum(values) / len(values)
        return cls(
            len(values), len(reasons), mean, ranked[-1], ranked[p95_rank(len(ranked)) - 1], min(reasons, default=None)
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {k: _round(getattr(self, k)) for k in ("mean", "peak", "p95")}
        out.update(ticks_known=self.known, ticks_unknown=self.unknown, unknown=self.why)
        return out


@dataclass(frozen=True, slots=True)
class TrafficHour:
    """One UTC hour: its start and one ``Figure`` per ``FIGURES`` name."""

    hour_ms: int
    figures: tuple[Figure, ...]


@dataclass(frozen=True)
class TrafficAnswer:
    """``kzc history traffic``: the hours of ``cluster`` between ``since_ms`` and ``until_ms``, oldest first."""

    cluster: str
    since_ms: int
    until_ms: int
    topic: str | None
    broker: int | None
    hours: tuple[TrafficHour, ...]
    gaps: tuple[Gap, ...]

    @property
    def scope(self) -> str:
        if self.topic is not None:
            return f"topic {self.topic}"
        return f"broker {self.broker} (as leader)" if self.broker is not None else "the whole cluster"

    def to_json(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster, "since_ms": self.since_ms, "until_ms": self.until_ms, "topic": self.topic,
            "broker": self.broker, "p95": "nearest rank", "gaps": [g.to_json() for g in self.gaps],
            "hours": [
                {"hour": hour_of(h.hour_ms), "hour_ms": h.hour_ms,
                 **{name: f.to_json() for (name, _), f in zip(FIGURES, h.figures, strict=True)}}
                for h in self.hours
            ],
        }  # fmt: skip

    def lines(self) -> list[str]:
        out = [
            f"Traffic of {self.scope} in cluster {self.cluster}, {utc_text(self.since_ms)} to "
            f"{utc_text(self.until_ms)} (per hour: mean, peak, p95 of the ticks)"
        ]
        out += [f"  gap {utc_text(g.from_ms)} to {utc_text(g.to_ms)}: {g.reason}" for g in self.gaps]
        if not self.hours:
            out.append(
                f"  no traffic of {self.scope} recorded in this window (kzc record samples it every --traffic-every)"
            )
        for h in self.hours:
            parts = [_figure_text(unit, f) for unit, f in zip(("msg/s", "bytes/s"), h.figures, strict=True)]
            out.append(f"  {hour_of(h.hour_ms)}h  " + "  |  ".join(parts))
        return out


def _figure_text(unit: str, f: Figure) -> str:
    if f.mean is None or f.peak is None or f.p95 is None:
        return f"{unit} unknown ({f.unknown} ticks: {f.why})"
    text = f"{unit} mean {f.mean:,.1f} peak {f.peak:,.1f} p95 {f.p95:,.1f} ({f.known} ticks"
    return text + (f", {f.unknown} unknown: {f.why})" if f.unknown else ")")


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def history_traffic(
    store: HistoryStore,
    cluster: str,
    since_ms: int,
    until_ms: int,
    topic: str | None = None,
    broker: int | None = None,
    spark: Any = None,
) -> TrafficAnswer:
    """The hours of ``cluster``'s traffic in [since_ms, until_ms] for the scope; on Spark when ``spark`` is given."""
    files = store.files(TRAFFIC, cluster, since_ms, until_ms)
    if not files:
        hours: list[TrafficHour] = []
    elif spark is None:
        hours = _local(store, cluster, since_ms, until_ms, topic, broker)
    else:
        hours = _spark(spark, [str(p) for p in files], since_ms, until_ms, topic, broker)
    gaps = tuple(g for g in store.gaps(cluster) if g.to_ms >= since_ms and g.from_ms <= until_ms)
    return TrafficAnswer(cluster, since_ms, until_ms, topic, broker, tuple(hours), gaps)


def _partition_rows(store: HistoryStore, cluster: str, since_ms: int, until_ms: int) -> pa.Table:
    """The ``partition`` rows of the ticks in [since_ms, until_ms] (local engine)."""
    table = store.read(TRAFFIC, cluster, since_ms, until_ms).select(_COLUMNS)
    ts = table.column("ts_ms")
    in_window = pc.and_(pc.greater_equal(ts, since_ms), pc.less_equal(ts, until_ms))
    return table.filter(pc.and_(pc.equal(table.column("kind"), PARTITION), in_window))


def _local(
    store: HistoryStore, cluster: str, since_ms: int, until_ms: int, topic: str | None, broker: int | None
) -> list[TrafficHour]:
    table = _partition_rows(store, cluster, since_ms, until_ms)
    if topic is not None:
        table = table.filter(pc.equal(table.column("topic"), topic))
    # Per tick and figure: the sum, and the reasons of the unknown parts.
    ticks: dict[int, list[tuple[float, list[str]]]] = {}
    for row in table.to_pylist():
        tick = ticks.setdefault(row["ts_ms"], [(0.0, []) for _ in FIGURES])
        if broker is not None and row["broker"] != broker:
            continue
        for i, (value, why) in enumerate(FIGURES):
            total, reasons = tick[i]
            if row[value] is None:
                reasons.append(row[why] or "unknown")
            tick[i] = (total + (row[value] or 0.0), reasons)
    by_hour: dict[int, list[tuple[list[float], list[str]]]] = defaultdict(lambda: [([], []) for _ in FIGURES])
    for ts_ms, figures in ticks.items():
        hour = by_hour[ts_ms - ts_ms % HOUR_MS]
        for i, (total, reasons) in enumerate(figures):
            if reasons:
                hour[i][1].append(min(reasons))
            else:
                hour[i][0].append(total)
    return [TrafficHour(h, tuple(Figure.of(v, r) for v, r in by_hour[h])) for h in sorted(by_hour)]


TopicRates = dict[str, tuple[float | None, float | None]]  # topic: messages and bytes in per second (None: unknown)


def topic_rates_at(store: HistoryStore, cluster: str, at_ms: int) -> TopicRates | None:
    """Each topic's messages and bytes in per second at ``at_ms``: the last tick at or before it within the hour
    before, summed over the topic's partitions (unknown when one part is). None: no tick covers the moment (none
    in that hour, or the last one ended more than two windows before it)."""
    table = _partition_rows(store, cluster, at_ms - HOUR_MS, at_ms)
    if table.num_rows == 0:
        return None
    last = pc.max(table.column("ts_ms")).as_py()
    rows = table.filter(pc.equal(table.column("ts_ms"), last)).to_pylist()
    window_ms = max((r["window_s"] or 0.0) for r in rows) * 1000
    if at_ms - max((r["read_ms"] or last) for r in rows) > 2 * window_ms:
        return None
    sums: dict[str, list[float | None]] = {}
    for row in rows:
        totals = sums.setdefault(row["topic"], [0.0 for _ in FIGURES])
        for i, (value, _) in enumerate(FIGURES):
            part, so_far = row[value], totals[i]
            totals[i] = None if part is None or so_far is None else so_far + part
    return {topic: (m, b) for topic, (m, b) in sums.items()}


def rate_changed(before: float | None, after: float | None) -> bool:
    """Whether a rate changed enough to list (``kzc diff``): known on one side only, idle on one side only, or
    by at least ``RATE_CHANGE`` of the larger value."""
    if before is None or after is None:
        return before != after
    if (before == 0.0) != (after == 0.0):
        return True
    return abs(after - before) >= RATE_CHANGE * max(before, after)


def _spark(
    spark: Any, paths: list[str], since_ms: int, until_ms: int, topic: str | None, broker: int | None
) -> list[TrafficHour]:
    """``_local`` on Spark, from the same files: the same sums, counts, ranks and reasons."""
    from pyspark.sql import functions as F

    from core.history.spark_schema import spark_traffic_schema

    rows = spark.read.schema(spark_traffic_schema()).parquet(*paths)
    rows = rows.where((F.col("kind") == PARTITION) & F.col("ts_ms").between(since_ms, until_ms))
    if topic is not None:
        rows = rows.where(F.col("topic") == topic)
    ticks = rows.select("ts_ms").distinct()
    mine = rows.where(F.col("broker") == broker) if broker is not None else rows
    sums = []
    for i, (value, why) in enumerate(FIGURES):
        sums += [
            F.sum(F.coalesce(F.col(value), F.lit(0.0))).alias(f"s{i}"),
            F.min(F.when(F.col(value).isNull(), F.coalesce(F.col(why), F.lit("unknown")))).alias(f"r{i}"),
        ]
    per_tick = ticks.join(mine.groupBy("ts_ms").agg(*sums), "ts_ms", "left")
    per_tick = per_tick.withColumn("hour_ms", F.col("ts_ms") - F.col("ts_ms") % HOUR_MS)
    stats = []
    for i in range(len(FIGURES)):
        known = F.when(F.col(f"r{i}").isNull(), F.coalesce(F.col(f"s{i}"), F.lit(0.0)))
        stats += [
            F.sort_array(F.collect_list(known)).alias(f"v{i}"),
            F.sum(known).alias(f"t{i}"),
            F.count(F.col(f"r{i}")).alias(f"u{i}"),
            F.min(F.col(f"r{i}")).alias(f"w{i}"),
        ]
    per_hour = per_tick.groupBy("hour_ms").agg(*stats)
    for i in range(len(FIGURES)):
        n = F.size(F.col(f"v{i}"))
        rank = F.expr(f"(95 * size(v{i}) + 99) div 100")
        per_hour = per_hour.withColumn(f"m{i}", F.when(n > 0, F.col(f"t{i}") / n))
        per_hour = per_hour.withColumn(f"p{i}", F.when(n > 0, F.element_at(F.col(f"v{i}"), rank.cast("int"))))
        per_hour = per_hour.withColumn(f"x{i}", F.when(n > 0, F.element_at(F.col(f"v{i}"), -1)))
    out = []
    for r in per_hour.orderBy("hour_ms").collect():
        figures = tuple(
            Figure(len(r[f"v{i}"]), int(r[f"u{i}"]), r[f"m{i}"], r[f"x{i}"], r[f"p{i}"], r[f"w{i}"])
            for i in range(len(FIGURES))
        )
        out.append(TrafficHour(int(r["hour_ms"]), figures))
    return out


def ask(span: Span, spark: Any, topic: str | None = None, broker: int | None = None) -> TrafficAnswer:
    """``kzc history traffic``: the question of one cluster's span (read from the traffic table only)."""
    return history_traffic(span.store, span.cluster, span.since_ms, span.until_ms, topic, broker, spark)


QUESTION = Question("traffic", "per-hour mean, peak and p95 of messages and bytes in per second", _local, _spark, ask)
