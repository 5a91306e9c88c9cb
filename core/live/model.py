"""The live model of one cluster: the one thing ``kzc watch``, the console and the history recorder subscribe to.

``LiveCluster`` keeps a ``ClusterSnapshot`` current and reports every change as a ``TimedEvent``. It owns one
``core.live.watcher.ClusterWatcher``, which holds every watch and the state they keep:
the structural znodes, every topic and partition ``state`` znode (watched by the full read as it reads them,
``ClusterWatcher.read_cluster``, at no extra request), and the ZooKeeper browser's live znodes
(``watch_path``). A watch that fires re-reads that one znode on the watcher's thread, which turns the
difference into typed events (``core.live.state``): each change is read once and reported once.

``snapshot()`` is the last full read with what changed since laid over it. Reads are proportional to change:
one read per changed znode, none while the cluster is idle. A full read happens only at start, after a
reconnect or a session expiry (ZooKeeper drops a connection's watches) and on ``request_full_read``;
docs/live-events.md gives the figures.

Which events subscribers get: every structural event; every topic's assignment changes; partition-level
events (``PartitionStateChanged``, ``LeaderChanged``, ``IsrChanged``) only for followed topics (``follow``,
``follow_topic``): a broker failover on a large cluster rewrites thousands of states, which the snapshot
holds and the health counters summarise, and which would bury the log.

During a ZooKeeper-to-KRaft migration the brokers rolled to KRaft leave ``/brokers/ids`` but serve: each
snapshot counts them alive (``kraft_brokers``, ``core.snapshot.kraft``: listed by DescribeCluster, else in
an ISR), and the watcher is told which they are, so its migration phase is right even in a model opened
after they moved.

Threads: kazoo's threads only queue; ``kzc-live`` (the watcher) reads what fired and delivers events and
browser notes; ``kzc-snapshot`` runs the full reads; ``kzc-live-changes`` tells subscribers the snapshot
changed (once per 50 ms window) and the watcher which brokers run KRaft (asking the brokers when needed).
Callbacks given here run on those threads and must only hand the news on.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import replace

from core.errors import ConnectError, KzcError
from core.kafka.znodes import ControllerInfo, EntityConfig, PartitionState, TopicAssignment
from core.live import events as ev
from core.live.live_event import LiveEvent
from core.live.migration_watch import MIGRATION_REARM_S
from core.live.state import LiveState
from core.live.timed import TimedEvent as TimedEvent  # re-exported: the type of on_event's argument
from core.live.watcher import ClusterWatcher
from core.snapshot.kraft import kraft_broker_ids, kraft_controller_holds
from core.snapshot.model import NOT_READ, BrokerEntry, ClusterSnapshot, StaticMinIsr, TopicEntry, ZnodeTimes
from core.zookeeper.session import ZkSession

Unsubscribe = Callable[[], None]

_COALESCE_S = 0.05  # changes arriving within this window share one full read
_ASK_AGAIN_S = 2.0  # during a migration, DescribeCluster at most this often while it disagrees with the ISR
# Events about one topic's partitions: reported for followed topics only (see the module docstring).
_PER_TOPIC = (ev.PartitionStateChanged, ev.LeaderChanged, ev.IsrChanged, ev.TopicAssignmentChanged)


def _now_ms() -> int:
    return int(time.time() * 1000)


class LiveCluster:
    """Snapshots kept current and events, for one started ``ZkSession``; see the module docstring.

    Args:
        session: a started session (its owner closes it).
        on_event: every change (a ``TimedEvent``), on the watcher's thread.
        on_snapshot: called after each full read and each change the snapshot holds, on the model's threads.
        on_raw: the same changes as the watcher's ``core.live.events`` values, plus connection states, as they
            come (``kzc watch`` prints them all), on the watcher's thread.
        served_brokers: asks the brokers which of them serve (DescribeCluster; None when they do not answer),
            on the ``kzc-live-changes`` thread, only while a KRaft controller holds /controller; without it
            the ISR tells which brokers run KRaft.
        migration_rearm_s: the watcher's ``/migration`` re-arm period (how long a frozen /migration takes to
            show as finalized).
    """

    def __init__(
        self,
        session: ZkSession,
        on_event: Callable[[TimedEvent], None],
        on_snapshot: Callable[[], None],
        on_raw: Callable[[LiveEvent], None] | None = None,
        served_brokers: Callable[[], frozenset[int] | None] | None = None,
        migration_rearm_s: float = MIGRATION_REARM_S,
    ) -> None:
        self._session = session
        self._on_event = on_event
        self._on_raw = on_raw
        self._on_snapshot = on_snapshot
        # The watcher's migration phase depends on which brokers run KRaft: this model tells it (_changes_loop).
        self._watcher = ClusterWatcher(session, self._watched, migration_rearm_s, await_kraft_brokers=True)
        self.last_full_read_ms: int | None = None
        self._lock = threading.Lock()
        self._skeleton: ClusterSnapshot | None = None  # until the first full read lands
        self._dirty = threading.Event()
        self._stopped = threading.Event()
        self._followers: dict[str, list[Callable[[TopicEntry | None], None]]] = {}
        self._seen_ms: dict[str, int] = {}  # when an overlaid broker / marker / topic was first seen
        self._loading: str | None = "connecting"
        self._static_min_isr = NOT_READ
        # Brokers running KRaft during a migration (core.snapshot.kraft): what DescribeCluster lists (asked on
        # the kzc-live-changes thread when a broker joins or leaves while a KRaft controller holds /controller),
        # the set last computed for a view, and the set last told to the watcher.
        self._ask_served = served_brokers
        self._served: frozenset[int] | None = None
        self._served_stale = True
        self._topics: tuple[ClusterSnapshot, int, frozenset[str], Mapping[str, TopicEntry]] | None = None
        self._merged: tuple[ClusterSnapshot, dict[str, tuple[object, TopicEntry]]] | None = None  # _merged_for
        self._kraft_dirty = threading.Event()  # something changed: wakes _changes_loop
        self._changed = False  # ... and the snapshot did: subscribers are told once per window
        self._kraft_cache: tuple[object, frozenset[int], frozenset[int] | None, frozenset[int]] | None = None
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
            self._skeleton = _skeleton(str(self._session.target), self._session.session_id or 0)
            self._loading = f"reading {len(state.topics):,} topics" if state.topics else "reading the cluster"
        self._dirty.set()
        threading.Thread(target=self._read_loop, name="kzc-snapshot", daemon=True).start()
        threading.Thread(target=self._changes_loop, name="kzc-live-changes", daemon=True).start()

    @property
    def watcher(self) -> ClusterWatcher:
        """The watcher that holds every watch and the state they keep (structural state, followed topics)."""
        return self._watcher

    @property
    def targeted_reads(self) -> int:
        """Topic and state znodes re-read because their watch fired."""
        return self._watcher.targeted_reads

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

    # ---- reading -------------------------------------------------------------------------------------

    def snapshot(self) -> ClusterSnapshot:
        """The last full read with everything the watcher saw change since laid over it.

        Raises:
            ConnectError: nothing has been read yet.
        """
        base, live, version = self._watcher.view()
        if base is None:
            base = self._skeleton
            if base is None:
                raise ConnectError("the cluster has not been read yet")
        return self._overlay(base, live, version)

    def topic(self, name: str) -> TopicEntry | None:
        """The current entry of ``name``."""
        return self.snapshot().topics.get(name)

    def _overlay(self, base: ClusterSnapshot, live: LiveState, version: int) -> ClusterSnapshot:
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
        cached = self._topics
        if cached is not None and cached[0] is base and cached[1] == version and cached[2] is live.topics:
            topics = cached[3]  # nothing changed since the last snapshot(): the same mapping
        else:
            topics = self._topics_of(base, live, now)
            self._topics = (base, version, live.topics, topics)
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
        return replace(snapshot, kraft_brokers=self._kraft_of((base, version), snapshot))

    def _topics_of(self, base: ClusterSnapshot, live: LiveState, now: int) -> Mapping[str, TopicEntry]:
        """The topics of ``base`` that still exist, with what changed since laid over them."""
        if live.topics == frozenset(base.topics) and not live.followed:
            return base.topics
        topics = {name: entry for name, entry in base.topics.items() if name in live.topics}
        merged = self._merged_for(base)
        for name, followed in live.followed.items():
            entry = topics.get(name)
            if followed.assignment is None or name not in live.topics:
                topics.pop(name, None)
                continue
            hit = merged.get(name)
            if hit is not None and hit[0] is followed:
                topics[name] = hit[1]  # merged at an earlier snapshot(): not again
                continue
            if entry is None:
                seen = self._seen_ms.setdefault(f"topic {name}", now)
                times = followed.times or ZnodeTimes(0, 0, seen, seen, 0)
                entry = TopicEntry(name, followed.assignment, times, {}, base.topic_configs.get(name))
            states = dict(followed.states)
            if isinstance(followed.assignment, TopicAssignment):
                for partition in followed.assignment.partition_ids:
                    states.setdefault(partition, entry.states.get(partition))
            # A state re-read live is no longer the one its stat dated (the timeline has the live event).
            stamps = {p: s for p, s in entry.state_stamps.items() if states.get(p) == entry.states.get(p)}
            times = followed.times or entry.times
            topics[name] = replace(
                entry, assignment=followed.assignment, times=times, states=states, state_stamps=stamps
            )
            merged[name] = (followed, topics[name])
        return topics

    def _merged_for(self, base: ClusterSnapshot) -> dict[str, tuple[object, TopicEntry]]:
        """The topics already laid over ``base``, by name: (the watcher's value, the entry made from it). A
        topic changed since the last full read is merged once per change, not once per ``snapshot()``."""
        cached = self._merged
        if cached is None or cached[0] is not base:
            cached = self._merged = (base, {})
        return cached[1]

    def _kraft_of(self, base: object, snapshot: ClusterSnapshot) -> frozenset[int]:
        """``core.snapshot.kraft.kraft_broker_ids`` of ``snapshot``, computed once per view of the watcher, registered
        brokers and served brokers (it walks every partition's ISR)."""
        registered, served = frozenset(snapshot.brokers), self._served
        cached = self._kraft_cache
        if cached is not None and cached[0] is base and cached[1] == registered and cached[2] == served:
            return cached[3]
        kraft = kraft_broker_ids(snapshot, served)
        self._kraft_cache = (base, registered, served, kraft)
        return kraft

    def _changes_loop(self) -> None:
        """After changes (coalesced over ``_COALESCE_S``: a failover rewrites thousands of states): tell the
        subscribers the snapshot changed, and the watcher which brokers run KRaft (a full read, a partition
        update, a broker joining or leaving may move them). While a KRaft controller holds /controller the brokers
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
            if self._changed:
                self._changed = False
                self._on_snapshot()
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
            if self.last_full_read_ms is not None:
                self._stopped.wait(_COALESCE_S)  # let a burst of changes land before reading again
            self._dirty.clear()
            try:
                self._watcher.read_cluster()
            except KzcError:
                if self._stopped.is_set():
                    return
                # Disconnected or the session ended: try again shortly (the watcher re-syncs meanwhile).
                self._dirty.set()
                self._stopped.wait(1.0)
                continue
            self.last_full_read_ms = _now_ms()
            self._loading = None
            self._kraft_dirty.set()
            self._on_snapshot()
            # A full read replaces what the watcher followed, and may hold a change no watch reported (watches
            # dropped): each follower is told of the new base here.
            with self._lock:
                followed = list(self._followers)
            for name in followed:
                self._notify_followers(name)

    def topic_config_read(self, topic: str, config: EntityConfig | None) -> None:
        """What ``/config/topics/<topic>`` holds, as read back after a write from the console: every later
        snapshot carries it and the topic's followers are told (config znodes are not watched)."""

        def amend(base: ClusterSnapshot) -> ClusterSnapshot:
            configs = {name: value for name, value in base.topic_configs.items() if name != topic}
            if config is not None:
                configs[topic] = config
            topics = dict(base.topics)
            if topic in topics:
                topics[topic] = replace(topics[topic], config=config)
            return replace(base, topic_configs=configs, topics=topics)

        self._watcher.amend_snapshot(amend)
        self._notify_followers(topic)
        self._on_snapshot()

    def request_full_read(self) -> None:
        """Read the whole cluster again soon."""
        self._dirty.set()

    # ---- events and followers ------------------------------------------------------------------------

    def _watched(self, event: LiveEvent) -> None:
        # The watcher's thread: hand on what subscribers get, flag what must be re-read, tell the followers.
        if isinstance(event, _PER_TOPIC) and event.topic not in self._watcher.followed:
            if isinstance(event, ev.TopicAssignmentChanged) and event.old is not None and event.new is not None:
                self._report(event)  # any topic's new partitions or replicas (kzc watch prints followed ones)
            else:
                self._snapshot_changed(event.topic)  # the snapshot holds it (see the module docstring)
            return
        if self._on_raw is not None:
            self._on_raw(event)
        if isinstance(event, ev.SessionStateChanged):
            return  # the console shows connection states itself
        if isinstance(event, ev.PartitionStateChanged) and _both_states(event):
            self._snapshot_changed(event.topic)
            return  # the LeaderChanged / IsrChanged events that come with it say it better
        if isinstance(event, ev.BrokerRegistered | ev.BrokerLeft | ev.ControllerMoved | ev.Resynced):
            self._served_stale = True  # a broker may have moved to KRaft (or back): ask the brokers again
            self._kraft_dirty.set()
        if isinstance(event, ev.Resynced):
            self._dirty.set()  # a reconnect or a new session: watches are gone, read everything again
        self._report(event)

    def _report(self, event: LiveEvent) -> None:
        timed = TimedEvent(event, _now_ms())
        self._on_event(timed)
        if timed.topic is not None:
            self._snapshot_changed(timed.topic)
        else:
            self._snapshot_changed(None)
            for name in list(self._followers):
                self._notify_followers(name)

    def _snapshot_changed(self, topic: str | None) -> None:
        self._changed = True  # subscribers are told after the coalescing window (_changes_loop)
        self._kraft_dirty.set()
        if topic is not None:
            self._notify_followers(topic)

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
            self._watcher.follow_topic(topic)  # every topic is watched: this names it followed (its events)
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
        return self._watcher.watch_path(path, on_change)


def _both_states(event: ev.PartitionStateChanged) -> bool:
    """A change between two readable states (not a creation, removal or unreadable value)."""
    return isinstance(event.old, PartitionState) and isinstance(event.new, PartitionState)


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
