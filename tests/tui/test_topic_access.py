""" "Who can do what" in the topic detail: the ACLs that apply to the topic (literal, wildcard, prefixed), by
the authorizer's rule, on a recorded cluster; the pane stays hidden when no ACL applies."""

from __future__ import annotations

from core.brokers.acls import DescribedAcls
from core.config import ConnectionSettings, UserConfig
from core.kafka.acls import LITERAL, PREFIXED, Acl, AclBinding, AuthorizerProperties, ResourcePattern
from core.security.authorizer import AuthorizerState, BrokerAuthorizer, answer
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.topic_detail import TopicDetailScreen
from tui.widgets.virtual_table import VirtualTable

TOPIC = "orders.orders-00000"
ACLS = (
    AclBinding(ResourcePattern("Topic", TOPIC, LITERAL), Acl("User:alice", "Allow", "Read")),
    AclBinding(ResourcePattern("Topic", "orders.", PREFIXED), Acl("User:etl", "Allow", "Write")),
    AclBinding(ResourcePattern("Topic", "*", LITERAL), Acl("User:mallory", "Deny", "All")),
    AclBinding(ResourcePattern("Topic", "billing", LITERAL), Acl("User:bob", "Allow", "Read")),
)


def make(snapshot: ClusterSnapshot, acls: tuple[AclBinding, ...]) -> KzcApp:
    backend = RecordedBackend(snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), acls=acls)
    return KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)


async def test_the_topic_detail_says_who_can_do_what_on_the_topic(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot, ACLS)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"topic {TOPIC}", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TopicDetailScreen)
        table = app.screen.query_one("#topic-access", VirtualTable)
        assert table.display
        rows = [r.cells for r in table.visible_rows()]
        assert ("User:alice", "*", "allowed", "Read, Describe") in rows
        assert ("User:etl", "*", "allowed", "Write, Describe") in rows
        assert ("User:mallory", "*", "denied", "Read, Write, Create, Describe, Delete, Alter, DescribeConfigs, "
                "AlterConfigs") in rows  # fmt: skip
        assert not any(r[0] == "User:bob" for r in rows)  # an ACL on another topic


async def test_the_pane_is_hidden_when_no_acl_applies(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot, ACLS[3:])
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"topic {TOPIC}", "enter")
        await settle(pilot)
        assert not app.screen.query_one("#topic-access", VirtualTable).display


async def test_the_pane_agrees_with_acl_check_and_names_the_authorizer(small_snapshot: ClusterSnapshot) -> None:
    """Every operation the pane shows allowed or denied is what ``kzc acl check``'s ``answer`` says for that
    principal and host; ``User:*`` and the super users are listed; the authorizer is named in the title."""
    properties = AuthorizerProperties(("User:admin",), False, frozenset({"super.users"}))
    state = AuthorizerState(
        (BrokerAuthorizer(1, "kafka.security.authorizer.AclAuthorizer", DescribedAcls()),), properties, (3, 9)
    )
    backend = RecordedBackend(small_snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), acls=ACLS, authorizer=state)
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"topic {TOPIC}", "enter")
        await settle(pilot)
        table = app.screen.query_one("#topic-access", VirtualTable)
        rows = [r.cells for r in table.visible_rows()]
        assert "AclAuthorizer on broker 1" in str(table.border_title)
        assert "allow.everyone.if.no.acl.found (Kafka's default: false)" in str(table.border_subtitle)
    assert {r[0] for r in rows} == {"User:*", "User:admin", "User:alice", "User:etl", "User:mallory"}
    for principal, host, verdict, operations in rows:
        for operation in operations.split(", "):
            said = answer(ACLS, state, principal, "Topic", TOPIC, operation=operation, host=host)
            assert said.allowed is (verdict == "allowed"), (principal, operation, said.decided_by)
