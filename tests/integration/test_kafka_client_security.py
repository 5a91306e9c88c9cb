"""kzc's Kafka clients over a SASL_PLAINTEXT SCRAM listener of a real secured sandbox (``Sandbox.up(security=
True)``): with ``--bootstrap-server`` naming only that listener and the admin's password in
``KZC_KAFKA_SASL_PASSWORD``, ``kzc groups``, ``kzc tail`` and ``kzc describe`` work; ``kzc tail`` without
``--bootstrap-server`` finds the brokers' registered SASL_PLAINTEXT listeners; a wrong password is refused by
the broker (so SASL really is spoken); and the password appears in no output.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from core.sandbox.local_cluster import Sandbox
from core.sandbox.security import ADMIN_USER, admin_password
from tests.cli_runner import run

TOPIC = f"sasl-{uuid.uuid4().hex[:8]}"
GROUP = f"sasl-g-{uuid.uuid4().hex[:8]}"
MESSAGES = 5
OUTPUTS: list[str] = []  # every stdout and stderr of kzc in this module


@pytest.fixture(scope="module")
def secured(secured: Sandbox) -> Sandbox:
    """The shared secured sandbox (one broker) with this module's topic of ``MESSAGES`` messages and a group with
    committed offsets."""
    info = secured.info()
    admin = AdminClient({"bootstrap.servers": info.bootstrap_servers})
    admin.create_topics([NewTopic(TOPIC, 1, 1)])[TOPIC].result(timeout=60)
    delivered: list[object] = []
    producer = Producer({"bootstrap.servers": info.bootstrap_servers})
    for n in range(MESSAGES):
        producer.produce(TOPIC, f"message {n}".encode(), on_delivery=lambda e, _m: delivered.append(e))
    assert producer.flush(60) == 0 and delivered == [None] * MESSAGES, delivered
    consumer = Consumer({"bootstrap.servers": info.bootstrap_servers, "group.id": GROUP})
    try:
        consumer.commit(offsets=[TopicPartition(TOPIC, 0, 2)], asynchronous=False)
    finally:
        consumer.close()
    return secured


@pytest.fixture
def password(secured: Sandbox, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The admin's password, in ``KZC_KAFKA_SASL_PASSWORD`` (and an empty audit file of this module's own)."""
    secret = admin_password(secured.dir)
    monkeypatch.setenv("KZC_KAFKA_SASL_PASSWORD", secret)
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path_factory.mktemp("audit") / "audit.jsonl"))
    return secret


def sasl_flags(mechanism: str = "SCRAM-SHA-256") -> list[str]:
    return ["--kafka-security-protocol", "SASL_PLAINTEXT", "--kafka-sasl-mechanism", mechanism,
            "--kafka-sasl-username", ADMIN_USER]  # fmt: skip


def kzc(
    capsys: pytest.CaptureFixture[str], secured: Sandbox, *argv: str, sasl_only: bool = True
) -> tuple[int, Any, str]:
    info = secured.info()
    bootstrap = ["--bootstrap-server", info.sasl_bootstrap_servers] if sasl_only else []
    code, out, err = run(capsys, *argv, "--zookeeper", info.zookeeper, *bootstrap)
    OUTPUTS.append(out if isinstance(out, str) else json.dumps(out))
    OUTPUTS.append(err)
    return code, out, err


def test_the_bootstrap_is_only_the_sasl_listener(secured: Sandbox) -> None:
    info = secured.info()
    assert info.sasl_bootstrap_servers and not set(info.sasl_bootstrap_servers.split(",")) & set(
        info.bootstrap_servers.split(",")
    )


def test_groups_and_their_lag_are_read_over_sasl(
    secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kzc(capsys, secured, "groups", "--json", *sasl_flags())
    assert code == 0, err
    assert GROUP in json.dumps(out), out


def test_tail_reads_the_messages_over_sasl(secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = kzc(
        capsys, secured, "tail", TOPIC, "--offset", "0", "--count", str(MESSAGES), *sasl_flags("SCRAM-SHA-512")
    )
    assert code == 0, err
    text = out if isinstance(out, str) else json.dumps(out)
    assert all(f"message {n}" in text for n in range(MESSAGES)), text


def test_tail_without_bootstrap_finds_the_registered_sasl_listeners(
    secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kzc(
        capsys, secured, "tail", TOPIC, "--offset", "0", "--count", "1", *sasl_flags(), sasl_only=False
    )
    assert code == 0, err
    assert "the SASL_PLAINTEXT listeners registered by brokers" in err and "message 0" in str(out)


def test_describe_reads_the_brokers_static_min_isr_over_sasl(
    secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kzc(capsys, secured, "describe", "--json", *sasl_flags())
    assert code == 0, err
    assert "could not be read through --bootstrap-server" not in json.dumps(out) + err


def test_describe_sizes_log_in_to_the_sasl_listener_with_kzc_s_own_request(
    secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """DescribeLogDirs is kzc's own request: it goes to the broker's SASL_PLAINTEXT listener and logs in there
    (SCRAM), so the topic's size is known; with a wrong password the broker refuses and the size is unknown,
    saying why."""
    code, out, err = kzc(capsys, secured, "describe", "--sizes", "--json", *sasl_flags("SCRAM-SHA-512"))
    assert code == 0, err
    assert out["sizes"]["brokers"]["1"]["unknown"] is None and TOPIC in out["sizes"]["topics"], out["sizes"]
    wrong = "wrong-" + uuid.uuid4().hex
    monkeypatch.setenv("KZC_KAFKA_SASL_PASSWORD", wrong)
    code, out, err = kzc(capsys, secured, "describe", "--sizes", "--json", *sasl_flags("SCRAM-SHA-512"))
    unknown = out["sizes"]["brokers"]["1"]["unknown"]
    assert code == 0 and "refused kzc's SASL authentication" in unknown, (unknown, err)
    assert wrong not in json.dumps(out) + err


def test_kzc_broker_reads_its_log_dirs_on_the_sasl_listener(
    secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = kzc(capsys, secured, "broker", "1", "--json", *sasl_flags())
    assert code == 0, err
    assert out["log_note"] is None and f"{TOPIC}-0" in out["log_sizes"], out


def test_a_wrong_password_is_refused_by_the_broker_and_not_shown(
    secured: Sandbox, password: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "wrong-" + uuid.uuid4().hex
    monkeypatch.setenv("KZC_KAFKA_SASL_PASSWORD", wrong)
    code, out, err = kzc(capsys, secured, "groups", *sasl_flags())
    assert code != 0
    assert "refused kzc's authentication" in err and "SCRAM-SHA-256" in err, (out, err)
    assert wrong not in str(out) + err
    code, out, err = kzc(capsys, secured, "tail", TOPIC, "--offset", "0", "--count", "1", *sasl_flags())
    assert code != 0 and "refused kzc's authentication" in err, (out, err)
    assert wrong not in str(out) + err


def test_the_password_appears_in_no_output(password: str) -> None:
    assert OUTPUTS and not [o for o in OUTPUTS if password in o]
