"""``StatusBar``: the line at the top of every screen: context, ZooKeeper state, controller, read-only
badge, and the time of the last change seen. States and the badge are CSS classes."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from core.zookeeper.session import ConnectionState


@dataclass(frozen=True)
class StatusInfo:
    """What the status line shows."""

    context: str
    state: ConnectionState
    controller: int | None = None
    epoch: int | None = None
    read_only: bool = False
    last_change: str | None = None  # already formatted (local time)
    note: str | None = None  # e.g. "reconnecting…", or why connecting failed


_STATE_TEXT = {
    ConnectionState.CONNECTING: "connecting",
    ConnectionState.CONNECTED: "connected",
    ConnectionState.SUSPENDED: "suspended",
    ConnectionState.LOST: "lost",
    ConnectionState.RECONNECTING: "lost · reconnecting",
    ConnectionState.CLOSED: "closed",
}


class StatusBar(Horizontal):
    """The status line; the app calls ``show`` whenever something in it changes."""

    DEFAULT_CSS = """
    StatusBar { height: 1; dock: top; }
    StatusBar Label { padding: 0 1 0 0; }
    StatusBar #status-last { width: 1fr; text-align: right; }
    """

    def compose(self) -> ComposeResult:
        yield Label("", id="status-context")
        yield Label("", id="status-zk")
        yield Label("", id="status-controller")
        yield Label("READ-ONLY", id="status-ro")
        yield Label("", id="status-last")

    def on_mount(self) -> None:
        info = getattr(self.app, "status_info", None)
        if isinstance(info, StatusInfo):
            self.show(info)

    def show(self, info: StatusInfo) -> None:
        """Render ``info``."""
        context = info.context if len(info.context) <= 24 else "…" + info.context[-23:]
        self.query_one("#status-context", Label).update(context)
        zk = self.query_one("#status-zk", Label)
        zk.update(f"ZK {_STATE_TEXT[info.state]}")
        for state in ConnectionState:
            zk.set_class(state is info.state, f"-{state.value}")
        if info.controller is not None:
            epoch = f" epoch {info.epoch}" if info.epoch is not None else ""
            controller = f"controller {info.controller}{epoch}"
        else:
            controller = "no controller" if info.state is ConnectionState.CONNECTED else ""
        ctrl = self.query_one("#status-controller", Label)
        ctrl.update(controller)
        ctrl.set_class(info.controller is None and info.state is ConnectionState.CONNECTED, "-missing")
        self.query_one("#status-ro", Label).display = info.read_only
        last = info.note or (f"changed {info.last_change}" if info.last_change else "")
        self.query_one("#status-last", Label).update(last)
