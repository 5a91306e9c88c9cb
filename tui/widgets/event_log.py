"""``EventLog``: live cluster changes, newest first, as ``12:03:04  51s ago  broker 2 left (127.0.0.1:9094)``.

The log stays pinned to the newest event (the cursor on the first row) unless the user moved the cursor
away; the "ago" column ticks every second, and the log redraws itself from the app's ``event_lines`` when
they changed while it was hidden. A flood of one kind of event (e.g. a controller failing over thousands
of times) is shown as one summary row: ``controller moved 1,712 times in 10 s`` (``summarise``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.human_time import age_text
from tui.widgets.virtual_table import Column, Row, VirtualTable

FLOOD_MIN = 20  # consecutive events of one kind that make a flood
FLOOD_WINDOW_MS = 10_000  # a flood's events are at most this far apart from its first
_NUMBERS = re.compile(r"-?[0-9]+")


@dataclass(frozen=True, slots=True)
class LogLine:
    """One event as logged: when (epoch ms), the text, its severity, and what it links to."""

    seq: int
    at_ms: int
    text: str
    severity: str = "info"
    topic: str | None = None
    path: str | None = None


@dataclass(frozen=True, slots=True)
class Flood:
    """``count`` consecutive events of one kind between ``first_ms`` and ``last`` (the newest of them)."""

    kind: str
    count: int
    first_ms: int
    last: LogLine

    @property
    def text(self) -> str:
        """``controller moved 1,712 times in 10 s (last: controller moved 1 -> 3 (epoch 8))``."""
        seconds = max(1, round((self.last.at_ms - self.first_ms) / 1000))
        return f"{self.kind} {self.count:,} times in {seconds} s (last: {self.last.text})"


def clock_text(at_ms: int) -> str:
    """``HH:MM:SS`` in local time."""
    return time.strftime("%H:%M:%S", time.localtime(at_ms / 1000))


def event_kind(text: str) -> str:
    """What an event line is about, without its numbers and names: ``controller moved`` for
    ``controller moved 1 -> 3 (epoch 8)``; ``leader`` lines of different partitions share it too."""
    head = _NUMBERS.split(text, maxsplit=1)[0].strip(" :(-")
    return head or _NUMBERS.sub("#", text)


def summarise(
    lines: Sequence[LogLine], at_least: int = FLOOD_MIN, window_ms: int = FLOOD_WINDOW_MS
) -> list[LogLine | Flood]:
    """``lines`` (oldest first) with each run of ``at_least`` or more consecutive events of one kind, within
    ``window_ms`` of the run's first, folded into one ``Flood``."""
    result: list[LogLine | Flood] = []
    i = 0
    while i < len(lines):
        kind = event_kind(lines[i].text)
        j = i + 1
        while j < len(lines) and lines[j].at_ms - lines[i].at_ms <= window_ms and event_kind(lines[j].text) == kind:
            j += 1
        if j - i >= at_least:
            result.append(Flood(kind, j - i, lines[i].at_ms, lines[j - 1]))
        else:
            result.extend(lines[i:j])
        i = j
    return result


class EventLog(VirtualTable):
    """The event log table; ``show_lines`` replaces its content (oldest first in, newest shown first)."""

    def __init__(self, id: str | None = None) -> None:
        super().__init__(
            [
                Column("time", "time", width=8),
                Column("ago", "ago", width=10),
                Column("event", "event", max_width=400),
            ],
            empty_text="no changes seen yet",
            id=id,
        )
        self._lines: list[LogLine] = []

    def on_mount(self) -> None:
        self.set_interval(1.0, self._tick)

    def show_lines(self, lines: Iterable[LogLine]) -> None:
        """Show ``lines`` (given oldest first) newest first, pinned to the newest unless the user scrolled."""
        self._lines = list(lines)
        self._render_lines()

    def _render_lines(self) -> None:
        pinned = self.cursor_row == 0
        clock = getattr(self.app, "now_ms", None)
        now = clock() if callable(clock) else int(time.time() * 1000)
        rows = []
        for item in summarise(self._lines):
            line = item.last if isinstance(item, Flood) else item
            meanings = frozenset({line.severity}) if line.severity in ("error", "warning") else frozenset()
            if isinstance(item, Flood):
                meanings = meanings | {"flood"}
            ago = age_text(max(0, now - line.at_ms) / 1000) + " ago"
            cells = (clock_text(line.at_ms), ago, item.text)
            rows.append(Row(str(line.seq), cells, meanings, (line.at_ms, line.at_ms, item.text), line))
        rows.reverse()
        self.set_rows(rows)
        if pinned and rows and self.cursor_row != 0:
            self.action_first()

    def _tick(self) -> None:
        # Redraw when the app's log changed while this one was not told (hidden screen), and let ages tick;
        # not while another screen is up: a hidden screen's redraw repaints the current one (every second).
        if not self.display or not self.is_on_screen or self.app.screen is not self.screen:
            return
        source = getattr(self.app, "event_lines", None)
        if source is not None and (len(source) != len(self._lines) or (source and source[-1] != self._lines[-1])):
            self._lines = list(source)
        self._render_lines()
