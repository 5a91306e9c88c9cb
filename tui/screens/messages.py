"""The messages screen (``m`` on a topic, ``M`` on a partition): a topic's messages read without a trace
(``core.messages``: no group, nothing committed), newest last, and the message screen (Enter) with one message
whole.

The read runs in a worker that hands over batches, so a slow or compressed topic never blocks a key; ``f``
follows new messages (and stops following). At most ``MAX_ROWS`` messages are kept, each with at most
``KEPT_BYTES`` of its value: memory stays bounded whatever the topic holds, and Enter reads the message again,
whole, in a worker.
"""

from __future__ import annotations

from collections import deque
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static, TextArea
from textual.worker import get_current_worker

from core.console.protocols import MessageSource, MessageStream
from core.human_size import human_size
from core.messages.present import message_lines, value_preview
from core.messages.reader import Message, TailRequest
from core.messages.render import utc_millis_text
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

MAX_ROWS = 2000  # the newest messages kept; older ones drop off the top
KEPT_BYTES = 4096  # of each value kept for the table (the message screen reads it again, whole)
FIRST_FROM_END = 100  # offsets back from each partition's end when the screen opens
_POLL_S = 0.2  # a poll waits at most this: also how soon leaving the screen stops the read
_PREVIEW = 200  # characters of a value in the table
WRAP_LIMIT = 20_000  # characters: a longer line is not wrapped in the message view (see _wraps)

COLUMNS = (
    Column("partition", "p", align="right"),
    Column("offset", "offset", align="right"),
    Column("time", "time (UTC)"),
    Column("key", "key", max_width=24),
    Column("size", "size", align="right"),
    Column("value", "value", max_width=_PREVIEW),
)


def message_row(message: Message) -> Row:
    """One message as a table row (off the UI thread: the preview renders the value)."""
    key = "(null)" if message.key is None else value_preview(Message(
        message.topic, message.partition, message.offset, None, None, None, message.key, None
    ), 24)  # fmt: skip
    stamp = utc_millis_text(message.timestamp_ms)[:-4] if message.timestamp_ms is not None else "-"
    cells = (str(message.partition), str(message.offset), stamp, key, human_size(message.size),
             value_preview(message, _PREVIEW))  # fmt: skip
    values = (message.partition, message.offset, message.timestamp_ms or 0, key, message.size, cells[5])
    return Row(f"{message.partition}:{message.offset}", cells, frozenset(), values, message)


class MessagesScreen(KzcScreen):
    """A topic's (or a partition's) messages."""

    VIEW_NAME = "messages"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f", "follow", "Follow", id="messages_follow"),
        Binding("r", "reload", "Reload", id="messages_reload"),
    ]

    def __init__(self, topic: str, partition: int | None, source: MessageSource) -> None:
        super().__init__()
        self.topic = topic
        self.partition = partition
        self.source = source
        self.following = False
        self.rows: deque[Row] = deque(maxlen=MAX_ROWS)  # row.data: the message, its value cut to KEPT_BYTES
        self.notes: tuple[str, ...] = ("reading…",)
        self.problem: str | None = None
        self.headers_unsupported: str | None = None
        self._reading = 0  # which read the screen shows: a superseded read's late results are dropped

    @property
    def heading(self) -> str:
        """``orders`` or ``orders [3]``."""
        return self.topic if self.partition is None else f"{self.topic} [{self.partition}]"

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Static("", id="messages-header", classes="panel")
        yield VirtualTable(COLUMNS, empty_text="no message read yet", id="messages", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#messages-header").border_title = f"Messages of {self.heading}"
        self.query_one("#messages", VirtualTable).focus()
        self._draw_header()
        self._read(TailRequest(self.topic, self.partition, from_end=FIRST_FROM_END))

    def _read(self, request: TailRequest) -> None:
        self._reading += 1
        self._read_stream(request, self._reading)

    @work(thread=True, exclusive=True, exit_on_error=False, group="messages")
    def _read_stream(self, request: TailRequest, reading: int) -> None:
        # The one screen whose worker hands results over with call_from_thread, not a typed message: a stream,
        # the reader waits until each batch is drawn, so a fast topic cannot pile rows up in the message queue
        # (bounded memory) and start, rows and end arrive in order. Cancelling the worker does not stop a call
        # already on its way, so each one names its read and the screen drops those of a superseded read.
        worker = get_current_worker()
        stream: MessageStream | None = None
        try:
            stream = self.source.open_messages(request)
            self.app.call_from_thread(self._started, reading, stream.notes, stream.headers_unsupported)
            while not worker.is_cancelled and not stream.finished:
                batch = stream.poll(_POLL_S)
                if batch:
                    rows = [message_row(m.cut(KEPT_BYTES)) for m in batch]
                    if not worker.is_cancelled:
                        self.app.call_from_thread(self._arrived, reading, rows)
        except Exception as exc:  # shown on the screen; the app's handler notifies as well
            if not worker.is_cancelled:
                self.app.call_from_thread(self._failed, reading, str(exc))
            raise
        finally:
            if stream is not None:
                stream.close()
        if not worker.is_cancelled:
            self.app.call_from_thread(self._ended, reading)

    def _started(self, reading: int, notes: tuple[str, ...], headers_unsupported: str | None) -> None:
        if reading != self._reading:
            return
        self.notes, self.problem, self.headers_unsupported = notes, None, headers_unsupported
        self._draw_header()

    def _arrived(self, reading: int, rows: list[Row]) -> None:
        if reading != self._reading:
            return
        table = self.query_one("#messages", VirtualTable)
        at_bottom = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        self.rows.extend(rows)
        table.set_rows(list(self.rows))
        if at_bottom:
            table.action_last()  # newest last, and followed while the cursor stays on it
        self._draw_header()

    def _failed(self, reading: int, problem: str) -> None:
        if reading != self._reading:
            return
        self.problem = problem
        self.following = False
        self._draw_header()

    def _ended(self, reading: int) -> None:
        if reading == self._reading and not self.following:
            self.notes = (*self.notes, "read to the end (f follows new messages)")
            self._draw_header()

    def _draw_header(self) -> None:
        if not self.is_mounted:
            return
        mode = "following new messages (f stops)" if self.following else "not following (f follows)"
        lines = [f"{self.heading} · {len(self.rows):,} messages kept (newest {MAX_ROWS:,}) · {mode}"]
        lines.append(" · ".join(self.notes))
        if self.problem:
            lines.append(f"cannot read: {self.problem}")
        self.query_one("#messages-header", Static).update("\n".join(lines))

    def action_follow(self) -> None:
        """Follow new messages from the end, or stop following."""
        self.following = not self.following
        if self.following:
            self._read(TailRequest(self.topic, self.partition, from_end=0, follow=True))
        else:
            self._reading += 1  # what the follower still sends is dropped
            self.workers.cancel_group(self, "messages")
        self._draw_header()

    def action_reload(self) -> None:
        """Read the last messages again (following stops)."""
        self.following = False
        self.rows.clear()
        self.query_one("#messages", VirtualTable).set_rows([])
        self.notes = ("reading…",)
        self._draw_header()
        self._read(TailRequest(self.topic, self.partition, from_end=FIRST_FROM_END))

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        message = event.row.data
        if isinstance(message, Message):
            self.app.push_screen(MessageScreen(message, self.source, self.headers_unsupported))


def _wraps(text: str) -> bool:
    """Whether the message view wraps ``text``: not when a line is longer than ``WRAP_LIMIT`` (a 5 MiB value on one
    line took Textual 15 s to wrap on the UI thread); such a line scrolls sideways instead."""
    return all(len(line) <= WRAP_LIMIT for line in text.split("\n"))


class MessageScreen(KzcScreen):
    """One message whole: where and when, key, headers, and the value pretty (JSON), as text, or as hex."""

    VIEW_NAME = "message"

    def __init__(self, message: Message, source: MessageSource, headers_unsupported: str | None) -> None:
        super().__init__()
        self.message = message
        self.source = source
        self.headers_unsupported = headers_unsupported

    def compose(self) -> ComposeResult:
        yield StatusBar()
        text = self._text(self.message)
        yield TextArea(text, read_only=True, soft_wrap=_wraps(text), id="message-text", classes="panel")
        yield KeyBar()

    def _text(self, message: Message, note: str | None = None) -> str:
        lines = message_lines(message, limit=None, headers_unsupported=self.headers_unsupported)
        if note:
            lines.insert(1, f"  ({note})")
        if any(len(line) > WRAP_LIMIT for line in lines):
            lines.insert(1, f"  (lines over {WRAP_LIMIT:,} characters are not wrapped: scroll sideways)")
        return "\n".join(lines)

    def on_mount(self) -> None:
        area = self.query_one("#message-text", TextArea)
        area.border_title = f"{self.message.topic} [{self.message.partition}] @ {self.message.offset}"
        area.focus()
        if self.message.is_cut:
            self._show(self._text(self.message, f"reading the whole value of {self.message.size:,} bytes…"))
            self._read_whole()

    def _show(self, text: str) -> None:
        area = self.query_one("#message-text", TextArea)
        area.soft_wrap = _wraps(text)
        area.load_text(text)

    @work(thread=True, exclusive=True, exit_on_error=False, group="message")
    def _read_whole(self) -> None:
        m = self.message
        stream = self.source.open_messages(TailRequest(m.topic, m.partition, offset=m.offset, count=1))
        try:
            found: list[Message] = []
            while not found and not stream.finished and not get_current_worker().is_cancelled:
                found = stream.poll(_POLL_S, 1)
        finally:
            stream.close()
        if found:
            text = self._text(found[0])
            self.app.call_from_thread(self._show, text)
