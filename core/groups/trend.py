"""Lag trend: what producers write and what the group consumes, in messages per second over the last
minutes, from successive samples, and a verdict that does not flip on noise.

Each sample keeps, per group, the committed and end offset of every partition whose lag was known. The
rates compare the oldest sample still in the window with the newest, over the partitions present in
both (a partition that became unknown in between does not fake a jump; with none in common there is no
rate). Rates are labelled as Kafka's own metrics count them: "produced" is what producers wrote (the end
offsets' growth, BytesIn's side), "consumed" what the group committed (BytesOut's side).

The verdict waits until the samples cover ``MIN_WINDOW_S`` (consumers commit in bursts, every few seconds:
a shorter window swings between 0/s and twice the real rate), then moves with hysteresis: it becomes
"catching up" or "falling behind" only when one rate exceeds the other by ``ENTER`` (10 %), and returns to
"steady" only when they are within ``LEAVE`` (2 %) of each other; in between it keeps what it said. The
time to catch up is the lag divided by how much faster the group consumes than producers write, given
only while it is catching up.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from core.groups.lag import GroupLag
from core.human_time import age_text
from core.kafka.topic_partition import TopicPartition

DEFAULT_WINDOW_S = 300.0
MIN_WINDOW_S = 60.0  # no verdict before the samples cover this long
ENTER = 0.10  # relative gain (consumed - produced) / the larger rate that starts "catching up" / "falling behind"
LEAVE = 0.02  # within this, the verdict returns to "steady"
CATCHING_UP, FALLING_BEHIND, STEADY, MEASURING = "catching up", "falling behind", "steady", "measuring"


@dataclass(frozen=True, slots=True)
class LagTrend:
    """How a group's lag moves: rates over ``window_s`` seconds, the verdict and the catch-up estimate.

    ``verdict`` is the one ``LagHistory`` settled on (with hysteresis); built without it, the verdict is
    the rates' own (``ENTER`` margin, no memory).
    """

    consumed_per_s: float
    produced_per_s: float
    window_s: float
    lag: int | None
    catch_up_s: float | None
    verdict: str | None = None

    @property
    def direction(self) -> str:
        """``measuring`` (window still short), ``catching up``, ``falling behind`` or ``steady``."""
        if self.verdict is not None:
            return self.verdict
        if self.window_s < MIN_WINDOW_S:
            return MEASURING
        return raw_verdict(self.consumed_per_s, self.produced_per_s, STEADY)

    def rates(self, digits: int = 0) -> str:
        """``produced 30/s, consumed 0/s``: what producers wrote, then what the group consumed."""
        return f"produced {self.produced_per_s:.{digits}f}/s, consumed {self.consumed_per_s:.{digits}f}/s"

    def _verdict_text(self) -> str:
        direction = self.direction
        if self.lag == 0:
            return "no lag"
        if direction == MEASURING:
            return f"measuring ({age_text(self.window_s)} of {age_text(MIN_WINDOW_S)})"
        if direction == CATCHING_UP and self.catch_up_s is not None:
            return f"catching up, lag gone in ~{age_text(self.catch_up_s)}"
        return direction

    def describe(self) -> str:
        """One line, e.g. ``produced 80.0/s, consumed 120.0/s over 5m 0s: catching up, lag gone in ~2m 5s``."""
        return f"{self.rates(1)} over {age_text(self.window_s)}: {self._verdict_text()}"

    def short(self) -> str:
        """For a table cell, e.g. ``produced 60/s, consumed 64/s · catching up, lag gone in ~6m 20s``."""
        return f"{self.rates()} · {self._verdict_text()}"

    def to_json(self) -> dict[str, Any]:
        """``{"consumed_per_s", "produced_per_s", "window_s", "direction", "catch_up_s"}``."""
        return {
            "consumed_per_s": round(self.consumed_per_s, 3),
            "produced_per_s": round(self.produced_per_s, 3),
            "window_s": round(self.window_s, 3),
            "direction": self.direction,
            "catch_up_s": None if self.catch_up_s is None else round(self.catch_up_s, 1),
        }


def raw_verdict(consumed_per_s: float, produced_per_s: float, previous: str) -> str:
    """The verdict from two rates with hysteresis around ``previous`` (see the module's docstring)."""
    larger = max(consumed_per_s, produced_per_s)
    if larger <= 0:
        return STEADY
    gain = (consumed_per_s - produced_per_s) / larger
    if gain >= ENTER or (previous == CATCHING_UP and gain > LEAVE):
        return CATCHING_UP
    if gain <= -ENTER or (previous == FALLING_BEHIND and gain < -LEAVE):
        return FALLING_BEHIND
    return STEADY


def catch_up_seconds(lag: int | None, consumed_per_s: float, produced_per_s: float) -> float | None:
    """Seconds until the lag is gone at the current rates: 0 without lag, ``None`` when it does not shrink."""
    if lag is None:
        return None
    if lag <= 0:
        return 0.0
    gain = consumed_per_s - produced_per_s
    return lag / gain if gain > 0 else None


_Offsets = dict[TopicPartition, tuple[int, int]]


class LagHistory:
    """Successive samples of every group's offsets, kept for ``window_s`` seconds.

    Not thread-safe: one refresh loop feeds it (the console's groups worker, one run at a time).
    """

    def __init__(self, window_s: float = DEFAULT_WINDOW_S) -> None:
        self.window_s = window_s
        self._samples: dict[str, deque[tuple[float, _Offsets]]] = {}
        self._lags: dict[str, int | None] = {}
        self._verdicts: dict[str, str] = {}

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
            if samples and at_s <= samples[-1][0]:
                continue  # an older read that finished late: the newer sample stands
            samples.append((at_s, offsets))
            while len(samples) > 2 and at_s - samples[1][0] >= self.window_s:
                samples.popleft()
            self._lags[group.group] = group.lag
        for gone in set(self._samples) - present if complete else ():
            del self._samples[gone]
            self._lags.pop(gone, None)
            self._verdicts.pop(gone, None)

    def retain(self, groups: set[str]) -> None:
        """Forget every group but ``groups`` (the others are gone)."""
        for gone in set(self._samples) - groups:
            del self._samples[gone]
            self._lags.pop(gone, None)
            self._verdicts.pop(gone, None)

    def trend(self, group: str) -> LagTrend | None:
        """The group's trend, ``None`` until two samples share a partition whose lag was known in both."""
        samples = self._samples.get(group)
        if not samples or len(samples) < 2:
            return None
        (first_at, first), (last_at, last) = samples[0], samples[-1]
        elapsed = last_at - first_at
        common = first.keys() & last.keys()
        if elapsed <= 0 or not common:
            return None
        consumed = sum(max(last[k][0] - first[k][0], 0) for k in common) / elapsed
        produced = sum(max(last[k][1] - first[k][1], 0) for k in common) / elapsed
        lag = self._lags.get(group)
        if elapsed < MIN_WINDOW_S:
            verdict = MEASURING
        else:
            verdict = raw_verdict(consumed, produced, self._verdicts.get(group, STEADY))
            self._verdicts[group] = verdict
        catch_up = catch_up_seconds(lag, consumed, produced) if verdict == CATCHING_UP else None
        return LagTrend(consumed, produced, elapsed, lag, catch_up, verdict)
