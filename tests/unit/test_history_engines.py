"""Every history question gives identical answers on the local engine (the reference) and on Spark, over a
synthetic history with churn, a broker restart, a gap and an offline partition (one Spark session: slow)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from core.consistency.spark_job import start_session
from core.consistency.spark_worker import LOCAL_DEFAULTS
from core.history.flapping import flapping
from core.history.isr import isr_history
from core.history.observations import Window
from core.history.schema import EVENTS, PARTITION
from core.history.store import Gap, HistoryStore
from core.history.urp import urp
from core.testdata.history import write_history


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    session = start_session("local[2]", dict(LOCAL_DEFAULTS))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def window(tmp_path_factory: pytest.TempPathFactory) -> Window:
    root = tmp_path_factory.mktemp("history") / "store"
    info = write_history(root, partitions=200, days=1, snapshot_every_s=6 * 3600, seed=3)
    store = HistoryStore.open(root)
    middle = info.start_ms + 12 * 3_600_000
    store.record_gap(info.cluster, Gap(middle, middle + 600_000, "test gap"))
    # An offline spell: no leader, then back.
    offline = [
        {"ts_ms": middle + 1000, "seq": 1, "kind": PARTITION, "topic": "t00001", "partition": 0, "leader": -1,
         "leader_epoch": 9, "isr": [2], "replicas": [1, 2, 3]},
        {"ts_ms": middle + 61_000, "seq": 2, "kind": PARTITION, "topic": "t00001", "partition": 0, "leader": 2,
         "leader_epoch": 10, "isr": [2, 3, 1], "replicas": [1, 2, 3]},
    ]  # fmt: skip
    store.append(EVENTS, info.cluster, offline)
    return Window.of(store, info.cluster, info.start_ms + 3_600_000, info.end_ms)


def test_isr_is_identical_on_both_engines(window: Window, spark: Any) -> None:
    for topic in ("t00001", "t00007"):
        local = isr_history(window, topic)
        assert local.outages or local.leader_changes
        assert isr_history(window, topic, spark=spark).to_json() == local.to_json()


def test_flapping_is_identical_on_both_engines(window: Window, spark: Any) -> None:
    local = flapping(window, top=10)
    assert local.partitions and local.brokers
    assert flapping(window, top=10, spark=spark).to_json() == local.to_json()


@pytest.mark.parametrize("by", ["broker", "topic", "rack"])
def test_urp_is_identical_on_both_engines(window: Window, spark: Any, by: str) -> None:
    local = urp(window, by)
    assert local.rows
    assert urp(window, by, spark=spark).to_json() == local.to_json()
