"""``EventLog``: newest first and pinned to it unless the user moved away, ticking ages, floods folded."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tui.widgets.event_log import EventLog, Flood, LogLine, event_kind, summarise

NOW_MS = 1_700_000_000_000


def line(seq: int, at_ms: int, text: str) -> LogLine:
    return LogLine(seq, at_ms, text)


class LogApp(App[None]):
    def __init__(self) -> None:
        super().__init__()
        self.now = NOW_MS

    def now_ms(self) -> int:
        return self.now

    def compose(self) -> ComposeResult:
        yield EventLog(id="log")


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
    app = LogApp()
    async with app.run_test(size=(100, 12)) as pilot:
        log = app.query_one(EventLog)
        lines = [line(i, NOW_MS - 60_000 + i * 1000, f"broker {i} registered") for i in range(20)]
        log.show_lines(lines)
        await pilot.pause()
        assert log.cursor_row == 0 and log.visible_rows()[0].cells[2] == "broker 19 registered"
        assert log.visible_rows()[0].cells[1] == "41s ago"
        lines.append(line(20, NOW_MS, "broker 20 registered"))
        log.show_lines(lines)
        await pilot.pause()
        assert log.cursor_row == 0 and log.current_row is not None
        assert log.current_row.cells[2] == "broker 20 registered" and log.top_row == 0  # pinned: newest in view
        app.now = NOW_MS + 5000
        log._tick()
        assert log.visible_rows()[0].cells[1] == "5s ago"
        log.focus()
        await pilot.press("down", "down")
        lines.append(line(21, NOW_MS + 6000, "broker 21 registered"))
        log.show_lines(lines)
        await pilot.pause()
        assert log.current_row is not None and log.current_row.cells[2] == "broker 18 registered"  # left alone
