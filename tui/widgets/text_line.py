"""``TextLine``: one line of text that changes often (counts, phases) without costing a relayout.

``Label.update`` asks for a new layout, which repaints the whole screen; a line whose size never changes
only needs its own cells redrawn, so a keystroke that changes a count sends one line, not a screen.
"""

from __future__ import annotations

from textual.widget import Widget


class TextLine(Widget):
    """A fixed one-line widget (``height: 1``) whose text is set with ``show``."""

    DEFAULT_CSS = """
    TextLine { height: 1; width: 1fr; }
    """

    def __init__(self, text: str = "", *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._text = text

    @property
    def text(self) -> str:
        """The text shown."""
        return self._text

    def show(self, text: str) -> None:
        """Show ``text`` (nothing is redrawn when it is the same)."""
        if text != self._text:
            self._text = text
            self.refresh()

    def render(self) -> str:
        """The text, never markup."""
        return self._text
