"""A connect string whose chroot holds no Kafka cluster is refused by every command and the console with
"no Kafka cluster at HOST:PORT/CHROOT" (exit code 1), naming the chroot that does hold one (the sandbox's
``/kafka``); ``kzc zk ls`` still browses, with a warning."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cli.main import main
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.sandbox.cluster import Sandbox
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


COMMANDS = {
    "describe": ["describe"],
    "describe --json": ["describe", "--json"],
    "snapshot": ["snapshot", "-o", "/dev/null"],
    "check": ["check", "--engine", "local"],
    "watch": ["watch", "--json"],
    "topic create": ["topic", "create", "x", "--partitions", "1", "--replication-factor", "1", "--yes"],
    "topic delete": ["topic", "delete", "x", "--yes"],
    "assign": ["assign", "--topic", "x", "--partitions", "2"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refuses_a_chroot_without_kafka_and_names_the_one_with_kafka(
    command: str, empty_chroot: str, hosts: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*COMMANDS[command], "--zookeeper", empty_chroot])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert f"no Kafka cluster at {empty_chroot}" in err
    assert f"Kafka clusters on this ZooKeeper: {hosts}/kafka" in err
    assert "Topics" not in out and '"topics"' not in out  # nothing that looks like an empty cluster
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
