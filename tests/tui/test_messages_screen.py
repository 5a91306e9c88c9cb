"""The messages screen: ``m`` on a topic opens its messages read in a worker (newest last, values previewed by
what they are, nothing that drives the terminal), ``M`` a partition's; Enter opens one whole (a cut value read
again); ``f`` follows; the rows kept are bounded."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
from textual.widgets import Static, TextArea

from core.messages.reader import Message, TailRequest
from tests.recorded_backend import RecordedBackend, RecordedStream
from tests.tui.helpers import BIG_VALUE, MESSAGES_TOPIC, settle, type_fast
from tui.app import KzcApp
from tui.messages import MessagesChosen, TopicChosen
from tui.screens import messages as messages_screen
from tui.screens.messages import KEPT_BYTES, MessageScreen, MessagesScreen
from tui.widgets.virtual_table import VirtualTable

MakeApp = Callable[..., KzcApp]


async def test_m_on_the_topic_detail_opens_its_messages_and_enter_opens_one_whole(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.post_message(TopicChosen(MESSAGES_TOPIC))
        await settle(pilot)
        await pilot.press("m")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MessagesScreen) and screen.partition is None
        table = screen.query_one("#messages", VirtualTable)
        rows = table.visible_rows()
        assert [(r.cells[0], r.cells[1]) for r in rows] == [("0", "0"), ("1", "0"), ("0", "1"), ("1", "1"), ("0", "2")]
        assert rows[0].cells[5] == '{"id":1,"items":["apple","pear"],"total":12.5}'
        assert rows[2].cells[3] == "(null)" and rows[2].cells[5].startswith("<hex> 000102")
        assert rows[3].cells[5].startswith("<hex>")  # the escape sequence never reaches the terminal
        assert rows[4].cells[4] == "5.0 MiB"
        big = rows[4].data
        assert isinstance(big, Message) and big.is_cut and len(big.value or b"") == KEPT_BYTES
        assert table.cursor_row == 4  # newest last, cursor on it
        header = str(screen.query_one("#messages-header", Static).render())
        assert "5 messages kept" in header and "read to the end (f follows new messages)" in header
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, MessageScreen)
        text = app.screen.query_one("#message-text", TextArea).text
        assert "headers: kind=bulk" in text and "value: text, 5.0 MiB (5,242,880 bytes)" in text
        assert BIG_VALUE.decode() in text  # read again, whole
        await pilot.press("escape", "home", "enter")
        await settle(pilot)
        text = app.screen.query_one("#message-text", TextArea).text
        assert '  "items": [\n' in text and "headers: trace=abc" in text  # JSON opened pretty


async def test_M_opens_the_highlighted_partitions_messages(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.post_message(TopicChosen(MESSAGES_TOPIC))
        await settle(pilot)
        await pilot.press("down", "M")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MessagesScreen) and screen.partition == 1
        rows = screen.query_one("#messages", VirtualTable).visible_rows()
        assert {r.cells[0] for r in rows} == {"1"} and len(rows) == 2


async def test_f_follows_and_stops_following(make_app: MakeApp) -> None:
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.post_message(MessagesChosen(MESSAGES_TOPIC))
        await settle(pilot)
        await pilot.press("f")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, MessagesScreen) and screen.following
        assert "following new messages (f stops)" in str(screen.query_one("#messages-header", Static).render())
        await pilot.press("f")
        await settle(pilot)
        assert not screen.following


async def test_the_rows_kept_are_bounded(make_app: MakeApp, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(messages_screen, "MAX_ROWS", 3)
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.post_message(MessagesChosen(MESSAGES_TOPIC))
        await settle(pilot)
        rows = app.screen.query_one("#messages", VirtualTable).visible_rows()
        assert [(r.cells[0], r.cells[1]) for r in rows] == [("0", "1"), ("1", "1"), ("0", "2")]  # the newest 3


async def test_a_read_superseded_by_following_never_draws_over_it(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The first read is still opening when f starts the follower; what it hands over late is dropped.
    opened = RecordedBackend.open_messages
    release, closed = threading.Event(), threading.Event()

    class Superseded(RecordedStream):
        def close(self) -> None:  # after its notes were handed over (call_from_thread waits for the screen)
            super().close()
            closed.set()

    def slow_first(backend: RecordedBackend, request: TailRequest) -> RecordedStream:
        if not request.follow:
            release.wait(10)
            return Superseded([], ("the superseded read",))
        return opened(backend, request)

    monkeypatch.setattr(RecordedBackend, "open_messages", slow_first)
    app = make_app()
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.post_message(MessagesChosen(MESSAGES_TOPIC))
        deadline = time.monotonic() + 10
        while not isinstance(app.screen, MessagesScreen):  # not settle: it would wait for the blocked read
            assert time.monotonic() < deadline, "the messages screen never opened"
            await pilot.pause(0.05)
        screen = app.screen
        type_fast(app, "f")
        while screen.notes != ("recorded messages",):  # the follower drew first
            assert time.monotonic() < deadline, "the follower never started"
            await pilot.pause(0.05)
        release.set()
        while not closed.is_set():  # the superseded read hands its notes over, late
            assert time.monotonic() < deadline + 10, "the superseded read never ended"
            await pilot.pause(0.05)
        await settle(pilot)
        assert screen.notes == ("recorded messages",) and screen.following
        assert "the superseded read" not in str(screen.query_one("#messages-header", Static).render())
