"""``EventLog``: live cluster changes, newest first, as ``12:03:04 broker 2 left (127.0.0.1:9094)``."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from tui.widgets.virtual_table import Column, Row, VirtualTable


@dataclass(frozen=True, slots=True)
class LogLine:
    """One event as logged: when (epoch ms), the text, its severity, and what it links to."""

    seq: int
    at_ms: int
    text: str
    severity: str = "info"
    topic: str | None = None
    path: str | None = None


def clock_text(at_ms: int) -> str:
    """``HH:MM:SS`` in local time."""
    return time.strftime("%H:%M:%S", time.localtime(at_ms / 1000))


class EventLog(VirtualTable):
    """The event log table; ``show_lines`` replaces its content (oldest first in, newest shown first)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(
            [Column("time", "time", width=8), Column("event", "event", max_width=400)],
            empty_text="no changes seen yet",
            id=id,
        )

    def show_lines(self, lines: Iterable[LogLine]) -> None:
        """Show ``lines`` (given oldest first) newest first."""
        rows = []
        for line in lines:
            meanings = frozenset({line.severity}) if line.severity in ("error", "warning") else frozenset()
            rows.append(
                Row(str(line.seq), (clock_text(line.at_ms), line.text), meanings, (line.at_ms, line.text), line)
            )
        rows.reverse()
        self.set_rows(rows)
