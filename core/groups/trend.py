"""Lag trend: consumed and produced messages per second over the last minutes, from successive samples.

Each sample keeps, per group, the committed and end offset of every partition whose lag was known. The
rates compare the oldest sample still in the window with the newest, over the partitions present in
both (a partition that became unknown in between does not fake a jump). The time to catch up is the lag
divided by how much faster the group consumes than producers write; ``None`` when it does not gain.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.groups.lag import GroupLag
from core.human_time import age_text

DEFAULT_WINDOW_S = 300.0


@dataclass(frozen=True, slots=True)
class LagTrend:
    """How a group's lag moves: rates over ``window_s`` seconds and the catch-up estimate."""

    consumed_per_s: float
    produced_per_s: float
    window_s: float
    lag: int | None
    catch_up_s: float | None

    @property
    def direction(self) -> str:
        """``catching up``, ``falling behind`` or ``steady``."""
        gain = self.consumed_per_s - self.produced_per_s
        if abs(gain) < 1e-9:
            return "steady"
        return "catching up" if gain > 0 else "falling behind"

    def describe(self) -> str:
        """One line, e.g. ``consumes 120.0/s, producers write 80.0/s: catching up, about 2m 5s``."""
        text = f"consumes {self.consumed_per_s:.1f}/s, producers write {self.produced_per_s:.1f}/s: {self.direction}"
        if self.lag == 0:
            return f"{text}, no lag"
        if self.catch_up_s is not None:
            return f"{text}, caught up in about {age_text(self.catch_up_s)}"
        return text

    def short(self) -> str:
        """For a table cell, e.g. ``64/s in, 60/s out · catching up, 6m 20s``."""
        text = f"{self.consumed_per_s:.0f}/s in, {self.produced_per_s:.0f}/s out · "
        if self.lag == 0:
            return text + "no lag"
        if self.catch_up_s is not None:
            return text + f"catching up, {age_text(self.catch_up_s)}"
        return text + self.direction

    def to_json(self) -> dict[str, Any]:
        """``{"consumed_per_s", "produced_per_s", "window_s", "direction", "catch_up_s"}``."""
        return {
            "consumed_per_s": round(self.consumed_per_s, 3),
            "produced_per_s": round(self.produced_per_s, 3),
            "window_s": round(self.window_s, 3),
            "direction": self.direction,
            "catch_up_s": None if self.catch_up_s is None else round(self.catch_up_s, 1),
        }


def catch_up_seconds(lag: int | None, consumed_per_s: float, produced_per_s: float) -> float | None:
    """Seconds until the lag is gone at the current rates: 0 without lag, ``None`` when it does not shrink."""
    if lag is None:
        return None
    if lag <= 0:
        return 0.0
    gain = consumed_per_s - produced_per_s
    return lag / gain if gain > 0 else None


_Offsets = dict[tuple[str, int], tuple[int, int]]


class LagHistory:
    """Successive samples of every group's offsets, kept for ``window_s`` seconds.

    Not thread-safe: one refresh loop feeds it (the console's groups worker, one run at a time).
    """

    def __init__(self, window_s: float = DEFAULT_WINDOW_S) -> None:
        self.window_s = window_s
        self._samples: dict[str, deque[tuple[float, _Offsets]]] = {}
        self._lags: dict[str, int | None] = {}

    def add(self, at_s: float, groups: Iterable[GroupLag], complete: bool = True) -> None:
        """Record one sample of ``groups`` taken at ``at_s`` (monotonic seconds); ``complete``: these are all
        the groups (the others are gone and forgotten), else a read of some groups only."""
        present = set()
        for group in groups:
            present.add(group.group)
            offsets: _Offsets = {
                (row.topic, row.partition): (row.committed, row.end)
                for row in group.partitions
                if row.lag is not None and row.committed is not None and row.end is not None
            }
            samples = self._samples.setdefault(group.group, deque())
            samples.append((at_s, offsets))
            while len(samples) > 2 and at_s - samples[1][0] >= self.window_s:
                samples.popleft()
            self._lags[group.group] = group.lag
        for gone in set(self._samples) - present if complete else ():
            del self._samples[gone]
            self._lags.pop(gone, None)

    def trend(self, group: str) -> LagTrend | None:
        """The group's trend, ``None`` until two samples exist."""
        samples = self._samples.get(group)
        if not samples or len(samples) < 2:
            return None
        (first_at, first), (last_at, last) = samples[0], samples[-1]
        elapsed = last_at - first_at
        if elapsed <= 0:
            return None
        common = first.keys() & last.keys()
        consumed = sum(max(last[k][0] - first[k][0], 0) for k in common) / elapsed
        produced = sum(max(last[k][1] - first[k][1], 0) for k in common) / elapsed
        lag = self._lags.get(group)
        return LagTrend(consumed, produced, elapsed, lag, catch_up_seconds(lag, consumed, produced))
