"""``VirtualTable``: a keyboard-first table that renders only the rows on screen.

Textual's DataTable builds every row up front (3.9 s for 50k rows here); this Line-API widget keeps the
rows as plain tuples and draws only the visible lines, so 200k rows cost what 40 do. It supports a
regex filter, sorting by column, a cursor kept on the same row (by key) across live updates, multi-row
marking, horizontal scrolling, mouse clicks and wheel, and export of what is shown.

It scrolls itself (an offset and a one-column scroll bar it draws) rather than through Textual's
scrolling: a row count that changes with every filter keystroke then never asks for a new layout
(which repaints the whole screen), and a cursor move redraws two lines.

Meaning is a component class per row (``vtable--offline``, ``vtable--under-replicated`` ...): colours
and text styles come from the stylesheet's theme variables, never from here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

MEANINGS = (
    "offline",
    "under-min-isr",
    "under-replicated",
    "pending-deletion",
    "reassigning",
    "unreadable",
    "no-state",
    "non-preferred",
    "dead",
    "existing",
    "error",
    "warning",
    "muted",
    "ok",
)
"""Row meanings the stylesheet knows, most important first (the first one a row has decides its style)."""


@dataclass(frozen=True, slots=True)
class Column:
    """A column: ``key`` names it in exports; ``width`` fixes it (else it fits the widest cell, up to
    ``max_width``); ``align`` is ``left`` or ``right``."""

    key: str
    label: str
    width: int | None = None
    align: str = "left"
    max_width: int = 60


@dataclass(frozen=True, slots=True)
class Row:
    """One row: ``key`` identifies it across updates; ``cells`` are what is shown; ``values`` (same order)
    are what export and sorting use when given; ``meanings`` style it."""

    key: str
    cells: tuple[str, ...]
    meanings: frozenset[str] = frozenset()
    values: tuple[Any, ...] | None = None
    data: Any = field(default=None, compare=False)


def measure_widths(columns: Sequence[Column], rows: Sequence[Row]) -> list[int]:
    """Column widths fitting the header and every cell (capped by ``max_width``); pure, any thread."""
    widths = [c.width if c.width is not None else len(c.label) for c in columns]
    if rows:
        for index, cells in enumerate(zip(*(r.cells for r in rows), strict=False)):
            if index >= len(columns):
                break
            column = columns[index]
            if column.width is None:
                widths[index] = min(max(widths[index], max(map(len, cells))), column.max_width)
    return widths


def search_texts(rows: Sequence[Row]) -> list[str]:
    """What the ``/`` filter searches in each row: its cells one per line, so that ``^`` and ``$`` anchor
    at a cell's start and end and no match spans two cells; pure, any thread."""
    return ["\n".join(r.cells) for r in rows]


@dataclass(frozen=True)
class RowFilter:
    """A parsed ``/`` filter: a case-insensitive regex searched in every cell, or in one column's cells
    (``name:^orders``, k9s style: the column's key or its header label)."""

    text: str
    pattern: re.Pattern[str]
    column: int | None = None


def parse_filter(text: str, columns: Sequence[Column]) -> RowFilter | str:
    """``text`` as a filter on ``columns``, or why it is not one (an invalid regex)."""
    column = None
    head, colon, rest = text.partition(":")
    if colon and head:
        wanted = head.strip().lower()
        column = next((n for n, c in enumerate(columns) if wanted in (c.key.lower(), c.label.lower())), None)
    regex = rest if column is not None else text
    try:
        pattern = re.compile(regex, re.IGNORECASE | re.MULTILINE)
    except re.error as exc:
        return f"not a valid regex: {exc}"
    return RowFilter(text, pattern, column)


class VirtualTable(Widget, can_focus=True):
    """A virtualized table; see the module docstring."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "vtable--header",
        "vtable--cursor",
        "vtable--marked",
        "vtable--empty",
        "vtable--scrollbar",
        "vtable--scrollbar-thumb",
        *(f"vtable--{m}" for m in MEANINGS),
    }

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="cursor_up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="cursor_down"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="page_up"),
        Binding("pagedown,ctrl+f", "page_down", "Page down", show=False, id="page_down"),
        Binding("home", "first", "First row", show=False, id="first_row"),
        Binding("end", "last", "Last row", show=False, id="last_row"),
        Binding("left", "scroll_columns(-8)", "Scroll left", show=False, id="scroll_left"),
        Binding("right", "scroll_columns(8)", "Scroll right", show=False, id="scroll_right"),
        Binding("enter", "select", "Open", id="open"),
        Binding("space", "toggle_mark", "Mark", show=False, id="mark"),
        Binding("s", "cycle_sort", "Sort", show=False, id="sort"),
        Binding("S", "cycle_sort(-1)", "Sort by previous column", show=False, id="sort_back"),
    ]

    DEFAULT_CSS = """
    VirtualTable { height: 1fr; }
    """

    class Selected(Message):
        """Enter (or a second click) on a row."""

        def __init__(self, table: VirtualTable, row: Row) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> VirtualTable:
            """The table the row belongs to."""
            return self.table

    class MarksChanged(Message):
        """A row was marked or unmarked."""

        def __init__(self, table: VirtualTable) -> None:
            super().__init__()
            self.table = table

        @property
        def control(self) -> VirtualTable:
            """The table."""
            return self.table

    class Highlighted(Message):
        """The cursor moved to another row."""

        def __init__(self, table: VirtualTable, row: Row | None) -> None:
            super().__init__()
            self.table = table
            self.row = row

        @property
        def control(self) -> VirtualTable:
            """The table."""
            return self.table

    def __init__(
        self,
        columns: Sequence[Column] = (),
        *,
        empty_text: str = "(nothing to show)",
        markable: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._columns: tuple[Column, ...] = tuple(columns)
        self._rows: list[Row] = []
        self._search: list[str] | None = None
        self._visible: list[int] = []  # indexes into _rows, after filter and sort
        self._position: dict[str, int] | None = None  # row key -> index in _visible, built when first needed
        self._widths: list[int] = [len(c.label) for c in self._columns]
        self._cursor = 0
        self._filter: RowFilter | None = None
        self._sort: tuple[int, bool] | None = None  # (column index, descending)
        self._marked: set[str] = set()
        self._markable = markable
        self._empty_text = empty_text
        self._styles: dict[tuple[frozenset[str], bool, bool], Style] = {}
        self._top = 0  # first visible row (index into _visible)
        self._left = 0  # first visible cell column

    # ---- data ----------------------------------------------------------------------------------------

    @property
    def columns(self) -> tuple[Column, ...]:
        """The columns."""
        return self._columns

    def set_columns(self, columns: Sequence[Column]) -> None:
        """Replace the columns (rows are kept; call ``set_rows`` when their shape changes)."""
        self._columns = tuple(columns)
        self._measure()
        self.refresh()

    def set_rows(
        self, rows: Sequence[Row], *, widths: list[int] | None = None, search: list[str] | None = None
    ) -> None:
        """Replace every row, keeping the cursor on the same key (else the same position).

        ``widths`` (from ``measure_widths``) and ``search`` (from ``search_texts``) may be computed off the UI
        thread for large tables; they are computed here otherwise.
        """
        key = self.current_key
        self._rows = rows if isinstance(rows, list) else list(rows)
        self._search = search
        if self._marked:
            known = {r.key for r in self._rows}
            self._marked &= known
        self._widths = widths if widths is not None else measure_widths(self._columns, self._rows)
        self._apply_view(keep_key=key)

    def update_rows(self, rows: list[Row]) -> bool:
        """``set_rows`` unless every row equals the one shown now (a clock tick whose ages did not change
        redraws nothing); True when the rows were replaced."""
        if rows == self._rows:
            return False
        self.set_rows(rows)
        return True

    @property
    def row_count(self) -> int:
        """Rows after filtering."""
        return len(self._visible)

    @property
    def total_count(self) -> int:
        """Rows before filtering."""
        return len(self._rows)

    @property
    def top_row(self) -> int:
        """The index (among visible rows) of the first row on screen."""
        return self._top

    @property
    def cursor_row(self) -> int:
        """The cursor's index among the visible rows."""
        return self._cursor

    @property
    def current_row(self) -> Row | None:
        """The row under the cursor."""
        if not self._visible:
            return None
        return self._rows[self._visible[self._cursor]]

    @property
    def current_key(self) -> str | None:
        """The key of the row under the cursor."""
        row = self.current_row
        return row.key if row is not None else None

    def visible_rows(self) -> list[Row]:
        """The rows shown (filtered and sorted), top to bottom."""
        return [self._rows[i] for i in self._visible]

    def row_at(self, index: int) -> Row:
        """The ``index``-th visible row."""
        return self._rows[self._visible[index]]

    def move_to_key(self, key: str) -> bool:
        """Put the cursor on the row with ``key``; False when it is not shown."""
        if self._position is None:
            self._position = {self._rows[i].key: n for n, i in enumerate(self._visible)}
        position = self._position.get(key)
        if position is None:
            return False
        self._set_cursor(position)
        return True

    @property
    def empty_text(self) -> str:
        """What the table says when it has no rows."""
        return self._empty_text

    @empty_text.setter
    def empty_text(self, text: str) -> None:
        self._empty_text = text
        self.refresh()

    # ---- filter, sort, marks -------------------------------------------------------------------------

    @property
    def filter_text(self) -> str:
        """The filter in effect (``""`` for none)."""
        return self._filter.text if self._filter is not None else ""

    def set_filter(self, text: str) -> str | None:
        """Show only rows with a cell matching ``text`` (a case-insensitive regex; ``^``/``$`` anchor at a
        cell's start/end), or with ``column:regex`` only that column's cells.

        Returns:
            ``None``, or why ``text`` is not a valid regex (the previous filter then stays).
        """
        if text == self.filter_text:
            return None
        if not text:
            self._filter = None
        else:
            parsed = parse_filter(text, self._columns)
            if isinstance(parsed, str):
                return parsed
            self._filter = parsed
        self._apply_view(keep_key=self.current_key)
        return None

    def action_cycle_sort(self, step: int = 1) -> None:
        """Sort by the next column (``step`` -1: the previous one): ascending, descending, then the next."""
        if not self._columns:
            return
        if self._sort is None:
            self._sort = (0 if step > 0 else len(self._columns) - 1, False)
        else:
            column, descending = self._sort
            self._sort = (column, True) if not descending else ((column + step) % len(self._columns), False)
        self._apply_view(keep_key=self.current_key)

    def sort_by(self, column: int, descending: bool | None = None) -> None:
        """Sort by ``column``: ascending, or descending if it is already sorted ascending (or as ``descending``
        says)."""
        if descending is None:
            descending = self._sort == (column, False)
        self._sort = (column, descending)
        self._apply_view(keep_key=self.current_key)

    @property
    def sort_description(self) -> str:
        """``name ▲`` for the current sort, or ``""``."""
        if self._sort is None:
            return ""
        column, descending = self._sort
        return f"{self._columns[column].label} {'▼' if descending else '▲'}"

    @property
    def marked_keys(self) -> list[str]:
        """Keys of the marked rows, in row order (shown or hidden by the filter)."""
        if not self._marked:
            return []
        return [r.key for r in self._rows if r.key in self._marked]

    @property
    def visible_marked_keys(self) -> list[str]:
        """Keys of the marked rows the filter shows, in row order."""
        if not self._marked:
            return []
        rows = self._rows
        return [rows[i].key for i in sorted(self._visible) if rows[i].key in self._marked]

    def action_toggle_mark(self) -> None:
        """Mark or unmark the current row (for multi-row actions), then move down."""
        if not self._markable:
            return
        key = self.current_key
        if key is None:
            return
        if key in self._marked:
            self._marked.discard(key)
        else:
            self._marked.add(key)
        self._refresh_row(self._cursor)
        self.post_message(self.MarksChanged(self))
        self.action_cursor_down()

    def clear_marks(self) -> None:
        """Unmark every row."""
        self._marked.clear()
        self.refresh()
        self.post_message(self.MarksChanged(self))

    # ---- export --------------------------------------------------------------------------------------

    def export_rows(self) -> list[dict[str, Any]]:
        """The visible rows as dicts keyed by column key (typed values where the row has them)."""
        keys = [c.key for c in self._columns]
        result = []
        for index in self._visible:
            row = self._rows[index]
            values = row.values if row.values is not None else row.cells
            result.append(dict(zip(keys, values, strict=False)))
        return result

    # ---- internals -----------------------------------------------------------------------------------

    def _measure(self) -> None:
        self._widths = measure_widths(self._columns, self._rows)

    def _apply_view(self, keep_key: str | None) -> None:
        indexes: list[int] = list(range(len(self._rows)))
        row_filter = self._filter
        if row_filter is not None and row_filter.column is not None:
            search, column, all_rows = row_filter.pattern.search, row_filter.column, self._rows
            indexes = [i for i in indexes if column < len(all_rows[i].cells) and search(all_rows[i].cells[column])]
        elif row_filter is not None:
            if self._search is None:
                self._search = search_texts(self._rows)
            search = row_filter.pattern.search
            texts = self._search
            indexes = [i for i in indexes if search(texts[i])]
        if self._sort is not None:
            column, descending = self._sort
            rows = self._rows

            def sort_key(i: int) -> tuple[int, Any]:
                row = rows[i]
                value = row.values[column] if row.values is not None and column < len(row.values) else None
                if value is None:  # unknown (``?``): last, whichever the direction
                    cell = row.cells[column] if column < len(row.cells) else ""
                    return (-1 if descending else 2, cell)
                return (0, value) if isinstance(value, int | float) else (1, str(value))

            indexes.sort(key=sort_key, reverse=descending)
        self._visible = indexes
        self._position = None
        position = None
        if keep_key is not None:
            rows = self._rows
            position = next((n for n, i in enumerate(indexes) if rows[i].key == keep_key), None)
        if position is None:
            position = min(self._cursor, max(0, len(indexes) - 1))
        self._cursor = position
        self._top = max(0, min(self._top, len(indexes) - self._page))
        self._scroll_to_cursor()
        # Only an auto-height table changes size with its rows; the big ones never ask for a layout.
        self.refresh(layout=self.styles.height is not None and self.styles.height.is_auto)
        self.post_message(self.Highlighted(self, self.current_row))

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """With ``height: auto``, as tall as header and rows (a small table, e.g. a znode's fields)."""
        return len(self._visible) + 1

    @property
    def _page(self) -> int:
        """Rows that fit under the header."""
        return max(1, self.size.height - 1)

    def _scroll_to_cursor(self) -> bool:
        """Move the offset so the cursor is visible; True when it moved (the caller redraws)."""
        page = self._page
        top = self._top
        if self._cursor < top:
            top = self._cursor
        elif self._cursor >= top + page:
            top = self._cursor - page + 1
        top = max(0, min(top, max(0, len(self._visible) - page)))
        if top == self._top:
            return False
        self._top = top
        return True

    def _set_cursor(self, index: int) -> None:
        if not self._visible:
            return
        index = max(0, min(index, len(self._visible) - 1))
        if index == self._cursor:
            return
        old = self._cursor
        self._cursor = index
        if self._scroll_to_cursor():
            self.refresh()
        else:
            self._refresh_row(old)
            self._refresh_row(index)
            self._refresh_scrollbar()
        self.post_message(self.Highlighted(self, self.current_row))

    def _refresh_row(self, index: int) -> None:
        y = index - self._top + 1
        if 1 <= y < self.size.height:
            self.refresh(Region(0, y, self.size.width, 1))

    def _refresh_scrollbar(self) -> None:
        if self.size.width > 0:
            self.refresh(Region(self.size.width - 1, 1, 1, max(0, self.size.height - 1)))

    def on_resize(self, event: events.Resize) -> None:
        self._scroll_to_cursor()
        self.refresh()

    # ---- actions -------------------------------------------------------------------------------------

    def action_cursor_up(self) -> None:
        """One row up."""
        self._set_cursor(self._cursor - 1)

    def action_cursor_down(self) -> None:
        """One row down."""
        self._set_cursor(self._cursor + 1)

    def action_page_up(self) -> None:
        """One page up."""
        self._page_move(-1)

    def action_page_down(self) -> None:
        """One page down."""
        self._page_move(1)

    def _page_move(self, direction: int) -> None:
        if not self._visible:
            return
        page = self._page
        last = len(self._visible) - 1
        self._cursor = max(0, min(last, self._cursor + direction * page))
        self._top = max(0, min(self._top + direction * page, max(0, len(self._visible) - page)))
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Highlighted(self, self.current_row))

    def action_first(self) -> None:
        """The first row."""
        self._set_cursor(0)

    def action_last(self) -> None:
        """The last row."""
        self._set_cursor(len(self._visible) - 1)

    def action_scroll_columns(self, delta: int) -> None:
        """Scroll sideways by ``delta`` cells."""
        widest = sum(self._widths) + len(self._widths) + 2
        left = max(0, min(self._left + delta, max(0, widest - (self.size.width - 1))))
        if left != self._left:
            self._left = left
            self.refresh()

    def on_mouse_scroll_down(self, event: events.MouseScrollDown) -> None:
        self._scroll_rows(3)
        event.stop()

    def on_mouse_scroll_up(self, event: events.MouseScrollUp) -> None:
        self._scroll_rows(-3)
        event.stop()

    def _scroll_rows(self, delta: int) -> None:
        top = max(0, min(self._top + delta, max(0, len(self._visible) - self._page)))
        if top != self._top:
            self._top = top
            self._cursor = max(top, min(self._cursor, top + self._page - 1))
            self.refresh()
            self.post_message(self.Highlighted(self, self.current_row))

    def action_select(self) -> None:
        """Open the current row."""
        row = self.current_row
        if row is not None:
            self.post_message(self.Selected(self, row))

    def on_click(self, event: events.Click) -> None:
        if event.y < 1:
            self._sort_at(event.x + self._left)
            return
        index = self._top + event.y - 1
        if not 0 <= index < len(self._visible):
            return
        if index == self._cursor and event.chain >= 2:
            self.action_select()
        self._set_cursor(index)

    # ---- rendering -----------------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        """Theme or CSS changed: forget cached styles."""
        self._styles.clear()
        super().notify_style_update()

    def _style(self, meanings: frozenset[str], cursor: bool, marked: bool) -> Style:
        key = (meanings, cursor, marked)
        style = self._styles.get(key)
        if style is None:
            style = self.rich_style
            for meaning in MEANINGS:
                if meaning in meanings:
                    style += self.get_component_rich_style(f"vtable--{meaning}", partial=True)
                    break
            if marked:
                style += self.get_component_rich_style("vtable--marked", partial=True)
            if cursor:
                style += self.get_component_rich_style("vtable--cursor", partial=True)
                if not self.has_focus:
                    style += Style(dim=True)
            self._styles[key] = style
        return style

    def on_focus(self, event: events.Focus) -> None:
        self._styles.clear()
        self._refresh_row(self._cursor)

    def on_blur(self, event: events.Blur) -> None:
        self._styles.clear()
        self._refresh_row(self._cursor)

    def _sort_at(self, x: int) -> None:
        """A click on the header at ``x`` sorts by that column."""
        start = 2
        for index, width in enumerate(self._widths):
            if start <= x < start + width + 1:
                self.sort_by(index)
                return
            start += width + 1

    def _header_text(self) -> str:
        """The labels; the sort column's carries ▲ or ▼ (after it, or in place of its last letter)."""
        labels = [c.label for c in self._columns]
        if self._sort is not None and self._sort[0] < len(labels):
            column, descending = self._sort
            arrow = "▼" if descending else "▲"
            label, width = labels[column], self._widths[column]
            labels[column] = (label + arrow) if len(label) < width else label[: max(0, width - 1)] + arrow
        return self._line_text(labels, "  ")

    def _line_text(self, cells: Sequence[str], prefix: str) -> str:
        parts = []
        for index, column in enumerate(self._columns):
            cell = cells[index] if index < len(cells) else ""
            width = self._widths[index]
            if len(cell) > width:
                cell = cell[: max(0, width - 1)] + "…"
            parts.append(cell.rjust(width) if column.align == "right" else cell.ljust(width))
        return prefix + " ".join(parts)

    def render_line(self, y: int) -> Strip:
        """Draw the header (line 0) or one visible row, with the scroll bar in the last column."""
        width = max(0, self.size.width - 1)
        left = self._left
        if y == 0:
            text = self._header_text()
            style = self.rich_style + self.get_component_rich_style("vtable--header", partial=True)
            return self._crop(text, style, left, width, Segment(" ", style))
        index = self._top + y - 1
        bar = self._scrollbar_cell(y)
        if index >= len(self._visible):
            if index == 0:
                empty = self.rich_style + self.get_component_rich_style("vtable--empty", partial=True)
                return self._crop("  " + self._empty_text, empty, 0, width, bar)
            return Strip([Segment(" " * width, self.rich_style), bar], width + 1)
        row = self._rows[self._visible[index]]
        marked = row.key in self._marked
        prefix = ("● " if marked else "  ") if self._markable else "  "
        text = self._line_text(row.cells, prefix)
        style = self._style(row.meanings, index == self._cursor, marked)
        return self._crop(text, style, left, width, bar)

    def _scrollbar_cell(self, y: int) -> Segment:
        """The scroll bar's cell on line ``y``: a thumb sized and placed by the visible share of rows."""
        total = len(self._visible)
        page = self._page
        if total <= page:
            return Segment(" ", self.rich_style)
        thumb = max(1, page * page // total)
        start = (page - thumb) * self._top // max(1, total - page)
        name = "vtable--scrollbar-thumb" if start <= y - 1 < start + thumb else "vtable--scrollbar"
        return Segment("▐" if name.endswith("thumb") else "│", self.rich_style + self.get_component_rich_style(name))

    def _crop(self, text: str, style: Style, left: int, width: int, bar: Segment) -> Strip:
        visible = text[left : left + width]
        return Strip([Segment(visible.ljust(width), style), bar], width + 1)
