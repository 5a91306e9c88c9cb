"""SVG snapshots of the main screens on a recorded cluster, at 80x24 and 120x40, one class per screen.

What varies is frozen: the clock and time zone (fixtures), the theme (dark), input cursors (no blink).
A missing or different golden file fails the test; the rendered SVG is written next to the test's
temporary files. ``KZC_UPDATE_SNAPSHOTS=1`` rewrites the goldens in ``tests/tui/snapshots/`` (review
them before committing).

Why not ``pytest-textual-snapshot``: its latest release (1.1.0) pins ``syrupy==4.8.0``, which requires
``pytest<9``; installing it would downgrade the suite's pytest 9. Its Textual requirement (>=0.28) is
fine; revisit when it allows a syrupy that supports pytest 9.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, Tree

from core.config import ConnectionSettings, UserConfig
from core.console.moment import MomentBackend
from core.history.store import HistoryStore
from core.snapshot.model import ClusterSnapshot
from core.testdata.history import write_outage
from core.testdata.log_dirs import synthetic_log_dirs
from core.testdata.traffic import SyntheticTraffic
from core.testdata.zk_health import ensemble_health
from core.zookeeper.session import ConnectionState
from tests.integration.sandbox_tools import eventually
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tests.tui.test_fleet_screen import CONTEXTS, FIRST, LEGACY_HANGS, Scripted
from tests.tui.test_security_screen import ACLS, QUOTAS, USERS
from tui.app import KzcApp
from tui.messages import ConnectionChanged, CreateTopicRequested, MessagesChosen, TopicChosen, ZnodeChosen
from tui.screens.checks import ChecksScreen
from tui.widgets.virtual_table import VirtualTable

GOLDEN = Path(__file__).parent / "snapshots"
SIZES = [(80, 24), (120, 40)]
MakeApp = Callable[..., KzcApp]
MOMENT_T0 = 1_764_300_000_000  # 2025-11-28 03:20:00 UTC: write_outage's start
Steps = Callable[[KzcApp, Pilot[None]], Awaitable[None]]


async def snapshot(make_app: MakeApp, size: tuple[int, int], name: str, tmp_path: Path, steps: Steps,
                   read_only: bool = True, **app_args: Any) -> None:  # fmt: skip
    app = make_app(config=UserConfig(theme="dark"), read_only=read_only, **app_args)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await steps(app, pilot)
        await settle(pilot)
        for field in app.screen.query(Input):
            field.cursor_blink = False
        await pilot.pause()
        svg = app.export_screenshot(title="kzc")
    golden = GOLDEN / f"{name}-{size[0]}x{size[1]}.svg"
    if os.environ.get("KZC_UPDATE_SNAPSHOTS") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(svg, encoding="utf-8")
        return
    actual = tmp_path / golden.name
    actual.write_text(svg, encoding="utf-8")
    assert golden.exists(), f"no golden {golden}: review {actual}, then run with KZC_UPDATE_SNAPSHOTS=1"
    assert svg == golden.read_text(encoding="utf-8"), f"{golden.name} differs: compare it with {actual}"


@pytest.mark.parametrize("size", SIZES)
class TestClusterScreen:
    async def test_cluster(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            return None

        await snapshot(make_app, size, "cluster", tmp_path, steps, read_only=False)  # every key on the bar


@pytest.mark.parametrize("size", SIZES)
class TestClusterScreenWithTraffic:
    async def test_cluster_with_a_skewed_topic(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        """The traffic line, the brokers' msg/s and in/s, and the likely cause: health's, then the key skew."""
        hot, warm = "clicks.orders-00002", "payments.orders-00001"
        traffic = SyntheticTraffic({hot: 300.0, warm: 100.0}, int(FROZEN_NOW * 1000) - 60_000, skewed={hot: 2})

        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            app.screen._traffic_reads.now()  # type: ignore[attr-defined]  # the second tick: the first window

        await snapshot(make_app, size, "cluster-traffic", tmp_path, steps, traffic=traffic)


@pytest.mark.parametrize("size", SIZES)
class TestClusterScreenStale:
    async def test_cluster_while_the_session_is_lost(
        self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path
    ) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            for state in (ConnectionState.LOST, ConnectionState.RECONNECTING):
                app.post_message(ConnectionChanged(state, app.live.generation))

        await snapshot(make_app, size, "cluster-stale", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestTopicsScreen:
    async def test_topics_filtered(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("t", "slash", *"orders", "enter", "down", "down")

        await snapshot(make_app, size, "topics", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestTopicDetailScreen:
    async def test_topic_detail(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            app.post_message(TopicChosen("events.orders-00011"))

        await snapshot(make_app, size, "topic-detail", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestZkBrowserScreen:
    async def test_zk_browser(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        path = "/brokers/topics/events.orders-00011/partitions/1/state"

        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            app.post_message(ZnodeChosen(path))

            def on_it() -> bool:  # the tree moves its cursor after a refresh, which no worker wait covers
                trees = list(app.screen.query("#zk-tree").results(Tree))  # none until the screen is composed
                node = trees[0].cursor_node if trees else None
                return node is not None and node.data is not None and node.data.path == path

            await eventually(pilot, on_it, 10, f"the tree's cursor on {path}")

        await snapshot(make_app, size, "zk-browser", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestCreateScreen:
    async def test_create_preview(
        self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setattr("tui.screens.create_topic.new_seed", lambda: 2010071360948288362)  # a frozen draw

        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            app.post_message(CreateTopicRequested())
            await settle(pilot)
            app.screen.query_one("#name", Input).value = "payments.v2"
            await settle(pilot)
            app.screen.query_one("#partitions", Input).value = "12"

        await snapshot(make_app, size, "create", tmp_path, steps, read_only=False)


@pytest.mark.parametrize("size", SIZES)
class TestChecksScreen:
    async def test_checks_findings(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("x", "l")
            await settle(pilot)
            report = app.checks.report
            assert report is not None and isinstance(app.screen, ChecksScreen)
            app.checks.report = replace(report, timings={"total": 0.5})  # the measured values on screen: frozen
            app.checks.stage_started = dict.fromkeys(app.checks.stage_started, 0.0)
            app.checks.started_at, app.checks.ended_at = 0.0, 1.0
            app.screen.show_run(app.checks)

        await snapshot(make_app, size, "checks", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestZkHealth:
    """ZooKeeper's health: the cluster screen's line and the health screen, one server of three stopped."""

    async def test_cluster_line(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            return None

        health = ensemble_health(int(FROZEN_NOW * 1000), stopped=(3,), kafka={1: 18000})
        await snapshot(partial(make_app, zk_health=health), size, "cluster-zk-line", tmp_path, steps)

    async def test_health_screen(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("Z")

        now = int(FROZEN_NOW * 1000)
        health = ensemble_health(now, stopped=(3,), kafka={1: 18000}, last_seen_ms=now - 45_000)
        await snapshot(partial(make_app, zk_health=health), size, "zk-health", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestTimeline:
    """The timeline (``W``) of the recorded cluster: its dated changes and live events in bursts."""

    async def test_timeline(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("W")

        await snapshot(make_app, size, "timeline", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestBrokerScreens:
    """The broker screen and the stop check of broker 2 of the recorded cluster."""

    async def test_broker(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("b", "down", "enter")

        await snapshot(make_app, size, "broker", tmp_path, steps)

    async def test_stop_check(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("b", "down", "i")

        await snapshot(make_app, size, "stop-check", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestSizes:
    """Sizes from the brokers' log dirs (synthetic, broker 6 down, broker 2's first dir offline): the topics
    sorted by size, largest first, and the broker screen naming the offline dir."""

    async def test_topics_by_size(
        self, make_app: MakeApp, small_snapshot: ClusterSnapshot, size: tuple[int, int], tmp_path: Path
    ) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("t")
            await settle(pilot)
            table = app.screen.query_one("#topics", VirtualTable)
            column = [c.key for c in table.columns].index("size")
            table.sort_by(column)
            table.sort_by(column)

        dirs = synthetic_log_dirs(small_snapshot, int(FROZEN_NOW * 1000), offline={2: (1,)})
        await snapshot(partial(make_app, log_dirs=dirs), size, "topics-by-size", tmp_path, steps)

    async def test_broker_with_an_offline_dir(
        self, make_app: MakeApp, small_snapshot: ClusterSnapshot, size: tuple[int, int], tmp_path: Path
    ) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("b", "down", "enter")

        dirs = synthetic_log_dirs(small_snapshot, int(FROZEN_NOW * 1000), offline={2: (1,)})
        await snapshot(partial(make_app, log_dirs=dirs), size, "broker-offline-dir", tmp_path, steps)


class TestMessagesScreen:
    async def test_messages(self, make_app: MakeApp, tmp_path: Path) -> None:
        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            app.post_message(MessagesChosen("events.orders-00011"))

        await snapshot(make_app, (80, 24), "messages", tmp_path, steps)


class TestSecurity:
    """The security screen (``A``) at 80x24: the ACLs tab of a recording with ACLs, quotas and SCRAM users."""

    async def test_security_screen(self, small_snapshot: ClusterSnapshot, tmp_path: Path) -> None:
        def make(config: UserConfig, read_only: bool) -> KzcApp:
            backend = RecordedBackend(small_snapshot, now_ms=lambda: int(FROZEN_NOW * 1000), read_only=read_only,
                                      acls=ACLS, quotas=QUOTAS, users=USERS)  # fmt: skip
            return KzcApp(ConnectionSettings(), config=config, backend=backend, clock=lambda: FROZEN_NOW)

        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("A")

        await snapshot(make, (80, 24), "security", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestFleetScreen:
    async def test_fleet_with_a_stale_cluster(self, make_app: MakeApp, size: tuple[int, int], tmp_path: Path) -> None:
        reader = Scripted(FIRST, LEGACY_HANGS)

        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            await pilot.press("r")  # legacy stops answering: stale in place

        await snapshot(partial(make_app, fleet=CONTEXTS, fleet_reader=reader), size, "fleet", tmp_path, steps)


@pytest.mark.parametrize("size", SIZES)
class TestClusterAtAMoment:
    async def test_cluster_at_a_moment_inside_an_outage(self, size: tuple[int, int], tmp_path: Path) -> None:
        write_outage(tmp_path / "store", "prod", MOMENT_T0)
        store = HistoryStore.open(tmp_path / "store")

        def make(config: UserConfig, read_only: bool) -> KzcApp:
            backend = MomentBackend(store, "prod", MOMENT_T0 + 120_000)  # broker 2 down, 2 partitions behind
            return KzcApp(ConnectionSettings(context="prod"), config=config, backend=backend,
                          clock=lambda: (MOMENT_T0 + 3_600_000) / 1000)  # fmt: skip

        async def steps(app: KzcApp, pilot: Pilot[None]) -> None:
            return None

        await snapshot(make, size, "cluster-moment", tmp_path, steps)
