"""The recorder stores each traffic tick's rates (unknown stays null with the reason, never 0), and ``kzc history
traffic`` gives per hour the mean, peak and nearest-rank p95 of the ticks, by topic, broker or cluster; ``kzc
diff`` of two moments lists the topics whose rates changed."""

from __future__ import annotations

import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from core.brokers.logdirs import BrokerLogDirs, LogDir, ReplicaLog
from core.brokers.offsets import BrokerOffsets
from core.history.diff import ClusterState, diff
from core.history.recorder import Recorder, RecorderSettings
from core.history.schema import LOG_DIR, PARTITION, TRAFFIC
from core.history.store import Gap, HistoryStore
from core.history.traffic import history_traffic, p95_rank, topic_rates_at
from core.polling import wait_until
from core.snapshot.model import ClusterSnapshot
from core.testdata.builder import snapshot
from core.testdata.history import traffic_tick_rows
from core.traffic.sample import Layout, Sample

HOUR = 3_600_000
T0 = 1_800_000_000_000 - 1_800_000_000_000 % HOUR
LAYOUT = Layout({("a", 0): 1, ("a", 1): 2}, {1: ("h", 1), 2: ("h", 2)})


def _sample(at: int, hw: dict[tuple[str, int], int], down: int | None = None) -> Sample:
    offsets = {b: BrokerOffsets(b, at, {k: v for k, v in hw.items() if LAYOUT.leaders[k] == b}) for b in (1, 2)}
    dirs = {
        b: BrokerLogDirs(
            b, at, (LogDir(f"/d{b}", 0, (ReplicaLog("a", b - 1, hw[("a", b - 1)] * 10, 0, False),), 10_000, None),)
        )
        for b in (1, 2)
    }
    if down is not None:
        offsets[down] = BrokerOffsets(down, at, unknown=f"broker {down}: ListOffsets failed: refused")
    return Sample.of(LAYOUT, offsets, dirs)


def test_the_recorder_stores_each_ticks_rates_and_unknown_stays_null_with_why(tmp_path: Path) -> None:
    store = HistoryStore.create(tmp_path / "h")
    samples = iter([_sample(T0, {("a", 0): 0, ("a", 1): 0}), _sample(T0 + 10_000, {("a", 0): 100, ("a", 1): 50}),
                    _sample(T0 + 20_000, {("a", 0): 100, ("a", 1): 60}, down=2)])  # fmt: skip
    asked: list[ClusterSnapshot] = []

    def read(seen: ClusterSnapshot, now: int) -> Sample:
        asked.append(seen)
        return next(samples)

    clock = [T0]
    rec = Recorder("c1", store, RecorderSettings(retain_ms=None), lambda: True, lambda: clock[0], traffic=read)
    rec.traffic_tick()
    assert asked == []  # nothing before the first snapshot: the layout comes from it, never from ZooKeeper
    rec.observe(snapshot(brokers=(1, 2), full_read_ms=T0))
    for at in (T0, T0 + 10_000, T0 + 20_000):
        clock[0] = at
        rec.traffic_tick()
    rec.flush()
    rows = pq.read_table(store.files(TRAFFIC, "c1")[0]).to_pylist()
    first = {(r["kind"], r["topic"], r["partition"], r["log_dir"]): r for r in rows if r["ts_ms"] == T0 + 10_000}
    a0 = first[(PARTITION, "a", 0, None)]
    assert (a0["messages_in_per_s"], a0["bytes_in_per_s"], a0["window_s"], a0["read_ms"]) == (10.0, 100.0, 10.0,
                                                                                               T0 + 10_000)  # fmt: skip
    assert a0["broker"] == 1 and a0["messages_unknown"] is None
    d2 = first[(LOG_DIR, None, None, "/d2")]
    assert (d2["broker"], d2["used_bytes"], d2["growth_bytes_per_hour"]) == (2, 500, 180_000.0)
    later = {r["partition"]: r for r in rows if r["ts_ms"] == T0 + 20_000 and r["kind"] == PARTITION}
    assert later[1]["messages_in_per_s"] is None  # broker 2 down: unknown, not 0
    assert later[1]["messages_unknown"] == "broker 2: ListOffsets failed: refused"
    assert later[0]["messages_in_per_s"] == 0.0  # idle: a known zero


def test_p95_is_the_nearest_rank() -> None:
    assert [p95_rank(n) for n in (1, 2, 19, 20, 21, 100, 101)] == [1, 2, 19, 19, 20, 95, 96]


def _store(tmp_path: Path) -> HistoryStore:
    """Hour 0: 20 ticks, topic a 1..20 msg/s on partition 0 (broker 1) and 5 on partition 1 (broker 2); one more
    tick with partition 1 unknown. Hour 1: 3 ticks of topic b only (broker 2)."""
    store = HistoryStore.create(tmp_path / "h")
    rows = []
    for i in range(20):
        rows += traffic_tick_rows(T0 + i * 60_000, {("a", 0, 1): float(i + 1), ("a", 1, 2): 5.0})
    rows += traffic_tick_rows(T0 + 30 * 60_000, {("a", 0, 1): 1.0, ("a", 1, 2): None})
    for i in range(3):
        rows += traffic_tick_rows(T0 + HOUR + i * 60_000, {("b", 0, 2): 2.0 * (i + 1)})
    store.append(TRAFFIC, "c1", rows)
    store.record_gap("c1", Gap(T0 + 40 * 60_000, T0 + 41 * 60_000, "recorder not running"))
    return store


def test_history_traffic_gives_mean_peak_and_p95_per_hour_by_topic(tmp_path: Path) -> None:
    answer = history_traffic(_store(tmp_path), "c1", T0, T0 + 2 * HOUR, topic="a").to_json()
    [hour] = answer["hours"]
    messages = hour["messages_in_per_s"]
    # ticks 6..25 msg/s: mean 15.5, peak 25, p95 = the 19th of 20 = 24; the tick with a part unknown is left out
    assert (messages["mean"], messages["peak"], messages["p95"]) == (15.5, 25.0, 24.0)
    assert (messages["ticks_known"], messages["ticks_unknown"]) == (20, 1)
    assert messages["unknown"] == "broker 2 was not asked"
    assert hour["bytes_in_per_s"]["mean"] == 155.0  # bytes are ten times the messages in these rows
    assert [g["reason"] for g in answer["gaps"]] == ["recorder not running"]


def test_history_traffic_of_a_broker_counts_only_what_it_led_and_zero_where_it_led_nothing(tmp_path: Path) -> None:
    hours = history_traffic(_store(tmp_path), "c1", T0, T0 + 2 * HOUR, broker=1).to_json()["hours"]
    first, second = (h["messages_in_per_s"] for h in hours)
    assert (first["mean"], first["peak"], first["ticks_known"], first["ticks_unknown"]) == (
        10.048,
        20.0,
        21,
        0,
    )  # (1 + ... + 20 + 1) / 21
    assert (second["mean"], second["peak"], second["p95"]) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize(("since", "hours"), [(T0, 2), (T0 + HOUR, 1), (T0 + 3 * HOUR, 0)])
def test_history_traffic_of_the_cluster_reads_only_its_window(tmp_path: Path, since: int, hours: int) -> None:
    answer = history_traffic(_store(tmp_path), "c1", since, T0 + 4 * HOUR)
    assert len(answer.hours) == hours
    assert answer.lines()[-1].startswith(
        "  no traffic of the whole cluster recorded" if not hours else f"  {answer.to_json()['hours'][-1]['hour']}h"
    )


def test_the_rates_at_a_moment_are_the_last_tick_before_it_while_it_still_covers_it(tmp_path: Path) -> None:
    store = _store(tmp_path)
    minute = 60_000
    assert topic_rates_at(store, "c1", T0 + 19 * minute + 1) == {"a": (25.0, 250.0)}
    assert topic_rates_at(store, "c1", T0 + 30 * minute) == {"a": (None, None)}  # a part unknown: unknown
    assert topic_rates_at(store, "c1", T0 + 25 * minute) is None  # six minutes after a 60 s window: not covered
    assert topic_rates_at(store, "c1", T0 - 1) is None


def test_diff_lists_the_rates_that_changed_by_a_tenth_or_went_idle_or_unknown() -> None:
    def state(rates: dict[str, tuple[float | None, float | None]] | None) -> ClusterState:
        return ClusterState("s", {}, {}, None, None, rates)

    before = state({"a": (100.0, 1000.0), "b": (10.0, 100.0), "c": (5.0, 50.0), "d": (1.0, 10.0)})
    after = state({"a": (95.0, 960.0), "b": (0.0, 0.0), "c": (None, None), "e": (2.0, 20.0)})
    found = {d.subject: d for d in diff(before, after) if d.kind == "rate"}
    assert sorted(found) == ["b", "c", "d", "e"]  # a moved 5%: not listed
    assert found["b"].text() == "rate               b: 10.0 msg/s, 100.0 bytes/s in -> 0.0 msg/s, 0.0 bytes/s in"
    assert found["c"].after == "unknown msg/s, unknown bytes/s in"
    assert not [d for d in diff(before, state(None)) if d.kind == "rate"]  # a snapshot has no rates


class _Live:
    """The live model as the recorder sees it: one full read, already done."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def snapshot(self) -> ClusterSnapshot:
        return snapshot(brokers=(1, 2), full_read_ms=T0)


def test_the_first_tick_follows_the_first_snapshot_not_a_whole_period_later(tmp_path: Path) -> None:
    asked: list[int] = []

    def read(seen: ClusterSnapshot, now: int) -> Sample:
        asked.append(now)
        return _sample(now, {("a", 0): 0, ("a", 1): 0})

    rec = Recorder("c1", HistoryStore.create(tmp_path / "h"), RecorderSettings(retain_ms=None, traffic_every_s=3600.0),
                   lambda: True, traffic=read)  # fmt: skip
    thread = threading.Thread(target=rec.run, args=(_Live(),), daemon=True)
    thread.start()
    try:
        wait_until(lambda: asked, 10, "the first tick")
    finally:
        rec.stop()
        thread.join(10)
    assert len(asked) == 1  # the next is an hour away
