"""The baseline of the console's table benchmark: Textual's built-in ``DataTable`` holding the same topic
rows (name, partitions, rf, ...) as the console's topics screen, run through the same pty driver.

Run as ``python benchmarks/tui_datatable_app.py 50000``.
"""

from __future__ import annotations

import sys

from textual.app import App, ComposeResult
from textual.widgets import DataTable, Footer


class DataTableApp(App[None]):
    """One DataTable with ``rows`` topic-like rows, loaded after the first frame."""

    def __init__(self, rows: int) -> None:
        super().__init__()
        self.animation_level = "none"  # same condition as the console: no smooth scrolling
        self.rows = rows

    def compose(self) -> ComposeResult:
        yield DataTable(id="table")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("topic", "parts", "rf", "urp", "offline", "<minisr", "deleting", "cfg", "health")
        table.focus()
        self.call_after_refresh(self.load)

    def load(self) -> None:
        table = self.query_one(DataTable)
        table.add_rows((f"orders.payments-{i:05d}", "4", "3", "", "", "", "", "", "ok") for i in range(self.rows))


if __name__ == "__main__":
    DataTableApp(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000).run()
