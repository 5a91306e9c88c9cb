"""``StatusBar``: the line at the top of every screen: context, ZooKeeper state, controller, read-only
badge, when the last full read of the cluster finished and the time of the last change seen (with its
age, ticking). States and the badge are CSS classes. Every second it redraws from the app's
``status_info``, so a screen shown again is current at once and ages move."""

from __future__ import annotations

import time
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label

from core.human_time import age_text
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
    last_change_ms: int | None = None  # for the ticking age of the last change
    full_read_ms: int | None = None  # when the last full read of ZooKeeper finished


_STATE_TEXT = {
    ConnectionState.CONNECTING: "connecting",
    ConnectionState.CONNECTED: "connected",
    ConnectionState.SUSPENDED: "suspended",
    ConnectionState.LOST: "lost",
    ConnectionState.RECONNECTING: "lost · reconnecting",
    ConnectionState.CLOSED: "closed",
}


def _set(label: Label, text: str) -> None:
    """Update ``label`` only when its text changes: an update lays the whole screen out again and redraws
    it, which the once-a-second tick would otherwise do on every screen (bytes over SSH, time off keys)."""
    if label.content != text:
        label.update(text)


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
        self._tick()
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        info = getattr(self.app, "status_info", None)
        if isinstance(info, StatusInfo):
            self.show(info)

    def show(self, info: StatusInfo) -> None:
        """Render ``info``."""
        context = info.context if len(info.context) <= 24 else "…" + info.context[-23:]
        _set(self.query_one("#status-context", Label), context)
        zk = self.query_one("#status-zk", Label)
        _set(zk, f"ZK {_STATE_TEXT[info.state]}")
        for state in ConnectionState:
            zk.set_class(state is info.state, f"-{state.value}")
        if info.controller is not None:
            epoch = f" epoch {info.epoch}" if info.epoch is not None else ""
            controller = f"controller {info.controller}{epoch}"
        else:
            controller = "no controller" if info.state is ConnectionState.CONNECTED else ""
        ctrl = self.query_one("#status-controller", Label)
        _set(ctrl, controller)
        ctrl.set_class(info.controller is None and info.state is ConnectionState.CONNECTED, "-missing")
        self.query_one("#status-ro", Label).display = info.read_only
        _set(self.query_one("#status-last", Label), info.note or self._times(info))

    def _times(self, info: StatusInfo) -> str:
        clock = getattr(self.app, "now_ms", None)
        now = clock() if callable(clock) else int(time.time() * 1000)
        parts = []
        if info.full_read_ms is not None:
            parts.append("read " + time.strftime("%H:%M:%S", time.localtime(info.full_read_ms / 1000)))
        if info.last_change:
            age = f" ({age_text(max(0, now - info.last_change_ms) / 1000)} ago)" if info.last_change_ms else ""
            parts.append(f"changed {info.last_change}{age}")
        return " · ".join(parts)
