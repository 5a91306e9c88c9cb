"""The broker screen: Enter on a broker row opens it; it shows what the broker leads and hosts, its replicas
out of the ISR and the offline partitions it hosts (worst first), and says what a recording cannot tell
(session, log sizes); ``p`` lists its partitions, ``i`` the stop check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.widgets import Static

from core.snapshot.broker_view import BrokerLive, BrokerView, broker_view
from core.snapshot.model import ClusterSnapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.screens.broker import BrokerScreen
from tui.screens.partitions import PartitionsScreen
from tui.screens.stop_check import StopCheckScreen
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]


async def test_enter_on_a_broker_row_opens_its_view(make_app: MakeApp, small_snapshot: ClusterSnapshot) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("b", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, BrokerScreen) and app.screen.broker == 2
        expected = broker_view(small_snapshot, 2)
        rows = app.screen.query_one("#broker-replicas", VirtualTable).visible_rows()
        assert len(rows) == len(expected.hosted)
        assert sum(1 for r in rows if r.cells[1] == "leader") == len(expected.leads)
        ranks = [0 if r.data.offline else 1 if not r.data.in_isr else 2 for r in rows]
        assert ranks == sorted(ranks)  # offline first, then out of the ISR
        header = str(app.screen.query_one("#broker-header", Static).render())
        assert f"hosts {len(expected.hosted):,} · leads {len(expected.leads):,}" in header
        assert "registration owned by: unknown (a recording has no ZooKeeper session)" in header
        await pilot.press("i")
        await settle(pilot)
        assert isinstance(app.screen, StopCheckScreen) and app.screen.broker == 2
        await pilot.press("escape", "p")
        await settle(pilot)
        assert isinstance(app.screen, PartitionsScreen)


async def test_a_new_registration_reads_the_session_and_log_dirs_again(
    make_app: MakeApp, small_snapshot: ClusterSnapshot, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A broker restarted while shown has a new session and fresh dirs: what was read of the old one is gone.
    asked: list[int | None] = []
    original = RecordedBackend.broker_live

    def counted(backend: RecordedBackend, view: BrokerView) -> BrokerLive:
        asked.append(view.registered_ms)
        return original(backend, view)

    monkeypatch.setattr(RecordedBackend, "broker_live", counted)
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await pilot.press("b", "down", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, BrokerScreen) and screen.view is not None and app.view is not None
        first = screen.view
        assert asked == [first.registered_ms]
        screen.show_view(app.view, first)  # any other change: nothing read again
        await settle(pilot)
        assert asked == [first.registered_ms]
        restarted = replace(first, registered_ms=(first.registered_ms or 0) + 60_000)
        screen.show_view(app.view, restarted)
        await settle(pilot)
        assert asked == [first.registered_ms, restarted.registered_ms]
