"""The consumer groups' lag as recorded (the ``group_lag`` rows of each traffic tick): the tick a moment shows,
and the groups that fell behind over a window (``kzc report``). Nothing is recomputed: a lag is the row's.

A group's lag at a tick is the sum of its partitions' lags, unknown (left out) when one partition's is or its
offsets were not read, as ``core.groups.lag`` totals it live. A group fell behind over a window when its largest
known lag in the window exceeds its first: the report gives the first, the largest (with the first tick it was
reached) and the last.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from core.history.schema import GROUP_LAG, HOUR_MS
from core.history.store import HistoryStore

Row = dict[str, Any]


def _rows(store: HistoryStore, cluster: str, since_ms: int, until_ms: int) -> pa.Table:
    """The ``group_lag`` rows of the ticks in [since_ms, until_ms]."""
    table = store.read(GROUP_LAG, cluster, since_ms, until_ms)
    ts = table.column("ts_ms")
    return table.filter(pc.and_(pc.greater_equal(ts, since_ms), pc.less_equal(ts, until_ms)))


def lag_tick_at(store: HistoryStore, cluster: str, at_ms: int, since_ms: int) -> tuple[int, list[Row]] | None:
    """The last tick at or before ``at_ms`` and not before ``since_ms`` (nor more than an hour before), with its
    rows; None: no such tick (recorded before the first, or by a recorder that kept no groups)."""
    table = _rows(store, cluster, max(since_ms, at_ms - HOUR_MS), at_ms)
    if table.num_rows == 0:
        return None
    last = pc.max(table.column("ts_ms")).as_py()
    return last, table.filter(pc.equal(table.column("ts_ms"), last)).to_pylist()


@dataclass(frozen=True, slots=True)
class LaggingGroup:
    """A group that fell behind over a window: its lag at its first known tick in the window, the largest (and
    the first tick it was reached) and at its last known tick; ``unknown`` ticks had no known lag."""

    group: str
    first_ms: int
    first_lag: int
    max_ms: int
    max_lag: int
    last_ms: int
    last_lag: int
    unknown: int

    def to_json(self) -> dict[str, object]:
        return {"group": self.group, "first_ms": self.first_ms, "first_lag": self.first_lag, "max_ms": self.max_ms,
                "max_lag": self.max_lag, "last_ms": self.last_ms, "last_lag": self.last_lag,
                "ticks_unknown": self.unknown}  # fmt: skip


def group_totals(rows: list[Row]) -> dict[tuple[int, str], int | None]:
    """Each (tick, group)'s total lag: the sum of its partitions' (None when one is unknown or the offsets were not
    read; a partition without a committed offset has no lag and does not count)."""
    totals: dict[tuple[int, str], int | None] = {}
    for row in rows:
        if row["group"] is None:
            continue
        key = (row["ts_ms"], row["group"])
        so_far = totals.setdefault(key, 0)
        if row["unknown"] is not None:
            totals[key] = None
        elif so_far is not None and row["lag"] is not None:
            totals[key] = so_far + row["lag"]
    return totals


def lagging_groups(store: HistoryStore, cluster: str, since_ms: int, until_ms: int) -> tuple[LaggingGroup, ...] | None:
    """The groups that fell behind in [since_ms, until_ms], the largest lag first; None: no tick of the groups
    was recorded in the window."""
    table = _rows(store, cluster, since_ms, until_ms)
    if table.num_rows == 0:
        return None
    columns = ["ts_ms", "group", "lag", "unknown"]
    series: dict[str, list[tuple[int, int | None]]] = {}
    for (ts, group), lag in sorted(group_totals(table.select(columns).to_pylist()).items()):
        series.setdefault(group, []).append((ts, lag))
    found = []
    for group, ticks in series.items():
        known = [(ts, lag) for ts, lag in ticks if lag is not None]
        if not known:
            continue
        top_ms, top = max(known, key=lambda t: (t[1], -t[0]))
        (first_ms, first), (last_ms, last) = known[0], known[-1]
        if top > first:
            found.append(LaggingGroup(group, first_ms, first, top_ms, top, last_ms, last, len(ticks) - len(known)))
    return tuple(sorted(found, key=lambda g: (-g.max_lag, g.group)))
