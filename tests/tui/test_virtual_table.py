"""VirtualTable: renders only visible rows, keeps the cursor on its row across updates, filters by regex,
sorts, marks, exports, and handles keys and clicks."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.strip import Strip

from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = (Column("name", "name"), Column("n", "n", align="right"))


class CountingTable(VirtualTable):
    """Records which row indexes were drawn."""

    drawn: ClassVar[set[int]] = set()

    def render_line(self, y: int) -> Strip:
        if y > 0:
            CountingTable.drawn.add(self.top_row + y - 1)
        return super().render_line(y)


class TableApp(App[None]):
    def __init__(self, rows: list[Row], markable: bool = False) -> None:
        super().__init__()
        self.rows = rows
        self.markable = markable
        self.selected: list[str] = []

    def compose(self) -> ComposeResult:
        yield CountingTable(COLUMNS, markable=self.markable, id="table")

    def on_mount(self) -> None:
        table = self.query_one(CountingTable)
        table.set_rows(self.rows)
        table.focus()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        self.selected.append(event.row.key)


def rows(n: int) -> list[Row]:
    return [Row(f"k{i}", (f"topic-{i:06d}", str(i)), values=(f"topic-{i:06d}", i)) for i in range(n)]


async def test_only_the_visible_rows_of_200k_are_rendered() -> None:
    CountingTable.drawn.clear()
    app = TableApp(rows(200_000))
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(CountingTable)
        assert table.row_count == 200_000
        assert CountingTable.drawn and max(CountingTable.drawn) < 20
        await pilot.press("end")
        await pilot.pause()
        assert table.cursor_row == 199_999
        assert len(CountingTable.drawn) < 60  # the first and last screenfuls, never the rows between


async def test_cursor_stays_on_the_same_row_when_rows_change() -> None:
    app = TableApp(rows(100))
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(CountingTable)
        await pilot.press("down", "down", "down")
        assert table.current_key == "k3"
        table.set_rows([Row("new", ("aaa-first", "0")), *rows(100)])
        await pilot.pause()
        assert table.current_key == "k3" and table.cursor_row == 4
        table.set_rows([r for r in rows(100) if r.key != "k3"])
        await pilot.pause()
        assert table.cursor_row == 4  # the row is gone: the position is kept


async def test_filter_is_a_case_insensitive_regex_and_a_bad_one_keeps_the_previous() -> None:
    app = TableApp(rows(1000))
    async with app.run_test(size=(60, 20)) as pilot:
        table = app.query_one(CountingTable)
        assert table.set_filter(r"TOPIC-0000[1-3]\d\b") is None
        assert table.row_count == 30
        problem = table.set_filter("topic-(")
        assert problem is not None and problem.startswith("not a valid regex")
        assert table.row_count == 30 and table.filter_text == r"TOPIC-0000[1-3]\d\b"
        assert table.set_filter("") is None
        await pilot.pause()
        assert table.row_count == 1000


async def test_sort_cycles_ascending_descending_then_next_column_using_typed_values() -> None:
    data = [Row("a", ("b", "10"), values=("b", 10)), Row("b", ("a", "9"), values=("a", 9))]
    app = TableApp(data)
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(CountingTable)
        await pilot.press("s")
        assert [r.key for r in table.visible_rows()] == ["b", "a"]
        await pilot.press("s")
        assert [r.key for r in table.visible_rows()] == ["a", "b"]
        await pilot.press("s")  # column n ascending: 9 < 10 as numbers, not strings
        assert [r.key for r in table.visible_rows()] == ["b", "a"]
        assert table.sort_description == "n ▲"


async def test_space_marks_rows_and_export_gives_typed_values_of_visible_rows() -> None:
    app = TableApp(rows(10), markable=True)
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(CountingTable)
        await pilot.press("space", "space")
        assert table.marked_keys == ["k0", "k1"]
        table.set_filter("topic-00000[0-1]")
        assert table.export_rows() == [{"name": "topic-000000", "n": 0}, {"name": "topic-000001", "n": 1}]


async def test_enter_and_a_double_click_select_the_row() -> None:
    app = TableApp(rows(10))
    async with app.run_test(size=(60, 10)) as pilot:
        table = app.query_one(CountingTable)
        await pilot.press("down", "enter")
        await pilot.pause()
        await pilot.click(CountingTable, offset=(3, 4))
        await pilot.click(CountingTable, offset=(3, 4), times=2)
        await pilot.pause()
        assert table.current_key == "k3"
        assert app.selected == ["k1", "k3"]
