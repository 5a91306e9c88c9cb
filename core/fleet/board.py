"""The fleet screen's rows: each context's latest row, and a cluster that stops answering kept in place as
``stale since HH:MM:SS (reason)`` with the counts of its last good read (headless; ``tui.fleet_poll`` feeds it).

A cluster that answered once and then cannot be read (its ZooKeeper hangs, refuses, or the read fails) is not
shown as an empty row: the on-call sees what it looked like last and since when kzc has not heard from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from core.fleet.row import NO_ANSWER, READ_FAILED, STALE, UNREACHABLE, FleetRow, mark_duplicates, worst_first
from core.human_time import clock_text

# The states that mean "kzc could not hear from the cluster this time" (not "the cluster is in trouble").
LOST = frozenset({NO_ANSWER, UNREACHABLE, READ_FAILED})


def stale_text(since_ms: int, reason: str | None) -> str:
    """``stale since 22:13:20 (no answer in 10 s)``: when kzc last could not hear from a cluster, and why."""
    clock = clock_text(since_ms)
    return f"stale since {clock} ({reason})" if reason else f"stale since {clock}"


@dataclass
class FleetBoard:
    """Every context's row as last read, with stale clusters carried over from their last good read."""

    good: dict[str, FleetRow] = field(default_factory=dict)  # the last row read whole, per context
    shown: dict[str, FleetRow] = field(default_factory=dict)
    lost: dict[str, tuple[int, str]] = field(default_factory=dict)  # since when, and the latest read's state

    def take(self, row: FleetRow) -> FleetRow:
        """One context's new row; returns what is shown for it (the row itself, or the stale row)."""
        name = row.context
        last = self.good.get(name)
        if row.state not in LOST or last is None:  # read whole, or never heard from: the row says why
            if row.state not in LOST:
                self.good[name] = row
            self.lost.pop(name, None)
            self.shown[name] = row
            return row
        since = self.lost[name][0] if name in self.lost else row.at_ms
        self.lost[name] = (since, row.state_text)
        stale = replace(
            last, state=STALE, reason=f"{self.state_text(row)}: {row.reason}", deadline_s=None, at_ms=row.at_ms
        )
        self.shown[name] = stale
        return stale

    def rows(self) -> list[FleetRow]:
        """Every context's shown row, worst first, contexts that reach one cluster noted."""
        return worst_first(mark_duplicates(list(self.shown.values())))

    def state_text(self, row: FleetRow) -> str:
        """The state as the screen shows it: ``stale since HH:MM:SS (no answer in 10 s)`` for a stale row."""
        if row.context in self.lost and self.good.get(row.context) is not None:
            since, state = self.lost[row.context]
            return stale_text(since, state)
        return row.state_text
