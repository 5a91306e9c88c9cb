"""The consumer groups in the console, on a recorded cluster with synthetic groups: the groups screen (sorted
by lag, unknown first, filterable, trend), the group detail, the groups consuming a topic in its detail and
the counts on the cluster screen."""

from __future__ import annotations

import threading
from dataclasses import replace

from textual.widgets import Label

from core.config import ConnectionSettings, UserConfig
from core.console.protocols import GroupDetail, GroupsView
from core.errors import ConnectError
from core.groups.lag import GroupLag, LagTotal, Member, PartitionLag
from core.groups.trend import LagTrend
from core.human_time import clock_text
from core.snapshot.model import ClusterSnapshot
from tests.integration.sandbox_tools import eventually
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.messages import GroupChosen
from tui.screens.cluster import ClusterScreen
from tui.screens.groups import STALE_AFTER_S, GroupDetailScreen, GroupsScreen
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
    backend = RecordedBackend(
        snapshot, name="recorded", now_ms=lambda: int(FROZEN_NOW * 1000), groups=GROUPS, trends=TRENDS
    )
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
        assert rows[2].cells[6] == "produced 80/s, consumed 120/s · catching up, lag gone in ~1s"
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


# ---- a source that stops answering: every number says since when it is stale, and why -------------------


class FailingGroups(RecordedBackend):
    """The recorded groups, read at the app's clock, until ``failing`` (then every read raises it) or until
    ``hang`` is set (then reads block until it is released)."""

    def __init__(self, snapshot: ClusterSnapshot, now: list[float]) -> None:
        super().__init__(snapshot, name="recorded", now_ms=lambda: int(now[0] * 1000), groups=GROUPS, trends=TRENDS)
        self.failing: str | None = None
        self.hang: threading.Event | None = None

    def _read(self) -> GroupsView:
        if self.hang is not None:
            self.hang.wait(30)
        if self.failing is not None:
            raise ConnectError(self.failing)
        view = super().group_overview()
        return replace(view, groups=tuple(replace(g, as_of_ms=view.at_ms) for g in view.groups))

    def group_overview(self) -> GroupsView:
        return self._read()

    def group_detail(self, group: str) -> GroupDetail:
        found = next(g for g in self._read().groups if g.group == group)
        return GroupDetail(found, TRENDS.get(group))

    def groups_of_topic(self, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        return self._read().of_topic(topic)


def failing_app(snapshot: ClusterSnapshot) -> tuple[KzcApp, FailingGroups, list[float]]:
    now = [FROZEN_NOW]
    backend = FailingGroups(snapshot, now)
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: now[0])
    return app, backend, now


def as_of_cells(app: KzcApp) -> dict[str, str]:
    table = app.screen.query_one("#groups", VirtualTable)
    return {r.key: r.cells[-1] for r in table.visible_rows()}


async def test_groups_that_stop_answering_say_since_when_they_are_stale_and_why(
    small_snapshot: ClusterSnapshot,
) -> None:
    app, backend, now = failing_app(small_snapshot)
    read_at = clock_text(int(FROZEN_NOW * 1000))
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GroupsScreen)
        assert as_of_cells(app)["billing"] == read_at
        backend.failing = "the brokers did not answer within 8 s"
        now[0] += 7
        await pilot.press("r")
        await settle(pilot)
        cells = as_of_cells(app)
        assert set(cells.values()) == {f"stale since {read_at} (the brokers did not answer within 8 s)"}
        rows = {r.key: r for r in app.screen.query_one("#groups", VirtualTable).visible_rows()}
        assert rows["billing"].cells[4] == "60" and rows["billing"].cells[6] == "- (stale)"  # last good, no rate
        count = app.screen.query_one("#groups-count", TextLine).text
        assert f"stale since {read_at} (the brokers did not answer within 8 s)" in count
        backend.failing = None
        await pilot.press("r")
        await settle(pilot)
        assert as_of_cells(app)["billing"] == clock_text(int(now[0] * 1000))


async def test_numbers_whose_read_never_finishes_turn_stale_as_time_passes(small_snapshot: ClusterSnapshot) -> None:
    app, backend, now = failing_app(small_snapshot)
    read_at = clock_text(int(FROZEN_NOW * 1000))
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        backend.hang = threading.Event()
        try:
            await pilot.press("r")  # this read hangs: no answer, no error
            now[0] += STALE_AFTER_S + 10
            stale = f"stale since {read_at} (no read has finished for 40s)"
            await eventually(pilot, lambda: set(as_of_cells(app).values()) == {stale}, 5, "the ages to tick")
        finally:
            backend.hang.set()


async def test_the_group_detail_marks_its_numbers_stale_when_the_group_cannot_be_read(
    small_snapshot: ClusterSnapshot,
) -> None:
    app, backend, _now = failing_app(small_snapshot)
    async with app.run_test(size=(200, 30)) as pilot:
        await settle(pilot)
        app.post_message(GroupChosen("billing"))
        await settle(pilot)
        assert isinstance(app.screen, GroupDetailScreen)
        summary = app.screen.query_one("#group-summary", Label)
        assert "lag 60" in str(summary.render()) and "read " in str(summary.render())
        backend.failing = "coordinator 2 did not answer"
        await pilot.press("r")
        await settle(pilot)
        text = str(summary.render())
        assert "lag 60" in text
        assert f"stale since {clock_text(int(FROZEN_NOW * 1000))} (coordinator 2 did not answer)" in text
        assert summary.has_class("-offline")


async def test_the_topic_detail_shows_its_groups_pane_with_the_reason_when_groups_cannot_be_read(
    small_snapshot: ClusterSnapshot,
) -> None:
    app, backend, now = failing_app(small_snapshot)
    backend.failing = "no broker answered"
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *f"topic {TOPIC}", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TopicDetailScreen)
        table = app.screen.query_one("#topic-groups", VirtualTable)
        await eventually(pilot, lambda: table.display, 5, "the groups pane")
        assert table.empty_text == f"consumer groups unknown since {clock_text(int(now[0] * 1000))}: no broker answered"
