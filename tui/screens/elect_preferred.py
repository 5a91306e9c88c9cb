"""Preferred leader election: the partitions that would be sent and those skipped with why, the request as a
dry run (``ctrl+d``), sent after typing their number (``ctrl+s``), then followed until each has its preferred
leader (or says why not). The outcome is one line of the event log (``ChangeFinished``).

Opened from the health panel's leader imbalance (every topic) or from a topic; it receives the topic (or
None) and an ``ElectionActions`` when it is built. The confirmation field has the focus from the start, so
what is typed while the plan is read lands in it; ``ctrl+s`` reads it after the keys typed before it.
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
from core.elections.ops import planned_writes
from core.elections.plan import ALREADY, Candidate, PreferredPlan
from core.errors import KzcError
from core.topics.write import describe_writes
from tui.messages import ChangeFinished
from tui.screens.base import after_typed
from tui.widgets.form_input import FormInput


class ElectPreferredScreen(Screen[None]):
    """Preview, dry-run, confirm, send and follow a preferred leader election."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+d", "dry_run", "Dry run", priority=True, id="dry_run"),
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
        self._logged = False  # the outcome's event log line was posted

    @property
    def where(self) -> str:
        """``topic orders`` or ``every topic``."""
        return f"topic {self.topic}" if self.topic else "every topic"

    def compose(self) -> ComposeResult:
        yield Label(f"Preferred leader election: {self.where}", id="title")
        with VerticalScroll():
            yield Static("planning...", id="preview", markup=False)
            yield Static("", id="dry-run", markup=False)
        yield FormInput(placeholder="type the number of partitions to elect, then ctrl+s", id="confirm")
        yield Static("", id="status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#confirm", Input).focus()  # keys typed while the plan is read go to the field
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
            self._status(f"Type {len(message.plan.sent)} and press ctrl+s to elect; ctrl+d shows the request.")
        else:
            self.query_one("#confirm", Input).display = False  # nothing to confirm
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
        if not self._logged:  # the first look follows the send: its outcome is the log line
            self._logged = True
            failed = f", {len(message.errors)} refused" if message.errors else ""
            text = (
                f"you: preferred leader election of {self.where}: {len(message.candidates)} partition(s) sent"
                f"{failed}, {elected} led by their preferred replica"
            )
            self.post_message(ChangeFinished(text, "warning" if message.errors else "info", self.topic))
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
        if event.state != WorkerState.ERROR or event.worker.error is None:
            return
        error = event.worker.error
        if event.worker.group == "elect-plan":
            self.query_one("#preview", Static).update("")  # no plan: nothing to preview nor to confirm
            self.query_one("#confirm", Input).display = False
        elif event.worker.group == "elect-send":
            text = f"you: preferred leader election of {self.where}: not sent: {error}"
            self.post_message(ChangeFinished(text, "error", self.topic))
            self._logged = True
        self._status(f"Error: {error}")

    def action_dry_run(self) -> None:
        """Show the request the election would send (the znode or ElectLeaders), without sending it."""
        if self.plan is None or not self.plan.sent:
            self._status("Nothing to dry-run: no partition would be sent.")
            return
        try:
            lines = describe_writes(planned_writes(self.plan))
        except KzcError as exc:
            lines = [f"DRY RUN: {exc}"]
        dry = self.query_one("#dry-run", Static)
        dry.update("\n".join(lines))
        dry.add_class("-shown")

    def action_apply(self) -> None:
        """Send the election once the keys typed before ``ctrl+s`` are in the field."""
        after_typed(self, self._apply)

    def _apply(self) -> None:
        if self.plan is None:  # never sent unseen: the number typed must match a preview the user has read
            self._status("Still planning: press ctrl+s again once the preview is shown; nothing was sent.")
            return
        if self.sent or not self.plan.sent:
            return
        expected = str(len(self.plan.sent))
        if self.query_one("#confirm", Input).value.strip() != expected:
            self._status(f"Type {expected} (the number of partitions) to elect; nothing was sent.")
            return
        self.sent = True
        self.query_one("#dry-run", Static).remove_class("-shown")  # it described what was to come
        self._status("Sending...")
        self._send(self.plan)

    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)
