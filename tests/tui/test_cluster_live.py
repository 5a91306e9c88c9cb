"""The cluster screen through time and an outage, on a recorded cluster: ages tick from the app's clock
without reading the cluster again, the event log catches up with what happened while another screen was up
and logs health changes as ``kzc watch`` words them, every panel says since when it is stale and why while
the link is down, the cluster id and the brokers' Kafka release are shown, and 80x24 keeps every key."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest
from textual.widgets import Static

from core.console.protocols import BackendEvent, EventKind
from core.console.view import ViewBuilder
from core.kafka.znodes import Unreadable
from core.snapshot.model import ClusterSnapshot
from core.testdata.snapshots import synthetic_snapshot
from core.zookeeper.session import ConnectionState
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.messages import ClusterEventSeen, ConnectionChanged, ScreenChosen, TopicChosen, ViewRefreshed
from tui.screens.cluster import ClusterScreen, kafka_release_text
from tui.screens.topics import TopicsScreen
from tui.widgets.event_log import EventLog
from tui.widgets.key_bar import KeyBar, wrap
from tui.widgets.status_bar import StatusBar
from tui.widgets.text_line import TextLine

MakeApp = Callable[..., KzcApp]
NOW_MS = int(FROZEN_NOW * 1000)


def newest_events(app: KzcApp, count: int = 1) -> list[str]:
    return [row.cells[2] for row in app.screen.query_one("#events", EventLog).visible_rows()[:count]]


def with_clock(make_app: MakeApp, now: list[float], **kwargs: object) -> KzcApp:
    app = make_app(**kwargs)
    app.clock = lambda: now[0]
    return app


async def test_events_that_happened_while_another_screen_was_up_are_in_the_log_when_it_comes_back(
    make_app: MakeApp,
) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("t")
        await settle(pilot)
        assert isinstance(app.screen, TopicsScreen)
        event = BackendEvent(
            NOW_MS, EventKind.BROKER_LEFT, "broker 3 left (kafka-3.example:9092)", None, "/brokers/ids/3", "error"
        )
        app.post_message(ClusterEventSeen(event, app.live.generation))
        await settle(pilot)
        assert app.journal.lines[-1].text == "broker 3 left (kafka-3.example:9092)"
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)
        assert newest_events(app) == ["broker 3 left (kafka-3.example:9092)"]


async def test_ages_tick_from_the_clock_without_reading_the_cluster_again(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [FROZEN_NOW]
    app = with_clock(make_app, now)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        reads: list[int] = []
        original = RecordedBackend.snapshot
        monkeypatch.setattr(RecordedBackend, "snapshot", lambda self: reads.append(1) or original(self))
        events = app.screen.query_one("#events", EventLog)
        assert events.visible_rows()[1].cells[1] == "9m 51s ago"
        assert app.screen.query_one("#brokers").visible_rows()[0].cells[4] == "23h"  # type: ignore[attr-defined]
        now[0] += 300  # five minutes later, nothing happened in the cluster
        app.live.draw_screen()  # what the app's one-second clock runs
        await pilot.pause()
        assert events.visible_rows()[1].cells[1] == "14m 51s ago"
        assert app.screen.query_one("#brokers").visible_rows()[0].cells[4] == "1d"  # type: ignore[attr-defined]
        controller = str(app.screen.query_one("#controller-text", Static).render())
        assert "since 20:13:20 (2h ago)" in controller
        assert app.screen.query_one(StatusBar).query_one("#status-last", TextLine).text.endswith("(14m 51s ago)")
        assert reads == []  # ages come from the clock, not from ZooKeeper


async def test_while_the_link_is_down_every_panel_says_stale_since_when_and_why(make_app: MakeApp) -> None:
    now = [FROZEN_NOW]
    app = with_clock(make_app, now)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert not screen.query_one("#cluster-stale").display
        app.post_message(ConnectionChanged(ConnectionState.LOST, app.live.generation))
        app.post_message(ConnectionChanged(ConnectionState.RECONNECTING, app.live.generation))
        await settle(pilot)
        stale = screen.query_one("#cluster-stale", TextLine)
        assert stale.display
        assert stale.text == "STALE since 22:13:20 (0s ago): session lost · reconnecting…"
        assert screen.query_one("#controller-panel").border_title == "Controller · stale"  # narrow: the line says since
        assert screen.query_one("#health-panel").border_title == "Health · stale since 22:13:20"
        assert screen.query_one("#brokers").border_title == (
            "Brokers · Kafka 2.7+ · sizes: no brokers in a recording · stale since 22:13:20"
        )
        now[0] += 42
        app.live.draw_screen()
        assert stale.text.startswith("STALE since 22:13:20 (42s ago)")
        last = screen.query_one(StatusBar).query_one("#status-last", TextLine)
        assert last.text == "session lost · reconnecting… since 22:13:20 (42s)"
        assert newest_events(app) == ["ZooKeeper session lost"]
        app.post_message(ConnectionChanged(ConnectionState.CONNECTED, app.live.generation))
        await settle(pilot)
        assert not stale.display
        assert screen.query_one("#health-panel").border_title == "Health"
        assert newest_events(app) == ["ZooKeeper connected"]


async def test_a_health_change_is_one_line_worded_as_kzc_watch_words_it(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert newest_events(app) == ["health: 1 offline, 403 under-replicated, 1 under min ISR"]
        lines = len(app.journal.lines)
        worse = synthetic_snapshot(topics=200, partitions_per_topic=4, dead_brokers=(5, 6))
        app.post_message(ViewRefreshed(ViewBuilder().build(worse, NOW_MS), app.live.generation))
        await settle(pilot)
        [line] = list(app.journal.lines)[lines:]
        assert line.text.startswith("health: ") and "1 offline, 403 under-replicated" not in line.text
        assert line.severity == "error" and newest_events(app) == [line.text]
        app.post_message(ViewRefreshed(ViewBuilder().build(worse, NOW_MS), app.live.generation))
        await settle(pilot)
        assert len(app.journal.lines) == lines + 1  # the same counts again: no line


def test_the_kafka_release_comes_from_the_registrations_and_says_mixed_or_unknown(
    small_snapshot: ClusterSnapshot,
) -> None:
    assert kafka_release_text(small_snapshot) == "Kafka 2.7+"
    brokers = dict(small_snapshot.brokers)
    old = brokers[3]
    assert not isinstance(old.registration, Unreadable)
    brokers[3] = dataclasses.replace(old, registration=dataclasses.replace(old.registration, version=4))
    brokers[4] = dataclasses.replace(brokers[4], registration=Unreadable("/brokers/ids/4", "not JSON", b"x"))
    mixed = dataclasses.replace(small_snapshot, brokers=brokers)
    assert kafka_release_text(mixed) == "Kafka mixed: 2.7+ (1, 2, 5), 0.10.2+ (3), unknown (4)"
    assert kafka_release_text(dataclasses.replace(small_snapshot, brokers={})) == "Kafka unknown"


@pytest.mark.parametrize(("read_only", "keys"), [(False, {"m", "P", "?"}), (True, {"b", "v", "?"})])
async def test_at_80x24_the_cluster_key_line_keeps_the_screen_own_keys(
    make_app: MakeApp, read_only: bool, keys: set[str]
) -> None:
    app = make_app(read_only=read_only)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        shown = {key for line in wrap(bar.shown, 80) for key, _ in line}
        assert keys <= shown and shown == {key for key, _ in bar.shown}  # nothing left out
        assert bar.size.height == 2


async def test_at_80x24_the_topic_detail_key_line_keeps_c_r_and_p(make_app: MakeApp) -> None:
    app = make_app(read_only=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.post_message(TopicChosen("events.orders-00011"))
        await settle(pilot)
        bar = app.screen.query_one(KeyBar)
        assert {"C", "r", "P", "?"} <= {key for line in wrap(bar.shown, 80) for key, _ in line}


@pytest.mark.parametrize("screen", ["cluster", "topics", "topic", "checks"])
async def test_panels_and_their_rules_follow_the_width_after_resizes(make_app: MakeApp, screen: str) -> None:
    app = make_app(read_only=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        if screen == "topic":
            app.post_message(TopicChosen("events.orders-00011"))
        elif screen != "cluster":
            app.post_message(ScreenChosen(screen))
        await settle(pilot)
        for width, height in [(220, 50), (80, 24), (160, 30), (120, 40)]:
            await pilot.resize_terminal(width, height)
            await settle(pilot)
            ruled = [w for w in app.screen.children if w.display and w.styles.border_top[0]]
            assert ruled, "no panel with a rule on this screen"
            for widget in [*ruled, app.screen.query_one(StatusBar), app.screen.query_one(KeyBar)]:
                assert widget.region.width == width, (widget, width)
            if screen == "cluster":
                left = app.screen.query_one("#controller-panel").region
                right = app.screen.query_one("#health-panel").region
                assert left.width + right.width == width
