"""The console's live link to the cluster: the latest view, the event journal and the status line of one
cluster, and the jobs the app runs in workers for it: connecting (backend callbacks only post a message and
return), deriving a view, and the gate that starts a refresh only after the previous one finished (a slow
cluster slows the refresh; threads never pile up)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from textual.app import App
from textual.message import Message
from textual.screen import Screen

from core.changes.live import FactKind, HealthFact, LiveFact, event_fact
from core.console.moment import MomentBackend
from core.console.protocols import ClusterBackend, ClusterEvent, EventKind
from core.console.view import ClusterView, HealthCounters, ViewBuilder
from core.errors import KzcError
from core.live.events import HealthChanged
from core.zookeeper.session import ConnectionState
from tui.journal import EventJournal
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
from tui.widgets.status_bar import StatusBar, StatusInfo

# Connection states in which the console no longer follows the cluster: what it shows is as of when it left.
DOWN_STATES = frozenset(
    {ConnectionState.SUSPENDED, ConnectionState.LOST, ConnectionState.RECONNECTING, ConnectionState.CLOSED}
)

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


# An event log line: when, text, severity, topic, znode path, and what it states for the timeline.
LogEntry = tuple[int, str, str, str | None, str | None, LiveFact | None]


@dataclass(frozen=True)
class LiveOutcome:
    """What one live message changes: status line fields, an event log line, a notice, a refresh."""

    status: dict[str, Any] = field(default_factory=dict)
    log: LogEntry | None = None
    notice: str | None = None
    refresh: bool = False
    controller_moved: bool = False
    down: bool = False  # the link stopped following the cluster (the view on screen goes stale)


LiveMessage = BackendConnected | SnapshotUpdated | ConnectFailed | ConnectionChanged | ClusterEventSeen


def health_line(health: HealthCounters) -> tuple[str, str]:
    """The event log's health line and its severity: ``kzc watch``'s ``health: 0 offline, 15
    under-replicated, 0 under min ISR`` (``HealthChanged.describe``, one wording for both)."""
    text = HealthChanged(health.offline, health.under_replicated, health.under_min_isr, (), ()).describe()
    if health.offline or health.under_min_isr:
        return text, "error"
    return text, "warning" if health.under_replicated else "info"


def health_fact(health: HealthCounters) -> LiveFact:
    """What the health line states, for the timeline's bursts."""
    counts = HealthFact(health.offline, health.under_replicated, health.under_min_isr, health.lacking_everywhere)
    return LiveFact(FactKind.HEALTH, health=counts)


def live_outcome(message: LiveMessage, now_ms: int, has_view: bool) -> LiveOutcome:
    """What ``message`` changes in the console (UI thread; pure)."""
    if isinstance(message, BackendConnected):
        return LiveOutcome({"state": ConnectionState.CONNECTED, "note": None}, refresh=True)
    if isinstance(message, SnapshotUpdated):
        return LiveOutcome(refresh=True)
    if isinstance(message, ConnectFailed):
        return LiveOutcome(
            {"state": ConnectionState.CLOSED, "note": "not connected"}, notice=f"cannot connect: {message.reason}"
        )
    if isinstance(message, ConnectionChanged):
        state = message.state
        line = STATE_LINES.get(state) if has_view else None
        log: LogEntry | None = (now_ms, line[0], line[1], None, None, None) if line else None
        status: dict[str, Any] = {"state": state, "note": STATE_NOTES.get(state)}
        if state is ConnectionState.CONNECTED:
            status["down_since_ms"] = None
        return LiveOutcome(status, log=log, down=has_view and state in DOWN_STATES)
    event = message.event
    severity = getattr(event, "severity", "info")
    fact = event_fact(getattr(event, "kind", None), getattr(event, "broker", None))
    log = (event.at_ms, event.describe(), severity, getattr(event, "topic", None), getattr(event, "path", None), fact)
    moved = getattr(event, "kind", None) is EventKind.CONTROLLER_MOVED
    changed = {"last_change": clock_text(event.at_ms), "last_change_ms": event.at_ms}
    return LiveOutcome(changed, log=log, refresh=True, controller_moved=moved)


class LiveLink:
    """The app's link to one cluster: its latest view, event journal and status line, the connection (in a
    worker) and the view refreshes (one at a time). A context switch makes a new link; messages from the
    workers of an older one carry its generation and are dropped.

    Args:
        app: runs the workers, shows the notices and holds the screens.
        backend: the cluster.
        generation: this link's number (one more than the link it replaces).
        now_ms: the app's clock.
    """

    def __init__(self, app: App[Any], backend: ClusterBackend, generation: int, now_ms: Callable[[], int]) -> None:
        self.app = app
        self.backend = backend
        self.generation = generation
        self.now_ms = now_ms
        self.view: ClusterView | None = None
        self.journal = EventJournal()
        self.status_info = StatusInfo(backend.name, ConnectionState.CONNECTING, read_only=backend.read_only)
        self._builder = ViewBuilder()
        self._gate = RefreshGate(self._start_refresh)

    def connect(self) -> None:
        """Connect and take the first snapshot in a worker."""
        job = partial(connect_job, self.backend, self.generation, self.app.post_message)
        self.app.run_worker(job, thread=True, exclusive=True, exit_on_error=False, group="connect")

    def take(self, message: LiveMessage) -> None:
        """Apply a connection change, cluster event or new snapshot (dropped if from an older link)."""
        if message.generation != self.generation:
            return
        now = self.now_ms()
        outcome = live_outcome(message, now, self.view is not None)
        self.journal.controller_moves += outcome.controller_moved
        status = outcome.status
        if outcome.down and self.status_info.down_since_ms is None:
            status = {**status, "down_since_ms": now}
        if status:
            self.set_status(**status)
        if outcome.log:
            self.append_event(*outcome.log)
        if outcome.notice:
            self.app.notify(outcome.notice, severity="error", timeout=30)
        if outcome.refresh:
            self._gate.request()

    def append_event(self, at_ms: int, text: str, severity: str, topic: str | None = None,
                     path: str | None = None, fact: LiveFact | None = None) -> None:  # fmt: skip
        """Add a line to the event log (drawn at once when the cluster screen is up, else when it comes back)."""
        self.journal.append(at_ms, text, severity, topic, path, fact)
        self.draw_screen()

    def _start_refresh(self) -> None:
        backend, now, generation, app = self.backend, self.now_ms(), self.generation, self.app

        def job() -> None:
            try:
                build_view_job(backend, self._builder, now, lambda: app.screen, generation, app.post_message)
            finally:
                app.call_from_thread(self._gate.done)

        app.run_worker(job, thread=True, exit_on_error=False, group="view")

    def take_view(self, message: ViewRefreshed) -> None:
        """Keep a new view, update the status line and draw the active screen (the others draw it when they
        come back). Dropped if from an older link, or if the app is closing (a slow worker finished late)."""
        if message.generation != self.generation or not self.app.screen_stack:
            return
        view = self.view = message.view
        changes: dict[str, Any] = {"controller": view.controller.broker_id, "epoch": view.controller.epoch}
        changes["full_read_ms"] = view.snapshot.full_read_ms
        if self.status_info.state is ConnectionState.CONNECTED:
            changes["note"] = f"{message.loading}…" if message.loading else None
        self.set_status(**changes)
        if message.loading is None:  # counts of a partial first read would be logged as a change
            self._log_health(view)
        for screen in self.app.screen_stack:
            if isinstance(screen, KzcScreen):
                screen.latest_view = view  # drawn when it comes back
        screen = self.app.screen
        if isinstance(screen, KzcScreen):
            try:
                screen.refresh_view(view, message.prepared if message.screen is screen else None)
            except Exception as exc:  # a drawing bug must not take the console down in the middle of an incident
                self.app.notify(f"could not draw {screen.view_name}: {type(exc).__name__}: {exc}", severity="error")

    def _log_health(self, view: ClusterView) -> None:
        health = view.health
        counts = (health.offline, health.under_replicated, health.under_min_isr)
        if counts != self.journal.health:
            self.journal.health = counts
            # At a recorded moment (kzc --at) the counts are the moment's (the view's, which may be older than the
            # moment the backend has moved to): dated then, not now.
            at = view.snapshot.taken_at_ms if isinstance(self.backend, MomentBackend) else self.now_ms()
            self.append_event(at, *health_line(health), fact=health_fact(health))

    def set_status(self, **changes: Any) -> None:
        """Change fields of the status line (and draw it, with what depends on it on the current screen)."""
        self.status_info = replace(self.status_info, **changes)
        self.draw_screen()

    def draw_screen(self) -> None:
        """Draw, as of now, what depends on the clock or on the link on the current screen: its status line,
        ages, the event log, staleness. The app calls it every second and when another screen comes up;
        hidden screens are not drawn (they are drawn when they come back)."""
        if not self.app.screen_stack:  # closing: nothing to draw on
            return
        now, screen = self.now_ms(), self.app.screen
        for bar in screen.query(StatusBar):
            bar.show(self.status_info, now)
        if isinstance(screen, KzcScreen) and screen.is_mounted:
            try:
                screen.show_clock(now, self.status_info)
            except Exception as exc:  # as in take_view: a drawing bug must not take the console down
                self.app.notify(f"could not draw {screen.view_name}: {type(exc).__name__}: {exc}", severity="error")
