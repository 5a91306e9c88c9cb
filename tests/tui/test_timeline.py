"""The timeline screen (``W``) on a recorded cluster: a broker failure as one burst, opened into its partitions,
the recorded live events merged in and summarised by what they state, each change once, Enter on a change
opening its topic."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from core.config import ConnectionSettings, UserConfig
from core.console.protocols import BackendEvent, EventKind
from core.snapshot.model import StateStamp, ZnodeTimes
from core.testdata import builder as b
from core.testdata.history import write_outage
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, recorded_events, settle
from tui.app import KzcApp
from tui.screens.timeline import TimelineScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.widgets.virtual_table import VirtualTable

FAILED_MS = int(FROZEN_NOW * 1000) - 120_000


def _app() -> KzcApp:
    orders = b.topic(
        "orders",
        {0: (1, 2), 1: (2, 3), 2: (3, 2)},
        states={0: b.state(1, (1,)), 1: b.state(3, (3,)), 2: b.state(3, (3,))},
    )
    stamps = MappingProxyType({p: StateStamp(FAILED_MS + 5 * p, 2) for p in orders.partition_ids})
    snapshot = b.snapshot(brokers=(1, 3), topics=[replace(orders, state_stamps=stamps)])
    backend = RecordedBackend(snapshot, recorded_events(), now_ms=lambda: int(FROZEN_NOW * 1000))
    return KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)


async def test_a_broker_failure_is_one_row_that_opens_into_its_partitions() -> None:
    app = _app()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        table = app.screen.query_one("#timeline", VirtualTable)
        rows = [" | ".join(r.cells) for r in table.visible_rows()]
        failure = next(r for r in rows if "without broker 2" in r)
        assert "leader/ISR changed on 3 partition(s), all 3 without broker 2 in their ISR now" in failure
        assert any("controller moved 6 -> 1" in r for r in rows)  # a recorded live event, merged in
        before = table.row_count
        assert table.move_to_key(next(r.key for r in table.visible_rows() if "without broker 2" in r.cells[1]))
        await pilot.press("enter")
        await settle(pilot)
        assert table.row_count == before + 3
        opened = [r for r in table.visible_rows() if r.cells[1].strip().startswith("orders-")]
        assert {r.cells[1].strip()[:8] for r in opened} == {"orders-0", "orders-1", "orders-2"}
        assert table.move_to_key(opened[0].key)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TopicDetailScreen)


async def test_o_opens_and_closes_every_burst() -> None:
    app = _app()
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        table = app.screen.query_one("#timeline", VirtualTable)
        closed = table.row_count
        await pilot.press("o")
        assert table.row_count > closed
        await pilot.press("o")
        assert table.row_count == closed


NOW_MS = int(FROZEN_NOW * 1000)


def _outage_app() -> KzcApp:
    """Broker 2 left a second before the console's first view (whose health line lands in the same burst), and
    broker 3 re-registered earlier, seen live and dated by the model when it laid the registration over."""
    orders = b.topic(
        "orders",
        {0: (1, 2), 1: (2, 3), 2: (3, 2)},
        states={0: b.state(1, (1,)), 1: b.state(3, (3,)), 2: b.state(3, (3,))},
    )
    back = replace(b.broker(3), times=ZnodeTimes(300, 300, NOW_MS - 59_990, NOW_MS - 59_990, 0))
    snapshot = b.snapshot(brokers=(1, back), topics=[orders])
    events = [
        BackendEvent(NOW_MS - 60_000, EventKind.BROKER_JOINED, "broker 3 registered (kafka-3.example:9092)",
                     None, "/brokers/ids/3", broker=3),
        BackendEvent(NOW_MS - 1_000, EventKind.BROKER_LEFT, "broker 2 left (kafka-2.example:9092)", None,
                     "/brokers/ids/2", "error", broker=2),
    ]  # fmt: skip
    backend = RecordedBackend(snapshot, events, now_ms=lambda: NOW_MS)
    return KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)


async def test_an_outage_reads_as_the_broker_that_left_and_the_partitions_it_left_short() -> None:
    app = _outage_app()
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("W")
        await settle(pilot)
        rows = [r.cells[1] for r in app.screen.query_one("#timeline", VirtualTable).visible_rows()]
        assert rows[0] == "broker 2 left (kafka-2.example:9092); 3 partitions under-replicated, all without broker 2"
        assert sum(r.count("broker 3 registered") for r in rows) == 1  # live, not again from its ctime
        assert any("broker 3 registered (kafka-3.example:9092)" in r for r in rows)
        assert not any("live event(s)" in r for r in rows)


async def test_e_exports_the_incident_report_of_the_last_two_hours_from_the_store(tmp_path: Path) -> None:
    store = tmp_path / "store"
    write_outage(store, "prod", NOW_MS - 3_600_000)
    settings = ConnectionSettings(context="prod", history=str(store))
    backend = RecordedBackend(b.snapshot(brokers=(1, 2, 3)), [], now_ms=lambda: NOW_MS)
    app = KzcApp(settings, config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("W", "e")
        await settle(pilot)
        assert app.last_export is not None and app.last_export.endswith(".html")
        page = Path(app.last_export).read_text(encoding="utf-8")
        assert "Incident report: cluster prod" in page and "broker 2 left" in page


async def test_e_without_a_store_says_so() -> None:
    app = _app()
    said: list[str] = []
    original = app.notify

    def notify(message: str, **kwargs: Any) -> None:
        said.append(message)
        original(message, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("W", "e")
        await settle(pilot)
        assert app.last_export is None
        assert any(m.startswith("no incident report: no history store") for m in said), said
