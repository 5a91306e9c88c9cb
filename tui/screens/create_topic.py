"""The create-topic screen: the form (name checked as you type with Kafka's rules and messages, partitions,
replication factor, rack-aware, optional manual assignment, configs) beside the preview of exactly what
will be written; ``ctrl+r`` reshuffles (a new random start), ``ctrl+d`` shows the dry-run, ``ctrl+s``
writes exactly the preview and then follows the partitions coming online."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any, ClassVar, Protocol

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Checkbox, Input, Label, Static

from core.console.assignment_preview import assignment_preview
from core.console.protocols import TopicAdmin, TopicFollower, Unsubscribe
from core.console.view import ClusterView
from core.errors import KzcError
from core.kafka.names import collisions, is_internal, name_problem
from core.kafka.topic_rules import parse_configs
from core.snapshot.model import TopicEntry
from core.topics.plan import CreatePlan, CreateRequest
from core.topics.progress import online_count
from core.topics.write import planned_writes
from tui.messages import TopicChosen, TopicEntryChanged
from tui.screens.base import FIELD_BINDINGS, KzcScreen
from tui.screens.plan_form import form_field, hide_dry_run, show_dry_run
from tui.widgets.assignment_preview import AssignmentPreviewView
from tui.widgets.form_input import FormInput
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import VirtualTable


def internal_warning(name: str) -> str | None:
    """A warning for names Kafka keeps for itself: its internal topics (created by the brokers with their own
    configs; one made by hand can break the group or transaction coordinator), and any ``__`` name."""
    if is_internal(name):
        return (
            f"WARNING: '{name}' is one of Kafka's internal topics: the brokers create it themselves with the "
            "configs they need; creating it by hand can break them"
        )
    if name.startswith("__"):
        return f"WARNING: names starting with '__' are reserved for Kafka's internal topics ('{name}')"
    return None


def new_seed() -> int:
    """A fresh seed for Kafka's two random draws (tests replace this to freeze the preview)."""
    return random.randrange(2**31)


PLACEHOLDER = "preview-placeholder"  # the name plans are made under before the user types one


class TopicWriter(TopicAdmin, TopicFollower, Protocol):
    """What the create and add-partitions forms use: plan and write, then follow the topic."""


class CreateTopicScreen(KzcScreen):
    """Create one topic from a previewed assignment."""

    VIEW_NAME = "create-topic"
    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_BINDINGS,
        Binding("ctrl+r", "reshuffle", "Reshuffle", priority=True, id="reshuffle"),
        Binding("ctrl+d", "dry_run", "Dry run", priority=True, id="dry_run"),
        Binding("ctrl+s", "submit", "Create", priority=True, id="submit"),
    ]

    def __init__(self, admin: TopicWriter, read_only: bool) -> None:
        """``admin``: plans, writes and follows topics; ``read_only``: refuse the write."""
        super().__init__()
        self.admin = admin
        self.read_only = read_only
        # Kafka draws a random start per create: one seed per form (every edit previews with it, and the
        # previewed plan is what ctrl+s applies); a reshuffle picks a new one.
        self._seed = new_seed()
        self._plan: CreatePlan | None = None
        self._created: str | None = None
        self._unfollow: Unsubscribe | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar()
        with Horizontal(id="form-body"):
            with Vertical(id="form"):
                yield from form_field("topic name", FormInput(placeholder="orders.v2", id="name"))
                yield Label("", id="name-problem", classes="problem")
                with Horizontal(classes="field"):
                    yield Label("partitions")
                    yield FormInput("6", type="integer", id="partitions", classes="number")
                    yield Label("replication", classes="inline")
                    yield FormInput("3", type="integer", id="rf", classes="number")
                    yield Checkbox("rack-aware", True, id="rack")
                yield from form_field("manual assign", FormInput(placeholder="optional: 1:2:3,2:3:1", id="manual"))
                configs = FormInput(placeholder="optional: retention.ms=86400000,...", id="configs")
                yield from form_field("configs", configs)
                yield Label("", id="warnings", classes="warning")
                yield Label("", id="plan-problem", classes="problem")
                yield Label("", id="phase")
            with Vertical(id="preview"):
                yield AssignmentPreviewView()
                yield Static("", id="dry-run", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        for field in self.query(Input):
            field.cursor_blink = False  # a blinking cursor is a frame every half second over SSH
        self.query_one("#form").border_title = "New topic"
        self.query_one("#name", Input).focus()
        self._replan()

    def on_unmount(self) -> None:
        if self._unfollow is not None:
            self._unfollow()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Once created, the form is done: only navigation stays."""
        if action in ("reshuffle", "dry_run", "submit"):
            return self._created is None and not self.read_only
        return True

    # ---- form → plan ---------------------------------------------------------------------------------

    def _request(self) -> CreateRequest:
        def number(widget_id: str) -> int:
            text = self.query_one(f"#{widget_id}", Input).value.strip()
            return int(text) if text.lstrip("-").isdigit() else 0

        topic = self.query_one("#name", Input).value.strip()
        manual = self.query_one("#manual", Input).value.strip() or None
        configs = self.query_one("#configs", Input).value.split(",")
        return CreateRequest(
            topic=topic,
            partitions=None if manual else number("partitions"),
            replication_factor=None if manual else number("rf"),
            replica_assignment=manual,
            config=parse_configs([c for c in configs if c.strip()]),
            rack_aware=self.query_one("#rack", Checkbox).value,
            seed=self._seed,
        )

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _form_changed(self) -> None:
        if self._created is None:
            problem = self._show_name_problem()
            if problem:
                self.workers.cancel_group(self, "plan")
                self._show_plan(None, None)  # an invalid name has no preview: never leave the old one drawn
            else:
                self._replan()

    def _show_name_problem(self) -> str | None:
        name = self.query_one("#name", Input).value.strip()
        problem = name_problem(name) if name else None
        view = self.latest_view
        if problem is None and name and view is not None:
            if name in view.snapshot.topics:
                problem = f"Topic '{name}' already exists."
            elif clash := collisions(name, list(view.snapshot.topics)):
                problem = f"Topic '{name}' collides with existing topics: {', '.join(clash)}"
        self.query_one("#name-problem", Label).update(problem or internal_warning(name) or "")
        self.query_one("#name", Input).set_class(problem is not None, "-invalid")
        return problem

    def _replan(self) -> None:
        try:
            request = self._request()
        except KzcError as exc:
            self._show_plan(None, str(exc))
            return
        self.plan(request)

    class NameMissing(Message):
        """No topic name yet: preview under a placeholder."""

        def __init__(self, request: CreateRequest) -> None:
            super().__init__()
            self.request = request

    class PlanMade(Message):
        """The create plan, or the problem that stopped it."""

        def __init__(self, plan: CreatePlan | None, problem: str | None) -> None:
            super().__init__()
            self.plan = plan
            self.problem = problem

    @work(thread=True, exclusive=True, exit_on_error=False, group="plan")
    def plan(self, request: CreateRequest) -> None:
        """Check the request and compute the preview (worker thread)."""
        if not request.topic:
            self.post_message(self.NameMissing(request))
            return
        try:
            plan = self.admin.plan_create(request)
        except KzcError as exc:
            self.post_message(self.PlanMade(None, str(exc)))
            return
        self.post_message(self.PlanMade(plan, None))

    @on(PlanMade)
    def _on_plan_made(self, message: PlanMade) -> None:
        self._show_plan(message.plan, message.problem)

    @on(NameMissing)
    def _on_name_missing(self, message: NameMissing) -> None:
        self._preview_only(message.request)

    def _preview_only(self, request: CreateRequest) -> None:
        """No name yet: preview the assignment under a placeholder name so the grid is never empty."""
        self.plan(replace(request, topic=PLACEHOLDER))

    def _show_plan(self, plan: CreatePlan | None, problem: str | None) -> None:
        placeholder = plan is not None and plan.topic == PLACEHOLDER
        self._plan = None if placeholder else plan
        blocked = plan.blocked if plan is not None and not placeholder else None
        self.query_one("#plan-problem", Label).update("" if placeholder else problem or blocked or "")
        warnings = plan.warnings if plan is not None and not placeholder else ()
        self.query_one("#warnings", Label).update("\n".join(warnings))
        note = "type a topic name to create it" if placeholder else ""
        preview = assignment_preview(plan) if plan else None
        self.query_one(AssignmentPreviewView).show(preview, note or (problem or ""))
        self.query_one("#dry-run", Static).remove_class("-shown")

    # ---- actions -------------------------------------------------------------------------------------

    def action_reshuffle(self) -> None:
        """A new random start for Kafka's algorithm."""
        self._seed = new_seed()
        self._replan()

    def action_dry_run(self) -> None:
        """Show exactly what submitting would write or send, without doing it."""
        show_dry_run(self, self._plan)

    def action_submit(self) -> None:
        """Write exactly the preview."""
        if self._plan is None:
            self.notify("nothing to create: fix the form first", severity="warning")
            return
        self.apply(self._plan)

    class CreateFailed(Message):
        """The create failed: why."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    class Created(Message):
        """The topic was created as planned."""

        def __init__(self, plan: CreatePlan) -> None:
            super().__init__()
            self.plan = plan

    @work(thread=True, exclusive=True, exit_on_error=False, group="apply")
    def apply(self, plan: CreatePlan) -> None:
        """Create the topic (worker thread)."""
        try:
            self.admin.apply_create(plan)
        except KzcError as exc:
            self.post_message(self.CreateFailed(str(exc)))
            return
        self.post_message(self.Created(plan))

    @on(Created)
    def _on_created(self, message: Created) -> None:
        self._applied(message.plan)

    @on(CreateFailed)
    def _on_create_failed(self, message: CreateFailed) -> None:
        self._apply_failed(message.reason)

    def _apply_failed(self, reason: str) -> None:
        self.query_one("#plan-problem", Label).update(reason)
        phase = self.query_one("#phase", Label)
        phase.update("not created")
        phase.add_class("-error")

    def _applied(self, plan: CreatePlan) -> None:
        self._created = plan.topic
        hide_dry_run(self)
        for widget in self.query(Input):
            widget.disabled = True
        self.query_one("#rack", Checkbox).disabled = True
        self.query_one("#phase", Label).update(f"created {self._created}: waiting for the controller…")
        self.refresh_bindings()
        self.query_one("#preview-grid", VirtualTable).focus()
        self.follow(self._created)

    @work(thread=True, exclusive=True, exit_on_error=False, group="follow")
    def follow(self, topic: str) -> None:
        """Follow the new topic's partitions (worker thread; the callback only posts)."""

        def changed(entry: TopicEntry | None) -> None:
            self.post_message(TopicEntryChanged(topic, entry))

        self._unfollow = self.admin.follow_topic(topic, changed)

    @on(TopicEntryChanged)
    def _progress(self, message: TopicEntryChanged) -> None:
        if message.topic != self._created or message.entry is None:
            return
        entry: TopicEntry = message.entry
        online, total = online_count(entry)
        phase = self.query_one("#phase", Label)
        if total and online == total:
            phase.update(f"done: {self._created} created, all {total} partitions online (Enter on the grid: detail)")
            phase.add_class("-done")
        else:
            phase.update(f"created {self._created}: {online} of {total} partitions online…")

    @on(VirtualTable.Selected, "#preview-grid")
    def _open_created(self) -> None:
        if self._created is not None:
            self.post_message(TopicChosen(self._created))

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Brokers may come and go: keep the name check current."""
        if self._created is None:
            self._show_name_problem()

    def export_payload(self) -> dict[str, Any] | None:
        """The plan as previewed."""
        plan = self._plan
        if plan is None:
            return None
        return {**plan.to_json(), "seed": plan.seed, "writes": [w.to_json() for w in planned_writes(plan)]}
