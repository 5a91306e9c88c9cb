"""The security screen's forms on a real secured sandbox (``Sandbox.up(security=True)``: a SCRAM listener,
the ZooKeeper authorizer): a password set from the console lets a SCRAM client authenticate, the client is
really denied the topic, and an ACL added from the console (previewed, confirmed by typing the topic's name)
lets it read; both changes are audited as ``from: console`` and the password appears in no audit line and
on no screen."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition
from textual.pilot import Pilot
from textual.widgets import Input, Static

from core.config import ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.console.zk import ZkBackend
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.sandbox_tools import eventually
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.screens.security import SecurityScreen
from tui.screens.security_forms import AclFormScreen, UserFormScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration

PASSWORD = "pw-" + uuid.uuid4().hex


def scram(secured: Sandbox, user: str, group: str) -> dict[str, Any]:
    return {
        "bootstrap.servers": secured.info().sasl_bootstrap_servers,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": "SCRAM-SHA-256",
        "sasl.username": user,
        "sasl.password": PASSWORD,
        "group.id": group,
        "enable.auto.commit": False,
    }


def first_message(config: dict[str, Any], topic: str) -> bytes | None:
    """The first message of partition 0 read by a fresh consumer (None: none came, or an error)."""
    reader = Consumer(config)
    try:
        reader.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        message = reader.poll(2.0)
        return message.value() if message is not None and not message.error() else None
    finally:
        reader.close()


def shown(app: KzcApp, widget: str) -> str:
    return str(app.screen.query_one(f"#{widget}", Static).render())


async def apply_form(pilot: Pilot[None], app: KzcApp, fields: dict[str, str], confirmation: str) -> str:
    """Fill the open form, preview, type the confirmation, apply; the status once done or refused."""
    for widget, value in fields.items():
        app.screen.query_one(f"#{widget}", Input).value = value
    await pilot.press("ctrl+d")
    await settle(pilot)
    assert f"Type {confirmation} and press Enter" in shown(app, "security-status"), shown(app, "security-preview")
    app.screen.query_one("#confirm", Input).value = confirmation
    await pilot.press("ctrl+s")
    await settle(pilot)
    return shown(app, "security-status")


async def test_a_password_and_an_acl_set_from_the_console_let_the_denied_client_read(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(audit))
    zookeeper = secured.info().zookeeper
    user, topic, group = f"u{uuid.uuid4().hex[:6]}", f"t{uuid.uuid4().hex[:6]}", f"g{uuid.uuid4().hex[:6]}"
    for argv in (
        ("topic", "create", topic, "--partitions", "1", "--replication-factor", "1", "--yes"),
        ("acl", "add", "--principal", f"User:{user}", "--operation", "Read", "--group", group, "--yes"),
    ):
        code, _, err = run(capsys, *argv, "--zookeeper", zookeeper)
        assert code == 0, err
    producer = Producer({"bootstrap.servers": secured.info().bootstrap_servers})
    producer.produce(topic, b"payload")
    assert producer.flush(30) == 0

    settings = ConnectionSettings(zookeeper=parse_zookeeper(zookeeper))
    app = KzcApp(settings, backend=ZkBackend(settings), warm_spark=False)
    screens: list[str] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the first view")
        await pilot.press("A")
        await eventually(pilot, lambda: isinstance(app.screen, SecurityScreen), 10, "the security screen")
        await pilot.press("3", "plus")
        await eventually(pilot, lambda: isinstance(app.screen, UserFormScreen), 10, "the password form")
        status = await apply_form(pilot, app, {"user": user, "password": PASSWORD, "again": PASSWORD}, user)
        assert status.startswith(f"Done in ZooKeeper: user {user} now has SCRAM-SHA-256."), status
        screens.append(app.export_screenshot())

        denied = Consumer(scram(secured, user, group))
        try:
            metadata = denied.list_topics(topic, timeout=30)
            assert metadata.topics[topic].error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
        finally:
            denied.close()

        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("1", "plus")
        await eventually(pilot, lambda: isinstance(app.screen, AclFormScreen), 10, "the ACL form")
        fields = {"principal": f"User:{user}", "operation": "Read", "name": topic}
        status = await apply_form(pilot, app, fields, topic)
        assert status.startswith(f"Done: added on Topic:{topic} in ZooKeeper"), status
        assert f"/kafka-acl/Topic/{topic}" in shown(app, "security-preview")
        screens.append(app.export_screenshot())
        await pilot.press("escape")
        await settle(pilot)
        acl = ("Topic", "LITERAL", topic, f"User:{user}", "*", "Read", "Allow")
        table = app.screen.query_one("#security-acls", VirtualTable)
        await eventually(pilot, lambda: acl in [r.cells for r in table.visible_rows()], 30, "the ACL, read again")
        screens.append(app.export_screenshot())

    config = scram(secured, user, group)
    assert wait_until(lambda: first_message(config, topic), 60, f"{user} to read once the ACL is there") == b"payload"
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    applied = [(line["operation"], line["outcome"]) for line in lines if line["arguments"].get("from") == "console"]
    assert ("user set-password", "applied") in applied and ("acl add", "applied") in applied
    assert PASSWORD not in audit.read_text()
    assert all(PASSWORD not in screen for screen in screens)


def cli(capsys: pytest.CaptureFixture[str], secured: Sandbox, *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--zookeeper", secured.info().zookeeper)
    assert code == 0, err
    return out


async def open_acl_form(pilot: Pilot[None], app: KzcApp, key: str = "plus", row: str | None = None) -> None:
    await eventually(pilot, lambda: app.view is not None, 60, "the first view")
    await pilot.press("A")
    await eventually(pilot, lambda: isinstance(app.screen, SecurityScreen), 10, "the security screen")
    if row is not None:
        table = app.screen.query_one("#security-acls", VirtualTable)
        await eventually(pilot, lambda: table.move_to_key(row), 30, "the ACL's row")
    await pilot.press(key)
    await eventually(pilot, lambda: isinstance(app.screen, AclFormScreen), 10, "the ACL form")


async def test_read_only_previews_and_refuses_with_the_clis_message(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    audit = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(audit))
    topic = f"t{uuid.uuid4().hex[:6]}"
    settings = ConnectionSettings(zookeeper=parse_zookeeper(secured.info().zookeeper), read_only=True)
    app = KzcApp(settings, backend=ZkBackend(settings), warm_spark=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await open_acl_form(pilot, app)
        status = await apply_form(pilot, app, {"principal": "User:mallory", "operation": "Write", "name": topic}, topic)
        assert status == "Refused: kzc is read-only (read-only mode): refusing every mutation"
        assert "+ Allow User:mallory Write from *" in shown(app, "security-preview")  # the preview is a dry run
    assert cli(capsys, secured, "acl", "list", "--topic", topic, "--json")["acls"] == []
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(line["operation"], line["outcome"]) for line in lines] == [("acl add", "refused")]  # and no intent


async def test_removing_through_the_brokers_denies_the_client_again(
    secured: Sandbox, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    monkeypatch.setenv("KZC_TEST_PASSWORD", PASSWORD)
    user, topic, group = f"u{uuid.uuid4().hex[:6]}", f"t{uuid.uuid4().hex[:6]}", f"g{uuid.uuid4().hex[:6]}"
    cli(capsys, secured, "topic", "create", topic, "--partitions", "1", "--replication-factor", "1", "--yes")
    cli(capsys, secured, "user", "set-password", user, "--mechanism", "SCRAM-SHA-256", "--password-env",
        "KZC_TEST_PASSWORD", "--yes")  # fmt: skip
    for argv in (("--group", group), ("--topic", topic)):
        cli(capsys, secured, "acl", "add", "--principal", f"User:{user}", "--operation", "Read", *argv, "--yes")
    producer = Producer({"bootstrap.servers": secured.info().bootstrap_servers})
    producer.produce(topic, b"payload")
    assert producer.flush(30) == 0
    config = scram(secured, user, group)
    assert wait_until(lambda: first_message(config, topic), 60, f"{user} to read") == b"payload"

    info = secured.info()
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper), bootstrap_servers=parse_bootstrap(info.bootstrap_servers)
    )
    app = KzcApp(settings, backend=ZkBackend(settings), warm_spark=False)
    async with app.run_test(size=(120, 40)) as pilot:
        row = "\x00".join(("Topic", "LITERAL", topic, f"User:{user}", "*", "Read", "Allow"))
        await open_acl_form(pilot, app, "minus", row)
        status = await apply_form(pilot, app, {}, topic)
        assert "via the brokers (DeleteAcls)" in shown(app, "security-preview")
        assert status.startswith(f"Done: removed on Topic:{topic} through the brokers (DeleteAcls)"), status

    def denied() -> bool:
        consumer = Consumer(config)
        try:
            error = consumer.list_topics(topic, timeout=30).topics[topic].error
            return error is not None and error.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED
        finally:
            consumer.close()

    assert wait_until(denied, 60, f"{user} to be denied once the ACL is gone")
