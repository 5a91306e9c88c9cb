"""The security screen's forms on a recorded cluster: ``+`` adds an ACL and ``-`` removes the highlighted one,
each previewed as ``kzc acl add|remove`` prints it, applied only after the typed confirmation, then read again;
a SCRAM password set from masked fields never appears on any screen, in a notification or in the event log;
read-only mode refuses with the CLI's message and changes nothing; a refusal is shown and changes nothing."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from textual import events
from textual.notifications import SeverityLevel
from textual.widgets import Input, Static

import tui.app
from core.config import ConnectionSettings, UserConfig
from core.errors import KafkaRuleError
from core.kafka.acls import LITERAL, PREFIXED, Acl, AclBinding, ResourcePattern
from core.kafka.quotas import QuotaEntity
from core.kafka.scram import ScramCredentialInfo
from core.security.acls import AclPlan
from core.security.quotas import QuotaPlan
from core.security.users import CredentialPlan, ScramUser
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend, RecordedSecurity
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.security import SecurityScreen
from tui.screens.security_forms import AclFormScreen, QuotaFormScreen, UserFormScreen
from tui.widgets.virtual_table import VirtualTable

ACLS = (
    AclBinding(ResourcePattern("Topic", "orders", LITERAL), Acl("User:alice", "Allow", "Read")),
    AclBinding(ResourcePattern("Group", "billing", LITERAL), Acl("User:bob", "Deny", "Read")),
)
USERS = [ScramUser("alice", (ScramCredentialInfo("SCRAM-SHA-256", 4096),))]
QUOTAS = {QuotaEntity("alice", None): {"producer_byte_rate": "1048576"}}
SECRET = "Hunter2SecretXyz9"
KEY_NAMES = {":": "colon", ".": "full_stop", ",": "comma", "*": "asterisk", "-": "minus", " ": "space"}


class Console(KzcApp):
    """The console, keeping every notification's text."""

    CSS_PATH = str(Path(tui.app.__file__).with_name("app.tcss"))

    def __init__(self, backend: RecordedBackend) -> None:
        super().__init__(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)
        self.notified: list[str] = []

    def notify(self, message: str, *, severity: SeverityLevel = "information", **kwargs: Any) -> None:
        self.notified.append(message)
        super().notify(message, severity=severity, **kwargs)


def make(snapshot: ClusterSnapshot, read_only: bool = False) -> tuple[Console, RecordedSecurity]:
    backend = RecordedBackend(snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), acls=ACLS, users=USERS,
                              quotas=QUOTAS, read_only=read_only, security_writes=True)  # fmt: skip
    assert backend.security is not None
    return Console(backend), backend.security


async def fill(pilot: Any, field: str, text: str) -> None:
    """Focus ``field``, empty it and type ``text`` as a user does: the keys arrive one after another without
    waiting for the screen (``Pilot.press`` idles after every key, most of this module's time), and the field is
    filled once it holds the text."""
    widget = pilot.app.screen.query_one(f"#{field}", Input)
    widget.focus()
    widget.value = ""
    for char in text:
        pilot.app.post_message(events.Key(KEY_NAMES.get(char, char), char))
    deadline = time.monotonic() + 30
    while widget.value != text:
        assert time.monotonic() < deadline, f"#{field} holds {widget.value!r} after typing {text!r}"
        await pilot.pause()


def shown(app: KzcApp, widget: str) -> str:
    return str(app.screen.query_one(f"#{widget}", Static).render())


def acl_cells(app: KzcApp) -> list[tuple[str, ...]]:
    return [r.cells for r in app.screen.query_one("#security-acls", VirtualTable).visible_rows()]


async def open_security(pilot: Any) -> None:
    await settle(pilot)
    await pilot.press("A")
    await settle(pilot)
    assert isinstance(pilot.app.screen, SecurityScreen)


async def test_plus_adds_an_acl_after_the_preview_and_the_typed_name(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert isinstance(app.screen, AclFormScreen)
        await fill(pilot, "principal", "User:carol")
        await fill(pilot, "operation", "Read,Describe")
        await fill(pilot, "name", "orders")
        await pilot.press("enter")  # Enter in a field previews
        await settle(pilot)
        preview = shown(app, "security-preview")
        assert "ACLs on Topic:orders" in preview
        assert "+ Allow User:carol Describe from *" in preview and "+ Allow User:carol Read from *" in preview
        assert "  Allow User:alice Read from *" in preview  # what stays
        assert "via ZooKeeper: a recording" in preview
        assert "set /kafka-acl/Topic/orders (if version is 0)" in preview  # what will be written
        await fill(pilot, "confirm", "order")
        await pilot.press("enter")
        await settle(pilot)
        assert security.applied == []
        assert "Type orders to apply; nothing was changed." in shown(app, "security-status")
        await fill(pilot, "confirm", "orders")
        await pilot.press("enter")
        await settle(pilot)
        (plan,) = security.applied
        assert isinstance(plan, AclPlan) and plan.action == "add"
        assert plan.requested == (Acl("User:carol", "Allow", "Describe"), Acl("User:carol", "Allow", "Read"))
        assert "Done: added on Topic:orders in ZooKeeper" in shown(app, "security-status")
        assert app.journal.lines[-1].text == "you: add ACLs on Topic:orders: done"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, SecurityScreen)
        assert ("Topic", "LITERAL", "orders", "User:carol", "*", "Read", "Allow") in acl_cells(app)  # read again


async def test_an_edit_after_the_preview_needs_a_new_preview(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("a")
        await settle(pilot)
        await fill(pilot, "principal", "User:carol")
        await fill(pilot, "operation", "Write")
        await fill(pilot, "name", "orders.")
        app.screen.query_one("#pattern").value = PREFIXED  # type: ignore[attr-defined]
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "ACLs on Topic:orders. (prefixed)" in shown(app, "security-preview")
        await fill(pilot, "operation", "Read")
        await fill(pilot, "confirm", "orders.")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert security.applied == []
        assert "Preview first" in shown(app, "security-status")


async def test_a_bad_operation_is_refused_in_kafkas_words(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("plus")
        await settle(pilot)
        await fill(pilot, "principal", "User:carol")
        await fill(pilot, "operation", "Write")
        app.screen.query_one("#resource-type").value = "Group"  # type: ignore[attr-defined]
        await fill(pilot, "name", "billing")
        await pilot.press("enter")
        await settle(pilot)
        assert "ResourceType Group only supports operations Read,Describe,Delete,All" in shown(app, "security-preview")
        await fill(pilot, "confirm", "billing")
        await pilot.press("enter")
        await settle(pilot)
        assert security.applied == []


async def test_minus_removes_the_highlighted_acl(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        assert acl_cells(app)[0] == ("Group", "LITERAL", "billing", "User:bob", "*", "Read", "Deny")
        await pilot.press("minus")
        await settle(pilot)
        assert isinstance(app.screen, AclFormScreen)
        assert app.screen.query_one("#principal", Input).value == "User:bob"
        await pilot.press("ctrl+d")
        await settle(pilot)
        preview = shown(app, "security-preview")
        assert "- Deny User:bob Read from *" in preview
        assert "delete /kafka-acl/Group/billing (if version is 0)" in preview  # the last ACL: the znode goes
        await fill(pilot, "confirm", "billing")
        await pilot.press("ctrl+s")
        await settle(pilot)
        (plan,) = security.applied
        assert isinstance(plan, AclPlan) and plan.action == "remove" and plan.after == frozenset()
        await pilot.press("escape")
        await settle(pilot)
        assert [r[2] for r in acl_cells(app)] == ["orders"]


async def test_read_only_previews_but_refuses_with_the_clis_message(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot, read_only=True)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("minus")
        await settle(pilot)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "- Deny User:bob Read from *" in shown(app, "security-preview")  # the preview is the CLI's --dry-run
        await fill(pilot, "confirm", "billing")
        await pilot.press("enter")
        await settle(pilot)
        refusal = "kzc is read-only (--read-only): refusing every mutation"
        assert shown(app, "security-status") == f"Refused: {refusal}"
        assert security.applied == []
        assert app.journal.lines[-1].text == f"you: remove ACLs on Group:billing: not done: {refusal}"
        await pilot.press("escape")
        await settle(pilot)
        assert len(acl_cells(app)) == 2


async def test_a_brokers_refusal_is_shown_and_changes_nothing(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    security.refusal = KafkaRuleError("Cluster authorization failed.", "ClusterAuthorizationException")
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("minus")
        await settle(pilot)
        await pilot.press("ctrl+d")
        await settle(pilot)
        await fill(pilot, "confirm", "billing")
        await pilot.press("enter")
        await settle(pilot)
        assert shown(app, "security-status") == "Refused: Cluster authorization failed."
        assert security.applied == []


async def test_a_password_is_set_and_never_shown(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("plus")
        await settle(pilot)
        assert isinstance(app.screen, UserFormScreen)
        assert app.screen.query_one("#user", Input).value == "alice"  # the highlighted row's
        await fill(pilot, "iterations", "8192")
        await fill(pilot, "password", SECRET)
        await fill(pilot, "again", SECRET)
        screens = [app.export_screenshot()]
        await pilot.press("enter")
        await settle(pilot)
        preview = shown(app, "security-preview")
        assert "replace SCRAM-SHA-256 credential (iterations 8192)" in preview
        assert "password from the console form (not shown)" in preview
        await fill(pilot, "confirm", "alice")
        screens.append(app.export_screenshot())
        await pilot.press("enter")
        await settle(pilot)
        (plan,) = security.applied
        assert isinstance(plan, CredentialPlan) and plan.password == SECRET  # what was typed was applied
        assert SECRET not in repr(plan)
        assert app.screen.query_one("#password", Input).value == ""  # forgotten once applied
        screens.append(app.export_screenshot())
        await pilot.press("escape")
        await settle(pilot)
        assert [r.cells for r in app.screen.query_one("#security-users", VirtualTable).visible_rows()] == [
            ("alice", "SCRAM-SHA-256", "8192")
        ]
        screens.append(app.export_screenshot())
        await pilot.press("c")
        await settle(pilot)
        screens.append(app.export_screenshot())  # the event log
        assert app.journal.lines[-1].text == "you: set SCRAM credentials of user alice: done"
        for text in [*screens, *app.notified, *(line.text for line in app.journal.lines)]:
            assert SECRET not in text


async def test_differing_passwords_change_nothing(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("plus")
        await settle(pilot)
        await fill(pilot, "password", SECRET)
        await fill(pilot, "again", SECRET + "x")
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert "the passwords differ: nothing was changed" in shown(app, "security-preview")
        await fill(pilot, "confirm", "alice")
        await pilot.press("enter")
        await settle(pilot)
        assert security.applied == []


async def test_minus_on_a_user_deletes_that_mechanism(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("d")
        await settle(pilot)
        assert isinstance(app.screen, UserFormScreen)
        await pilot.press("ctrl+d")
        await settle(pilot)
        preview = shown(app, "security-preview")
        assert "delete SCRAM-SHA-256 credential (iterations 4096)" in preview
        assert "deletion (user=alice, mechanism=SCRAM-SHA-256)" in preview
        await fill(pilot, "confirm", "alice")
        await pilot.press("enter")
        await settle(pilot)
        (plan,) = security.applied
        assert isinstance(plan, CredentialPlan) and plan.action == "delete" and plan.mechanisms == ("SCRAM-SHA-256",)
        assert "now has no SCRAM credentials" in shown(app, "security-status")
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.query_one("#security-users", VirtualTable).visible_rows() == []


async def test_a_recording_without_writes_says_so(small_snapshot: ClusterSnapshot) -> None:
    backend = RecordedBackend(small_snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), acls=ACLS)
    app = Console(backend)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("plus")
        await settle(pilot)
        assert isinstance(app.screen, SecurityScreen)
        assert app.notified[-1] == "ACL changes: not available here (a recording, or not connected yet)"


async def test_opening_reads_once_and_coming_back_from_a_form_reads_again(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    backend = security.backend
    reads: list[int] = []
    listing = backend.acl_listing

    def counted() -> Any:
        reads.append(1)
        return listing()

    backend.acl_listing = counted  # type: ignore[method-assign]
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        assert len(reads) == 1
        await pilot.press("plus")
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert len(reads) == 2


async def test_a_preview_that_answers_after_an_edit_is_dropped(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    release = threading.Event()
    plan_acl = security.plan_acl

    def slow(action: str, pattern: ResourcePattern, acls: Sequence[Acl]) -> AclPlan:
        release.wait(30)
        return plan_acl(action, pattern, acls)

    security.plan_acl = slow  # type: ignore[method-assign]
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("minus")
        await settle(pilot)
        await pilot.press("ctrl+d")
        await pilot.pause()
        await fill(pilot, "operation", "Describe")  # an edit while the preview is being made
        release.set()
        await settle(pilot)
        await fill(pilot, "confirm", "billing")
        await pilot.press("enter")
        await settle(pilot)
        assert security.applied == []
        assert "Preview first" in shown(app, "security-status")


def quota_cells(app: KzcApp) -> list[tuple[str, ...]]:
    return [r.cells for r in app.screen.query_one("#security-quotas", VirtualTable).visible_rows()]


async def test_plus_on_a_quota_row_changes_that_entitys_quotas(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("2", "plus")
        await settle(pilot)
        assert isinstance(app.screen, QuotaFormScreen)
        assert app.screen.query_one("#quota-user", Input).value == "alice"  # the highlighted entity
        await fill(pilot, "quota-set", "consumer_byte_rate=2048")
        await fill(pilot, "quota-delete", "producer_byte_rate")
        await pilot.press("enter")
        await settle(pilot)
        preview = shown(app, "security-preview")
        assert "quotas of user alice" in preview
        assert "~ producer_byte_rate: 1048576 -> (none)" in preview
        assert "~ consumer_byte_rate: (none) -> 2048" in preview
        assert "via ZooKeeper: a recording" in preview
        await fill(pilot, "confirm", "alice")
        await pilot.press("enter")
        await settle(pilot)
        (plan,) = security.applied
        assert isinstance(plan, QuotaPlan) and plan.after == {"consumer_byte_rate": "2048"}
        assert "user alice now has consumer_byte_rate=2048" in shown(app, "security-status")
        await pilot.press("escape")
        await settle(pilot)
        assert ("user", "alice", "-", "consumer_byte_rate=2048") in quota_cells(app)  # read again


async def test_a_bad_quota_value_or_key_is_refused_and_changes_nothing(small_snapshot: ClusterSnapshot) -> None:
    app, security = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await open_security(pilot)
        await pilot.press("2", "plus")
        await settle(pilot)
        await fill(pilot, "quota-set", "producer_byte_rate")
        await pilot.press("enter")
        await settle(pilot)
        assert "give KEY=VALUE" in shown(app, "security-preview") + shown(app, "security-status")
        await fill(pilot, "quota-set", "producer_byte_rate=fast")
        await pilot.press("enter")
        await settle(pilot)
        assert shown(app, "security-preview").startswith("cannot preview:")
        assert security.applied == []
