"""A topic config written from the console, on the real sandbox: after ``Written.`` the topic detail shows the
new value at once, read back from ZooKeeper after the write (config znodes are not watched: without the
read-back it stayed "no config overrides" until an unrelated full re-read)."""

from __future__ import annotations

from typing import Any, TypeVar

import pytest
from textual.screen import Screen
from textual.widgets import Input, Static

from core.brokers.admin import KafkaAdmin
from core.config import PLAINTEXT, ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.sandbox.local_cluster import Sandbox
from tests.integration.sandbox_tools import eventually, in_thread
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.messages import TopicChosen
from tui.screens.config_edit import ConfigEditScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration
S = TypeVar("S", bound=Screen[Any])


def create_topic(sandbox: Sandbox, name: str) -> None:
    admin = KafkaAdmin(parse_bootstrap(sandbox.info().bootstrap_servers), security=PLAINTEXT, timeout=60)
    try:
        admin.create_topic(name, [[1, 2], [2, 3]], {})
    finally:
        admin.close()


def screen_of(app: KzcApp, kind: type[S]) -> S | None:
    screen = app.screen
    return screen if isinstance(screen, kind) else None


async def test_a_config_written_from_the_console_shows_in_its_topic_detail_at_once(
    sandbox: Sandbox, unique_name: str
) -> None:
    await in_thread(lambda: create_topic(sandbox, unique_name))
    settings = ConnectionSettings(zookeeper=parse_zookeeper(sandbox.info().zookeeper), context="sandbox")
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(
            pilot, lambda: app.view is not None and unique_name in app.view.snapshot.topics, 60, "the new topic"
        )
        app.post_message(TopicChosen(unique_name))
        detail = await eventually(pilot, lambda: screen_of(app, TopicDetailScreen), 10, "the topic detail")
        assert detail is not None
        configs = detail.query_one("#configs", VirtualTable)
        assert configs.visible_rows() == []
        await pilot.press("C")
        editor = await eventually(pilot, lambda: screen_of(app, ConfigEditScreen), 10, "the config editor")
        assert editor is not None
        editor.query_one("#set", Input).value = "retention.ms=1234567"
        await settle(pilot)
        await pilot.press("ctrl+d")
        diff = editor.query_one("#diff", Static)
        await eventually(pilot, lambda: "retention.ms" in str(diff.render()), 30, "the diff")
        editor.query_one("#confirm", Input).value = unique_name
        await settle(pilot)
        await pilot.press("ctrl+s")
        status = editor.query_one("#status", Static)
        await eventually(pilot, lambda: "Written." in str(status.render()), 30, "the write")
        assert "retention.ms=1234567" in str(editor.query_one("#current", Static).render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is detail
        assert [(r.key, r.cells[1]) for r in configs.visible_rows()] == [("retention.ms", "1234567")]
