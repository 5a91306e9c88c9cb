"""Move everything off a broker: the minimal-movement preview (moves, partitions x brokers grid before and
after, balance), applied after typing the number of partitions, then followed live until every partition
is done and the throttles are gone.

The screen receives what it needs when it is built (the broker and a ``MoveOffActions``); slow work runs in
workers that end in one typed message each; following reschedules itself only after the previous look.
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

from core.console.fixes import MoveOffActions
from core.reassign.plan import ReassignPlan, describe_plan, move_grid
from core.reassign.progress import ReassignProgress
from tui.messages import ChangeFinished
from tui.screens.base import FIELD_BINDINGS
from tui.widgets.form_input import FormInput


class MoveOffScreen(Screen[None]):
    """Preview, confirm, apply and follow "move every replica off broker N"."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_BINDINGS,
        Binding("ctrl+s", "apply", "Apply", priority=True, id="apply"),
        Binding("escape", "close", "Close", id="close"),
    ]

    class PlanMade(Message):
        """The plan is ready."""

        def __init__(self, plan: ReassignPlan) -> None:
            super().__init__()
            self.plan = plan

    class Started(Message):
        """The reassignment was written."""

    class ProgressRead(Message):
        """One look at the moving partitions."""

        def __init__(self, progress: ReassignProgress) -> None:
            super().__init__()
            self.progress = progress

    class Finished(Message):
        """Every partition is done and the throttles are gone."""

        def __init__(self, cleared: list[str]) -> None:
            super().__init__()
            self.cleared = cleared

    def __init__(self, broker_id: int, actions: MoveOffActions, poll_interval: float = 1.0) -> None:
        super().__init__()
        self.broker_id = broker_id
        self.actions = actions
        self.poll_interval = poll_interval
        self.plan: ReassignPlan | None = None
        self.started = False

    def compose(self) -> ComposeResult:
        yield Label(f"Move every replica off broker {self.broker_id}", id="title")
        with VerticalScroll():
            yield Static("planning...", id="preview")
            yield Static("", id="grid")
        yield FormInput(placeholder="throttle in bytes/s (empty: none)", id="throttle")
        yield FormInput(placeholder="type the number of partitions to move, then ctrl+s", id="confirm")
        yield Static("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self._make_plan()

    # ---- workers (blocking calls off the UI thread) ---------------------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="move-off-plan")
    def _make_plan(self) -> None:
        self.post_message(self.PlanMade(self.actions.plan_move_off([self.broker_id])))

    @work(thread=True, exclusive=True, exit_on_error=False, group="move-off-apply")
    def _apply(self, plan: ReassignPlan, throttle: int | None) -> None:
        self.actions.apply(plan, throttle)
        self.post_message(self.Started())

    @work(thread=True, exclusive=True, exit_on_error=False, group="move-off-follow")
    def _look(self, plan: ReassignPlan) -> None:
        progress = self.actions.progress(plan)
        if progress.done:
            self.post_message(self.ProgressRead(progress))
            self.post_message(self.Finished(self.actions.finish(plan)))
        else:
            self.post_message(self.ProgressRead(progress))

    # ---- messages -------------------------------------------------------------------------------------

    @on(PlanMade)
    def _show_plan(self, message: PlanMade) -> None:
        self.plan = message.plan
        self.query_one("#preview", Static).update("\n".join(describe_plan(message.plan)))
        self.query_one("#grid", Static).update("\n".join(move_grid(message.plan)))
        self._status(f"Type {len(message.plan.moves)} and press ctrl+s to start the reassignment.")

    @on(Started)
    def _started(self) -> None:
        self.started = True
        self._status("Started; following every partition...")
        assert self.plan is not None
        moves = len(self.plan.moves)
        text = f"you: reassignment off broker {self.broker_id} started ({moves} partition(s))"
        self.post_message(ChangeFinished(text))
        self._look(self.plan)

    @on(ProgressRead)
    def _progress(self, message: ProgressRead) -> None:
        self.query_one("#grid", Static).update("\n".join(message.progress.describe()))
        if not message.progress.done and self.plan is not None:
            plan = self.plan
            # The next look only after this one arrived: a slow cluster slows the refresh, never piles up.
            if self.poll_interval > 0:
                self.set_timer(self.poll_interval, lambda: self._look(plan))
            else:
                self.call_after_refresh(self._look, plan)

    @on(Finished)
    def _finished(self, message: Finished) -> None:
        removed = " Throttle was removed." if message.cleared else ""
        self._status(f"Done: every partition is on its new replicas.{removed}")
        done = "done; throttle removed" if message.cleared else "done"
        self.post_message(ChangeFinished(f"you: reassignment off broker {self.broker_id} {done}"))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR and event.worker.error is not None:
            self._status(f"Error: {event.worker.error}")
            if event.worker.group == "move-off-apply":
                text = f"you: reassignment off broker {self.broker_id} not started: {event.worker.error}"
                self.post_message(ChangeFinished(text, "error"))

    # ---- actions --------------------------------------------------------------------------------------

    def action_apply(self) -> None:
        if self.plan is None or self.started:
            return
        expected = str(len(self.plan.moves))
        if self.query_one("#confirm", Input).value.strip() != expected:
            self._status(f"Type {expected} (the number of partitions to move) to apply; nothing was changed.")
            return
        text = self.query_one("#throttle", Input).value.strip()
        if text and not text.isdigit():
            self._status("The throttle is a number of bytes per second; nothing was changed.")
            return
        self._status("Starting...")
        self._apply(self.plan, int(text) if text else None)

    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str) -> None:
        self.query_one("#status", Static).update(text)
