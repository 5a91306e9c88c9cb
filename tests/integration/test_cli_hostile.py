"""Hostile input on the command line against the sandbox (issue 12): sizes no ZooKeeper could store, names
Kafka refuses, the AdminClient path's honesty, the audit trail of every attempt, and secrets."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from cli.main import main
from core.audit import read_audit_log
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run

pytestmark = pytest.mark.integration

INT_MAX = "2147483647"
MEMORY_LIMIT = 1536 * 1024 * 1024  # address space for a kzc run: a 2^31-partition plan would need ~100 GiB


def zk_args(sandbox: Sandbox) -> list[str]:
    return ["--zookeeper", sandbox.info().zookeeper]


def admin_args(sandbox: Sandbox) -> list[str]:
    return [*zk_args(sandbox), "--bootstrap-server", sandbox.info().bootstrap_servers]


def run_limited(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """kzc in a process whose address space is capped: building a huge plan would end in MemoryError."""

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    env = {**os.environ, "KZC_AUDIT_LOG": str(tmp_path / "audit.jsonl"), "KZC_CONFIG": str(tmp_path / "none.toml")}
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *argv], env=env, capture_output=True, text=True, timeout=60, preexec_fn=cap
    )


# ---- bounded by construction ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["topic", "create", "{t}", "--partitions", INT_MAX, "--replication-factor", "3", "--yes"],
        ["topic", "create", "{t}", "--partitions", INT_MAX, "--replication-factor", "1", "--dry-run"],
        ["assign", "--brokers", "1,2,3", "--partitions", INT_MAX, "--replication-factor", "2"],
    ],
)
def test_a_topic_znode_no_zookeeper_could_store_is_refused_up_front_with_its_size(
    sandbox: Sandbox, zk: KazooClient, tmp_path: Path, unique_name: str, command: list[str]
) -> None:
    argv = [part.format(t=unique_name) for part in command]
    result = run_limited(tmp_path, *argv, *zk_args(sandbox))
    assert result.returncode == 2, result.stderr
    assert "jute.maxbuffer is 1,048,576 bytes" in result.stderr and "at least" in result.stderr
    assert "Traceback" not in result.stderr
    assert not zk.exists(f"/brokers/topics/{unique_name}") and not zk.exists(f"/config/topics/{unique_name}")
    if argv[0] == "topic":
        [line] = read_audit_log(tmp_path / "audit.jsonl")
        assert line["outcome"] == "refused"  # a dry run too: the plan could not even be made


def test_an_expansion_past_the_limit_is_refused_as_a_dry_run_an_apply_and_an_assign_preview(
    sandbox: Sandbox, zk: KazooClient, tmp_path: Path, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    code, _, err = run(capsys, "topic", "create", unique_name, "--partitions", "2", "--replication-factor", "1",
                       "--yes", *zk_args(sandbox))  # fmt: skip
    assert code == 0, err
    # The controller adds the topic id to a topic created through ZooKeeper: compare from then on.
    wait_until(lambda: "topic_id" in json.loads(zk.get(f"/brokers/topics/{unique_name}")[0]), 30, "the topic id")
    before = zk.get(f"/brokers/topics/{unique_name}")[0]
    for argv in (
        ["topic", "expand", unique_name, "--partitions", INT_MAX, "--dry-run"],
        ["topic", "expand", unique_name, "--partitions", INT_MAX, "--yes"],
        ["assign", "--topic", unique_name, "--partitions", INT_MAX],
    ):
        result = run_limited(tmp_path, *argv, *zk_args(sandbox))
        assert result.returncode == 2, result.stderr
        assert f"would make /brokers/topics/{unique_name} at least" in result.stderr
    assert zk.get(f"/brokers/topics/{unique_name}")[0] == before


def test_a_context_setting_moves_the_limit(
    sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    argv = ["topic", "create", unique_name, "--partitions", "500", "--replication-factor", "1", "--dry-run"]
    code, _, err = run(capsys, *argv, *zk_args(sandbox))
    assert code == 0, err
    code, _, err = run(capsys, *argv, "--jute-maxbuffer", "4096", *zk_args(sandbox))
    assert code == 2 and "jute.maxbuffer is 4,096 bytes" in err


# ---- names as Kafka takes them ------------------------------------------------------------------------


@pytest.mark.parametrize("name", [".", ".."])
@pytest.mark.parametrize(
    "command",
    [
        ["topic", "create", "{n}", "--partitions", "1", "--replication-factor", "1", "--dry-run"],
        ["topic", "create", "{n}", "--partitions", "1", "--replication-factor", "1", "--yes"],
        ["topic", "expand", "{n}", "--partitions", "4", "--dry-run"],
        ["topic", "expand", "{n}", "--partitions", "4", "--yes"],
        ["topic", "delete", "{n}", "--dry-run"],
        ["topic", "delete", "{n}", "--yes"],
        ["assign", "--topic", "{n}", "--partitions", "4"],
    ],
)
def test_dot_and_dot_dot_get_kafkas_message_and_exit_2_on_every_command(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], name: str, command: list[str]
) -> None:
    argv = [part.format(n=name) for part in command]
    code, out, err = run(capsys, *argv, "--json", *zk_args(sandbox))
    assert code == 2, err
    assert out == {"error": f"Topic name is invalid: '{name}' is not allowed"}


def test_a_name_starting_with_a_dash_works_after_double_dash(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    name = f"-{unique_name}"
    code, _, err = run(capsys, "topic", "create", "--partitions", "1", "--replication-factor", "1", "--yes",
                       *zk_args(sandbox), "--", name)  # fmt: skip
    assert code == 0, err
    assert zk.exists(f"/brokers/topics/{name}")
    code, _, err = run(capsys, "topic", "delete", "--yes", *zk_args(sandbox), "--", name)
    assert code == 0, err
    assert zk.exists(f"/admin/delete_topics/{name}") or not zk.exists(f"/brokers/topics/{name}")


# ---- the AdminClient path -------------------------------------------------------------------------------


def test_expand_through_the_brokers_names_the_fields_they_drop_and_keep_unknown_fields_keeps_them(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    code, _, err = run(capsys, "topic", "create", unique_name, "--partitions", "1", "--replication-factor", "1",
                       "--yes", "--wait", *zk_args(sandbox))  # fmt: skip
    assert code == 0, err
    path = f"/brokers/topics/{unique_name}"
    data = json.loads(zk.get(path)[0])
    zk.set(path, json.dumps({**data, "future_field": {"x": 1}}).encode())

    code, out, _ = run(
        capsys, "topic", "expand", unique_name, "--partitions", "2", "--dry-run", "--json", *admin_args(sandbox)
    )
    assert code == 0 and out["via"] == "admin"
    assert any("drops its field(s) unknown to Kafka: future_field" in w for w in out["warnings"])

    code, out, err = run(capsys, "topic", "expand", unique_name, "--partitions", "2", "--keep-unknown-fields",
                         "--yes", "--json", *admin_args(sandbox))  # fmt: skip
    assert code == 0, err
    assert out["via"] == "zookeeper"
    assert json.loads(zk.get(path)[0])["future_field"] == {"x": 1}


def test_an_unreachable_bootstrap_server_fails_at_once_with_its_cause(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    code, _, err = run(capsys, "topic", "delete", "nothing", "--yes", *zk_args(sandbox),
                       "--bootstrap-server", "no-such-host.invalid:9092")  # fmt: skip
    assert code == 1
    assert "no-such-host.invalid:9092: the host name cannot be resolved" in err
    assert err.count("kzc:") == 1  # one line, not a warning per retry
    [line] = read_audit_log(audit_file)
    assert line["outcome"] == "failed"


def test_a_zookeeper_host_name_that_does_not_resolve_is_named_as_such(
    capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    code, _, err = run(capsys, "topic", "delete", "x", "--yes", "--zookeeper", "no-such-host.invalid:2181")
    assert code == 1
    assert "the host name 'no-such-host.invalid' cannot be resolved" in err
    assert "no server answered" not in err


# ---- audit: before-state, rejected command lines --------------------------------------------------------


def test_expand_and_delete_record_the_before_state_in_their_intent_line(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], audit_file: Path, unique_name: str
) -> None:
    run(capsys, "topic", "create", unique_name, "--partitions", "1", "--replication-factor", "1",
        "--config", "retention.ms=1000", "--yes", "--wait", *zk_args(sandbox))  # fmt: skip
    assert run(capsys, "topic", "expand", unique_name, "--partitions", "2", "--yes", *zk_args(sandbox))[0] == 0
    assert run(capsys, "topic", "delete", unique_name, "--yes", *zk_args(sandbox))[0] == 0
    lines = read_audit_log(audit_file, intents=True)
    assert [(line["operation"], line["outcome"]) for line in lines] == [
        ("topic create", "intent"), ("topic create", "applied"),
        ("topic expand", "intent"), ("topic expand", "applied"),
        ("topic delete", "intent"), ("topic delete", "applied"),
    ]  # fmt: skip
    assert all(lines[i]["id"] == lines[i + 1]["id"] for i in (0, 2, 4))
    for intent, partitions in ((lines[2], 1), (lines[4], 2)):
        before = intent["details"]["before"][unique_name]
        assert before["partitions"] == partitions and before["topic_id"]  # the controller gave it an id
        assert json.loads(before["config_znode"])["config"] == {"retention.ms": "1000"}


@pytest.mark.parametrize(
    "argv",
    [
        ["topic", "create", "x", "--partitions"],
        ["topic", "delete", "x", "--zookeeper", "127.0.0.1:notaport"],
        ["topic", "expand", "x", "--partitions", "2", "--zk-auth", "digest:alice:hunter2"],
    ],
)
def test_a_rejected_mutation_command_line_leaves_one_refused_line(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], audit_file: Path, argv: list[str]
) -> None:
    full = [*argv, *zk_args(sandbox)] if "--zookeeper" not in argv else argv
    try:
        code = main(full)
    except SystemExit as exc:
        code = int(exc.code or 0)
    assert code == 2
    [line] = read_audit_log(audit_file)
    assert line["outcome"] == "refused" and line["operation"] == f"topic {argv[1]}"
    assert "hunter2" not in json.dumps(line)


# ---- secrets -------------------------------------------------------------------------------------------


def test_credentials_in_an_open_config_file_and_on_the_command_line_are_warned_about(
    sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[contexts.c]\nzookeeper = "{sandbox.info().zookeeper}"\nzk_auth = "alice:secret"\n')
    config.chmod(0o666)
    code, _, err = run(capsys, "--config", str(config), "--context", "c", "zk", "ls", "/")
    assert code == 0, err
    assert "is accessible by other users (mode 0666)" in err and f"chmod 600 {config}" in err
    config.chmod(0o600)
    code, _, err = run(capsys, "--config", str(config), "--context", "c", "zk", "ls", "/")
    assert code == 0 and "warning" not in err

    code, _, err = run(capsys, "zk", "ls", "/", "--zk-auth", "alice:secret", *zk_args(sandbox))
    assert code == 0 and "--zk-auth on the command line is visible to every user" in err


def test_credentials_from_a_file_or_the_environment_are_used(
    sandbox: Sandbox, zk: KazooClient, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch, unique_name: str,
) -> None:  # fmt: skip
    # A znode only alice may read: reading it proves which credentials kzc logged in with.
    from kazoo.security import make_digest_acl

    path = f"/{unique_name}"
    zk.create(path, b"only alice", acl=[make_digest_acl("alice", "secret", all=True)])
    secret = tmp_path / "zk-auth"
    secret.write_text("alice:secret\n")
    secret.chmod(0o600)
    code, out, err = run(capsys, "zk", "get", path, "--json", "--zk-auth-file", str(secret), *zk_args(sandbox))
    assert code == 0 and out["data"] == "only alice", err
    assert "warning" not in err
    monkeypatch.setenv("KZC_ZK_AUTH", "alice:secret")
    code, out, err = run(capsys, "zk", "get", path, "--json", *zk_args(sandbox))
    assert code == 0 and out["data"] == "only alice", err
    monkeypatch.delenv("KZC_ZK_AUTH")
    code, _, err = run(capsys, "zk", "get", path, *zk_args(sandbox))
    assert code == 1 and "NoAuth" in err


def test_an_ambiguous_zk_auth_is_refused_with_the_expected_format(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "zk", "ls", "/", "--zk-auth", "digest:alice:hunter2", *zk_args(sandbox))
    assert code == 2
    assert "it would log in as user 'digest'" in err and "USER:PASSWORD" in err
    assert "hunter2" not in err


# ---- messages that say what is wrong --------------------------------------------------------------------


def test_delete_without_names_says_so(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "topic", "delete", "--yes", *zk_args(sandbox))
    assert code == 2 and "no topic to delete: give the topic names, or --regex RE" in err


def test_a_delete_right_after_the_controller_died_reaches_the_new_controller(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str], unique_name: str
) -> None:
    code, _, err = run(capsys, "topic", "create", unique_name, "--partitions", "1", "--replication-factor", "3",
                       "--yes", "--wait", *zk_args(sandbox))  # fmt: skip
    assert code == 0, err
    controller = json.loads(zk.get("/controller")[0])["brokerid"]
    sandbox.kill_broker(controller)
    try:
        code, out, err = run(
            capsys, "topic", "delete", unique_name, "--yes", "--json", "--timeout", "60", *admin_args(sandbox)
        )
        assert code == 0, err
        assert out["deleted"] == [unique_name] and out["via"] == "admin"
        assert json.loads(zk.get("/controller")[0])["brokerid"] != controller
    finally:
        sandbox.start_broker(controller)
