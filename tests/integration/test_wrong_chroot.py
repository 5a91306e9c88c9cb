"""A connect string whose chroot holds no Kafka cluster is refused by every command and the console with
"no Kafka cluster at HOST:PORT/CHROOT" (exit code 1), naming the chroot that does hold one (the sandbox's
``/kafka``); ``kzc zk ls`` still browses, with a warning."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from cli.commands import runnable_commands
from cli.main import build_parser, main
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.sandbox.local_cluster import Sandbox
from core.zookeeper.kafka_root import NoKafkaCluster
from tests.integration.zk_server import zk_client


@pytest.fixture(scope="module")
def hosts(sandbox: Sandbox) -> str:
    """The sandbox's ZooKeeper without its chroot."""
    return sandbox.info().zookeeper.rsplit("/", 1)[0]


@pytest.fixture(scope="module")
def empty_chroot(hosts: str) -> Iterator[str]:
    """A chroot that exists but holds no Kafka znodes (an application's own tree)."""
    with zk_client(hosts) as root:
        root.create("/not-kafka/app/config", b"{}", makepath=True)
    try:
        yield f"{hosts}/not-kafka"
    finally:
        with zk_client(hosts) as root:
            root.delete("/not-kafka", recursive=True)


# Every command that reads or writes a cluster, with the least it needs to get as far as connecting.
# Generated against the command registry: a command missing from both tables fails the first test.
CLUSTER_COMMANDS: dict[tuple[str, ...], list[str]] = {
    ("watch",): ["watch"],
    ("assign",): ["assign", "--topic", "x", "--partitions", "2"],
    ("topic", "create"): ["topic", "create", "x", "--partitions", "1", "--replication-factor", "1", "--yes"],
    ("topic", "expand"): ["topic", "expand", "x", "--partitions", "2", "--yes"],
    ("topic", "delete"): ["topic", "delete", "x", "--yes"],
    ("describe",): ["describe"],
    ("snapshot",): ["snapshot", "-o", "/dev/null"],
    ("check",): ["check", "--engine", "local"],
    ("reassign", "plan"): ["reassign", "plan", "--move-off", "1"],
    ("reassign", "apply"): ["reassign", "apply", "--move-off", "1", "--dry-run"],
    ("reassign", "status"): ["reassign", "status"],
    ("reassign", "clear-throttles"): ["reassign", "clear-throttles", "--yes"],
    ("reassign", "cancel"): ["reassign", "cancel", "--yes"],
    ("elect", "preferred"): ["elect", "preferred", "--all", "--dry-run"],
    ("elect", "unclean"): ["elect", "unclean", "--topic", "x", "--partition", "0", "--dry-run"],
    ("config", "show"): ["config", "show", "x"],
    ("config", "set"): ["config", "set", "x", "retention.ms=1", "--dry-run"],
    ("config", "delete"): ["config", "delete", "x", "retention.ms", "--dry-run"],
    ("groups",): ["groups"],
    ("group",): ["group", "g"],
    ("migration",): ["migration"],
    ("changes",): ["changes"],
    ("broker",): ["broker", "1"],
    ("tail",): ["tail", "x"],
    ("acl", "list"): ["acl", "list"],
    ("acl", "check"): ["acl", "check", "--principal", "User:a", "--operation", "Read", "--topic", "x"],
    ("acl", "add"): ["acl", "add", "--principal", "User:a", "--operation", "Read", "--topic", "x", "--dry-run"],
    ("acl", "remove"): ["acl", "remove", "--principal", "User:a", "--operation", "Read", "--topic", "x", "--yes"],
    ("quota", "show"): ["quota", "show"],
    ("quota", "set"): ["quota", "set", "--client-id", "c", "producer_byte_rate=1024", "--dry-run"],
    ("quota", "delete"): ["quota", "delete", "--client-id", "c", "producer_byte_rate", "--yes"],
    ("user", "list"): ["user", "list"],
    ("user", "set-password"): ["user", "set-password", "u", "--mechanism", "SCRAM-SHA-256", "--password-env", "X"],
    ("user", "delete"): ["user", "delete", "u", "--yes"],
    ("record",): ["record", "--out", "/tmp/kzc-wrong-chroot-never-created"],
    ("diff",): ["diff", "live", "live"],
    ("metrics",): ["metrics", "--metrics-url", "http://{host}:1/metrics", "--window", "0"],
    ("traffic",): ["traffic", "--window", "1s"],
}
# Variants of a command above that take another path to the cluster.
VARIANTS = {
    "group reset": ["group", "reset", "g", "--topic", "x", "--to-earliest", "--dry-run"],
    "reassign plan --onto": ["reassign", "plan", "--onto", "1,2"],
    "config show --broker": ["config", "show", "--broker", "1"],
    "config set --broker": ["config", "set", "--broker", "1", "leader.replication.throttled.rate=1", "--dry-run"],
    "config delete --broker-default": ["config", "delete", "--broker-default", "x", "--dry-run"],
    "elect preferred --topic": ["elect", "preferred", "--topic", "x", "--dry-run"],
    "broker stop-check": ["broker", "stop-check", "1"],
    "acl list --topic": ["acl", "list", "--topic", "x"],
    "quota show --effective": ["quota", "show", "--effective", "--user", "u", "--client-id", "c"],
}
# Commands that do not read a Kafka cluster through --zookeeper, and why.
EXEMPT = {
    **{("sandbox", action): "runs kzc's own local cluster" for action in
       ("up", "fetch", "status", "down", "kill-broker", "start-broker", "kill-zookeeper", "start-zookeeper",
        "migrate")},
    ("fleet",): "reads every context of the config file: a chroot without Kafka is that context's row (test_fleet)",
    ("zk", "health"): "ZooKeeper's own health: asks each server of the connect string, whatever the chroot",
    ("zk", "ls"): "browses raw ZooKeeper: warns instead (test below)",
    ("zk", "get"): "browses raw ZooKeeper: warns instead",
    **{("history", question): "reads a history store (kzc record), not ZooKeeper" for question in
       ("isr", "flapping", "urp", "traffic")},
    ("report",): "reads a history store (kzc record) and the audit log, not ZooKeeper",
}  # fmt: skip
RUNS = {" ".join(words): argv for words, argv in CLUSTER_COMMANDS.items()} | VARIANTS


def test_every_command_of_the_registry_is_tested_against_a_wrong_chroot() -> None:
    runnable = set(runnable_commands(build_parser()))
    assert runnable == set(CLUSTER_COMMANDS) | set(EXEMPT), "a command is neither tested here nor exempt"


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
@pytest.mark.parametrize("command", sorted(RUNS))
def test_every_command_refuses_a_chroot_without_kafka_and_names_the_one_with_kafka(
    command: str, as_json: bool, empty_chroot: str, hosts: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*RUNS[command], *(["--json"] if as_json else []), "--zookeeper", empty_chroot])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    [line] = [x for x in err.splitlines() if "no Kafka cluster" in x]
    assert line.startswith(f"kzc: error: no Kafka cluster at {empty_chroot}")
    assert f"Kafka clusters on this ZooKeeper: {hosts}/kafka" in line
    if as_json:
        # One JSON object and nothing else: no empty answer that looks like an empty cluster.
        assert json.loads(out) == {"error": line.removeprefix("kzc: error: ")}
    else:
        assert out == ""
    with zk_client(empty_chroot) as zk:
        assert zk.get_children("/") == ["app"]  # nothing written


def test_the_root_without_a_chroot_is_refused_too(hosts: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["describe", "--zookeeper", hosts])
    _, err = capsys.readouterr()
    assert code == 1
    assert f"no Kafka cluster at {hosts}:" in err and f"{hosts}/kafka" in err


def test_zk_ls_still_browses_a_chroot_without_kafka_with_a_warning(
    empty_chroot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["zk", "ls", "/", "--zookeeper", empty_chroot])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "app" in out
    assert f"warning: no Kafka cluster at {empty_chroot}" in err


def test_the_console_refuses_to_connect_to_a_chroot_without_kafka(empty_chroot: str, hosts: str) -> None:
    backend = ZkBackend(ConnectionSettings(zookeeper=parse_zookeeper(empty_chroot)))
    with pytest.raises(NoKafkaCluster) as raised:
        backend.connect()
    assert f"no Kafka cluster at {empty_chroot}" in str(raised.value)
    assert f"{hosts}/kafka" in str(raised.value)
    backend.close()
