"""``kzc describe``, ``kzc zk ls|get`` and ``kzc snapshot`` against the sandbox, run as the CLI runs."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic
from kazoo.client import KazooClient

from cli.main import main
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.snapshot.jsonl.read import read_snapshot_file


def kzc(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``kzc argv`` in-process; return the exit code, stdout and stderr."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def kzc_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = kzc(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def create_topic(sandbox: Sandbox, zk: KazooClient, name: str, partitions: int = 3) -> None:
    admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
    admin.create_topics([NewTopic(name, partitions, 3)])[name].result(timeout=60)
    del admin
    wait_until(lambda: full_isr(zk, name, partitions), 60, f"{name} online with full ISRs")


def isrs(zk: KazooClient, topic: str, partitions: int) -> list[list[int]] | None:
    found = []
    for p in range(partitions):
        path = f"/brokers/topics/{topic}/partitions/{p}/state"
        if not zk.exists(path):
            return None
        found.append(json.loads(zk.get(path)[0])["isr"])
    return found


def only_on(zk: KazooClient, broker: int) -> int:
    """Partitions of the whole cluster whose every replica is on ``broker`` (other tests' topics too)."""
    count = 0
    for topic in zk.get_children("/brokers/topics"):
        assignment = json.loads(zk.get(f"/brokers/topics/{topic}")[0])["partitions"]
        count += sum(1 for replicas in assignment.values() if set(replicas) == {broker})
    return count


def settled(zk: KazooClient) -> bool:
    """Every partition of the cluster whose replicas are all registered has all of them in its ISR: the restarts of
    the tests before (the session sandbox is shared) have caught up, so which partitions a kill strands is known."""
    alive = {int(b) for b in zk.get_children("/brokers/ids")}
    for topic in zk.get_children("/brokers/topics"):
        assignment = json.loads(zk.get(f"/brokers/topics/{topic}")[0])["partitions"]
        for partition, replicas in assignment.items():
            state = zk.exists(f"/brokers/topics/{topic}/partitions/{partition}/state")
            if not set(replicas) <= alive or state is None:
                continue
            isr = json.loads(zk.get(f"/brokers/topics/{topic}/partitions/{partition}/state")[0])["isr"]
            if set(isr) != set(replicas):
                return False
    return True


def led_by(zk: KazooClient, broker: int) -> int:
    """Partitions of the whole cluster whose state names ``broker`` as leader: none once the controller has handled
    its death (a new leader, or -1 where no other replica is in the ISR)."""
    count = 0
    for topic in zk.get_children("/brokers/topics"):
        partitions = zk.exists(f"/brokers/topics/{topic}/partitions") and zk.get_children(
            f"/brokers/topics/{topic}/partitions"
        )
        for partition in partitions or []:
            state = f"/brokers/topics/{topic}/partitions/{partition}/state"
            count += bool(zk.exists(state)) and json.loads(zk.get(state)[0])["leader"] == broker
    return count


def full_isr(zk: KazooClient, topic: str, partitions: int) -> bool:
    current = isrs(zk, topic, partitions)
    return current is not None and all(len(isr) == 3 for isr in current)


def test_describe_json_shows_controller_brokers_and_counts(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    create_topic(sandbox, zk, unique_name, 4)
    described = kzc_json(capsys, "describe", "--zookeeper", sandbox.info().zookeeper)
    epoch = int(zk.get("/controller_epoch")[0])
    controller = json.loads(zk.get("/controller")[0])["brokerid"]
    assert described["controller"]["broker_id"] == controller and described["controller"]["epoch"] == epoch
    brokers = {b["id"]: b for b in described["brokers"]}
    assert sorted(brokers) == [1, 2, 3]
    for info in sandbox.info().brokers:
        assert brokers[info.id]["endpoints"] == [f"PLAINTEXT://127.0.0.1:{info.port}"]
        assert brokers[info.id]["rack"] == info.rack and brokers[info.id]["registered_since_ms"] > 0
    topics = zk.get_children("/brokers/topics")
    assert described["topics"] == len(topics) and unique_name in topics
    partitions = sum(len(json.loads(zk.get(f"/brokers/topics/{t}")[0])["partitions"]) for t in topics)
    assert described["partitions"] == partitions
    assert described["cluster_id"] == json.loads(zk.get("/cluster/id")[0])["id"]
    assert described["health"]["offline_partitions"] == 0 and described["health"]["unreadable_znodes"] == 0


def test_describe_text_names_the_controller_and_every_broker(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = kzc(capsys, "describe", "--zookeeper", sandbox.info().zookeeper)
    controller = json.loads(zk.get("/controller")[0])["brokerid"]
    epoch = int(zk.get("/controller_epoch")[0])
    assert code == 0
    assert f"Controller   broker {controller}, epoch {epoch}, since " in out
    for info in sandbox.info().brokers:
        assert f"PLAINTEXT://127.0.0.1:{info.port}" in out
    assert "Brokers      3 registered" in out and "Health       0 offline" in out


def test_a_killed_broker_shows_in_describe_until_it_is_back(
    sandbox: Sandbox, zk: KazooClient, unique_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    create_topic(sandbox, zk, unique_name, 3)
    wait_until(lambda: settled(zk), 120, "every partition's ISR to hold all its replicas")
    stranded = only_on(zk, 3)  # these go offline with broker 3; every other partition keeps a live leader
    sandbox.kill_broker(3)
    try:
        wait_until(lambda: "3" not in zk.get_children("/brokers/ids"), 60, "broker 3 to leave /brokers/ids")
        wait_until(
            lambda: all(3 not in isr for isr in isrs(zk, unique_name, 3) or [[3]]), 60, "the ISRs to drop broker 3"
        )
        # The controller writes the other topics' new leaders too, in batches: until it has, their partitions are
        # offline for a moment (21 counted against 3 in CI).
        wait_until(lambda: led_by(zk, 3) == 0, 60, "no partition of the cluster led by broker 3")
        described = kzc_json(capsys, "describe", "--zookeeper", sandbox.info().zookeeper)
        assert [b["id"] for b in described["brokers"]] == [1, 2]
        assert described["missing_brokers"] == [3]  # named, not just "2 registered"
        assert described["controller"]["broker_id"] in (1, 2)
        assert described["health"]["under_replicated_partitions"] >= 3  # at least this topic's partitions
        assert described["health"]["offline_partitions"] == stranded  # this topic's ISRs kept a live leader
    finally:
        sandbox.start_broker(3)
    wait_until(lambda: full_isr(zk, unique_name, 3), 120, "broker 3 back in the ISRs")
    assert [b["id"] for b in kzc_json(capsys, "describe", "--zookeeper", sandbox.info().zookeeper)["brokers"]] == [
        1,
        2,
        3,
    ]


def test_zk_ls_and_get_show_children_and_decoded_znodes(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    connect = sandbox.info().zookeeper
    listed = kzc_json(capsys, "zk", "ls", "/brokers/ids", "--zookeeper", connect)
    assert listed == {"path": "/brokers/ids", "num_children": 3, "listed": True, "offset": 0,
                      "children": ["1", "2", "3"], "more": False}  # fmt: skip
    code, out, _ = kzc(capsys, "zk", "ls", "/brokers/ids", "--zookeeper", connect, "--offset", "1", "--limit", "1")
    assert (code, out) == (0, "2\n")
    shown = kzc_json(capsys, "zk", "get", "/controller", "--zookeeper", connect)
    assert shown["kafka_format"] == "controller" and shown["readable"] is True and shown["data_kind"] == "kafka"
    assert {row["field"] for row in shown["explained"]} >= {"version", "brokerid"}
    assert shown["stat"]["ephemeral_owner"] != 0 and shown["stat"]["ctime"].endswith("UTC")
    code, out, _ = kzc(capsys, "zk", "get", "/brokers/ids/2", "--zookeeper", connect)
    assert code == 0 and out.startswith("/brokers/ids/2  (Kafka broker registration)")
    assert "acl:\n  world:anyone: cdrwa" in out and '"rack": "r2"' in out


def test_snapshot_writes_a_file_that_reads_back_and_describes_the_same(
    sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "cluster.jsonl"
    written = kzc_json(capsys, "snapshot", "-o", str(target), "--zookeeper", sandbox.info().zookeeper)
    snap = read_snapshot_file(target)
    assert (written["brokers"], written["topics"], written["partitions"]) == (
        3,
        len(snap.topics),
        snap.partition_count,
    )
    assert written["zxid"] == snap.zxid and written["controller_epoch"] == snap.controller_epoch
    assert written["records"] == len(target.read_text().splitlines())
    header = json.loads(target.read_text().splitlines()[0])
    assert header["kind"] == "header" and header["format"] == "kzc-snapshot" and header["version"] == 2
    offline = kzc_json(capsys, "describe", "--snapshot", str(target))
    assert (offline["topics"], offline["partitions"], offline["zxid"]) == (
        written["topics"],
        written["partitions"],
        written["zxid"],
    )
    code, out, _ = kzc(capsys, "snapshot", "-o", str(tmp_path / "again.jsonl"), "--zookeeper", sandbox.info().zookeeper)
    assert code == 0 and out.startswith(f"wrote {tmp_path / 'again.jsonl'}: 3 brokers")


def test_errors_are_one_line_with_an_exit_code(
    sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    connect = sandbox.info().zookeeper
    code, _, err = kzc(capsys, "zk", "get", "/no/such/znode", "--zookeeper", connect)
    assert code == 1 and err == "kzc: error: znode /no/such/znode does not exist (under the chroot /kafka)\n"
    code, _, err = kzc(capsys, "zk", "ls", "brokers", "--zookeeper", connect)
    assert code == 2 and err.count("\n") == 1 and "must start with '/'" in err
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, out, err = kzc(capsys, "describe", "--zookeeper", f"127.0.0.1:{port}", "--session-timeout", "2", "--json")
    assert code == 1 and "cannot connect to ZooKeeper" in json.loads(out)["error"] and err.count("\n") == 1
    (tmp_path / "junk.jsonl").write_text("hello\n")
    code, _, err = kzc(capsys, "describe", "--snapshot", str(tmp_path / "junk.jsonl"))
    assert code == 2 and "is not a kzc snapshot" in err
