"""ZooKeeper's own health in the console: the cluster screen's line, the health screen (``Z`` and the palette),
the stale mark, and nothing shown where there is no server to probe (a recording). On a recorded cluster with
a synthetic ensemble (``core.testdata.zk_health``); the real ensemble is in
tests/integration/test_zk_health.py."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Label, Static

from core.config import ConnectionSettings, UserConfig
from core.snapshot.model import ClusterSnapshot
from core.testdata.zk_health import ensemble_health
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp
from tui.screens.cluster import ClusterScreen
from tui.screens.zk_health import ZkHealthScreen
from tui.widgets.virtual_table import VirtualTable
from tui.zk_health_poll import STALE_AFTER_S

MakeApp = Callable[..., KzcApp]
NOW_MS = int(FROZEN_NOW * 1000)


def line(app: KzcApp) -> Label:
    return app.screen.query_one("#zk-health-line", Label)


async def test_a_recording_without_an_ensemble_shows_no_zookeeper_line(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not line(app).display


async def test_a_healthy_ensemble_is_one_quiet_line(make_app: MakeApp) -> None:
    app = make_app(zk_health=ensemble_health(NOW_MS - 4000))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        label = line(app)
        assert label.display and label.has_class("-ok")
        text = str(label.render())
        assert "3 of 3 voting serve (quorum 2) · leader zk-3.example:2181 · no alarm" in text
        assert "22:13:16 (Z)" in text


async def test_one_server_down_puts_the_quorum_at_risk_on_the_line(make_app: MakeApp) -> None:
    app = make_app(zk_health=ensemble_health(NOW_MS, stopped=(3,)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        label = line(app)
        assert label.has_class("-error")  # the unreachable server is an error; the quorum a warning
        assert "zk-3.example:2181 unreachable: connection refused (+1 more)" in str(label.render())


async def test_z_opens_the_health_screen_with_every_server_and_alarm(make_app: MakeApp) -> None:
    health = ensemble_health(NOW_MS, stopped=(3,), kafka={1: 18000, 2: 18000}, last_seen_ms=NOW_MS - 60_000)
    app = make_app(zk_health=health)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("Z")
        await settle(pilot)
        assert isinstance(app.screen, ZkHealthScreen)
        table = app.screen.query_one("#zk-servers", VirtualTable)
        rows = {row.key: row for row in table.visible_rows()}
        assert list(rows) == ["zk-1.example:2181", "zk-2.example:2181", "zk-3.example:2181"]
        assert rows["zk-2.example:2181"].cells[1] == "leader"
        assert rows["zk-3.example:2181"].cells[1] == "unreachable"
        assert "error" in rows["zk-3.example:2181"].meanings
        alarms = [row.cells for row in app.screen.query_one("#zk-alarms", VirtualTable).visible_rows()]
        assert alarms[0] == ("error", "zk-3.example:2181 unreachable: connection refused (last seen leader)")
        assert alarms[1][0] == "warning" and "quorum at risk: 2 of 3 voting servers serve, 2 needed" in alarms[1][1]
        detail = str(app.screen.query_one("#zk-health-detail", Static).render())
        assert "zk-3.example:2181 last answered at 22:12:20 (60s ago) as leader" in detail
        assert "Kafka asks 18,000 ms (brokers 1, 2)" in detail
        assert app.screen.export_payload() == health.to_json()
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, ClusterScreen)


async def test_the_palette_opens_the_health_screen(make_app: MakeApp) -> None:
    app = make_app(zk_health=ensemble_health(NOW_MS, stopped=(2, 3)))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("colon", *"zk health")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ZkHealthScreen)
        alarms = [row.cells for row in app.screen.query_one("#zk-alarms", VirtualTable).visible_rows()]
        assert ("error", "quorum lost: 0 of 3 voting servers serve, 2 needed; ZooKeeper refuses every request, "
                "so Kafka cannot elect leaders, change ISRs or register brokers") in alarms  # fmt: skip


async def test_a_reading_older_than_the_stale_limit_is_marked_stale(small_snapshot: ClusterSnapshot) -> None:
    clock = [FROZEN_NOW]
    backend = RecordedBackend(small_snapshot, now_ms=lambda: NOW_MS, zk_health=ensemble_health(NOW_MS))
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: clock[0])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not line(app).has_class("-stale")
        clock[0] = FROZEN_NOW + STALE_AFTER_S + 1  # no probe since: the recorded one is the latest
        app.zk_health.draw()
        await pilot.pause()
        assert line(app).has_class("-stale")
        assert "STALE since 22:13:20" in str(line(app).render())
