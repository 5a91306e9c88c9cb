"""``EventLog``: live cluster changes, newest first, as ``12:03:04  51s ago  broker 2 left (127.0.0.1:9094)``.

The log receives the session's ``EventJournal`` (attributes down) and shows it whenever its screen draws it
(``show(now_ms)``: on every new line while the screen is up, on every clock tick, and when the screen comes
back), so lines added while another screen was up appear as soon as the log is seen again. It stays pinned
to the newest event (the cursor on the first row) unless the user moved the cursor away. A flood of one
kind of event (e.g. a controller failing over thousands of times) is shown as one summary row:
``controller moved 1,712 times in 10 s`` (``summarise``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from core.human_time import age_text
from tui.journal import EventJournal, LogLine
from tui.widgets.virtual_table import Column, Row, VirtualTable

FLOOD_MIN = 20  # consecutive events of one kind that make a flood
FLOOD_WINDOW_MS = 10_000  # a flood's events are at most this far apart from its first
_NUMBERS = re.compile(r"-?[0-9]+")


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
    """The event log table of one ``EventJournal``; ``show`` draws it as of a time (newest shown first)."""

    def __init__(self, journal: EventJournal, id: str | None = None) -> None:
        super().__init__(
            [
                Column("time", "time", width=8),
                Column("ago", "ago", width=10),
                Column("event", "event", max_width=400),
            ],
            empty_text="no changes seen yet",
            id=id,
        )
        self.journal = journal
        self._version = -1  # the journal version shown
        # Per shown row, what does not change with the clock (newest first): the key, the time, the text, the
        # meanings, the sort values and the line; a tick only formats the ages.
        self._static: list[tuple[str, str, str, frozenset[str], tuple[int, int, str], LogLine]] = []

    def use_journal(self, journal: EventJournal) -> None:
        """Show another journal (the console switched to another cluster)."""
        self.journal, self._version = journal, -1

    def show(self, now_ms: int) -> None:
        """Show the journal's lines (when it has new ones) with their ages as of ``now_ms``; redraws only
        when a row changed. Pinned to the newest line unless the user moved the cursor away."""
        if self._version != self.journal.version:
            self._version = self.journal.version
            self._static = []
            for item in summarise(list(self.journal.lines)):
                line = item.last if isinstance(item, Flood) else item
                meanings = frozenset({line.severity}) if line.severity in ("error", "warning") else frozenset()
                if isinstance(item, Flood):
                    meanings = meanings | {"flood"}
                values = (line.at_ms, line.at_ms, item.text)
                self._static.append((str(line.seq), clock_text(line.at_ms), item.text, meanings, values, line))
            self._static.reverse()
        pinned = self.cursor_row == 0
        rows = [
            Row(key, (clock, age_text(max(0, now_ms - line.at_ms) / 1000) + " ago", text), meanings, values, line)
            for key, clock, text, meanings, values, line in self._static
        ]
        if self.update_rows(rows) and pinned and rows and self.cursor_row != 0:
            self.action_first()
