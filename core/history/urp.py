"""``kzc history urp --by broker|topic|rack``: under-replicated and offline partition-minutes over a window.

Each readable observation of a partition (``core.history.observations``) holds until the next one (the
last until the end of the data), clipped to the window. By topic: the time each partition had a replica
out of the ISR (under-replicated) or no leader (offline, leader -1), summed. By broker: the time the
broker was out of each ISR it belongs in (the ``core.history.isr`` outages: the broker absent from the ISR
is named), and the offline time of the partitions it is a replica of. By rack: its brokers' sums, racks
from the broker rows of the store (``-`` when a broker has none).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.history.isr import Observed, observed, spark_transitions
from core.history.observations import (
    Window,
    fleet_window_json,
    fleet_window_lines,
    spark_fleet_observations,
    spark_observations,
)
from core.history.question import Question, Span
from core.history.schema import BROKER, PARTITION_REMOVED
from core.human_time import utc_text

BY = ("broker", "topic", "rack")
MINUTE_MS = 60_000


@dataclass(frozen=True, slots=True)
class UrpRow:
    """One broker, topic or rack: milliseconds under-replicated and offline, and how many outages."""

    key: str
    under_replicated_ms: int
    offline_ms: int
    outages: int


@dataclass(frozen=True)
class UrpAnswer:
    """``kzc history urp``: rows by ``by``, largest under-replicated time first."""

    window: Window
    by: str
    rows: tuple[UrpRow, ...]

    def to_json(self) -> dict[str, object]:
        w = self.window
        return {
            "cluster": w.cluster, "by": self.by, "since_ms": w.since_ms, "until_ms": w.until_ms,
            "data_from_ms": w.start_ms, "data_end_ms": w.data_end_ms, "gaps": [g.to_json() for g in w.gaps],
            "rows": [_row_json(self.by, r) for r in self.rows],
        }  # fmt: skip

    def lines(self) -> list[str]:
        w = self.window
        unit = "replica-minutes out of ISR" if self.by != "topic" else "partition-minutes under-replicated"
        out = [
            f"Under-replicated time by {self.by} in cluster {w.cluster}, {utc_text(w.since_ms)} to "
            f"{utc_text(w.until_ms)}",
            f"  data from {utc_text(w.start_ms)} to {utc_text(w.data_end_ms)}",
        ]
        out += [f"  gap {utc_text(g.from_ms)} to {utc_text(g.to_ms)}: {g.reason} (not counted)" for g in w.gaps]
        if not self.rows:
            out.append("  none")
        for r in self.rows:
            out.append(
                f"  {self.by} {r.key}: {r.under_replicated_ms / MINUTE_MS:.1f} {unit}, "
                f"{r.offline_ms / MINUTE_MS:.1f} offline partition-minutes, {r.outages} outages"
            )
        return out


def _row_json(by: str, r: UrpRow) -> dict[str, object]:
    return {by: r.key, "under_replicated_minutes": round(r.under_replicated_ms / MINUTE_MS, 2),
            "offline_minutes": round(r.offline_ms / MINUTE_MS, 2), "outages": r.outages}  # fmt: skip


def _clip(start: int, end: int, window: Window) -> int:
    return max(0, min(end, window.data_end_ms, window.until_ms) - max(start, window.since_ms))


def racks(window: Window) -> dict[int, str]:
    """Each broker's rack as the base snapshot's broker rows give it (``-``: none)."""
    found: dict[int, str] = {}
    for path in window.snapshot_files:
        table = pq.read_table(path, columns=["ts_ms", "kind", "broker", "rack"], filters=[("kind", "=", BROKER)])
        table = table.filter(pc.is_in(table.column("ts_ms"), value_set=_moments(window)))
        for row in table.sort_by("ts_ms").to_pylist():
            found[int(row["broker"])] = row["rack"] or "-"
    return found


def _moments(window: Window) -> Any:
    import pyarrow as pa

    return pa.array(window.snapshot_moments, pa.int64())


def _held(table: Any, window: Window) -> list[tuple[dict[str, Any], int]]:
    """Each readable ``partition`` observation and how long it held within the window (until the next one)."""
    rows = [r for r in table.to_pylist() if r["kind"] == PARTITION_REMOVED or r["isr"] is not None]
    rows.sort(key=lambda r: (r["topic"], r["partition"], r["ts_ms"], r["src"], r["seq"]))
    found = []
    for i, row in enumerate(rows):
        if row["kind"] == PARTITION_REMOVED:
            continue
        following = rows[i + 1] if i + 1 < len(rows) else None
        same = following is not None and (following["topic"], following["partition"]) == (
            row["topic"],
            row["partition"],
        )
        end = following["ts_ms"] if same and following is not None else window.data_end_ms
        found.append((row, _clip(row["ts_ms"], end, window)))
    return found


def _local(
    window: Window, by: str, read: Observed | None = None, lasted: list[tuple[dict[str, Any], int]] | None = None
) -> dict[str, list[int]]:
    table, found = read if read is not None else observed(window)
    sums: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for o in found.outages:
        held = _clip(o.left_ms, o.back_ms if o.back_ms is not None else window.data_end_ms, window)
        if held <= 0:
            continue
        if by == "topic":
            sums[o.topic][2] += 1
        else:
            sums[str(o.replica)][0] += held
            sums[str(o.replica)][2] += 1
    for row, took in lasted if lasted is not None else _held(table, window):
        if by == "topic":
            if any(r not in row["isr"] for r in row["replicas"] or []):
                sums[row["topic"]][0] += took
            if row["leader"] == -1:
                sums[row["topic"]][1] += took
        elif row["leader"] == -1:
            for replica in row["replicas"] or []:
                sums[str(replica)][1] += took
    return dict(sums)


def _spark(by: str, observations: Any) -> dict[tuple[str, str], list[int]]:
    """``_local`` on Spark, keyed by ``(cluster, key)`` (by rack: by broker, as ``_local``)."""
    from pyspark.sql import functions as F

    lower, upper = F.col("since_ms"), F.col("upper_ms")

    def clipped(start: Any, end: Any) -> Any:
        return F.greatest(F.lit(0), F.least(F.coalesce(end, upper), upper) - F.greatest(start, lower))

    found = spark_transitions(observations)
    held = found.observed.where(F.col("kind") != PARTITION_REMOVED).withColumn(
        "held", clipped(F.col("ts_ms"), F.col("next_ts"))
    )
    replicas = F.coalesce("replicas", F.array().cast("array<int>"))
    under = F.size(F.array_except(replicas, F.col("isr"))) > 0
    outages = found.outages.withColumn("held", clipped(F.col("left_ms"), F.col("back_ms"))).where(F.col("held") > 0)
    if by == "topic":
        times = held.groupBy("cluster", F.col("topic").alias("k")).agg(
            F.sum(F.when(under, F.col("held")).otherwise(0)).alias("u"),
            F.sum(F.when(F.col("leader") == -1, F.col("held")).otherwise(0)).alias("o"),
            F.lit(0).alias("n"),
        )
        counts = outages.select(
            "cluster", F.col("topic").alias("k"), F.lit(0).alias("u"), F.lit(0).alias("o"), F.lit(1).alias("n")
        )
    else:
        offline = held.where(F.col("leader") == -1).select("cluster", F.explode(replicas).alias("k"), "held")
        times = offline.select("cluster", F.col("k").cast("string").alias("k"), F.lit(0).alias("u"),
                               F.col("held").alias("o"), F.lit(0).alias("n"))  # fmt: skip
        counts = outages.select("cluster", F.col("replica").cast("string").alias("k"), F.col("held").alias("u"),
                                F.lit(0).alias("o"), F.lit(1).alias("n"))  # fmt: skip
    # One aggregation over both (no join): each key's sums in one shuffle.
    joined = times.select("cluster", F.col("k").cast("string").alias("k"), "u", "o", "n").unionByName(counts)
    joined = joined.groupBy("cluster", "k").agg(F.sum("u"), F.sum("o"), F.sum("n"))
    try:
        return {(str(r[0]), str(r[1])): [int(r[2] or 0), int(r[3] or 0), int(r[4] or 0)] for r in joined.collect()}
    finally:
        found.release()


def _by_rack(window: Window, sums: dict[str, list[int]]) -> dict[str, list[int]]:
    known = racks(window)
    by_rack: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for broker, values in sums.items():
        for i, v in enumerate(values):
            by_rack[known.get(int(broker), "-")][i] += v
    return dict(by_rack)


def _ranked(sums: dict[Any, list[int]]) -> list[tuple[Any, list[int]]]:
    found = [(k, v) for k, v in sums.items() if any(v)]
    found.sort(key=lambda kv: (-kv[1][0], -kv[1][1], kv[0]))
    return found


def urp(window: Window, by: str, spark: Any = None, read: Observed | None = None) -> UrpAnswer:
    """Under-replicated and offline time of ``window`` by ``by``; on Spark when ``spark`` is given; ``read``: the
    window's observations and their transitions already read (``core.history.isr.observed``), local engine."""
    if spark is None:
        sums = _local(window, by, read)
    else:
        sums = {k: v for (_, k), v in _spark(by, spark_observations(spark, window)).items()}
    return _answer(window, by, sums)


def urps(window: Window, bys: tuple[str, ...], read: Observed) -> tuple[UrpAnswer, ...]:
    """``urp`` of ``window`` by each of ``bys`` (local engine) from one read, how long each observation held
    worked out once for all (``kzc report``)."""
    lasted = _held(read[0], window)
    return tuple(_answer(window, by, _local(window, by, read, lasted)) for by in bys)


def _answer(window: Window, by: str, sums: dict[str, list[int]]) -> UrpAnswer:
    if by == "rack":
        sums = _by_rack(window, sums)
    return UrpAnswer(window, by, tuple(UrpRow(k, *v) for k, v in _ranked(sums)))


@dataclass(frozen=True)
class FleetUrpAnswer:
    """``kzc history urp --cluster all``: every cluster's rows by ``by`` (``key`` is ``(cluster, key)``),
    ranked together, largest under-replicated time first."""

    windows: tuple[Window, ...]
    by: str
    rows: tuple[tuple[str, UrpRow], ...]

    def to_json(self) -> dict[str, object]:
        first = self.windows[0]
        return {
            "clusters": [fleet_window_json(w) for w in self.windows],
            "by": self.by,
            "since_ms": first.since_ms,
            "until_ms": first.until_ms,
            "rows": [{"cluster": c, **_row_json(self.by, r)} for c, r in self.rows],
        }

    def lines(self) -> list[str]:
        first = self.windows[0]
        unit = "replica-minutes out of ISR" if self.by != "topic" else "partition-minutes under-replicated"
        out = [
            f"Under-replicated time by cluster and {self.by} in {len(self.windows)} clusters, "
            f"{utc_text(first.since_ms)} to {utc_text(first.until_ms)} (gaps not counted)"
        ]
        out += fleet_window_lines(self.windows)
        if not self.rows:
            out.append("  none")
        for cluster, r in self.rows:
            out.append(
                f"  {cluster} {self.by} {r.key}: {r.under_replicated_ms / MINUTE_MS:.1f} {unit}, "
                f"{r.offline_ms / MINUTE_MS:.1f} offline partition-minutes, {r.outages} outages"
            )
        return out


def fleet_urp(windows: list[Window], by: str, spark: Any = None) -> FleetUrpAnswer:
    """``urp`` across the clusters of ``windows``, ranked together; on Spark (one job) when ``spark`` is given,
    else each cluster on the local engine in turn."""
    if spark is None:
        per_cluster = {w.cluster: _local(w, by) for w in windows}
    else:
        per_cluster = {w.cluster: {} for w in windows}
        for (cluster, key), values in _spark(by, spark_fleet_observations(spark, windows)).items():
            per_cluster[cluster][key] = values
    if by == "rack":
        per_cluster = {w.cluster: _by_rack(w, per_cluster[w.cluster]) for w in windows}
    sums = {(c, k): v for c, found in per_cluster.items() for k, v in found.items()}
    return FleetUrpAnswer(tuple(windows), by, tuple((c, UrpRow(k, *v)) for (c, k), v in _ranked(sums)))


def ask(span: Span, spark: Any, by: str = "broker") -> UrpAnswer | FleetUrpAnswer:
    """``kzc history urp``: the question of the span (of every cluster together when a fleet)."""
    return fleet_urp(span.windows(), by, spark) if span.fleet else urp(span.window(), by, spark)


QUESTION = Question(
    "urp", "under-replicated and offline partition-minutes by broker, topic or rack", _local, _spark, ask,
    fleet=True,
)  # fmt: skip
