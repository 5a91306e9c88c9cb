"""The console's messages screen on the sandbox: a topic's messages read in a worker while keys stay live,
``f`` follows a message produced afterwards, Enter opens one whole; no consumer group is left."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic
from textual.widgets import TextArea

from core.config import ConnectionSettings, UserConfig
from core.connect import parse_zookeeper
from core.messages.reader import GROUP_PREFIX
from core.sandbox.local_cluster import Sandbox
from tests.integration.sandbox_tools import eventually, in_thread
from tui.app import KzcApp
from tui.messages import MessagesChosen
from tui.screens.messages import MessageScreen, MessagesScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration


def _produce(box: Sandbox, topic: str, key: bytes, value: bytes) -> None:
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers})
    producer.produce(topic, key=key, value=value, partition=0)
    assert producer.flush(30) == 0


async def test_the_messages_screen_reads_follows_and_opens_a_message(sandbox: Sandbox) -> None:
    topic = f"console-messages-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    await in_thread(lambda: _produce(sandbox, topic, b"k1", b'{"first": true}'))
    settings = ConnectionSettings(zookeeper=parse_zookeeper(sandbox.info().zookeeper), context="sandbox")
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the console to connect")
        app.post_message(MessagesChosen(topic))
        screen = await eventually(
            pilot, lambda: app.screen if isinstance(app.screen, MessagesScreen) else None, 10, "the messages screen"
        )
        table = screen.query_one("#messages", VirtualTable)
        await eventually(pilot, lambda: table.row_count == 1, 30, "the first message")
        assert table.row_at(0).cells[3] == "k1" and table.row_at(0).cells[5] == '{"first":true}'
        await pilot.press("f")
        await eventually(pilot, lambda: screen.following, 5, "follow mode")
        await eventually(pilot, lambda: "from the end" in " ".join(screen.notes), 30, "the follower to start")
        await in_thread(lambda: _produce(sandbox, topic, b"k2", b"second"))
        await eventually(pilot, lambda: table.row_count == 2, 30, "the followed message")
        assert table.row_at(1).cells[3] == "k2"
        await pilot.press("f", "end", "enter")
        await eventually(pilot, lambda: isinstance(app.screen, MessageScreen), 10, "the message screen")
        text = app.screen.query_one("#message-text", TextArea).text
        assert "key: k2" in text and "second" in text and "(CreateTime)" in text
    listed = admin.list_consumer_groups(request_timeout=15).result()
    assert not [g.group_id for g in listed.valid if g.group_id.startswith(GROUP_PREFIX)]


async def test_quitting_while_following_leaves_cleanly(sandbox: Sandbox) -> None:
    topic = f"console-quit-{uuid.uuid4().hex[:8]}"
    admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(30)
    settings = ConnectionSettings(zookeeper=parse_zookeeper(sandbox.info().zookeeper), context="sandbox")
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the console to connect")
        app.post_message(MessagesChosen(topic))
        screen = await eventually(
            pilot, lambda: app.screen if isinstance(app.screen, MessagesScreen) else None, 10, "the messages screen"
        )
        await pilot.press("f")
        await eventually(pilot, lambda: "from the end" in " ".join(screen.notes), 30, "the follower to start")
        await pilot.press("q")  # the follower's worker stops at its next poll and closes its consumer
    listed = admin.list_consumer_groups(request_timeout=15).result()
    assert not [g.group_id for g in listed.valid if g.group_id.startswith(GROUP_PREFIX)]
