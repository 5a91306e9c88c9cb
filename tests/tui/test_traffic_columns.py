"""Traffic in the console (``core.traffic.ticker`` through the backend's ``traffic``, fed by synthetic high
watermarks and log sizes): the topics table's msg/s and in/s columns and ``h`` (hottest first), ``idle`` and
``?`` with the reason, the cluster screen's traffic line, the brokers' columns and the load findings on the
likely-cause line (after the health it explains; a stopped topic's held while it stays idle), the
broker and topic screens' sparklines and the broker's log dirs with their growth."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from textual.pilot import Pilot
from textual.widgets import Sparkline

from core.config import KafkaSecurity
from core.groups.lag import KAFKA, GroupLag, Member, PartitionLag
from core.human_time import clock_text
from core.snapshot.model import ClusterSnapshot
from core.testdata.snapshots import synthetic_snapshot
from core.testdata.traffic import TICK_MS, SyntheticTraffic
from core.traffic.sample import Layout
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.messages import BrokerChosen, PartitionsChosen, TopicChosen
from tui.screens.broker import BrokerScreen
from tui.screens.cluster import ClusterScreen
from tui.screens.partitions import PartitionsScreen
from tui.screens.topics import TopicsScreen
from tui.widgets.traffic_panel import TrafficPanel
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]
NOW_MS = int(FROZEN_NOW * 1000)
HOT, WARM = "clicks.orders-00002", "orders.orders-00000"
WARM_HEALTHY = "payments.orders-00001"
OFFLINE = "events.orders-00011"  # one partition led by nobody (broker 6 is down)
LAGGING = "search.orders-00005"  # one partition whose ISR lacks broker 3


def _healthy() -> ClusterSnapshot:
    """Topics of 4 partitions on 6 live brokers, without the synthetic topic with an offline partition."""
    snapshot = synthetic_snapshot(topics=20, partitions_per_topic=4)
    return dataclasses.replace(snapshot, topics={k: v for k, v in snapshot.topics.items() if k != OFFLINE})


def _all_healthy() -> ClusterSnapshot:
    """``_healthy`` without the topic with an under-replicated partition either: nothing for health to explain."""
    snapshot = _healthy()
    return dataclasses.replace(snapshot, topics={k: v for k, v in snapshot.topics.items() if k != LAGGING})


def _text(app: KzcApp, selector: str) -> str:
    return str(app.screen.query_one(selector).render())


async def test_topic_columns_show_rates_idle_and_unknown_and_h_sorts_the_hottest_first(make_app: MakeApp) -> None:
    traffic = SyntheticTraffic({HOT: 400.0, WARM: 20.0, OFFLINE: 50.0}, NOW_MS - 60_000, bytes_per_message=100)
    app = make_app(traffic=traffic)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TopicsScreen)
        screen = app.screen
        table = screen.query_one("#topics", VirtualTable)
        screen._traffic_reads.now()  # type: ignore[union-attr]  # the second tick now, not 5 s later
        await settle(pilot)
        keys = [c.key for c in table.columns]
        msg_at, bytes_at = keys.index("messages_in"), keys.index("bytes_in")
        rows = {r.key: r for r in table.visible_rows()}
        values = {key: r.values[msg_at] for key, r in rows.items() if r.values is not None}
        assert values[HOT] == 400.0
        assert rows[HOT].cells[msg_at] == "400.0"
        assert rows[HOT].cells[bytes_at] == "39.1 KiB/s"  # 400 messages of 100 bytes a second
        assert rows[WARM].cells[msg_at] == "20.0"
        assert rows["payments.orders-00001"].cells[msg_at] == "idle"  # known, and nothing moved
        assert rows[OFFLINE].cells[msg_at] == "?"  # one partition without a leader: never a partial sum
        assert values[OFFLINE] is None
        assert "traffic over 5s, read 0s ago" in _text(app, "#topics-count")
        await pilot.press("h")
        await pilot.pause()
        shown = [r.key for r in table.visible_rows()]
        assert shown[:2] == [HOT, WARM]
        assert shown[-1] == OFFLINE  # unknown sorts last
        assert "sorted by msg/s ▼" in _text(app, "#topics-count")


async def test_a_recording_without_brokers_shows_question_marks_and_why(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        table = app.screen.query_one("#topics", VirtualTable)
        at = [c.key for c in table.columns].index("messages_in")
        assert {r.cells[at] for r in table.visible_rows()} == {"?"}
        app.screen._traffic_reads.now()  # type: ignore[attr-defined]
        await settle(pilot)
        assert {r.cells[at] for r in table.visible_rows()} == {"?"}  # a broker that cannot answer is never 0
        assert "traffic: ? broker 1 was not asked" not in _text(app, "#topics-count")
        assert "a recording has no brokers" in _text(app, "#topics-count")


async def test_cluster_line_broker_columns_and_load_findings(make_app: MakeApp) -> None:
    healthy = _all_healthy()
    skewed = HOT
    traffic = SyntheticTraffic({skewed: 300.0, WARM_HEALTHY: 100.0}, NOW_MS - 60_000, skewed={skewed: 2})
    app = make_app(snapshot=healthy, traffic=traffic)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)
        app.screen._traffic_reads.now()  # type: ignore[union-attr]
        await settle(pilot)
        line = _text(app, "#traffic-line")
        assert line == "traffic in: 400.0/s · 39.1 KiB/s · traffic over 5s, read 0s ago"
        # health is fine: the load is the likely cause
        cause = _text(app, "#likely-cause")
        assert cause == (
            f"likely cause: key skew: {skewed}-2 takes 100% of {skewed}'s messages in (300.0 of 300.0/s over 4 "
            "partitions)"
        )
        table = app.screen.query_one("#brokers", VirtualTable)
        at = [c.key for c in table.columns].index("messages_in")
        per_broker = {r.key: r.values[at] for r in table.visible_rows() if r.values is not None}
        assert sum(v or 0.0 for v in per_broker.values()) == 400.0


async def test_the_cluster_and_topics_screens_keep_a_ticks_sums_and_no_partitions_rates(make_app: MakeApp) -> None:
    traffic = SyntheticTraffic({HOT: 400.0}, NOW_MS - 60_000)
    app = make_app(traffic=traffic)
    async with app.run_test(size=(200, 40)) as pilot:
        await settle(pilot)
        for key, kind in (("", ClusterScreen), ("t", TopicsScreen)):
            if key:
                await pilot.press(key)
                await settle(pilot)
            screen = app.screen
            assert isinstance(screen, kind)
            screen._traffic_reads.now()  # type: ignore[union-attr]  # a tick with rates
            await settle(pilot)
            kept = screen._traffic
            assert kept is not None and kept.rated and kept.topic(HOT)[0].per_s == 400.0, kind.__name__
            assert kept.traffic is None, kind.__name__  # what it keeps grows with topics and brokers, not partitions


async def test_the_likely_cause_gives_health_first_and_the_load_after_it(make_app: MakeApp) -> None:
    traffic = SyntheticTraffic({HOT: 300.0, WARM_HEALTHY: 100.0}, NOW_MS - 60_000, skewed={HOT: 2})
    app = make_app(traffic=traffic)  # the synthetic cluster: broker 6 down, a partition offline
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        health = _text(app, "#likely-cause")
        assert health.startswith("likely cause: ") and "load" not in health  # one reading: no window, no load yet
        app.screen._traffic_reads.now()  # type: ignore[union-attr]
        await settle(pilot)
        both = _text(app, "#likely-cause")
        skew = f"key skew: {HOT}-2 takes 100% of {HOT}'s messages in (300.0 of 300.0/s over 4 partitions)"
        assert both == f"{health}; load: {skew}"
        cause = app.screen.export_payload()["likely_cause"]  # type: ignore[index]
        assert cause["load"][0]["subject"] == f"{HOT}-2" and cause["load"][0]["share"] == 1.0


async def test_likely_cause_names_the_groups_waiting_on_a_topic_whose_producers_stopped(make_app: MakeApp) -> None:
    member = Member("consumer-1", "billing-app", "/10.0.0.7", 4)
    caught_up = tuple(PartitionLag(WARM_HEALTHY, p, 500, 500, member.member_id) for p in range(4))
    behind = tuple(PartitionLag(WARM_HEALTHY, p, 490, 500) for p in range(4))
    groups = [
        GroupLag("billing", KAFKA, "Stable", (member,), caught_up),
        GroupLag("audit", KAFKA, "Stable", (member,), behind),  # 10 behind per partition: still consuming
    ]
    traffic = SyntheticTraffic({WARM_HEALTHY: 100.0}, NOW_MS - 60_000, stops={WARM_HEALTHY: 1})
    app = make_app(snapshot=_all_healthy(), traffic=traffic, groups=groups)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        reads = app.screen._traffic_reads  # type: ignore[attr-defined]
        reads.now()  # 100/s in the window before
        await settle(pilot)
        assert "producers stopped" not in _text(app, "#likely-cause")
        reads.now()  # none since
        await settle(pilot)
        until = clock_text(NOW_MS - 60_000 + TICK_MS)
        said = (
            f"likely cause: producers stopped: {WARM_HEALTHY} took 100.0 messages/s until {until} and none since "
            "({}), while 1 consumer group waits on it, caught up (lag 0): billing (1 member, 4 partitions) "
            "(groups read "
        )
        assert _text(app, "#likely-cause").startswith(said.format("5s"))
        for _ in range(3):  # still idle: the finding holds, tick after tick
            reads.now()
            await settle(pilot)
        assert _text(app, "#likely-cause").startswith(said.format("20s"))


async def test_cluster_line_says_why_when_a_broker_cannot_answer(make_app: MakeApp) -> None:
    healthy = _healthy()
    why = "broker 2 has no ListOffsets v1 (Kafka 0.10.1+)"
    traffic = SyntheticTraffic({WARM_HEALTHY: 100.0}, NOW_MS - 60_000, unknown={2: why})
    app = make_app(snapshot=healthy, traffic=traffic)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.screen._traffic_reads.now()  # type: ignore[attr-defined]
        await settle(pilot)
        line = _text(app, "#traffic-line")
        assert line.startswith("traffic in: ? · ? · traffic over 5s") and why in line
        table = app.screen.query_one("#brokers", VirtualTable)
        at = [c.key for c in table.columns].index("messages_in")
        cells = {r.key: r.cells[at] for r in table.visible_rows()}
        assert cells["2"] == "?"
        assert all(cell != "?" for key, cell in cells.items() if key != "2")  # the others still show


async def _ticks(pilot: Pilot[None], panel: TrafficPanel, count: int) -> None:
    for _ in range(count):
        assert panel.reads is not None
        panel.reads.now()
        await settle(pilot)


async def test_broker_screen_sparkline_and_log_dirs_growth(make_app: MakeApp) -> None:
    traffic = SyntheticTraffic({HOT: 400.0, WARM_HEALTHY: 100.0}, NOW_MS - 60_000)
    app = make_app(snapshot=_healthy(), traffic=traffic)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.post_message(BrokerChosen(1))
        await settle(pilot)
        assert isinstance(app.screen, BrokerScreen)
        panel = app.screen.query_one("#broker-traffic", TrafficPanel)
        spark = app.screen.query_one("#broker-traffic .traffic-spark", Sparkline)
        assert not spark.display  # no known tick yet: no flat line that reads as 0
        await _ticks(pilot, panel, 3)
        text = _text(app, "#broker-traffic .traffic-text")
        assert text.startswith("in as leader: ")
        assert "/data/1 used " in text and "/h · full in ? (the broker does not report the volume's free space" in text
        assert re.search(r"messages in over the last \d+s: [\d.]+ to [\d.]+/s", text)
        assert len(list(spark.data or [])) == 3
        assert list(spark.data or []) == [v for v in app.backend.traffic(60).broker_history(1) if v is not None]


async def test_topic_screen_sparkline_leaves_unknown_ticks_out(make_app: MakeApp) -> None:
    traffic = SyntheticTraffic({HOT: 400.0}, NOW_MS - 60_000)
    app = make_app(snapshot=_healthy(), traffic=traffic)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        app.post_message(TopicChosen(HOT))
        await settle(pilot)
        panel = app.screen.query_one("#topic-traffic", TrafficPanel)
        await _ticks(pilot, panel, 2)
        assert _text(app, "#topic-traffic .traffic-text").startswith("traffic in: 400.0/s · 39.1 KiB/s · over 5s")
        spark = app.screen.query_one("#topic-traffic .traffic-spark", Sparkline)
        known = list(spark.data or [])
        assert len(known) >= 2 and set(known) == {400.0}
        traffic.unknown.update({b: "did not answer" for b in range(1, 7)})  # the brokers go away
        await _ticks(pilot, panel, 1)
        assert list(spark.data or []) == known  # the unknown tick is left out, never drawn as 0
        text = _text(app, "#topic-traffic .traffic-text")
        assert text.startswith("traffic: ? did not answer") and re.search(r"\(\d+ unknown ticks left out\)", text)


async def test_partitions_table_shows_the_skewed_partition_first_by_msg_s(make_app: MakeApp) -> None:
    traffic = SyntheticTraffic({HOT: 300.0}, NOW_MS - 60_000, skewed={HOT: 2})
    leader = Layout.of(_healthy(), KafkaSecurity()).leaders[(HOT, 2)]
    assert leader is not None
    app = make_app(snapshot=_healthy(), traffic=traffic)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(pilot)
        app.post_message(PartitionsChosen(f"partitions on broker {leader}", None, leader))
        await settle(pilot)
        assert isinstance(app.screen, PartitionsScreen)
        app.screen._traffic_reads.now()  # type: ignore[union-attr]
        await settle(pilot)
        table = app.screen.query_one("#selected-partitions", VirtualTable)
        at = [c.key for c in table.columns].index("messages_in")
        cells = {r.key: r.cells[at] for r in table.visible_rows()}
        assert cells[f"{HOT}:2"] == "300.0" and set(cells.values()) == {"idle", "300.0"}
        table.sort_by(at, descending=True)
        await pilot.pause()
        assert table.visible_rows()[0].key == f"{HOT}:2"
        assert "traffic over 5s" in _text(app, "#partitions-title")
