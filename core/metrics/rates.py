"""Per-second figures of a broker from its scrapes, each saying where it comes from.

A JMX meter's rate is its count's delta between two scrapes over the time between them (``source``
``"count delta"``, ``window_s`` that time), by the one rate rule ``core.traffic.rates.rate``. Without an
earlier scrape, it is the meter's own one-minute rate (``"one-minute rate"``), where the exporter exports it.
A count lower than the previous scrape's means the broker restarted: the delta would be negative, so the
figure is the one-minute rate (or unknown), never a negative number, and the next window counts from the new
value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from core.metrics.exposition import METERS, TOPIC_METERS, Exposition, Meter
from core.traffic.rates import Reading, rate

Window = tuple[int, int]  # when the previous and the current scrape were read, in milliseconds

COUNT_DELTA = "count delta"
ONE_MINUTE = "one-minute rate"
MEAN = "mean since the broker started"
NS_PER_S = 1e9
NO_TOPIC_METER = "not counted yet (the broker creates a topic's meter when it is first used)"


@dataclass(frozen=True)
class Rate:
    """A per-second figure (None: unknown, ``why`` says why) and how it was obtained."""

    value: float | None
    source: str | None  # COUNT_DELTA, ONE_MINUTE or MEAN; None when unknown
    window_s: float | None = None  # the count delta's window
    why: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"value", "source", "window_s", "why"}``."""
        return {"value": self.value, "source": self.source, "window_s": self.window_s, "why": self.why}


@dataclass(frozen=True)
class Figures:
    """One broker's figures from a scrape and the one before it (if any)."""

    rates: dict[str, Rate]  # by the keys of METERS: bytes_in, bytes_out, messages_in, isr_shrinks, isr_expands
    topics: dict[str, dict[str, Rate]]  # topic -> bytes_in, bytes_out, messages_in
    request_idle_pct: Rate  # the request handlers' idle percent (its "value" is a percent, not per second)
    network_idle_pct: float | None
    p99_ms: dict[str, float | None]  # produce, fetch
    under_replicated: int | None
    restarted: bool  # a count went backwards since the previous scrape


def meter_rate(
    previous: Meter | None,
    current: Meter,
    window: Window | None,
    count_scale: float = 1.0,
    rate_scale: float = 1.0,
    missing: str = "not in the exporter's answer",
) -> Rate:
    """The rate of a meter from two scrapes (its count delta per second by ``core.traffic.rates.rate``, times
    ``count_scale``), else its one-minute rate (times ``rate_scale``)."""
    restarted = False
    if previous is not None and previous.count is not None and current.count is not None and window:
        delta = rate(Reading(int(previous.count), window[0]), Reading(int(current.count), window[1]), "the count")
        if delta.per_s is not None:
            return Rate(delta.per_s * count_scale, COUNT_DELTA, delta.window_s)
        restarted = current.count < previous.count
    if current.one_minute is not None:
        why = "the broker restarted within the window" if restarted else None
        return Rate(current.one_minute * rate_scale, ONE_MINUTE, why=why)
    if restarted:
        return Rate(None, None, why="the broker restarted within the window (its counts began again)")
    if current.count is None:
        return Rate(None, None, why=missing)
    return Rate(None, None, why="needs a second scrape (the exporter gives no one-minute rate)")


def _topic_before(previous: Exposition | None, topic: str, key: str) -> Meter | None:
    """A topic meter's previous value; one the broker had not created yet at the previous scrape counted
    from zero (Kafka creates a topic's meter on its first use, so all its count falls in the window)."""
    if previous is None:
        return None
    before = previous.topics.get(topic, {}).get(key)
    return before if before is not None and before.count is not None else Meter(0.0, None)


def figures(previous: Exposition | None, current: Exposition, window: Window | None) -> Figures:
    """A broker's figures from its current scrape and its previous one (``window``: when each was read)."""
    rates = {key: meter_rate(previous.meters[key] if previous else None, current.meters[key], window) for key in METERS}
    topics = {
        topic: {
            key: meter_rate(_topic_before(previous, topic, key), meters[key], window, missing=NO_TOPIC_METER)
            for key in TOPIC_METERS
        }
        for topic, meters in current.topics.items()
    }
    # Its count is idle nanoseconds: per second, over 1e9, the idle fraction; its rates are that fraction.
    before = previous.request_idle if previous else None
    idle = meter_rate(before, current.request_idle, window, count_scale=100 / NS_PER_S, rate_scale=100)
    if idle.value is None and current.request_idle_mean is not None:
        idle = Rate(current.request_idle_mean * 100, MEAN)
    if idle.value is not None:
        # The handlers mark idle time when a wait ends, so a window's share can pass 100% by a little.
        idle = replace(idle, value=min(100.0, idle.value))
    restarted = previous is not None and any(
        p.count is not None and c.count is not None and c.count < p.count
        for p, c in zip(previous.meters.values(), current.meters.values(), strict=True)
    )
    return Figures(
        rates=rates,
        topics=topics,
        request_idle_pct=idle,
        network_idle_pct=current.network_idle * 100 if current.network_idle is not None else None,
        p99_ms=dict(current.p99_ms),
        under_replicated=current.under_replicated,
        restarted=restarted,
    )
