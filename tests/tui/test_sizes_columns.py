"""Sizes in the console (DescribeLogDirs through the backend's ``log_dirs``, ``core.snapshot.sizes``): the topics
table's size and on-disk columns and their sort, the partitions table's, the brokers' totals on the cluster
screen, the read time and the reasons for ``?`` on the count lines; the broker screen's log dirs with an
offline dir and the replicas it held; the likely-cause line naming that dir."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from textual.widgets import Label, Static

from core.brokers.logdirs import BrokerLogDirs, LogDir
from core.human_size import human_size
from core.snapshot.model import ClusterSnapshot
from core.snapshot.sizes import SizesView, partition_size
from core.testdata.builder import broker, snapshot, state, topic
from core.testdata.log_dirs import synthetic_log_dirs
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.messages import BrokerChosen, PartitionsChosen, TopicChosen
from tui.screens.broker import BrokerScreen
from tui.screens.partitions import PartitionsScreen
from tui.screens.topics import TopicsScreen
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]
NOW_MS = int(FROZEN_NOW * 1000)


def _text(app: KzcApp, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_topic_sizes_are_what_the_brokers_report_and_sort(
    make_app: MakeApp, small_snapshot: ClusterSnapshot
) -> None:
    dirs = synthetic_log_dirs(small_snapshot, NOW_MS)
    expected = SizesView.of(dirs, NOW_MS).topics(small_snapshot)
    app = make_app(log_dirs=dirs)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TopicsScreen)
        table = app.screen.query_one("#topics", VirtualTable)
        rows = table.visible_rows()
        size_at = [c.key for c in table.columns].index("size")
        for row in rows:
            want = expected[row.key]
            assert row.values is not None and row.values[size_at] == want.size
            assert row.cells[size_at] == (human_size(want.size) if want.size is not None else "?")
            assert row.values[size_at + 1] == want.on_disk
        # broker 6 is down: the topics with a replica there have no bytes on disk known, and the line says why
        assert any(expected[r.key].on_disk is None for r in rows)
        count = _text(app, "#topics-count")
        assert "sizes 22:13:20 · ? broker 6 not registered" in count
        table.sort_by(size_at)
        table.sort_by(size_at)  # descending: the largest first
        await pilot.pause()
        sizes = [r.values[size_at] for r in table.visible_rows() if r.values is not None]
        known = [s for s in sizes if s is not None]
        assert known == sorted(known, reverse=True) and known[0] == max(v.size or 0 for v in expected.values())
        assert "sorted by size ▼" in _text(app, "#topics-count")


async def test_a_broker_that_cannot_say_leaves_question_marks_and_its_reason(
    make_app: MakeApp, small_snapshot: ClusterSnapshot
) -> None:
    why = "broker 1 has no DescribeLogDirs (Kafka 1.0.0+; its ApiVersions lacks api key 35)"
    app = make_app(log_dirs=synthetic_log_dirs(small_snapshot, NOW_MS, unknown={1: why}))
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert f"· ? broker 6 not registered; {why}" in _text(app, "#topics-count")
        table = app.screen.query_one("#topics", VirtualTable)
        assert any(r.cells[3] == "?" for r in table.visible_rows())


async def test_partition_sizes_and_broker_totals(make_app: MakeApp, small_snapshot: ClusterSnapshot) -> None:
    dirs = synthetic_log_dirs(small_snapshot, NOW_MS)
    view = SizesView.of(dirs, NOW_MS)
    app = make_app(log_dirs=dirs)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        brokers = app.screen.query_one("#brokers", VirtualTable)
        size_at = [c.key for c in brokers.columns].index("size")
        for row in brokers.visible_rows():
            total = view.broker_total(int(row.key))
            assert row.cells[size_at] == (human_size(total) if total is not None else "?")
        assert (brokers.border_title or "").endswith(" · sizes 22:13:20")
        app.post_message(PartitionsChosen("partitions on broker 2", None, 2))
        await settle(pilot)
        assert isinstance(app.screen, PartitionsScreen)
        table = app.screen.query_one("#selected-partitions", VirtualTable)
        keys = [c.key for c in table.columns]
        rows = table.visible_rows()
        assert rows
        for row in rows:
            name, partition = row.key.rsplit(":", 1)
            want = partition_size(small_snapshot, view, small_snapshot.topics[name], int(partition))
            assert row.values is not None and row.values[keys.index("size")] == want.size
            assert row.values[keys.index("on_disk")] == want.on_disk
        assert "sizes 22:13:20 · ? broker 6 not registered" in _text(app, "#partitions-title")


ON_A_FAILED_DIR = snapshot(
    brokers=(broker(1, "r1"), broker(2, "r2"), broker(3, "r3")),
    topics=[
        topic(
            "orders",
            {0: (1, 2), 1: (2, 3), 2: (3, 1)},
            states={0: state(1, (1,)), 1: state(3, (3,)), 2: state(3, (3, 1))},
        ),
        topic("audit", {0: (2, 1)}, states={0: state(1, (1,))}),
    ],
    taken_at_ms=NOW_MS,
)


def _failed_dir(snapshot_: ClusterSnapshot) -> dict[int, BrokerLogDirs]:
    """Broker 2's dir 1 failed (every replica of broker 2 was on it); its dir 2 is online and empty."""
    dirs = synthetic_log_dirs(snapshot_, NOW_MS, dirs_per_broker=1, offline={2: (1,)})
    assert dirs[2].dirs is not None
    dirs[2] = BrokerLogDirs(2, NOW_MS, (dirs[2].dirs[0], LogDir("/data/2/d2", 0, ())))
    return dirs


async def test_the_likely_cause_and_the_broker_screen_name_the_offline_dir(make_app: MakeApp) -> None:
    app = make_app(snapshot=ON_A_FAILED_DIR, log_dirs=_failed_dir(ON_A_FAILED_DIR))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        line = app.screen.query_one("#likely-cause", Label)
        await settle(pilot)
        assert str(line.render()).startswith(
            "likely cause: 3 of 3 under-replicated partitions lack broker 2 in their ISR; broker 2 is registered "
            "but log dir /data/2/d1 is offline (KAFKA_STORAGE_ERROR, DescribeLogDirs read 22:13:20)"
        )
        app.post_message(BrokerChosen(2))
        await settle(pilot)
        assert isinstance(app.screen, BrokerScreen)
        header = str(app.screen.query_one("#broker-header", Static).render())
        assert "log dirs: /data/2/d1 OFFLINE · /data/2/d2 0 B" in header
        assert "3 replicas in no online log dir (were on an offline dir): audit-0, orders-0, orders-1" in header
        rows = app.screen.query_one("#broker-replicas", VirtualTable).visible_rows()
        assert {r.key for r in rows if r.cells[-1] == "in no online log dir"} == {"audit-0", "orders-0", "orders-1"}


async def test_the_topic_detail_shows_each_partitions_size_and_the_topics(
    make_app: MakeApp, small_snapshot: ClusterSnapshot
) -> None:
    dirs = synthetic_log_dirs(small_snapshot, NOW_MS)
    view = SizesView.of(dirs, NOW_MS)
    # every topic has a replica on broker 6 (down): its bytes on disk are unknown, its size (leaders) is not
    name = next(n for n, e in sorted(small_snapshot.topics.items()) if view.topic(small_snapshot, e).size is not None)
    want = view.topic(small_snapshot, small_snapshot.topics[name])
    app = make_app(log_dirs=dirs)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        app.post_message(TopicChosen(name))
        await settle(pilot)
        table = app.screen.query_one("#partitions", VirtualTable)
        keys = [c.key for c in table.columns]
        for row in table.visible_rows():
            one = partition_size(small_snapshot, view, small_snapshot.topics[name], int(row.key))
            assert row.values is not None and row.values[keys.index("size")] == one.size
            assert row.values[keys.index("on_disk")] == one.on_disk
        assert want.size is not None and want.on_disk is None
        summary = _text(app, "#topic-summary")
        assert f"size {human_size(want.size)}, ? on disk (? {want.unknown}) · sizes 22:13:20" in summary
        assert "broker 6 was not asked (not registered)" in summary


async def test_a_broker_that_stopped_answering_keeps_its_sizes_marked_stale(
    make_app: MakeApp, small_snapshot: ClusterSnapshot
) -> None:
    dirs = synthetic_log_dirs(small_snapshot, NOW_MS - 60_000)
    why = "broker 2: DescribeLogDirs to kafka-2.example:9092 failed: timed out"
    dirs[2] = dataclasses.replace(dirs[2], stale=why)  # as SizeBook keeps it after a failed read
    app = make_app(log_dirs=dirs)
    async with app.run_test(size=(220, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        count = _text(app, "#topics-count")
        assert f"broker 2: stale since 22:12:20 ({why})" in count
        table = app.screen.query_one("#topics", VirtualTable)
        size_at = [c.key for c in table.columns].index("size")
        assert any(r.values is not None and r.values[size_at] is not None for r in table.visible_rows())
