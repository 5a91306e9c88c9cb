"""``KeyBar``: the bottom line listing the keys that work here (what Textual's ``Footer`` shows).

Textual's Footer rebuilds its child widgets whenever the focus moves, which asks for a new layout and
repaints the whole screen (24 KB at 160x48 for one key); this bar is one line of text redrawn only when
the keys it lists change. Keys are shown as remapped by the user's ``[keys]``. The mouse is never
needed: every key here is also in ``?``.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.widget import Widget


class KeyBar(Widget):
    """One line: ``key description`` for every shown binding of the focused chain."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar { height: 1; dock: bottom; }
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
        pairs: list[tuple[str, str]] = []
        for _node, binding, enabled, _tooltip in self.screen.active_bindings.values():
            if not binding.show or not enabled or binding.action in seen or binding.id in self._hide:
                continue
            seen.add(binding.action)
            pairs.append((self.app.get_key_display(binding), binding.description))
        if tuple(pairs) != self._pairs:
            self._pairs = tuple(pairs)
            self.refresh()

    @property
    def shown(self) -> tuple[tuple[str, str], ...]:
        """The (key, description) pairs on the bar."""
        return self._pairs

    def render(self) -> Text:
        """The keys, styled by the stylesheet's component classes."""
        key_style = self.get_component_rich_style("key-bar--key", partial=True)
        text_style = self.get_component_rich_style("key-bar--description", partial=True)
        line = Text(no_wrap=True, overflow="crop")
        for key, description in fit(self._pairs, self.size.width):
            line.append(f" {key} ", key_style)
            line.append(f"{description} ", text_style)
        return line


def fit(pairs: tuple[tuple[str, str], ...], width: int) -> list[tuple[str, str]]:
    """The pairs that fit in ``width``, always ending with Help (``?`` lists everything left out)."""
    help_pairs = [p for p in pairs if p[1] == "Help"]
    others = [p for p in pairs if p[1] != "Help"]
    room = width - sum(len(k) + len(d) + 3 for k, d in help_pairs)
    shown: list[tuple[str, str]] = []
    for key, description in others:
        size = len(key) + len(description) + 3
        if size > room:
            break
        shown.append((key, description))
        room -= size
    return shown + help_pairs
