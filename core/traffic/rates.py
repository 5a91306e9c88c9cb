"""Rates from two readings of a counter that only grows while nothing goes wrong: a high watermark, a log's
size. Pure arithmetic, every surface's one rule for it.

A rate is per second over the time between the readings (its window), dated by the later one. It is
``idle`` when the counter did not move, and unknown (``per_s`` None, with the reason) when either reading is
missing or the counter went backwards: a broker restart, a truncation, a deleted and recreated topic, segments
deleted by retention. Then the rate restarts from the later reading; it is never negative and never a zero
that means "unknown".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.human_size import human_size as size_text

HOUR_S = 3600.0


@dataclass(frozen=True, slots=True)
class Reading:
    """A counter's value at ``at_ms`` (when the broker answered)."""

    value: int
    at_ms: int


@dataclass(frozen=True, slots=True)
class Rate:
    """Per second over ``window_s`` ending at ``read_ms``; ``per_s`` None with the reason (``unknown``)."""

    per_s: float | None
    window_s: float | None = None
    read_ms: int | None = None
    unknown: str | None = None

    @property
    def idle(self) -> bool:
        """Nothing moved (known, and zero)."""
        return self.per_s == 0.0


def unknown(reason: str) -> Rate:
    """A rate that cannot be given, and why."""
    return Rate(None, unknown=reason)


def rate(before: Reading | None, after: Reading | None, what: str = "the counter") -> Rate:
    """The rate of ``what`` between two readings (None: not read, see the module docstring)."""
    if after is None:
        return unknown(f"{what} was not read")
    if before is None:
        return unknown(f"{what} was read once; a rate needs two readings")
    window_ms = after.at_ms - before.at_ms
    if window_ms <= 0:
        return unknown(f"{what} was read twice at the same time; a rate needs a window")
    window_s = window_ms / 1000
    if after.value < before.value:
        return Rate(
            None,
            window_s,
            after.at_ms,
            f"{what} went back from {before.value:,} to {after.value:,}; the rate restarts from this reading",
        )
    return Rate((after.value - before.value) / window_s, window_s, after.at_ms)


def total(rates: Iterable[Rate], parts: str = "part") -> Rate:
    """The sum of ``rates`` (a topic's partitions, a broker's): unknown when one of them is (the first
    reason, and how many more), never a partial sum. Its window is the longest, its read time the latest.
    Nothing to sum: 0, idle."""
    per_s = 0.0
    window_s: float | None = None
    read_ms: int | None = None
    reasons: list[str] = []
    for r in rates:
        if r.per_s is None:
            reasons.append(r.unknown or "unknown")
            continue
        per_s += r.per_s
        if r.window_s is not None and (window_s is None or r.window_s > window_s):
            window_s = r.window_s
        if r.read_ms is not None and (read_ms is None or r.read_ms > read_ms):
            read_ms = r.read_ms
    if reasons:
        more = f" (and {len(reasons) - 1} more {parts}s unknown)" if len(reasons) > 1 else ""
        return Rate(None, window_s, read_ms, reasons[0] + more)
    return Rate(per_s, window_s, read_ms)


@dataclass(frozen=True, slots=True)
class TimeToFull:
    """Seconds until a volume is full at the current growth, or None with why it cannot be said."""

    seconds: float | None
    why: str | None = None


def time_to_full(usable_bytes: int | None, growth: Rate) -> TimeToFull:
    """How long ``usable_bytes`` (the volume's free space) last at ``growth`` (bytes per second)."""
    if usable_bytes is None:
        return TimeToFull(None, "the broker does not report the volume's free space (DescribeLogDirs v4, Kafka 3.3+)")
    if growth.per_s is None:
        return TimeToFull(None, f"growth unknown: {growth.unknown}")
    if growth.per_s <= 0:
        return TimeToFull(None, "not growing")
    return TimeToFull(usable_bytes / growth.per_s)


def per_hour(r: Rate) -> float | None:
    """The rate per hour (a log dir's growth), None when unknown."""
    return None if r.per_s is None else r.per_s * HOUR_S


def rate_text(r: Rate | None, unit: str = "") -> str:
    """A rate as the tables show it: ``12.5`` (per second), ``2.0 KiB/s`` (``unit`` bytes), ``12.5/s``
    (``unit`` messages), ``idle``, ``?``."""
    if r is None or r.per_s is None:
        return "?"
    if r.idle:
        return "idle"
    if unit == "bytes":
        return f"{size_text(int(r.per_s))}/s"
    return f"{r.per_s:,.1f}" + ("/s" if unit == "messages" else "")
