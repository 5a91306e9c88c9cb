"""The add-partitions screen: the new total (or a manual assignment), and the same preview as create with
the existing partitions dimmed and the metrics before and after; ``ctrl+s`` writes exactly the preview
(version-checked against the topic znode it was computed from)."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Input, Label, Static

from core.console.assignment_preview import assignment_preview
from core.console.protocols import Unsubscribe
from core.console.view import ClusterView
from core.errors import KzcError
from core.snapshot.model import TopicEntry
from core.topics.plan import ExpandPlan, ExpandRequest
from core.topics.progress import online_count
from core.topics.write import planned_writes
from tui.messages import TopicEntryChanged
from tui.screens.base import FIELD_BINDINGS, KzcScreen
from tui.screens.create_topic import TopicWriter
from tui.screens.plan_form import form_field, hide_dry_run, show_dry_run
from tui.widgets.assignment_preview import AssignmentPreviewView
from tui.widgets.form_input import FormInput
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar


class ExpandScreen(KzcScreen):
    """Add partitions to one topic."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_BINDINGS,
        Binding("ctrl+d", "dry_run", "Dry run", priority=True, id="dry_run"),
        Binding("ctrl+s", "submit", "Add partitions", priority=True, id="submit"),
    ]

    def __init__(self, topic: str, admin: TopicWriter, read_only: bool) -> None:
        """``admin``: plans, writes and follows topics; ``read_only``: refuse the write."""
        super().__init__()
        self.topic = topic
        self.admin = admin
        self.read_only = read_only
        self._plan: ExpandPlan | None = None
        self._done = False
        self._target = 0  # partitions once written: followed until all are online
        self._unfollow: Unsubscribe | None = None

    @property
    def view_name(self) -> str:
        """Exports are named after the topic."""
        return f"expand-{self.topic}"

    def compose(self) -> ComposeResult:
        yield StatusBar()
        with Horizontal(id="form-body"):
            with Vertical(id="form"):
                yield Label(f"topic {self.topic}", id="expand-topic")
                yield from form_field("partitions", FormInput(type="integer", id="partitions"))
                yield from form_field(
                    "manual assign", FormInput(placeholder="optional: all partitions, 1:2,2:3,...", id="manual")
                )
                yield Label("", id="plan-problem", classes="problem")
                yield Label("", id="phase")
            with Vertical(id="preview"):
                yield AssignmentPreviewView()
                yield Static("", id="dry-run", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = False  # a blinking cursor is a frame every half second over SSH
        self.query_one("#form").border_title = "Add partitions"
        view = self.latest_view
        entry = view.snapshot.topics.get(self.topic) if view is not None else None
        current = len(entry.partition_ids) if entry is not None else 0
        self.query_one("#partitions", Input).value = str(current + 1 if current else 1)
        self.query_one("#partitions", Input).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Done or read-only: no more writes."""
        if action in ("dry_run", "submit"):
            return not self._done and not self.read_only
        return True

    @on(Input.Changed)
    def _changed(self) -> None:
        if self._done:
            return
        text = self.query_one("#partitions", Input).value.strip()
        total = int(text) if text.isdigit() else 0
        manual = self.query_one("#manual", Input).value.strip() or None
        self.plan(ExpandRequest(self.topic, total, manual))

    class PlanMade(Message):
        """The expand plan, or the problem that stopped it."""

        def __init__(self, plan: ExpandPlan | None, problem: str | None) -> None:
            super().__init__()
            self.plan = plan
            self.problem = problem

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def plan(self, request: ExpandRequest) -> None:
        """Check and compute the new partitions (worker thread)."""
        try:
            plan = self.admin.plan_expand(request)
        except KzcError as exc:
            self.post_message(self.PlanMade(None, str(exc)))
            return
        self.post_message(self.PlanMade(plan, None))

    @on(PlanMade)
    def _on_plan_made(self, message: PlanMade) -> None:
        self._show(message.plan, message.problem)

    def _show(self, plan: ExpandPlan | None, problem: str | None) -> None:
        self._plan = plan
        self.query_one("#plan-problem", Label).update(problem or "")
        self.query_one(AssignmentPreviewView).show(assignment_preview(plan) if plan else None, problem or "")
        self.query_one("#dry-run", Static).remove_class("-shown")

    def action_dry_run(self) -> None:
        """Show exactly what submitting would write or send, without doing it."""
        show_dry_run(self, self._plan)

    def action_submit(self) -> None:
        """Write exactly the preview."""
        if self._plan is None:
            self.notify("nothing to add: fix the form first", severity="warning")
            return
        self.apply(self._plan)

    class PhaseReached(Message):
        """What the apply reached, with its style."""

        def __init__(self, text: str, css_class: str) -> None:
            super().__init__()
            self.text = text
            self.css_class = css_class

    @work(thread=True, exclusive=True, exit_on_error=False, group="apply")
    def apply(self, plan: ExpandPlan) -> None:
        """Write the topic znode (worker thread)."""
        try:
            self.admin.apply_expand(plan)
        except KzcError as exc:
            self.post_message(self.PhaseReached(str(exc), "-error"))
            return
        self._done = True
        self._target = plan.target_partitions
        self.post_message(
            self.PhaseReached(
                f"written: {self.topic} now has {plan.target_partitions} partitions; waiting for the controller to "
                "bring the new ones online…",
                "",
            )
        )

        def changed(entry: TopicEntry | None) -> None:
            self.post_message(TopicEntryChanged(self.topic, entry))

        self._unfollow = self.admin.follow_topic(self.topic, changed)

    @on(PhaseReached)
    def _on_phase_reached(self, message: PhaseReached) -> None:
        self._phase(message.text, message.css_class)

    def on_unmount(self) -> None:
        if self._unfollow is not None:
            self._unfollow()

    @on(TopicEntryChanged)
    def _progress(self, message: TopicEntryChanged) -> None:
        if not self._done or message.entry is None:
            return
        online, total = online_count(message.entry)
        if total >= self._target and online == total:
            self._phase(f"done: {self.topic} has {total} partitions, all online", "-done")
        else:
            self._phase(f"written: {self.topic}: {online} of {total} partitions online…", "")

    def _phase(self, text: str, css_class: str) -> None:
        if self._done:
            hide_dry_run(self)
        phase = self.query_one("#phase", Label)
        phase.update(text)
        phase.set_classes(css_class)
        self.refresh_bindings()

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Keep the preview honest when the topic changes under us."""
        if not self._done and self._plan is not None:
            entry = view.snapshot.topics.get(self.topic)
            if entry is not None and entry.times.version != self._plan.topic_zk_version:
                self._changed()

    def export_payload(self) -> dict[str, Any] | None:
        """The plan as previewed."""
        plan = self._plan
        if plan is None:
            return None
        try:
            writes = [w.to_json() for w in planned_writes(plan)]
        except KzcError as exc:
            writes = [{"error": str(exc)}]
        return {**plan.to_json(), "writes": writes}
