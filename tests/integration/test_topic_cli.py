"""``kzc topic create|expand|delete`` end to end on the sandbox: JSON output equals what lands in ZooKeeper,
dry runs write nothing, confirmation is typed in a terminal (or ``--yes``), refusals exit 2 with one line,
stuck deletions are explained, and every attempt appends one audit line."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from core.audit import read_audit_log
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run

pytestmark = pytest.mark.integration

VIAS = ["admin", "zookeeper"]
KZC = str(Path(sys.executable).with_name("kzc"))


def cluster(sandbox: Sandbox, via: str) -> list[str]:
    info = sandbox.info()
    args = ["--zookeeper", info.zookeeper]
    return [*args, "--bootstrap-server", info.bootstrap_servers] if via == "admin" else args


def partitions(zk: KazooClient, topic: str) -> dict[str, list[int]]:
    data, _ = zk.get(f"/brokers/topics/{topic}")
    value: dict[str, list[int]] = json.loads(data)["partitions"]
    return value


def dump(zk: KazooClient, *paths: str) -> dict[str, tuple[bytes, int] | None]:
    result: dict[str, tuple[bytes, int] | None] = {}

    def walk(path: str) -> None:
        try:
            data, stat = zk.get(path)
            children = zk.get_children(path)
        except NoNodeError:
            result[path] = None
            return
        result[path] = (data or b"", stat.version)
        for child in sorted(children):
            walk(f"{path}/{child}")

    for path in paths:
        walk(path)
    return result


def relevant(topic: str) -> tuple[str, ...]:
    return (f"/brokers/topics/{topic}", f"/config/topics/{topic}", f"/admin/delete_topics/{topic}")


def gone(zk: KazooClient, topic: str) -> bool:
    """The controller removed the topic and, last, its deletion marker."""
    return not zk.exists(f"/brokers/topics/{topic}") and not zk.exists(f"/admin/delete_topics/{topic}")


# ---- create, expand, delete ----------------------------------------------------------------------------


@pytest.mark.parametrize("via", VIAS)
def test_create_expand_delete_report_in_json_exactly_what_lands_in_zookeeper(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], audit_file: Path, unique_name: str, via: str
) -> None:
    where = [*cluster(sandbox, "admin"), "--via", via]  # --via zookeeper: ZooKeeper although the brokers serve it
    code, out, _ = run(
        capsys, "topic", "create", unique_name, "--partitions", "4", "--replication-factor", "2",
        "--config", "cleanup.policy=compact", "--yes", "--wait", "--json", *where,
    )  # fmt: skip
    assert code == 0, out
    assert out["operation"] == "create" and out["via"] == via
    assert out["assignment"] == partitions(zk, unique_name)
    created = out["assignment"]
    assert out["progress"]["done"] is True and out["progress"]["with_leader"] == 4
    assert json.loads(zk.get(f"/config/topics/{unique_name}")[0])["config"] == {"cleanup.policy": "compact"}

    code, out, _ = run(capsys, "topic", "expand", unique_name, "--partitions", "6", "--yes", "--wait", "--json", *where)
    assert code == 0, out
    assert list(out["assignment"]) == ["4", "5"]
    assert {p: r for p, r in partitions(zk, unique_name).items() if int(p) >= 4} == out["assignment"]

    code, out, _ = run(capsys, "topic", "delete", "--regex", f"{unique_name}", "--yes", "--wait", "--json", *where)
    assert code == 0, out
    assert out["deleted"] == [unique_name] and out["progress"]["completed"] == [unique_name]
    assert not zk.exists(f"/brokers/topics/{unique_name}")

    lines = read_audit_log(audit_file)
    assert [(line["operation"], line["outcome"]) for line in lines] == [
        ("topic create", "applied"),
        ("topic expand", "applied"),
        ("topic delete", "applied"),
    ]
    assert lines[0]["details"]["assignment"] == created
    assert lines[0]["cluster"] == sandbox.info().zookeeper and lines[0]["arguments"]["partitions"] == 4
    assert [line["arguments"]["via"] for line in lines] == [via] * 3


def test_the_human_output_shows_the_plan_then_the_progress(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    code, out, _ = run(
        capsys, "topic", "create", unique_name, "--replica-assignment", "1:2,2:3", "--yes", "--wait",
        *cluster(sandbox, "zookeeper"),
    )  # fmt: skip
    assert code == 0
    assert f"Create topic {unique_name}: 2 partitions, replication factor 2 (manual assignment), via ZooKeeper" in out
    assert "        0  [1,2]                 r1,r2" in out and "        1  [2,3]                 r2,r3" in out
    assert f"{unique_name}: 2/2 new partitions have a leader" in out


@pytest.mark.parametrize("via", VIAS)
def test_a_dry_run_writes_nothing_and_is_audited(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], audit_file: Path, unique_name: str, via: str
) -> None:
    where = cluster(sandbox, via)
    before = dump(zk, *relevant(unique_name))
    code, out, _ = run(
        capsys, "topic", "create", unique_name, "--partitions", "3", "--replication-factor", "3", "--dry-run", "--json",
        *where,
    )  # fmt: skip
    assert code == 0 and out["dry_run"] is True and len(out["assignment"]) == 3
    assert out["start"]["random"] is True and out["start"]["start_partition"] == 0
    assert dump(zk, *relevant(unique_name)) == before
    # The real run draws its own start (as Kafka does), shows it, and creates exactly the plan it made.
    code, applied, _ = run(
        capsys, "topic", "create", unique_name, "--partitions", "3", "--replication-factor", "3", "--yes", "--json",
        *where,
    )  # fmt: skip
    assert code == 0 and applied["assignment"] == partitions(zk, unique_name)
    lines = read_audit_log(audit_file)
    assert [line["outcome"] for line in lines] == ["dry-run", "applied"]
    assert lines[0]["details"]["plan"]["start"] == out["start"]


# ---- confirmation ----------------------------------------------------------------------------------------


def test_without_a_terminal_and_without_yes_nothing_is_changed(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], audit_file: Path, unique_name: str
) -> None:
    before = dump(zk, *relevant(unique_name))
    code, out, err = run(
        capsys, "topic", "create", unique_name, "--partitions", "1", "--replication-factor", "1", "--json",
        *cluster(sandbox, "admin"),
    )  # fmt: skip
    assert code == 2
    assert out == {"error": out["error"]} and "stdin is not a terminal; add --yes" in out["error"]
    assert "Traceback" not in err
    assert dump(zk, *relevant(unique_name)) == before
    assert [line["outcome"] for line in read_audit_log(audit_file)] == ["refused"]


def _in_terminal(argv: list[str], answer: str, env: dict[str, str]) -> tuple[int, str]:
    """Run kzc with a pseudo-terminal as stdin and type ``answer``; returns (exit code, stderr)."""
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


def test_typed_confirmation_in_a_terminal(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], audit_file: Path, unique_name: str
) -> None:
    names = [f"{unique_name}-a", f"{unique_name}-b", f"{unique_name}-c"]
    for name in names:
        code, _, _ = run(
            capsys, "topic", "create", name, "--replica-assignment", "1", "--yes", *cluster(sandbox, "admin")
        )
        assert code == 0
    env = {**os.environ, "KZC_AUDIT_LOG": str(audit_file)}
    single = ["topic", "delete", names[0], *cluster(sandbox, "zookeeper")]
    before = dump(zk, *relevant(names[0]))

    code, err = _in_terminal(single, "not-the-name", env)
    assert code == 1 and f"Type the topic name ({names[0]}) to delete:" in err
    assert f"confirmation did not match '{names[0]}': nothing was changed" in err
    assert dump(zk, *relevant(names[0])) == before

    code, err = _in_terminal(single, names[0], env)
    assert code == 0, err
    wait_until(lambda: gone(zk, names[0]), 90, "the first deletion")

    several = ["topic", "delete", "--regex", f"{unique_name}-[bc]", "--wait", *cluster(sandbox, "admin")]
    code, err = _in_terminal(several, names[1], env)  # several topics: a name is not the count
    assert code == 1 and "Type the number of topics (2) to delete:" in err
    code, err = _in_terminal(several, "2", env)
    assert code == 0, err
    assert not zk.exists(f"/brokers/topics/{names[1]}") and not zk.exists(f"/brokers/topics/{names[2]}")
    outcomes = [line["outcome"] for line in read_audit_log(audit_file)]
    assert outcomes == ["applied", "applied", "applied", "cancelled", "applied", "cancelled", "applied"]


# ---- refusals and errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["topic", "create", "{t}", "--partitions", "abc", "--replication-factor", "1"],
         "Cannot parse argument 'abc' of option partitions"),
        (["topic", "create", "{t}", "--partitions", "3000000000", "--replication-factor", "1"],
         "Cannot parse argument '3000000000' of option partitions"),
        (["topic", "expand", "{t}", "--partitions", "2", "--replica-assignment", "1,x"], 'For input string: "x"'),
        (["topic", "create", "{t}", "--partitions", "1", "--replication-factor", "9"],
         "Replication factor: 9 larger than available brokers: 3."),
        (["topic", "create", "{t}", "--replica-assignment", "1:2,3"],
         "Partition 1 has different replication factor: [3]"),
        (["topic", "create", "{t}", "--partitions", "1", "--replication-factor", "1", "--config", "retention.ms=x"],
         "Invalid value x for configuration retention.ms: Not a number of type LONG"),
        (["topic", "expand", "{t}", "--partitions", "3"], "The topic '{t}' does not exist."),
        (["topic", "delete", "{t}"], "Topic `{t}` to delete does not exist"),
        (["topic", "delete", "__consumer_offsets"], "is a kafka internal topic and is not allowed to be marked"),
        (["--read-only", "topic", "create", "{t}", "--partitions", "1", "--replication-factor", "1", "--yes"],
         "kzc is read-only (--read-only was given): refusing every mutation"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("via", VIAS)
def test_refusals_exit_2_with_one_json_error_and_change_nothing(
    sandbox: Sandbox,
    zk: KazooClient,
    capsys: pytest.CaptureFixture[str],
    audit_file: Path,
    unique_name: str,
    argv: list[str],
    message: str,
    via: str,
) -> None:
    args = [a.replace("{t}", unique_name) for a in argv]
    before = dump(zk, *relevant(unique_name))
    code, out, err = run(capsys, *args, "--json", *cluster(sandbox, via))
    assert code == 2
    assert set(out) == {"error"} and message.replace("{t}", unique_name) in out["error"]
    assert "Traceback" not in err
    assert dump(zk, *relevant(unique_name)) == before
    assert [line["outcome"] for line in read_audit_log(audit_file)] == ["refused"]  # every refusal is audited


def test_an_unreachable_zookeeper_is_one_line(capsys: pytest.CaptureFixture[str], audit_file: Path) -> None:
    code, out, err = run(
        capsys, "topic", "delete", "t", "--zookeeper", "127.0.0.1:1", "--session-timeout", "1", "--yes", "--json"
    )
    assert code == 1 and "cannot connect to ZooKeeper 127.0.0.1:1" in out["error"]
    assert "Traceback" not in err
    assert [line["outcome"] for line in read_audit_log(audit_file)] == ["failed"]


# ---- a deletion held by a dead broker ----------------------------------------------------------------------


def test_a_stuck_deletion_is_explained_and_finishes_when_the_broker_returns(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    controller = json.loads(zk.get("/controller")[0])["brokerid"]
    victim = next(b for b in (1, 2, 3) if b != controller)
    where = cluster(sandbox, "admin")
    assert (
        run(capsys, "topic", "create", unique_name, "--replica-assignment", f"{victim}", "--yes", "--wait", *where)[0]
        == 0
    )
    sandbox.kill_broker(victim)
    try:
        wait_until(lambda: not zk.exists(f"/brokers/ids/{victim}"), 90, f"broker {victim} to deregister")
        code, out, err = run(
            capsys, "topic", "delete", unique_name, "--yes", "--wait", "--timeout", "4", "--json", *where
        )
        assert code == 1
        assert out["deleted"] == [unique_name]
        dead = f"replicas on broker(s) {victim}, which are not registered"
        [[pending]] = out["progress"]["pending"].values()
        assert list(out["progress"]["pending"]) == [unique_name] and pending.startswith(dead)
        assert f"not finished after 4 s: {unique_name}: stuck: {dead}" in out["error"]
        assert f"{unique_name}: stuck: {dead}" in err
    finally:
        sandbox.start_broker(victim)
    wait_until(lambda: gone(zk, unique_name), 90, "the deletion to complete")


# ---- a stray state znode of a partition about to be added --------------------------------------------------


def test_an_expansion_over_a_stray_state_znode_is_warned_and_wait_says_what_kafka_did(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    where = cluster(sandbox, "zookeeper")
    code, out, _ = run(
        capsys, "topic", "create", unique_name, "--replica-assignment", "1,2", "--yes", "--wait", "--json", *where
    )
    assert code == 0, out
    # Planted by hand before the expansion: partition 2's state, led by broker 1 (the new replica is 3).
    stray = {"controller_epoch": 1, "leader": 1, "version": 1, "leader_epoch": 0, "isr": [1]}
    zk.create(f"/brokers/topics/{unique_name}/partitions/2/state", json.dumps(stray).encode(), makepath=True)
    expand = ["topic", "expand", unique_name, "--partitions", "3", "--replica-assignment", "1,3,3", "--json"]

    code, out, _ = run(capsys, *expand, "--dry-run", *where)
    assert code == 0, out
    warnings = " | ".join(out["warnings"])
    assert f"partition(s) 2 already have a state znode (/brokers/topics/{unique_name}/partitions/2/state)" in warnings
    assert "existing partition(s) differ from their current replicas (1: given [3], current [2])" in warnings

    code, out, _ = run(capsys, *expand, "--yes", "--wait", "--timeout", "6", *where)
    assert code == 1, out
    assert out["progress"]["done"] is False and out["progress"]["leader_not_a_replica"] == [2]
    assert "partition 2: leader 1 (ISR [1]) is not one of its replicas [3]" in " ".join(out["progress"]["reasons"])
    code, out, _ = run(capsys, "topic", "delete", unique_name, "--yes", "--json", *where)
    assert code == 0, out
