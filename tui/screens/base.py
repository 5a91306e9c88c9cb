"""``KzcScreen``: the base of every full screen: status line and footer, the ``/`` filter and ``e`` export
bindings, and the hook through which the app hands the screen each new view of the cluster.

Attributes down, messages up: the app gives each screen what it uses when it builds it and hands it every
new view; the screen posts messages (``tui.messages``) for navigation, exports and results. Screens that
are not visible are not redrawn: the app draws only the active screen and leaves the latest view with the
others (``latest_view``), which a screen that comes back (``ScreenResume``) catches up with once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, ClassVar

from textual import events, on
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen

from core.console.view import ClusterView
from tui.messages import ExportRequested, OpenRequested
from tui.widgets.filter_bar import FilterBar
from tui.widgets.status_bar import StatusInfo
from tui.widgets.virtual_table import VirtualTable

# Forms move between fields with priority bindings. Textual hands a key to the focused widget's queue and
# runs a plain ``tab`` binding only when that widget gets to it, so keys typed right after ``tab`` (a fast
# typist, a paste over SSH) were already queued for the previous field: "12<tab>3" put the 3 there and left
# the next field empty. A priority binding moves the focus before the next key is routed.
FIELD_BINDINGS: list[BindingType] = [
    Binding("tab", "app.focus_next", "Next field", show=False, priority=True, id="next_field"),
    Binding("shift+tab", "app.focus_previous", "Previous field", show=False, priority=True, id="previous_field"),
]


def after_typed(screen: Screen[Any], callback: Callable[[], object]) -> None:
    """Run ``callback`` once the focused field has taken the keys typed before this one.

    A priority binding (``ctrl+d``, ``ctrl+s``) runs as soon as the app reads its key, while the characters
    typed just before it still wait in the focused field's queue: ``retention.ms=1`` then ``ctrl+d`` in one
    burst (a paste, a fast typist, keys held while the screen opened) checked an empty field. The field's
    queue is first in, first out, so a callback queued there runs after those characters.
    """
    (screen.focused or screen).call_later(callback)


# The app acts on a request within a frame or two; past this, held keys go on as if nothing was pending.
HOLD_AT_MOST_S = 1.0


class KzcScreen(Screen[None]):
    """A full screen of the console."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", id="filter"),
        Binding("e", "export", "Export", id="export"),
    ]
    VIEW_NAME: ClassVar[str] = "view"

    def __init__(self) -> None:
        super().__init__()
        self._shown_view: ClusterView | None = None
        self.latest_view: ClusterView | None = None  # set by the app, drawn or not
        self._filtered: VirtualTable | None = None
        self.filter_problem: str | None = None  # why the typed filter is not a valid regex
        self._held_keys: list[tuple[str, str | None]] | None = None  # keys typed while the app opens a screen

    # ---- keys typed while a screen opens -------------------------------------------------------------
    # A screen asks the app for another screen with a message, which reaches the app after the keys already
    # typed: "n" then "orders.dn" in one burst (a paste, a laggy SSH link) ran "d" (delete) and "n" on this
    # screen before the form was up. The app holds those keys here (``hold``) and hands them on once it has
    # acted, so they reach the new screen (or this one again, if the app refused).

    def post_message(self, message: Message) -> bool:
        # Only a request made on the UI thread follows a key (a worker's message is posted from its own thread).
        on_ui_thread = threading.current_thread() is threading.main_thread()
        if isinstance(message, OpenRequested) and self._held_keys is None and on_ui_thread:
            self._held_keys = []
            self.set_timer(HOLD_AT_MOST_S, self.release_keys)  # never a console stuck holding keys
        return super().post_message(message)

    def hold(self, event: events.Key) -> bool:
        """Keep ``event`` (a key on its way to the bindings) while this screen waits for the app; True if kept."""
        if self._held_keys is None:
            return False
        self._held_keys.append((event.key, event.character))
        return True

    def release_keys(self) -> None:
        """The app acted on this screen's request: the keys typed meanwhile go to whatever has focus now
        (after the next refresh, when a pushed screen has mounted and focused its first field)."""
        held, self._held_keys = self._held_keys or [], None
        if held:
            self.app.call_after_refresh(lambda: [self.app.post_message(events.Key(*key)) for key in held])

    @property
    def view_name(self) -> str:
        """How exports of this screen are named."""
        return self.VIEW_NAME

    # ---- live view -----------------------------------------------------------------------------------

    def refresh_view(self, view: ClusterView, prepared: object = None) -> None:
        """Show ``view`` (called by the app while this screen is active)."""
        self.latest_view = view
        if not self.is_mounted:
            return  # pushed but not composed yet: it catches up when it is resumed
        self._shown_view = view
        self.show_view(view, prepared)

    def prepare(self, view: ClusterView) -> object:
        """Derive what ``show_view`` needs from ``view`` OFF the UI thread (called in the view worker);
        must not touch widgets. ``None`` by default: ``show_view`` then derives it itself."""
        return None

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Render the parts of ``view`` this screen shows (``prepared``: what ``prepare`` returned, or None);
        screens override it."""

    def show_clock(self, now_ms: int, link: StatusInfo) -> None:
        """Redraw what depends on the time or on the live link (ages, "stale since"), cheaply: the app calls
        it every second and when this screen becomes current, only while it is current. Nothing by default."""

    def on_screen_resume(self) -> None:
        self.call_after_refresh(self._catch_up)

    def _catch_up(self) -> None:
        view = self.latest_view
        if view is not None and view is not self._shown_view and self.is_current:
            self.refresh_view(view)

    # ---- filter --------------------------------------------------------------------------------------

    def filter_table(self) -> VirtualTable | None:
        """The table ``/`` filters: the focused one, else the first on the screen."""
        focused = self.focused
        if isinstance(focused, VirtualTable):
            return focused
        tables = self.query(VirtualTable)
        return tables.first() if tables else None

    def action_filter(self) -> None:
        """Open the filter bar."""
        bars = self.query(FilterBar)
        if bars:
            self._filtered = self.filter_table()
            bars.first().open()

    @on(FilterBar.Changed)
    def _filter_changed(self, event: FilterBar.Changed) -> None:
        table = self._filtered or self.filter_table()
        if table is None:
            return
        self.filter_problem = table.set_filter(event.text)
        event.bar.show_problem(self.filter_problem)
        if event.closed:
            table.focus()
            if self.filter_problem:
                self.notify(f"filter /{event.text}/ {self.filter_problem}; the previous filter stays",
                            severity="warning", timeout=5)  # fmt: skip
        self.filter_applied(table)

    def filter_applied(self, table: VirtualTable) -> None:
        """Called after the filter of ``table`` changed (e.g. to update a count)."""

    # ---- export --------------------------------------------------------------------------------------

    def export_payload(self) -> dict[str, Any] | None:
        """What ``e`` exports: by default the rows of the focused (or first) table."""
        table = self.filter_table()
        if table is None:
            return None
        return {
            "columns": [c.key for c in table.columns],
            "filter": table.filter_text or None,
            "rows": table.export_rows(),
        }

    def action_export(self) -> None:
        """Export what this screen shows to a JSON file."""
        payload = self.export_payload()
        if payload is None:
            self.notify("nothing to export here", severity="warning")
            return
        self.post_message(ExportRequested(self.view_name, payload))
