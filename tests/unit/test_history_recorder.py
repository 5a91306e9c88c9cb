"""The recorder turns successive snapshots into history rows, and ``kzc history isr`` reads them back: outages,
leader changes, connection-loss and restart gaps (no cluster: snapshots from the builder, a fake clock)."""

from __future__ import annotations

from pathlib import Path

from core.history.diff import diff, state_at, state_of
from core.history.isr import isr_history
from core.history.observations import Window
from core.history.recorder import CONNECTION_GAP, RESTART_GAP, Recorder, RecorderSettings
from core.history.store import HistoryStore
from core.snapshot.model import ClusterSnapshot
from core.testdata.builder import snapshot, state, topic

T0 = 1_800_000_000_000 - 1_800_000_000_000 % 3_600_000 + 60_000


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


def cluster(isr: tuple[int, ...], leader: int = 1, epoch: int = 0, read_ms: int = T0) -> ClusterSnapshot:
    entry = topic("a", {0: (1, 2, 3), 1: (2, 3, 1)}, states={0: state(leader, isr, leader_epoch=epoch)})
    return snapshot(brokers=(1, 2, 3), topics=[entry], full_read_ms=read_ms)


def recorder(store: HistoryStore, clock: Clock, connected: list[bool]) -> Recorder:
    settings = RecorderSettings(flush_every_s=1, snapshot_every_s=3600, retain_ms=None)
    return Recorder("c1", store, settings, connected=lambda: connected[0], clock=clock)


def recorded(root: Path, steps: list[tuple[int, ClusterSnapshot]]) -> HistoryStore:
    """A store with what one recorder saw of ``steps`` (each: milliseconds after T0, the snapshot then)."""
    store, clock = HistoryStore.create(root), Clock()
    rec = recorder(store, clock, [True])
    for after, seen in steps:
        clock.now = T0 + after
        rec.observe(seen)
    rec.flush()
    return store


def test_outages_and_leader_changes_are_read_back_at_the_moments_the_recorder_saw_them(tmp_path: Path) -> None:
    store = recorded(tmp_path / "h", [
        (0, cluster((1, 2, 3))), (1_000, cluster((1, 3))), (5_000, cluster((2, 3), leader=2, epoch=1)),
        (9_000, cluster((2, 3, 1), leader=2, epoch=1)),
    ])  # fmt: skip
    answer = isr_history(Window.of(store, "c1", T0, T0 + 10_000), "a")
    got = [(o.partition, o.replica, o.left_ms, o.back_ms, o.end) for o in answer.outages]
    assert got == [(0, 1, T0 + 5_000, T0 + 9_000, "back"), (0, 2, T0 + 1_000, T0 + 5_000, "back")]
    [change] = answer.leader_changes
    assert (change.at_ms, change.old_leader, change.new_leader, change.leader_epoch) == (T0 + 5_000, 1, 2, 1)
    assert answer.window.gaps == ()


def test_a_lost_connection_is_a_recorded_gap_then_a_snapshot_and_changes_inside_it_say_so(tmp_path: Path) -> None:
    store, clock, up = HistoryStore.create(tmp_path / "h"), Clock(), [True]
    rec = recorder(store, clock, up)
    rec.observe(cluster((1, 2, 3)))
    clock.now, up[0] = T0 + 10_000, False
    rec.observe(cluster((1, 2, 3)))
    clock.now, up[0] = T0 + 20_000, True
    rec.observe(cluster((1, 2), read_ms=T0 + 19_000))  # the full read after the reconnect
    clock.now = T0 + 30_000
    rec.observe(cluster((1, 2, 3), read_ms=T0 + 19_000))
    rec.flush()
    [gap] = store.gaps("c1")
    assert (gap.from_ms, gap.to_ms, gap.reason) == (T0, T0 + 20_000, CONNECTION_GAP)
    answer = isr_history(Window.of(store, "c1", T0, T0 + 40_000), "a", 0)
    [outage] = answer.outages
    assert (outage.replica, outage.left_ms, outage.back_ms) == (3, T0 + 20_000, T0 + 30_000)
    assert answer.uncertain(outage.left_ms, outage.left_prev_ms) == gap
    assert answer.to_json()["outages"][0]["left_in_gap"] == gap.to_json()  # type: ignore[index]


class WritesInOrder(HistoryStore):
    """A store that notes the table of each file it writes, in order."""

    written: list[str]

    def append(self, table: str, cluster: str, rows: list, ts_column: str = "ts_ms") -> list[Path]:  # type: ignore[type-arg]
        self.written = [*getattr(self, "written", []), table]
        return super().append(table, cluster, rows, ts_column)


def test_a_gap_is_written_after_the_snapshot_that_closes_it(tmp_path: Path) -> None:
    # A reader that sees the gap must also see the full snapshot after it (the files appear one by one).
    HistoryStore.create(tmp_path / "h")
    store, clock, up = WritesInOrder(tmp_path / "h"), Clock(), [True]
    rec = recorder(store, clock, up)
    rec.observe(cluster((1, 2, 3)))
    rec.flush()
    clock.now, up[0] = T0 + 10_000, False
    rec.observe(cluster((1, 2, 3)))
    clock.now, up[0] = T0 + 20_000, True
    rec.observe(cluster((1, 2), read_ms=T0 + 19_000))
    store.written = []
    rec.flush()
    assert store.written == ["snapshots", "gaps"]


def test_a_restart_records_the_gap_since_the_last_flush(tmp_path: Path) -> None:
    store, clock, up = HistoryStore.create(tmp_path / "h"), Clock(), [True]
    first = recorder(store, clock, up)
    first.observe(cluster((1, 2, 3)))
    clock.now = T0 + 2_000
    first.observe(cluster((1, 2, 3)))
    first.flush()
    clock.now = T0 + 60_000
    second = recorder(store, clock, up)
    second._gap_from = store.flushed_ms("c1")  # what run() does before starting the model
    second.observe(cluster((1, 3), read_ms=T0 + 59_000))
    second.flush()
    assert [(g.from_ms, g.to_ms, g.reason) for g in store.gaps("c1")] == [(T0 + 2_000, T0 + 60_000, RESTART_GAP)]


def test_a_moment_of_the_store_is_the_snapshot_with_the_events_up_to_it(tmp_path: Path) -> None:
    store = recorded(tmp_path / "h", [
        (0, cluster((1, 2, 3))), (1_000, cluster((1, 3))), (2_000, cluster((2, 3), leader=2, epoch=1)),
    ])  # fmt: skip
    at = state_at(store, "c1", T0 + 1_500)
    assert at.partitions[("a", 0)] == ((1, 2, 3), 1, (1, 3))
    live = state_of(cluster((2, 3), leader=2, epoch=1), "now")
    texts = [d.text() for d in diff(at, live)]
    assert texts == ["leader             a-0: 1 -> 2", "isr                a-0: [1,3] -> [2,3]"]
