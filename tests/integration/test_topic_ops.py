"""Topic create, expand and delete on the real sandbox, through the AdminClient and through ZooKeeper only.

What lands in ``/brokers/topics/<t>`` must equal the plan; every guard must leave ZooKeeper unchanged
(compared as a recursive dump of the relevant paths, data and versions); a deletion held by a dead
broker must be reported as stuck and complete once the broker is back.

Guards that need a cluster state the sandbox cannot be put in safely (a KRaft controller during a
migration, a topic marked for deletion that the controller leaves alone, no controller at all) run
against a small Kafka-shaped tree in its own chroot of the sandbox's real ZooKeeper, where no
controller acts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError
from kazoo.security import make_acl, make_digest_acl

from core.brokers.admin import KafkaAdmin
from core.config import PLAINTEXT, ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.errors import ConcurrentChangeError, ConnectError, GuardError, KafkaRuleError, ReadOnlyError
from core.kafka.znodes.encode import encode_new_topic
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.topics.ops import TopicOps, open_topic_ops
from core.topics.plan import CreateRequest, DeleteRequest, ExpandRequest, assignment_json
from core.topics.progress import ProgressTimeout

pytestmark = pytest.mark.integration

VIAS = ["admin", "zookeeper"]
WAIT = 90.0


# ---- helpers --------------------------------------------------------------------------------------------


def _settings(sandbox: Sandbox, via: str, **changes: Any) -> ConnectionSettings:
    info = sandbox.info()
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper),
        bootstrap_servers=parse_bootstrap(info.bootstrap_servers) if via == "admin" else None,
    )
    return replace(settings, **changes)


@contextmanager
def _ops(sandbox: Sandbox, via: str, **changes: Any) -> Iterator[TopicOps]:
    with open_topic_ops(_settings(sandbox, via, **changes)) as ops:
        yield ops


def dump(client: KazooClient, *paths: str) -> dict[str, tuple[bytes, int] | None]:
    """Every znode under ``paths`` (recursively) with its data and version; None for a missing path."""
    result: dict[str, tuple[bytes, int] | None] = {}

    def walk(path: str) -> None:
        try:
            data, stat = client.get(path)
            children = client.get_children(path)
        except NoNodeError:
            result[path] = None
            return
        result[path] = (data or b"", stat.version)
        for child in sorted(children):
            walk(f"{path.rstrip('/')}/{child}")

    for path in paths:
        walk(path)
    return result


def topic_json(client: KazooClient, topic: str) -> dict[str, Any]:
    data, _ = client.get(f"/brokers/topics/{topic}")
    value: dict[str, Any] = json.loads(data)
    return value


def relevant(topic: str) -> tuple[str, ...]:
    """What a topic operation on ``topic`` could write."""
    return (
        f"/brokers/topics/{topic}",
        f"/config/topics/{topic}",
        f"/admin/delete_topics/{topic}",
        "/admin/reassign_partitions",
    )


def create_online(ops: TopicOps, zk: KazooClient, request: CreateRequest) -> None:
    """Create a topic and wait until it is fully set up (leaders, and the topic id the controller adds)."""
    result = ops.apply_create(ops.plan_create(request))
    ops.wait_online(request.topic, [p for p, _ in result.assignment], WAIT)
    wait_until(lambda: "topic_id" in topic_json(zk, request.topic), WAIT, f"the topic id of {request.topic}")


def controller_id(zk: KazooClient) -> int:
    data, _ = zk.get("/controller")
    return int(json.loads(data)["brokerid"])


# ---- create ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("via", VIAS)
def test_create_lands_exactly_the_planned_assignment_and_config(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, via: str
) -> None:
    with _ops(sandbox, via) as ops:
        plan = ops.plan_create(CreateRequest(unique_name, 6, 2, config=(("retention.ms", "86400000"),)))
        assert plan.via == via and plan.blocked is None
        result = ops.apply_create(plan)
        assert result.assignment == plan.assignment
        stored = topic_json(zk, unique_name)
        assert stored["partitions"] == assignment_json(plan.assignment)
        assert json.loads(zk.get(f"/config/topics/{unique_name}")[0]) == {
            "version": 1,
            "config": {"retention.ms": "86400000"},
        }
        progress = ops.wait_online(unique_name, range(6), WAIT)
        assert progress.done and progress.with_leader == tuple(range(6))
    # On the ZooKeeper path kzc writes no topic id; the controller adds one (zk-layout §2.4).
    wait_until(lambda: "topic_id" in topic_json(zk, unique_name), WAIT, "the controller to add a topic id")


@pytest.mark.parametrize("via", VIAS)
def test_a_manual_assignment_is_created_as_given(sandbox: Sandbox, zk: KazooClient, unique_name: str, via: str) -> None:
    with _ops(sandbox, via) as ops:
        plan = ops.plan_create(CreateRequest(unique_name, replica_assignment="3:1,1:2,2:3,3:2"))
        ops.apply_create(plan)
        assert topic_json(zk, unique_name)["partitions"] == {"0": [3, 1], "1": [1, 2], "2": [2, 3], "3": [3, 2]}
        assert ops.wait_online(unique_name, range(4), WAIT).done


# ---- expand ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("via", VIAS)
def test_expand_adds_exactly_the_planned_partitions_and_keeps_the_rest(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, via: str
) -> None:
    with _ops(sandbox, via) as ops:
        create_online(ops, zk, CreateRequest(unique_name, 3, 2))
        before_raw, _ = zk.get(f"/brokers/topics/{unique_name}")
        before = json.loads(before_raw)
        plan = ops.plan_expand(ExpandRequest(unique_name, 7))
        assert [p for p, _ in plan.new_assignment] == [3, 4, 5, 6]
        result = ops.apply_expand(plan)
        assert result.assignment == plan.new_assignment
        after = topic_json(zk, unique_name)
        assert after["partitions"] == {**before["partitions"], **assignment_json(plan.new_assignment)}
        assert after["topic_id"] == before["topic_id"] == plan.topic_id  # KAFKA-14190: never dropped
        assert {k: v for k, v in after.items() if k != "partitions"} == {
            k: v for k, v in before.items() if k != "partitions"
        }
        assert ops.wait_online(unique_name, [3, 4, 5, 6], WAIT).done


@pytest.mark.parametrize("via", VIAS)
def test_a_concurrent_change_to_the_topic_is_never_overwritten(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, via: str
) -> None:
    path = f"/brokers/topics/{unique_name}"
    with _ops(sandbox, via) as ops:
        create_online(ops, zk, CreateRequest(unique_name, 2, 1))
        plan = ops.plan_expand(ExpandRequest(unique_name, 4))
        raw, stat = zk.get(path)
        zk.set(path, raw, version=stat.version)  # someone else wrote the znode after the plan was shown
        before = dump(zk, *relevant(unique_name))
        with pytest.raises(ConcurrentChangeError, match="changed since the plan was made"):
            ops.apply_expand(plan)
        assert dump(zk, *relevant(unique_name)) == before
        assert len(topic_json(zk, unique_name)["partitions"]) == 2


def test_zookeeper_expand_inserts_only_the_new_partition_keys(
    sandbox: Sandbox, zk: KazooClient, unique_name: str
) -> None:
    path = f"/brokers/topics/{unique_name}"
    with _ops(sandbox, "zookeeper") as ops:
        create_online(ops, zk, CreateRequest(unique_name, replica_assignment="1:2,2:3"))
        raw, stat = zk.get(path)
        # A field kzc does not know, odd spacing: everything but the new keys must survive byte for byte.
        decorated = raw[:-1] + b' , "x_future_field" : {"kept": [1, 2]} }'
        zk.set(path, decorated, version=stat.version)
        plan = ops.plan_expand(ExpandRequest(unique_name, 3, "1:2,2:3,3:1"))
        ops.apply_expand(plan)
        after, _ = zk.get(path)
        assert after == decorated.replace(b'"1":[2,3]}', b'"1":[2,3],"2":[3,1]}')
        assert ops.wait_online(unique_name, [2], WAIT).done


# ---- delete ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("via", VIAS)
def test_delete_marks_and_the_controller_removes_the_topics(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, via: str
) -> None:
    names = [f"{unique_name}-a", f"{unique_name}-b"]
    with _ops(sandbox, via) as ops:
        for name in names:
            create_online(ops, zk, CreateRequest(name, 2, 2))
        plan = ops.plan_delete(DeleteRequest(regex=f"{unique_name}-[ab]"))
        assert plan.topics == tuple(names)
        if via == "admin":
            assert plan.delete_topic_enable is True and "read from broker" in plan.checks[-1].detail
        else:
            assert plan.delete_topic_enable is None and plan.checks[-1].status == "warning"
        result = ops.apply_delete(plan)
        assert result.marked == tuple(names) and result.errors == ()
        assert ops.wait_deleted(names, WAIT).done
    for name in names:
        assert dump(zk, f"/brokers/topics/{name}", f"/config/topics/{name}", f"/admin/delete_topics/{name}") == {
            f"/brokers/topics/{name}": None,
            f"/config/topics/{name}": None,
            f"/admin/delete_topics/{name}": None,
        }


def test_a_deletion_held_by_a_dead_broker_is_reported_stuck_and_completes_after_restart(
    sandbox: Sandbox, zk: KazooClient, unique_name: str
) -> None:
    victim = next(b for b in (1, 2, 3) if b != controller_id(zk))
    other = next(b for b in (1, 2, 3) if b != victim)
    with _ops(sandbox, "zookeeper") as ops:
        create_online(ops, zk, CreateRequest(unique_name, replica_assignment=f"{victim}:{other},{other}:{victim}"))
        sandbox.kill_broker(victim)
        try:
            wait_until(lambda: not zk.exists(f"/brokers/ids/{victim}"), WAIT, f"broker {victim} to deregister")
            ops.apply_delete(ops.plan_delete(DeleteRequest((unique_name,))))
            progress = ops.deletion_progress([unique_name])
            assert not progress.done
            dead = f"replicas on broker\\(s\\) {victim}, which are not registered"
            assert f"{unique_name}: stuck: replicas on broker(s) {victim}, which" in progress.describe()
            with pytest.raises(ProgressTimeout, match=f"stuck: {dead}"):
                ops.wait_deleted([unique_name], 3.0)
            # While it is stuck, every operation on the name is refused and nothing is written.
            before = dump(zk, *relevant(unique_name))
            with pytest.raises(KafkaRuleError, match=f"Topic '{unique_name}' is marked for deletion."):
                ops.plan_create(CreateRequest(unique_name, 1, 1))
            with pytest.raises(GuardError, match="is marked for deletion: the controller would skip"):
                ops.plan_expand(ExpandRequest(unique_name, 5))
            with pytest.raises(GuardError, match=f"already marked for deletion. It is stuck: {dead}"):
                ops.plan_delete(DeleteRequest((unique_name,)))
            after = dump(zk, *relevant(unique_name))
            assert _without_states(after) == _without_states(before)
        finally:
            sandbox.start_broker(victim)
        assert ops.wait_deleted([unique_name], WAIT).done
    assert not zk.exists(f"/brokers/topics/{unique_name}") and not zk.exists(f"/admin/delete_topics/{unique_name}")


def _without_states(tree: dict[str, tuple[bytes, int] | None]) -> dict[str, tuple[bytes, int] | None]:
    # The controller is still working on the stuck topic's partition states; they are its, never kzc's.
    return {path: value for path, value in tree.items() if "/partitions" not in path}


# ---- guards on the real cluster -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def guarded(sandbox: Sandbox, zk: KazooClient) -> str:
    """One online topic the guard tests try to change."""
    name = "kzc-guarded-topic"
    with _ops(sandbox, "admin") as ops:
        create_online(ops, zk, CreateRequest(name, replica_assignment="1:2,2:3,3:1"))
    return name


GUARDS = [
    ("create an existing topic", lambda t: ("create", CreateRequest(t, 1, 1)), KafkaRuleError, "already exists."),
    ("create on an unknown broker", lambda t: ("create", CreateRequest(t + "-x", replica_assignment="1:9")),
     GuardError, "Unknown broker(s) in replica assignment: 9. Registered brokers: 1, 2, 3"),
    ("create an invalid name", lambda t: ("create", CreateRequest(t + "!", 1, 1)), KafkaRuleError,
     "Topic name is invalid"),
    ("create beyond the brokers", lambda t: ("create", CreateRequest(t + "-x", 1, 4)), KafkaRuleError,
     "Replication factor: 4 larger than available brokers: 3."),
    ("expand an internal topic", lambda t: ("expand", ExpandRequest("__consumer_offsets", 99)), GuardError,
     "The number of partitions for the internal topic __consumer_offsets cannot be changed."),
    ("expand onto an unknown broker", lambda t: ("expand", ExpandRequest(t, 4, "1:2,2:3,3:1,9:1")), KafkaRuleError,
     "Unknown broker(s) in replica assignment: 9."),
    ("shrink a topic", lambda t: ("expand", ExpandRequest(t, 2)), KafkaRuleError,
     "Topic currently has 3 partitions, which is higher than the requested 2."),
    ("delete an internal topic", lambda t: ("delete", DeleteRequest(("__consumer_offsets",))), GuardError,
     "Topic __consumer_offsets is a kafka internal topic and is not allowed to be marked for deletion."),
    ("delete a missing topic", lambda t: ("delete", DeleteRequest((t + "-missing",))), KafkaRuleError,
     "to delete does not exist"),
]  # fmt: skip


def _plan(ops: TopicOps, kind: str, request: Any) -> Any:
    planners: dict[str, Callable[[Any], Any]] = {
        "create": ops.plan_create,
        "expand": ops.plan_expand,
        "delete": ops.plan_delete,
    }
    return planners[kind](request)


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize(("case", "make", "error", "message"), GUARDS, ids=[g[0] for g in GUARDS])
def test_every_guard_refuses_before_anything_is_written(
    sandbox: Sandbox, zk: KazooClient, guarded: str, via: str, case: str, make: Any, error: type, message: str
) -> None:
    kind, request = make(guarded)
    paths = (
        *relevant(guarded),
        *relevant(guarded + "-x"),
        *relevant(guarded + "!"),
        "/brokers/topics/__consumer_offsets",
    )
    before = dump(zk, *paths)
    with _ops(sandbox, via) as ops, pytest.raises(error) as info:
        _plan(ops, kind, request)
    assert message in str(info.value)
    assert dump(zk, *paths) == before


@pytest.mark.parametrize("via", VIAS)
def test_read_only_refuses_every_mutation(sandbox: Sandbox, zk: KazooClient, guarded: str, via: str) -> None:
    paths = (*relevant(guarded), *relevant(guarded + "-ro"))
    before = dump(zk, *paths)
    with _ops(sandbox, via, read_only=True, read_only_by="--read-only was given") as ops:
        create = ops.plan_create(CreateRequest(guarded + "-ro", 1, 1))
        expand = ops.plan_expand(ExpandRequest(guarded, 4))
        delete = ops.plan_delete(DeleteRequest((guarded,)))
        for blocked in (create.blocked, expand.blocked, delete.blocked):
            assert blocked == "kzc is read-only (--read-only was given): refusing every mutation"
        with pytest.raises(ReadOnlyError):
            ops.apply_create(create)
        with pytest.raises(ReadOnlyError):
            ops.apply_expand(expand)
        with pytest.raises(ReadOnlyError):
            ops.apply_delete(delete)
    # A plan made without read-only is refused too when the session is read-only.
    with _ops(sandbox, via) as writable:
        plan = writable.plan_create(CreateRequest(guarded + "-ro", 1, 1))
    with _ops(sandbox, via, read_only=True, read_only_by="--read-only was given") as ops, pytest.raises(ReadOnlyError):
        ops.apply_create(plan)
    assert dump(zk, *paths) == before


@pytest.mark.parametrize("via", VIAS)
def test_a_reassignment_in_progress_blocks_expansion(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, via: str
) -> None:
    path = f"/brokers/topics/{unique_name}"
    with _ops(sandbox, via) as ops:
        create_online(ops, zk, CreateRequest(unique_name, replica_assignment="1:2,2:3"))
        raw, stat = zk.get(path)
        moving = json.loads(raw)
        # What ZooKeeper shows while partition 1 moves from [2,3] to [2,1] (2.4+ ReplicaAssignment).
        moving["partitions"]["1"] = [2, 1, 3]
        moving["adding_replicas"] = {"1": [1]}
        moving["removing_replicas"] = {"1": [3]}
        zk.set(path, json.dumps(moving).encode(), version=stat.version)
        try:
            before = dump(zk, *relevant(unique_name))
            with pytest.raises(
                KafkaRuleError, match=f"A partition reassignment is in progress for the topic '{unique_name}'."
            ):
                ops.plan_expand(ExpandRequest(unique_name, 4))
            assert dump(zk, *relevant(unique_name)) == before
        finally:
            zk.set(path, raw)


# ---- guards on a Kafka-shaped tree no controller acts on ---------------------------------------------------


@dataclass
class FakeCluster:
    """A chroot of the sandbox's ZooKeeper holding Kafka's znodes but no running Kafka."""

    client: KazooClient
    root: str
    connect: str

    def put(self, path: str, value: Any) -> None:
        data = value if isinstance(value, bytes) else json.dumps(value).encode()
        self.client.create(self.root + path, data, makepath=True)

    def dump(self) -> dict[str, tuple[bytes, int] | None]:
        return dump(self.client, self.root)


@pytest.fixture
def fake(sandbox: Sandbox, unique_name: str) -> Iterator[FakeCluster]:
    hosts = sandbox.info().zookeeper.split("/", 1)[0]
    root = f"/kzc-test-{unique_name}"
    client = KazooClient(hosts=hosts, timeout=10)
    client.start(timeout=30)
    cluster = FakeCluster(client, root, f"{hosts}{root}")
    for broker, rack in ((1, "r1"), (2, "r2"), (3, "r3")):
        cluster.put(f"/brokers/ids/{broker}", {
            "version": 5, "host": "127.0.0.1", "port": 1, "jmx_port": -1, "timestamp": "1700000000000",
            "endpoints": ["PLAINTEXT://127.0.0.1:1"], "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
            "rack": rack, "features": {},
        })  # fmt: skip
    cluster.put("/brokers/topics/kept", {"version": 3, "partitions": {"0": [1, 2]}, "adding_replicas": {},
                                         "removing_replicas": {}, "topic_id": "Mecwe6R0R--ubf0v3yP3iA"})  # fmt: skip
    cluster.put("/config/topics/kept", {"version": 1, "config": {}})
    cluster.put("/admin/delete_topics", b"")
    try:
        yield cluster
    finally:
        client.delete(root, recursive=True)
        client.stop()
        client.close()


def _fake_ops(fake: FakeCluster, sandbox: Sandbox | None = None) -> Any:
    settings = ConnectionSettings(zookeeper=parse_zookeeper(fake.connect))
    if sandbox is not None:
        settings = replace(settings, bootstrap_servers=parse_bootstrap(sandbox.info().bootstrap_servers))
    return open_topic_ops(settings)


def test_zookeeper_create_writes_exactly_what_adminzkclient_writes_config_first(fake: FakeCluster) -> None:
    fake.put("/controller", {"version": 2, "brokerid": 1, "timestamp": "1700000000000", "kraftControllerEpoch": -1})
    with _fake_ops(fake) as ops:
        plan = ops.plan_create(CreateRequest("fresh", replica_assignment="1:2,2:3"))
        ops.apply_create(plan)
    assert fake.client.get(fake.root + "/config/topics/fresh")[0] == b'{"version":1,"config":{}}'
    assert fake.client.get(fake.root + "/brokers/topics/fresh")[0] == encode_new_topic(plan.assignment)
    assert fake.client.get(fake.root + "/brokers/topics/fresh")[0] == (
        b'{"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{},"version":3}'
    )
    assert not fake.client.exists(fake.root + "/brokers/topics/fresh/partitions")  # states are the controller's


def test_without_a_controller_the_zookeeper_create_is_refused_as_kafka_39_refuses_it(fake: FakeCluster) -> None:
    before = fake.dump()
    with _fake_ops(fake) as ops:
        plan = ops.plan_create(CreateRequest("fresh", 1, 1))
        assert any("no active controller" in w for w in plan.warnings)
        assert plan.topic_znode_version == 3  # "kept" has a topic id: IBP 2.8+, which may be Kafka 3.7.1+
        with pytest.raises(
            KafkaRuleError, match="Cannot set entity configs for topics fresh when there is no controller."
        ):
            ops.apply_create(plan)
    assert fake.dump() == before


def test_a_cluster_older_than_kafka_2_7_gets_a_v1_topic_znode_even_without_a_controller(fake: FakeCluster) -> None:
    # Kafka 2.6 brokers register at v4 and no 2.7+ controller ever wrote /feature: Kafka <= 2.3 writes v1 (2.4 to
    # 2.6 cannot be told apart and read it), and no version before 3.7.1 refuses to create without a controller.
    for broker in (1, 2, 3):
        fake.client.set(f"{fake.root}/brokers/ids/{broker}", json.dumps({
            "version": 4, "host": "127.0.0.1", "port": 1, "jmx_port": -1, "timestamp": "1700000000000",
            "endpoints": ["PLAINTEXT://127.0.0.1:1"], "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
        }).encode())  # fmt: skip
    fake.client.set(f"{fake.root}/brokers/topics/kept", b'{"version":1,"partitions":{"0":[1,2]}}')  # no topic id
    with _fake_ops(fake) as ops:
        plan = ops.plan_create(CreateRequest("fresh", replica_assignment="1:2,2:3"))
        assert plan.topic_znode_version == 1
        result = ops.apply_create(plan)
    written = fake.client.get(fake.root + "/brokers/topics/fresh")[0]
    assert written == b'{"version":1,"partitions":{"0":[1,2],"1":[2,3]}}'
    assert fake.client.get(fake.root + "/config/topics/fresh")[0] == b'{"version":1,"config":{}}'
    assert assignment_json(result.assignment) == {"0": [1, 2], "1": [2, 3]}


def test_a_migration_to_kraft_makes_kzc_read_only_through_zookeeper_with_the_explanation(
    fake: FakeCluster, sandbox: Sandbox, zk: KazooClient
) -> None:
    # Through the brokers, Kafka allows these while the KRaft controller dual-writes: tests/integration/
    # test_migration.py runs them on a real migration.
    with_admin = False
    fake.put("/controller", {"version": 2, "brokerid": 3000, "timestamp": "1700000000000", "kraftControllerEpoch": 4})
    fake.put("/migration", {"version": 0, "kraft_controller_id": 3000, "kraft_controller_epoch": 4,
                            "kraft_metadata_offset": 10, "kraft_metadata_epoch": 2})  # fmt: skip
    before, real_before = fake.dump(), dump(zk, *relevant("fresh"))
    with _fake_ops(fake, sandbox if with_admin else None) as ops:
        plans = [
            ops.plan_create(CreateRequest("fresh", replica_assignment="1:2")),
            ops.plan_expand(ExpandRequest("kept", 2)),
            ops.plan_delete(DeleteRequest(("kept",))),
        ]
        for plan in plans:
            assert plan.blocked is not None
            assert "ZooKeeper-to-KRaft migration is in progress (/migration exists and KRaft controller 3000" in (
                plan.blocked
            )
        for apply, plan in zip((ops.apply_create, ops.apply_expand, ops.apply_delete), plans, strict=True):
            with pytest.raises(ReadOnlyError, match="kzc is read-only on this cluster"):
                apply(plan)
    assert fake.dump() == before and dump(zk, *relevant("fresh")) == real_before


def test_a_topic_marked_for_deletion_cannot_be_recreated_expanded_or_deleted_again(fake: FakeCluster) -> None:
    fake.put("/controller", {"version": 2, "brokerid": 1, "timestamp": "1700000000000", "kraftControllerEpoch": -1})
    fake.put("/admin/delete_topics/kept", b"")
    before = fake.dump()
    with _fake_ops(fake) as ops:
        with pytest.raises(KafkaRuleError, match="Topic 'kept' is marked for deletion."):
            ops.plan_create(CreateRequest("kept", 1, 1))
        with pytest.raises(GuardError, match="Topic 'kept' is marked for deletion"):
            ops.plan_expand(ExpandRequest("kept", 2))
        with pytest.raises(GuardError, match="Topic kept is already marked for deletion."):
            ops.plan_delete(DeleteRequest(("kept",)))
    assert fake.dump() == before


def test_znodes_kzc_creates_carry_their_parents_acl_as_kafkas_own_do(fake: FakeCluster) -> None:
    fake.client.add_auth("digest", "kafka:kafka-secret")
    acl = [make_digest_acl("kafka", "kafka-secret", all=True), make_acl("world", "anyone", read=True)]
    fake.put("/controller", {"version": 2, "brokerid": 1, "timestamp": "1700000000000", "kraftControllerEpoch": -1})
    for parent in ("/brokers/topics", "/config/topics", "/admin/delete_topics"):
        fake.client.set_acls(fake.root + parent, acl)
    settings = ConnectionSettings(zookeeper=parse_zookeeper(fake.connect), zk_auth="kafka:kafka-secret")
    with open_topic_ops(settings) as ops:
        ops.apply_create(ops.plan_create(CreateRequest("secured", replica_assignment="1:2")))
        ops.apply_delete(ops.plan_delete(DeleteRequest(("secured",))))
    for path in ("/brokers/topics/secured", "/config/topics/secured", "/admin/delete_topics/secured"):
        assert fake.client.get_acls(fake.root + path)[0] == acl


def test_unreachable_brokers_are_one_clear_error_and_nothing_is_written(
    sandbox: Sandbox, zk: KazooClient, unique_name: str
) -> None:
    settings = replace(_settings(sandbox, "zookeeper"), bootstrap_servers=parse_bootstrap("127.0.0.1:1"))
    before = dump(zk, *relevant(unique_name))
    # Checked before anything is planned: the cause at once, not a timeout.
    refused = r"127\.0\.0\.1:1: Connection refused\).*check --bootstrap-server"
    with pytest.raises(ConnectError, match=refused), open_topic_ops(settings, admin_timeout=3):
        pass
    # A client that gets past that check and then loses the brokers still names the cause.
    admin = KafkaAdmin(parse_bootstrap("127.0.0.1:1"), security=PLAINTEXT, timeout=3)
    with pytest.raises(ConnectError, match=r"cannot reach any Kafka bootstrap server \(127\.0\.0\.1:1: Connection"):
        admin.create_topic(unique_name, [[1]], {})
    assert dump(zk, *relevant(unique_name)) == before
