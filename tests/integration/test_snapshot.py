"""Reading a ClusterSnapshot from a real ZooKeeper: the live sandbox, and Kafka layouts written into a
chroot of the sandbox's ZooKeeper (no broker at all, malformed znodes, a session lost mid-read)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic
from kazoo.client import KazooClient

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ControllerInfo,
    EntityConfig,
    PartitionState,
    TopicAssignment,
    Unreadable,
)
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.snapshot.health import assess
from core.snapshot.jsonl.read import read_snapshot_file
from core.snapshot.jsonl.write import write_snapshot_file
from core.snapshot.reader import SnapshotProgress, SnapshotReader, read_snapshot
from core.snapshot.summary import summarize
from core.zookeeper.session import ZkSession

# ---- helpers ------------------------------------------------------------------------------------


def zk_hosts(sandbox: Sandbox) -> str:
    """The sandbox's ZooKeeper without the /kafka chroot."""
    return sandbox.info().zookeeper.rsplit("/", 1)[0]


def open_session(connect: str) -> ZkSession:
    session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(connect)))
    session.start()
    return session


@pytest.fixture
def kafka_session(sandbox: Sandbox) -> Iterator[ZkSession]:
    session = open_session(sandbox.info().zookeeper)
    yield session
    session.stop()


@pytest.fixture
def chroot(sandbox: Sandbox, unique_name: str) -> Iterator[tuple[KazooClient, str]]:
    """A fresh chroot on the sandbox's ZooKeeper and a client inside it; removed afterwards."""
    path = f"/kzc-test-{unique_name}"
    root = KazooClient(hosts=zk_hosts(sandbox))
    root.start(timeout=30)
    root.ensure_path(path)
    client = KazooClient(hosts=zk_hosts(sandbox) + path)
    client.start(timeout=30)
    yield client, zk_hosts(sandbox) + path
    client.stop()
    client.close()
    root.delete(path, recursive=True)
    root.stop()
    root.close()


def write_layout(
    client: KazooClient,
    topics: dict[str, int],
    registered: tuple[int, ...] = (),
    controller: int | None = None,
    markers: tuple[str, ...] = (),
    epoch: int = 7,
) -> None:
    """A Kafka 3.9-style layout: RF-3 topics over brokers 1..3, leaders on the first replica."""
    creates: list[tuple[str, bytes]] = [
        (p, b"") for p in ("/brokers", "/brokers/ids", "/brokers/topics", "/admin", "/admin/delete_topics",
                           "/config", "/config/topics", "/config/changes", "/cluster")
    ]  # fmt: skip
    creates.append(("/controller_epoch", str(epoch).encode()))
    creates.append(("/cluster/id", b'{"version":"1","id":"AAAAAAAAAAAAAAAAAAAAAQ"}'))
    for b in registered:
        reg = {
            "version": 5,
            "host": "h",
            "port": 9092,
            "jmx_port": -1,
            "timestamp": "1",
            "rack": f"r{b}",
            "endpoints": [f"PLAINTEXT://h{b}:9092"],
            "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
        }
        creates.append((f"/brokers/ids/{b}", json.dumps(reg).encode()))
    if controller is not None:
        creates.append(("/controller", f'{{"version":1,"brokerid":{controller},"timestamp":"1"}}'.encode()))
    for name, count in topics.items():
        assignment = {str(p): [1 + (p + r) % 3 for r in range(3)] for p in range(count)}
        creates.append((f"/brokers/topics/{name}", json.dumps({"version": 3, "partitions": assignment}).encode()))
        creates.append((f"/brokers/topics/{name}/partitions", b""))
        creates.append((f"/config/topics/{name}", b'{"version":1,"config":{}}'))
        for p, replicas in assignment.items():
            state = {"controller_epoch": epoch, "leader": replicas[0], "version": 1, "leader_epoch": 0, "isr": replicas}
            creates.append((f"/brokers/topics/{name}/partitions/{p}", b""))
            creates.append((f"/brokers/topics/{name}/partitions/{p}/state", json.dumps(state).encode()))
    creates += [(f"/admin/delete_topics/{m}", b"") for m in markers]
    for start in range(0, len(creates), 500):
        batch = client.transaction()
        for path, data in creates[start : start + 500]:
            batch.create(path, data)
        results = batch.commit()
        assert not [r for r in results if isinstance(r, Exception)], [
            r for r in results if type(r).__name__ != "RolledBackError"
        ]


def create_topic(sandbox: Sandbox, name: str, partitions: int = 3, config: dict[str, str] | None = None) -> None:
    admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
    admin.create_topics([NewTopic(name, partitions, 3, config=config or {})])[name].result(timeout=60)
    del admin  # its threads stop now, not at the end of the run when the brokers are gone


def wait_for_leaders(session: ZkSession, topic: str, partitions: int) -> None:
    def ready() -> bool:
        for p in range(partitions):
            found = session.client.exists(f"/brokers/topics/{topic}/partitions/{p}/state")
            if not found:
                return False
            data, _ = session.client.get(f"/brokers/topics/{topic}/partitions/{p}/state")
            if json.loads(data)["leader"] < 0 or len(json.loads(data)["isr"]) < 3:
                return False
        return True

    wait_until(ready, 60, f"leaders and full ISRs for {topic}")


# ---- the live sandbox ---------------------------------------------------------------------------


def test_a_snapshot_of_the_sandbox_holds_its_brokers_controller_topics_and_states(
    sandbox: Sandbox, kafka_session: ZkSession, unique_name: str
) -> None:
    create_topic(sandbox, unique_name, 3, {"min.insync.replicas": "2"})
    wait_for_leaders(kafka_session, unique_name, 3)
    seen: list[SnapshotProgress] = []
    reader = SnapshotReader(kafka_session, progress=seen.append)
    snap = reader.read()
    client = kafka_session.client

    assert sorted(snap.brokers) == [1, 2, 3]
    racks = {b.broker_id: b.registration.rack for b in snap.brokers.values()}  # type: ignore[union-attr]
    assert racks == {1: "r1", 2: "r2", 3: "r3"}
    ports = {b.port for b in sandbox.info().brokers}
    for registered in snap.brokers.values():
        assert isinstance(registered.registration, BrokerRegistration)
        assert registered.registration.endpoints[0].port in ports
        assert registered.times.czxid == client.exists(f"/brokers/ids/{registered.broker_id}").czxid  # broker epoch
    assert isinstance(snap.controller, ControllerInfo) and snap.controller.broker_id in snap.brokers
    epoch_data, epoch_stat = client.get("/controller_epoch")
    assert snap.controller_epoch == int(epoch_data) and snap.controller_epoch_zk_version == epoch_stat.version
    assert isinstance(snap.cluster_id, ClusterId)
    assert snap.cluster_id.id == json.loads(client.get("/cluster/id")[0])["id"]

    entry = snap.topics[unique_name]
    assert isinstance(entry.assignment, TopicAssignment) and entry.assignment.partition_ids == (0, 1, 2)
    assert entry.assignment.topic_id is not None
    for p in range(3):
        partition_state = entry.states[p]
        assert isinstance(partition_state, PartitionState)
        assert partition_state.leader in partition_state.isr and sorted(partition_state.isr) == [1, 2, 3]
    assert isinstance(entry.config, EntityConfig) and entry.config.as_dict() == {"min.insync.replicas": "2"}
    assert snap.topic_configs[unique_name] == entry.config

    assert snap.zxid >= client.exists(f"/brokers/topics/{unique_name}").mzxid
    assert snap.session_id == kafka_session.session_id
    assert snap.unreadable == ()
    assert reader.stats.attempts == 1 and 0 < reader.stats.max_in_flight <= 2000
    assert seen and seen[-1].done == seen[-1].total == reader.stats.requests
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    health = assess(snap)
    assert not [o for o in health.offline if o.topic == unique_name]
    assert not [u for u in health.under_replicated if u.topic == unique_name]


def test_a_sandbox_snapshot_survives_its_file_round_trip(kafka_session: ZkSession, tmp_path: Path) -> None:
    snap = read_snapshot(kafka_session)
    write_snapshot_file(snap, tmp_path / "sandbox.jsonl.gz")
    assert read_snapshot_file(tmp_path / "sandbox.jsonl.gz") == snap


# ---- layouts in a chroot ------------------------------------------------------------------------


def test_with_every_broker_down_zookeeper_alone_gives_the_snapshot(chroot: tuple[KazooClient, str]) -> None:
    client, connect = chroot
    write_layout(client, {"orders": 4, "audit": 2}, registered=(), controller=None, markers=("audit",))
    session = open_session(connect)
    try:
        snap = read_snapshot(session)
    finally:
        session.stop()
    assert snap.brokers == {} and snap.controller is None and snap.controller_epoch == 7
    assert snap.partition_count == 6 and set(snap.topics) == {"orders", "audit"}
    report = assess(snap)
    assert len(report.offline) == 6
    assert all("not a registered broker" in o.reason for o in report.offline)
    [queued] = report.deletions
    assert queued.topic == "audit" and queued.codes == ("no_controller", "replica_on_dead_broker")
    summary = summarize(snap, report).to_json()
    assert summary["controller"]["broker_id"] is None and summary["brokers"] == []
    assert (summary["topics"], summary["partitions"], summary["health"]["offline_partitions"]) == (2, 6, 6)


def test_malformed_znodes_are_kept_as_unreadable_and_break_nothing(
    chroot: tuple[KazooClient, str], tmp_path: Path
) -> None:
    client, connect = chroot
    write_layout(client, {"good": 2, "bad-state": 1}, registered=(1, 2, 3), controller=1)
    client.set("/controller", b"not json")
    client.set("/brokers/topics/bad-state/partitions/0/state", b'{"leader":"one"}')
    client.create("/brokers/topics/bad-topic", b"\xff\xfe")
    client.create("/brokers/topics/bad-topic/partitions/0/state", b"{}", makepath=True)
    client.create("/brokers/topics/good/partitions/9/state", b'{"controller_epoch":7,"leader":1,"version":1,'
                  b'"leader_epoch":0,"isr":[1]}', makepath=True)  # fmt: skip
    client.create("/brokers/topics/good/partitions/x", b"")
    client.create("/brokers/ids/not-a-number", b"{}")
    client.set("/config/topics/good", b'{"version":1,"config":{"retention.ms":1}}')
    session = open_session(connect)
    try:
        snap = read_snapshot(session)
    finally:
        session.stop()
    assert isinstance(snap.controller, Unreadable) and snap.controller.raw == b"not json"
    assert isinstance(snap.topics["bad-state"].states[0], Unreadable)
    assert isinstance(snap.topics["bad-topic"].assignment, Unreadable)
    assert isinstance(snap.topics["bad-topic"].states[0], Unreadable)  # read from partitions/0 although unlisted
    assert isinstance(snap.topics["good"].states[9], PartitionState)  # left over beyond the assignment
    assert isinstance(snap.topics["good"].config, Unreadable)
    unreadable = {u.path for u in snap.unreadable}
    assert unreadable == {
        "/controller",
        "/brokers/topics/bad-state/partitions/0/state",
        "/brokers/topics/bad-topic",
        "/brokers/topics/bad-topic/partitions/0/state",
        "/brokers/topics/good/partitions/x",
        "/brokers/ids/not-a-number",
        "/config/topics/good",
    }
    summary = summarize(snap).to_json()
    assert summary["controller"]["broker_id"] is None and "unreadable" in summary["controller"]["problem"]
    assert summary["health"]["unreadable_znodes"] == 7
    write_snapshot_file(snap, tmp_path / "bad.jsonl")
    assert read_snapshot_file(tmp_path / "bad.jsonl") == snap


def test_a_snapshot_that_straddles_a_lost_session_is_discarded_and_retaken(
    sandbox: Sandbox, chroot: tuple[KazooClient, str]
) -> None:
    client, connect = chroot
    write_layout(client, {f"t{i}": 100 for i in range(20)}, registered=(1, 2, 3), controller=1)
    session = open_session(connect)
    first_session = session.session_id
    expired: list[int] = []

    def expire_once(progress: SnapshotProgress) -> None:
        # Runs on the reader's thread, mid-read: end the session from the outside, as kazoo's harness does.
        if expired:
            return
        expired.append(progress.done)
        twin = KazooClient(hosts=zk_hosts(sandbox), client_id=session.client.client_id)
        twin.start(timeout=30)
        twin.stop()
        twin.close()
        wait_until(lambda: session.session_id != first_session and session.client.connected, 60, "a new session")

    try:
        reader = SnapshotReader(session, progress=expire_once, max_in_flight=50)
        snap = reader.read()
    finally:
        session.stop()
    assert expired and expired[0] < reader.stats.requests  # it really happened mid-read
    assert reader.stats.attempts == 2
    assert "session" in reader.stats.retaken_for[0]
    assert snap.session_id != first_session and snap.partition_count == 2000
    assert all(isinstance(s, PartitionState) for t in snap.topics.values() for s in t.states.values())


def test_a_controller_change_during_the_read_is_retaken_and_the_new_epoch_recorded(
    chroot: tuple[KazooClient, str],
) -> None:
    client, connect = chroot
    write_layout(client, {f"t{i}": 100 for i in range(5)}, registered=(1,), controller=1)
    session = open_session(connect)

    def failover_once(progress: SnapshotProgress) -> None:
        if client.get("/controller_epoch")[0] == b"7":
            client.set("/controller_epoch", b"8")

    try:
        reader = SnapshotReader(session, progress=failover_once, max_in_flight=20)
        snap = reader.read()
    finally:
        session.stop()
    assert reader.stats.attempts == 2 and "controller" in reader.stats.retaken_for[0]
    assert snap.controller_epoch == 8 and snap.controller_epoch_zk_version == 1


def test_the_in_flight_window_bounds_outstanding_requests_and_changes_nothing_read(
    chroot: tuple[KazooClient, str],
) -> None:
    client, connect = chroot
    write_layout(client, {f"t{i}": 30 for i in range(10)}, registered=(1, 2, 3), controller=2)
    session = open_session(connect)
    try:
        narrow = SnapshotReader(session, max_in_flight=7)
        small = narrow.read()
        wide = read_snapshot(session)
    finally:
        session.stop()
    assert 1 < narrow.stats.max_in_flight <= 7 and narrow.stats.point_in_time
    assert small.topics == wide.topics and small.brokers == wide.brokers and small.zxid == wide.zxid
