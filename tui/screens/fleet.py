"""The fleet screen (``kzc --fleet``, or ``F`` from any cluster screen): one row per context of the config file,
worst first, as ``kzc fleet`` shows them, kept current by the app's poller (``tui.fleet_poll``). A cluster that
stops answering turns ``stale since HH:MM:SS (reason)`` in place, with its last counts. Enter opens that
cluster's console; Esc there comes back here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from core.fleet.board import FleetBoard
from core.fleet.row import FleetRow, FleetTable, details_of
from core.human_time import clock_text
from tui.messages import ClusterOfFleetChosen
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

_TEXT_COLUMNS = {"CONTEXT", "STATE", "CLUSTER ID", "KAFKA", "ZK", "MIGRATION"}
# kzc fleet's columns, what an on-call scans first leftmost (a narrow terminal scrolls to the rest).
_ORDER = ("CONTEXT", "STATE", "BROKERS", "OFFLINE", "URP", "<MIN ISR", "KAFKA", "ZK", "MIGRATION", "LAGGING",
          "TOPICS", "PARTS", "CTRL", "CLUSTER ID")  # fmt: skip
_AT = [FleetTable([]).columns.index(label) for label in _ORDER]
COLUMNS = tuple(
    Column(label.lower().replace(" ", "_"), label, align="left" if label in _TEXT_COLUMNS else "right")
    for label in _ORDER
)


def fleet_row(board: FleetBoard, r: FleetRow) -> Row:
    """A context as a table row: its state as the board says it (stale, with since when), styled by severity."""
    table = FleetTable.cells(r)
    table[1] = board.state_text(r)
    cells = [table[i] for i in _AT]
    meanings = frozenset({"error" if r.severity >= 2 else "warning" if r.severity == 1 else "ok"})
    return Row(r.context, tuple(cells), meanings, None, r)


class FleetScreen(KzcScreen):
    """Every context's cluster, worst first."""

    VIEW_NAME = "fleet"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "read_again", "Read again", id="fleet_read_again")]

    def __init__(self, board: FleetBoard, contexts: int, read_again: Callable[[], None]) -> None:
        """``board``: the poller's rows (drawn as they come); ``contexts``: how many are read; ``read_again``
        starts a round now (unless one runs)."""
        super().__init__()
        self._board = board
        self._contexts = contexts
        self._read_again = read_again
        self._follow_top = True  # the cursor stays on the worst row until the user moves it

    def action_read_again(self) -> None:
        """``r``: read every context now rather than at the next round."""
        self._read_again()

    def compose(self) -> ComposeResult:
        yield Static("", id="fleet-title")
        yield FilterBar()
        yield VirtualTable(COLUMNS, empty_text="reading every context…", id="fleet-rows", classes="panel")
        yield Static("", id="fleet-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#fleet-rows").border_title = "Fleet: every context, worst first (Enter opens one)"
        self.query_one("#fleet-detail").border_title = "Why"
        self.query_one("#fleet-rows", VirtualTable).focus()
        self._draw()

    def show_fleet(self, board: FleetBoard) -> None:
        """Draw the board as it is now (UI thread)."""
        self._board = board
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        rows = self._board.rows()
        table = self.query_one("#fleet-rows", VirtualTable)
        table.update_rows([fleet_row(self._board, r) for r in rows])
        if self._follow_top and rows:
            table.move_to_key(rows[0].context)
        counts = {
            label: sum(1 for r in rows if r.severity == level)
            for level, label in ((0, "ok"), (1, "degraded"), (2, "down or unreadable"))
        }
        read = max((r.at_ms for r in rows), default=0)
        title = f"{len(rows)} of {self._contexts} context(s) read · " + " · ".join(
            f"{n} {k}" for k, n in counts.items()
        )
        self.query_one("#fleet-title", Static).update(title + (f" · latest row {clock_text(read)}" if read else ""))
        self._detail(table.current_row)

    @on(VirtualTable.Highlighted, "#fleet-rows")
    def _highlighted(self, event: VirtualTable.Highlighted) -> None:
        table = event.table
        if event.row is not None and event.row.key == table.current_key and table.cursor_row != 0:
            self._follow_top = False  # the user chose a row (a redraw's own move is to the top, or stale)
        self._detail(table.current_row)

    def _detail(self, row: Row | None) -> None:
        r = row.data if row is not None else None
        text = ""
        if isinstance(r, FleetRow):
            said = details_of(r)
            text = "\n".join([f"{r.context} ({r.zookeeper or 'no ZooKeeper'})", *said] if said else [r.context])
        self.query_one("#fleet-detail", Static).update(text)

    @on(VirtualTable.Selected, "#fleet-rows")
    def _selected(self, event: VirtualTable.Selected) -> None:
        self.post_message(ClusterOfFleetChosen(event.row.key))

    def export_payload(self) -> dict[str, Any] | None:
        """The rows as ``kzc fleet --json`` prints them."""
        return {"clusters": [r.to_json() for r in self._board.rows()]}
