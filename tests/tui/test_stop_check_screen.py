"""The stop-check screen: ``i`` on a broker row shows what stopping it now would do, worst first, on the
recorded cluster (200 topics x 4 partitions on 6 brokers, broker 6 down)."""

from __future__ import annotations

from collections.abc import Callable

from textual.widgets import Label

from core.snapshot.model import ClusterSnapshot
from core.snapshot.stop_check import stop_check
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.screens.stop_check import StopCheckScreen
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]


async def test_i_on_a_broker_row_shows_the_stop_impact(make_app: MakeApp, small_snapshot: ClusterSnapshot) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("b", "i")
        await settle(pilot)
        assert isinstance(app.screen, StopCheckScreen) and app.screen.broker == 1
        expected = stop_check(small_snapshot, [1])
        rows = app.screen.query_one("#stop-check", VirtualTable).visible_rows()
        assert len(rows) == len(expected.changes) > 0
        order = ["offline", "under min ISR", "min ISR unknown", "one in-sync copy", "leader moves", "ISR shrinks"]
        ranks = [order.index(row.cells[0]) for row in rows]
        assert ranks == sorted(ranks)  # worst first
        summary = str(app.screen.query_one("#stop-check-summary", Label).render())
        assert summary.startswith(
            "Stopping broker 1 now: NOT SAFE" if not expected.safe else "Stopping broker 1 now: SAFE"
        )
        assert f"{len(expected.leader_moves):,} leaders move" in summary
        assert app.screen.export_payload() == expected.to_json()
        moved = next(row for row in rows if row.cells[0] == "leader moves")
        change = moved.data
        assert moved.cells[2] == f"{change.leader_before} -> {change.leader_after}"
