"""The delete screen: what will be deleted (one topic, a marked selection or a regex), what would hold each
deletion now, the guards' warnings, a typed confirmation (the name, or the count for several), then the
controller's progress as ZooKeeper shows it (marker queued, partitions offline, replicas removed, znodes
gone) or why it is stuck."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from core.console.protocols import DeletionStage, TopicAdmin
from core.console.view import ClusterView, deletion_status
from core.errors import KzcError
from core.topics.plan import DeletePlan, DeleteRequest
from tui.screens.base import KzcScreen
from tui.widgets.form_input import FormInput
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

LIST_COLUMNS = (
    Column("topic", "topic", max_width=80),
    Column("partitions", "parts", align="right"),
    Column("stage", "stage"),
    Column("detail", "detail / why stuck", max_width=200),
)
STAGE_TEXT = {
    DeletionStage.NOT_QUEUED: "to delete",
    DeletionStage.QUEUED: "1/4 marker queued",
    DeletionStage.PARTITIONS_OFFLINE: "2/4 partitions offline",
    DeletionStage.REPLICAS_REMOVED: "3/4 replicas removed",
    DeletionStage.GONE: "4/4 znodes gone",
}


class DeleteScreen(KzcScreen):
    """Delete topics after a typed confirmation, then follow the deletion."""

    VIEW_NAME = "delete"
    BINDINGS: ClassVar[list[BindingType]] = []

    def __init__(
        self, selection: DeleteRequest, admin: TopicAdmin, clock_ms: Callable[[], int], hidden: int = 0
    ) -> None:
        """``admin``: plans and queues deletions; ``clock_ms``: now in epoch ms (for ages); ``hidden``: marked
        topics the filter hid, left out of ``selection`` (the confirmation says so)."""
        super().__init__()
        self.hidden = hidden
        self.selection = selection
        self.admin = admin
        self.clock_ms = clock_ms
        self._plan: DeletePlan | None = None
        self._applied = False
        self._seen_queued: set[str] = set()  # topics whose marker this screen has seen

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield Label("resolving the selection…", id="phase")
        yield VirtualTable(LIST_COLUMNS, empty_text="nothing selected", id="delete-list")
        yield Label("", id="delete-notes")
        with Horizontal(id="confirm-row"):
            yield Label("", id="confirm-prompt")
            yield FormInput(id="confirm", disabled=True)
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#confirm", Input).cursor_blink = False  # no frame every half second over SSH
        self.query_one("#delete-list").border_title = "Topics to delete"
        self.plan()

    class PlanFailed(Message):
        """Nothing to delete: why."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class PlanMade(Message):
        """The delete plan."""

        def __init__(self, plan: DeletePlan) -> None:
            super().__init__()
            self.plan = plan

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def plan(self) -> None:
        """Resolve the selection and the guards (worker thread)."""
        try:
            plan = self.admin.plan_delete(self.selection)
        except KzcError as exc:
            self.post_message(self.PlanFailed(str(exc)))
            return
        self.post_message(self.PlanMade(plan))

    @on(PlanMade)
    def _on_plan_made(self, message: PlanMade) -> None:
        self._show_plan(message.plan)

    @on(PlanFailed)
    def _on_plan_failed(self, message: PlanFailed) -> None:
        self._phase(f"nothing to delete: {message.reason}", "-error")

    def _phase(self, text: str, css_class: str = "") -> None:
        phase = self.query_one("#phase", Label)
        phase.update(text)
        phase.set_classes(css_class)

    def _show_plan(self, plan: DeletePlan) -> None:
        self._plan = plan
        notes = list(plan.warnings)
        if self.hidden:
            notes.insert(0, f"{self.hidden} marked topic(s) hidden by the filter are NOT included")
        if plan.blocked:
            notes.insert(0, plan.blocked)
        self.query_one("#delete-notes", Label).update("\n".join(notes))
        self._render_rows()
        if not plan.topics or plan.blocked:
            self._phase(plan.blocked or "nothing to delete", "-error")
            return
        what = plan.topics[0] if len(plan.topics) == 1 else f"{len(plan.topics)} topics"
        self._phase(f"delete {what}? This cannot be undone.", "-stuck")
        prompt = "type the topic name to confirm:" if len(plan.topics) == 1 else "type the number of topics to confirm:"
        self.query_one("#confirm-prompt", Label).update(prompt)
        confirm = self.query_one("#confirm", Input)
        confirm.disabled = False
        confirm.placeholder = plan.confirmation
        confirm.focus()

    def _render_rows(self) -> None:
        plan = self._plan
        view = self.latest_view
        if plan is None or view is None:
            return
        now = self.clock_ms()
        rows = []
        for topic in plan.topics:
            entry = view.snapshot.topics.get(topic)
            parts = str(len(entry.partition_ids)) if entry is not None else "-"
            status = deletion_status(view.snapshot, topic, now)
            if not self._applied:
                held = dict(plan.obstacles).get(topic, ())
                detail = ("would be held now: " + "; ".join(held)) if held else ""
                stage, meanings = "to delete", frozenset({"pending-deletion"})
            else:
                if status.stage is not DeletionStage.NOT_QUEUED:
                    self._seen_queued.add(topic)
                stage = STAGE_TEXT[status.stage]
                # Every blocker, then the stage and the replicas as the controller holds them.
                detail = f"{status.stuck} · {status.detail}" if status.stuck else status.detail
                meanings = (
                    frozenset({"warning"})
                    if status.stuck
                    else (frozenset({"ok"}) if status.stage is DeletionStage.GONE else frozenset({"pending-deletion"}))
                )
                if status.stage is DeletionStage.NOT_QUEUED and topic not in self._seen_queued:
                    stage, detail, meanings = (
                        "writing",
                        "waiting for the marker to show",
                        frozenset({"pending-deletion"}),
                    )
                elif status.stage is DeletionStage.NOT_QUEUED:
                    stage, detail = (
                        "marker removed",
                        "the controller removed the marker but the topic remains: delete.topic.enable=false?",
                    )
                    meanings = frozenset({"error"})
            rows.append(Row(topic, (topic, parts, stage, detail), meanings, (topic, parts, stage, detail)))
        self.query_one("#delete-list", VirtualTable).set_rows(rows)
        if self._applied:
            statuses = [deletion_status(view.snapshot, t, now) for t in plan.topics]
            gone = sum(1 for s in statuses if s.stage is DeletionStage.GONE)
            stuck = [s for s in statuses if s.stuck]
            if gone == len(statuses):
                self._phase(f"done: {gone} topic(s) deleted, every znode gone", "-done")
            elif stuck:
                self._phase(f"{gone} of {len(statuses)} deleted · {len(stuck)} stuck: {stuck[0].stuck}", "-stuck")
            else:
                self._phase(f"deleting: {gone} of {len(statuses)} gone…")

    @on(Input.Submitted, "#confirm")
    def _confirmed(self, event: Input.Submitted) -> None:
        plan = self._plan
        if plan is None or self._applied:
            return
        if event.value.strip() != plan.confirmation:
            self._phase(f"confirmation does not match: type {plan.confirmation}", "-error")
            return
        event.input.disabled = True
        self.apply(plan, event.value.strip())

    class DeleteFailed(Message):
        """The deletion was not queued: why."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class DeleteStarted(Message):
        """The deletions are queued."""

        def __init__(self) -> None:
            super().__init__()

    @work(thread=True, exclusive=True, exit_on_error=False, group="apply")
    def apply(self, plan: DeletePlan, confirmation: str) -> None:
        """Queue the deletions (worker thread)."""
        try:
            self.admin.apply_delete(plan, confirmation)
        except KzcError as exc:
            self.post_message(self.DeleteFailed(str(exc)))
            return
        self.post_message(self.DeleteStarted())

    @on(DeleteStarted)
    def _on_delete_started(self, message: DeleteStarted) -> None:
        self._started()

    @on(DeleteFailed)
    def _on_delete_failed(self, message: DeleteFailed) -> None:
        self._not_deleted(message.reason)

    def _not_deleted(self, reason: str) -> None:
        self._phase(f"not deleted: {reason}", "-error")
        self.query_one("#confirm", Input).disabled = False  # the user may fix the cause and confirm again

    def _started(self) -> None:
        self._applied = True
        self.query_one("#delete-list", VirtualTable).border_title = "Deletion progress"
        self.query_one("#delete-list", VirtualTable).focus()
        self._render_rows()

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Every change re-reads where each deletion stands."""
        self._render_rows()

    def export_payload(self) -> dict[str, Any] | None:
        """What is (being) deleted and where each stands."""
        plan = self._plan
        if plan is None:
            return None
        return {
            "topics": self.query_one("#delete-list", VirtualTable).export_rows(),
            "warnings": list(plan.warnings),
            "applied": self._applied,
        }
