"""The fix actions end to end on a real 4-broker sandbox (its own cluster: brokers 1-4 on racks r1-r4):
``kzc reassign`` (move everything off a broker, throttled, followed to the end), ``kzc elect preferred``,
``kzc config set/delete`` on both paths, and every refusal exiting 2 with nothing written."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from cli.main import main
from core.audit import read_audit_log
from core.polling import wait_until
from core.sandbox.cluster import Sandbox
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A cluster of this module's own: ZooKeeper + 4 brokers (ids 1-4, racks r1-r4)."""
    box = Sandbox.up(tmp_path_factory.mktemp("four"), brokers=4, racks=["r1", "r2", "r3", "r4"], timeout=240)
    try:
        yield box
    finally:
        box.down()


@pytest.fixture(scope="module")
def zk4(four: Sandbox) -> Iterator[KazooClient]:
    with zk_client(four.info().zookeeper) as client:
        yield client


@pytest.fixture(autouse=True)
def audit_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(path))
    return path


@pytest.fixture(autouse=True)
def no_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))


def zk_args(box: Sandbox) -> list[str]:
    return ["--zookeeper", box.info().zookeeper]


def admin_args(box: Sandbox) -> list[str]:
    return [*zk_args(box), "--bootstrap-server", box.info().bootstrap_servers]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    """Run kzc in-process; (exit code, stdout as JSON when it is JSON, stderr)."""
    code = main(list(argv))
    captured = capsys.readouterr()
    try:
        out: Any = json.loads(captured.out)
    except json.JSONDecodeError:
        out = captured.out
    return code, out, captured.err


def partitions(zk: KazooClient, topic: str) -> dict[int, list[int]]:
    data, _ = zk.get(f"/brokers/topics/{topic}")
    return {int(p): r for p, r in json.loads(data)["partitions"].items()}


def state(zk: KazooClient, topic: str, partition: int) -> dict[str, Any]:
    data, _ = zk.get(f"/brokers/topics/{topic}/partitions/{partition}/state")
    value: dict[str, Any] = json.loads(data)
    return value


def config(zk: KazooClient, path: str) -> dict[str, str]:
    try:
        data, _ = zk.get(path)
    except NoNodeError:
        return {}
    value: dict[str, str] = json.loads(data)["config"]
    return value


def snapshot(zk: KazooClient) -> dict[str, Any]:
    """What a refused mutation must leave alone: admin requests, configs and their notifications."""
    result: dict[str, Any] = {}
    for root in ("/admin", "/config"):
        stack = [root]
        while stack:
            path = stack.pop()
            try:
                data, stat = zk.get(path)
                children = zk.get_children(path)
            except NoNodeError:
                continue
            result[path] = (data, stat.version)
            stack += [f"{path}/{c}" for c in children]
    return result


def create_topic(capsys: pytest.CaptureFixture[str], box: Sandbox, topic: str, partitions_: int, rf: int) -> None:
    code, _, err = run(
        capsys, "topic", "create", topic, "--partitions", str(partitions_), "--replication-factor", str(rf),
        *zk_args(box), "--yes", "--wait", "--json",
    )  # fmt: skip
    assert code == 0, err


def produce(box: Sandbox, topic: str, count: int, size: int = 1000, partition: int = 0) -> None:
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "linger.ms": 5})
    for _ in range(count):
        producer.produce(topic, value=b"x" * size, partition=partition)
    assert producer.flush(30) == 0


# ---- reassignment -------------------------------------------------------------------------------------


def test_move_everything_off_a_broker_lands_exactly_the_plan_in_full_isr_and_removes_throttles(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, tmp_path: Path, audit_file: Path
) -> None:
    create_topic(capsys, four, "move-a", 8, 2)
    create_topic(capsys, four, "move-b", 4, 3)
    produce(four, "move-a", 200)
    plan_file = tmp_path / "plan.json"
    code, plan, err = run(capsys, "reassign", "plan", "--move-off", "4", *zk_args(four), "--json", "-o", str(plan_file))
    assert code == 0, err
    assert json.loads(plan_file.read_text()) == plan
    moving = {(e["topic"], e["partition"]): e for e in plan["partitions"]}
    before = {t: partitions(zk4, t) for t in ("move-a", "move-b")}
    expected_keys = {(t, p) for t, table in before.items() for p, r in table.items() if 4 in r}
    assert set(moving) == expected_keys
    for (topic, partition), entry in moving.items():
        assert entry["current"] == before[topic][partition]
        assert 4 not in entry["replicas"]

    code, out, err = run(
        capsys, "reassign", "apply", str(plan_file), "--throttle", "50000000", "--yes", "--wait", "--timeout", "120",
        *zk_args(four), "--json",
    )  # fmt: skip
    assert code == 0, err
    assert out["progress"]["done"] is True
    for (topic, partition), entry in moving.items():
        assert partitions(zk4, topic)[partition] == entry["replicas"]
        assert sorted(state(zk4, topic, partition)["isr"]) == sorted(entry["replicas"])
    for topic, table in before.items():
        untouched = {p: r for p, r in table.items() if (topic, p) not in moving}
        assert {p: partitions(zk4, topic)[p] for p in untouched} == untouched
    assert not zk4.exists("/admin/reassign_partitions")
    for broker in (1, 2, 3, 4):
        assert not any("throttled" in k for k in config(zk4, f"/config/brokers/{broker}"))
    for topic in ("move-a", "move-b"):
        assert not any("throttled" in k for k in config(zk4, f"/config/topics/{topic}"))
    lines = read_audit_log(audit_file)
    applied = [line for line in lines if line["operation"] == "reassign apply"]
    assert applied[-1]["outcome"] == "applied"
    assert applied[-1]["details"]["before"]["partitions"] == [{k: v for k, v in e.items()} for e in plan["partitions"]]
    assert [line["operation"] for line in lines][-1] == "reassign clear-throttles"


def test_reassignment_refusals_exit_2_and_write_nothing(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, tmp_path: Path, audit_file: Path
) -> None:
    create_topic(capsys, four, "refuse-r", 2, 2)
    current = partitions(zk4, "refuse-r")[0]
    target = [b for b in (1, 2, 3, 4) if b not in current][:2]
    unknown = tmp_path / "unknown.json"
    unknown.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "refuse-r", "partition": 0, "replicas": [1, 99]}]})
    )
    good = tmp_path / "good.json"
    good.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "refuse-r", "partition": 0, "replicas": target}]})
    )
    before = snapshot(zk4)

    code, out, _ = run(capsys, "reassign", "apply", str(unknown), "--yes", *zk_args(four), "--json")
    assert code == 2
    assert out["error"] == "The proposed assignment contains non-existent brokerIDs: 99"
    code, out, _ = run(capsys, "--read-only", "reassign", "apply", str(good), "--yes", *zk_args(four), "--json")
    assert code == 2
    assert "read-only" in out["error"]
    assert snapshot(zk4) == before

    # A reassignment in progress: partition 1 copies 3 MB to a new broker at 1 byte/s until the throttle goes.
    produce(four, "refuse-r", 3000, partition=1)
    slow_target = [b for b in (1, 2, 3, 4) if b not in partitions(zk4, "refuse-r")[1]][:2]
    slow = tmp_path / "slow.json"
    slow.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "refuse-r", "partition": 1, "replicas": slow_target}]})
    )
    code, _, err = run(capsys, "reassign", "apply", str(slow), "--throttle", "1", "--yes", *zk_args(four), "--json")
    assert code == 0, err
    during = snapshot(zk4)
    code, out, _ = run(capsys, "reassign", "apply", str(good), "--yes", *zk_args(four), "--json")
    assert code == 2
    assert out["error"].startswith("Cannot execute because there is an existing partition assignment.")
    assert snapshot(zk4) == during
    code, out, _ = run(capsys, "reassign", "status", *zk_args(four), "--json")
    assert code == 0
    (moving,) = out["partitions"]
    assert (moving["topic"], moving["partition"], moving["phase"]) == ("refuse-r", 1, "adding")
    assert any("throttled.rate=1" in t for t in out["throttles"])
    code, _, err = run(capsys, "reassign", "clear-throttles", "--topic", "refuse-r", "--yes", *zk_args(four))
    assert code == 0, err
    wait_until(lambda: partitions(zk4, "refuse-r")[1] == slow_target and not zk4.exists("/admin/reassign_partitions"),
               120, "the unthrottled reassignment")  # fmt: skip
    lines = read_audit_log(audit_file)
    outcomes = [(line["operation"], line["outcome"]) for line in lines if line["operation"] != "topic create"]
    assert outcomes == [
        ("reassign apply", "refused"), ("reassign apply", "refused"), ("reassign apply", "applied"),
        ("reassign apply", "refused"), ("reassign clear-throttles", "applied"),
    ]  # fmt: skip
