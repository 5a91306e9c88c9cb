"""The console's recording (``--record``, a context's ``record = true``) on the recorded backend: the status line
says ``REC`` and where; a store another recorder holds is a notice and the console runs on without recording;
quitting releases the store."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from textual.widgets import Label

from core.config import ConnectionSettings
from core.history.store import HistoryStore, StoreError
from core.polling import wait_until
from core.snapshot.model import ClusterSnapshot
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.widgets.status_bar import StatusBar

MakeApp = Callable[..., KzcApp]


def _released(root: Path, cluster: str) -> bool:
    try:
        with HistoryStore.open(root).recording(cluster):
            return True
    except StoreError:
        return False


async def test_the_status_line_says_it_records_and_where_and_quitting_flushes(
    make_app: MakeApp, small_snapshot: ClusterSnapshot, tmp_path: Path
) -> None:
    store = tmp_path / "history"
    read = replace(small_snapshot, full_read_ms=1_800_000_000_000)
    app = make_app(snapshot=read, settings=ConnectionSettings(context="prod", history=str(store), record=True))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        recording = app.recording.recording
        assert recording is not None
        wait_until(lambda: recording.rows_buffered > 0, timeout=30, what="the first snapshot compared")
        badge = app.screen.query_one(StatusBar).query_one("#status-rec", Label)
        assert badge.display
        assert str(badge.content) == f"REC …{str(store)[-23:]}"
        assert not _released(store, "prod")  # the console holds the cluster's recorder lock
    wait_until(lambda: _released(store, "prod"), timeout=30, what="the store released after quitting")
    assert HistoryStore.open(store).clusters() == ["prod"]  # what it saw was flushed at quit (flushes every 5 s)
    assert recording.rows_buffered == 0


async def test_a_store_another_recorder_holds_is_a_notice_and_no_recording(make_app: MakeApp, tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path / "history")
    notices: list[str] = []
    app = make_app(settings=ConnectionSettings(context="prod", history=str(store.root), record=True))
    original = app.notify

    def notify(message: str, **kwargs: object) -> None:
        notices.append(message)
        original(message, **kwargs)  # type: ignore[arg-type]

    app.notify = notify  # type: ignore[method-assign]
    with store.recording("prod"):
        async with app.run_test(size=(120, 30)) as pilot:
            await settle(pilot)
            assert f"not recording: another kzc record is recording cluster prod into {store.root}" in notices
            assert not app.screen.query_one(StatusBar).query_one("#status-rec", Label).display


async def test_without_record_the_console_records_nothing(make_app: MakeApp, tmp_path: Path) -> None:
    app = make_app(settings=ConnectionSettings(context="prod", history=str(tmp_path / "history")))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert not app.screen.query_one(StatusBar).query_one("#status-rec", Label).display
    assert not (tmp_path / "history").exists()


async def test_a_flush_the_disk_refuses_stops_recording_and_says_so(
    make_app: MakeApp, small_snapshot: ClusterSnapshot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A recorder that silently stopped would leave the REC badge lying about what is on disk.
    def full(*_: object, **__: object) -> None:
        raise OSError(28, "No space left on device")

    store = tmp_path / "history"
    read = replace(small_snapshot, full_read_ms=1_800_000_000_000)
    app = make_app(snapshot=read, settings=ConnectionSettings(context="prod", history=str(store), record=True))
    notices: list[str] = []
    original = app.notify

    def notify(message: str, **kwargs: object) -> None:
        notices.append(message)
        original(message, **kwargs)  # type: ignore[arg-type]

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        recording = app.recording.recording
        assert recording is not None
        monkeypatch.setattr(HistoryStore, "append", full)  # the next flush (every 5 s) fails
        monkeypatch.setattr(HistoryStore, "set_flushed", full)
        deadline = time.monotonic() + 30
        while not any("recording stopped" in n for n in notices):
            assert time.monotonic() < deadline, "the stopped recording was never reported"
            await pilot.pause(0.1)
        badge = app.screen.query_one(StatusBar).query_one("#status-rec", Label)
        assert str(badge.content).startswith("REC STOPPED") and badge.has_class("-missing")
        assert "No space left on device" in next(n for n in notices if "recording stopped" in n)
