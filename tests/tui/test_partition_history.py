"""``h`` on a partitions list shows the highlighted partition's ISR history from the cluster's store (the
context's ``history``, else ``$KZC_HISTORY``: ``core.history.location``), read in a worker; without a store it
says how to get one."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from core.config import ConnectionSettings
from core.history.location import STORE_ENV
from core.history.schema import EVENTS, PARTITION, SNAPSHOTS
from core.history.store import HistoryStore
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.dialogs.history import HistoryDialog
from tui.screens.partitions import PartitionsScreen
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]


def _row(ts: int, topic: str, partition: int, isr: list[int], replicas: list[int]) -> dict[str, object]:
    return {"ts_ms": ts, "seq": 0, "kind": PARTITION, "topic": topic, "partition": partition, "leader": replicas[0],
            "leader_epoch": 0, "isr": isr, "replicas": replicas}  # fmt: skip


async def _history_text(
    app: KzcApp, pilot: Pilot[None], store: Path | None, monkeypatch: pytest.MonkeyPatch, from_context: bool = False
) -> str:
    await settle(pilot)
    await pilot.press("b", "down", "enter")
    await settle(pilot)
    await pilot.press("p")
    await settle(pilot)
    assert isinstance(app.screen, PartitionsScreen)
    row = app.screen.query_one("#selected-partitions", VirtualTable).current_row
    assert row is not None
    topic, partition, replicas = row.cells[0], int(row.cells[1]), [int(r) for r in row.cells[4].split(",")]
    if store is not None:
        history = HistoryStore.create(store)
        now = int(time.time() * 1000)
        history.append(SNAPSHOTS, "one", [_row(now - 3_600_000, topic, partition, replicas, replicas)])
        history.append(EVENTS, "one", [_row(now - 1_800_000, topic, partition, replicas[:1], replicas),
                                       _row(now - 600_000, topic, partition, replicas, replicas)])  # fmt: skip
        if not from_context:
            monkeypatch.setenv(STORE_ENV, str(store))
    else:
        monkeypatch.delenv(STORE_ENV, raising=False)
    await pilot.press("h")
    await app.workers.wait_for_complete()
    await settle(pilot)
    assert isinstance(app.screen, HistoryDialog)
    return f"{topic}-{partition}\n" + str(app.screen.query_one("#history-lines", Static).render())


async def test_h_shows_the_partitions_isr_history_from_the_store(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(settings=ConnectionSettings(context="one"))
    async with app.run_test(size=(140, 40)) as pilot:
        text = await _history_text(app, pilot, tmp_path / "store", monkeypatch)
        name = text.splitlines()[0]
        assert f"ISR history of {name} in cluster one" in text
        assert "out 20m 0s" in text
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, PartitionsScreen)


async def test_h_reads_the_store_the_context_names_before_the_environment(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STORE_ENV, str(tmp_path / "elsewhere"))
    app = make_app(settings=ConnectionSettings(context="one", history=str(tmp_path / "store")))
    async with app.run_test(size=(140, 40)) as pilot:
        text = await _history_text(app, pilot, tmp_path / "store", monkeypatch, from_context=True)
        assert "out 20m 0s" in text


async def test_h_on_a_store_without_this_cluster_names_what_it_holds(
    make_app: MakeApp, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(settings=ConnectionSettings(context="two"))
    async with app.run_test(size=(140, 40)) as pilot:
        text = await _history_text(app, pilot, tmp_path / "store", monkeypatch)
        assert f"the store {tmp_path / 'store'} holds one, not two" in text


async def test_h_without_a_store_says_how_to_get_one(make_app: MakeApp, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(settings=ConnectionSettings(context="one"))
    async with app.run_test(size=(140, 40)) as pilot:
        text = await _history_text(app, pilot, None, monkeypatch)
        assert "no history store: give --store DIR, set history = \"DIR\" in context 'one'" in text
        assert f"or set ${STORE_ENV}" in text
