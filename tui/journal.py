"""The console's memory of this session: the event log lines (newest last, bounded), the controller moves
seen, and the last health counts logged. The app owns one per cluster and writes it (live events,
connection changes, health changes, the user's own actions); the cluster screen's event log receives it
and shows it, catching up by ``version`` whenever it is drawn."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from core.changes.live import LiveFact

MAX_EVENTS = 2000


@dataclass(frozen=True, slots=True)
class LogLine:
    """One event as logged: when (epoch ms), the text, its severity, and what it links to."""

    seq: int
    at_ms: int
    text: str
    severity: str = "info"
    topic: str | None = None
    path: str | None = None
    fact: LiveFact | None = None  # what the line states, for the timeline's bursts


class EventJournal:
    """Event log lines and controller moves seen since the console connected to this cluster."""

    def __init__(self, max_lines: int = MAX_EVENTS) -> None:
        self.lines: deque[LogLine] = deque(maxlen=max_lines)
        self.controller_moves = 0
        self.health: tuple[int, int, int] | None = None  # (offline, under-replicated, under min ISR) last logged
        self._seq = 0

    @property
    def version(self) -> int:
        """Grows with every line added: a reader that saw this version has seen every line."""
        return self._seq

    def append(self, at_ms: int, text: str, severity: str, topic: str | None = None, path: str | None = None,
               fact: LiveFact | None = None) -> None:  # fmt: skip
        """Add one line."""
        self._seq += 1
        self.lines.append(LogLine(self._seq, at_ms, text, severity, topic, path, fact))
