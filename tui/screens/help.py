"""The help screen (``?``): every binding with its id, keys (after remapping) and where it applies."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from tui.keymap import MUTATION_IDS, BindingInfo
from tui.widgets.filter_bar import FilterBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

HELP_COLUMNS = (
    Column("keys", "keys", max_width=20),
    Column("description", "does", max_width=40),
    Column("where", "where", max_width=20),
    Column("id", "id (for [keys] in the config file)", max_width=40),
)


class HelpScreen(ModalScreen[None]):
    """Lists every binding; ``/`` filters; Esc or ? closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close", id="close_help"),
        Binding("slash", "filter", "Filter", id="filter"),
    ]

    def __init__(self, bindings: list[BindingInfo], read_only: bool = False) -> None:
        """``read_only``: leave out the bindings that change the cluster (and say so)."""
        super().__init__()
        self._catalog = [b for b in bindings if not (read_only and b.id in MUTATION_IDS)]
        self._read_only = read_only

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield from self._content()

    def _content(self) -> ComposeResult:
        yield FilterBar()
        title = "Bindings: remap any of them by id in the config file's [keys] table"
        if self._read_only:
            title += " · read-only: the keys that change the cluster are not listed"
        yield Label(title, id="help-title", markup=False)
        yield VirtualTable(HELP_COLUMNS, id="help-table")

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.set_rows([Row(f"{b.where}:{b.id}", (b.keys, b.description, b.where, b.id)) for b in self._catalog])
        table.focus()

    def action_filter(self) -> None:
        """Open the filter bar."""
        self.query_one(FilterBar).open()

    def on_filter_bar_changed(self, event: FilterBar.Changed) -> None:
        table = self.query_one(VirtualTable)
        event.bar.show_problem(table.set_filter(event.text))
        if event.closed:
            table.focus()

    async def action_dismiss(self, result: None = None) -> None:
        """Close the help."""
        self.dismiss(None)
