"""``FilterBar``: the ``/`` regex filter of a table screen (k9s style).

Hidden until used, unless built ``pinned``: a pinned bar always holds its line (showing a hint), so
opening it is a focus change, not a new layout that repaints the whole screen. The cursor never
blinks: over SSH a blinking cursor is a frame every half second.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Input


class FilterBar(Input):
    """Typing filters live; Enter keeps the filter and returns to the table; Esc clears it."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "clear", "Clear filter", id="clear_filter"),
        Binding("enter", "keep", "Keep filter", id="keep_filter", show=False),
    ]
    DEFAULT_CSS = """
    FilterBar, FilterBar:focus { height: 1; border: none; padding: 0 1; display: none; }
    FilterBar.-active, FilterBar.-pinned { display: block; }
    """

    class Changed(Message):
        """The filter text changed (``closed``: the bar was left with Enter or Esc)."""

        def __init__(self, bar: FilterBar, text: str, closed: bool) -> None:
            super().__init__()
            self.bar = bar
            self.text = text
            self.closed = closed

        @property
        def control(self) -> FilterBar:
            """The filter bar."""
            return self.bar

    def __init__(self, id: str | None = None, pinned: bool = False) -> None:
        super().__init__(placeholder="/ regex filter (Enter keeps it, Esc clears it)", id=id)
        self.cursor_blink = False
        if pinned:
            self.add_class("-pinned")

    def open(self) -> None:
        """Show the bar and focus it."""
        self.add_class("-active")
        self.focus()

    def show_problem(self, problem: str | None) -> None:
        """Mark the bar when the regex is invalid."""
        self.set_class(problem is not None, "-invalid")
        self.tooltip = problem

    @on(Input.Changed)
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.Changed(self, event.value, closed=False))

    def action_clear(self) -> None:
        """Clear the filter and hide the bar."""
        self.value = ""
        self.remove_class("-active")
        self.post_message(self.Changed(self, "", closed=True))

    def action_keep(self) -> None:
        """Keep the filter; hide the bar if it is empty."""
        if not self.value:
            self.remove_class("-active")
        self.post_message(self.Changed(self, self.value, closed=True))
