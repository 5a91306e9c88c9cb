"""One pass of a snapshot read over the cluster's znodes: the pipelined requests, what each answer adds, and the
``ClusterSnapshot`` built from them (``core.snapshot.reader`` drives the passes: retries, stats).

How it is fast: kazoo's ``get_async``/``get_children_async`` keep up to ``window`` requests outstanding on the
session. ZooKeeper answers a session's requests in order, so the pass consumes results strictly first-in
first-out and never waits on anything but the oldest request; answers may add new requests (the state of each
partition once a topic's ``partitions`` children are known), which join the back of the queue.

With kazoo's ``SelectHandler`` this client takes answers faster than one ZooKeeper session serves them (the
server handles a session's requests in order): both of this process's threads then sleep, kazoo's in ``select``
and this one on the oldest result (about a fifth of a 50,000-partition read on an idle machine,
benchmarks/README.md). What is already read is parsed in those gaps, each time the oldest answer is not in yet
(one topic's partition assignment, else a bounded batch of partition states), so less is left to parse once the
last answer is in; what is built is the same.

What it records: ``zxid`` is the server's zxid in the last reply header (every read reply carries the server's
last processed zxid), never less than any ``mzxid`` seen: no change after it is in the snapshot. A znode deleted
while reading is simply absent; unparseable data is kept as ``Unreadable``; a znode the session may not read
(NoAuth) becomes an ``Unreadable`` saying so. Nothing here raises for data; a lost session (or a new one) raises
``Straddled``, and the reader reads again.
One concept, one pass of the read, so it may pass 600 lines: the pipeline and the parse of what it read.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from types import MappingProxyType
from typing import Any

from kazoo.exceptions import (
    ConnectionClosedError,
    ConnectionLoss,
    KazooException,
    NoAuthError,
    NoNodeError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError

from core.collector import collector_paused
from core.errors import ConnectError, SessionLostError
from core.kafka.znodes import (
    EntityConfig,
    PartitionState,
    TopicAssignment,
    Unreadable,
    parse_broker,
    parse_cluster_id,
    parse_config_change,
    parse_controller,
    parse_controller_epoch,
    parse_entity_config,
    parse_feature,
    parse_isr_change,
    parse_log_dir_event,
    parse_migration,
    parse_partition_state,
    parse_preferred_election,
    parse_producer_id_block,
    parse_reassignment,
    parse_topic,
)
from core.kafka.znodes.paths import (
    BROKER_CONFIGS,
    BROKER_IDS,
    CLUSTER_ID,
    CONFIG_CHANGES,
    CONTROLLER,
    CONTROLLER_EPOCH,
    DELEGATION_TOKENS,
    DELETE_TOPICS,
    FEATURE,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    MIGRATION,
    PREFERRED_REPLICA_ELECTION,
    PRODUCER_ID_BLOCK,
    REASSIGN_PARTITIONS,
    TOPIC_CONFIGS,
    TOPICS,
    broker_config_path,
    broker_path,
    child_path,
    deletion_marker_path,
    partition_path,
    partitions_path,
    state_path,
    topic_config_path,
    topic_path,
)
from core.polling import DeadlineExceeded, wait_until
from core.snapshot.model import BrokerEntry, ClusterSnapshot, Notification, StateStamp, TopicEntry, ZnodeTimes
from core.zookeeper.session import ZkSession

PROGRESS_EVERY = 1024  # completions between two progress reports
# States parsed while the oldest answer is not in yet: ~0.5 ms, short against the ~2,000 requests ZooKeeper still
# has queued, so kazoo's thread (which needs the GIL back to take the answer) never leaves the server idle.
PARSE_WHILE_WAITING = 100


@dataclass(frozen=True, slots=True)
class SnapshotProgress:
    """How far a snapshot read is: ``done`` of ``total`` requests known so far (``total`` grows while
    topics are discovered). ``attempt`` starts at 1 and grows when a read is discarded and retaken."""

    attempt: int
    done: int
    total: int
    topics: int
    partitions: int


ProgressCallback = Callable[[SnapshotProgress], None]


class Straddled(Exception):
    """The attempt saw the session end (or the controller change): discard it and read again."""


class _Denied:
    """Marks a request the session was not allowed to make (ZooKeeper NoAuth)."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _Absent:
    """Marks a NoNode answer: the znode does not exist (or vanished while reading)."""

    __slots__ = ()


_MISSING = _Absent()

# Paths read once per snapshot, relative to the Kafka chroot.
_SINGLE_ZNODES = (
    CONTROLLER_EPOCH,
    CONTROLLER,
    CLUSTER_ID,
    REASSIGN_PARTITIONS,
    PREFERRED_REPLICA_ELECTION,
    FEATURE,
    MIGRATION,
    PRODUCER_ID_BLOCK,
)
NO_AUTH = "ZooKeeper denied it (NoAuth)"  # in the reason of every znode the credentials may not read


def denied(unreadable: Unreadable) -> bool:
    """Whether ``unreadable`` is a znode ZooKeeper's ACL does not let these credentials read (NoAuth)."""
    return NO_AUTH in unreadable.reason


_LISTED = (
    BROKER_IDS,
    TOPICS,
    DELETE_TOPICS,
    TOPIC_CONFIGS,
    BROKER_CONFIGS,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    CONFIG_CHANGES,
)
_NOTIFICATION_PARSERS: dict[str, Callable[[str, bytes | None], object]] = {
    ISR_CHANGE_NOTIFICATIONS: parse_isr_change,
    LOG_DIR_EVENT_NOTIFICATIONS: parse_log_dir_event,
    CONFIG_CHANGES: parse_config_change,
}


def times_of(stat: Any) -> ZnodeTimes:
    """The ``ZnodeTimes`` of a kazoo ``ZnodeStat``."""
    return ZnodeTimes(stat.czxid, stat.mzxid, stat.ctime, stat.mtime, stat.version)


class _TopicBuild:
    """A topic while it is being read: its znode's raw answer, then the raw data of its partition states."""

    __slots__ = ("assignment", "name", "parsed", "raw", "stamps", "states")

    def __init__(self, name: str) -> None:
        self.name = name
        self.raw: Any = _MISSING  # the answer for /brokers/topics/<t>: (data, stat), _Denied or _MISSING
        self.assignment: TopicAssignment | Unreadable | None = None  # its data parsed while waiting
        self.states: dict[int, Any] = {}  # partition -> its state znode's data, _MISSING or _Denied
        self.parsed: dict[int, PartitionState | Unreadable | None] = {}  # ... parsed while waiting (``_parse_some``)
        self.stamps: dict[int, StateStamp] = {}  # partition -> its state znode's mtime and version


# A queued request: (op, path, handler kind, context); plain ints, compared on the hot path.
_GET, _CHILDREN, _EXISTS = 0, 1, 2
_STATE, _TOPIC, _TOPIC_CHILDREN, _SINGLE, _LIST, _BROKER, _MARKER, _TOPIC_CONFIG, _BROKER_CONFIG, _NOTE = range(10)


class ReadAttempt:
    """One pass over the cluster; raises ``Straddled`` when the session ends under it."""

    def __init__(
        self,
        session: ZkSession,
        attempt: int,
        progress: ProgressCallback | None,
        window: int,
        watch: Callable[[Any], None] | None = None,
    ) -> None:
        self.session = session
        self.watch = watch
        self.client = session.client
        self.attempt = attempt
        self.progress = progress
        self.window = window
        self.session_id = session.session_id
        self.timeout = max(10.0, session.settings.session_timeout * 2)
        self.todo: deque[tuple[int, str, int, Any]] = deque()
        self.issued = 0
        self.done = 0
        self.peak_in_flight = 0
        self.first_zxid = 0
        self.singles: dict[str, tuple[bytes | None, Any] | _Denied | _Absent | None] = {}
        self.topics: dict[str, _TopicBuild] = {}
        self.brokers: dict[int, BrokerEntry] = {}
        self.markers: dict[str, ZnodeTimes] = {}
        self.topic_configs: dict[str, EntityConfig | Unreadable] = {}
        self.broker_configs: dict[str, EntityConfig | Unreadable] = {}
        self.config_times: dict[int, dict[str, ZnodeTimes]] = {_TOPIC_CONFIG: {}, _BROKER_CONFIG: {}}
        self.notes: dict[str, list[Notification]] = {parent: [] for parent in _NOTIFICATION_PARSERS}
        self.unreadable: list[Unreadable] = []
        self.partitions = 0
        self.unparsed: deque[tuple[dict[int, Any], int, dict[int, StateStamp], _TopicBuild]] = deque()
        self.unparsed_topics: deque[_TopicBuild] = deque()

    # ---- the pipeline ---------------------------------------------------------------------------

    # The answers (kazoo's and ours) and the snapshot hold no cycles, and a read's ~100,000 containers per 50,000
    # partitions would set off full collections over the whole heap, in this thread and kazoo's: at 50,000
    # partitions parsing, building and the view took 0.88-1.09 CPU s with them, 0.43-0.65 s without
    # (benchmarks/README.md).
    @collector_paused()
    def run(self) -> tuple[ClusterSnapshot, bool]:
        # One round trip first, so last_zxid is the server's zxid as the read starts (replies carry it).
        try:
            self.client.exists("/")
        except ConnectionClosedError:
            raise SessionLostError(f"the ZooKeeper session to {self.session.target} was closed") from None
        except (ConnectionLoss, SessionExpiredError, KazooTimeoutError):
            raise Straddled("the ZooKeeper connection dropped as the read started") from None
        except NoAuthError as exc:  # the chroot itself refuses these credentials (an AuthError, not a crash)
            raise self.session.read_error(exc, "read /") from None
        self.first_zxid = self.client.last_zxid
        for path in _SINGLE_ZNODES:
            self.todo.append((_GET, path, _SINGLE, None))
        for path in _LISTED:
            self.todo.append((_CHILDREN, path, _LIST, None))
        # Only its stat's child count: exists needs no READ permission (Kafka gives the tokens CREATOR_ALL
        # only), and the tokens themselves are never read.
        self.todo.append((_EXISTS, DELEGATION_TOKENS, _SINGLE, None))
        self._pump()
        # Re-read the epoch last: a different value means a controller failover happened mid-read.
        start_epoch = self.singles.get(CONTROLLER_EPOCH)
        self.todo.append((_GET, CONTROLLER_EPOCH, _SINGLE, "end"))
        self._pump()
        end_epoch = self.singles.get(f"{CONTROLLER_EPOCH}#end")
        if self.session.session_id != self.session_id:
            raise Straddled("the ZooKeeper session changed while reading")
        epoch_changed = _data(start_epoch) != _data(end_epoch)
        return self._build(), epoch_changed

    def _pump(self) -> None:
        """Issue queued requests, keeping at most ``window`` outstanding, until everything is answered."""
        todo, window, client, watch = self.todo, self.window, self.client, self.watch
        get_async, children_async = client.get_async, client.get_children_async
        in_flight: deque[tuple[Any, int, str, int, Any]] = deque()
        unparsed, unparsed_topics = self.unparsed, self.unparsed_topics
        progress_at = PROGRESS_EVERY
        # tuple.__new__ itself (C): the named tuple's ``_make`` is a Python function around it, twice the cost.
        stamp = partial(tuple.__new__, StateStamp)
        while todo or in_flight:
            while todo and len(in_flight) < window:
                op, path, kind, ctx = todo.popleft()
                if op == _EXISTS:
                    result = client.exists_async(path)
                elif op != 0:
                    result = children_async(path)
                elif watch is not None and kind in (_STATE, _TOPIC):
                    result = get_async(path, watch=watch)
                else:
                    result = get_async(path)
                in_flight.append((result, op, path, kind, ctx))
                self.issued += 1
            if len(in_flight) > self.peak_in_flight:
                self.peak_in_flight = len(in_flight)
            result, op, path, kind, ctx = in_flight.popleft()
            if (unparsed or unparsed_topics) and not result.ready():
                self._parse_some()  # ZooKeeper has not answered yet: use the wait
            try:
                value = result.get(timeout=self.timeout)
            except NoNodeError:
                value = _MISSING
            except NoAuthError:
                value = _Denied(f"kzc may not read {path}: {NO_AUTH}; check --zk-auth")
            except KazooTimeoutError:
                if self.client.connected:
                    raise ConnectError(
                        f"ZooKeeper {self.session.target} stopped answering for {self.timeout:g} s while a snapshot "
                        "was being read"
                    ) from None
                self._reconnected_or_straddled()
                todo.appendleft((op, path, kind, ctx))
                continue
            except ConnectionLoss:
                self._reconnected_or_straddled()
                todo.appendleft((op, path, kind, ctx))  # same session: just ask again
                continue
            except ConnectionClosedError:  # a SessionExpiredError subclass: test it first
                raise SessionLostError(f"the ZooKeeper session to {self.session.target} was closed") from None
            except SessionExpiredError:
                raise Straddled("the ZooKeeper session expired while reading") from None
            except KazooException as exc:
                value = _Denied(f"ZooKeeper refused to read {path}: {type(exc).__name__}")
            self.done += 1
            if kind == _STATE:
                # Hot path, once per partition: keep the raw data (not the stat); it is parsed only while this
                # thread would otherwise wait for ZooKeeper (``_parse_some``) or once the reading is done, so it
                # does not compete with kazoo's thread for the GIL while answers are coming in.
                if type(value) is tuple:
                    ctx[0][ctx[1]] = value[0]
                    stat = value[1]
                    ctx[2][ctx[1]] = stamp((stat.mtime, stat.version))
                else:
                    ctx[0][ctx[1]] = value
                unparsed.append(ctx)
            else:
                self._handle(kind, path, value, ctx)
            if self.progress is not None and self.done >= progress_at:
                progress_at = self.done + PROGRESS_EVERY
                self._report()
        if self.progress is not None:
            self._report()

    def _parse_some(self) -> None:
        """Parse one topic's partition assignment, else up to ``PARSE_WHILE_WAITING`` of the states read so far;
        ``_build`` takes what is parsed as it is."""
        if self.unparsed_topics:
            build = self.unparsed_topics.popleft()
            build.assignment = parse_topic(topic_path(build.name), build.raw[0])
            return
        unparsed = self.unparsed
        for _ in range(min(PARSE_WHILE_WAITING, len(unparsed))):
            states, partition, _, build = unparsed.popleft()
            raw = states[partition]
            if raw is not _MISSING and type(raw) is not _Denied:  # those two are the build's (no parsing)
                # Parsed only: an unreadable state is listed by the build, in its order, and only if its topic
                # is still there then (a topic deleted while reading is not in the snapshot).
                build.parsed[partition] = parse_partition_state(state_path(build.name, partition), raw)

    def _report(self) -> None:
        assert self.progress is not None
        total = self.issued + len(self.todo)
        self.progress(SnapshotProgress(self.attempt, self.done, total, len(self.topics), self.partitions))

    def _reconnected_or_straddled(self) -> None:
        """After a connection loss: wait for kazoo to reconnect; a new session means start again."""
        client = self.client
        try:
            wait_until(lambda: client.connected, self.timeout, "the ZooKeeper connection", interval=0.02)
        except DeadlineExceeded:
            raise ConnectError(
                f"lost the connection to ZooKeeper {self.session.target} while taking a snapshot and it did not "
                f"come back within {self.timeout:g} s"
            ) from None
        if self.session.session_id != self.session_id:
            raise Straddled("the ZooKeeper session was lost and replaced while reading")

    # ---- answers --------------------------------------------------------------------------------

    def _state(self, path: str, value: Any) -> PartitionState | Unreadable | None:
        """``value``: the state znode's data, ``_MISSING`` or ``_Denied``."""
        if value is _MISSING:
            return None
        if type(value) is _Denied:
            return self._unreadable(Unreadable(path, b"", value.reason))
        parsed = parse_partition_state(path, value)
        if type(parsed) is Unreadable:
            self.unreadable.append(parsed)
        return parsed

    def _unreadable(self, value: Unreadable) -> Unreadable:
        self.unreadable.append(value)
        return value

    def _handle(self, kind: int, path: str, value: Any, ctx: Any) -> None:
        if kind == _SINGLE:
            self.singles[path if ctx is None else f"{path}#{ctx}"] = value
        elif kind == _LIST:
            self._listed(path, value)
        elif kind == _TOPIC:
            self._topic(ctx, path, value)
        elif kind == _TOPIC_CHILDREN:
            self._topic_children(ctx, path, value)
        elif kind == _BROKER:
            self._broker(ctx, path, value)
        elif kind == _MARKER:
            if value is not _MISSING and type(value) is not _Denied:
                self.markers[ctx] = times_of(value[1])
        elif kind in (_TOPIC_CONFIG, _BROKER_CONFIG):
            parsed = self._entity_config(path, value)
            if parsed is not None:
                (self.topic_configs if kind == _TOPIC_CONFIG else self.broker_configs)[ctx] = parsed
            if type(value) is tuple:
                self.config_times[kind][ctx] = times_of(value[1])
        elif kind == _NOTE:
            self._notification(ctx, path, value)

    def _listed(self, path: str, value: Any) -> None:
        if value is _MISSING:
            return  # an old Kafka or a fresh cluster without this root: nothing there
        if type(value) is _Denied:
            self._unreadable(Unreadable(path, b"", value.reason))
            return
        names = sorted(value)
        queue = self.todo
        if path == TOPICS:
            for name in names:
                build = self.topics[name] = _TopicBuild(name)
                queue.append((_GET, topic_path(name), _TOPIC, build))
                queue.append((_CHILDREN, partitions_path(name), _TOPIC_CHILDREN, build))
        elif path == BROKER_IDS:
            for name in names:
                queue.append((_GET, broker_path(name), _BROKER, name))
        elif path == DELETE_TOPICS:
            for name in names:
                queue.append((_GET, deletion_marker_path(name), _MARKER, name))
        elif path == TOPIC_CONFIGS:
            for name in names:
                queue.append((_GET, topic_config_path(name), _TOPIC_CONFIG, name))
        elif path == BROKER_CONFIGS:
            for name in names:
                queue.append((_GET, broker_config_path(name), _BROKER_CONFIG, name))
        else:
            for name in names:
                queue.append((_GET, child_path(path, name), _NOTE, path))

    def _topic(self, topic: _TopicBuild, path: str, value: Any) -> None:
        if value is _MISSING:
            self.topics.pop(topic.name, None)  # deleted while reading
        else:
            topic.raw = value
            if type(value) is tuple:
                self.unparsed_topics.append(topic)

    def _topic_children(self, topic: _TopicBuild, path: str, value: Any) -> None:
        if value is _MISSING:
            return  # no partitions znode: no state can exist (listed partitions get None at the end)
        if type(value) is _Denied:
            self._unreadable(Unreadable(path, b"", value.reason))
            return
        states = topic.states
        for child in value:
            if child.isascii() and child.isdigit() and (child == "0" or child[0] != "0"):
                partition = int(child)
                self.todo.append(
                    (_GET, state_path(topic.name, partition), _STATE, (states, partition, topic.stamps, topic))
                )
                self.partitions += 1
            else:
                problem = f"'{child[:40]}' is not a partition number"
                self._unreadable(Unreadable(partition_path(topic.name, child), b"", problem))

    def _broker(self, name: str, path: str, value: Any) -> None:
        if value is _MISSING:
            return  # the broker left while reading
        if not (name.isascii() and name.isdigit()):
            raw = b"" if type(value) is _Denied else (value[0] or b"")
            self._unreadable(Unreadable(path, raw, f"'{name[:40]}' under /brokers/ids is not a broker id"))
            return
        if type(value) is _Denied:
            registration: Any = self._unreadable(Unreadable(path, b"", value.reason))
            times = ZnodeTimes(0, 0, 0, 0, -1)
        else:
            registration = parse_broker(path, value[0])
            if type(registration) is Unreadable:
                self.unreadable.append(registration)
            times = times_of(value[1])
        self.brokers[int(name)] = BrokerEntry(int(name), registration, times)

    def _entity_config(self, path: str, value: Any) -> EntityConfig | Unreadable | None:
        if value is _MISSING:
            return None
        if type(value) is _Denied:
            return self._unreadable(Unreadable(path, b"", value.reason))
        parsed = parse_entity_config(path, value[0])
        if type(parsed) is Unreadable:
            self.unreadable.append(parsed)
        return parsed

    def _notification(self, parent: str, path: str, value: Any) -> None:
        if value is _MISSING:
            return  # consumed by the controller while reading
        name = path.rsplit("/", 1)[1]
        if type(value) is _Denied:
            self.notes[parent].append(Notification(name, 0, self._unreadable(Unreadable(path, b"", value.reason))))
            return
        parsed = _NOTIFICATION_PARSERS[parent](path, value[0])
        if type(parsed) is Unreadable:
            self.unreadable.append(parsed)
        self.notes[parent].append(Notification(name, value[1].ctime, parsed))

    # ---- the snapshot ---------------------------------------------------------------------------

    def _single(self, path: str, parse: Callable[[str, bytes | None], Any], empty_is_absent: bool = False) -> Any:
        value = self.singles.get(path)
        if value is _MISSING:
            return None
        if type(value) is _Denied:
            return self._unreadable(Unreadable(path, b"", value.reason))
        assert isinstance(value, tuple)
        if empty_is_absent and not value[0]:
            return None
        parsed = parse(path, value[0])
        if type(parsed) is Unreadable:
            self.unreadable.append(parsed)
        return parsed

    def _child_count(self, path: str) -> int | Unreadable | None:
        """The number of children ``path`` has, from its stat (one exists, no listing); None when absent."""
        value: Any = self.singles.get(path)
        if value is _MISSING or value is None:
            return None
        if type(value) is _Denied:
            return self._unreadable(Unreadable(path, b"", value.reason))
        return int(value.numChildren)  # exists answers the stat alone

    def _single_times(self, path: str) -> ZnodeTimes | None:
        value = self.singles.get(path)
        return times_of(value[1]) if isinstance(value, tuple) else None

    def _build(self) -> ClusterSnapshot:
        # The epoch the snapshot ends at (re-read last); the start value only served to detect a failover.
        self.singles[CONTROLLER_EPOCH] = self.singles.get(f"{CONTROLLER_EPOCH}#end")
        singles = {
            "cluster_id": self._single(CLUSTER_ID, parse_cluster_id),
            "controller": self._single(CONTROLLER, parse_controller),
            "controller_epoch": self._single(CONTROLLER_EPOCH, parse_controller_epoch),
            "reassignment": self._single(REASSIGN_PARTITIONS, parse_reassignment),
            "preferred_election": self._single(PREFERRED_REPLICA_ELECTION, parse_preferred_election),
            "feature": self._single(FEATURE, parse_feature),
            "migration": self._single(MIGRATION, parse_migration),
            # Brokers pre-create it empty; Kafka reads empty data as "no block handed out yet".
            "producer_id_block": self._single(PRODUCER_ID_BLOCK, parse_producer_id_block, True),
        }
        epoch_times = self._single_times(CONTROLLER_EPOCH)
        topic_configs = MappingProxyType(dict(sorted(self.topic_configs.items())))
        topics: dict[str, TopicEntry] = {}
        for name in sorted(self.topics):
            build = self.topics[name]
            path = topic_path(name)
            assignment: TopicAssignment | Unreadable
            if type(build.raw) is _Denied:
                assignment = self._unreadable(Unreadable(path, b"", build.raw.reason))
                times = ZnodeTimes(0, 0, 0, 0, -1)
            else:
                early = build.assignment
                assignment = early if early is not None else parse_topic(path, build.raw[0])
                if type(assignment) is Unreadable:
                    self.unreadable.append(assignment)
                times = times_of(build.raw[1])
            states: dict[int, PartitionState | Unreadable | None] = {}
            raw_states, parsed = build.states, build.parsed
            listed = assignment.partition_ids if type(assignment) is TopicAssignment else ()
            for partition in sorted(raw_states.keys() | set(listed)):
                if partition in parsed:
                    ready = parsed[partition]
                    if type(ready) is Unreadable:
                        self.unreadable.append(ready)
                    states[partition] = ready
                    continue
                # A listed partition without a partitions/<p> znode has no state: None, never read.
                raw = raw_states.get(partition, _MISSING)
                states[partition] = self._state(state_path(name, partition), raw)
            topics[name] = TopicEntry(
                name=name,
                assignment=assignment,
                times=times,
                states=MappingProxyType(states),
                config=topic_configs.get(name),
                state_stamps=MappingProxyType(build.stamps),
            )
        return ClusterSnapshot(
            taken_at_ms=int(time.time() * 1000),
            zookeeper=str(self.session.target),
            zxid=self.client.last_zxid,
            session_id=self.session_id or 0,
            controller_epoch_zk_version=epoch_times.version if epoch_times else None,
            brokers=MappingProxyType(dict(sorted(self.brokers.items()))),
            topics=MappingProxyType(topics),
            deletion_markers=MappingProxyType(dict(sorted(self.markers.items()))),
            reassignment_times=self._single_times(REASSIGN_PARTITIONS),
            preferred_election_times=self._single_times(PREFERRED_REPLICA_ELECTION),
            topic_configs=topic_configs,
            broker_configs=MappingProxyType(dict(sorted(self.broker_configs.items()))),
            isr_change_notifications=_sorted_notes(self.notes[ISR_CHANGE_NOTIFICATIONS]),
            log_dir_event_notifications=_sorted_notes(self.notes[LOG_DIR_EVENT_NOTIFICATIONS]),
            config_change_notifications=_sorted_notes(self.notes[CONFIG_CHANGES]),
            delegation_tokens=self._child_count(DELEGATION_TOKENS),
            controller_times=self._single_times(CONTROLLER),
            topic_config_times=MappingProxyType(dict(sorted(self.config_times[_TOPIC_CONFIG].items()))),
            broker_config_times=MappingProxyType(dict(sorted(self.config_times[_BROKER_CONFIG].items()))),
            unreadable=tuple(sorted(self.unreadable, key=lambda u: u.path)),
            **singles,
        )


def _sorted_notes(notes: list[Notification]) -> tuple[Notification, ...]:
    return tuple(sorted(notes, key=lambda n: n.name))


def _data(value: object) -> bytes | None:
    return value[0] if isinstance(value, tuple) else None
