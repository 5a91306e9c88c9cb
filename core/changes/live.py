"""What a live event the console saw means to the timeline: which broker left or registered, who became the
controller, how healthy the cluster was after it. The timeline's bursts summarise live events by these facts
("broker 2 left; 15 partitions under-replicated, all without broker 2") rather than counting lines, and drop a
change dated from ZooKeeper's stats that a live event already reports (``core.changes.timeline.with_live``).
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from core.live.live_event import EventKind


class FactKind(enum.Enum):
    """What a live line states, where the timeline reads more than its text."""

    BROKER_LEFT = "broker_left"
    BROKER_REGISTERED = "broker_registered"
    CONTROLLER = "controller"  # ``broker`` became the controller (None: no controller)
    HEALTH = "health"


@dataclass(frozen=True, slots=True)
class HealthFact:
    """The health counters after a change, and the brokers missing from the ISR of every under-replicated
    partition (empty when none is shared, or nothing is under-replicated)."""

    offline: int
    under_replicated: int
    under_min_isr: int
    lacking: tuple[int, ...] = ()

    def text(self) -> str:
        """``15 partitions under-replicated, all without broker 2, 1 offline``."""
        if not (self.offline or self.under_replicated or self.under_min_isr):
            return "no partition under-replicated or offline"
        parts = []
        if self.under_replicated:
            line = f"{_partitions(self.under_replicated)} under-replicated"
            if self.lacking:
                line += f", all without broker {', '.join(str(b) for b in self.lacking)}"
            parts.append(line)
        if self.offline:
            parts.append(f"{_partitions(self.offline)} offline")
        if self.under_min_isr:
            parts.append(f"{_partitions(self.under_min_isr)} under min ISR")
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class LiveFact:
    """What one live line states: its kind, the broker it concerns, or the health it reports."""

    kind: FactKind
    broker: int | None = None
    health: HealthFact | None = None


_BY_EVENT = {
    EventKind.BROKER_LEFT: FactKind.BROKER_LEFT,
    EventKind.BROKER_JOINED: FactKind.BROKER_REGISTERED,
    EventKind.CONTROLLER_MOVED: FactKind.CONTROLLER,
    EventKind.CONTROLLER_GONE: FactKind.CONTROLLER,
}


def event_fact(kind: object, broker: object) -> LiveFact | None:
    """The fact of a live event of ``kind`` (an ``EventKind``) about ``broker`` (its id; for a controller
    move the new controller), or None when the timeline reads only its text."""
    fact = _BY_EVENT.get(kind) if isinstance(kind, EventKind) else None
    if fact is None:
        return None
    if not isinstance(broker, int):
        return LiveFact(fact) if fact is FactKind.CONTROLLER else None
    return LiveFact(fact, broker)


_NAMED_UP_TO = 3  # other live lines: named one by one up to this many, counted beyond


def live_summary(lines: Sequence[tuple[str, LiveFact | None]], others_are: str = "live event(s)") -> list[str]:
    """The parts of a burst's line for its live (or recorded) lines, ``(text, fact)`` newest first: every
    broker and controller move named by its own line, then the health after the burst (its newest health line),
    then the other lines named, or counted (``N other <others_are>``) when there are more than three."""
    parts = [text for text, fact in lines if fact is not None and fact.kind is not FactKind.HEALTH]
    health = next((fact.health for _, fact in lines if fact is not None and fact.health is not None), None)
    if health is not None:
        parts.append(health.text())
    others = [text for text, fact in lines if fact is None]
    if len(others) > _NAMED_UP_TO:
        parts.append(f"{len(others)} other {others_are}")
    else:
        parts.extend(others)
    return parts


def _partitions(count: int) -> str:
    return f"{count:,} partition" + ("" if count == 1 else "s")
