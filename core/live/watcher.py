"""The one owner of a cluster's ZooKeeper watches and of the state they keep; changes become typed events
(``core.live.events``).

``ClusterWatcher`` watches the structural znodes Kafka coordinates through (``/controller``,
``/controller_epoch``, ``/brokers/ids`` and each registration, the ``/brokers/topics`` and
``/admin/delete_topics`` children, the two admin request znodes, the two notification queues and
``/migration``), and every topic and every partition ``state`` znode, starting from the full reads of
``read_cluster`` (its owner, the live model ``core.live.model``, makes them), which set those watches as
they read. It also keeps the browser's live znodes (``watch_path``). Every watch uses one callback; a znode
that fires is read again (``core.live.reads``: NoNode sets an exists watch that waits for its creation; NoAuth
gives an ``Unreadable`` value) and compared with what was held. No TreeCache. The migration phase is tracked by
``core.live.migration_watch`` on the same thread. After a reconnect (same session or a new one after expiry) the
structural watches are set again, the state is re-read and what changed while away is reported in one
``Resynced`` event (the owner then reads everything again, which sets the rest).

Threading contract:

- kazoo's threads (its watch-callback thread and its connection thread) only put a note on the
  watcher's queue and return.
- One thread per watcher, ``kzc-live``, does every read, keeps the model, and calls ``on_event`` with
  each event, in order, one at a time. ``on_event`` must return quickly (post a message, put on a
  queue): while it runs no other change is processed. An exception from it is logged and ignored.
- ``follow_topic``, ``unfollow_topic``, ``state`` and ``stop`` may be called from any thread, including
  from ``on_event``.

ZooKeeper reports that a znode changed, not every change: changes in quick succession are seen as one,
and a znode created and removed between two reads (a deletion marker the controller handles in
milliseconds) may not be reported at all. Each event compares what was read with what was known.

The actor is this module: its queue, its thread, the session's states and the re-sync; the update each fired znode
makes to the state, kind by kind, is ``core.live.znode_updates`` (mixed in: they share that state and the one
thread), the reads ``core.live.reads``, the migration phase ``core.live.migration_watch``.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from kazoo.exceptions import KazooException, NoAuthError, NoNodeError
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.protocol.states import EventType, WatchedEvent

from core.errors import ConnectError, UsageError
from core.kafka.znodes.paths import parse_state_path
from core.live.events import Resynced, SessionStateChanged
from core.live.live_event import LiveEvent
from core.live.migration_watch import CHECK, MIGRATION_REARM_S, REARM, MigrationWatch
from core.live.reads import IN_FLIGHT, NoAuthRead, WatchedReads
from core.live.state import FollowedTopic, LiveState, StateValue, diff_states
from core.live.znode_updates import ZnodeUpdates
from core.snapshot.model import ClusterSnapshot
from core.snapshot.reader import SnapshotReader
from core.zookeeper.session import ConnectionState, ZkSession

log = logging.getLogger(__name__)

T = TypeVar("T")
EventListener = Callable[[LiveEvent], None]

# Failures that mean "ZooKeeper is not reachable right now": the reconnect re-sync repairs them.
_CONNECTION_ERRORS = (KazooException, KazooTimeoutError)
_RETRY_AFTER_S = 1.0  # a read failed while connected (slow server): try that znode again after this
_STOP = object()
_RESYNC = object()  # retry a re-sync that failed while the session looked connected
_READ_STARTING = object()  # a full read starts (what fires from now on is re-read after it)
_READ_FAILED = object()  # ... it failed: re-read what fired meanwhile now


@dataclass(frozen=True)
class _KraftBrokers:
    """The owner's word on which brokers run KRaft (handled on the dispatch thread)."""

    brokers: frozenset[int]


@dataclass(frozen=True)
class _States:
    """Partition state znodes that fired, to read together."""

    paths: tuple[str, ...]


@dataclass(frozen=True)
class _Browse:
    """Arm the browser's watches on one znode (handled on the dispatch thread)."""

    path: str


@dataclass
class _Call:
    """Work handed to the dispatch thread by another thread (a full read to adopt)."""

    func: Callable[[], Any]
    done: Future[Any]


class ClusterWatcher(ZnodeUpdates):
    """Watches one cluster through a started ``ZkSession`` and reports each change to ``on_event``.

    Use ``start()`` once (it reads the structural znodes and returns their state), ``read_cluster`` for each
    full read, ``follow_topic`` to name the topics whose partition events the owner reports, and ``stop()``
    when done; the session stays open (its owner closes it). See the module docstring for the threading
    contract.
    """

    def __init__(
        self,
        session: ZkSession,
        on_event: EventListener,
        migration_rearm_s: float = MIGRATION_REARM_S,
        await_kraft_brokers: bool = False,
    ) -> None:
        """``await_kraft_brokers``: the owner tells which brokers run KRaft (``set_kraft_brokers``, from the ISR
        of its full read and the brokers); while a KRaft controller holds ``/controller`` the phase is not
        reported before it did (it depends on them)."""
        self._session = session
        self._client = session.client
        self._on_event = on_event
        self._timeout = max(5.0, session.settings.session_timeout)
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._lock = threading.Lock()  # guards the fields below for state() (written only by one thread)
        self._base = LiveState()
        # The topics changed since the last full read, each replaced whole on a change so that state() copies
        # only this dict.
        self._followed: dict[str, FollowedTopic] = {}
        self._snapshot: ClusterSnapshot | None = None  # the last full read, the base of the state
        self._interest: set[str] = set()  # the topics follow_topic named
        self._reading = False  # a full read is under way (dispatch thread)
        self._deferred: set[str] = set()  # topic and state znodes that fired meanwhile: handled after it
        # ... and what was known of each before (ZnodeUpdates._defer): its change is reported against that
        self._topic_before: dict[str, FollowedTopic | None] = {}
        self._state_before: dict[str, StateValue] = {}
        self._changes = 0  # bumped with every change to _followed or _snapshot (the owner caches on it)
        self._browse: dict[str, list[Callable[[str], None]]] = {}  # the browser's live znodes and listeners
        self.targeted_reads = 0  # topic and state znodes re-read because their watch fired
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self._resync_pending = False
        self._expired_since_sync = False
        self._reads = WatchedReads(self._client, self._on_watch, self._timeout)
        self._migration = MigrationWatch(migration_rearm_s, await_kraft_brokers, self._later)  # dispatch thread

    # ---- public API ------------------------------------------------------------------------------

    def start(self) -> LiveState:
        """Read the watched znodes (setting their watches) and start reporting changes.

        Returns:
            The state as first read; later changes arrive as events.

        Raises:
            ConnectError: ZooKeeper cannot be read now, or it denies reading a watched znode (NoAuth).
            UsageError: the watcher was started before.
        """
        if self._thread is not None or self._stopped.is_set():
            raise UsageError("a ClusterWatcher can be started only once")
        self._session.add_state_listener(self._on_session_state)
        self._reads.strict = True
        try:
            base = self._reads.structure()
        except NoAuthRead as denied:
            self._session.remove_state_listener(self._on_session_state)
            raise self._session.read_error(NoAuthError(), f"read {denied.path}") from None
        except _CONNECTION_ERRORS as exc:
            self._session.remove_state_listener(self._on_session_state)
            raise self._session.read_error(exc, "read the cluster state") from exc
        finally:
            self._reads.strict = False
        with self._lock:
            self._base = base
        self._migration.start(base)
        self._thread = threading.Thread(target=self._run, name="kzc-live", daemon=True)
        self._thread.start()
        return self.state()

    def set_kraft_brokers(self, brokers: frozenset[int]) -> None:
        """The brokers that run KRaft now (``core.snapshot.kraft``: gone from ``/brokers/ids`` but listed by the
        brokers or in an ISR the KRaft controller keeps); a phase change it makes is reported. Any thread."""
        if not self._stopped.is_set():
            self._queue.put(_KraftBrokers(frozenset(brokers)))

    def migration_advancing(self) -> bool | None:
        """Whether ``/migration`` moves (the KRaft controller dual-writes): True when its watch fired lately,
        False once it stayed silent a whole re-arm period, None before anything was observed. Any thread."""
        return self._migration.advancing()

    def stop(self) -> None:
        """Stop reporting (pending notes are dropped); the session stays open. Safe to call twice."""
        if self._stopped.is_set():
            return
        self._stopped.set()
        self._session.remove_state_listener(self._on_session_state)
        self._queue.put(_STOP)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(self._timeout + 5.0)

    def state(self) -> LiveState:
        """What the watcher knows now (an immutable copy)."""
        with self._lock:
            return replace(self._base, followed=dict(self._followed))

    def view(self) -> tuple[ClusterSnapshot | None, LiveState, int]:
        """The last full read, what changed since (``state()``) and a number that changes with either, taken
        together (any thread)."""
        with self._lock:
            return self._snapshot, replace(self._base, followed=dict(self._followed)), self._changes

    @property
    def followed(self) -> frozenset[str]:
        """The names of the followed topics (those ``follow_topic`` named)."""
        with self._lock:
            return frozenset(self._interest)

    def read_cluster(self) -> ClusterSnapshot:
        """Read every Kafka znode (``core.snapshot.reader``), setting this watcher's data watch on
        every topic and partition state znode as it reads (no extra request), and make it the base of the
        state. Topic and state znodes that fire during the read are re-read after it. Blocks (seconds on a
        large cluster): call it from the owner's own thread.

        Raises:
            KzcError: ZooKeeper could not be read (``SessionLostError``, ``ConnectError``); ``UsageError`` once
                stopped.
        """
        self._queue.put(_READ_STARTING)
        try:
            snapshot = SnapshotReader(self._session, watch=self._on_watch).read()
        except BaseException:
            self._queue.put(_READ_FAILED)
            raise
        self._call(lambda: self._adopt(snapshot))
        return snapshot

    def amend_snapshot(self, change: Callable[[ClusterSnapshot], ClusterSnapshot]) -> None:
        """Lay what was read outside the watches (a topic config read back after a write) over
        the last full read. Any thread."""
        with self._lock:
            if self._snapshot is not None:
                self._snapshot = change(self._snapshot)
                self._changes += 1

    def watch_path(self, path: str, on_change: Callable[[str], None]) -> Callable[[], None]:
        """Call ``on_change(path)`` (on the dispatch thread) whenever the data, children or existence of
        ``path`` change: the ZooKeeper browser's live znode. Returns the unsubscribe (its watch then lapses)."""
        with self._lock:
            self._browse.setdefault(path, []).append(on_change)
        self._queue.put(_Browse(path))

        def unsubscribe() -> None:
            with self._lock:
                listeners = self._browse.get(path, [])
                if on_change in listeners:
                    listeners.remove(on_change)
                if not listeners:
                    self._browse.pop(path, None)

        return unsubscribe

    def follow_topic(self, name: str) -> FollowedTopic:
        """Name ``name`` followed (every topic is watched already) and return what is known of it: its
        assignment and partition states, or none before the first full read or while it does not exist (a
        topic followed before it exists is reported once created). Any thread; it does not block.

        Raises:
            UsageError: ``name`` cannot be a znode name.
        """
        _check_topic_name(name)
        with self._lock:
            self._interest.add(name)
        return self._lookup(name) or FollowedTopic(name, None)

    def unfollow_topic(self, name: str) -> None:
        """Name ``name`` no longer followed (it stays watched, as every topic)."""
        with self._lock:
            self._interest.discard(name)

    # ---- kazoo's threads: note and return ---------------------------------------------------------

    def _on_watch(self, event: WatchedEvent) -> None:
        # kazoo's callback thread. NONE events come from kazoo dropping every watch on a disconnect:
        # the re-sync after the reconnect sets them again.
        if event.type != EventType.NONE and not self._stopped.is_set():
            self._queue.put(event.path)

    def _on_session_state(self, state: ConnectionState) -> None:
        # kazoo's connection thread (or the thread calling session.stop()).
        if not self._stopped.is_set():
            self._queue.put(state)

    # ---- the dispatch thread ---------------------------------------------------------------------

    def _call(self, func: Callable[[], T]) -> T:
        if self._thread is None or self._stopped.is_set():
            raise UsageError("the cluster watcher is not running (start() it first)")
        if threading.current_thread() is self._thread:
            return func()
        done: Future[T] = Future()
        self._queue.put(_Call(func, done))
        try:
            return done.result(timeout=self._timeout * 3)
        except TimeoutError:
            raise ConnectError(
                f"the cluster watcher of {self._session.target} did not get to the request within "
                f"{self._timeout * 3:g} s (ZooKeeper slow or unreachable)"
            ) from None

    def _run(self) -> None:
        carried: object = None  # an item taken off the queue while gathering a batch: handled next
        while True:
            item, carried = (carried, None) if carried is not None else (self._queue.get(), None)
            if item is _STOP or self._stopped.is_set():
                self._refuse_waiting_calls(item)
                return
            if isinstance(item, _Call):
                self._run_call(item)
                continue
            if self._batchable(item):
                item, carried = self._gather(item)
            try:
                events = self._handle(item)
            except _CONNECTION_ERRORS:
                events = []
                self._after_failure(item)
            except Exception:  # a bug must not end the stream of events
                log.exception("kzc live: handling %r failed", item)
                events = []
            for event in events:
                self._emit(event)

    def _batchable(self, item: object) -> bool:
        """A partition state that fired outside a full read (and not shown by the browser): such notes are read
        together, pipelined (a broker failover rewrites thousands at once)."""
        return (
            not self._reading
            and isinstance(item, str)
            and item not in self._browse
            and parse_state_path(item) is not None
        )

    def _gather(self, first: object) -> tuple[_States, object]:
        """``first`` and the batchable notes queued right behind it; the first other note comes back too."""
        paths = [first]
        while len(paths) < IN_FLIGHT:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return _States(tuple(map(str, paths))), None
            if not self._batchable(item):
                return _States(tuple(map(str, paths))), item
            paths.append(item)
        return _States(tuple(map(str, paths))), None

    def _refuse_waiting_calls(self, item: object) -> None:
        # Whoever waits in read_cluster learns at once that the watcher stopped.
        while True:
            if isinstance(item, _Call):
                item.done.set_exception(UsageError("the cluster watcher was stopped"))
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return

    def _run_call(self, call: _Call) -> None:
        try:
            call.done.set_result(call.func())
        except BaseException as exc:
            call.done.set_exception(exc)

    def _emit(self, event: LiveEvent) -> None:
        try:
            self._on_event(event)
        except Exception:
            log.exception("kzc live: on_event failed for %s", event.kind)

    def _after_failure(self, item: object) -> None:
        # The read (and so the watch) did not happen. After a disconnect the re-sync redoes it; if the
        # session looks fine (a slow answer), retry that item shortly instead.
        self._resync_pending = True
        if self._session.state is ConnectionState.CONNECTED:
            retry = item if isinstance(item, str) else _RESYNC
            timer = threading.Timer(_RETRY_AFTER_S, self._queue.put, (retry,))
            timer.daemon = True
            timer.start()

    def _handle(self, item: object) -> list[LiveEvent]:
        if item is _RESYNC:
            return self._resync() if self._resync_pending else []
        if item is REARM:
            self._migration.rearm_due()
            return self._update_migration()
        if item is CHECK:
            return self._phase_events()
        if isinstance(item, _KraftBrokers):
            self._migration.set_kraft_brokers(item.brokers)
            return self._phase_events()
        if isinstance(item, ConnectionState):
            return self._session_changed(item)
        if isinstance(item, str):
            events = self._znode_changed(item)
            if item in self._browse:
                self._browsed_changed(item)
            return events
        if isinstance(item, _States):
            return self._update_partitions(item.paths)
        if item is _READ_STARTING:
            self._reading = True
        elif item is _READ_FAILED:
            self._read_done()
        elif isinstance(item, _Browse):
            self._arm_browse(item.path)
        return []

    def _session_changed(self, state: ConnectionState) -> list[LiveEvent]:
        events: list[LiveEvent] = []
        if state is not ConnectionState.CONNECTED or self._resync_pending:
            events.append(SessionStateChanged(state))  # no repeat "connected" for a retried re-sync
        if state in (ConnectionState.SUSPENDED, ConnectionState.LOST, ConnectionState.RECONNECTING):
            self._resync_pending = True
            if state is ConnectionState.LOST:
                self._expired_since_sync = True
        elif state is ConnectionState.CONNECTED and self._resync_pending:
            events += self._resync()
        return events

    def _resync(self) -> list[LiveEvent]:
        # Only the named topics are re-read here: the owner's full read re-reads the rest.
        names = sorted(self._interest)
        known = {name: self._lookup(name) or FollowedTopic(name, None) for name in names}
        old = replace(self.state(), followed=known)
        base = self._reads.structure()
        followed = {name: self._reads.followed(name) for name in names}
        changes = diff_states(old, replace(base, followed=followed))
        with self._lock:
            self._base = base
            self._followed.update(followed)
            self._changes += 1
        self._rebase_deferred(followed)
        expired, self._expired_since_sync, self._resync_pending = self._expired_since_sync, False, False
        self._migration.armed()
        for path in list(self._browse):
            self._arm_browse(path)  # after an expiry ZooKeeper holds none of them any more
        return [Resynced(expired, tuple(changes + self._phase_events()))]

    def _later(self, delay: float, item: object) -> None:
        timer = threading.Timer(delay, self._queue.put, (item,))
        timer.daemon = True
        timer.start()

    def _adopt(self, snapshot: ClusterSnapshot) -> None:
        """A full read landed (dispatch thread): it is the base now; what fired while it read is re-read next."""
        with self._lock:
            self._snapshot = snapshot
            self._followed = {}
            self._changes += 1
        self._read_done()

    def _read_done(self) -> None:
        self._reading = False
        for path in sorted(self._deferred):  # a topic before its partitions' states
            self._queue.put(path)
        self._deferred = set()

    # ---- the browser's live znodes (dispatch thread) ---------------------------------------------

    def _arm_browse(self, path: str) -> None:
        """Set an exists watch (data and existence) and, while it exists, a child watch on ``path``."""
        if path not in self._browse:
            return  # nobody looks at it any more: its watch lapses
        try:
            if self._client.exists_async(path, watch=self._on_watch).get(timeout=self._timeout) is not None:
                self._client.get_children_async(path, watch=self._on_watch).get(timeout=self._timeout)
        except (NoNodeError, NoAuthError):
            pass  # deleted between the calls (the exists watch reports its re-creation), or not listable
        except _CONNECTION_ERRORS:
            pass  # disconnected: the re-sync arms it again

    def _browsed_changed(self, path: str) -> None:
        self._arm_browse(path)
        with self._lock:
            listeners = list(self._browse.get(path, ()))
        for listener in listeners:
            try:
                listener(path)
            except Exception:
                log.exception("kzc live: a znode listener failed for %s", path)


def _check_topic_name(name: str) -> None:
    if not name or "/" in name or name in (".", "..") or any(ord(c) < 0x20 for c in name):
        raise UsageError(f"cannot follow topic {name!r}: not a name a znode can have")
