"""Preferred leader election: the partitions that would be sent and those skipped with why, sent after
typing their number, then followed until each has its preferred leader (or says why not).

Opened from the health panel's leader imbalance (every topic) or from a topic; it receives the topic (or
None) and an ``ElectionActions`` when it is built.
"""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Static
from textual.worker import Worker, WorkerState

from core.console.fixes import ElectionActions
from core.elections.plan import ALREADY, Candidate, PreferredPlan
from tui.widgets.form_input import FormInput


class ElectPreferredScreen(Screen[None]):
    """Preview, confirm, send and follow a preferred leader election."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "apply", "Elect", priority=True, id="apply"),
        Binding("escape", "close", "Close", id="close"),
    ]

    class PlanMade(Message):
        """The election plan is ready."""

        def __init__(self, plan: PreferredPlan) -> None:
            super().__init__()
            self.plan = plan

    class Looked(Message):
        """One look at the sent partitions after the election was sent."""

        def __init__(self, candidates: list[Candidate], errors: dict[str, str]) -> None:
            super().__init__()
            self.candidates = candidates
            self.errors = errors

    def __init__(self, topic: str | None, actions: ElectionActions, poll_interval: float = 0.5) -> None:
        super().__init__()
        self.topic = topic
        self.actions = actions
        self.poll_interval = poll_interval
        self.plan: PreferredPlan | None = None
        self.sent = False
        self.errors: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        where = f"topic {self.topic}" if self.topic else "every topic"
        yield Label(f"Preferred leader election: {where}", id="title")
        with VerticalScroll():
            yield Static("planning...", id="preview")
        yield FormInput(placeholder="type the number of partitions to elect, then ctrl+s", id="confirm")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._make_plan()

    @work(thread=True, exclusive=True, exit_on_error=False, group="elect-plan")
    def _make_plan(self) -> None:
        self.post_message(self.PlanMade(self.actions.plan_preferred(self.topic)))

    @work(thread=True, exclusive=True, exit_on_error=False, group="elect-send")
    def _send(self, plan: PreferredPlan) -> None:
        outcome = self.actions.apply_preferred(plan)
        errors = {f"{t}-{p}": e for (t, p), e in outcome.items() if e is not None}
        self.post_message(self.Looked(self.actions.look(plan), errors))

    @work(thread=True, exclusive=True, exit_on_error=False, group="elect-look")
    def _look(self, plan: PreferredPlan) -> None:
        self.post_message(self.Looked(self.actions.look(plan), self.errors))

    @on(PlanMade)
    def _show_plan(self, message: PlanMade) -> None:
        self.plan = message.plan
        self.query_one("#preview", Static).update("\n".join(message.plan.describe()))
        if message.plan.sent:
            self._status(f"Type {len(message.plan.sent)} and press ctrl+s to elect.")
        else:
            self._status("Nothing to elect.")

    @on(Looked)
    def _looked(self, message: Looked) -> None:
        self.errors = message.errors
        settled = [c for c in message.candidates if c.skipped is not None]
        elected = sum(1 for c in settled if c.skipped == ALREADY)
        lines = [f"{elected}/{len(message.candidates)} partitions led by their preferred replica"]
        lines += [f"  {c.topic}-{c.partition}: not elected: {c.skipped}" for c in settled if c.skipped != ALREADY]
        lines += [f"  {name}: {error}" for name, error in message.errors.items()]
        self.query_one("#preview", Static).update("\n".join(lines))
        if len(settled) == len(message.candidates):
            self._status("Done.")
        elif self.plan is not None:
            plan = self.plan
            # The next look only after this one arrived.
            if self.poll_interval > 0:
                self.set_timer(self.poll_interval, lambda: self._look(plan))
            else:
                self.call_after_refresh(self._look, plan)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self._status(f"Error: {event.worker.error}")

    def action_apply(self) -> None:
        if self.plan is None or self.sent or not self.plan.sent:
            return
        expected = str(len(self.plan.sent))
        if self.query_one("#confirm", Input).value.strip() != expected:
            self._status(f"Type {expected} (the number of partitions) to elect; nothing was sent.")
            return
        self.sent = True
        self._status("Sending...")
        self._send(self.plan)

    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)
