"""``StatusBar``: the line at the top of every screen: context, ZooKeeper state, controller, read-only
badge, the history store the console records into (``REC DIR``), when the last full read of the cluster
finished and the time of the last change seen, with its age; while the live link is down, since when and
why. States and the badge are CSS classes.

The bar holds no clock and reads nothing from the app: the app shows it ``StatusInfo`` and the time
(``show``) whenever either changes, every second for the current screen, and when a bar is mounted
(``StatusBar.Mounted``, messages up). The right-hand part takes the longest form that fits the width, so
"changed" and its age stay on screen at 80 columns.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Label

from core.human_time import age_text
from core.zookeeper.session import ConnectionState
from tui.widgets.event_log import clock_text
from tui.widgets.text_line import TextLine


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
    down_since_ms: int | None = None  # when the live link stopped following the cluster (None: it follows)
    recording: str | None = None  # the history store the console records into (None: not recording)
    recording_stopped: bool = False  # recording stopped on its own (the disk refused a flush)
    as_of: str | None = None  # a recorded moment (kzc --at): "as of 03:12:00 (recorded)", in place of the live marks

    @property
    def live(self) -> bool:
        """Whether what the console shows follows the cluster now (connected, not in a lost session)."""
        return self.state is ConnectionState.CONNECTED and self.down_since_ms is None


STATE_TEXT = {
    ConnectionState.CONNECTING: "connecting",
    ConnectionState.CONNECTED: "connected",
    ConnectionState.SUSPENDED: "suspended",
    ConnectionState.LOST: "lost",
    ConnectionState.RECONNECTING: "lost · reconnecting",
    ConnectionState.CLOSED: "closed",
}


def ago(now_ms: int, at_ms: int) -> str:
    """``9m 51s`` from ``at_ms`` to ``now_ms`` (never negative)."""
    return age_text(max(0, now_ms - at_ms) / 1000)


def right_texts(info: StatusInfo, now_ms: int) -> list[str]:
    """The forms of the bar's right-hand part, longest first: the bar shows the first that fits."""
    if info.as_of:
        return [info.as_of]
    if info.note:
        if info.down_since_ms is None:
            return [info.note]
        since = ago(now_ms, info.down_since_ms)
        return [f"{info.note} since {clock_text(info.down_since_ms)} ({since})", f"{info.note} {since}", since]
    forms: list[str] = []
    read = f"read {clock_text(info.full_read_ms)}" if info.full_read_ms is not None else None
    if info.last_change:
        age = f" ({ago(now_ms, info.last_change_ms)} ago)" if info.last_change_ms is not None else ""
        changed = f"changed {info.last_change}{age}"
        forms += [f"{read} · {changed}"] if read else []
        forms.append(changed)
        if info.last_change_ms is not None:
            forms += [f"changed {ago(now_ms, info.last_change_ms)} ago", f"chg {ago(now_ms, info.last_change_ms)}"]
    elif read:
        forms.append(read)
    return forms or [""]


def _set(label: Label, text: str) -> None:
    """Update ``label`` only when its text changes: an update lays the whole screen out again and redraws
    it, which the once-a-second tick would otherwise do on every screen (bytes over SSH, time off keys)."""
    if label.content != text:
        label.update(text)


class StatusBar(Horizontal):
    """The status line; the app calls ``show`` whenever something in it changes and every second."""

    DEFAULT_CSS = """
    StatusBar { height: 1; dock: top; }
    StatusBar Label { padding: 0 1 0 0; }
    StatusBar #status-last { width: 1fr; text-align: right; padding: 0 1 0 0; }
    """

    class Mounted(Message):
        """A status bar was mounted and waits for its first ``show``."""

        def __init__(self, bar: StatusBar) -> None:
            super().__init__()
            self.bar = bar

    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[StatusInfo, int] | None = None

    def compose(self) -> ComposeResult:
        yield Label("", id="status-context")
        yield Label("", id="status-zk")
        yield Label("", id="status-controller")
        yield Label("READ-ONLY", id="status-ro")
        yield Label("", id="status-rec")
        yield TextLine(id="status-last")

    def on_mount(self) -> None:
        self.post_message(self.Mounted(self))

    def on_resize(self, _event: events.Resize) -> None:
        if self._shown is not None:
            self.show(*self._shown)

    def show(self, info: StatusInfo, now_ms: int) -> None:
        """Render ``info`` with its ages as of ``now_ms``."""
        self._shown = (info, now_ms)
        if not self.query("#status-last"):
            return  # not composed yet (a screen being pushed): shown again once mounted (``Mounted``)
        context = info.context if len(info.context) <= 24 else "…" + info.context[-23:]
        _set(self.query_one("#status-context", Label), context)
        zk = self.query_one("#status-zk", Label)
        _set(zk, "RECORDED" if info.as_of else f"ZK {STATE_TEXT[info.state]}")
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
        rec = self.query_one("#status-rec", Label)
        rec.display = info.recording is not None
        if info.recording is not None:
            where = info.recording if len(info.recording) <= 24 else "…" + info.recording[-23:]
            _set(rec, f"REC STOPPED {where}" if info.recording_stopped else f"REC {where}")
        rec.set_class(info.recording_stopped, "-missing")
        room = self.size.width - self._used() - 1 if self.size.width else 10_000
        forms = right_texts(info, now_ms)
        last = self.query_one("#status-last", TextLine)
        last.show(next((form for form in forms if len(form) <= room), forms[-1]))
        last.set_class(info.note is not None and info.down_since_ms is not None, "-stale")

    def _used(self) -> int:
        """Columns taken by the labels left of the right-hand part."""
        used = 0
        for label in self.query(Label):
            if label.display:
                used += len(str(label.content)) + label.styles.gutter.width + label.styles.margin.width
        return used
