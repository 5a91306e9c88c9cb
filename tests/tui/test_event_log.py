"""``EventLog``: the journal it is given, newest first and pinned to it unless the user moved away, ticking
ages (redrawn only when one changed), floods folded."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult

from tui.journal import EventJournal, LogLine
from tui.widgets.event_log import EventLog, Flood, event_kind, summarise

NOW_MS = 1_700_000_000_000


def line(seq: int, at_ms: int, text: str) -> LogLine:
    return LogLine(seq, at_ms, text)


class LogApp(App[None]):
    def __init__(self, journal: EventJournal) -> None:
        super().__init__()
        self.journal = journal

    def compose(self) -> ComposeResult:
        yield EventLog(self.journal, id="log")


def test_a_flood_of_one_kind_is_one_row_with_its_count_and_span() -> None:
    moves = [line(i, NOW_MS + i * 5, f"controller moved {i % 3} -> {(i + 1) % 3} (epoch {i})") for i in range(1712)]
    before = line(10_000, NOW_MS - 60_000, "broker 2 left (127.0.0.1:9094)")
    after = line(10_001, NOW_MS + 20_000, "topic orders created (4 partitions, rf 3)")
    [first, flood, last] = summarise([before, *moves, after])
    assert first == before and last == after
    assert isinstance(flood, Flood) and flood.count == 1712
    assert flood.text.startswith("controller moved 1,712 times in 9 s (last: controller moved")
    assert event_kind("orders-3 leader 1 -> 2 (leader epoch 5)") == "orders"
    few = [line(i, NOW_MS + i, f"controller moved {i} -> {i + 1} (epoch {i})") for i in range(5)]
    assert summarise(few) == few  # a handful is shown as it is


async def test_the_log_stays_on_the_newest_event_unless_the_user_moved_and_ages_tick() -> None:
    journal = EventJournal()
    app = LogApp(journal)
    async with app.run_test(size=(100, 12)) as pilot:
        log = app.query_one(EventLog)
        for i in range(20):
            journal.append(NOW_MS - 60_000 + i * 1000, f"broker {i} registered", "info")
        log.show(NOW_MS)
        await pilot.pause()
        assert log.cursor_row == 0 and log.visible_rows()[0].cells[2] == "broker 19 registered"
        assert log.visible_rows()[0].cells[1] == "41s ago"
        journal.append(NOW_MS, "broker 20 registered", "info")
        log.show(NOW_MS)
        await pilot.pause()
        assert log.cursor_row == 0 and log.current_row is not None
        assert log.current_row.cells[2] == "broker 20 registered" and log.top_row == 0  # pinned: newest in view
        log.show(NOW_MS + 5000)  # the clock moved: the ages with it, from the journal, nothing read again
        assert log.visible_rows()[0].cells[1] == "5s ago"
        assert log.visible_rows()[1].cells[1] == "46s ago"
        log.focus()
        await pilot.press("down", "down")
        journal.append(NOW_MS + 6000, "broker 21 registered", "info")
        log.show(NOW_MS + 6000)
        await pilot.pause()
        assert log.current_row is not None and log.current_row.cells[2] == "broker 18 registered"  # left alone


async def test_an_idle_tick_redraws_nothing_when_no_age_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    journal = EventJournal()
    journal.append(NOW_MS - 3_600_000, "broker 1 registered", "info")
    app = LogApp(journal)
    async with app.run_test(size=(100, 12)) as pilot:
        log = app.query_one(EventLog)
        log.show(NOW_MS)
        await pilot.pause()
        replaced: list[int] = []
        monkeypatch.setattr(log, "set_rows", lambda rows, **_: replaced.append(len(rows)))
        log.show(NOW_MS)  # the same second: the same text
        assert replaced == []
        log.show(NOW_MS + 1000)  # "1h 0m ago" still
        assert replaced == []
        journal.append(NOW_MS + 1000, "broker 2 registered", "info")
        log.show(NOW_MS + 1000)
        assert replaced == [2]
