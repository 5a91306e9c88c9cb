"""The console's recorder stores traffic as ``kzc record`` does, from the console's own ticker
(``core.console.recording`` with ``TrafficTicker.sample``): a tick the screens took moments ago serves it with no
request more, else the ticker samples once more without touching the screens' rates; ``kzc history traffic``
reads the console-recorded store."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path

import pytest

from cli.main import main
from core.config import ConnectionSettings, KafkaSecurity
from core.console.recording import ConsoleRecording
from core.history.location import history_place
from core.history.recorder import RecorderSettings
from core.history.schema import PARTITION, TRAFFIC
from core.history.store import HistoryStore
from core.polling import wait_until
from core.snapshot.model import ClusterSnapshot
from core.testdata.snapshots import synthetic_snapshot
from core.testdata.traffic import SyntheticTraffic
from core.traffic.ticker import TICK_S, TrafficTicker
from tests.recorded_backend import RecordedBackend

NOW_MS = int(time.time() * 1000) // 1000 * 1000  # whole seconds: every synthetic tick's count is exact


def _snapshot() -> ClusterSnapshot:
    return replace(synthetic_snapshot(topics=3, partitions_per_topic=2), full_read_ms=NOW_MS - 120_000)


def test_a_fresh_screen_tick_serves_the_recorder_and_an_old_one_leaves_the_screens_as_they_were() -> None:
    snapshot = _snapshot()
    traffic = SyntheticTraffic({}, NOW_MS - 60_000)
    ticker = TrafficTicker(KafkaSecurity(), lambda: NOW_MS, traffic.read)
    view = ticker.tick(snapshot)
    shared = ticker.sample(snapshot, TICK_S)
    assert traffic.ticks == 1  # the screens' tick served it: no read more
    assert ticker.sample(snapshot, 0.0) is not shared and traffic.ticks == 2  # too old: one read of its own
    assert ticker.tick(snapshot, 60) is view  # the screens' tick, rates and sparklines are as they were


def test_the_console_recorder_stores_the_rates_and_history_traffic_reads_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    snapshot = _snapshot()
    topic = sorted(snapshot.topics)[0]
    traffic = SyntheticTraffic({topic: 40.0}, NOW_MS - 60_000)
    backend = RecordedBackend(snapshot, traffic=traffic)
    backend.connect()
    store = tmp_path / "history"
    place = history_place(ConnectionSettings(context="prod", history=str(store)))
    recording = ConsoleRecording.start(backend, place, RecorderSettings(flush_every_s=0.2, traffic_every_s=0.2))
    try:  # the store is read once the recording is closed (its flushes and compactions rewrite files meanwhile)
        wait_until(lambda: traffic.ticks >= 4, 60, "four samples taken for the recorder (three windows)")
    finally:
        recording.close()
    assert recording.failure is None and _ticks(store, topic) >= 3
    code = main(
        ["history", "traffic", "--topic", topic, "--since", "1h", "--store", str(store), "--engine", "local", "--json"]
    )
    out, err = capsys.readouterr()
    assert code == 0, err
    hours = [h["messages_in_per_s"] for h in json.loads(out)["hours"]]
    assert sum(h["ticks_known"] for h in hours) >= 3, out
    assert {h["mean"] for h in hours} == {40.0} and {h["peak"] for h in hours} == {40.0}, out


def _ticks(store: Path, topic: str) -> int:
    """How many recorded ticks hold the topic's partitions' rates."""
    if not (store / TRAFFIC).exists():
        return 0
    history = HistoryStore(store)
    rows = [r for c in history.clusters() for r in history.read(TRAFFIC, c).to_pylist()]
    return len({r["ts_ms"] for r in rows if r["kind"] == PARTITION and r["topic"] == topic})
