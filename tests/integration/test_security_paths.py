"""ACL and SCRAM writes through the brokers, on real secured sandboxes (``Sandbox.up(security=True)``: a
SASL_PLAINTEXT SCRAM listener, the ZooKeeper authorizer; kzc's AdminClient speaks to the PLAINTEXT listener,
whose ``User:ANONYMOUS`` is a super user there, so the brokers' authorizer lets it change ACLs and users).

- 3.9: an ACL kzc adds with CreateAcls lets a denied SCRAM client read, DeleteAcls denies it again; a user
  created with AlterUserScramCredentials authenticates, is listed through DescribeUserScramCredentials, and
  cannot once deleted; the path and why are in the preview, --json and the audit line; no password anywhere.
- 3.9 without an authorizer: the brokers refuse CreateAcls; kzc says so and writes nothing to ZooKeeper.
- 1.1.1: no AlterUserScramCredentials, so the user goes through ZooKeeper as that release's kafka-configs did,
  and still authenticates; CreateAcls v0 takes a literal ACL, a prefixed one is refused with Kafka's reason.
- 2.0.1: CreateAcls v1 carries a prefixed pattern, and the client it names is allowed.
- A --bootstrap-server whose listener wants SASL: the failure is said, nothing is written to ZooKeeper.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition

from core.audit import read_audit_log
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.clusters import Clusters, secured_key
from tests.integration.scram_clients import authenticates, scram
from tests.integration.zk_server import zk_client

PASSWORD = "pw-" + uuid.uuid4().hex  # searched for in every output afterwards
OUTPUTS: list[str] = []


def kzc(capsys: pytest.CaptureFixture[str], box: Sandbox, *argv: str, brokers: bool = True) -> tuple[int, Any, str]:
    """kzc against ``box``, with its PLAINTEXT listener as --bootstrap-server unless ``brokers`` is False."""
    bootstrap = ["--bootstrap-server", box.info().bootstrap_servers] if brokers else []
    code, out, err = run(capsys, *argv, "--zookeeper", box.info().zookeeper, *bootstrap)
    OUTPUTS.append(out if isinstance(out, str) else json.dumps(out))
    OUTPUTS.append(err)
    return code, out, err


def set_password(
    capsys: pytest.CaptureFixture[str], box: Sandbox, monkeypatch: pytest.MonkeyPatch, user: str, *extra: str
) -> dict[str, Any]:
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    code, out, err = kzc(capsys, box, "user", "set-password", user, "--mechanism", "SCRAM-SHA-256",
                         "--password-env", "KZC_TEST_PASSWORD", "--yes", "--json", *extra)  # fmt: skip
    assert code == 0, err
    result: dict[str, Any] = out
    return result


def make_topic(capsys: pytest.CaptureFixture[str], box: Sandbox, topic: str) -> None:
    code, _, err = kzc(capsys, box, "topic", "create", topic, "--partitions", "1", "--replication-factor", "1", "--yes")
    assert code == 0, err
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers})
    producer.produce(topic, b"payload")
    assert producer.flush(30) == 0


def reads(box: Sandbox, user: str, topic: str, group: str) -> bool:
    """Whether ``user`` can read the first message of ``topic`` now (a fresh consumer)."""
    consumer = Consumer({**scram(box, user, PASSWORD), "group.id": group, "enable.auto.commit": False})
    try:
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        message = consumer.poll(3.0)
        return message is not None and not message.error() and message.value() == b"payload"
    finally:
        consumer.close()


def last(audit_file: Path, operation: str, outcome: str) -> dict[str, Any]:
    found = [line for line in read_audit_log(audit_file, intents=True)
             if (line["operation"], line["outcome"]) == (operation, outcome)]  # fmt: skip
    assert found, f"no {operation} {outcome} line"
    return found[-1]


def test_an_acl_added_with_create_acls_allows_a_denied_client_and_delete_acls_denies_it_again(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, audit_file: Path
) -> None:
    topic, group = f"via-{uuid.uuid4().hex[:8]}", f"via-g-{uuid.uuid4().hex[:8]}"
    make_topic(capsys, secured, topic)
    set_password(capsys, secured, monkeypatch, "erin")
    group_acl = ["--principal", "User:erin", "--operation", "Read", "--group", group, "--yes"]
    assert kzc(capsys, secured, "acl", "add", *group_acl)[0] == 0
    assert not reads(secured, "erin", topic, group)  # no ACL on the topic: denied

    grant = ["--principal", "User:erin", "--operation", "Read", "--topic", topic]
    code, preview, err = kzc(capsys, secured, "acl", "add", *grant, "--dry-run")
    assert code == 0, err
    assert "via the brokers (CreateAcls): every broker serves CreateAcls" in preview
    assert (
        f"  sends CreateAcls: (resourceType=TOPIC, name={topic}, patternType=LITERAL), (principal=User:erin, "
        "host=*, operation=Read, permissionType=Allow)"
    ) in preview.splitlines()
    assert last(audit_file, "acl add", "dry-run")["details"]["via"] == "admin"

    code, out, err = kzc(capsys, secured, "acl", "add", *grant, "--yes", "--json")
    assert code == 0, err
    assert (out["applied"], out["via"], out["writes"]) == (True, "admin", [])
    assert out["requests"] == [{"api": "CreateAcls", "resource_type": "Topic", "name": topic, "pattern_type":
                                "LITERAL", "principal": "User:erin", "permission": "Allow", "operation": "Read",
                                "host": "*"}]  # fmt: skip
    applied = last(audit_file, "acl add", "applied")["details"]
    assert applied["via"] == "admin" and applied["path"].startswith("every broker serves CreateAcls")
    assert wait_until(lambda: reads(secured, "erin", topic, group), 60, "erin to read once CreateAcls added the ACL")
    with zk_client(secured.info().zookeeper) as zk:  # the brokers' authorizer wrote its store
        assert b"User:erin" in zk.get(f"/kafka-acl/Topic/{topic}")[0]

    code, out, err = kzc(capsys, secured, "acl", "remove", *grant, "--yes", "--json")
    assert code == 0, err
    assert out["via"] == "admin" and out["requests"][0]["api"] == "DeleteAcls" and out["stored"] == []
    assert wait_until(lambda: not reads(secured, "erin", topic, group), 60, "DeleteAcls to deny erin again")
    code, out, _ = kzc(capsys, secured, "acl", "remove", *grant, "--yes", "--json")  # nothing left to remove
    assert (code, out["applied"], out["requests"]) == (0, False, [])


def test_a_user_created_with_alter_user_scram_credentials_authenticates_until_deleted(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, audit_file: Path
) -> None:
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    code, preview, err = kzc(capsys, secured, "user", "set-password", "fiona", "--mechanism", "SCRAM-SHA-512",
                             "--iterations", "8192", "--password-env", "KZC_TEST_PASSWORD", "--dry-run")  # fmt: skip
    assert code == 0, err
    assert "via the brokers (AlterUserScramCredentials): every broker serves AlterUserScramCredentials" in preview
    assert (
        "  sends AlterUserScramCredentials: upsertion (user=fiona, mechanism=SCRAM-SHA-512, iterations=8192, "
        "a fresh salt and the salted password computed here; the password itself is not sent)"
    ) in preview
    code, out, err = kzc(capsys, secured, "user", "set-password", "fiona", "--mechanism", "SCRAM-SHA-512",
                         "--iterations", "8192", "--password-env", "KZC_TEST_PASSWORD", "--yes", "--json")  # fmt: skip
    assert code == 0, err
    assert (out["via"], out["credentials"]) == ("admin", [{"mechanism": "SCRAM-SHA-512", "iterations": 8192}])
    assert wait_until(lambda: authenticates(secured, "fiona", PASSWORD, "SCRAM-SHA-512"), 60, "fiona to log in")
    assert not authenticates(secured, "fiona", PASSWORD + "x", "SCRAM-SHA-512")
    with zk_client(secured.info().zookeeper) as zk:  # the broker stored Kafka's credential format
        assert b"iterations=8192" in zk.get("/config/users/fiona")[0]
    _, listed, _ = kzc(capsys, secured, "user", "list", "--json")
    assert listed["path"] == "DescribeUserScramCredentials"
    assert {"user": "fiona", "credentials": [{"mechanism": "SCRAM-SHA-512", "iterations": 8192}]} in listed["users"]
    applied = last(audit_file, "user set-password", "applied")["details"]
    assert applied["via"] == "admin" and applied["plan"]["requests"][0]["kind"] == "upsertion"

    code, out, err = kzc(capsys, secured, "user", "delete", "fiona", "--yes", "--json")
    assert code == 0, err
    assert (out["via"], out["requests"], out["credentials"]) == (
        "admin",
        [{"api": "AlterUserScramCredentials", "kind": "deletion", "user": "fiona", "mechanism": "SCRAM-SHA-512"}],
        [],
    )
    assert wait_until(lambda: not authenticates(secured, "fiona", PASSWORD, "SCRAM-SHA-512"), 60, "fiona denied")
    text = "\n".join(OUTPUTS) + audit_file.read_text()
    assert PASSWORD not in text and "salt=" not in text and "stored_key" not in text


def test_a_listener_that_wants_sasl_fails_clearly_and_nothing_is_written_to_zookeeper(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    grant = ["--principal", "User:jo", "--operation", "Read", "--topic", "sasl-only", "--yes"]
    code, _, err = run(capsys, "acl", "add", *grant, "--zookeeper", secured.info().zookeeper,
                       "--bootstrap-server", secured.info().sasl_bootstrap_servers)  # fmt: skip
    assert code == 1, err
    assert "nothing was written through ZooKeeper instead" in err and "which kzc's Kafka client does not speak" in err
    with zk_client(secured.info().zookeeper) as zk:
        assert zk.exists("/kafka-acl/Topic/sasl-only") is None
    failed = last(audit_file, "acl add", "failed")
    assert failed["details"]["via"] == "admin" and "--via zookeeper" in failed["message"]


def test_read_only_refuses_both_paths_and_via_zookeeper_is_the_operators_choice(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, audit_file: Path
) -> None:
    grant = ["--principal", "User:gina", "--operation", "Read", "--topic", "ro-topic", "--yes"]
    code, _, err = kzc(capsys, secured, "acl", "add", *grant, "--read-only")
    assert code == 2 and "read-only" in err
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    code, _, err = kzc(capsys, secured, "user", "set-password", "gina", "--mechanism", "SCRAM-SHA-256",
                       "--password-env", "KZC_TEST_PASSWORD", "--yes", "--read-only")  # fmt: skip
    assert code == 2 and "read-only" in err
    assert last(audit_file, "user set-password", "refused")
    code, out, err = kzc(capsys, secured, "acl", "add", *grant, "--via", "zookeeper", "--json")
    assert code == 0, err
    assert out["via"] == "zookeeper" and out["path"].startswith("--via zookeeper: written through ZooKeeper")
    assert out["writes"][1]["data"] == "Topic:ro-topic"  # the change event 2.4+ brokers read as a literal one


@pytest.fixture(scope="module")
def open_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """3.9 without an authorizer."""
    box = Sandbox.up(tmp_path_factory.mktemp("paths-open"), brokers=1, timeout=240)
    try:
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def test_brokers_that_refuse_create_acls_are_said_and_nothing_is_written_to_zookeeper(
    open_box: Sandbox, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    grant = ["--principal", "User:hal", "--operation", "Read", "--topic", "no-authorizer", "--yes"]
    code, _, err = kzc(capsys, open_box, "acl", "add", *grant)
    assert code == 2, err
    assert "Security features are disabled" in err or "No Authorizer is configured" in err
    assert "nothing was written through ZooKeeper instead" in err and "--via zookeeper" in err
    with zk_client(open_box.info().zookeeper) as zk:
        assert zk.exists("/kafka-acl/Topic/no-authorizer") is None
    refused = last(audit_file, "acl add", "refused")
    assert refused["details"]["via"] == "admin" and "--via zookeeper" in refused["message"]


@pytest.fixture(scope="module")
def old_box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    box = Sandbox.up(tmp_path_factory.mktemp("paths-111"), brokers=1, security=True, kafka_version="1.1.1", timeout=240)
    try:
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def test_on_1_1_users_go_through_zookeeper_and_literal_acls_through_create_acls_v0(
    old_box: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, audit_file: Path
) -> None:
    out = set_password(capsys, old_box, monkeypatch, "ivan")
    assert out["via"] == "zookeeper"
    assert out["path"].startswith("broker 1 has no AlterUserScramCredentials (Kafka 2.7.0+")
    assert "as kafka-configs --zookeeper --entity-type users did before 2.7" in out["path"]
    assert last(audit_file, "user set-password", "applied")["details"]["via"] == "zookeeper"
    assert wait_until(lambda: authenticates(old_box, "ivan", PASSWORD), 60, "ivan to log in on 1.1.1")
    _, listed, _ = kzc(capsys, old_box, "user", "list", "--json")
    assert listed["path"] == "zookeeper" and "no DescribeUserScramCredentials" in listed["path_reason"]

    topic, group = f"old-{uuid.uuid4().hex[:6]}", f"old-g-{uuid.uuid4().hex[:6]}"
    make_topic(capsys, old_box, topic)
    for resource in (["--group", group], ["--topic", topic]):
        code, out, err = kzc(capsys, old_box, "acl", "add", "--principal", "User:ivan", "--operation", "Read",
                             *resource, "--yes", "--json")  # fmt: skip
        assert code == 0, err
        assert out["via"] == "admin" and out["requests"][0]["api"] == "CreateAcls"
    assert wait_until(lambda: reads(old_box, "ivan", topic, group), 60, "ivan to read on 1.1.1 after CreateAcls v0")

    code, _, err = kzc(capsys, old_box, "acl", "add", "--principal", "User:ivan", "--operation", "Read", "--topic",
                       "old-", "--pattern", "prefixed", "--yes")  # fmt: skip
    assert code == 2
    assert "Version 0 only supports literal resource pattern types (broker 1 serves CreateAcls v0-v0" in err
    for broker_log in Path(old_box.dir).rglob("server.log"):
        assert "Invalid version for API key" not in broker_log.read_text(errors="replace")
    assert PASSWORD not in "\n".join(OUTPUTS) + audit_file.read_text()


@pytest.mark.cluster(secured_key("2.0.1"))  # test_security's 2.0.1 cluster too: kim, pre- topics are this test's
def test_on_2_0_a_prefixed_acl_goes_through_create_acls_v1_and_allows_the_client(
    clusters: Clusters, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    box = clusters.get(secured_key("2.0.1"))
    assert set_password(capsys, box, monkeypatch, "kim")["via"] == "zookeeper"  # no AlterUserScramCredentials
    topic, group = f"pre-{uuid.uuid4().hex[:6]}", f"pre-g-{uuid.uuid4().hex[:6]}"
    make_topic(capsys, box, topic)
    assert (
        kzc(capsys, box, "acl", "add", "--principal", "User:kim", "--operation", "Read", "--group", group, "--yes")[0]
        == 0
    )
    assert not reads(box, "kim", topic, group)
    code, out, err = kzc(capsys, box, "acl", "add", "--principal", "User:kim", "--operation", "Read", "--topic",
                         "pre-", "--pattern", "prefixed", "--yes", "--json")  # fmt: skip
    assert code == 0, err
    assert (out["via"], out["requests"][0]["pattern_type"]) == ("admin", "PREFIXED")
    assert wait_until(lambda: reads(box, "kim", topic, group), 60, "kim to read through the prefixed ACL")
    with zk_client(box.info().zookeeper) as zk:  # Kafka 2.0's authorizer keeps it in the extended store
        assert zk.exists("/kafka-acl-extended/prefixed/Topic/pre-") is not None
