"""The console's memory of this session: the event log lines (newest last, bounded) and the controller
moves seen. The app owns one and writes it; the cluster screen receives it and reads it."""

from __future__ import annotations

from collections import deque

from tui.widgets.event_log import LogLine

MAX_EVENTS = 2000


class EventJournal:
    """Event log lines and controller moves seen since the console connected to this cluster."""

    def __init__(self, max_lines: int = MAX_EVENTS) -> None:
        self.lines: deque[LogLine] = deque(maxlen=max_lines)
        self.controller_moves = 0
        self._seq = 0

    def append(self, at_ms: int, text: str, severity: str, topic: str | None = None, path: str | None = None) -> None:
        """Add one line."""
        self._seq += 1
        self.lines.append(LogLine(self._seq, at_ms, text, severity, topic, path))
