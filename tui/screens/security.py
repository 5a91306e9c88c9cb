"""The security screen (``A``): every ACL, every quota entity and every SCRAM user, and their forms.

Each tab reads through the same core function as its CLI twin (``kzc acl list``, ``kzc quota show``,
``kzc user list``) in a worker; ``r`` reads all three again. The quotas tab also answers "what does this
client get?": a user and a client id typed in give the effective quota of each type and the entity it comes
from (``kzc quota show --effective``), read again every ``EFFECTIVE_REFRESH_S`` only while the tab is shown
(eight znode reads each time; the next read is scheduled when the previous one has answered), and on ``r``;
the line says when it was read and, when a read fails, that what is shown is stale since then. ACLs and SCRAM
credentials and quotas are changed from here: ``+``/``a`` and ``-``/``d`` open the forms
(``tui.screens.security_forms``, the twins of ``kzc acl add|remove``, ``kzc user set-password|delete`` and
``kzc quota set|delete``; on the quotas tab both keys open the one quota form, of the highlighted entity)
through the app, and coming back from one reads the tables again. No salt, key or password is ever read into a row:
``ScramUser`` carries mechanisms and iterations only.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Label, Static, TabbedContent, TabPane

from core.console.protocols import SecuritySource
from core.errors import KzcError
from core.human_time import age_text, clock_text
from core.kafka.acls import Acl, AclBinding, ResourcePattern
from core.kafka.quotas import DEFAULT, EffectiveQuota, QuotaEntity
from core.security.acls import AclListing
from core.security.quotas import QuotaListing
from core.security.users import ScramUser, UserListing
from tui.messages import AclChangeRequested, QuotaChangeRequested, UserChangeRequested
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

ACL_COLUMNS = (
    Column("resource_type", "resource"),
    Column("pattern_type", "pattern"),
    Column("name", "name", max_width=60),
    Column("principal", "principal", max_width=60),
    Column("host", "host", max_width=40),
    Column("operation", "operation"),
    Column("permission", "permission"),
)
QUOTA_COLUMNS = (
    Column("entity", "entity"),
    Column("user", "user", max_width=60),
    Column("client_id", "client-id", max_width=60),
    Column("quotas", "quotas", max_width=200),
)
USER_COLUMNS = (
    Column("user", "user", max_width=60),
    Column("mechanism", "mechanism"),
    Column("iterations", "iterations", align="right"),
)
CLI_NOTE = "+ add ACL / set password · - remove highlighted · previewed, confirmed, audited"
TABS = ("acls", "quotas", "users")
EFFECTIVE_REFRESH_S = 10.0
EFFECTIVE_HINT = "effective quota: type a user and a client id, then Enter (Kafka's precedence, read every 10 s)"


def wall_ms() -> int:
    """Now, in epoch milliseconds (the screen's default clock)."""
    return int(time.time() * 1000)


def effective_lines(user: str, client_id: str, found: list[EffectiveQuota]) -> list[str]:
    """Each quota type's effective value and the entity it comes from, as ``kzc quota show --effective``."""
    lines = []
    for q in found:
        where = f"from {q.source.describe()}" if q.source else "no quota at any level: unlimited"
        lines.append(f"  {q.key}: {q.value if q.value is not None else '-'}  ({where})")
    return lines


def acl_rows(listing: AclListing) -> list[Row]:
    """One row per ACL, as ``kzc acl list`` prints them."""
    rows = []
    for b in listing.bindings:
        p, a = b.pattern, b.acl
        cells = (p.resource_type, p.pattern_type, p.name, a.principal, a.host, a.operation, a.permission)
        rows.append(Row("\x00".join(cells), cells))
    return rows


def acl_of(row: Row) -> AclBinding:
    """The ACL an ``acl_rows`` row shows."""
    resource_type, pattern_type, name, principal, host, operation, permission = row.cells
    return AclBinding(ResourcePattern(resource_type, name, pattern_type), Acl(principal, permission, operation, host))


def _entity_kind(entity: QuotaEntity) -> str:
    kind = "user+client-id" if entity.user is not None and entity.client_id is not None else (
        "user" if entity.user is not None else "client-id")  # fmt: skip
    defaults = DEFAULT in (entity.user, entity.client_id)
    return kind + (" (default)" if defaults else "")


def quota_rows(quotas: Mapping[QuotaEntity, Mapping[str, str]]) -> list[Row]:
    """One row per entity with its quota keys, as ``kzc quota show`` prints them."""
    rows = []
    for entity, items in sorted(quotas.items(), key=lambda item: (item[0].user or "", item[0].client_id or "")):
        cells = (
            _entity_kind(entity),
            "-" if entity.user is None else entity.user,
            "-" if entity.client_id is None else entity.client_id,
            ", ".join(f"{k}={v}" for k, v in sorted(items.items())),
        )
        rows.append(Row(entity.describe(), cells, data=entity))
    return rows


def user_rows(users: list[ScramUser]) -> list[Row]:
    """One row per user and mechanism: its iterations (``unreadable`` where Kafka could not parse it)."""
    rows = []
    for user in users:
        for c in user.credentials:
            iterations = str(c.iterations) if c.iterations else "unreadable"
            rows.append(Row(f"{user.name}\x00{c.mechanism}", (user.name, c.mechanism, iterations)))
    return rows


class SecurityScreen(KzcScreen):
    """ACLs, quotas and SCRAM users, each read as its CLI twin reads it."""

    VIEW_NAME = "security"
    DEFAULT_CSS = """
    SecurityScreen #security-tabs { height: 1fr; }
    SecurityScreen TabPane { height: 1fr; padding: 0; }
    SecurityScreen #security-note, SecurityScreen #security-source { color: $text-muted; height: 1; }
    SecurityScreen #effective-ask { height: 3; }
    SecurityScreen #effective-ask Input { width: 1fr; }
    SecurityScreen #effective-quota { height: auto; max-height: 6; }
    SecurityScreen #effective-quota.-stale { color: $warning; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "reread", "Re-read", id="security_reread"),
        Binding("1", "tab('acls')", "ACLs", id="security_acls"),
        Binding("2", "tab('quotas')", "Quotas", id="security_quotas"),
        Binding("3", "tab('users')", "SCRAM users", id="security_users"),
        Binding("plus,a", "change('add')", "Add", id="security_add"),
        Binding("minus,d", "change('remove')", "Remove", id="security_remove"),
    ]

    class AclsRead(Message):
        """Every ACL, or why they could not be read."""

        def __init__(self, found: AclListing | str) -> None:
            super().__init__()
            self.found = found

    class QuotasRead(Message):
        """Every quota entity, or why they could not be read."""

        def __init__(self, found: QuotaListing | str) -> None:
            super().__init__()
            self.found = found

    class UsersRead(Message):
        """Every SCRAM user, or why they could not be read."""

        def __init__(self, found: UserListing | str) -> None:
            super().__init__()
            self.found = found

    class EffectiveRead(Message):
        """The effective quota of (user, client id) read at ``at_ms``, or why it could not be read."""

        def __init__(self, asked: tuple[str, str], found: list[EffectiveQuota] | str, at_ms: int) -> None:
            super().__init__()
            self.asked = asked
            self.found = found
            self.at_ms = at_ms

    def __init__(self, source: SecuritySource, clock_ms: Callable[[], int] = wall_ms) -> None:
        super().__init__()
        self.source = source
        self.clock_ms = clock_ms
        self._asked: tuple[str, str] | None = None  # (user, client id) whose effective quota is shown
        self._effective_reading = False
        self._effective: tuple[list[EffectiveQuota], int] | None = None  # the last good read, and when
        self._effective_failure: tuple[str, int] | None = None  # the last read failed: why, when
        self._effective_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label(CLI_NOTE, id="security-note")
        with TabbedContent(id="security-tabs"):
            with TabPane("ACLs 1", id="acls"):
                yield VirtualTable(ACL_COLUMNS, empty_text="reading the ACLs…", id="security-acls")
            with TabPane("Quotas 2", id="quotas"):
                with Horizontal(id="effective-ask"):
                    yield Input(placeholder="user (principal name)", id="effective-user")
                    yield Input(placeholder="client id", id="effective-client")
                yield Static(EFFECTIVE_HINT, id="effective-quota")
                yield VirtualTable(QUOTA_COLUMNS, empty_text="reading the quotas…", id="security-quotas")
            with TabPane("SCRAM users 3", id="users"):
                yield VirtualTable(USER_COLUMNS, empty_text="reading the SCRAM users…", id="security-users")
        yield Label("", id="security-source")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#security-acls").border_title = "ACLs"
        self.query_one("#security-quotas").border_title = "Quotas"
        self.query_one("#security-users").border_title = "SCRAM users (mechanisms and iterations, never keys)"
        self.query_one("#security-acls", VirtualTable).focus()
        self.action_reread()

    def action_reread(self) -> None:
        """Read the ACLs, quotas and users again (each in its own worker), and the effective quota asked."""
        self.read_acls()
        self.read_quotas()
        self.read_users()
        self._read_effective_now()

    # ---- the effective quota of one user/client id (read on a timer while shown) ----------------------

    @on(Input.Submitted, "#effective-user, #effective-client")
    def _effective_asked(self, event: Input.Submitted) -> None:
        user = self.query_one("#effective-user", Input).value.strip()
        client = self.query_one("#effective-client", Input).value.strip()
        if event.input.id == "effective-user" and not client:
            self.query_one("#effective-client", Input).focus()
            return
        if not user or not client:
            self.query_one("#effective-quota", Static).update(
                "a client's quota depends on both: type a user and a client id (<default> for neither)"
            )
            return
        self._asked = (user, client)
        self.query_one("#security-quotas", VirtualTable).focus()  # the screen's keys (r, 1-3) work again
        self._effective = None
        self._effective_failure = None
        self.query_one("#effective-quota", Static).update(
            f"reading the effective quota of user {user}, client-id {client}…"
        )
        self._read_effective_now()

    def _effective_shown(self) -> bool:
        return self.is_current and self.query_one("#security-tabs", TabbedContent).active == "quotas"

    def _read_effective_now(self) -> None:
        """Start a read of the asked effective quota unless one is running (its answer schedules the next)."""
        if self._asked is not None and not self._effective_reading:
            self._effective_reading = True
            self.read_effective(self._asked)

    def _effective_tick(self) -> None:
        # Only while shown: a hidden tab or screen costs ZooKeeper nothing; showing it again reads at once.
        if self._effective_shown():
            self._read_effective_now()

    def on_screen_resume(self) -> None:
        """Back from a form (or any screen above): read every table again, so a change just made shows (not on
        the first showing, which ``on_mount`` reads); else the effective quota, when its tab is shown."""
        super().on_screen_resume()
        if not self.is_mounted:
            return
        if self._covered:
            self._covered = False
            self.action_reread()
        elif self._effective_shown():
            self._read_effective_now()

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-effective")
    def read_effective(self, asked: tuple[str, str]) -> None:
        """The effective quota of ``asked``, as ``kzc quota show --effective`` reads it."""
        try:
            found: list[EffectiveQuota] | str = self.source.effective_quota(*asked)
        except KzcError as exc:
            found = str(exc)
        self.post_message(self.EffectiveRead(asked, found, self.clock_ms()))

    @on(EffectiveRead)
    def _effective_read(self, message: EffectiveRead) -> None:
        self._effective_reading = False
        if message.asked == self._asked:
            if isinstance(message.found, str):
                self._effective_failure = (message.found, message.at_ms)
            else:
                self._effective = (message.found, message.at_ms)
                self._effective_failure = None
            self._draw_effective(self.clock_ms())
        elif self._asked is not None:
            self._read_effective_now()  # asked for another pair meanwhile: read that one now
            return
        if self.is_mounted:
            # One timer at a time: an answer to r replaces the pending tick rather than start a second chain.
            if self._effective_timer is not None:
                self._effective_timer.stop()
            self._effective_timer = self.set_timer(EFFECTIVE_REFRESH_S, self._effective_tick)

    def _draw_effective(self, now_ms: int) -> None:
        if self._asked is None:
            return
        user, client = self._asked
        label = self.query_one("#effective-quota", Static)
        head = f"effective quotas of user {user} with client-id {client} (Kafka's precedence)"
        if self._effective is None:
            why = self._effective_failure[0] if self._effective_failure else "reading…"
            label.update(f"{head}: unknown: {why}")
            label.set_class(self._effective_failure is not None, "-stale")
            return
        found, at_ms = self._effective
        age = age_text(max(now_ms - at_ms, 0) / 1000)
        when = f"read {clock_text(at_ms)} ({age} ago; every {EFFECTIVE_REFRESH_S:.0f} s while shown, r re-reads)"
        if self._effective_failure is not None:
            when = f"STALE since {clock_text(at_ms)} ({age} ago): {self._effective_failure[0]}"
        label.update("\n".join([f"{head} · {when}", *effective_lines(user, client, found)]))
        label.set_class(self._effective_failure is not None, "-stale")

    def show_clock(self, now_ms: int, link: Any) -> None:
        """The age of the effective quota shown (the app calls this every second while the screen is current)."""
        self._draw_effective(now_ms)

    def action_tab(self, tab: str) -> None:
        """Show one tab and focus its table (``/`` then filters it)."""
        self.query_one("#security-tabs", TabbedContent).active = tab
        self.query_one(f"#security-{tab}", VirtualTable).focus()

    _covered = False  # a screen (a form) was pushed above this one since it was shown

    def on_screen_suspend(self) -> None:
        self._covered = True

    def action_change(self, action: str) -> None:
        """``add``: the form of the tab (an ACL, a password); ``remove``: for the highlighted row."""
        tab = self.query_one("#security-tabs", TabbedContent).active
        row = self.query_one(f"#security-{tab}", VirtualTable).current_row
        if tab == "quotas":  # one form sets and deletes, of the highlighted entity (if any)
            entity = row.data if row is not None and isinstance(row.data, QuotaEntity) else None
            self.post_message(QuotaChangeRequested(entity))
            return
        if tab not in ("acls", "users"):
            return
        if action == "remove" and row is None:
            self.notify("highlight the row to remove first", severity="warning")
            return
        if tab == "acls":
            self.post_message(AclChangeRequested(action, None if row is None or action == "add" else acl_of(row)))
        else:
            user, mechanism = (row.cells[0], row.cells[1]) if row is not None else (None, None)
            self.post_message(UserChangeRequested("set" if action == "add" else "delete", user, mechanism))

    @on(TabbedContent.TabActivated)
    def _tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane.id
        if pane in TABS:
            self.query_one(f"#security-{pane}", VirtualTable).focus()
        if pane == "quotas" and self.is_current:
            self._read_effective_now()

    # ---- reads (worker threads; results come back as messages) --------------------------------------

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-acls")
    def read_acls(self) -> None:
        """Every ACL, as ``kzc acl list`` reads them."""
        try:
            found: AclListing | str = self.source.acl_listing()
        except KzcError as exc:
            found = str(exc)
        self.post_message(self.AclsRead(found))

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-quotas")
    def read_quotas(self) -> None:
        """Every quota entity, as ``kzc quota show`` reads them."""
        try:
            found: QuotaListing | str = self.source.quota_entities()
        except KzcError as exc:
            found = str(exc)
        self.post_message(self.QuotasRead(found))

    @work(thread=True, exclusive=True, exit_on_error=False, group="security-users")
    def read_users(self) -> None:
        """Every SCRAM user, as ``kzc user list`` reads them."""
        try:
            found: UserListing | str = self.source.scram_users()
        except KzcError as exc:
            found = str(exc)
        self.post_message(self.UsersRead(found))

    @on(AclsRead)
    def _acls_read(self, message: AclsRead) -> None:
        table = self.query_one("#security-acls", VirtualTable)
        source = self.query_one("#security-source", Label)
        if isinstance(message.found, str):
            table.set_rows([])
            table.empty_text = f"ACLs unknown: {message.found}"
            source.update("")
            return
        listing = message.found
        table.set_rows(acl_rows(listing))
        state = listing.authorizer
        enforced = state is None or state.enforced is not False
        table.empty_text = "no ACLs" if enforced else "no ACLs in ZooKeeper (none would be enforced: no authorizer)"
        unreadable = f" · {len(listing.unreadable)} ACL znodes unreadable (kzc acl list says which)"
        authorizer = "" if state is None else " · " + " · ".join([state.summary(), *state.caveats()])
        source.update(f"ACLs from {listing.path_reason}" + authorizer + (unreadable if listing.unreadable else ""))

    @on(QuotasRead)
    def _quotas_read(self, message: QuotasRead) -> None:
        table = self.query_one("#security-quotas", VirtualTable)
        if isinstance(message.found, str):
            table.set_rows([])
            table.empty_text = f"quotas unknown: {message.found}"
            return
        table.set_rows(quota_rows(message.found.quotas))
        source = message.found.source
        table.empty_text = "no quotas in ZooKeeper" if source.startswith("ZooKeeper") else f"no quotas ({source})"
        table.border_title = f"Quotas from {message.found.source}"

    @on(UsersRead)
    def _users_read(self, message: UsersRead) -> None:
        table = self.query_one("#security-users", VirtualTable)
        if isinstance(message.found, str):
            table.set_rows([])
            table.empty_text = f"SCRAM users unknown: {message.found}"
            table.border_subtitle = ""
            return
        table.set_rows(user_rows(list(message.found.users)))
        table.empty_text = "no SCRAM users"
        table.border_subtitle = f"from {message.found.path_reason}"

    def export_payload(self) -> dict[str, Any] | None:
        """The three tables as shown (filters applied)."""
        return {tab: self.query_one(f"#security-{tab}", VirtualTable).export_rows() for tab in TABS}
