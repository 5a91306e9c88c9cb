"""ACLs, quotas and SCRAM users on a real secured sandbox (``Sandbox.up(security=True)``: a SASL_PLAINTEXT
SCRAM listener beside PLAINTEXT, the ZooKeeper authorizer, super users admin and ANONYMOUS).

A SCRAM client is really denied by the broker, then allowed after ``kzc acl add``; a user created by
``kzc user set-password`` authenticates and a wrong password does not; a client-id quota set by ``kzc quota
set`` makes the broker throttle a producer; read-only refuses every mutation; and no password, salt or key
appears in any output, the audit file or the broker's log.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import pty
import select
import subprocess
import sys
import termios
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition
from kazoo.client import KazooClient

from core.kafka.scram import credential_from_string
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.sandbox.security import admin_password
from tests.cli_runner import run
from tests.integration.clusters import Clusters, secured_key
from tests.integration.scram_clients import authenticates, scram
from tests.integration.zk_server import zk_client

KZC = str(Path(sys.executable).with_name("kzc"))
PASSWORD = "pw-" + uuid.uuid4().hex  # alice's: searched for in every output afterwards
OUTPUTS: list[str] = []  # every stdout and stderr of kzc in this module


@pytest.fixture(scope="module")
def audit_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("audit") / "audit.jsonl"


@pytest.fixture(autouse=True)
def _one_audit_file(monkeypatch: pytest.MonkeyPatch, audit_path: Path) -> None:
    monkeypatch.setenv("KZC_AUDIT_LOG", str(audit_path))


@pytest.fixture(scope="module")
def zk(secured: Sandbox) -> Iterator[KazooClient]:
    with zk_client(secured.info().zookeeper) as client:
        yield client


def kzc(capsys: pytest.CaptureFixture[str], secured: Sandbox, *argv: str) -> tuple[int, Any, str]:
    code, out, err = run(capsys, *argv, "--zookeeper", secured.info().zookeeper)
    OUTPUTS.append(out if isinstance(out, str) else json.dumps(out))
    OUTPUTS.append(err)
    return code, out, err


def make_topic(capsys: pytest.CaptureFixture[str], secured: Sandbox, name: str) -> None:
    code, _, err = kzc(
        capsys, secured, "topic", "create", name, "--partitions", "1", "--replication-factor", "1", "--yes"
    )
    assert code == 0, err
    producer = Producer({"bootstrap.servers": secured.info().bootstrap_servers})
    producer.produce(name, b"payload")
    assert producer.flush(30) == 0


def set_password(capsys: pytest.CaptureFixture[str], secured: Sandbox, monkeypatch: pytest.MonkeyPatch, user: str,
                 mechanism: str = "SCRAM-SHA-256", *extra: str) -> None:  # fmt: skip
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    code, _, err = kzc(capsys, secured, "user", "set-password", user, "--mechanism", mechanism, "--password-env",
                       "KZC_TEST_PASSWORD", "--yes", *extra)  # fmt: skip
    assert code == 0, err


def first_message(config: dict[str, Any], topic: str) -> Callable[[], bytes | None]:
    """A read of the first message of partition 0 by a fresh consumer (None: none came, or an error)."""

    def read() -> bytes | None:
        reader = Consumer(config)
        try:
            reader.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
            message = reader.poll(2.0)
            return message.value() if message is not None and not message.error() else None
        finally:
            reader.close()

    return read


def test_scram_client_is_denied_then_allowed_by_an_acl_kzc_adds(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    topic, group = f"sec-{uuid.uuid4().hex[:8]}", f"sec-g-{uuid.uuid4().hex[:8]}"
    make_topic(capsys, secured, topic)
    set_password(capsys, secured, monkeypatch, "alice")
    code, _, err = kzc(
        capsys, secured, "acl", "add", "--principal", "User:alice", "--operation", "Read", "--group", group, "--yes"
    )
    assert code == 0, err
    consumer = Consumer({**scram(secured, "alice", PASSWORD), "group.id": group, "enable.auto.commit": False})
    try:
        metadata = consumer.list_topics(topic, timeout=30)
        assert metadata.topics[topic].error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
        code, out, err = kzc(capsys, secured, "acl", "add", "--principal", "User:alice", "--operation", "Read",
                             "--topic", topic, "--yes", "--json")  # fmt: skip
        assert code == 0, err
        assert out["applied"] and out["writes"][1]["data"] == f"Topic:{topic}"  # the literal change event
    finally:
        consumer.close()

    config = {**scram(secured, "alice", PASSWORD), "group.id": group, "enable.auto.commit": False}
    read = first_message(config, topic)
    assert wait_until(read, 60, "alice to read the topic once the ACL is there") == b"payload"
    code, out, _ = kzc(capsys, secured, "acl", "list", "--topic", topic, "--json")
    assert out["path"] == "zookeeper"
    assert {"principal": "User:alice", "host": "*", "permission": "allowed", "operations": ["Read", "Describe"]} in (
        out["who_can"]
    )


def test_a_user_kzc_creates_authenticates_and_a_wrong_password_fails(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    set_password(capsys, secured, monkeypatch, "bob", "SCRAM-SHA-512", "--iterations", "8192")
    assert wait_until(lambda: authenticates(secured, "bob", PASSWORD, "SCRAM-SHA-512"), 60, "bob to log in")
    assert not authenticates(secured, "bob", PASSWORD + "x", "SCRAM-SHA-512")
    assert not authenticates(secured, "bob", PASSWORD, "SCRAM-SHA-256")  # no credential for that mechanism
    _, out, _ = kzc(capsys, secured, "user", "list", "--json")
    assert {"user": "bob", "credentials": [{"mechanism": "SCRAM-SHA-512", "iterations": 8192}]} in out["users"]
    assert authenticates(secured, "admin", admin_password(secured.dir), "SCRAM-SHA-256")  # written before start


def _produce(secured: Sandbox, topic: str, client_id: str, seconds: float = 6.0) -> tuple[float, float]:
    """Produce as fast as the broker lets ``client_id`` for ``seconds`` (a bounded queue: nothing piles up);
    the rate acknowledged (bytes/s) and the largest throttle time the broker answered with (ms)."""
    payload = b"x" * 16384
    delivered: list[int] = []
    throttles: list[float] = []

    def acked(error: KafkaError | None, _message: object) -> None:
        if error is None:
            delivered.append(len(payload))

    config = {"bootstrap.servers": secured.info().bootstrap_servers, "client.id": client_id, "linger.ms": 5,
              "queue.buffering.max.kbytes": 512}  # fmt: skip
    producer = Producer({**config, "throttle_cb": lambda event: throttles.append(event.throttle_time * 1000)})
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            producer.produce(topic, payload, on_delivery=acked)
        except BufferError:  # the queue is full: wait for acknowledgements
            producer.poll(0.05)
        producer.poll(0)
    elapsed = time.monotonic() - start
    producer.purge()
    producer.flush(30)
    return sum(delivered) / elapsed, max(throttles, default=0.0)


QUOTA = 65536  # bytes/s: far below what one producer sends on loopback


def test_a_client_id_quota_kzc_sets_throttles_a_producer(secured: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    topic = f"quota-{uuid.uuid4().hex[:8]}"
    make_topic(capsys, secured, topic)
    client = f"slow-{uuid.uuid4().hex[:6]}"
    free_rate, free_throttle = _produce(secured, topic, "free-" + client)
    code, out, err = kzc(
        capsys, secured, "quota", "set", "--client-id", client, f"producer_byte_rate={QUOTA}", "--yes", "--json"
    )
    assert code == 0, err
    assert out["stored"] == {"producer_byte_rate": str(QUOTA)}
    code, out, _ = kzc(
        capsys, secured, "quota", "show", "--effective", "--user", "ANONYMOUS", "--client-id", client, "--json"
    )
    assert {"key": "producer_byte_rate", "value": str(QUOTA), "source": {"user": None, "client_id": client}} in out[
        "effective"
    ]

    def throttled() -> tuple[float, float] | None:
        rate, throttle = _produce(secured, topic, client)
        return (rate, throttle) if throttle > 0 else None

    rate, throttle = wait_until(throttled, 180, "the broker to throttle the producer")
    print(
        f"\nunthrottled {free_rate:,.0f} B/s (throttle {free_throttle:.0f} ms); with producer_byte_rate={QUOTA}: "
        f"{rate:,.0f} B/s, throttle up to {throttle:,.0f} ms"
    )
    assert free_throttle == 0
    assert throttle >= 100  # the broker's own answer: this client is over its quota


def test_read_only_refuses_every_mutation(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], zk: KazooClient, audit_path: Path
) -> None:
    before = {p: zk.get_children(p) for p in ("/config/users", "/config/clients", "/kafka-acl-changes")}
    mutations = [
        ["acl", "add", "--principal", "User:ro", "--operation", "Read", "--topic", "t", "--yes"],
        ["acl", "remove", "--principal", "User:ro", "--operation", "Read", "--topic", "t", "--yes"],
        ["quota", "set", "--client-id", "ro", "producer_byte_rate=1024", "--yes"],
        ["quota", "delete", "--client-id", "ro", "producer_byte_rate", "--yes"],
        ["user", "set-password", "ro", "--mechanism", "SCRAM-SHA-256", "--password-env", "KZC_UNSET", "--yes"],
        ["user", "delete", "ro", "--yes"],
    ]
    for argv in mutations:
        code, _, err = kzc(capsys, secured, "--read-only", *argv)
        assert code != 0 and "read-only" in err, (argv, err)
    assert {p: zk.get_children(p) for p in before} == before
    lines = [json.loads(x) for x in audit_path.read_text().splitlines()]
    refused = [x for x in lines if x["outcome"] == "refused" and "read-only" in x["message"]]
    assert len(refused) >= len(mutations)


def _read_until(master: int, text: str, seen: list[str], timeout: float = 60) -> None:
    """Read the terminal's output until ``text`` appears (kept in ``seen``)."""

    def arrived() -> bool:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            seen.append(os.read(master, 4096).decode(errors="replace"))
        return text in "".join(seen)

    wait_until(arrived, timeout, f"{text!r} on the terminal")


def test_the_password_prompt_in_a_terminal_reads_without_echo(
    secured: Sandbox, audit_path: Path, tmp_path: Path
) -> None:
    """As a user types it: ``kzc user set-password frank`` on a terminal asks twice, echoes nothing, and frank
    can log in with it; prompts that differ change nothing."""
    master, slave = pty.openpty()

    def controlling_terminal() -> None:  # the pty becomes /dev/tty, which getpass reads
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    def set_password(first: str, second: str) -> tuple[int, str, str]:
        process = subprocess.Popen(
            [KZC, "user", "set-password", "frank", "--mechanism", "SCRAM-SHA-256", "--yes", "--zookeeper",
             secured.info().zookeeper],
            stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=controlling_terminal,
            env={**os.environ, "KZC_AUDIT_LOG": str(audit_path)},
        )  # fmt: skip
        seen: list[str] = []
        _read_until(master, "New password:", seen)
        os.write(master, (first + "\n").encode())
        _read_until(master, "Again:", seen)
        os.write(master, (second + "\n").encode())
        out, err = process.communicate(timeout=120)
        OUTPUTS.extend([out, err, "".join(seen)])
        return process.returncode, out + err, "".join(seen)

    try:
        code, output, terminal = set_password(PASSWORD, PASSWORD + "typo")
        assert code == 2 and "the passwords differ: nothing was changed" in output
        code, output, terminal = set_password(PASSWORD, PASSWORD)
        assert code == 0, output
        assert PASSWORD not in terminal  # typed with echo off
    finally:
        os.close(slave)
        os.close(master)
    assert wait_until(lambda: authenticates(secured, "frank", PASSWORD, "SCRAM-SHA-256"), 60, "frank to log in")


def test_no_secret_appears_in_any_output_audit_line_or_log(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], zk: KazooClient, audit_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    set_password(capsys, secured, monkeypatch, "carol")
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    kzc(capsys, secured, "user", "set-password", "carol", "--mechanism", "SCRAM-SHA-512", "--password-env",
        "KZC_TEST_PASSWORD", "--dry-run", "--json")  # fmt: skip
    kzc(capsys, secured, "user", "set-password", "carol", "--mechanism", "SCRAM-SHA-512", "--password-env",
        "KZC_TEST_PASSWORD", "--dry-run")  # fmt: skip
    reads = [["user", "list"], ["user", "list", "--json"], ["zk", "get", "/config/users/carol"],
             ["zk", "get", "/config/users/carol", "--json"], ["quota", "show", "--json"], ["acl", "list"]]  # fmt: skip
    for argv in reads:
        code, _, err = kzc(capsys, secured, *argv)
        assert code == 0, err
    secrets = [PASSWORD]
    for user in zk.get_children("/config/users"):
        config = json.loads(zk.get(f"/config/users/{user}")[0])["config"]
        for mechanism in ("SCRAM-SHA-256", "SCRAM-SHA-512"):
            if mechanism in config:
                credential = credential_from_string(config[mechanism])
                secrets += [
                    base64.b64encode(v).decode()
                    for v in (credential.salt, credential.stored_key, credential.server_key)
                ]
    secrets.append(admin_password(secured.dir))
    assert len(secrets) > 6  # alice, bob, carol and the admin have credentials
    searched = {"outputs": "\n".join(OUTPUTS), "audit": audit_path.read_text()}
    searched["broker log"] = (secured.dir / "broker-1" / "server.log").read_text(errors="replace")
    assert "carol" in searched["outputs"] and "iterations 4096" in searched["outputs"]
    for where, text in searched.items():
        for secret in secrets:
            assert secret not in text, f"a secret appears in the {where}"


def test_a_prefixed_acl_allows_and_its_removal_denies_again(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, zk: KazooClient
) -> None:
    prefix = f"pfx{uuid.uuid4().hex[:6]}-"
    topic, group = prefix + "events", f"g-{prefix}"
    make_topic(capsys, secured, topic)
    set_password(capsys, secured, monkeypatch, "dora")
    grant = ["--principal", "User:dora", "--operation", "Read", "--topic", prefix, "--pattern", "prefixed", "--yes"]
    assert kzc(capsys, secured, "acl", "add", "--principal", "User:dora", "--operation", "Read", "--group", group,
               "--yes")[0] == 0  # fmt: skip
    code, out, err = kzc(capsys, secured, "acl", "add", *grant, "--json")
    assert code == 0, err
    assert json.loads(out["writes"][1]["data"]) == {
        "version": 1, "resourceType": "TOPIC", "name": prefix, "patternType": "PREFIXED"}  # fmt: skip
    assert zk.exists(f"/kafka-acl-extended/prefixed/Topic/{prefix}")

    def authorized() -> bool:
        client = Consumer({**scram(secured, "dora", PASSWORD), "group.id": group})
        try:
            return client.list_topics(topic, timeout=10).topics[topic].error is None
        finally:
            client.close()

    assert wait_until(authorized, 60, "the prefixed ACL to let dora describe the topic")
    code, _, err = kzc(capsys, secured, "acl", "remove", *grant)
    assert code == 0, err
    assert not zk.exists(f"/kafka-acl-extended/prefixed/Topic/{prefix}")  # no ACL left: the znode goes
    assert wait_until(lambda: not authorized(), 60, "the removal to deny dora again")


def test_describe_acls_and_zookeeper_list_the_same_acls(secured: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    assert kzc(capsys, secured, "acl", "add", "--principal", "User:list", "--operation", "Write", "--operation",
               "Describe", "--transactional-id", "tx-1", "--host", "127.0.0.1", "--deny", "--yes")[0] == 0  # fmt: skip
    _, from_zk, _ = kzc(capsys, secured, "acl", "list", "--json")
    bootstrap = secured.info().bootstrap_servers

    def from_brokers() -> dict[str, Any] | None:
        # The brokers' authorizer loads a change from its notification: DescribeAcls catches up shortly.
        listed = kzc(capsys, secured, "acl", "list", "--json", "--bootstrap-server", bootstrap)[1]
        return listed if listed["acls"] == from_zk["acls"] else None

    listed = wait_until(from_brokers, 60, "DescribeAcls to report the ACLs ZooKeeper holds")
    assert (from_zk["path"], listed["path"]) == ("zookeeper", "DescribeAcls")
    assert any(a["resource_type"] == "TransactionalId" and a["host"] == "127.0.0.1" for a in listed["acls"])


def test_a_concurrent_change_is_refused_and_said(secured: Sandbox, zk: KazooClient) -> None:
    from core.config import ConnectionSettings
    from core.connect import parse_zookeeper
    from core.errors import ConcurrentChangeError
    from core.kafka.acls import Acl, ResourcePattern
    from core.security.acls import apply_acls, plan_acls
    from core.zookeeper.kafka_root import open_kafka_session

    settings = ConnectionSettings(zookeeper=parse_zookeeper(secured.info().zookeeper))
    pattern = ResourcePattern("Topic", f"race-{uuid.uuid4().hex[:6]}")
    with open_kafka_session(settings) as session:
        plan = plan_acls(session, "add", pattern, [Acl("User:a", "Allow", "Read")], settings)
        other = b'{"version":1,"acls":[{"principal":"User:b","permissionType":"Allow","operation":"Write","host":"*"}]}'
        zk.create(f"/kafka-acl/Topic/{pattern.name}", other)
        with pytest.raises(ConcurrentChangeError, match="User:b is Allowed Write"):
            apply_acls(session, settings, plan)
    assert zk.get(f"/kafka-acl/Topic/{pattern.name}")[0] == other


@pytest.mark.parametrize(
    "version", [pytest.param(v, marks=pytest.mark.cluster(secured_key(v))) for v in ("0.10.2.2", "2.0.1")]
)  # 2.0.1's is test_security_paths' too
def test_older_releases_deny_then_allow_through_their_own_authorizer(
    version: str, clusters: Clusters, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """SimpleAclAuthorizer (before 2.4) and the JAAS file (before 1.0): 0.10.2 has literal ACLs only and hides a
    topic its client may not describe; 2.0 brought prefixed ACLs and their extended change events."""
    box = clusters.get(secured_key(version))
    topic = f"old-{uuid.uuid4().hex[:6]}"
    make_topic(capsys, box, topic)
    set_password(capsys, box, monkeypatch, "olga")
    group = f"g-{topic}"
    assert (
        kzc(capsys, box, "acl", "add", "--principal", "User:olga", "--operation", "Read", "--group", group, "--yes")[0]
        == 0
    )
    config = {**scram(box, "olga", PASSWORD), "group.id": group, "enable.auto.commit": False}
    client = Consumer(config)
    try:
        error = client.list_topics(topic, timeout=30).topics[topic].error
    finally:
        client.close()
    hidden = KafkaError.UNKNOWN_TOPIC_OR_PART if version.startswith("0.10") else KafkaError.TOPIC_AUTHORIZATION_FAILED
    assert error is not None and error.code() == hidden
    pattern = ["--pattern", "prefixed", "--topic", topic[:4]] if version == "2.0.1" else ["--topic", topic]
    code, _, err = kzc(capsys, box, "acl", "add", "--principal", "User:olga", "--operation", "Read", *pattern, "--yes")
    assert code == 0, err

    read = first_message(config, topic)
    assert wait_until(read, 60, f"olga to read on Kafka {version} once the ACL is there") == b"payload"
    bootstrap = box.info().bootstrap_servers
    if version == "2.0.1":  # before 2.4 a TransactionalId's event is "TransactionalId:<id>": asked of the brokers
        grant = ["--principal", "User:olga", "--operation", "Write", "--transactional-id", "tx-old", "--yes",
                 "--via", "zookeeper"]  # fmt: skip
        code, out, err = kzc(capsys, box, "acl", "add", *grant, "--json", "--bootstrap-server", bootstrap)
        assert code == 0, err
        assert out["writes"][1]["data"] == "TransactionalId:tx-old"

        def loaded() -> bool:
            listed = kzc(capsys, box, "acl", "list", "--json", "--bootstrap-server", bootstrap)[1]
            return listed["path"] == "DescribeAcls" and any(a["name"] == "tx-old" for a in listed["acls"])

        assert wait_until(loaded, 60, "Kafka 2.0's authorizer to load the TransactionalId ACL")
    if version.startswith("0.10"):
        _, listed, _ = kzc(capsys, box, "acl", "list", "--json", "--bootstrap-server", box.info().bootstrap_servers)
        assert listed["path"] == "zookeeper" and "DescribeAcls" in listed["path_reason"]
        code, _, err = kzc(capsys, box, "acl", "add", "--principal", "User:olga", "--operation", "Read",
                           "--topic", "x", "--pattern", "prefixed", "--dry-run")  # fmt: skip
        assert code == 2 and "prefixed ACLs need Kafka 2.0+" in err
