"""The consumer groups in the console, on a recorded cluster with synthetic groups: the groups screen (sorted
by lag, unknown first, filterable, trend), the group detail, the groups consuming a topic in its detail and
the counts on the cluster screen."""

from __future__ import annotations

from core.config import ConnectionSettings, UserConfig
from core.groups.lag import GroupLag, Member, PartitionLag
from core.groups.trend import LagTrend
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.cluster import ClusterScreen
from tui.screens.groups import GroupDetailScreen, GroupsScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.widgets.text_line import TextLine
from tui.widgets.virtual_table import VirtualTable

TOPIC = "orders.orders-00000"
MEMBER = Member("consumer-1-abc", "consumer-1", "/10.0.0.7", 2)
GROUPS = (
    GroupLag("billing", "kafka", "Stable", (MEMBER,), (
        PartitionLag(TOPIC, 0, 100, 150, MEMBER.member_id, MEMBER.host, MEMBER.client_id),
        PartitionLag(TOPIC, 1, 90, 100, MEMBER.member_id, MEMBER.host, MEMBER.client_id),
    ), protocol="range", coordinator=2),
    GroupLag("audit", "kafka", "Empty", (), (PartitionLag(TOPIC, 0, 150, 150), PartitionLag(TOPIC, 1, 5, 100))),
    GroupLag("reports", "kafka", "Stable", (MEMBER,), (
        PartitionLag(TOPIC, 0, 10, None, unknown="the brokers did not answer"),
    )),
    GroupLag("legacy", "zookeeper", "Empty", (), (PartitionLag("orders.billing-00080", 0, 3, 3),)),
)  # fmt: skip
TRENDS = {"billing": LagTrend(120.0, 80.0, 60.0, 60, 1.5)}


def make(snapshot: ClusterSnapshot) -> KzcApp:
    backend = RecordedBackend(snapshot, name="recorded", now_ms=lambda: int(FROZEN_NOW * 1000), groups=GROUPS,
                              trends=TRENDS)  # fmt: skip
    return KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)


async def test_groups_screen_sorts_by_lag_unknown_first_and_filters(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GroupsScreen)
        table = app.screen.query_one("#groups", VirtualTable)
        rows = table.visible_rows()
        assert [r.key for r in rows] == ["reports", "audit", "billing", "legacy"]
        assert [r.cells[4] for r in rows] == ["unknown", "95", "60", "0"]
        assert "error" in rows[0].meanings and "warning" in rows[1].meanings
        assert rows[2].cells[6] == "120/s in, 80/s out · catching up, 1s"
        count = app.screen.query_one("#groups-count", TextLine).text
        assert count.startswith("4 groups · 3 lagging · 2 empty with offsets")
        await pilot.press("slash", *"zookeeper")
        assert [r.key for r in table.visible_rows()] == ["legacy"]


async def test_group_detail_lists_every_partition_with_its_lag(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        table = app.screen.query_one("#groups", VirtualTable)
        await pilot.press("down", "down", "enter")  # billing
        await settle(pilot)
        assert table.current_key == "billing"
        screen = app.screen
        assert isinstance(screen, GroupDetailScreen) and screen.group == "billing"
        rows = screen.query_one("#group-partitions", VirtualTable).visible_rows()
        assert [(r.cells[1], r.cells[2], r.cells[3], r.cells[4], r.cells[5]) for r in rows] == [
            ("0", "100", "150", "50", "consumer-1-abc"),
            ("1", "90", "100", "10", "consumer-1-abc"),
        ]
        summary = str(screen.query_one("#group-summary").render())
        assert "lag 60" in summary and "coordinator 2" in summary and "catching up" in summary


async def test_topic_detail_lists_the_groups_consuming_it(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"topic {TOPIC}", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TopicDetailScreen)
        table = app.screen.query_one("#topic-groups", VirtualTable)
        assert table.display
        assert [(r.key, r.cells[2]) for r in table.visible_rows()] == [
            ("reports", "unknown"),
            ("audit", "95"),
            ("billing", "60"),
        ]


async def test_cluster_screen_counts_lagging_and_empty_groups(small_snapshot: ClusterSnapshot) -> None:
    app = make(small_snapshot)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)
        totals = str(app.screen.query_one("#health-totals").render())
        assert "4 consumer groups: 3 lagging · 2 empty with committed offsets" in totals
