"""The console's live link to the cluster (a part of ``KzcApp``): connecting in a worker, connection
states, change events into the event log, and the view refresh that reschedules itself only after the
previous one finished (a slow cluster slows the refresh; threads never pile up)."""

from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import Any

from textual import on, work
from textual.app import App

from core.console.protocols import ClusterBackend, ClusterEvent, EventKind
from core.console.view import ClusterView, ViewBuilder
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
from tui.screens.cluster import ClusterScreen
from tui.widgets.event_log import LogLine, clock_text
from tui.widgets.status_bar import StatusBar, StatusInfo

_STATE_LINES = {
    ConnectionState.SUSPENDED: ("ZooKeeper connection suspended", "warning"),
    ConnectionState.LOST: ("ZooKeeper session lost", "error"),
    ConnectionState.CONNECTED: ("ZooKeeper connected", "info"),
}
_STATE_NOTES = {
    ConnectionState.SUSPENDED: "connection suspended · reconnecting…",
    ConnectionState.RECONNECTING: "session lost · reconnecting…",
}


class LiveUpdates(App[None]):
    """Connection, events and view refresh of ``KzcApp``."""

    backend: ClusterBackend
    view: ClusterView | None
    event_lines: deque[LogLine]
    controller_moves: int
    status_info: StatusInfo
    _builder: ViewBuilder
    _generation: int
    _refresh_pending: bool
    _refreshing: bool
    _seq: int

    def now_ms(self) -> int:
        """Now in epoch milliseconds (``KzcApp`` uses its clock)."""
        raise NotImplementedError

    @work(thread=True, exclusive=True, exit_on_error=False, group="connect")
    def connect_backend(self) -> None:
        """Connect and take the first snapshot (worker thread); ends in one message."""
        generation = self._generation
        backend = self.backend

        def state_changed(state: ConnectionState) -> None:
            self.post_message(ConnectionChanged(state, generation))

        def event_seen(event: ClusterEvent) -> None:
            self.post_message(ClusterEventSeen(event, generation))

        def snapshot_updated() -> None:
            self.post_message(SnapshotUpdated(generation))

        backend.add_state_listener(state_changed)
        backend.add_snapshot_listener(snapshot_updated)
        try:
            backend.connect()
        except KzcError as exc:
            self.post_message(ConnectFailed(str(exc), generation))
            return
        backend.subscribe(event_seen)
        self.post_message(BackendConnected(generation))

    @on(BackendConnected)
    def _connected(self, message: BackendConnected) -> None:
        if message.generation == self._generation:
            self.set_status(state=ConnectionState.CONNECTED, note=None)
            self.request_refresh()

    @on(SnapshotUpdated)
    def _snapshot_updated(self, message: SnapshotUpdated) -> None:
        if message.generation == self._generation:
            self.request_refresh()

    @on(ConnectFailed)
    def _connect_failed(self, message: ConnectFailed) -> None:
        if message.generation == self._generation:
            self.set_status(state=ConnectionState.CLOSED, note="not connected")
            self.notify(f"cannot connect: {message.reason}", severity="error", timeout=30)

    @on(ConnectionChanged)
    def _connection_changed(self, message: ConnectionChanged) -> None:
        if message.generation != self._generation:
            return
        state = message.state
        self.set_status(state=state, note=_STATE_NOTES.get(state))
        if state in _STATE_LINES and self.view is not None:
            text, severity = _STATE_LINES[state]
            self.append_event(self.now_ms(), text, severity)

    @on(ClusterEventSeen)
    def _event_seen(self, message: ClusterEventSeen) -> None:
        if message.generation != self._generation:
            return
        event = message.event
        if getattr(event, "kind", None) is EventKind.CONTROLLER_MOVED:
            self.controller_moves += 1
        severity = getattr(event, "severity", "info")
        self.append_event(
            event.at_ms, event.describe(), severity, getattr(event, "topic", None), getattr(event, "path", None)
        )
        self.set_status(last_change=clock_text(event.at_ms), last_change_ms=event.at_ms)
        self.request_refresh()

    def append_event(
        self, at_ms: int, text: str, severity: str, topic: str | None = None, path: str | None = None
    ) -> None:
        """Add a line to the event log (shown at once if the cluster screen is up)."""
        self._seq += 1
        self.event_lines.append(LogLine(self._seq, at_ms, text, severity, topic, path))
        if isinstance(self.screen, ClusterScreen):
            self.screen.show_events()

    def request_refresh(self) -> None:
        """Derive a new view; while one is being derived, remember to derive another after it."""
        if self._refreshing:
            self._refresh_pending = True
            return
        self._refreshing = True
        self.build_view(self._generation)

    @work(thread=True, exit_on_error=False, group="view")
    def build_view(self, generation: int) -> None:
        """Read the backend's snapshot and derive the view (worker thread)."""
        try:
            view = self._builder.build(self.backend.snapshot(), self.now_ms())
            # Reading the active screen from this thread only picks what to prepare; the UI thread checks
            # that it is still the active one before using the result.
            screen = self.screen
            prepared = screen.prepare(view) if isinstance(screen, KzcScreen) else None
            self.post_message(ViewRefreshed(view, generation, screen, prepared, self.backend.loading()))
        finally:
            self.call_from_thread(self._refresh_done)

    def _refresh_done(self) -> None:
        self._refreshing = False
        if self._refresh_pending:
            self._refresh_pending = False
            self.request_refresh()

    @on(ViewRefreshed)
    def _view_refreshed(self, message: ViewRefreshed) -> None:
        if message.generation != self._generation:
            return
        view = message.view
        self.view = view
        changes: dict[str, Any] = {"controller": view.controller.broker_id, "epoch": view.controller.epoch}
        changes["full_read_ms"] = view.snapshot.full_read_ms
        if self.status_info.state is ConnectionState.CONNECTED:
            changes["note"] = f"{message.loading}…" if message.loading else None
        self.set_status(**changes)
        screen = self.screen
        if isinstance(screen, KzcScreen):
            try:
                screen.refresh_view(view, message.prepared if message.screen is screen else None)
            except Exception as exc:  # a drawing bug must not take the console down in the middle of an incident
                self.notify(f"could not draw {screen.view_name}: {type(exc).__name__}: {exc}", severity="error")

    def set_status(self, **changes: Any) -> None:
        """Change fields of the status line."""
        self.status_info = replace(self.status_info, **changes)
        for bar in self.screen.query(StatusBar):
            bar.show(self.status_info)
