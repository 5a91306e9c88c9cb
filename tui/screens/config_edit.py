"""Edit a topic's config overrides: the current overrides, the change typed as ``KEY=VALUE`` items and keys
to delete, the diff checked as Kafka does (``ctrl+d``), written after typing the topic name (``ctrl+s``).

Opened from the topic detail; it receives the topic and a ``ConfigActions`` when it is built.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static
from textual.worker import Worker, WorkerState

from core.configs.plan import ConfigPlan, parse_request
from core.configs.zk import StoredConfig
from core.console.fixes import ConfigActions
from tui.messages import ChangeFinished
from tui.screens.base import FIELD_BINDINGS, after_typed
from tui.widgets.form_input import FormInput


class ConfigEditScreen(Screen[None]):
    """Diff, confirm and write a topic config change."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_BINDINGS,
        Binding("ctrl+d", "preview", "Diff", priority=True, id="preview"),
        Binding("ctrl+s", "apply", "Apply", priority=True, id="apply"),
        Binding("escape", "close", "Close", id="close"),
    ]

    class Read(Message):
        """The overrides as ZooKeeper holds them (after opening, or after a write)."""

        def __init__(self, stored: StoredConfig, written: bool) -> None:
            super().__init__()
            self.stored = stored
            self.written = written

    class Planned(Message):
        """The checked diff."""

        def __init__(self, plan: ConfigPlan) -> None:
            super().__init__()
            self.plan = plan

    def __init__(self, topic: str, actions: ConfigActions) -> None:
        super().__init__()
        self.topic = topic
        self.actions = actions
        self.plan: ConfigPlan | None = None
        self._writing: ConfigPlan | None = None  # the plan being written

    def compose(self) -> ComposeResult:
        yield Label(f"Config of topic {self.topic}", id="title")
        yield Static("reading...", id="current")
        yield FormInput(placeholder="KEY=VALUE to set (space-separated)", id="set")
        yield FormInput(placeholder="keys to delete (space-separated)", id="delete")
        yield Static("", id="diff")
        yield FormInput(placeholder="type the topic name, then ctrl+s", id="confirm")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._read(written=False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="config-read")
    def _read(self, written: bool) -> None:
        self.post_message(self.Read(self.actions.stored(self.topic), written))

    @work(thread=True, exclusive=True, exit_on_error=False, group="config-plan")
    def _plan(self, items: list[str], deletes: list[str]) -> None:
        self.post_message(self.Planned(self.actions.plan(parse_request(self.topic, items, deletes))))

    @work(thread=True, exclusive=True, exit_on_error=False, group="config-apply")
    def _apply(self, plan: ConfigPlan) -> None:
        self.post_message(self.Read(self.actions.apply(plan), True))

    @on(Read)
    def _show(self, message: Read) -> None:
        overrides = message.stored.as_dict()
        lines = [f"{k}={v}" for k, v in sorted(overrides.items())] or ["no overrides"]
        self.query_one("#current", Static).update("\n".join(lines))
        if message.written:
            if self._writing is not None:  # one event log line for the change, with its outcome
                changes = ", ".join(c.describe().strip() for c in self._writing.changes)
                text = f"you: config of topic {self.topic} written: {changes}"
                self.post_message(ChangeFinished(text, "info", self.topic))
                self._writing = None
            self.plan = None
            self._status("Written.")

    @on(Planned)
    def _planned(self, message: Planned) -> None:
        self.plan = message.plan
        self.query_one("#diff", Static).update("\n".join(message.plan.describe()))
        self._status(f"Type {self.topic} and press ctrl+s to write this diff." if message.plan.changes else "")

    @on(Input.Changed, "#set, #delete")
    def _edited(self) -> None:
        self.plan = None  # a new edit needs a new diff before anything is written
        self.query_one("#diff", Static).update("")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self._status(f"Refused: {event.worker.error}")
            if event.worker.group == "config-apply":
                text = f"you: config of topic {self.topic} not written: {event.worker.error}"
                self.post_message(ChangeFinished(text, "error", self.topic))

    def action_preview(self) -> None:
        """Check the diff once the keys typed before ``ctrl+d`` are in their field (typed ahead, pasted)."""
        after_typed(self, self._preview)

    def _preview(self) -> None:
        items = self.query_one("#set", Input).value.split()
        deletes = self.query_one("#delete", Input).value.split()
        self._status("Checking...")
        self._plan(items, deletes)

    def action_apply(self) -> None:
        """Write the diff once the keys typed before ``ctrl+s`` are in their field."""
        after_typed(self, self._apply_typed)

    def _apply_typed(self) -> None:
        if self.plan is None or not self.plan.changes:
            self._status("Show the diff first (ctrl+d); nothing was written.")
            return
        if self.query_one("#confirm", Input).value.strip() != self.topic:
            self._status(f"Type {self.topic} to write; nothing was written.")
            return
        self._status("Writing...")
        self._writing = self.plan
        self._apply(self.plan)

    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)
