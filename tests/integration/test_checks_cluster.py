"""``kzc check`` against the real sandbox: conditions made real on the cluster, the rest hand-written.

Real: a killed broker (offline and under-replicated partitions, a deletion held by it, which completes
once the broker is back), ZooKeeper edited behind the controller's back (``metadata_mismatch`` against
what the brokers serve), and a reassignment request naming a missing topic, which a live controller drops
at once (zk-layout §2.7), so the check has nothing to report there. That request, malformed znodes,
missing partition states and a leader outside its ISR are therefore written by hand into a chroot of the
sandbox's ZooKeeper, where no controller acts, and checked with ``--zookeeper host:port/<chroot>``.

The local engine runs in-process (``cli.main.main``); the Spark engine runs once as a user runs it, through
the ``kzc`` executable (the hand-written faults), and once in-process on the run's warm worker (``lent_spark``),
and must return the local engine's findings.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic
from kazoo.client import KazooClient

from cli.main import main
from core.consistency.catalog import selected
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.zk_server import free_port, zk_client

pytestmark = pytest.mark.integration

WAIT = 120.0
KZC = str(Path(sys.executable).with_name("kzc"))
Key = tuple[str, str | None, int | None]


# ---- running kzc check ----------------------------------------------------------------------------------


def check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """``kzc check --engine local --json argv`` in-process: the exit code and the parsed output."""
    code = main(["check", "--engine", "local", "--json", *argv])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def check_cli(*argv: str, timeout: float = 600.0) -> tuple[int, dict[str, Any], str]:
    """``kzc check --json argv`` as a separate process: exit code, parsed stdout, stderr."""
    done = subprocess.run([KZC, "check", "--json", *argv], capture_output=True, text=True, timeout=timeout)
    return done.returncode, json.loads(done.stdout), done.stderr


def keys(report: dict[str, Any], topics: set[str] | None = None) -> set[Key]:
    """(check, topic, partition) of every finding, only for ``topics`` when given."""
    return {
        (f["check"], f["topic"], f["partition"]) for f in report["findings"] if topics is None or f["topic"] in topics
    }


def mine(report: dict[str, Any], topics: set[str]) -> list[dict[str, Any]]:
    return [f for f in report["findings"] if f["topic"] in topics]


# ---- the real cluster -----------------------------------------------------------------------------------


def controller_id(zk: KazooClient) -> int:
    return int(json.loads(zk.get("/controller")[0])["brokerid"])


def state(zk: KazooClient, topic: str, partition: int) -> dict[str, Any] | None:
    path = f"/brokers/topics/{topic}/partitions/{partition}/state"
    if not zk.exists(path):
        return None
    data: dict[str, Any] = json.loads(zk.get(path)[0])
    return data


def create(sandbox: Sandbox, zk: KazooClient, name: str, assignment: list[list[int]]) -> None:
    """Create ``name`` with this replica assignment and wait until every partition is in sync."""
    admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
    admin.create_topics([NewTopic(name, num_partitions=len(assignment), replica_assignment=assignment)])[name].result(
        timeout=60
    )
    del admin

    def in_sync() -> bool:
        states = [state(zk, name, p) for p in range(len(assignment))]
        return all(s is not None and sorted(s["isr"]) == sorted(r) for s, r in zip(states, assignment, strict=True))

    wait_until(in_sync, WAIT, f"{name} online with full ISRs")


def assert_held(found: set[Key], doomed: str) -> None:
    """A topic queued for deletion with a dead replica: held, and still counted as Kafka's tool counts it. The
    controller may already have taken its partition offline for the deletion, so it may also be offline and under
    min ISR; which of the two a read sees depends on when it ran."""
    held = {k for k in found if k[1] == doomed}
    assert {("deletion_stuck", doomed, None), ("under_replicated", doomed, 0)} <= held
    assert held <= {
        ("deletion_stuck", doomed, None),
        ("under_replicated", doomed, 0),
        ("offline_partition", doomed, 0),
        ("under_min_isr", doomed, 0),
    }


def delete_topics(sandbox: Sandbox, *names: str) -> None:
    admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
    for future in admin.delete_topics(list(names)).values():
        future.result(timeout=60)
    del admin


@pytest.mark.usefixtures("lent_spark")
def test_a_killed_broker_makes_partitions_offline_and_under_replicated_and_holds_a_deletion(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    controller = controller_id(zk)
    victim = next(b for b in (3, 2, 1) if b != controller)
    other = next(b for b in (1, 2, 3) if b not in (victim, controller))
    shared, alone, doomed = f"{unique_name}-rf2", f"{unique_name}-rf1", f"{unique_name}-del"
    topics = {shared, alone, doomed}
    create(sandbox, zk, shared, [[victim, other], [other, victim], [other, controller]])
    create(sandbox, zk, alone, [[victim]])
    create(sandbox, zk, doomed, [[victim, other]])
    connect = sandbox.info().zookeeper
    sandbox.kill_broker(victim)
    try:
        wait_until(lambda: not zk.exists(f"/brokers/ids/{victim}"), WAIT, f"broker {victim} to deregister")

        def settled() -> bool:
            p0, p1, lonely, held = state(zk, shared, 0), state(zk, shared, 1), state(zk, alone, 0), state(zk, doomed, 0)
            return (
                p0 is not None and p0["isr"] == [other] and p1 is not None and p1["isr"] == [other]
                and lonely is not None and lonely["leader"] == -1 and held is not None and held["isr"] == [other]
            )  # fmt: skip

        wait_until(settled, WAIT, f"the controller to shrink the ISRs without broker {victim}")
        zk.create(f"/admin/delete_topics/{doomed}")  # what TopicCommand / AdminZkClient.deleteTopic writes
        code, report = check(capsys, "--zookeeper", connect)
        assert code == 1
        # As Kafka's tool lists them: an offline partition is also under min ISR, and a topic queued for
        # deletion still counts (core.snapshot.health.partition_health).
        found = keys(report, topics)
        assert {k for k in found if k[1] != doomed} == {
            ("offline_partition", alone, 0),
            ("under_min_isr", alone, 0),
            ("under_replicated", shared, 0),
            ("under_replicated", shared, 1),
            ("preferred_leader_not_leader", shared, 0),
        }
        assert_held(found, doomed)
        by_key = {(f["check"], f["topic"], f["partition"]): f for f in mine(report, topics)}
        offline = by_key[("offline_partition", alone, 0)]
        assert offline["severity"] == "error" and offline["path"] == f"/brokers/topics/{alone}/partitions/0/state"
        assert offline["evidence"] == {
            "leader": -1,
            "isr": [victim],
            "replicas": [victim],
            "offline_replicas": [victim],
        }
        under = by_key[("under_replicated", shared, 0)]
        assert under["evidence"]["offline_replicas"] == [victim] and under["evidence"]["isr"] == [other]
        stuck = by_key[("deletion_stuck", doomed, None)]
        assert stuck["evidence"]["reasons"] == ["offline_replicas"]
        assert stuck["evidence"]["offline_replicas"] == [victim]
        assert stuck["path"] == f"/admin/delete_topics/{doomed}"
        assert report["summary"]["by_check"]["offline_partition"] >= 1

        # Both engines on one snapshot of this state, through kzc check (Spark: the run's warm worker).
        snapshot = tmp_path / "outage.jsonl"
        assert main(["snapshot", "--zookeeper", connect, "-o", str(snapshot)]) == 0
        capsys.readouterr()
        local_code, local = check(capsys, "--snapshot", str(snapshot))
        spark_code = main(["check", "--json", "--snapshot", str(snapshot), "--engine", "spark"])
        out, err = capsys.readouterr()
        spark = json.loads(out)
        assert spark_code == local_code == 1, err
        assert spark["findings"] == local["findings"]
        assert spark["summary"]["engine"] == "spark" and local["summary"]["engine"] == "local"
        # The snapshot is a later read: the controller may have taken the queued topic offline in between.
        later = keys(local, topics)
        assert {k for k in later if k[1] != doomed} == {k for k in found if k[1] != doomed}
        assert_held(later, doomed)
    finally:
        sandbox.start_broker(victim)

    def recovered() -> bool:
        gone = not zk.exists(f"/brokers/topics/{doomed}") and not zk.exists(f"/admin/delete_topics/{doomed}")
        p0, p1, lonely = state(zk, shared, 0), state(zk, shared, 1), state(zk, alone, 0)
        return (
            gone and p0 is not None and len(p0["isr"]) == 2 and p1 is not None and len(p1["isr"]) == 2
            and lonely is not None and lonely["leader"] == victim
        )  # fmt: skip

    wait_until(recovered, WAIT, f"broker {victim} back in the ISRs and the deletion of {doomed} done")
    _, after = check(capsys, "--zookeeper", connect)
    assert {f["severity"] for f in mine(after, topics)} <= {"info"}, mine(after, topics)
    assert keys(after, topics) <= {("preferred_leader_not_leader", shared, 0)}
    delete_topics(sandbox, shared, alone)


def test_zookeeper_edited_behind_the_controllers_back_differs_from_what_brokers_serve(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    create(sandbox, zk, unique_name, [[1, 2, 3], [2, 3, 1]])
    info = sandbox.info()
    where = ("--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers)
    code, report = check(capsys, *where, "--only", "metadata_mismatch")
    assert code == 0 and keys(report, {unique_name}) == set()
    assert report["summary"]["notes"] == [] and list(report["summary"]["by_check"]) == ["metadata_mismatch"]
    assert {"snapshot", "broker_metadata", "load", "checks", "total"} <= set(report["timings"])
    # The controller does not watch state znodes: an ISR written here is not what the brokers serve.
    path = f"/brokers/topics/{unique_name}/partitions/1/state"
    original = json.loads(zk.get(path)[0])
    zk.set(path, json.dumps({**original, "isr": [original["leader"]]}).encode())
    try:
        code, report = check(capsys, *where, "--only", "metadata_mismatch,under_replicated")
        assert keys(report, {unique_name}) == {
            ("metadata_mismatch", unique_name, 1),
            ("under_replicated", unique_name, 1),
        }
        (mismatch,) = [f for f in mine(report, {unique_name}) if f["check"] == "metadata_mismatch"]
        assert mismatch["evidence"]["differs"] == ["isr"]
        assert mismatch["evidence"]["zk_isr"] == [original["leader"]]
        assert mismatch["evidence"]["served_isr"] == sorted(original["isr"])
        assert code == 0  # both are warnings
    finally:
        zk.set(path, json.dumps(original).encode())
    delete_topics(sandbox, unique_name)


def test_a_live_controller_drops_a_reassignment_of_a_missing_topic_so_nothing_lingers(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    request = {"version": 1, "partitions": [{"topic": f"{unique_name}-missing", "partition": 0, "replicas": [1]}]}
    wait_until(lambda: not zk.exists("/admin/reassign_partitions"), WAIT, "no other reassignment in flight")
    zk.create("/admin/reassign_partitions", json.dumps(request).encode())
    try:
        wait_until(lambda: not zk.exists("/admin/reassign_partitions"), WAIT, "the controller to drop the request")
    finally:
        if zk.exists("/admin/reassign_partitions"):
            zk.delete("/admin/reassign_partitions")
    _, report = check(capsys, "--zookeeper", sandbox.info().zookeeper, "--only", "invalid_reassignment_request")
    assert keys(report, {f"{unique_name}-missing"}) == set()


# ---- hand-written znodes in a chroot ----------------------------------------------------------------------


def broker(broker_id: int) -> bytes:
    return json.dumps(
        {
            "version": 5,
            "host": "127.0.0.1",
            "port": 19090 + broker_id,
            "jmx_port": -1,
            "timestamp": "1700000000000",
            "rack": f"r{broker_id}",
            "endpoints": [f"PLAINTEXT://127.0.0.1:{19090 + broker_id}"],
            "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
            "features": {},
        }
    ).encode()


def topic(partitions: dict[int, list[int]]) -> bytes:
    return json.dumps(
        {
            "version": 3,
            "partitions": {str(p): r for p, r in partitions.items()},
            "adding_replicas": {},
            "removing_replicas": {},
            "topic_id": "AAAAAAAAAAAAAAAAAAAAAQ",
        }
    ).encode()


def leader_and_isr(leader: int, isr: list[int]) -> bytes:
    return json.dumps({"controller_epoch": 3, "leader": leader, "version": 1, "leader_epoch": 0, "isr": isr}).encode()


RF3 = {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}


def healthy_tree() -> dict[str, bytes | None]:
    """A Kafka 3.9-shaped cluster: brokers 1-3 on racks r1-r3, controller 1, 'orders' and 'payments' in sync
    at their preferred leaders. ``None`` data: the znode is not there."""
    tree: dict[str, bytes | None] = {
        "/cluster/id": b'{"version":"1","id":"AAAAAAAAAAAAAAAAAAAAAQ"}',
        "/controller": b'{"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1}',
        "/controller_epoch": b"3",
        "/admin/delete_topics": b"",
        "/config/changes": b"",
        "/isr_change_notification": b"",
    }
    for b in (1, 2, 3):
        tree[f"/brokers/ids/{b}"] = broker(b)
    for name in ("orders", "payments"):
        tree[f"/brokers/topics/{name}"] = topic(RF3)
        tree[f"/config/topics/{name}"] = b'{"version":1,"config":{}}'
        for p, replicas in RF3.items():
            tree[f"/brokers/topics/{name}/partitions/{p}/state"] = leader_and_isr(replicas[0], replicas)
    return tree


def faulty_tree() -> dict[str, bytes | None]:
    tree = healthy_tree()
    tree["/brokers/topics/orders/partitions/0/state"] = leader_and_isr(1, [2, 3])  # leader outside its ISR
    tree["/brokers/topics/orders/partitions/1/state"] = None  # partitions/1 exists, its state does not
    tree["/brokers/topics/orders/partitions/2/state"] = b'{"leader":'  # malformed
    tree["/brokers/topics/broken"] = b"not json"
    tree["/brokers/topics/bad name!"] = topic({0: [1, 2, 3]})
    tree["/brokers/topics/bad name!/partitions/0/state"] = leader_and_isr(1, [1, 2, 3])
    tree["/admin/reassign_partitions"] = (
        b'{"version":1,"partitions":[{"topic":"missing","partition":0,"replicas":[1]}]}'
    )
    tree["/admin/delete_topics/gone"] = b""
    tree["/config/topics/ghost"] = b'{"version":1,"config":{}}'
    return tree


FAULTS: set[Key] = {
    ("leader_not_in_isr", "orders", 0),
    ("under_replicated", "orders", 0),
    ("partition_state_missing", "orders", 1),
    ("unreadable_znode", "orders", 2),
    # A missing or unreadable state znode is an empty ISR and no leader, as Kafka's tool counts it.
    ("offline_partition", "orders", 1),
    ("under_replicated", "orders", 1),
    ("under_min_isr", "orders", 1),
    ("offline_partition", "orders", 2),
    ("under_replicated", "orders", 2),
    ("under_min_isr", "orders", 2),
    ("unreadable_znode", "broken", None),
    ("topic_name_invalid", "bad name!", None),
    ("invalid_reassignment_request", "missing", 0),
    ("stale_deletion_marker", "gone", None),
    ("orphan_topic_config", "ghost", None),
}


@pytest.fixture
def chroot(sandbox: Sandbox, unique_name: str) -> Iterator[tuple[KazooClient, str]]:
    """An empty chroot of the sandbox's ZooKeeper (a client on it, its connect string); removed after."""
    hosts = f"127.0.0.1:{sandbox.info().zookeeper_port}"
    root = KazooClient(hosts=hosts, timeout=10)
    root.start(timeout=30)
    path = f"/kzc-test-{unique_name}"
    root.ensure_path(path)
    client = KazooClient(hosts=hosts + path, timeout=10)
    client.start(timeout=30)
    try:
        yield client, hosts + path
    finally:
        client.stop()
        client.close()
        root.delete(path, recursive=True)
        root.stop()
        root.close()


def write(client: KazooClient, tree: dict[str, bytes | None]) -> None:
    """Create every znode of ``tree`` (parents as empty znodes; ``None``: only its parents)."""
    for path, data in sorted(tree.items()):
        parent = path.rsplit("/", 1)[0]
        if parent:
            client.ensure_path(parent)
        if data is not None:
            if client.exists(path):
                client.set(path, data)
            else:
                client.create(path, data)


def test_a_healthy_cluster_exits_0_with_the_json_shape(
    chroot: tuple[KazooClient, str], capsys: pytest.CaptureFixture[str]
) -> None:
    client, connect = chroot
    write(client, healthy_tree())
    code, report = check(capsys, "--zookeeper", connect)
    assert code == 0
    assert set(report) == {"findings", "summary", "timings"}
    assert report["findings"] == []
    summary = report["summary"]
    assert summary["partitions"] == 6 and summary["engine"] == "local" and summary["notes"] == []
    assert summary["by_check"] == {c: 0 for c in selected(None, with_brokers=False)}
    assert summary["by_severity"] == {"error": 0, "warning": 0, "info": 0}
    assert {"snapshot", "load", "checks", "total"} <= set(report["timings"])
    assert all(isinstance(v, float | int) and v >= 0 for v in report["timings"].values())
    # Brokers that do not answer do not stop the run: metadata_mismatch is skipped and a note says why.
    code, report = check(capsys, "--zookeeper", connect, "--bootstrap-server", "127.0.0.1:1")
    assert code == 0 and report["findings"] == [] and "metadata_mismatch" not in report["summary"]["by_check"]
    (note,) = report["summary"]["notes"]
    assert note.startswith("metadata_mismatch skipped: cannot read metadata from Kafka brokers 127.0.0.1:1")


def test_hand_written_faults_are_found_by_both_engines_through_the_cli(
    chroot: tuple[KazooClient, str], capsys: pytest.CaptureFixture[str]
) -> None:
    client, connect = chroot
    write(client, faulty_tree())
    code, local = check(capsys, "--zookeeper", connect)
    assert code == 1
    assert keys(local) == FAULTS
    by_key = {(f["check"], f["topic"], f["partition"]): f for f in local["findings"]}
    assert by_key[("unreadable_znode", "orders", 2)]["path"] == "/brokers/topics/orders/partitions/2/state"
    assert by_key[("partition_state_missing", "orders", 1)]["path"] == "/brokers/topics/orders/partitions/1/state"
    assert by_key[("leader_not_in_isr", "orders", 0)]["evidence"] == {"leader": 1, "isr": [2, 3]}
    request = by_key[("invalid_reassignment_request", "missing", 0)]
    assert request["path"] == "/admin/reassign_partitions"
    assert request["evidence"] == {"requested": [1], "problems": ["missing_topic"]}
    assert local["summary"]["by_severity"]["error"] == 10  # offline_partition and under_min_isr of 1 and 2 too
    spark_code, spark, err = check_cli("--zookeeper", connect, "--engine", "spark")
    assert spark_code == 1, err
    assert spark["findings"] == local["findings"]
    assert spark["summary"]["partitions"] == local["summary"]["partitions"]
    assert spark["summary"]["by_check"] == local["summary"]["by_check"]
    assert {"spark_start", "load", "checks", "total"} <= set(spark["timings"])


def test_only_runs_the_named_checks(chroot: tuple[KazooClient, str], capsys: pytest.CaptureFixture[str]) -> None:
    client, connect = chroot
    write(client, faulty_tree())
    code, report = check(capsys, "--zookeeper", connect, "--only", "leader_not_in_isr,orphan_topic_config")
    assert code == 1
    assert keys(report) == {("leader_not_in_isr", "orders", 0), ("orphan_topic_config", "ghost", None)}
    assert report["summary"]["by_check"] == {"leader_not_in_isr": 1, "orphan_topic_config": 1}
    code, report = check(capsys, "--zookeeper", connect, "--only", "orphan_topic_config,stale_deletion_marker")
    assert code == 0  # warnings only
    assert keys(report) == {("orphan_topic_config", "ghost", None), ("stale_deletion_marker", "gone", None)}


def test_no_controller_and_a_snapshot_file_give_the_same_findings_as_the_live_tree(
    chroot: tuple[KazooClient, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    client, connect = chroot
    tree = healthy_tree()
    tree["/admin/delete_topics/payments"] = b""
    del tree["/controller"]
    write(client, tree)
    code, live = check(capsys, "--zookeeper", connect)
    assert code == 1
    assert keys(live) == {("no_controller", None, None), ("deletion_stuck", "payments", None)}
    (stuck,) = [f for f in live["findings"] if f["check"] == "deletion_stuck"]
    assert stuck["evidence"]["reasons"] == ["no_controller"]
    snapshot = tmp_path / "snapshot.jsonl"
    assert main(["snapshot", "--zookeeper", connect, "-o", str(snapshot)]) == 0
    capsys.readouterr()
    code, from_file = check(capsys, "--snapshot", str(snapshot))
    assert code == 1 and keys(from_file) == keys(live)


# ---- exit code 2: the checks could not run --------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--zookeeper", "127.0.0.1:1", "--session-timeout", "2"], "cannot connect to ZooKeeper 127.0.0.1:1"),
        (["--zookeeper", "127.0.0.1:1", "--only", "offline_partition,nope"], "unknown check id(s) nope"),
        (["--zookeeper", "127.0.0.1:1", "--only", "metadata_mismatch"], "metadata_mismatch needs --bootstrap-server"),
        (["--snapshot", "/nonexistent/kzc-snapshot.jsonl"], "no such file"),
    ],
    ids=["zookeeper_unreachable", "unknown_check", "metadata_mismatch_without_brokers", "missing_snapshot"],
)
def test_exit_code_2_when_the_checks_cannot_run(argv: list[str], message: str) -> None:
    done = subprocess.run([KZC, "check", "--engine", "local", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


# ---- kzc check --contexts: the fleet ------------------------------------------------------------------------


@pytest.mark.usefixtures("lent_spark")
def test_contexts_all_attributes_each_finding_to_its_cluster_on_both_engines(
    sandbox: Sandbox, chroot: tuple[KazooClient, str], unique_name: str, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    client, connect = chroot
    mirror = f"mirror-{unique_name}"
    tree = faulty_tree()
    tree[f"/brokers/topics/{mirror}"] = topic(RF3)  # 3 partitions here, 1 in the sandbox
    for p, replicas in RF3.items():
        tree[f"/brokers/topics/{mirror}/partitions/{p}/state"] = leader_and_isr(replicas[0], replicas)
    write(client, tree)
    with zk_client(sandbox.info().zookeeper) as zk:
        create(sandbox, zk, mirror, [[1]])
    config = tmp_path / "config.toml"
    config.write_text(
        f'[contexts.sandbox]\nzookeeper = "{sandbox.info().zookeeper}"\n'
        f'[contexts.faulty]\nzookeeper = "{connect}"\n'
        f'[contexts.down]\nzookeeper = "127.0.0.1:{free_port()}/kafka"\n'
        '[contexts.typo]\nzookeper = "127.0.0.1:1"\n'
    )
    try:
        reports = {}
        for engine in ("local", "spark"):
            code = main(["check", "--contexts", "all", "--config", str(config), "--engine", engine, "--json"])
            out, err = capsys.readouterr()
            assert code == 1, err
            reports[engine] = json.loads(out)
    finally:
        delete_topics(sandbox, mirror)
    local, spark = reports["local"], reports["spark"]
    assert spark["findings"] == local["findings"] and spark["fleet_findings"] == local["fleet_findings"]
    assert (local["engine"], spark["engine"]) == ("local", "spark")
    clusters = {c["context"]: c for c in local["clusters"]}
    states = [clusters[c]["state"] for c in ("down", "faulty", "sandbox", "typo")]
    assert states == ["unreachable", "checked", "checked", "config error"]
    assert "unknown key(s) zookeper" in clusters["typo"]["reason"]
    assert "127.0.0.1" in clusters["down"]["reason"] and clusters["down"]["summary"] is None
    assert clusters["faulty"]["summary"]["partitions"] == 10  # orders, payments, the mirror: 3 each; bad name!: 1
    faulty = {"context": "faulty", "findings": [f for f in local["findings"] if f["context"] == "faulty"]}
    assert keys(faulty) == FAULTS
    planted = {topic for _, topic, _ in FAULTS} | {mirror}
    assert not [f for f in local["findings"] if f["context"] != "faulty" and f["topic"] in planted]
    fleet = {(f["check"], f["topic"]): f for f in local["fleet_findings"]}
    differs = fleet[("fleet_mirror_differs", mirror)]
    assert differs["contexts"] == ["faulty", "sandbox"] and differs["evidence"]["partitions"] == [3, 1]
    shared = [f for f in local["fleet_findings"] if f["check"] == "fleet_broker_id_shared"]
    assert shared and all(f["contexts"] == ["faulty", "sandbox"] and f["broker"] in (1, 2, 3) for f in shared)
