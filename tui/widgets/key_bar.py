"""``KeyBar``: the bottom line listing the keys that work here (what Textual's ``Footer`` shows); a second
line when they do not fit in one (80 columns), this screen's own keys first.

Textual's Footer rebuilds its child widgets whenever the focus moves, which asks for a new layout and
repaints the whole screen (24 KB at 160x48 for one key); this bar is text redrawn only when the keys it
lists change (and laid out again only when it needs one line more or less). Keys are shown as remapped by
the user's ``[keys]``. The mouse is never needed: every key here is also in ``?``.
"""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from textual.geometry import Size
from textual.strip import Strip
from textual.widget import Widget


class KeyBar(Widget):
    """One or two lines: ``key description`` for every shown binding of the focused chain, this screen's own
    keys first (so a narrow terminal keeps them), then filter and export, then the keys of every screen."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar { height: auto; max-height: 2; dock: bottom; }
    """

    def __init__(self, hide: frozenset[str] = frozenset()) -> None:
        """``hide``: binding ids not to show (read-only hides the mutations)."""
        super().__init__()
        self._hide = hide
        self._pairs: tuple[tuple[str, str], ...] = ()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: object) -> None:
        seen: set[str] = set()
        ranked: list[tuple[int, tuple[str, str]]] = []
        for node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen or binding.id in self._hide:
                continue
            seen.add(binding.action)
            rank = 2 if node is self.app else 1 if binding.id in COMMON_IDS else 0
            ranked.append((rank, (self.app.get_key_display(binding), binding.description)))
        pairs = tuple(pair for _rank, pair in sorted(ranked, key=lambda item: item[0]))
        if pairs != self._pairs:
            before = len(wrap(self._pairs, self.size.width or 80))
            self._pairs = pairs
            self.refresh(layout=len(wrap(pairs, self.size.width or 80)) != before)

    def on_resize(self) -> None:
        self.refresh(layout=True)

    @property
    def shown(self) -> tuple[tuple[str, str], ...]:
        """The (key, description) pairs on the bar."""
        return self._pairs

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        """One line, or two when the keys do not fit in one."""
        return len(wrap(self._pairs, width))

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the keys, styled by the stylesheet's component classes."""
        lines = wrap(self._pairs, self.size.width)
        if y >= len(lines):
            return Strip.blank(self.size.width, self.rich_style)
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        text_style = self.get_component_rich_style("key-bar--description", partial=True)
        base = self.rich_style
        segments = []
        for key, description in lines[y]:
            segments.append(Segment(f" {key} ", base + key_style))
            segments.append(Segment(f"{description} ", base + text_style))
        return Strip(segments).adjust_cell_length(self.size.width, base)


COMMON_IDS = frozenset({"filter", "export"})  # keys of every list screen: after the screen's own


def _size(pair: tuple[str, str]) -> int:
    return len(pair[0]) + len(pair[1]) + 3


def wrap(pairs: tuple[tuple[str, str], ...], width: int, lines: int = 2) -> list[list[tuple[str, str]]]:
    """The pairs in at most ``lines`` lines of ``width``, in order, the last line ending with Help (``?``
    lists everything left out)."""
    help_pairs = [p for p in pairs if p[1] == "Help"]
    others = [p for p in pairs if p[1] != "Help"]
    result: list[list[tuple[str, str]]] = [[]]
    room = width
    for pair in others:
        if _size(pair) > room:
            if len(result) == lines:
                break
            result.append([])
            room = width
        result[-1].append(pair)
        room -= _size(pair)
    if help_pairs:
        need = sum(_size(p) for p in help_pairs)
        if room < need and len(result) < lines:
            result.append([])
            room = width
        while result[-1] and room < need:
            room += _size(result[-1].pop())
        result[-1].extend(help_pairs)
    return [line for line in result if line] or [[]]


def fit(pairs: tuple[tuple[str, str], ...], width: int) -> list[tuple[str, str]]:
    """The pairs that fit in one line of ``width``, always ending with Help."""
    return wrap(pairs, width, lines=1)[0]
