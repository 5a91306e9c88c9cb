"""The console's live link to the cluster, as plain jobs the app runs in workers: connecting (backend
callbacks only post a message and return), deriving a view, and the gate that starts a refresh only after
the previous one finished (a slow cluster slows the refresh; threads never pile up)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from textual.message import Message
from textual.screen import Screen

from core.console.protocols import ClusterBackend, ClusterEvent, EventKind
from core.console.view import ViewBuilder
from core.errors import KzcError
from core.zookeeper.session import ConnectionState
from tui.messages import (
    BackendConnected,
    ClusterEventSeen,
    ConnectFailed,
    ConnectionChanged,
    SnapshotUpdated,
    ViewRefreshed,
)
from tui.screens.base import KzcScreen
from tui.widgets.event_log import clock_text

Post = Callable[[Message], object]

# What the event log says when the connection changes, and the status line's note meanwhile.
STATE_LINES = {
    ConnectionState.SUSPENDED: ("ZooKeeper connection suspended", "warning"),
    ConnectionState.LOST: ("ZooKeeper session lost", "error"),
    ConnectionState.CONNECTED: ("ZooKeeper connected", "info"),
}
STATE_NOTES = {
    ConnectionState.SUSPENDED: "connection suspended · reconnecting…",
    ConnectionState.RECONNECTING: "session lost · reconnecting…",
}


def connect_job(backend: ClusterBackend, generation: int, post: Post) -> None:
    """Connect and take the first snapshot (worker thread); ends in one message."""

    def state_changed(state: ConnectionState) -> None:
        post(ConnectionChanged(state, generation))

    def event_seen(event: ClusterEvent) -> None:
        post(ClusterEventSeen(event, generation))

    def snapshot_updated() -> None:
        post(SnapshotUpdated(generation))

    backend.add_state_listener(state_changed)
    backend.add_snapshot_listener(snapshot_updated)
    try:
        backend.connect()
    except KzcError as exc:
        post(ConnectFailed(str(exc), generation))
        return
    backend.subscribe(event_seen)
    post(BackendConnected(generation))


def build_view_job(
    backend: ClusterBackend,
    builder: ViewBuilder,
    now_ms: int,
    active_screen: Callable[[], Screen[object]],
    generation: int,
    post: Post,
) -> None:
    """Read the backend's snapshot and derive the view, and what the active screen prepares from it (worker
    thread); ends in one ``ViewRefreshed``."""
    view = builder.build(backend.snapshot(), now_ms)
    # Reading the active screen from this thread only picks what to prepare; the UI thread checks that it is
    # still the active one before using the result.
    screen = active_screen()
    prepared = screen.prepare(view) if isinstance(screen, KzcScreen) else None
    post(ViewRefreshed(view, generation, screen, prepared, backend.loading()))


class RefreshGate:
    """At most one view refresh at a time; a request during one is remembered and runs once after it."""

    def __init__(self, start: Callable[[], None]) -> None:
        self._start = start
        self._running = self._pending = False

    def request(self) -> None:
        """Refresh now, or right after the running refresh."""
        if self._running:
            self._pending = True
            return
        self._running = True
        self._start()

    def done(self) -> None:
        """The running refresh finished (UI thread)."""
        self._running = False
        if self._pending:
            self._pending = False
            self.request()


@dataclass(frozen=True)
class LiveOutcome:
    """What one live message changes: status line fields, an event log line, a notice, a refresh."""

    status: dict[str, Any] = field(default_factory=dict)
    log: tuple[int, str, str, str | None, str | None] | None = None
    notice: str | None = None
    refresh: bool = False
    controller_moved: bool = False


LiveMessage = BackendConnected | SnapshotUpdated | ConnectFailed | ConnectionChanged | ClusterEventSeen


def live_outcome(message: LiveMessage, now_ms: int, has_view: bool) -> LiveOutcome:
    """What ``message`` changes in the console (UI thread; pure)."""
    if isinstance(message, BackendConnected):
        return LiveOutcome({"state": ConnectionState.CONNECTED, "note": None}, refresh=True)
    if isinstance(message, SnapshotUpdated):
        return LiveOutcome(refresh=True)
    if isinstance(message, ConnectFailed):
        return LiveOutcome({"state": ConnectionState.CLOSED, "note": "not connected"},
                           notice=f"cannot connect: {message.reason}")  # fmt: skip
    if isinstance(message, ConnectionChanged):
        state = message.state
        line = STATE_LINES.get(state) if has_view else None
        log = (now_ms, line[0], line[1], None, None) if line else None
        return LiveOutcome({"state": state, "note": STATE_NOTES.get(state)}, log=log)
    event = message.event
    severity = getattr(event, "severity", "info")
    log = (event.at_ms, event.describe(), severity, getattr(event, "topic", None), getattr(event, "path", None))
    moved = getattr(event, "kind", None) is EventKind.CONTROLLER_MOVED
    status = {"last_change": clock_text(event.at_ms), "last_change_ms": event.at_ms}
    return LiveOutcome(status, log=log, refresh=True, controller_moved=moved)
