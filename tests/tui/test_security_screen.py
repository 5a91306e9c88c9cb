"""The security screen (``A``) on a recorded cluster: every ACL (filtered with ``/``), every quota entity and
every SCRAM user (mechanisms and iterations only), ``r`` reads again, and a failed read says why."""

from __future__ import annotations

from core.config import ConnectionSettings, UserConfig
from core.errors import ConnectError
from core.kafka.acls import LITERAL, PREFIXED, Acl, AclBinding, ResourcePattern
from core.kafka.quotas import DEFAULT, QuotaEntity
from core.kafka.scram import ScramCredentialInfo
from core.security.quotas import QuotaListing
from core.security.users import ScramUser
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.security import SecurityScreen
from tui.widgets.virtual_table import VirtualTable

ACLS = (
    AclBinding(ResourcePattern("Topic", "orders", LITERAL), Acl("User:alice", "Allow", "Read")),
    AclBinding(ResourcePattern("Topic", "orders.", PREFIXED), Acl("User:etl", "Allow", "Write", "10.0.0.1")),
    AclBinding(ResourcePattern("Group", "billing", LITERAL), Acl("User:bob", "Deny", "Read")),
)
QUOTAS = {
    QuotaEntity("alice", None): {"producer_byte_rate": "1024"},
    QuotaEntity("alice", "app1"): {"consumer_byte_rate": "2048", "request_percentage": "50"},
    QuotaEntity(None, DEFAULT): {"producer_byte_rate": "4096"},
}
USERS = [
    ScramUser("alice", (ScramCredentialInfo("SCRAM-SHA-256", 4096), ScramCredentialInfo("SCRAM-SHA-512", 8192))),
    ScramUser("bob", (ScramCredentialInfo("SCRAM-SHA-512", None),)),
]


def make(snapshot: ClusterSnapshot, backend: RecordedBackend | None = None) -> KzcApp:
    backend = backend or RecordedBackend(
        snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), acls=ACLS, quotas=QUOTAS, users=USERS
    )
    return KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)


def cells(app: KzcApp, table: str) -> list[tuple[str, ...]]:
    return [r.cells for r in app.screen.query_one(f"#security-{table}", VirtualTable).visible_rows()]


async def test_A_opens_every_acl_quota_and_user(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert isinstance(app.screen, SecurityScreen)
        assert cells(app, "acls") == [
            ("Group", "LITERAL", "billing", "User:bob", "*", "Read", "Deny"),
            ("Topic", "LITERAL", "orders", "User:alice", "*", "Read", "Allow"),
            ("Topic", "PREFIXED", "orders.", "User:etl", "10.0.0.1", "Write", "Allow"),
        ]
        assert cells(app, "quotas") == [
            ("client-id (default)", "-", DEFAULT, "producer_byte_rate=4096"),
            ("user", "alice", "-", "producer_byte_rate=1024"),
            ("user+client-id", "alice", "app1", "consumer_byte_rate=2048, request_percentage=50"),
        ]
        assert cells(app, "users") == [
            ("alice", "SCRAM-SHA-256", "4096"),
            ("alice", "SCRAM-SHA-512", "8192"),
            ("bob", "SCRAM-SHA-512", "unreadable"),
        ]
        note = str(app.screen.query_one("#security-note").render())
        assert "+ add ACL / set password · - remove highlighted" in note


async def test_the_palette_opens_it_and_the_filter_narrows_the_acls(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"security", "enter")
        await settle(pilot)
        assert isinstance(app.screen, SecurityScreen)
        await pilot.press("slash", *"alice", "enter")
        await settle(pilot)
        assert [r[3] for r in cells(app, "acls")] == ["User:alice"]
        await pilot.press("slash", *"Write", "enter")
        await settle(pilot)
        assert [r[3] for r in cells(app, "acls")] == ["User:etl"]


async def test_number_keys_switch_tabs_and_the_filter_follows_the_tab(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        await pilot.press("3")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#security-users")
        await pilot.press("slash", *"bob", "enter")
        await settle(pilot)
        assert cells(app, "users") == [("bob", "SCRAM-SHA-512", "unreadable")]
        assert len(cells(app, "acls")) == 3  # the other tabs keep their rows
        await pilot.press("2")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#security-quotas")


async def test_r_reads_again_and_a_failed_read_says_why(small_snapshot: ClusterSnapshot) -> None:
    backend = RecordedBackend(small_snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), acls=ACLS[:1])
    app = make(small_snapshot, backend)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("A")
        await settle(pilot)
        assert len(cells(app, "acls")) == 1
        assert app.screen.query_one("#security-quotas", VirtualTable).empty_text == "no quotas in ZooKeeper"
        backend.acls = ACLS
        backend.users = USERS

        def lost() -> QuotaListing:
            raise ConnectError("ZooKeeper session lost")

        backend.quota_entities = lost  # type: ignore[method-assign]
        await pilot.press("r")
        await settle(pilot)
        assert len(cells(app, "acls")) == 3
        assert len(cells(app, "users")) == 3
        quotas = app.screen.query_one("#security-quotas", VirtualTable)
        assert quotas.empty_text == "quotas unknown: ZooKeeper session lost"
        assert cells(app, "quotas") == []
