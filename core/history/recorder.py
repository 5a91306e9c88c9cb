"""The recorder: one cluster's live model, turned into rows of the history store (``kzc record``).

The recorder depends on the live model only through ``LiveSource`` (start, stop, snapshot, and the two
callbacks it was built with): it compares each new snapshot with the last one it recorded and writes what
changed as ``events`` rows, so every partition is recorded without following topics one by one (the model
keeps every partition current from its own watches). Unchanged topics are the same objects from one
snapshot to the next, so a comparison costs the topics that changed, not the cluster.

Gaps are recorded, never papered over: a restart records the time since the last flush of the previous
run (``HistoryStore.flushed_ms``); a lost ZooKeeper connection records the time from the last moment the
model was known current to the full read after the reconnect, and that read is then written as a snapshot.

Traffic (``traffic_every_s``, given a ``TrafficRead``): every tick one sample of the brokers (one ListOffsets and
one DescribeLogDirs per broker, ``core.traffic.sample``) by the layout of the last snapshot recorded, so no
ZooKeeper request is added; from the second tick on, the rates between the tick and the one before are
buffered as ``traffic`` rows (``core.history.schema.traffic_rows``). Given a ``GroupsRead`` too, each tick first
reads the consumer groups' committed offsets (ListGroups on every broker, one OffsetFetch per group,
``/consumers``), then the sample, and buffers their lag against the sample's high watermarks as ``group_lag`` rows,
in the same thread (committed offsets first, as kafka-consumer-groups reads them, so no lag is negative).

Threads: the live model's callbacks only set a flag; ``run`` (the caller's thread) compares and buffers;
a traffic thread samples and buffers; ``flush`` writes (called by ``run`` every ``flush_every_s``, and by
``stop`` from any thread, under a lock).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from core.history.schema import (
    BROKER_LEFT,
    EVENTS,
    GROUP_LAG,
    PARTITION_REMOVED,
    SNAPSHOTS,
    TRAFFIC,
    Row,
    broker_row,
    controller_row,
    partition_replicas,
    partition_row,
    snapshot_rows,
    traffic_rows,
)
from core.history.store import Gap, HistoryStore
from core.kafka.znodes import ControllerInfo
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.traffic.sample import Sample
from core.traffic.view import Traffic

RESTART_GAP = "recorder not running (stopped, crashed or restarted): changes in between are unknown"
CONNECTION_GAP = "ZooKeeper connection lost: changes in between are unknown (a full read follows)"
_TICK_S = 0.1

TrafficRead = Callable[[ClusterSnapshot, int], Sample]
"""One traffic sample of the brokers by the layout of a snapshot, at a moment (epoch ms); never raises."""
GroupsRead = Callable[[ClusterSnapshot, Callable[[], Sample], int], list[Row]]
"""The ``group_lag`` rows of a tick (``core.groups.recorded.groups_read``): the groups' committed offsets, then the
tick's sample (the callable reads it once) and the offsets against its high watermarks, at the tick (epoch ms);
never raises (a failed read is a row saying why)."""


class LiveSource(Protocol):
    """What the recorder needs of the live model (``core.live.model.LiveCluster``); the callbacks it was
    built with must call the recorder's ``changed``."""

    def start(self) -> None: ...

    def stop(self) -> None: ...

    def snapshot(self) -> ClusterSnapshot: ...


@dataclass(frozen=True, slots=True)
class RecorderSettings:
    """How often the recorder flushes (the most a crash may lose) and writes a whole snapshot."""

    flush_every_s: float = 5.0
    snapshot_every_s: float = 900.0
    retain_ms: int | None = 30 * 86_400_000
    compact: bool = True
    traffic_every_s: float | None = 60.0  # None: no traffic rows


class Recorder:
    """Records one cluster into ``store`` under the name ``cluster``."""

    def __init__(
        self,
        cluster: str,
        store: HistoryStore,
        settings: RecorderSettings,
        connected: Callable[[], bool],
        clock: Callable[[], int] | None = None,
        traffic: TrafficRead | None = None,
        groups: GroupsRead | None = None,
    ) -> None:
        self.cluster = cluster
        self.store = store
        self.settings = settings
        self._connected = connected
        self._clock = clock or (lambda: int(time.time() * 1000))
        self._traffic_read = traffic if settings.traffic_every_s else None
        self._groups_read = groups if self._traffic_read is not None else None
        self._traffic: list[Row] = []
        self._group_lag: list[Row] = []
        self._traffic_failure: BaseException | None = None
        self._before: Sample | None = None
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self._flushing = threading.Lock()  # one flush at a time (run's and stop's): file names never collide
        self._events: list[Row] = []
        self._snapshots: list[Row] = []
        self._gaps: list[Gap] = []
        self._last: ClusterSnapshot | None = None
        self._seq = 0
        self._seen_ms = 0  # the last moment the model was known current (recorded up to here)
        self._gap_from: int | None = None
        self._gap_reason = RESTART_GAP
        self._last_snapshot_ms = 0
        self._last_flush = 0.0
        self.rows_written = 0
        self.flushes = 0

    @property
    def buffered(self) -> int:
        """Rows compared and waiting for the next flush (any thread)."""
        with self._lock:
            return len(self._events) + len(self._snapshots) + len(self._traffic) + len(self._group_lag)

    def changed(self) -> None:
        """The live model has news (its callbacks, any thread): only flag it."""
        self._wake.set()

    def run(self, live: LiveSource) -> None:
        """Record until ``stop``: start the model, compare every change, flush every ``flush_every_s``."""
        self._gap_from = self.store.flushed_ms(self.cluster)
        live.start()
        sampler = None
        if self._traffic_read is not None:
            sampler = threading.Thread(target=self._sample_traffic, name=f"kzc-record-traffic-{self.cluster}")
            sampler.daemon = True
            sampler.start()
        try:
            self._last_flush = time.monotonic()
            while not self._stopped.is_set():
                self._wake.wait(_TICK_S)
                self._wake.clear()
                if self._stopped.is_set():
                    break
                if self._traffic_failure is not None:
                    raise self._traffic_failure
                self.observe(live.snapshot())
                if time.monotonic() - self._last_flush >= self.settings.flush_every_s:
                    self.flush()
                    self._housekeep()
        finally:
            self._stopped.set()
            live.stop()
            if sampler is not None:
                sampler.join(5.0)

    def _sample_traffic(self) -> None:
        """The traffic thread: a tick every ``traffic_every_s`` (one after the other, never two at once), the first
        as soon as the first snapshot is recorded (its layout), not a whole period later."""
        every = self.settings.traffic_every_s or 0.0
        due = time.monotonic()
        try:
            while not self._stopped.wait(max(0.0, due - time.monotonic())):
                with self._lock:
                    recorded = self._last is not None
                if not recorded:
                    due = time.monotonic() + _TICK_S
                    continue
                due += every
                self.traffic_tick()
        except Exception as exc:  # handed to ``run``, which raises it
            self._traffic_failure = exc
            self._wake.set()

    def traffic_tick(self) -> None:
        """Sample the brokers by the last snapshot recorded and buffer the rates since the tick before, and the
        groups' lag against the sample's high watermarks (the traffic thread; nothing before the first snapshot)."""
        with self._lock:
            snapshot = self._last
        if snapshot is None or self._traffic_read is None:
            return
        now = self._clock()
        read = self._traffic_read
        sampled: list[Sample] = []

        def sample() -> Sample:  # once, at the moment it is read (after the groups' committed offsets)
            if not sampled:
                sampled.append(read(snapshot, self._clock()))
            return sampled[0]

        # Stopped (the owner closes its clients next): no new request starts, and nothing more is buffered.
        if self._groups_read is not None and not self._stopped.is_set():
            lag = self._groups_read(snapshot, sample, now)
            with self._lock:
                self._group_lag.extend(lag)
        if self._stopped.is_set():
            return
        after = sample()
        if self._before is not None:
            rows = list(traffic_rows(now, Traffic(self._before, after)))
            with self._lock:
                self._traffic.extend(rows)
        self._before = after

    def observe(self, snapshot: ClusterSnapshot) -> None:
        """Compare ``snapshot`` with the last one recorded and buffer the rows (the ``run`` thread)."""
        now = self._clock()
        if snapshot.full_read_ms is None:
            return  # the first full read is under way
        if not self._connected():
            if self._gap_from is None:
                self._gap_from, self._gap_reason = self._seen_ms, CONNECTION_GAP
            return
        if self._gap_from is not None or self._last is None:
            if self._last is not None and snapshot.full_read_ms <= self._gap_from_or(now):
                return  # connected again, but the full read after it has not landed yet
            with self._lock:
                if self._gap_from is not None and self._gap_from < now:
                    self._gaps.append(Gap(self._gap_from, now, self._gap_reason))
                self._gap_from, self._gap_reason = None, RESTART_GAP
                self._take_snapshot(snapshot, now)
            return
        with self._lock:
            self._events.extend(self._changes(self._last, snapshot, now))
            self._last, self._seen_ms = snapshot, now
            if now - self._last_snapshot_ms >= self.settings.snapshot_every_s * 1000:
                self._take_snapshot(snapshot, now)

    def _gap_from_or(self, now: int) -> int:
        return self._gap_from if self._gap_from is not None else now

    def _take_snapshot(self, snapshot: ClusterSnapshot, now: int) -> None:
        rows = list(snapshot_rows(snapshot, now))
        self._snapshots.extend(rows)
        self._last, self._seen_ms, self._last_snapshot_ms = snapshot, now, now

    def _next(self) -> int:
        self._seq += 1
        return self._seq

    def _changes(self, old: ClusterSnapshot, new: ClusterSnapshot, now: int) -> list[Row]:
        rows: list[Row] = []
        if _controller(old) != _controller(new):
            rows.append(controller_row(now, self._next(), new))
        for broker_id, entry in new.brokers.items():
            before = old.brokers.get(broker_id)
            if before is None or before.registration != entry.registration or before.times.czxid != entry.times.czxid:
                rows.append(broker_row(now, self._next(), entry))
        for broker_id in old.brokers.keys() - new.brokers.keys():
            rows.append({"ts_ms": now, "seq": self._next(), "kind": BROKER_LEFT, "broker": broker_id})
        for name, topic in new.topics.items():
            before_topic = old.topics.get(name)
            if before_topic is topic:
                continue  # untouched since the last snapshot (the model replaces what changes)
            rows.extend(self._partition_changes(before_topic, topic, now))
        for name in old.topics.keys() - new.topics.keys():
            for partition in sorted(partition_replicas(old.topics[name])):
                rows.append(self._removed(now, name, partition))
        return rows

    def _partition_changes(self, old: TopicEntry | None, new: TopicEntry, now: int) -> list[Row]:
        rows = []
        before = partition_replicas(old) if old is not None else {}
        after = partition_replicas(new)
        for partition, replicas in sorted(after.items()):
            same_state = old is not None and old.states.get(partition) == new.states.get(partition)
            if partition in before and before[partition] == replicas and same_state:
                continue
            rows.append(partition_row(now, self._next(), new, partition, replicas))
        for partition in sorted(before.keys() - after.keys()):
            rows.append(self._removed(now, new.name, partition))
        return rows

    def _removed(self, now: int, topic: str, partition: int) -> Row:
        return {"ts_ms": now, "seq": self._next(), "kind": PARTITION_REMOVED, "topic": topic, "partition": partition}

    def flush(self) -> None:
        """Write what is buffered (each table a new file per hour), then note the moment it covers."""
        with self._flushing:
            self._flush()

    def _flush(self) -> None:
        with self._lock:
            events, snapshots, gaps, traffic = self._events, self._snapshots, self._gaps, self._traffic
            group_lag = self._group_lag
            self._events, self._snapshots, self._gaps, self._traffic, self._group_lag = [], [], [], [], []
            covered = self._seen_ms if self._gap_from is None else None
        if snapshots:
            self.store.append(SNAPSHOTS, self.cluster, snapshots)
        if events:
            self.store.append(EVENTS, self.cluster, events)
        if traffic:
            self.store.append(TRAFFIC, self.cluster, traffic)
        if group_lag:
            self.store.append(GROUP_LAG, self.cluster, group_lag)
        # A gap after the rows: a reader that sees a gap also sees the full snapshot that closes it.
        for gap in gaps:
            self.store.record_gap(self.cluster, gap)
        if covered:
            self.store.set_flushed(self.cluster, covered)
        self.rows_written += len(events) + len(snapshots) + len(traffic) + len(group_lag)
        self.flushes += 1
        self._last_flush = time.monotonic()

    def _housekeep(self) -> None:
        """Retention and compaction, at most once a minute."""
        now = self._clock()
        if now - getattr(self, "_housekept", 0) < 60_000:
            return
        self._housekept = now
        if self.settings.retain_ms is not None:
            self.store.retain(self.cluster, self.settings.retain_ms, now)
        if self.settings.compact:
            self.store.compact(self.cluster, now)

    def stop(self) -> None:
        """Stop recording and flush what is buffered (any thread; Ctrl-C and SIGTERM call it)."""
        self._stopped.set()
        self._wake.set()
        self.flush()


def _controller(snapshot: ClusterSnapshot) -> tuple[int | None, object]:
    controller = snapshot.controller
    broker = controller.broker_id if isinstance(controller, ControllerInfo) else None
    return broker, snapshot.controller_epoch
