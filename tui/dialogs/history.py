"""``HistoryDialog``: a partition's ISR history from the history store, as text; Esc closes it."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class HistoryDialog(ModalScreen[None]):
    """The lines of ``kzc history isr`` for one partition (``core.history.isr.partition_history_lines``)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "close", "Close", id="close_history")]
    DEFAULT_CSS = """
    HistoryDialog { align: center middle; }
    HistoryDialog > VerticalScroll { width: 95%; max-width: 140; height: 80%; border: round $primary;
                                     background: $surface; padding: 0 1; }
    """

    def __init__(self, title: str, lines: list[str]) -> None:
        super().__init__()
        self._title = title
        self._lines = lines

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(f"{self._title} (Esc closes)", id="history-title")
            yield Static("\n".join(self._lines), id="history-lines", markup=False)

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)
