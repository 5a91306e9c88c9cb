"""The cluster screen's likely-cause line (core.snapshot.likely_cause), on the recorded cluster."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from textual.widgets import Label

from core.snapshot.model import ClusterSnapshot
from core.testdata.builder import snapshot, topic
from tests.tui.helpers import settle
from tui.app import KzcApp

MakeApp = Callable[..., KzcApp]


async def test_the_likely_cause_line_names_the_broker_behind_the_trouble(make_app: MakeApp) -> None:
    # The recorded cluster: broker 6 down, 403 partitions under-replicated.
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        cause = app.screen.query_one("#likely-cause", Label)
        assert cause.display
        text = str(cause.render())
        assert text.startswith("likely cause: broker 6 is missing from the ISR of 402 of 403 affected partitions")
        assert "broker 6 is not registered" in text


async def test_no_line_when_every_partition_is_healthy(make_app: MakeApp, small_snapshot: ClusterSnapshot) -> None:
    healthy = snapshot(brokers=(1, 2, 3), topics=[topic("t", {0: (1, 2, 3)})])
    app = make_app(snapshot=replace(healthy, taken_at_ms=small_snapshot.taken_at_ms))
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one("#likely-cause", Label).display
