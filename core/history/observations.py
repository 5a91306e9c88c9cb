"""What every question reads: the observations of each partition's state over a window, for both engines.

An observation is a ``partition`` or ``partition_removed`` row: the base snapshot (the last one at or before the
window's start, else the first), every event after it, and every snapshot written at the end of a gap (the
only thing known after it). They are ordered by ``(ts_ms, src, seq)``, ``src`` 0 for events and 1 for
snapshot rows. Choosing the files and the snapshots is one function (``Window.of``) both engines share; the
local engine reads the rows with pyarrow, the Spark engine reads the very same files.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.history.schema import EVENTS, HOUR_MS, PARTITION, PARTITION_REMOVED, ROW_SCHEMA, SNAPSHOTS, hour_start_ms
from core.history.store import Gap, HistoryStore
from core.human_time import utc_text

OBSERVED = ("ts_ms", "seq", "kind", "topic", "partition", "leader", "leader_epoch", "isr", "replicas")


@dataclass(frozen=True)
class Window:
    """The files and snapshot moments one question reads for ``cluster`` over [since_ms, until_ms]."""

    cluster: str
    since_ms: int
    until_ms: int
    base_ms: int | None  # the base snapshot's moment (None: the store holds no snapshot)
    snapshot_moments: tuple[int, ...]  # base and after-gap snapshots read
    event_files: tuple[Path, ...]
    snapshot_files: tuple[Path, ...]
    gaps: tuple[Gap, ...]  # every gap overlapping [base_ms, until_ms]
    data_end_ms: int  # the last moment the store covers (the recorder's last flush, or its last row)

    @classmethod
    def of(cls, store: HistoryStore, cluster: str, since_ms: int, until_ms: int | None = None) -> Window:
        """The window of ``store`` for ``cluster`` from ``since_ms`` to ``until_ms`` (default: now)."""
        until = until_ms if until_ms is not None else int(time.time() * 1000)
        base = _base_snapshot(store, cluster, since_ms)
        start = base if base is not None else since_ms
        all_gaps = store.gaps(cluster)
        gaps = tuple(g for g in all_gaps if g.to_ms >= start and g.from_ms <= until)
        moments = tuple(sorted({m for m in (base, *(g.to_ms for g in gaps)) if m is not None and m <= until}))
        snapshot_files = tuple(p for m in moments for p in store.files(SNAPSHOTS, cluster, m, m) if _holds(p, m))
        event_files = tuple(store.files(EVENTS, cluster, start, until))
        end = store.flushed_ms(cluster) or 0
        if event_files:
            end = max(end, _max_ts(event_files[-1]))
        end = max(end, *moments) if moments else end
        return cls(cluster, since_ms, until, base, moments, event_files, tuple(dict.fromkeys(snapshot_files)), gaps,
                   min(end, until))  # fmt: skip

    @property
    def start_ms(self) -> int:
        """Where the observations start: the base snapshot, else the window's start."""
        return self.base_ms if self.base_ms is not None else self.since_ms


def _base_snapshot(store: HistoryStore, cluster: str, since_ms: int) -> int | None:
    """The moment of the last snapshot at or before ``since_ms``, else of the first one (None: no snapshot)."""
    hours = store.hours(SNAPSHOTS, cluster)
    earlier = [h for h in hours if hour_start_ms(h) <= since_ms]
    for hour in reversed(earlier):
        start = hour_start_ms(hour)
        moments = [m for p in store.files(SNAPSHOTS, cluster, start, start + HOUR_MS - 1) for m in file_moments(p)]
        before = [m for m in moments if m <= since_ms]
        if before:
            return max(before)
    later = [h for h in hours if hour_start_ms(h) > since_ms] + earlier[-1:]
    for hour in sorted(later):
        start = hour_start_ms(hour)
        moments = [m for p in store.files(SNAPSHOTS, cluster, start, start + HOUR_MS - 1) for m in file_moments(p)]
        after = [m for m in moments if m >= since_ms]
        if after:
            return min(after)
    return None


def file_moments(path: Path) -> frozenset[int]:
    """Every moment a row of ``path`` is dated at (only its ``ts_ms`` column is read). Read once per file: the
    store writes a file whole and never changes it (a path written again differs in its time or size)."""
    stat = path.stat()
    return _file_moments(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=4096)
def _file_moments(path: Path, mtime_ns: int, size: int) -> frozenset[int]:
    column = pq.read_table(path, columns=["ts_ms"]).column("ts_ms")
    return frozenset(int(v) for v in pc.unique(column).to_pylist() if v is not None)


def _holds(path: Path, moment: int) -> bool:
    return moment in file_moments(path)


def _max_ts(path: Path) -> int:
    return max(file_moments(path), default=0)


def fleet_window_json(window: Window) -> dict[str, object]:
    """One cluster's data in a fleet answer: where it starts and ends, and its gaps."""
    return {"cluster": window.cluster, "data_from_ms": window.start_ms, "data_end_ms": window.data_end_ms,
            "gaps": [g.to_json() for g in window.gaps]}  # fmt: skip


def fleet_window_lines(windows: tuple[Window, ...]) -> list[str]:
    """Each cluster's data in a fleet answer, as text."""
    out = []
    for w in windows:
        out.append(f"  {w.cluster}: data from {utc_text(w.start_ms)} to {utc_text(w.data_end_ms)}")
        out += [f"    gap {utc_text(g.from_ms)} to {utc_text(g.to_ms)}: {g.reason}" for g in w.gaps]
    return out


def observation_filter(window: Window, topic: str | None, partition: int | None) -> list[tuple[str, str, Any]]:
    """The row filter (pyarrow DNF) of the observations of ``topic`` / ``partition`` (None: every one)."""
    found: list[tuple[str, str, Any]] = [("kind", "in", [PARTITION, PARTITION_REMOVED])]
    if topic is not None:
        found.append(("topic", "=", topic))
    if partition is not None:
        found.append(("partition", "=", partition))
    return found


def read_observations(window: Window, topic: str | None = None, partition: int | None = None) -> pa.Table:
    """The observations of ``window`` (local engine): columns ``OBSERVED`` plus ``src``, in no order."""
    filters = observation_filter(window, topic, partition)
    tables = []
    for src, paths, lower in ((0, window.event_files, window.start_ms), (1, window.snapshot_files, None)):
        for path in paths:
            table = pq.read_table(path, columns=list(OBSERVED), filters=filters, schema=ROW_SCHEMA)
            ts = table.column("ts_ms")
            if lower is not None:
                keep = pc.and_(pc.greater(ts, lower), pc.less_equal(ts, window.until_ms))
            else:
                keep = pc.is_in(ts, value_set=pa.array(window.snapshot_moments, pa.int64()))
            table = table.filter(keep)
            tables.append(table.append_column("src", pa.array([src] * table.num_rows, pa.int8())))
    if not tables:
        return ROW_SCHEMA.empty_table().select(list(OBSERVED)).append_column("src", pa.array([], pa.int8()))
    return pa.concat_tables(tables)


KEYS = ("cluster", "topic", "partition")  # a partition of the Spark frames (a fleet holds several clusters)
# Event bytes (zstd Parquet, about 11 bytes an event) per Spark partition of the observations: a task's share of
# the window pass stays near 400k rows whatever the store's size. Below the session's shuffle partitions (30
# days of 100k partitions: 26 MiB) the plan is left as it is; 20 such clusters in one job on 8 partitions ran a
# 2 GiB driver out of heap (benchmarks/README.md).
SPARK_PARTITION_BYTES = 4 << 20


def spark_observations(spark: Any, window: Window, topic: str | None = None, partition: int | None = None) -> Any:
    """The same observations as a Spark DataFrame, read from the same files (Spark engine), with the window's
    ``cluster`` and bounds as columns (``since_ms``, ``until_ms``, and ``upper_ms``: the end of the data or
    of the window, whichever is first), so that the frames of several clusters union into a fleet's."""
    frame = _spark_frame(spark, window, topic, partition)
    return frame if topic is not None else _spread(spark, frame, [window])


def spark_fleet_observations(spark: Any, windows: list[Window]) -> Any:
    """The observations of several clusters' windows as one Spark DataFrame (spread as ``spark_observations``)."""
    frames = [_spark_frame(spark, w, None, None) for w in windows]
    frame = frames[0]
    for other in frames[1:]:
        frame = frame.unionByName(other)
    return _spread(spark, frame, windows)


def _spread(spark: Any, frame: Any, windows: list[Window]) -> Any:
    """``frame`` hash-partitioned by ``KEYS`` into one Spark partition per ``SPARK_PARTITION_BYTES`` of events
    when that is more than the session's shuffle partitions (the window passes then need no other exchange)."""
    size = sum(p.stat().st_size for w in windows for p in w.event_files)
    wanted = -(-size // SPARK_PARTITION_BYTES)
    if wanted <= int(spark.conf.get("spark.sql.shuffle.partitions")):
        return frame
    return frame.repartition(wanted, *KEYS)


def _spark_frame(spark: Any, window: Window, topic: str | None, partition: int | None) -> Any:
    from pyspark.sql import functions as F

    from core.history.spark_schema import spark_row_schema

    schema = spark_row_schema()
    wanted = [F.col("kind").isin(PARTITION, PARTITION_REMOVED)]
    if topic is not None:
        wanted.append(F.col("topic") == topic)
    if partition is not None:
        wanted.append(F.col("partition") == partition)
    frames = []
    for src, paths, moments in ((0, window.event_files, None), (1, window.snapshot_files, window.snapshot_moments)):
        if not paths:
            continue
        rows = spark.read.schema(schema).parquet(*[str(p) for p in paths]).select(*OBSERVED)
        # Filters on the file's own columns first: Parquet skips the row groups they exclude.
        ts = F.col("ts_ms")
        kept = ts.isin(list(moments)) if moments is not None else (ts > window.start_ms) & (ts <= window.until_ms)
        for condition in wanted:
            kept = kept & condition
        frames.append(rows.where(kept).withColumn("src", F.lit(src).cast("byte")))
    if not frames:
        frame = spark.createDataFrame([], schema).select(*OBSERVED).withColumn("src", F.lit(0).cast("byte"))
    else:
        frame = frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
    bounds = (window.since_ms, window.until_ms, min(window.data_end_ms, window.until_ms))
    return frame.select(
        F.lit(window.cluster).alias("cluster"),
        *OBSERVED,
        "src",
        *(F.lit(v).cast("long").alias(n) for n, v in zip(("since_ms", "until_ms", "upper_ms"), bounds, strict=True)),
    )
