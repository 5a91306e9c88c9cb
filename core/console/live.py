"""The console's live view of one cluster, composed of ``core.live.watcher.ClusterWatcher`` (watches → typed
events, followed topics partition by partition) and ``core.snapshot.reader`` (the whole metadata).

``snapshot()`` is the last full read, kept current partition by partition, with the watcher's
knowledge laid over it: brokers, controller and epoch, topics that disappeared, deletion markers, admin
requests, and every followed topic's assignment and partition states.

Every partition is followed, not only the topics on screen: the full read sets a data watch on every
topic znode and every partition ``state`` znode (``SnapshotReader(watch=...)``), and each watch that
fires re-reads that one znode (re-arming its watch) on the ``kzc-partitions`` thread. Reads are
proportional to change: one read per changed znode, none while the cluster is idle. A full read happens
only at start, after a reconnect or a session expiry (ZooKeeper drops a connection's watches and kazoo
does not set them again) and on ``request_full_read``; docs/live-events.md gives the figures.

``watch_path`` gives the ZooKeeper browser a live znode (data, children, existence): one-shot watches
re-armed on this module's own thread, since the watcher only follows Kafka's structural znodes.

During a ZooKeeper-to-KRaft migration the brokers rolled to KRaft leave ``/brokers/ids`` but serve: each
snapshot counts them alive (``kraft_brokers``, ``core.snapshot.kraft``: listed by DescribeCluster, else in
an ISR), and the watcher is told which they are, so its migration phase is right even in a console opened
after they moved.

Threads: kazoo's threads only queue; ``kzc-live`` (the watcher) delivers events; ``kzc-snapshot``
reads snapshots; ``kzc-znode-watch`` re-arms browser watches; ``kzc-kraft-brokers`` tells the watcher
which brokers run KRaft (asking the brokers when needed). Callbacks given here run on those
threads and must only hand the news on.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kazoo.exceptions import KazooException, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import EventType, WatchedEvent

from core.console.protocols import EventKind, Unsubscribe
from core.errors import ConnectError, KzcError
from core.kafka.znodes import (
    ControllerInfo,
    EntityConfig,
    PartitionState,
    TopicAssignment,
    Unreadable,
    parse_partition_state,
    parse_topic,
)
from core.kafka.znodes.paths import (
    CONTROLLER,
    broker_path,
    deletion_marker_path,
    parse_state_path,
    parse_topic_path,
    state_path,
    topic_path,
)
from core.live import events as ev
from core.live.state import LiveState
from core.live.watcher import MIGRATION_REARM_S, ClusterWatcher
from core.snapshot.kraft import kraft_broker_ids, kraft_controller_holds
from core.snapshot.model import NOT_READ, BrokerEntry, ClusterSnapshot, StaticMinIsr, TopicEntry, ZnodeTimes
from core.snapshot.reader import SnapshotReader, times_of
from core.zookeeper.session import ZkSession

_COALESCE_S = 0.05  # changes arriving within this window share one full read / one update
_ASK_AGAIN_S = 2.0  # during a migration, DescribeCluster at most this often while it disagrees with the ISR

_SEVERITY: dict[type[ev.LiveEvent], str] = {
    ev.BrokerLeft: "error",
    ev.ZnodeUnreadable: "error",
    ev.LogDirEventsChanged: "error",
    ev.ControllerMoved: "warning",
    ev.DeletionQueued: "warning",
    ev.LeaderChanged: "warning",
    ev.TopicRemoved: "warning",
}
_KINDS: dict[type[ev.LiveEvent], EventKind] = {
    ev.ControllerMoved: EventKind.CONTROLLER_MOVED,
    ev.BrokerRegistered: EventKind.BROKER_JOINED,
    ev.BrokerLeft: EventKind.BROKER_LEFT,
    ev.BrokerUpdated: EventKind.BROKER_CHANGED,
    ev.TopicCreated: EventKind.TOPIC_CREATED,
    ev.TopicRemoved: EventKind.TOPIC_DELETED,
    ev.TopicAssignmentChanged: EventKind.TOPIC_CHANGED,
    ev.DeletionQueued: EventKind.DELETION_QUEUED,
    ev.DeletionFinished: EventKind.DELETION_MARKER_REMOVED,
    ev.ReassignmentChanged: EventKind.ADMIN_REQUEST,
    ev.PreferredElectionChanged: EventKind.ADMIN_REQUEST,
    ev.IsrNotificationsChanged: EventKind.NOTIFICATION,
    ev.LogDirEventsChanged: EventKind.NOTIFICATION,
    ev.Resynced: EventKind.RESYNC,
}


@dataclass(frozen=True, slots=True)
class TimedEvent:
    """A ``core.live.events`` event with when it was seen and what the console links it to."""

    event: ev.LiveEvent
    at_ms: int

    def describe(self) -> str:
        """The event's own line."""
        return self.event.describe()

    @property
    def kind(self) -> EventKind:
        """What the event is about."""
        if isinstance(self.event, ev.ControllerMoved):
            moved = self.event.new is not None and self.event.old != self.event.new
            return EventKind.CONTROLLER_MOVED if moved else EventKind.CONTROLLER_GONE
        return _KINDS.get(type(self.event), EventKind.PARTITION_CHANGED)

    @property
    def severity(self) -> str:
        """``error``, ``warning`` or ``info``: how the event log styles the line."""
        event = self.event
        if isinstance(event, ev.PartitionStateChanged):
            new = event.new
            return "error" if new is None or isinstance(new, Unreadable) or new.leader < 0 else "info"
        if isinstance(event, ev.IsrChanged) and len(event.new_isr) < len(event.old_isr):
            return "warning"
        if isinstance(event, ev.ControllerMoved) and event.new is None:
            return "error"
        return _SEVERITY.get(type(event), "info")

    @property
    def topic(self) -> str | None:
        """The topic the event is about, if any."""
        if isinstance(self.event, ev.TopicCreated | ev.TopicRemoved):
            return self.event.name
        value = getattr(self.event, "topic", None)
        return value if isinstance(value, str) else None

    @property
    def path(self) -> str | None:
        """The znode the event is about, if it names one."""
        event = self.event
        if isinstance(event, ev.ZnodeUnreadable):
            return event.path
        if isinstance(event, ev.BrokerRegistered | ev.BrokerLeft | ev.BrokerUpdated):
            return broker_path(event.id)
        if isinstance(event, ev.ControllerMoved | ev.ControllerEpochChanged):
            return CONTROLLER
        topic = self.topic
        partition = getattr(event, "partition", None)
        if topic is not None and isinstance(partition, int):
            return state_path(topic, partition)
        if isinstance(event, ev.DeletionQueued):
            return deletion_marker_path(event.topic)
        return topic_path(topic) if topic is not None else None


def _now_ms() -> int:
    return int(time.time() * 1000)


def _both_states(event: ev.PartitionStateChanged) -> bool:
    """A change between two readable states (not a creation, removal or unreadable value)."""
    return isinstance(event.old, PartitionState) and isinstance(event.new, PartitionState)


class LiveCluster:
    """Snapshots kept current and events, for one started ``ZkSession``; see the module docstring.

    Args:
        session: a started session (its owner closes it).
        on_event: every change (a ``TimedEvent``), on the watcher's thread.
        on_snapshot: called after each full read and each targeted update, on the reader's threads.
        on_raw: every watcher event as it comes, unfiltered (``kzc watch`` prints them all), on the
            watcher's thread.
        served_brokers: asks the brokers which of them serve (DescribeCluster; None when they do not answer),
            on the ``kzc-kraft-brokers`` thread, only while a KRaft controller holds /controller; without it
            the ISR tells which brokers run KRaft.
        migration_rearm_s: the watcher's ``/migration`` re-arm period (how long a frozen /migration takes to
            show as finalized).
    """

    def __init__(
        self,
        session: ZkSession,
        on_event: Callable[[TimedEvent], None],
        on_snapshot: Callable[[], None],
        on_raw: Callable[[ev.LiveEvent], None] | None = None,
        served_brokers: Callable[[], frozenset[int] | None] | None = None,
        migration_rearm_s: float = MIGRATION_REARM_S,
    ) -> None:
        self._session = session
        self._on_event = on_event
        self._on_raw = on_raw
        self._on_snapshot = on_snapshot
        # The watcher's migration phase depends on which brokers run KRaft: this model tells it (_kraft_loop).
        self._watcher = ClusterWatcher(session, self._watched, migration_rearm_s, await_kraft_brokers=True)
        self._reader = SnapshotReader(session, watch=self._znode_fired)
        self._fired: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._reading = False  # a full read is under way: updates are kept to lay over its result
        self._during_read: dict[str, object] = {}
        self.last_full_read_ms: int | None = None
        self.targeted_reads = 0  # znodes re-read because their watch fired
        self._lock = threading.Lock()
        self._base: ClusterSnapshot | None = None
        self._dirty = threading.Event()
        self._stopped = threading.Event()
        self._followers: dict[str, list[Callable[[TopicEntry | None], None]]] = {}
        self._seen_ms: dict[str, int] = {}  # when an overlaid broker / marker was first seen
        self._reader_thread: threading.Thread | None = None
        self._browse = _ZnodeWatches(session)
        self._loading: str | None = "connecting"
        self._static_min_isr = NOT_READ
        # Brokers running KRaft during a migration (core.snapshot.kraft): what DescribeCluster lists (asked on
        # the kzc-kraft-brokers thread when a broker joins or leaves while a KRaft controller holds /controller),
        # the set last computed for a base snapshot, and the set last told to the watcher.
        self._ask_served = served_brokers
        self._served: frozenset[int] | None = None
        self._served_stale = True
        self._kraft_dirty = threading.Event()
        self._kraft_cache: tuple[ClusterSnapshot, frozenset[int], frozenset[int] | None, frozenset[int]] | None = None
        self._kraft_told: frozenset[int] | None = None
        self._asked_at = 0.0

    # ---- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the watcher (its first read is small: brokers, controller, topic names) and the first full
        read in the background; until that read completes, ``snapshot()`` holds no topics and
        ``loading()`` says what is being read.

        Raises:
            ConnectError: ZooKeeper could not be read.
        """
        state = self._watcher.start()
        with self._lock:
            self._base = _skeleton(str(self._session.target), self._session.session_id or 0)
            self._loading = f"reading {len(state.topics):,} topics" if state.topics else "reading the cluster"
        self._dirty.set()
        self._reader_thread = threading.Thread(target=self._read_loop, name="kzc-snapshot", daemon=True)
        self._reader_thread.start()
        threading.Thread(target=self._follow_loop, name="kzc-partitions", daemon=True).start()
        threading.Thread(target=self._kraft_loop, name="kzc-kraft-brokers", daemon=True).start()
        self._browse.start()

    @property
    def watcher(self) -> ClusterWatcher:
        """The structural watcher (its state, topics followed partition by partition)."""
        return self._watcher

    def set_static_min_isr(self, value: StaticMinIsr) -> None:
        """What the brokers said their static ``min.insync.replicas`` is; every later snapshot carries it."""
        self._static_min_isr = value

    def loading(self) -> str | None:
        """What the first full read is reading, or ``None`` once it completed."""
        return self._loading

    def stop(self) -> None:
        """Stop watching and reading (the session stays open)."""
        self._stopped.set()
        self._dirty.set()
        self._kraft_dirty.set()
        self._watcher.stop()
        self._browse.stop()

    # ---- reading -------------------------------------------------------------------------------------

    def snapshot(self) -> ClusterSnapshot:
        """The last full read with the watcher's current knowledge laid over it.

        Raises:
            ConnectError: nothing has been read yet.
        """
        with self._lock:
            base = self._base
        if base is None:
            raise ConnectError("the cluster has not been read yet")
        return self._overlay(base, self._watcher.state())

    def topic(self, name: str) -> TopicEntry | None:
        """The current entry of ``name`` (live when followed)."""
        return self.snapshot().topics.get(name)

    def _overlay(self, base: ClusterSnapshot, live: LiveState) -> ClusterSnapshot:
        now = _now_ms()
        brokers: dict[int, BrokerEntry] = {}
        for broker_id, registration in live.brokers.items():
            known = base.brokers.get(broker_id)
            epoch = live.broker_epochs.get(broker_id)
            if known is not None and (epoch is None or known.times.czxid == epoch):
                brokers[broker_id] = (
                    known if known.registration == registration else replace(known, registration=registration)
                )
            else:
                seen = self._seen_ms.setdefault(f"broker {broker_id} {epoch}", now)
                brokers[broker_id] = BrokerEntry(
                    broker_id, registration, ZnodeTimes(epoch or 0, epoch or 0, seen, seen, 0)
                )
        topics = base.topics
        if live.topics != frozenset(base.topics) or live.followed:
            topics = {name: entry for name, entry in base.topics.items() if name in live.topics}
            for name, followed in live.followed.items():
                entry = topics.get(name)
                if followed.assignment is None:
                    topics.pop(name, None)
                    continue
                if entry is None:
                    seen = self._seen_ms.setdefault(f"topic {name}", now)
                    entry = TopicEntry(
                        name, followed.assignment, ZnodeTimes(0, 0, seen, seen, 0), {}, base.topic_configs.get(name)
                    )
                states = dict(followed.states)
                if isinstance(followed.assignment, TopicAssignment):
                    for partition, state in entry.states.items():
                        states.setdefault(partition, state)
                # A state re-read live is no longer the one its stat dated (the timeline has the live event).
                stamps = {p: s for p, s in entry.state_stamps.items() if states.get(p) == entry.states.get(p)}
                topics[name] = replace(entry, assignment=followed.assignment, states=states, state_stamps=stamps)
        markers = {name: base.deletion_markers.get(name) or self._marker_times(name, now) for name in live.deletions}
        snapshot = replace(
            base,
            taken_at_ms=now,
            controller=live.controller,
            controller_epoch=live.controller_epoch,
            brokers=brokers,
            topics=topics,
            deletion_markers=markers,
            reassignment=live.reassignment,
            preferred_election=live.preferred_election,
            static_min_isr=self._static_min_isr,
            full_read_ms=self.last_full_read_ms,
            migration=live.migration,  # the watcher follows it (re-read at most once per re-arm period)
            migration_advancing=self._watcher.migration_advancing(),
            served_brokers=self._served,
        )
        if not kraft_controller_holds(snapshot):
            return snapshot
        return replace(snapshot, kraft_brokers=self._kraft_of(base, snapshot))

    def _kraft_of(self, base: ClusterSnapshot, snapshot: ClusterSnapshot) -> frozenset[int]:
        """``core.snapshot.kraft.kraft_broker_ids`` of ``snapshot``, computed once per base snapshot, registered
        brokers and served brokers (it walks every partition's ISR)."""
        registered, served = frozenset(snapshot.brokers), self._served
        cached = self._kraft_cache
        if cached is not None and cached[0] is base and cached[1] == registered and cached[2] == served:
            return cached[3]
        kraft = kraft_broker_ids(snapshot, served)
        self._kraft_cache = (base, registered, served, kraft)
        return kraft

    def _kraft_loop(self) -> None:
        """Tell the watcher which brokers run KRaft after each change that may move them (a full read, a
        partition update, a broker joining or leaving). While a KRaft controller holds /controller the brokers
        are asked (DescribeCluster) when one joined or left /brokers/ids, and again, at most every
        ``_ASK_AGAIN_S``, while the ISR names an unregistered broker they did not list (it came back as KRaft)."""
        while not self._stopped.is_set():
            self._kraft_dirty.wait()
            if self._stopped.is_set():
                return
            self._stopped.wait(_COALESCE_S)
            self._kraft_dirty.clear()
            if self._loading is not None:
                continue  # before the first full read the ISR is not known: the read sets the flag again
            try:
                snapshot = self.snapshot()
                if self._ask_served is not None and kraft_controller_holds(snapshot) and self._must_ask(snapshot):
                    self._served_stale, self._asked_at = False, time.monotonic()
                    self._served = self._ask_served()
                    snapshot = self.snapshot()
            except KzcError:
                continue
            kraft = snapshot.kraft_brokers or frozenset()
            if kraft != self._kraft_told:
                self._kraft_told = kraft
                self._watcher.set_kraft_brokers(kraft)
                self._on_snapshot()

    def _must_ask(self, snapshot: ClusterSnapshot) -> bool:
        """Whether to ask the brokers again: a broker joined or left, or the ISR names a broker neither
        registered nor listed by them (asked again after ``_ASK_AGAIN_S``, a timer wakes the loop then)."""
        if self._served_stale:
            return True
        wait = _ASK_AGAIN_S - (time.monotonic() - self._asked_at)
        if self._served is None:
            return wait <= 0  # they did not answer: ask again with the next change, not more often
        if kraft_broker_ids(snapshot, None) <= self._served:
            return False
        if wait <= 0:
            return True
        timer = threading.Timer(wait, self._kraft_dirty.set)
        timer.daemon = True
        timer.start()
        return False

    def _marker_times(self, name: str, now: int) -> ZnodeTimes:
        seen = self._seen_ms.setdefault(f"marker {name}", now)
        return ZnodeTimes(0, 0, seen, seen, 0)

    def _read_loop(self) -> None:
        while not self._stopped.is_set():
            self._dirty.wait()
            if self._stopped.is_set():
                return
            self._stopped.wait(_COALESCE_S)  # let a burst of changes land before reading
            self._dirty.clear()
            with self._lock:
                self._reading, self._during_read = True, {}
            try:
                snapshot = self._reader.read()
            except KzcError:
                # Disconnected or the session ended: try again shortly (the watcher re-syncs meanwhile).
                with self._lock:
                    self._reading = False
                self._dirty.set()
                self._stopped.wait(1.0)
                continue
            with self._lock:
                # Changes that fired while reading may be older in the read than in the update: re-apply.
                self._base = _patched(snapshot, self._during_read)
                self._reading, self._during_read = False, {}
                self._loading = None
                self.last_full_read_ms = _now_ms()
            self._kraft_dirty.set()
            self._on_snapshot()

    # ---- following every partition -------------------------------------------------------------------

    def _znode_fired(self, event: WatchedEvent) -> None:
        # kazoo's thread: only queue. NONE events (connection state) carry no change.
        if event.type != EventType.NONE and event.path:
            self._fired.put(event.path)

    def _follow_loop(self) -> None:
        while not self._stopped.is_set():
            try:
                first = self._fired.get(timeout=0.5)
            except queue.Empty:
                continue
            self._stopped.wait(_COALESCE_S)  # a broker's failover rewrites many states at once
            paths = {first}
            while True:
                try:
                    paths.add(self._fired.get_nowait())
                except queue.Empty:
                    break
            try:
                values = {path: self._read_watched(path) for path in sorted(paths)}
            except (KazooException, KazooTimeoutError, KzcError):
                self.request_full_read()  # connection trouble: the reconnect's full read re-arms everything
                continue
            with self._lock:
                base = self._base
                if base is None:
                    continue
                self._base = _patched(base, values)
                if self._reading:
                    self._during_read.update(values)
            for event in self._assignment_changes(base, values):
                self._on_event(TimedEvent(event, _now_ms()))
            self._kraft_dirty.set()
            self._on_snapshot()

    def _assignment_changes(self, base: ClusterSnapshot, values: dict[str, object]) -> list[ev.LiveEvent]:
        """Partitions added to (or replicas changed in) any topic: the model re-reads every topic znode whose
        watch fired and compares it with what it held (the watcher's own events cover followed topics only,
        and are not forwarded, so each change is reported once)."""
        events: list[ev.LiveEvent] = []
        for path, value in values.items():
            topic = parse_topic_path(path)
            if topic is None or not isinstance(value, tuple):
                continue
            old = base.topics.get(topic)
            new = value[0]
            if old is not None and isinstance(old.assignment, TopicAssignment) and old.assignment != new:
                events.append(ev.TopicAssignmentChanged(old.name, old.assignment, new))
        return events

    def _read_watched(self, path: str) -> object:
        """Re-read one fired znode with its watch set again: a state, or a topic (with new partitions)."""
        client: Any = self._session.client
        self.targeted_reads += 1
        try:
            data, stat = client.get(path, watch=self._znode_fired)
        except NoNodeError:
            # Watch for its creation (a new partition's state is written after the assignment).
            if client.exists(path, watch=self._znode_fired) is None:
                return None
            return self._read_watched(path)
        if parse_state_path(path) is not None:
            return parse_partition_state(path, data)
        assignment = parse_topic(path, data)
        topic = parse_topic_path(path) or ""
        known = self._base.topics.get(topic) if self._base is not None else None
        states: dict[int, object] = {}
        if isinstance(assignment, TopicAssignment):
            for partition in assignment.partition_ids:
                if known is None or partition not in known.states or known.states[partition] is None:
                    states[partition] = self._read_watched(state_path(topic, partition))
        return (assignment, times_of(stat), states)

    def topic_config_read(self, topic: str, config: EntityConfig | None) -> None:
        """What ``/config/topics/<topic>`` holds, as read back after a write from the console: every later
        snapshot carries it and the topic's followers are told (config znodes are not watched)."""
        with self._lock:
            base = self._base
            if base is None:
                return
            configs = {name: value for name, value in base.topic_configs.items() if name != topic}
            if config is not None:
                configs[topic] = config
            topics = dict(base.topics)
            if topic in topics:
                topics[topic] = replace(topics[topic], config=config)
            self._base = replace(base, topic_configs=configs, topics=topics)
        self._notify_followers(topic)
        self._on_snapshot()

    def request_full_read(self) -> None:
        """Read the whole cluster again soon."""
        self._dirty.set()

    # ---- events and followers ------------------------------------------------------------------------

    def _watched(self, event: ev.LiveEvent) -> None:
        # The watcher's thread: forward, mark what must be re-read, tell the followers.
        if self._on_raw is not None:
            self._on_raw(event)
        if isinstance(event, ev.SessionStateChanged):
            return  # the console shows connection states itself
        if isinstance(event, ev.PartitionStateChanged) and _both_states(event):
            self._notify_followers(event.topic)
            return  # the LeaderChanged / IsrChanged events that come with it say it better
        if isinstance(event, ev.TopicAssignmentChanged) and event.old is not None and event.new is not None:
            self._notify_followers(event.topic)
            return  # the model reports every topic's assignment changes itself (_assignment_changes)
        if isinstance(event, ev.BrokerRegistered | ev.BrokerLeft | ev.ControllerMoved | ev.Resynced):
            self._served_stale = True  # a broker may have moved to KRaft (or back): ask the brokers again
            self._kraft_dirty.set()
        if isinstance(event, ev.Resynced):
            self._dirty.set()  # a reconnect or a new session: watches are gone, read everything again
        elif isinstance(event, ev.TopicCreated):
            self._fired.put(topic_path(event.name))
        timed = TimedEvent(event, _now_ms())
        self._on_event(timed)
        if timed.topic is not None:
            self._notify_followers(timed.topic)
        else:
            for name in list(self._followers):
                self._notify_followers(name)

    def _notify_followers(self, topic: str) -> None:
        listeners = list(self._followers.get(topic, ()))
        if listeners:
            entry = self.topic(topic)
            for listener in listeners:
                listener(entry)

    def follow(self, topic: str, on_change: Callable[[TopicEntry | None], None]) -> Unsubscribe:
        """Follow ``topic`` live; ``on_change(entry)`` after each change of it (and once right away).

        Raises:
            ConnectError: ZooKeeper cannot be read now (the topic stays followed).
            UsageError: ``topic`` is not a valid znode name.
        """
        with self._lock:
            first = topic not in self._followers
            self._followers.setdefault(topic, []).append(on_change)
        if first:
            self._watcher.follow_topic(topic)
        on_change(self.topic(topic))

        def unsubscribe() -> None:
            with self._lock:
                listeners = self._followers.get(topic, [])
                with contextlib.suppress(ValueError):
                    listeners.remove(on_change)
                last = not listeners and topic in self._followers
                if last:
                    del self._followers[topic]
            if last and not self._stopped.is_set():
                with contextlib.suppress(KzcError):
                    self._watcher.unfollow_topic(topic)

        return unsubscribe

    def watch_path(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """Call ``on_change(path)`` whenever the data, children or existence of ``path`` change."""
        return self._browse.watch(path, on_change)


class _ZnodeWatches:
    """Live znodes for the browser: one-shot data, child and exists watches, re-armed on one thread."""

    def __init__(self, session: ZkSession) -> None:
        self._client: Any = session.client
        self._listeners: dict[str, list[Callable[[str], None]]] = {}
        self._lock = threading.Lock()
        self._queue: queue.SimpleQueue[tuple[str, bool] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="kzc-znode-watch", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._queue.put(None)

    def watch(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        with self._lock:
            self._listeners.setdefault(path, []).append(on_change)
        self._queue.put((path, False))

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(KeyError, ValueError):
                self._listeners[path].remove(on_change)

        return unsubscribe

    def _fired(self, event: WatchedEvent) -> None:
        # kazoo's thread: queue and return (NONE events with no path come from a dropped session).
        if event.path is not None:
            self._queue.put((event.path, True))

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            path, changed = item
            with self._lock:
                listeners = list(self._listeners.get(path, ()))
            if not listeners:
                continue  # nobody looks at it any more: the watch lapses
            try:
                if self._client.exists(path, watch=self._fired) is not None:
                    self._client.get_children(path, watch=self._fired)
            except NoNodeError:
                pass  # deleted between the calls: the exists watch reports its re-creation
            except (KazooException, KazooTimeoutError):
                continue  # disconnected: the browser reloads what it shows when asked
            if changed:
                for listener in listeners:
                    listener(path)


def _patched(base: ClusterSnapshot, values: dict[str, object]) -> ClusterSnapshot:
    """``base`` with re-read znodes laid over it: state paths map to a state (None: gone), topic paths to
    (assignment, times, states of partitions read with it) or None (topic gone)."""
    if not values:
        return base
    topics = dict(base.topics)
    for path, value in values.items():
        if state := parse_state_path(path):
            entry = topics.get(state[0])
            if entry is None:
                continue
            states = dict(entry.states)
            partition = state[1]
            states[partition] = value  # type: ignore[assignment]
            stamps = {p: s for p, s in entry.state_stamps.items() if p != partition}  # dated by the live event now
            topics[entry.name] = replace(entry, states=states, state_stamps=stamps)
        elif (name := parse_topic_path(path)) is not None:
            if value is None:
                topics.pop(name, None)
                continue
            assert isinstance(value, tuple)
            assignment: TopicAssignment | Unreadable = value[0]
            times: ZnodeTimes = value[1]
            read_states: dict[int, PartitionState | Unreadable | None] = value[2]
            entry = topics.get(name)
            states = dict(entry.states) if entry is not None else {}
            states.update(read_states)
            for partition in getattr(assignment, "partition_ids", ()):
                states.setdefault(partition, None)
            config = entry.config if entry is not None else base.topic_configs.get(name)
            topics[name] = TopicEntry(name, assignment, times, states, config)
    return replace(base, topics=topics)


def _skeleton(zookeeper: str, session_id: int) -> ClusterSnapshot:
    """An empty snapshot: what the watcher's state is laid over until the first full read lands."""
    return ClusterSnapshot(
        taken_at_ms=_now_ms(), zookeeper=zookeeper, zxid=0, session_id=session_id, cluster_id=None, controller=None,
        controller_epoch=None, controller_epoch_zk_version=None, brokers={}, topics={}, deletion_markers={},
        reassignment=None, reassignment_times=None, preferred_election=None, preferred_election_times=None,
        topic_configs={}, broker_configs={}, isr_change_notifications=(), log_dir_event_notifications=(),
        config_change_notifications=(), feature=None, migration=None, producer_id_block=None,
    )  # fmt: skip


def controller_of(snapshot: ClusterSnapshot) -> int | None:
    """The controller's broker id in ``snapshot``."""
    return snapshot.controller.broker_id if isinstance(snapshot.controller, ControllerInfo) else None
