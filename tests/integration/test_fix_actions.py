"""The fix actions end to end on a real 4-broker sandbox (its own cluster: brokers 1-4 on racks r1-r4):
``kzc reassign`` (move everything off a broker, throttled, followed to the end), ``kzc elect preferred``,
``kzc config set/delete`` on both paths, and every refusal exiting 2 with nothing written."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from core.audit import read_audit_log
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import admin_args, config, partitions, state, zk_args
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration

KZC = str(Path(sys.executable).with_name("kzc"))


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A cluster of this module's own: ZooKeeper + 4 brokers (ids 1-4, racks r1-r4)."""
    # No automatic preferred-leader rebalance: the elections these tests check are the ones kzc sends.
    box = Sandbox.up(tmp_path_factory.mktemp("four"), brokers=4, racks=["r1", "r2", "r3", "r4"], timeout=240,
                     broker_config={"auto.leader.rebalance.enable": "false"})  # fmt: skip
    try:
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


@pytest.fixture(scope="module")
def zk4(four: Sandbox) -> Iterator[KazooClient]:
    with zk_client(four.info().zookeeper) as client:
        yield client


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


@pytest.mark.parametrize("via", ["zookeeper", "admin"])
def test_move_everything_off_a_broker_lands_exactly_the_plan_in_full_isr_and_removes_throttles(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, tmp_path: Path, audit_file: Path, via: str
) -> None:
    """Throttles go through ZooKeeper config changes, or IncrementalAlterConfigs with --bootstrap-server."""
    args = admin_args(four) if via == "admin" else zk_args(four)
    names = (f"move-a-{via}", f"move-b-{via}")
    create_topic(capsys, four, names[0], 8, 2)
    create_topic(capsys, four, names[1], 4, 3)
    loaded = next(p for p, r in sorted(partitions(zk4, names[0]).items()) if 4 in r)
    produce(four, names[0], 200, partition=loaded)
    # With --bootstrap-server the plan knows the bytes to copy (DescribeLogDirs): one new replica of the
    # loaded partition (200 messages of 1,000 bytes plus batch overhead); through ZooKeeper alone, why not.
    scope = ["--regex", f"move-.-{via}"]
    code, sized, err = run(capsys, "reassign", "plan", "--move-off", "4", *scope, *admin_args(four), "--json")
    assert code == 0, err
    assert 200_000 <= sized["kzc"]["metrics"]["bytes_to_move"] < 400_000
    plan_file = tmp_path / "plan.json"
    code, plan, err = run(
        capsys, "reassign", "plan", "--move-off", "4", *scope, *zk_args(four), "--json", "-o", str(plan_file)
    )
    assert code == 0, err
    assert json.loads(plan_file.read_text()) == plan
    assert plan["kzc"]["metrics"]["bytes_to_move"] is None
    assert "--bootstrap-server" in plan["kzc"]["metrics"]["bytes_to_move_unknown"]
    assert plan["partitions"] == sized["partitions"]
    moving = {(e["topic"], e["partition"]): e for e in plan["partitions"]}
    before = {t: partitions(zk4, t) for t in names}
    expected_keys = {(t, p) for t, table in before.items() for p, r in table.items() if 4 in r}
    assert set(moving) == expected_keys
    for (topic, partition), entry in moving.items():
        assert entry["current"] == before[topic][partition]
        assert 4 not in entry["replicas"]

    code, out, err = run(
        capsys, "reassign", "apply", str(plan_file), "--throttle", "50000000", "--yes", "--wait", "--timeout", "120",
        *args, "--json",
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
    for topic in names:
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


# ---- leader elections -----------------------------------------------------------------------------------


def leaders(zk: KazooClient, topic: str) -> dict[int, tuple[int, int]]:
    """partition -> (leader, preferred replica)."""
    return {p: (state(zk, topic, p)["leader"], r[0]) for p, r in partitions(zk, topic).items()}


def test_preferred_election_ends_with_every_leader_preferred(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, audit_file: Path
) -> None:
    topics = {"elect-zk": zk_args(four), "elect-admin": admin_args(four)}
    for topic in topics:
        create_topic(capsys, four, topic, 8, 3)
    # Broker 2 leaves and returns: the partitions it led are led by others now.
    four.kill_broker(2)
    wait_until(lambda: all(lead != 2 for t in topics for lead, _ in leaders(zk4, t).values()), 60, "leaders moved")
    four.start_broker(2)
    wait_until(
        lambda: all(2 in state(zk4, t, p)["isr"] for t in topics for p, r in partitions(zk4, t).items() if 2 in r),
        120,
        "broker 2 back in every ISR",
    )
    for topic, args in topics.items():
        assert any(lead != preferred for lead, preferred in leaders(zk4, topic).values())
        code, out, err = run(capsys, "elect", "preferred", "--topic", topic, "--yes", "--wait", *args, "--json")
        assert code == 0, err
        assert out["errors"] == {}
        assert all(c["elected"] for c in out["result"])
        assert all(lead == preferred for lead, preferred in leaders(zk4, topic).values())
        assert not zk4.exists("/admin/preferred_replica_election")
    # Read-only refuses before anything is read for writing; nothing left to elect: no write either.
    before = snapshot(zk4)
    code, out, _ = run(capsys, "--read-only", "elect", "preferred", "--all", "--yes", *zk_args(four), "--json")
    assert code == 2 and "read-only" in out["error"]
    assert snapshot(zk4) == before
    code, out, _ = run(capsys, "elect", "preferred", "--topic", "elect-zk", "--yes", *zk_args(four), "--json")
    assert code == 0 and out["elected"] == []
    operations = [(line["operation"], line["outcome"]) for line in read_audit_log(audit_file)]
    assert operations[-4:] == [
        ("elect preferred", "applied"),
        ("elect preferred", "applied"),
        ("elect preferred", "refused"),
        ("elect preferred", "refused"),
    ]


def test_unclean_election_refuses_a_partition_with_a_leader(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient
) -> None:
    create_topic(capsys, four, "unclean-u", 1, 2)
    before = snapshot(zk4)
    code, out, _ = run(
        capsys, "elect", "unclean", "--topic", "unclean-u", "--partition", "0", *admin_args(four), "--json"
    )
    assert code == 2
    assert "has a leader" in out["error"]
    code, out, _ = run(capsys, "elect", "unclean", "--topic", "unclean-u", "--partition", "0", *zk_args(four), "--json")
    assert code == 2
    assert "needs --bootstrap-server" in out["error"]
    assert snapshot(zk4) == before


# ---- topic configs --------------------------------------------------------------------------------------


def described(box: Sandbox, topic: str) -> dict[str, tuple[str | None, str]]:
    """The topic's non-default configs as the brokers describe them (DescribeConfigs): value, source."""
    from confluent_kafka.admin import AdminClient, ConfigResource

    client = AdminClient({"bootstrap.servers": box.info().bootstrap_servers})
    resource = ConfigResource(ConfigResource.Type.TOPIC, topic)
    entries = client.describe_configs([resource])[resource].result(timeout=30)
    return {e.name: (e.value, str(e.source)) for e in entries.values() if not e.is_default}


@pytest.mark.parametrize("via", ["zookeeper", "admin"])
def test_config_set_and_delete_are_seen_by_the_brokers(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, audit_file: Path, via: str
) -> None:
    topic = f"config-{via}"
    args = admin_args(four) if via == "admin" else zk_args(four)
    create_topic(capsys, four, topic, 1, 2)
    changes_before = len(zk4.get_children("/config/changes"))
    code, out, err = run(
        capsys, "config", "set", topic, "retention.ms=123456", "cleanup.policy=compact", "--yes", *args, "--json"
    )
    assert code == 0, err
    assert out["stored"] == {"retention.ms": "123456", "cleanup.policy": "compact"}
    assert config(zk4, f"/config/topics/{topic}") == out["stored"]
    wait_until(lambda: described(four, topic).get("retention.ms", (None,))[0] == "123456", 30, "the brokers see it")
    if via == "zookeeper":
        # One change notification, as AdminZkClient writes it (the brokers may already have purged older ones).
        assert len(zk4.get_children("/config/changes")) >= min(changes_before, 1)
    code, out, err = run(capsys, "config", "delete", topic, "retention.ms", "--yes", *args, "--json")
    assert code == 0, err
    assert out["stored"] == {"cleanup.policy": "compact"}
    wait_until(lambda: "retention.ms" not in described(four, topic), 30, "the brokers drop it")
    assert described(four, topic)["cleanup.policy"][0] == "compact"
    lines = [line for line in read_audit_log(audit_file) if line["operation"].startswith("config")]
    assert [line["outcome"] for line in lines] == ["applied", "applied"]
    assert lines[0]["details"]["before"]["config"] == {}
    assert lines[1]["details"]["before"]["config"] == {"retention.ms": "123456", "cleanup.policy": "compact"}


def test_config_refusals_exit_2_and_write_nothing(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, audit_file: Path
) -> None:
    create_topic(capsys, four, "config-refuse", 1, 1)
    before = snapshot(zk4)
    cases = [
        (["config", "set", "config-refuse", "segment.bytes=5"], zk_args(four), "Invalid value 5 for configuration"),
        (["config", "set", "config-refuse", "segment.bytes=5"], admin_args(four), "Invalid value 5 for configuration"),
        (["config", "set", "config-refuse", "no.such=1"], zk_args(four), "Unknown topic config name: no.such"),
        (["config", "delete", "config-refuse", "retention.ms"], zk_args(four), "Invalid config(s): retention.ms"),
        (["config", "set", "missing-topic", "retention.ms=1"], zk_args(four), "Topic 'missing-topic' does not exist."),
        (["--read-only", "config", "set", "config-refuse", "retention.ms=1"], zk_args(four), "read-only"),
    ]
    for argv, args, message in cases:
        code, out, _ = run(capsys, *argv, "--yes", *args, "--json")
        assert code == 2, argv
        assert message in out["error"], argv
    assert snapshot(zk4) == before
    outcomes = [line["outcome"] for line in read_audit_log(audit_file) if line["operation"].startswith("config")]
    assert outcomes == ["refused"] * len(cases)


def test_cancel_reverts_a_reassignment_in_progress_and_removes_its_throttles(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, tmp_path: Path, audit_file: Path
) -> None:
    create_topic(capsys, four, "cancel-c", 1, 2)
    produce(four, "cancel-c", 3000)
    original = partitions(zk4, "cancel-c")[0]
    target = [b for b in (1, 2, 3, 4) if b not in original]
    slow = tmp_path / "slow.json"
    slow.write_text(
        json.dumps({"version": 1, "partitions": [{"topic": "cancel-c", "partition": 0, "replicas": target}]})
    )
    code, _, err = run(capsys, "reassign", "apply", str(slow), "--throttle", "1", "--yes", *zk_args(four), "--json")
    assert code == 0, err
    # ZooKeeper alone cannot cancel: exit 2, nothing written.
    before = snapshot(zk4)
    code, out, _ = run(capsys, "reassign", "cancel", "--yes", *zk_args(four), "--json")
    assert code == 2
    assert out["error"].startswith("ZooKeeper offers no cancel")
    assert snapshot(zk4) == before
    code, out, err = run(capsys, "reassign", "cancel", "--yes", *admin_args(four), "--json")
    assert code == 0, err
    assert out["cancelled"] == ["cancel-c-0"]
    wait_until(lambda: partitions(zk4, "cancel-c")[0] == original, 60, "the original replicas back")
    wait_until(lambda: not zk4.exists("/admin/reassign_partitions"), 60, "the request gone")
    for broker in (1, 2, 3, 4):
        assert not any("throttled" in k for k in config(zk4, f"/config/brokers/{broker}"))
    assert not any("throttled" in k for k in config(zk4, "/config/topics/cancel-c"))
    lines = [line for line in read_audit_log(audit_file) if line["operation"] == "reassign cancel"]
    assert [line["outcome"] for line in lines] == ["refused", "applied"]
    assert lines[-1]["details"]["before"]["partitions"][0]["target"] == target


def test_the_console_backend_moves_off_a_broker_like_the_cli(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, audit_file: Path
) -> None:
    from core.audit import AuditLog
    from core.config import ConnectionSettings
    from core.connect import parse_zookeeper
    from core.console.fixes import ReassignActions
    from core.zookeeper.session import ZkSession

    create_topic(capsys, four, "console-m", 4, 2)
    session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(four.info().zookeeper)))
    session.start()
    try:
        actions = ReassignActions(session, None, session.settings, AuditLog("test"))
        plan = actions.plan_move_off([3])
        assert plan.moves and all(3 not in m.target for m in plan.moves)
        actions.apply(plan, 10_000_000)
        wait_until(lambda: actions.progress(plan).done, 120, "the console's reassignment")
        assert actions.finish(plan)
        for move in plan.moves:
            assert partitions(zk4, move.topic)[move.partition] == list(move.target)
    finally:
        session.stop()
    operations = [(line["operation"], line["outcome"]) for line in read_audit_log(audit_file)]
    assert operations[-2:] == [("reassign apply", "applied"), ("reassign clear-throttles", "applied")]


def in_terminal(argv: list[str], answer: str, env: dict[str, str]) -> tuple[int, str]:
    """Run kzc with a pseudo-terminal as stdin and type ``answer``; (exit code, stderr)."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen(
            [KZC, *argv], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
        )
        os.write(master, (answer + "\n").encode())  # the terminal buffers the line until kzc reads it
        _, err = process.communicate(timeout=120)
    finally:
        os.close(slave)
        os.close(master)
    return process.returncode, err


def test_unclean_election_names_the_loss_and_elects_after_the_partition_is_typed(
    capsys: pytest.CaptureFixture[str], four: Sandbox, zk4: KazooClient, audit_file: Path
) -> None:
    """Runs last: it stops two brokers and starts them again."""
    create_topic(capsys, four, "unclean-x", 1, 2)
    first, second = partitions(zk4, "unclean-x")[0]
    produce(four, "unclean-x", 10)
    # The follower goes, then the leader: the partition has no leader and its last ISR is [first].
    four.kill_broker(second)
    wait_until(lambda: state(zk4, "unclean-x", 0)["isr"] == [first], 60, "the ISR shrunk to the leader")
    four.kill_broker(first)
    wait_until(lambda: state(zk4, "unclean-x", 0)["leader"] == -1, 60, "no leader")
    four.start_broker(second)
    try:
        code, out, err = run(
            capsys,
            "elect",
            "unclean",
            "--topic",
            "unclean-x",
            "--partition",
            "0",
            "--dry-run",
            *admin_args(four),
            "--json",
        )
        assert code == 0, err
        assert (out["new_leader"], out["last_isr"], out["loses_data"]) == (second, [first], True)
        env = {**os.environ, "KZC_AUDIT_LOG": str(audit_file)}
        argv = ["elect", "unclean", "--topic", "unclean-x", "--partition", "0", *admin_args(four)]
        code, err = in_terminal(argv, "unclean-x", env)
        assert code == 1 and "Type the partition (unclean-x-0) to elect unclean:" in err
        assert state(zk4, "unclean-x", 0)["leader"] == -1
        code, err = in_terminal(argv, "unclean-x-0", env)
        assert code == 0, err
        wait_until(lambda: state(zk4, "unclean-x", 0)["leader"] == second, 60, "the unclean leader")
    finally:
        four.start_broker(first)
    outcomes = [line["outcome"] for line in read_audit_log(audit_file) if line["operation"] == "elect unclean"]
    assert outcomes == ["dry-run", "cancelled", "applied"]
