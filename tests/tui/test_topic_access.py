""" "Who can do what" in the topic detail: the ACLs that apply to the topic (literal, wildcard, prefixed), by
the authorizer's rule, on a recorded cluster; the pane stays hidden when no ACL applies."""

from __future__ import annotations

from core.config import ConnectionSettings, UserConfig
from core.kafka.acls import LITERAL, PREFIXED, Acl, AclBinding, ResourcePattern
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
