"""The live model (``core.live.model.LiveCluster`` as ``kzc watch`` builds it, over its one
``core.live.watcher.ClusterWatcher``) and ``kzc watch`` against a real cluster: every event kind triggered for
real (topics created and deleted, brokers killed and restarted, the controller killed, admin requests and
notifications written as Kafka's tools and brokers write them), re-sync after a dropped connection and
after an expired session, malformed znodes, and which watches it holds.

These tests kill brokers of the shared sandbox; every killed broker is started again before its test ends.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewPartitions, NewTopic
from kazoo.client import KazooClient

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.kafka.znodes import PartitionState, TopicAssignment, Unreadable
from core.kafka.znodes.paths import topic_path
from core.live.events import (
    BrokerLeft,
    BrokerRegistered,
    BrokerUpdated,
    ControllerEpochChanged,
    ControllerMoved,
    DeletionFinished,
    DeletionQueued,
    IsrChanged,
    IsrNotificationsChanged,
    LeaderChanged,
    LogDirEventsChanged,
    PartitionStateChanged,
    PreferredElectionChanged,
    ReassignmentChanged,
    Resynced,
    SessionStateChanged,
    TopicAssignmentChanged,
    TopicCreated,
    TopicRemoved,
    ZnodeUnreadable,
)
from core.live.live_event import LiveEvent
from core.live.model import LiveCluster
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.zookeeper.session import ConnectionState, ZkSession
from tests.integration.zk_server import standalone_zookeeper, watch_count, zk_client

E = TypeVar("E", bound=LiveEvent)
ROOT = Path(__file__).resolve().parents[2]
EVENT_TIMEOUT = 30.0  # a change reaches the watcher in milliseconds; this only bounds a failing test
CLUSTER_TIMEOUT = 90.0  # the controller reacting to a dead broker (6 s session) or a restart


# ---- fixtures and helpers ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster(sandbox: Sandbox) -> Sandbox:
    """The shared sandbox (3 brokers, racks r1-r3): every broker a test kills is started again before it ends."""
    return sandbox


@pytest.fixture(scope="module")
def bare_zk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ZooKeeper without Kafka, all to this module: for malformed data and exact watch counts."""
    with standalone_zookeeper(tmp_path_factory.mktemp("bare-zk")) as port:
        yield f"127.0.0.1:{port}"


class Recorder:
    """Collects the events a watcher delivers (on its thread) and waits for one with a deadline."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[LiveEvent] = []

    def __call__(self, event: LiveEvent) -> None:
        with self._lock:
            self.events.append(event)

    def seen(self) -> list[LiveEvent]:
        with self._lock:
            return list(self.events)

    def wait_for(self, kind: type[E], where: Callable[[E], bool] = lambda e: True, timeout: float = EVENT_TIMEOUT) -> E:
        def found() -> E | None:
            return next((e for e in self.seen() if isinstance(e, kind) and where(e)), None)

        event = wait_until(found, timeout, f"a {kind.__name__} event (seen: {[e.describe() for e in self.seen()]})")
        assert event is not None
        return event


def _settings(connect: str, **kw: Any) -> ConnectionSettings:
    return ConnectionSettings(zookeeper=parse_zookeeper(connect), **kw)


@contextmanager
def watching(connect: str, **kw: Any) -> Iterator[tuple[LiveCluster, Recorder, ZkSession]]:
    """The live model as ``kzc watch`` builds it, its first full read done; the recorder gets what ``kzc watch``
    prints (``on_raw``)."""
    session = ZkSession(_settings(connect, **kw))
    session.start()
    recorder = Recorder()
    model = LiveCluster(session, on_event=lambda _e: None, on_snapshot=lambda: None, on_raw=recorder)
    try:
        model.start()
        wait_until(lambda: model.loading() is None, EVENT_TIMEOUT, "the live model's first full read")
        yield model, recorder, session
    finally:
        model.stop()
        session.stop()


def _admin(box: Sandbox) -> AdminClient:
    return AdminClient({"bootstrap.servers": box.info().bootstrap_servers})


def _create_topic(box: Sandbox, name: str, assignment: list[list[int]]) -> None:
    admin = _admin(box)  # held until the answer: a collected client abandons its requests
    topic = NewTopic(name, num_partitions=len(assignment), replica_assignment=assignment)
    admin.create_topics([topic])[name].result(timeout=CLUSTER_TIMEOUT)


def _delete_topic(box: Sandbox, name: str) -> None:
    admin = _admin(box)
    admin.delete_topics([name])[name].result(timeout=CLUSTER_TIMEOUT)


def _controller(box: Sandbox) -> int:
    controller = wait_until(lambda: box.status().controller, CLUSTER_TIMEOUT, "a controller")
    assert controller is not None
    return controller


def _partition(topic: str, partition: int) -> Callable[[PartitionStateChanged], bool]:
    """Matches the state of ``topic``-``partition`` appearing or changing to a readable value."""
    return lambda e: e.topic == topic and e.partition == partition and e.new is not None


def _state(event: PartitionStateChanged) -> PartitionState:
    assert isinstance(event.new, PartitionState)
    return event.new


class PausableProxy:
    """A TCP proxy to ZooKeeper that can cut every connection and refuse new ones, as a network
    partition would, without touching the server."""

    def __init__(self, target_port: int) -> None:
        self._target = target_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._paused = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        threading.Thread(target=self._accept, daemon=True).start()

    def pause(self) -> None:
        self._paused.set()
        self._cut()

    def resume(self) -> None:
        self._paused.clear()

    def close(self) -> None:
        self._closed.set()
        self._cut()
        self._listener.close()

    def _cut(self) -> None:
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for sock in sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            if self._paused.is_set():
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self._target), timeout=5)
            except OSError:
                client.close()
                continue
            upstream.settimeout(None)
            with self._lock:
                self._sockets |= {client, upstream}
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                with suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)


@pytest.fixture
def proxy(cluster: Sandbox) -> Iterator[PausableProxy]:
    p = PausableProxy(cluster.info().zookeeper_port)
    try:
        yield p
    finally:
        p.close()


def _expire(client_id: tuple[int, bytes], zk_port: int) -> None:
    """Expire a session for real: open it from a second client and close it (as kazoo's harness does)."""
    session_id, password = client_id
    other = KazooClient(hosts=f"127.0.0.1:{zk_port}", client_id=(session_id, password), timeout=10)
    other.start(timeout=15)
    other.stop()
    other.close()


def _fake_cluster(connect_root: str, name: str) -> str:
    """A chroot holding Kafka's structural znodes but no Kafka: for malformed data and watch counting."""
    chroot = f"/{name}"
    with zk_client(connect_root) as zk:
        for path in ("brokers/ids", "brokers/topics", "admin/delete_topics", "isr_change_notification",
                     "log_dir_event_notification"):  # fmt: skip
            zk.ensure_path(f"{chroot}/{path}")
        zk.create(f"{chroot}/controller_epoch", b"3")
        zk.create(f"{chroot}/controller", b'{"version":2,"brokerid":1,"timestamp":"1","kraftControllerEpoch":-1}')
        zk.create(
            f"{chroot}/brokers/ids/1",
            b'{"version":5,"endpoints":["PLAINTEXT://127.0.0.1:9092"],"host":"127.0.0.1","port":9092,'
            b'"jmx_port":-1,"listener_security_protocol_map":{"PLAINTEXT":"PLAINTEXT"},"features":{}}',
        )
    return connect_root + chroot


# ---- topics ------------------------------------------------------------------------------------------


def test_a_created_and_deleted_topic_is_reported_with_its_followed_partitions(
    cluster: Sandbox, unique_name: str
) -> None:
    with watching(cluster.info().zookeeper) as (live, recorder, _):
        assert live.watcher.follow_topic(unique_name).assignment is None  # followed before it exists
        _create_topic(cluster, unique_name, [[1, 2], [2, 3]])
        recorder.wait_for(TopicCreated, lambda e: e.name == unique_name)
        changed = recorder.wait_for(TopicAssignmentChanged, lambda e: e.topic == unique_name)
        assert changed.old is None and isinstance(changed.new, TopicAssignment)
        assert changed.new.partitions == ((0, (1, 2)), (1, (2, 3)))
        for partition in (0, 1):
            created = recorder.wait_for(PartitionStateChanged, _partition(unique_name, partition))
            assert created.old is None and _state(created).leader == changed.new.replicas(partition)[0]
        seen = recorder.seen()
        assert seen.index(TopicCreated(unique_name)) < seen.index(changed)  # in the order it happened
        assert unique_name in live.watcher.state().topics

        _delete_topic(cluster, unique_name)
        recorder.wait_for(TopicRemoved, lambda e: e.name == unique_name)
        gone = recorder.wait_for(TopicAssignmentChanged, lambda e: e.topic == unique_name and e.new is None)
        assert gone.describe() == f"topic {unique_name} assignment removed (topic deleted)"
        recorder.wait_for(PartitionStateChanged, lambda e: e.topic == unique_name and e.new is None)
        assert unique_name not in live.watcher.state().topics


def test_partitions_added_to_a_followed_topic_are_reported_with_their_new_states(
    cluster: Sandbox, unique_name: str
) -> None:
    _create_topic(cluster, unique_name, [[1, 2]])
    with watching(cluster.info().zookeeper) as (live, recorder, _):
        first = live.watcher.follow_topic(unique_name)
        assert isinstance(first.assignment, TopicAssignment) and set(first.states) == {0}
        admin = _admin(cluster)
        admin.create_partitions([NewPartitions(unique_name, 3)])[unique_name].result(timeout=60)
        grown = recorder.wait_for(TopicAssignmentChanged, lambda e: e.topic == unique_name)
        assert isinstance(grown.new, TopicAssignment) and grown.new.partition_ids == (0, 1, 2)
        assert "partitions 1 -> 3" in grown.describe()
        for partition in (1, 2):
            recorder.wait_for(PartitionStateChanged, _partition(unique_name, partition))
        entry = live.topic(unique_name)
        assert entry is not None and set(entry.states) == {0, 1, 2}

        live.watcher.unfollow_topic(unique_name)
        assert unique_name not in live.watcher.followed
    _delete_topic(cluster, unique_name)


# ---- brokers, partitions, deletion, reassignment ----------------------------------------------------


def test_a_killed_broker_is_reported_as_left_with_its_partitions_and_again_once_restarted(
    cluster: Sandbox, unique_name: str
) -> None:
    victim = next(b for b in (3, 2, 1) if b != _controller(cluster))
    others = [b for b in (1, 2, 3) if b != victim]
    _create_topic(cluster, unique_name, [[victim, *others]])  # the victim is the preferred leader
    with watching(cluster.info().zookeeper) as (live, recorder, _):
        assert live.watcher.follow_topic(unique_name).states[0] is not None
        wait_until(lambda: len(_state_of(live, unique_name).isr) == 3, CLUSTER_TIMEOUT, "all replicas in sync")
        cluster.kill_broker(victim)
        try:
            left = recorder.wait_for(BrokerLeft, lambda e: e.id == victim, CLUSTER_TIMEOUT)
            port = cluster.info().broker(victim).port
            assert left.describe() == f"broker {victim} left (127.0.0.1:{port})"
            moved = recorder.wait_for(LeaderChanged, lambda e: e.topic == unique_name, CLUSTER_TIMEOUT)
            assert moved.old_leader == victim and moved.new_leader in others
            shrunk = recorder.wait_for(IsrChanged, lambda e: e.topic == unique_name, CLUSTER_TIMEOUT)
            assert victim in shrunk.old_isr and victim not in shrunk.new_isr
            assert victim not in live.watcher.state().brokers
        finally:
            cluster.start_broker(victim)
        back = recorder.wait_for(BrokerRegistered, lambda e: e.id == victim, CLUSTER_TIMEOUT)
        assert back.describe() == f"broker {victim} registered (127.0.0.1:{port}, rack r{victim})"
        rejoined = recorder.wait_for(
            IsrChanged, lambda e: e.topic == unique_name and victim in e.new_isr, CLUSTER_TIMEOUT
        )
        assert victim not in rejoined.old_isr
    _delete_topic(cluster, unique_name)


def _state_of(live: LiveCluster, topic: str, partition: int = 0) -> PartitionState:
    entry = live.topic(topic)
    assert entry is not None
    state = entry.states[partition]
    assert isinstance(state, PartitionState)
    return state


def test_deletion_and_reassignment_that_wait_for_a_dead_broker_are_reported_queued_then_finished(
    cluster: Sandbox, unique_name: str
) -> None:
    victim = next(b for b in (3, 2, 1) if b != _controller(cluster))
    others = [b for b in (1, 2, 3) if b != victim]
    doomed, moving = f"{unique_name}-del", f"{unique_name}-mov"
    _create_topic(cluster, doomed, [[victim, others[0]]])
    _create_topic(cluster, moving, [[others[0]]])
    with watching(cluster.info().zookeeper) as (live, recorder, _), zk_client(cluster.info().zookeeper) as zk:
        live.watcher.follow_topic(moving)
        cluster.kill_broker(victim)
        try:
            recorder.wait_for(BrokerLeft, lambda e: e.id == victim, CLUSTER_TIMEOUT)
            # A replica on a dead broker keeps the deletion queued (zk-layout §7.4) ...
            _delete_topic(cluster, doomed)
            recorder.wait_for(DeletionQueued, lambda e: e.topic == doomed)
            assert doomed in live.watcher.state().deletions and doomed in live.watcher.state().topics
            # ... and a new replica on a dead broker keeps the reassignment pending (written as the ZK-mode
            # kafka-reassign-partitions tool writes it).
            target = [others[0], victim]
            request = {"version": 1, "partitions": [{"topic": moving, "partition": 0, "replicas": target}]}
            zk.create("/admin/reassign_partitions", json.dumps(request).encode())
            pending = recorder.wait_for(ReassignmentChanged, lambda e: e.request is not None)
            assert (
                pending.describe()
                == f"partition reassignment pending: 1 partition ({moving}-0 -> [{others[0]},{victim}])"
            )
            adding = recorder.wait_for(
                TopicAssignmentChanged,
                lambda e: e.topic == moving and isinstance(e.new, TopicAssignment) and e.new.is_reassigning(0),
            )
            assert isinstance(adding.new, TopicAssignment) and adding.new.adding_replicas(0) == (victim,)
        finally:
            cluster.start_broker(victim)
        recorder.wait_for(TopicRemoved, lambda e: e.name == doomed, CLUSTER_TIMEOUT)
        finished = recorder.wait_for(DeletionFinished, lambda e: e.topic == doomed, CLUSTER_TIMEOUT)
        assert not finished.topic_still_exists
        recorder.wait_for(ReassignmentChanged, lambda e: e.request is None, CLUSTER_TIMEOUT)
        done = recorder.wait_for(
            TopicAssignmentChanged,
            lambda e: e.topic == moving and isinstance(e.new, TopicAssignment) and not e.new.is_reassigning(0),
            CLUSTER_TIMEOUT,
        )
        assert isinstance(done.new, TopicAssignment) and done.new.replicas(0) == tuple(target)
        seen = recorder.seen()
        assert seen.index(TopicRemoved(doomed)) < seen.index(finished)
    _delete_topic(cluster, moving)


# ---- the controller ----------------------------------------------------------------------------------


def test_killing_the_controller_reports_the_move_and_the_requests_the_new_controller_handles(
    cluster: Sandbox, unique_name: str
) -> None:
    _create_topic(cluster, unique_name, [[1, 2, 3]])
    old = _controller(cluster)
    with watching(cluster.info().zookeeper) as (live, recorder, _), zk_client(cluster.info().zookeeper) as zk:
        epoch = live.watcher.state().epoch()
        assert live.watcher.state().controller_id() == old and epoch is not None
        cluster.kill_broker(old)
        try:
            # Until the dead controller's session expires (6 s) nobody handles these: they stay pending.
            # Written as the ZK-mode election tool, a pre-AlterIsr partition leader and a broker with a
            # failed log dir write them.
            election = {"version": 1, "partitions": [{"topic": unique_name, "partition": 0}]}
            zk.create("/admin/preferred_replica_election", json.dumps(election).encode())
            zk.create("/isr_change_notification/isr_change_", json.dumps(election).encode(), sequence=True)
            failure = {"version": 1, "broker": old, "event": 1}
            zk.create("/log_dir_event_notification/log_dir_event_", json.dumps(failure).encode(), sequence=True)
            assert recorder.wait_for(PreferredElectionChanged, lambda e: e.request is not None).describe() == (
                f"preferred leader election requested for 1 partition ({unique_name}-0)"
            )
            recorder.wait_for(IsrNotificationsChanged, lambda e: e.count == 1)
            recorder.wait_for(LogDirEventsChanged, lambda e: e.count == 1)

            moved = recorder.wait_for(ControllerMoved, lambda e: e.new is not None and e.new != old, CLUSTER_TIMEOUT)
            assert moved.epoch is not None and moved.epoch > epoch
            assert any(isinstance(e, ControllerMoved) and e.old == old for e in recorder.seen())
            recorder.wait_for(ControllerEpochChanged, lambda e: e.old == epoch and e.new == moved.epoch)
            recorder.wait_for(BrokerLeft, lambda e: e.id == old, CLUSTER_TIMEOUT)
            # The new controller consumes what waited for it.
            recorder.wait_for(PreferredElectionChanged, lambda e: e.request is None, CLUSTER_TIMEOUT)
            recorder.wait_for(IsrNotificationsChanged, lambda e: e.count == 0, CLUSTER_TIMEOUT)
            recorder.wait_for(LogDirEventsChanged, lambda e: e.count == 0, CLUSTER_TIMEOUT)
            assert live.watcher.state().controller_id() == moved.new != old
        finally:
            cluster.start_broker(old)
        recorder.wait_for(BrokerRegistered, lambda e: e.id == old, CLUSTER_TIMEOUT)
    _delete_topic(cluster, unique_name)


# ---- re-sync -----------------------------------------------------------------------------------------


def test_after_a_dropped_connection_the_watches_come_back_and_what_changed_is_reported(
    cluster: Sandbox, proxy: PausableProxy, unique_name: str
) -> None:
    # The pause must stay well inside the session (10 s, the most the sandbox's tickTime allows), and kazoo's
    # reconnect back-off (0.2 s doubling) adds to it: so the writer below connects before the pause, and the pause
    # ends once the session itself is cut (kazoo's thread), not once the model says so: its thread may be inside a
    # read the cut stalls (the previous test's deletion still reporting), and the session expired meanwhile.
    with watching(f"127.0.0.1:{proxy.port}/kafka") as (_, recorder, session), cluster.zookeeper() as zk:
        proxy.pause()
        wait_until(lambda: session.state is not ConnectionState.CONNECTED, EVENT_TIMEOUT, "the session cut")
        # While the watcher cannot see it, written as kafka-topics --zookeeper did: one znode, at once, by a client
        # connected before the pause.
        zk.create(topic_path(unique_name), json.dumps({"version": 1, "partitions": {"0": [1]}}).encode())
        proxy.resume()
        resynced = recorder.wait_for(Resynced)
        assert not resynced.session_expired
        assert recorder.wait_for(SessionStateChanged, lambda e: e.state is ConnectionState.SUSPENDED)
        assert session.state is ConnectionState.CONNECTED
        # The watches are set again: the next change arrives as it happens.
        _delete_topic(cluster, unique_name)
        recorder.wait_for(TopicRemoved, lambda e: e.name == unique_name)
    # The creation made while away is reported once: in the re-sync, or as its own event when the child watch fires
    # (ZooKeeper fires it as kazoo sets the watches again on the same session), whichever the model handles first.
    created = [
        change
        for event in recorder.seen()
        for change in (event.changes if isinstance(event, Resynced) else (event,))
        if change == TopicCreated(unique_name)
    ]
    assert len(created) == 1, [e.describe() for e in recorder.seen()]


def test_after_session_expiry_a_new_session_re_syncs_and_reports_the_changes_while_away(
    cluster: Sandbox, proxy: PausableProxy, unique_name: str
) -> None:
    _create_topic(cluster, f"{unique_name}-old", [[2]])
    with watching(f"127.0.0.1:{proxy.port}/kafka") as (live, recorder, session):
        live.watcher.follow_topic(f"{unique_name}-old")
        old_session = session.session_id
        client_id = session.client.client_id  # (id, password): only known while connected
        proxy.pause()
        recorder.wait_for(SessionStateChanged, lambda e: e.state is ConnectionState.SUSPENDED)
        _create_topic(cluster, unique_name, [[1]])
        _delete_topic(cluster, f"{unique_name}-old")
        with zk_client(cluster.info().zookeeper) as zk:  # the deletion is accepted at once and done a bit later
            wait_until(lambda: not zk.exists(f"/brokers/topics/{unique_name}-old"), CLUSTER_TIMEOUT, "the deletion")
        _expire(client_id, cluster.info().zookeeper_port)
        proxy.resume()
        recorder.wait_for(SessionStateChanged, lambda e: e.state is ConnectionState.LOST)
        resynced = recorder.wait_for(Resynced)
        assert resynced.session_expired and session.session_id != old_session
        assert TopicCreated(unique_name) in resynced.changes
        assert TopicRemoved(f"{unique_name}-old") in resynced.changes
        assert any(
            isinstance(e, TopicAssignmentChanged) and e.topic == f"{unique_name}-old" and e.new is None
            for e in resynced.changes
        )
        assert resynced.describe().startswith("re-synced after session expiry: ")
        # Watches of the new session work, followed topics included.
        _delete_topic(cluster, unique_name)
        recorder.wait_for(TopicRemoved, lambda e: e.name == unique_name)
        assert f"{unique_name}-old" in live.watcher.followed


# ---- robustness and cost -----------------------------------------------------------------------------


def test_malformed_znodes_are_reported_as_unreadable_and_the_stream_goes_on(bare_zk: str, unique_name: str) -> None:
    connect = _fake_cluster(bare_zk, unique_name)
    with watching(connect) as (live, recorder, _), zk_client(connect) as zk:
        zk.create("/brokers/topics/t", b'{"version":3,"partitions":{"0":[1]}}')
        zk.create("/brokers/topics/t/partitions/0/state", b'{"controller_epoch":3,"leader":1,"version":1,'
                  b'"leader_epoch":0,"isr":[1]}', makepath=True)  # fmt: skip
        live.watcher.follow_topic("t")
        zk.set("/controller", b"not json")
        assert recorder.wait_for(ZnodeUnreadable, lambda e: e.path == "/controller").reason.startswith("not JSON")
        zk.set("/controller_epoch", b"x")
        recorder.wait_for(ZnodeUnreadable, lambda e: e.path == "/controller_epoch")
        zk.set("/brokers/ids/1", b'{"version":5}')
        assert isinstance(recorder.wait_for(BrokerUpdated, lambda e: e.id == 1).new, Unreadable)
        zk.set("/brokers/topics/t/partitions/0/state", b'{"leader":"one"}')
        bad = recorder.wait_for(PartitionStateChanged, lambda e: isinstance(e.new, Unreadable))
        assert bad.describe().startswith("t-0 state unreadable: ")
        zk.create("/admin/reassign_partitions", b"[]")
        assert isinstance(recorder.wait_for(ReassignmentChanged).request, Unreadable)
        zk.create("/brokers/ids/nonsense", b"{}")  # not a broker id: left out, as Kafka cannot read it either
        # Still streaming: good changes after the bad ones.
        zk.create("/brokers/topics/after")
        recorder.wait_for(TopicCreated, lambda e: e.name == "after")
        zk.set("/controller_epoch", b"4")
        zk.set("/controller", b'{"version":2,"brokerid":1,"timestamp":"2","kraftControllerEpoch":-1}')
        assert recorder.wait_for(ControllerMoved) == ControllerMoved(None, 1, 4)
        assert sorted(live.watcher.state().brokers) == [1]


def test_the_live_model_holds_one_watch_per_structural_znode_topic_and_partition_state(
    bare_zk: str, unique_name: str
) -> None:
    """What a console left open costs ZooKeeper: a fixed set of watches, set by the reads it makes anyway;
    following a topic adds none, and a change re-reads only the znode that changed."""
    connect = _fake_cluster(bare_zk, unique_name)
    port = int(bare_zk.rsplit(":", 1)[1])
    state = b'{"controller_epoch":3,"leader":1,"version":1,"leader_epoch":0,"isr":[1]}'

    def no_watches() -> bool:
        return watch_count(port) == 0

    with zk_client(connect) as zk:  # it sets no watch: every watch counted below is the live model's
        for n in range(40):  # one-partition topics
            zk.create(f"/brokers/topics/t{n}", b'{"version":3,"partitions":{"0":[1]}}')
            zk.create(f"/brokers/topics/t{n}/partitions/0/state", state, makepath=True)
        # The server drops a closed session's watches as it closes the connection, just after answering
        # the close: earlier tests' watchers may still hold some for a moment.
        wait_until(no_watches, EVENT_TIMEOUT, "the watches of earlier tests' closed sessions to go")
        with watching(connect) as (live, recorder, _):
            # /controller, /controller_epoch, /brokers/ids and its 1 broker, /brokers/topics,
            # /admin/delete_topics, the two admin request znodes and /migration (existence watches), the two
            # queues; then each topic znode and each partition state znode, watched by the full read.
            held = 11 + 40 * (1 + 1)
            assert watch_count(port) == held
            live.watcher.follow_topic("t0")
            assert watch_count(port) == held  # following a topic names it, every topic is watched already
            reads = live.targeted_reads
            zk.set("/brokers/topics/t0/partitions/0/state", state.replace(b'"leader_epoch":0', b'"leader_epoch":1'))
            recorder.wait_for(PartitionStateChanged, _partition("t0", 0))
            assert live.targeted_reads == reads + 1  # one change, one read ...
            assert watch_count(port) == held  # ... which set its watch again
            zk.create("/brokers/topics/f", b'{"version":3,"partitions":{"0":[1],"1":[1],"2":[1]}}')
            recorder.wait_for(TopicCreated, lambda e: e.name == "f")
            # Its assignment, and its 3 partition states (existence watches until the controller writes them).
            assert watch_count(port) == held + 1 + 3
            live.watcher.unfollow_topic("t0")
            assert watch_count(port) == held + 1 + 3  # still watched (the snapshot follows every topic)
        wait_until(no_watches, EVENT_TIMEOUT, "the closed session's watches to go with it")


# ---- kzc watch ---------------------------------------------------------------------------------------


def test_kzc_watch_streams_one_json_object_per_line_and_exits_130_on_ctrl_c(cluster: Sandbox, unique_name: str) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-m", "cli.main", "watch", "--json", "--zookeeper", cluster.info().zookeeper,
               "--follow", unique_name]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    try:
        assert proc.stderr is not None
        ready = proc.stderr.readline()
        assert ready.startswith(f"kzc: watching {cluster.info().zookeeper}: controller ") and unique_name in ready
        reader.start()
        _create_topic(cluster, unique_name, [[1, 2]])

        def created() -> dict[str, Any] | None:
            parsed = [json.loads(line) for line in list(lines)]
            return next((p for p in parsed if p["event"] == "TopicCreated" and p["name"] == unique_name), None)

        line = wait_until(created, EVENT_TIMEOUT, "the TopicCreated line")
        assert line is not None and line["text"] == f"topic {unique_name} created" and line["time"].endswith("Z")
        wait_until(lambda: any('"PartitionStateChanged"' in x for x in list(lines)), EVENT_TIMEOUT, "a state line")
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    reader.join(timeout=10)
    assert code == 130  # interrupted, as every command (docs/cli.md)
    assert all(json.loads(line)["event"] for line in lines)  # every stdout line is one JSON object
    _delete_topic(cluster, unique_name)


def test_kzc_watch_json_emits_health_changed_when_a_partition_enters_and_leaves_the_offline_set(
    cluster: Sandbox, unique_name: str
) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    _create_topic(cluster, unique_name, [[1, 2]])
    state_path = f"/brokers/topics/{unique_name}/partitions/0/state"
    command = [sys.executable, "-m", "cli.main", "watch", "--json", "--zookeeper", cluster.info().zookeeper]
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    me = {"topic": unique_name, "partition": 0}

    def health(match: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        parsed = [json.loads(line) for line in list(lines)]
        return next((p for p in parsed if p["event"] == "HealthChanged" and match(p)), None)

    try:
        with zk_client(cluster.info().zookeeper) as zk:
            wait_until(lambda: zk.exists(state_path), EVENT_TIMEOUT, "the topic's state znode")
            first = wait_until(lambda: health(lambda _p: True), 60, "the first HealthChanged (the initial state)")
            assert first is not None and me not in first["entered"].get("offline", [])
            good, _ = zk.get(state_path)
            bad = {**json.loads(good), "leader": -1}
            zk.set(state_path, json.dumps(bad).encode())  # planted: no leader
            entered = wait_until(
                lambda: health(lambda p: me in p["entered"].get("offline", [])), EVENT_TIMEOUT, "offline entered"
            )
            assert entered is not None and entered["offline"] >= 1
            assert me in entered["entered"]["under_min_isr"]  # no leader: acks=all fails too
            assert entered["text"].startswith("health: ")
            zk.set(state_path, good)
            left = wait_until(lambda: health(lambda p: me in p["left"].get("offline", [])), EVENT_TIMEOUT, "left")
            assert left is not None and left["offline"] == entered["offline"] - 1
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
    reader.join(timeout=10)
    assert code == 130
    _delete_topic(cluster, unique_name)


def test_kzc_watch_prints_timestamped_lines_without_json(cluster: Sandbox, unique_name: str) -> None:
    command = [sys.executable, "-m", "cli.main", "watch", "--zookeeper", cluster.info().zookeeper]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None and proc.stdout is not None
        proc.stderr.readline()
        _create_topic(cluster, unique_name, [[3]])
        line = proc.stdout.readline()
        while "  health: " in line:  # the health lines (HealthChanged) may come first
            line = proc.stdout.readline()
        stamp, _, text = line.rstrip("\n").partition("  ")
        assert text == f"topic {unique_name} created"
        assert len(stamp) == len("2025-01-01 12:00:00.000") and stamp[4] == "-" and stamp[13] == ":"
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    _delete_topic(cluster, unique_name)


def test_kzc_watch_on_an_unreachable_zookeeper_fails_with_one_line(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "watch", "--zookeeper", f"127.0.0.1:{port}", "--session-timeout", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"kzc: error: cannot connect to ZooKeeper 127.0.0.1:{port} within 2 s: no server answered "
        "(check host, port and that this machine can reach it)"
    ]
