"""The console at a moment keeps a replay and applies only the events between two moments
(``core.history.diff.Replay``, ``core.console.moment.MomentBackend``): every moment it steps, shifts or jumps to
shows exactly the cluster ``state_at`` reads fresh from the store."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path

import pytest

from core.console.moment import MINUTE_MS, MomentBackend
from core.errors import UsageError
from core.history.diff import state_at
from core.history.moment import snapshot_of
from core.history.observations import Window
from core.history.schema import EVENTS, PARTITION
from core.history.store import HistoryStore
from core.polling import wait_until
from core.testdata.history import START_MS, churn_rows, write_history, write_outage

T0 = 1_764_300_000_000  # 2025-11-28 03:20:00 UTC


def _fresh(backend: MomentBackend) -> None:
    at = backend.moment.at_ms
    if not backend.moment.known:  # after the data ends: nothing shown, nothing made up
        assert not backend.snapshot().topics and not backend.snapshot().brokers
        return
    assert backend.snapshot() == snapshot_of(state_at(backend.store, backend.cluster, at), at), at


def _walk(store: HistoryStore, cluster: str, start_ms: int) -> int:
    """Step to every recorded change and back to the first, checking each moment; the changes stepped."""
    backend = MomentBackend(store, cluster, start_ms)
    backend.connect()
    _fresh(backend)
    stepped = 0
    for direction in (1, -1):
        while True:
            try:
                backend.step(direction)
            except UsageError:
                break
            _fresh(backend)
            stepped += direction > 0
    for minutes in (3, 45, -1, 200, -120, 1, -300):  # jumps, forward and back, across base snapshots
        with contextlib.suppress(UsageError):  # before the recording: the moment shown stays
            backend.shift(minutes)
        _fresh(backend)
    return stepped


def test_every_change_of_the_outage_replays_as_read_fresh(tmp_path: Path) -> None:
    write_outage(tmp_path / "store", "prod", T0)
    assert _walk(HistoryStore.open(tmp_path / "store"), "prod", T0) == 4


def test_every_change_of_a_day_of_churn_replays_as_read_fresh(tmp_path: Path) -> None:
    """A day of flaps and a broker restart, a snapshot every two hours (steps cross them), and what the
    generator never writes: a broker leaving and coming back, a new controller, a topic created and its
    partitions removed one by one."""
    info = write_history(tmp_path / "store", partitions=60, days=1, flaps_per_hour=0.02, snapshot_every_s=7200)
    store = HistoryStore.open(tmp_path / "store")
    at = START_MS + 5 * 3_600_000 + 1_234
    extra = [
        *churn_rows(at),
        {"ts_ms": at + 95_000, "kind": PARTITION, "topic": "t00000", "partition": 0, "leader": 3, "leader_epoch": 1,
         "isr": [3], "replicas": [1, 2, 3]},  # the same moment as a removal: the order of seq decides
    ]  # fmt: skip
    store.append(EVENTS, info.cluster, [{**r, "seq": 10_000_000 + i} for i, r in enumerate(extra)])
    assert _walk(store, info.cluster, info.start_ms) > 50


def test_a_move_before_the_recording_keeps_the_moment_shown(tmp_path: Path) -> None:
    write_outage(tmp_path / "store", "prod", T0)
    backend = MomentBackend(HistoryStore.open(tmp_path / "store"), "prod", T0 + 2 * MINUTE_MS)
    backend.connect()
    shown = backend.snapshot()
    with pytest.raises(UsageError, match="before the recording"):
        backend.shift(-10)
    assert backend.snapshot() is shown
    backend.step(1)
    _fresh(backend)


def test_a_view_built_before_a_move_says_its_own_moment(tmp_path: Path) -> None:
    """The console's status line says the moment of the view it shows, which may come after the backend moved on
    (``MomentBackend.moment_of``); changes less than a second apart read apart."""
    write_outage(tmp_path / "store", "prod", T0)
    backend = MomentBackend(HistoryStore.open(tmp_path / "store"), "prod", T0 + MINUTE_MS)
    backend.connect()
    before = backend.snapshot()
    backend.step(1)  # broker 2's partitions leave the ISR 100 ms after it left
    assert backend.moment.marker() == "as of 03:21:00.100 (recorded)"
    assert backend.moment_of(before).marker() == "as of 03:21:00 (recorded)"
    assert backend.moment_of(backend.snapshot()) == backend.moment


def _on_a_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefetched: bool) -> tuple[MomentBackend, list[int]]:
    """A backend at a base snapshot (prefetched or not), and the bases read from the store from then on."""
    import core.history.diff as diff

    info = write_history(tmp_path / "store", partitions=60, days=0.5, flaps_per_hour=0.05, snapshot_every_s=7200)
    backend = MomentBackend(HistoryStore.open(tmp_path / "store"), info.cluster, START_MS + 4 * 3_600_000)
    backend.connect()
    if prefetched:
        backend.prefetch()  # what the console runs in a worker once the moment is drawn
    read: list[int] = []
    real = diff.replay_base

    def replay_base(window: Window) -> diff.Replay:
        assert window.base_ms is not None
        read.append(window.base_ms)
        return real(window)

    monkeypatch.setattr(diff, "replay_base", replay_base)
    return backend, read


def test_a_step_back_across_a_base_snapshot_does_not_read_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, read = _on_a_base(tmp_path, monkeypatch, prefetched=False)
    stepped = []
    for direction in (-1, 1, -1, 1):  # back across the base, on, back, on: each base is read once
        backend.step(direction)
        stepped.append(list(read))
        _fresh(backend)  # (state_at reads its own base)
        read.clear()
    assert stepped == [[START_MS + 2 * 3_600_000], [], [], []]


def test_after_the_prefetch_a_step_back_across_the_base_snapshot_reads_no_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend, read = _on_a_base(tmp_path, monkeypatch, prefetched=True)
    backend.prefetch()  # kept already
    backend.step(-1)  # the last change before the base: the state the prefetch replayed
    assert read == []
    _fresh(backend)


def test_a_step_back_pressed_while_the_prefetch_reads_the_base_waits_for_its_replay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Right after the open, the prefetch (the console's worker) is inside its read of the base before; a step
    back across the base pressed then reads no base of its own: it waits for the prefetch's replay, and lands on
    the state read fresh."""
    import core.history.diff as diff

    info = write_history(tmp_path / "store", partitions=60, days=0.5, flaps_per_hour=0.05, snapshot_every_s=7200)
    backend = MomentBackend(HistoryStore.open(tmp_path / "store"), info.cluster, START_MS + 4 * 3_600_000)
    backend.connect()
    inside, release = threading.Event(), threading.Event()
    read: list[int] = []
    real = diff.replay_base

    def replay_base(window: Window) -> diff.Replay:
        assert window.base_ms is not None
        read.append(window.base_ms)
        if threading.current_thread().name == "prefetch":
            inside.set()
            assert release.wait(30), "the test never let the prefetch's base read go on"
        return real(window)

    monkeypatch.setattr(diff, "replay_base", replay_base)
    prefetch = threading.Thread(target=backend.prefetch, name="prefetch")
    prefetch.start()
    assert inside.wait(30), "the prefetch never read the base before"
    stepped = []
    step = threading.Thread(target=lambda: stepped.append(backend.step(-1)), name="step")
    step.start()
    wait_until(lambda: any(b.waiters for b in backend._building.values()), 30, "the step back to wait")
    release.set()
    for thread in (step, prefetch):
        thread.join(30)
        assert not thread.is_alive(), thread.name
    assert read == [START_MS + 2 * 3_600_000]  # once, by the prefetch
    assert stepped == [backend.moment] and backend.moment.at_ms < START_MS + 4 * 3_600_000
    _fresh(backend)
