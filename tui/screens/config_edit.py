"""Edit config overrides: the current overrides, the change typed as ``KEY=VALUE`` items and keys to delete,
the diff checked as Kafka does (``ctrl+d``), written after typing the entity's name (``ctrl+s``).

``ConfigEditScreen`` edits a topic's (opened from the topic detail with a ``ConfigActions``);
``BrokerConfigEditScreen`` a broker's dynamic configs or the cluster default (opened from the broker screen
with a ``BrokerConfigActions``): the same form, its reads, checks and writes through the broker path
(``core.configs.broker``), secrets never shown.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static
from textual.worker import Worker, WorkerState

from core.configs.broker import BrokerConfigPlan, entity_label, masked, parse_broker_request
from core.configs.plan import ConfigPlan, parse_request
from core.configs.zk import BROKER_DEFAULT, StoredConfig
from core.console.fixes import BrokerConfigActions, ConfigActions
from tui.messages import ChangeFinished
from tui.screens.base import FIELD_BINDINGS, after_typed
from tui.widgets.form_input import FormInput


class EditPlan(Protocol):
    """A checked config diff (``ConfigPlan``, ``BrokerConfigPlan``)."""

    @property
    def changes(self) -> tuple[Any, ...]:
        """The keys that change."""
        ...

    def describe(self) -> list[str]:
        """The diff as lines (secrets masked)."""
        ...


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

        def __init__(self, plan: EditPlan) -> None:
            super().__init__()
            self.plan = plan

    def __init__(self, topic: str, actions: ConfigActions) -> None:
        super().__init__()
        self.topic = topic
        self.actions = actions
        self.plan: EditPlan | None = None
        self._writing: EditPlan | None = None  # the plan being written

    # ---- what is edited: a topic here, a broker in BrokerConfigEditScreen --------------------------------

    @property
    def label(self) -> str:
        """What the title, status and event lines call the entity."""
        return f"topic {self.topic}"

    @property
    def confirmation(self) -> str:
        """What the user types to write."""
        return self.topic

    @property
    def event_topic(self) -> str | None:
        """The topic the event log line links to."""
        return self.topic

    def stored(self) -> StoredConfig:
        """The overrides now (blocks: workers only)."""
        return self.actions.stored(self.topic)

    def make_plan(self, items: list[str], deletes: list[str]) -> EditPlan:
        """The checked diff (blocks: workers only)."""
        return self.actions.plan(parse_request(self.topic, items, deletes))

    def write(self, plan: EditPlan) -> StoredConfig:
        """Write ``plan`` (blocks: workers only)."""
        assert isinstance(plan, ConfigPlan)
        return self.actions.apply(plan)

    def shown_overrides(self, stored: StoredConfig) -> dict[str, str | None]:
        """The overrides as shown."""
        return dict(stored.as_dict())

    def change_text(self, plan: EditPlan) -> str:
        """The changes on one line, for the event log."""
        return ", ".join(line.strip() for line in plan.describe()[1:] if line.strip()[:1] in "+-~")

    # ---- the form --------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Label(f"Config of {self.label}", id="title")
        yield Static("reading...", id="current")
        yield FormInput(placeholder="KEY=VALUE to set (space-separated)", id="set")
        yield FormInput(placeholder="keys to delete (space-separated)", id="delete")
        yield Static("", id="diff")
        yield FormInput(placeholder=f"type {self.confirmation}, then ctrl+s", id="confirm")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._read(written=False)

    @work(thread=True, exclusive=True, exit_on_error=False, group="config-read")
    def _read(self, written: bool) -> None:
        self.post_message(self.Read(self.stored(), written))

    @work(thread=True, exclusive=True, exit_on_error=False, group="config-plan")
    def _plan(self, items: list[str], deletes: list[str]) -> None:
        self.post_message(self.Planned(self.make_plan(items, deletes)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="config-apply")
    def _apply(self, plan: EditPlan) -> None:
        self.post_message(self.Read(self.write(plan), True))

    @on(Read)
    def _show(self, message: Read) -> None:
        overrides = self.shown_overrides(message.stored)
        lines = [f"{k}={v}" for k, v in sorted(overrides.items())] or ["no overrides"]
        self.query_one("#current", Static).update("\n".join(lines))
        if message.written:
            if self._writing is not None:  # one event log line for the change, with its outcome
                text = f"you: config of {self.label} written: {self.change_text(self._writing)}"
                self.post_message(ChangeFinished(text, "info", self.event_topic))
                self._writing = None
            self.plan = None
            self._status("Written.")

    @on(Planned)
    def _planned(self, message: Planned) -> None:
        self.plan = message.plan
        self.query_one("#diff", Static).update("\n".join(message.plan.describe()))
        self._status(f"Type {self.confirmation} and press ctrl+s to write this diff." if message.plan.changes else "")

    @on(Input.Changed, "#set, #delete")
    def _edited(self) -> None:
        self.plan = None  # a new edit needs a new diff before anything is written
        self.query_one("#diff", Static).update("")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self._status(f"Refused: {event.worker.error}")
            if event.worker.group == "config-apply":
                text = f"you: config of {self.label} not written: {event.worker.error}"
                self.post_message(ChangeFinished(text, "error", self.event_topic))

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
        if self.query_one("#confirm", Input).value.strip() != self.confirmation:
            self._status(f"Type {self.confirmation} to write; nothing was written.")
            return
        self._status("Writing...")
        self._writing = self.plan
        self._apply(self.plan)

    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)


class BrokerConfigEditScreen(ConfigEditScreen):
    """The same form for a broker's dynamic configs (``entity``: an id) or the cluster default (``<default>``)."""

    def __init__(self, entity: str, actions: BrokerConfigActions) -> None:
        super().__init__(entity, cast(ConfigActions, None))
        self.entity = entity
        self.broker_actions = actions

    @property
    def label(self) -> str:
        return entity_label(self.entity)

    @property
    def confirmation(self) -> str:
        return "default" if self.entity == BROKER_DEFAULT else self.entity

    @property
    def event_topic(self) -> str | None:
        return None

    def stored(self) -> StoredConfig:
        return self.broker_actions.stored(self.entity)

    def make_plan(self, items: list[str], deletes: list[str]) -> EditPlan:
        return self.broker_actions.plan(parse_broker_request(self.entity, items, deletes))

    def write(self, plan: EditPlan) -> StoredConfig:
        assert isinstance(plan, BrokerConfigPlan)
        return self.broker_actions.apply(plan)

    def shown_overrides(self, stored: StoredConfig) -> dict[str, str | None]:
        return masked(stored.as_dict())
