"""The cluster screen's migration panel: hidden on a ZooKeeper-mode cluster, shown (phase, KRaft controller,
broker modes, next step, rollback, write path) while ZooKeeper shows a migration."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from textual.widgets import Static

from core.kafka.znodes import ControllerInfo, MigrationState
from core.snapshot.model import ClusterSnapshot
from tests.tui.helpers import settle
from tui.app import KzcApp

MakeApp = Callable[..., KzcApp]


def panel_text(app: KzcApp) -> str:
    return str(app.screen.query_one("#migration-panel", Static).render())


async def test_no_panel_without_a_migration(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#migration-panel", Static).display


async def test_the_panel_shows_dual_write_and_which_writes_are_allowed(
    make_app: MakeApp, small_snapshot: ClusterSnapshot
) -> None:
    migrating = replace(
        small_snapshot,
        controller=ControllerInfo(3000, 1_700_000_000_000, 2, 1),
        migration=MigrationState(0, 3000, 1, 158, 1),
    )
    app = make_app(snapshot=migrating)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        panel = app.screen.query_one("#migration-panel", Static)
        assert panel.display
        text = panel_text(app)
        assert "phase: dual write" in text
        assert "KRaft controller 3000 · epoch 1 · /migration offset 158 (epoch 1)" in text
        assert "1 migration" in text and "rollback: possible" in text
        assert "writes through ZooKeeper refused" in text
