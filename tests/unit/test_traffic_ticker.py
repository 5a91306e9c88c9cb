"""The console's traffic ticker (``core.traffic.ticker``): rates between ticks, the first tick says it is
measuring, a fresh tick is shared, unknown brokers stay unknown, the history behind the sparklines, and a topic
whose producers stopped is a finding for as long as it stays idle; a view's sums show the same without its
partitions' rates; a slow read on one path (tick, sample) does not block the other, and one tick is in flight at
a time."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from core.config import ConnectionSettings, KafkaSecurity
from core.console.zk import ZkBackend
from core.errors import ConnectError
from core.human_time import clock_text
from core.polling import wait_until
from core.snapshot.model import ClusterSnapshot
from core.testdata.snapshots import synthetic_snapshot
from core.testdata.traffic import TICK_MS, SyntheticTraffic
from core.traffic.sample import Layout, Sample
from core.traffic.ticker import FIRST_NOTE, HISTORY_TICKS, TrafficTicker

SNAPSHOT = synthetic_snapshot(topics=10, partitions_per_topic=4)
HOT = "clicks.orders-00002"


def _ticker(traffic: SyntheticTraffic) -> TrafficTicker:
    return TrafficTicker(KafkaSecurity(), lambda: 0, traffic.read)


def test_the_first_tick_measures_and_the_second_gives_rates() -> None:
    ticker = _ticker(SyntheticTraffic({HOT: 40.0}, 1_000_000))
    first = ticker.tick(SNAPSHOT)
    assert first.traffic is None and first.note == FIRST_NOTE
    assert first.totals()[0].unknown == FIRST_NOTE and first.footer(0) == f"traffic: {FIRST_NOTE}"
    second = ticker.tick(SNAPSHOT)
    messages, bytes_in = second.topic(HOT)
    assert messages.per_s == 40.0 and bytes_in.per_s == 4000.0 and messages.window_s == TICK_MS / 1000
    assert second.topic("payments.orders-00001")[0].idle
    assert second.topic("no-such-topic")[0].unknown == "topic no-such-topic was not in the sample (created since?)"
    assert second.history[-1].topics[HOT] == 40.0


def test_a_fresh_tick_is_shared_and_an_old_one_is_not() -> None:
    traffic = SyntheticTraffic({HOT: 40.0}, 1_000_000)
    ticker = _ticker(traffic)
    ticker.tick(SNAPSHOT)
    assert ticker.tick(SNAPSHOT, max_age_s=60.0) is ticker.tick(SNAPSHOT, max_age_s=60.0)
    assert traffic.ticks == 1
    ticker.tick(SNAPSHOT)
    assert traffic.ticks == 2


def test_a_broker_that_cannot_answer_is_unknown_with_why_never_zero() -> None:
    why = "broker 3 did not answer in 10 s"
    ticker = _ticker(SyntheticTraffic({HOT: 40.0}, 1_000_000, unknown={3: why}))
    ticker.tick(SNAPSHOT)
    view = ticker.tick(SNAPSHOT)
    assert view.broker(3)[0].per_s is None and why in (view.broker(3)[0].unknown or "")
    assert view.totals()[0].per_s is None  # never a partial sum
    assert view.broker(99)[0].unknown == "broker 99 was not registered at the sample"


def test_the_history_keeps_the_last_ticks_only() -> None:
    ticker = _ticker(SyntheticTraffic({HOT: 40.0}, 1_000_000))
    for _ in range(HISTORY_TICKS + 5):
        view = ticker.tick(SNAPSHOT)
    assert len(view.history) == HISTORY_TICKS
    assert view.topic_history(HOT) == [40.0] * HISTORY_TICKS


def test_a_views_sums_show_what_the_view_shows_without_its_partitions_rates() -> None:
    why = "broker 3 did not answer in 10 s"
    ticker = _ticker(SyntheticTraffic({HOT: 40.0}, 1_000_000, unknown={3: why}))
    first = ticker.tick(SNAPSHOT)
    assert not first.sums().rated and first.sums().footer(0) == first.footer(0) == f"traffic: {FIRST_NOTE}"
    view = ticker.tick(SNAPSHOT)
    sums = view.sums()
    assert sums.traffic is None and sums.rated  # no per-partition rate kept, yet rated
    assert sums.totals() == view.totals() and sums.window_s() == view.window_s()
    assert sums.footer(TICK_MS) == view.footer(TICK_MS) == "traffic over 5s, read 5s ago"
    for topic in (HOT, "payments.orders-00001", "no-such-topic"):
        assert sums.topic(topic) == view.topic(topic), topic
    for broker in (1, 3, 99):
        assert sums.broker(broker) == view.broker(broker), broker
    assert sums.history == view.history and sums.topic_history(HOT) == view.topic_history(HOT)
    with pytest.raises(ValueError, match="needs the whole view"):
        sums.partition(HOT, 0)
    with pytest.raises(ValueError, match="needs the whole view"):
        sums.findings()


class _LiveModel:
    """The live model's one method a tick uses: the snapshot it holds in memory."""

    def snapshot(self) -> ClusterSnapshot:
        return SNAPSHOT


def test_the_console_backend_ticks_from_its_live_snapshot_without_a_zookeeper_session() -> None:
    backend = ZkBackend(ConnectionSettings())
    with pytest.raises(ConnectError):
        backend.traffic()  # nothing read yet: no snapshot, and no ZooKeeper request to make one
    backend._live = _LiveModel()  # type: ignore[assignment]
    backend._traffic = _ticker(SyntheticTraffic({HOT: 40.0}, 1_000_000))
    backend.traffic()
    assert backend.traffic().topic(HOT)[0].per_s == 40.0  # no session at all: a tick asks ZooKeeper nothing
    assert backend._session is None


def _stopped(ticker: TrafficTicker) -> list[str]:
    return [f.text for f in ticker.tick(SNAPSHOT).findings() if f.kind == "stopped"]


def test_producers_stopped_holds_over_idle_ticks_saying_since_when_and_ends_on_traffic() -> None:
    start = 1_000_000
    traffic = SyntheticTraffic({HOT: 40.0}, start, stops={HOT: 1})
    ticker = _ticker(traffic)
    ticker.tick(SNAPSHOT)
    assert _stopped(ticker) == []  # tick 1: 40 messages/s
    since = clock_text(start + TICK_MS)  # the start of the first idle window
    for idle in (5, 10, 15, 20):  # ticks 2 to 5, idle: it holds
        said = f"producers stopped: {HOT} took 40.0 messages/s until {since} and none since ({idle}s)"
        assert _stopped(ticker) == [said]
    del traffic.stops[HOT]  # messages again
    assert _stopped(ticker) == []
    traffic.stops[HOT] = traffic.ticks - 1  # from the last tick read
    assert len(_stopped(ticker)) == 1  # a new stop, from the new last window with messages


def test_an_unknown_rate_is_not_stopped_and_ends_the_finding() -> None:
    traffic = SyntheticTraffic({HOT: 40.0}, 1_000_000, stops={HOT: 1})
    ticker = _ticker(traffic)
    ticker.tick(SNAPSHOT)
    ticker.tick(SNAPSHOT)
    assert len(_stopped(ticker)) == 1
    traffic.unknown = {b: "did not answer in 10 s" for b in SNAPSHOT.brokers}
    assert _stopped(ticker) == []  # unknown, never a made-up "stopped"
    traffic.unknown = {}
    assert _stopped(ticker) == []  # idle after an unknown window: it may have taken messages in between


class _Gated:
    """A sample reader whose reads on the thread named ``slow`` wait for ``gate`` (a broker that is slow to
    answer); every other read answers at once."""

    def __init__(self, traffic: SyntheticTraffic) -> None:
        self.traffic = traffic
        self.gate, self.entered = threading.Event(), threading.Event()
        self.reads: list[str] = []

    def read(self, layout: Layout, timeout: float, now_ms: int, security: KafkaSecurity | None = None) -> Sample:
        self.reads.append(threading.current_thread().name)
        if threading.current_thread().name == "slow":
            self.entered.set()
            assert self.gate.wait(30), "the test never opened the gate"
        return self.traffic.read(layout, timeout, now_ms, security)


def _in_thread(name: str, call: Callable[[], object]) -> tuple[threading.Thread, list[object]]:
    done: list[object] = []
    thread = threading.Thread(target=lambda: done.append(call()), name=name, daemon=True)
    thread.start()
    return thread, done


@pytest.mark.parametrize("slow", ["tick", "sample"])
def test_a_slow_read_on_one_path_does_not_block_the_other(slow: str) -> None:
    reader = _Gated(SyntheticTraffic({HOT: 40.0}, 1_000_000))
    ticker = TrafficTicker(KafkaSecurity(), lambda: 0, reader.read)
    ticker.tick(SNAPSHOT)  # a first sample, so the tick below gives rates
    paths = {"tick": lambda: ticker.tick(SNAPSHOT), "sample": lambda: ticker.sample(SNAPSHOT, 0.0)}
    held, held_done = _in_thread("slow", paths[slow])
    try:
        wait_until(reader.entered.is_set, 10, f"the slow {slow} to be reading")
        other = "sample" if slow == "tick" else "tick"
        _, done = _in_thread("fast", paths[other])
        # the other path reads and returns while the slow read is still held (the gate is still shut)
        wait_until(lambda: bool(done), 10, f"the {other} to return while the slow {slow} reads")
        assert not held_done and not reader.gate.is_set()
    finally:
        reader.gate.set()
        held.join(10)
    assert held_done and reader.reads.count("fast") == 1


def test_one_tick_in_flight_at_a_time_and_a_caller_asking_for_a_fresh_one_shares_it() -> None:
    reader = _Gated(SyntheticTraffic({HOT: 40.0}, 1_000_000))
    ticker = TrafficTicker(KafkaSecurity(), lambda: 0, reader.read)
    first, first_done = _in_thread("slow", lambda: ticker.tick(SNAPSHOT))
    wait_until(reader.entered.is_set, 10, "the first tick to be reading")
    second, second_done = _in_thread("second", lambda: ticker.tick(SNAPSHOT, max_age_s=60.0))
    reader.gate.set()
    first.join(10)
    second.join(10)
    assert first_done and second_done and first_done[0] is second_done[0]
    assert reader.reads == ["slow"]  # the second waited for the tick in flight and shared it: one read
