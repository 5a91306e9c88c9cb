"""The security screen's forms: add or remove an ACL (``AclFormScreen``), set a SCRAM password or delete
credentials (``UserFormScreen``), set or delete quotas (``QuotaFormScreen``), the console twins of ``kzc acl
add|remove``, ``kzc user set-password|delete`` and ``kzc quota set|delete``.

As the config editor: the fields, then the preview (``ctrl+d``, or Enter in a field) that the CLI prints (the
path, brokers or ZooKeeper and why, what is sent or written), then the typed confirmation (the resource's or
the user's name, as the CLI asks) and ``ctrl+s`` (or Enter in the confirmation) to apply exactly that preview.
Plans and writes run in workers through ``SecurityActions`` (``core.console.security_actions``, the CLI's
functions); in read-only mode the preview works (as the CLI's ``--dry-run``) and applying is refused with the
CLI's message, audited. A password is typed into masked fields only; it is never shown, put in a message's
text, a worker's description, the event log or a notification.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, Select, Static

from core.console.security_actions import SecurityActions
from core.errors import KzcError, UsageError
from core.kafka.acls import ALLOW, DENY, LITERAL, PREFIXED, RESOURCE_TYPES, AclBinding
from core.kafka.quotas import DEFAULT, QuotaEntity
from core.kafka.scram import DEFAULT_ITERATIONS, MECHANISMS
from core.security.acls import ACL_PATH_NOTE, AclPlan, acl_request
from core.security.quotas import QuotaPlan, parse_quota_items
from core.security.users import CredentialPlan
from core.topics.write import describe_writes
from tui.messages import ChangeFinished
from tui.screens.base import FIELD_BINDINGS, after_typed
from tui.screens.plan_form import form_field
from tui.widgets.form_input import FormInput

SecurityPlan = AclPlan | CredentialPlan | QuotaPlan
ALL_MECHANISMS = "all"


class SecurityFormScreen(Screen[None]):
    """Fields → preview → typed confirmation → apply, in workers; the subclasses say what is planned."""

    DEFAULT_CSS = """
    SecurityFormScreen #title { padding: 0 1; text-style: bold; color: $primary; }
    SecurityFormScreen #security-form { height: auto; padding: 0 1; }
    SecurityFormScreen #security-form .field { height: 1; }
    SecurityFormScreen #security-form .field Label, SecurityFormScreen #confirm-row Label {
        width: 14; color: $text-muted;
    }
    SecurityFormScreen Input { height: 1; min-height: 1; width: 1fr; border: none; padding: 0 1; background: $surface; }
    SecurityFormScreen Input:focus { border: none; background: $primary 30%; }
    SecurityFormScreen #security-form Select { height: 1; width: 1fr; }
    SecurityFormScreen #security-form SelectCurrent { height: 1; border: none; padding: 0 1; background: $surface; }
    SecurityFormScreen #security-form Select:focus > SelectCurrent { background: $primary 30%; }
    SecurityFormScreen #security-preview-box { height: 1fr; min-height: 3; border: round $primary; padding: 0 1; }
    SecurityFormScreen #security-preview { height: auto; }
    SecurityFormScreen #confirm-row { height: 1; padding: 0 1; }
    SecurityFormScreen #security-status { height: auto; max-height: 4; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        *FIELD_BINDINGS,
        Binding("ctrl+d", "preview", "Preview", priority=True, id="preview"),
        Binding("ctrl+s", "apply", "Apply", priority=True, id="apply"),
        Binding("escape", "close", "Close", id="close"),
    ]

    class Planned(Message):
        """The previewed plan (no secret in its repr), or why it could not be made."""

        def __init__(self, plan: SecurityPlan | None, problem: str | None = None) -> None:
            super().__init__()
            self.plan = plan
            self.problem = problem

    class Applied(Message):
        """The plan was applied: the CLI's closing sentence."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class ApplyFailed(Message):
        """Applying was refused or failed (nothing half-done: the core functions write all or nothing)."""

        def __init__(self, reason: str) -> None:
            super().__init__()
            self.reason = reason

    def __init__(self, actions: SecurityActions) -> None:
        super().__init__()
        self.actions = actions
        self.plan: SecurityPlan | None = None
        self._applying: SecurityPlan | None = None
        self._previewed = False  # the preview pane shows a preview (or why there is none)
        # Edits so far, and how many there were when the last preview started: a plan that arrives after an
        # edit describes fields no longer shown, and is dropped (never applied).
        self._edits = 0
        self._planned_at = 0

    # ---- what the subclasses provide ---------------------------------------------------------------------

    form_title = ""

    def compose_fields(self) -> ComposeResult:
        """The form's fields."""
        yield from ()

    def start_plan(self) -> None:
        """Read the fields and plan in a worker (or say what is wrong with them)."""

    def confirmation(self, plan: SecurityPlan) -> str:
        """What the user types to apply ``plan`` (what the CLI asks for)."""
        raise NotImplementedError

    def preview_lines(self, plan: SecurityPlan) -> list[str]:
        """The preview as the CLI prints it."""
        return plan.describe()

    def write(self, plan: SecurityPlan) -> str:
        """Apply ``plan`` (blocks: workers only); the closing sentence."""
        raise NotImplementedError

    def what(self, plan: SecurityPlan) -> str:
        """The change in words, for the event log."""
        raise NotImplementedError

    def applied(self) -> None:
        """After a successful apply (the password form forgets the password)."""

    # ---- the form ----------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Label(self.form_title, id="title")
        with Vertical(id="security-form"):
            yield from self.compose_fields()
        with VerticalScroll(id="security-preview-box"):  # Tab to it and scroll a long preview
            yield Static(
                "fill in the form, then ctrl+d (or Enter) for the preview", id="security-preview", markup=False
            )
        yield from form_field(
            "confirm", FormInput(placeholder="the name the preview asks for, then Enter", id="confirm")
        )
        yield Static("", id="security-status", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        for field_ in self.query(Input):
            field_.cursor_blink = False  # a blinking cursor is a frame every half second over SSH
        first = self.query(Input).first()
        first.focus()

    def planned(self, plan: SecurityPlan | None, problem: str | None = None) -> None:
        """Hand a plan (or the problem) from a worker to the screen."""
        self.post_message(self.Planned(plan, problem))

    @on(Planned)
    def _planned(self, message: Planned) -> None:
        if self._edits != self._planned_at:
            return  # the fields changed since this preview started
        self.plan = message.plan
        self._previewed = True
        preview = self.query_one("#security-preview", Static)
        if message.plan is None:
            preview.update(f"cannot preview: {message.problem}")
            self._status("Nothing was changed.")
            return
        preview.update("\n".join(self.preview_lines(message.plan)))
        if message.plan.changes:
            self._status(f"Type {self.confirmation(message.plan)} and press Enter (or ctrl+s) to apply this change.")
        else:
            self._status("No change to apply.")

    @on(Input.Changed)
    @on(Select.Changed)
    def _edited(self, event: Input.Changed | Select.Changed) -> None:
        if event.control.id == "confirm":
            return
        self._edits += 1
        self.plan = None  # a new edit needs a new preview before anything is applied
        if self._previewed:  # (a Select reports its first value on mount: nothing was previewed yet)
            self._previewed = False
            self.query_one("#security-preview", Static).update("changed: ctrl+d (or Enter) for a new preview")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        if event.control.id == "confirm":
            self._apply_typed()
        else:
            self._preview()

    def action_preview(self) -> None:
        """Preview once the keys typed before ``ctrl+d`` are in their field (typed ahead, pasted)."""
        after_typed(self, self._preview)

    def _preview(self) -> None:
        self.plan = None
        self._planned_at = self._edits
        self._status("Planning...")
        try:
            self.start_plan()
        except KzcError as exc:
            self.post_message(self.Planned(None, str(exc)))

    def action_apply(self) -> None:
        """Apply once the keys typed before ``ctrl+s`` are in their field."""
        after_typed(self, self._apply_typed)

    def _apply_typed(self) -> None:
        if self._applying is not None:
            return  # one apply at a time: a second Enter must not send the change twice
        plan = self.plan
        if plan is None:
            self._status("Preview first (ctrl+d); nothing was changed.")
            return
        if not plan.changes:
            self._status("No change to apply; nothing was changed.")
            return
        expected = self.confirmation(plan)
        if self.query_one("#confirm", Input).value.strip() != expected:
            self._status(f"Type {expected} to apply; nothing was changed.")
            return
        self._status("Applying...")
        self._applying = plan
        self._apply(plan)

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-apply", description="apply")
    def _apply(self, plan: SecurityPlan) -> None:
        try:
            text = self.write(plan)
        except KzcError as exc:
            self.post_message(self.ApplyFailed(str(exc)))
            return
        self.post_message(self.Applied(text))

    @on(Applied)
    def _applied(self, message: Applied) -> None:
        plan, self._applying, self.plan = self._applying, None, None
        self.query_one("#confirm", Input).value = ""
        self.applied()
        self._status(message.text + " (Esc: back to the list, read again)")
        if plan is not None:
            self.post_message(ChangeFinished(f"you: {self.what(plan)}: done", "info"))

    @on(ApplyFailed)
    def _apply_failed(self, message: ApplyFailed) -> None:
        plan, self._applying = self._applying, None
        self._status(f"Refused: {message.reason}")
        if plan is not None:
            self.post_message(ChangeFinished(f"you: {self.what(plan)}: not done: {message.reason}", "error"))

    def action_close(self) -> None:
        self.dismiss(None)

    def _status(self, text: str) -> None:
        self.query_one("#security-status", Static).update(text)


# ---- ACLs ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AclFields:
    """The ACL form's fields as typed."""

    resource_type: str
    name: str
    pattern_type: str
    principal: str
    operations: str
    host: str
    permission: str


class AclFormScreen(SecurityFormScreen):
    """Add an ACL, or remove one (prefilled from the highlighted row), as ``kzc acl add|remove``."""

    def __init__(self, action: str, actions: SecurityActions, binding: AclBinding | None = None) -> None:
        super().__init__(actions)
        self.action = action
        self.binding = binding
        self.form_title = ("Add an ACL" if action == "add" else "Remove an ACL") + " (as kzc acl " + action + ")"

    def compose_fields(self) -> ComposeResult:
        b = self.binding
        types = [(t, t) for t in RESOURCE_TYPES]
        principal = FormInput(b.acl.principal if b else "", placeholder="User:NAME", id="principal")
        yield from form_field("principal", principal)
        ops = FormInput(b.acl.operation if b else "", placeholder="Read (several: Read,Describe)", id="operation")
        yield from form_field("operation", ops)
        resource = Select(types, value=b.pattern.resource_type if b else "Topic", allow_blank=False, id="resource-type")
        yield from form_field("resource", resource)
        name = FormInput(b.pattern.name if b else "", placeholder="its name (Cluster: none)", id="name")
        yield from form_field("name", name)
        patterns = [("literal", LITERAL), ("prefixed", PREFIXED)]
        yield from form_field(
            "pattern", Select(patterns, value=b.pattern.pattern_type if b else LITERAL, allow_blank=False, id="pattern")
        )
        yield from form_field("host", FormInput(b.acl.host if b else "*", placeholder="* (any host)", id="host"))
        permissions = [("allow", ALLOW), ("deny", DENY)]
        yield from form_field(
            "permission",
            Select(permissions, value=b.acl.permission if b else ALLOW, allow_blank=False, id="permission"),
        )

    def fields(self) -> AclFields:
        """The fields as typed now."""

        def text(widget_id: str) -> str:
            return self.query_one(f"#{widget_id}", Input).value

        def choice(widget_id: str) -> str:
            return str(self.query_one(f"#{widget_id}", Select).value)

        return AclFields(choice("resource-type"), text("name"), choice("pattern"), text("principal"),
                         text("operation"), text("host").strip(), choice("permission"))  # fmt: skip

    def start_plan(self) -> None:
        self._plan_acl(self.fields())

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-plan", description="plan ACLs")
    def _plan_acl(self, f: AclFields) -> None:
        try:
            operations = f.operations.replace(",", " ").split()
            pattern, acls = acl_request(
                f.resource_type, f.name, f.pattern_type, f.principal, operations, f.host, f.permission == DENY
            )
            plan: AclPlan = self.actions.plan_acl(self.action, pattern, acls)
        except KzcError as exc:
            self.planned(None, str(exc))
            return
        self.planned(plan)

    def confirmation(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, AclPlan)
        return plan.pattern.name

    def preview_lines(self, plan: SecurityPlan) -> list[str]:
        assert isinstance(plan, AclPlan)
        lines = plan.describe()
        if plan.writes:
            lines += describe_writes(plan.writes, ACL_PATH_NOTE)
        return lines

    def write(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, AclPlan)
        self.actions.apply_acl(plan)
        done = "added" if plan.action == "add" else "removed"
        if plan.via == "admin":
            return f"Done: {done} on {plan.pattern} through the brokers ({plan.api}); DescribeAcls reports it."
        return f"Done: {done} on {plan.pattern} in ZooKeeper (brokers reload it from the change event)"

    def what(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, AclPlan)
        return f"{plan.action} ACLs on {plan.pattern}"


# ---- SCRAM users -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PasswordRequest:
    """A set-password request; the password is left out of the repr (workers, logs, tracebacks)."""

    user: str
    mechanism: str
    iterations: int
    password: str = field(repr=False)


class UserFormScreen(SecurityFormScreen):
    """Set a user's SCRAM password (``action`` ``set``) or delete credentials (``delete``), as ``kzc user
    set-password|delete``."""

    def __init__(
        self, action: str, actions: SecurityActions, user: str | None = None, mechanism: str | None = None
    ) -> None:
        super().__init__(actions)
        self.action = action
        self.user = user
        self.mechanism = mechanism
        verb = "Set a SCRAM password (as kzc user set-password)" if action == "set" else (
            "Delete SCRAM credentials (as kzc user delete)")  # fmt: skip
        self.form_title = verb

    def compose_fields(self) -> ComposeResult:
        yield from form_field("user", FormInput(self.user or "", placeholder="user name", id="user"))
        mechanisms = [(m, m) for m in MECHANISMS]
        if self.action == "delete":
            mechanisms.append(("every mechanism", ALL_MECHANISMS))
        default = self.mechanism or (ALL_MECHANISMS if self.action == "delete" else mechanisms[0][1])
        yield from form_field("mechanism", Select(mechanisms, value=default, allow_blank=False, id="mechanism"))
        if self.action == "set":
            yield from form_field("iterations", FormInput(str(DEFAULT_ITERATIONS), type="integer", id="iterations"))
            yield from form_field("password", FormInput(password=True, placeholder="never shown", id="password"))
            yield from form_field("again", FormInput(password=True, placeholder="the same again", id="again"))

    def start_plan(self) -> None:
        user = self.query_one("#user", Input).value.strip()
        mechanism = str(self.query_one("#mechanism", Select).value)
        if self.action == "delete":
            self._plan_delete(user, () if mechanism == ALL_MECHANISMS else (mechanism,))
            return
        password = self.query_one("#password", Input).value
        if self.query_one("#again", Input).value != password:
            raise UsageError("the passwords differ: nothing was changed")
        iterations = self.query_one("#iterations", Input).value.strip()
        if not iterations.isdigit():
            raise UsageError("iterations: a whole number (4096 to 16384)")
        self._plan_password(PasswordRequest(user, mechanism, int(iterations), password))

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-plan", description="plan a password")
    def _plan_password(self, request: PasswordRequest) -> None:
        try:
            plan = self.actions.plan_password(request.user, request.mechanism, request.password, request.iterations)
        except KzcError as exc:
            self.planned(None, str(exc))
            return
        self.planned(plan)

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-plan", description="plan a deletion")
    def _plan_delete(self, user: str, mechanisms: tuple[str, ...]) -> None:
        try:
            plan = self.actions.plan_user_delete(user, mechanisms)
        except KzcError as exc:
            self.planned(None, str(exc))
            return
        self.planned(plan)

    def confirmation(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, CredentialPlan)
        return plan.user

    def preview_lines(self, plan: SecurityPlan) -> list[str]:
        lines = plan.describe()
        return [*lines, "  password from the console form (not shown)"] if self.action == "set" else lines

    def write(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, CredentialPlan)
        stored = self.actions.apply_credentials(plan)
        where = "through the brokers (AlterUserScramCredentials)" if plan.via == "admin" else "in ZooKeeper"
        now = ", ".join(c.mechanism for c in stored) or "no SCRAM credentials"
        return f"Done {where}: user {plan.user} now has {now}."

    def what(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, CredentialPlan)
        return f"{plan.action} SCRAM credentials of user {plan.user}"

    def applied(self) -> None:
        for widget_id in ("#password", "#again"):
            for found in self.query(widget_id).results(Input):
                found.value = ""


# ---- quotas ------------------------------------------------------------------------------------------------


class QuotaFormScreen(SecurityFormScreen):
    """Set or delete quotas of one entity (a user, a client id, both; ``<default>`` for either), as ``kzc quota
    set|delete``; prefilled from the highlighted row."""

    form_title = "Change quotas (as kzc quota set|delete)"

    def __init__(self, actions: SecurityActions, entity: QuotaEntity | None = None) -> None:
        super().__init__(actions)
        self.entity = entity

    def compose_fields(self) -> ComposeResult:
        e = self.entity
        user = FormInput(e.user or "" if e else "", placeholder="a user, <default>, or empty", id="quota-user")
        yield from form_field("user", user)
        client = FormInput(
            e.client_id or "" if e else "", placeholder="a client id, <default>, or empty", id="quota-client"
        )
        yield from form_field("client id", client)
        sets = FormInput(placeholder="KEY=VALUE ... e.g. producer_byte_rate=1048576", id="quota-set")
        yield from form_field("set", sets)
        yield from form_field("delete", FormInput(placeholder="KEY ... e.g. request_percentage", id="quota-delete"))

    def start_plan(self) -> None:
        user = self.query_one("#quota-user", Input).value.strip() or None
        client = self.query_one("#quota-client", Input).value.strip() or None
        if user is None and client is None:
            raise UsageError("give a user, a client id, or both (<default> for the default)")
        updates = parse_quota_items(self.query_one("#quota-set", Input).value.replace(",", " ").split())
        deletes = self.query_one("#quota-delete", Input).value.replace(",", " ").split()
        self._plan_quota(QuotaEntity(user, client), updates, deletes)

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-plan", description="plan quotas")
    def _plan_quota(self, entity: QuotaEntity, updates: dict[str, str], deletes: list[str]) -> None:
        try:
            plan = self.actions.plan_quota(entity, updates, deletes)
        except KzcError as exc:
            self.planned(None, str(exc))
            return
        self.planned(plan)

    def confirmation(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, QuotaPlan)
        name = plan.entity.client_id if plan.entity.user is None else plan.entity.user
        return name or DEFAULT

    def write(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, QuotaPlan)
        stored = self.actions.apply_quota(plan)
        how = "through AlterClientQuotas" if plan.via == "admin" else "in ZooKeeper (brokers apply the notification)"
        now = ", ".join(f"{k}={v}" for k, v in sorted(stored.items())) or "no quotas"
        return f"Done {how}: {plan.entity.describe()} now has {now}."

    def what(self, plan: SecurityPlan) -> str:
        assert isinstance(plan, QuotaPlan)
        return f"changed the quotas of {plan.entity.describe()}"
