"""The partitions behind a number: every partition of the cluster with one health problem (Enter on a health
counter of the cluster screen), or every partition a broker leads or hosts (Enter on a broker row). Enter
opens the partition's topic; ``z`` on a broker's list opens its registration znode; ``h`` shows the selected
partition's ISR history from the cluster's history store (``core.history.location``: the console's
``--store``, the context's ``history``, else ``$KZC_HISTORY``; read in a worker).

``size`` is the partition's leader replica and ``on disk`` the sum over its replicas, from the brokers' log
dirs (DescribeLogDirs, ``core.snapshot.sizes``, read every 30 s while the screen is up, ``tui.size_reads``);
``?`` where a broker cannot say, and the title line says why and when the sizes were read."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Label

from core.config import ConnectionSettings
from core.console.protocols import SizeSource, TrafficSource
from core.console.view import ClusterView, PartitionRow, partition_rows
from core.history.location import HistoryPlace, history_place
from core.kafka.znodes.paths import broker_path
from core.snapshot.sizes import SizesView
from core.traffic.rates import rate_text
from core.traffic.ticker import TrafficView
from tui.dialogs.history import HistoryDialog
from tui.messages import TopicChosen, ZnodeChosen
from tui.screens.base import KzcScreen
from tui.screens.topics import bytes_cell
from tui.size_reads import SizeReads, traffic_reads
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar, StatusInfo
from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = (
    Column("topic", "topic", max_width=80),
    Column("partition", "p", align="right"),
    Column("role", "role"),
    Column("leader", "leader", align="right"),
    Column("replicas", "replicas"),
    Column("isr", "isr"),
    Column("health", "health"),
    Column("messages_in", "msg/s", align="right"),  # messages in per second (its high watermark, core.traffic)
    Column("bytes_in", "in/s", align="right"),  # bytes appended per second to its leader's log
    Column("size", "size", align="right"),  # its leader's replica (DescribeLogDirs)
    Column("on_disk", "on disk", align="right"),  # all its replicas
    Column("note", "note", max_width=200),
)
HISTORY_WINDOW_MS = 7 * 86_400_000  # how far back ``h`` looks
# The partition flags behind each health counter (offline counts partitions without a state too).
HEALTH_FLAGS = {
    "offline": frozenset({"offline", "no-state"}),
    "under-replicated": frozenset({"under-replicated"}),
    "under-min-isr": frozenset({"under-min-isr"}),
    "non-preferred": frozenset({"non-preferred"}),
}


@dataclass(frozen=True)
class PartitionSelection:
    """Which partitions: those with one of ``HEALTH_FLAGS[health]``, or those on ``broker``."""

    title: str
    health: str | None = None
    broker: int | None = None

    def role(self, row: PartitionRow) -> str | None:
        """``leader``/``follower`` on the broker, ``""`` for a health list, ``None`` when not selected."""
        if self.broker is not None:
            if self.broker not in row.replicas and row.leader != self.broker:
                return None
            return "leader" if row.leader == self.broker else "follower"
        return "" if self.health is not None and row.flags & HEALTH_FLAGS[self.health] else None


def selected_rows(
    view: ClusterView,
    selection: PartitionSelection,
    sizes: SizesView | None = None,
    traffic: TrafficView | None = None,
) -> list[Row]:
    """The table rows of every selected partition, by topic then partition, with their sizes and rates where
    read (pure; any thread)."""
    rows: list[Row] = []
    snapshot = view.snapshot
    live = snapshot.live_broker_ids()
    for name in sorted(snapshot.topics):
        for p in partition_rows(snapshot, snapshot.topics[name]):
            role = selection.role(p)
            if role is None:
                continue
            leader = "-" if p.leader is None else str(p.leader)
            replicas, isr = ",".join(map(str, p.replicas)), ",".join(map(str, p.isr))
            size = None
            if sizes is not None:
                size = sizes.partition(p.replicas, p.leader if p.leader in live else None, (name, p.partition))
            on_leader, on_disk = (size.size, size.on_disk) if size is not None else (None, None)
            messages, bytes_in = traffic.partition(name, p.partition) if traffic is not None else (None, None)
            cells = (name, str(p.partition), role, leader, replicas, isr, p.health, rate_text(messages),
                     rate_text(bytes_in, "bytes"), bytes_cell(on_leader), bytes_cell(on_disk), p.note)  # fmt: skip
            values = (name, p.partition, role, p.leader, list(p.replicas), list(p.isr), p.health,
                      messages.per_s if messages is not None else None,
                      bytes_in.per_s if bytes_in is not None else None, on_leader, on_disk, p.note)  # fmt: skip
            rows.append(Row(f"{name}:{p.partition}", cells, p.flags, values, name))
    return rows


class PartitionsScreen(KzcScreen):
    """The partitions behind a health counter or on a broker, live."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("z", "registration", "Broker znode", id="open_broker_znode"),
        Binding("h", "history", "ISR history", id="partition_history"),
    ]

    def __init__(
        self,
        selection: PartitionSelection,
        sizes: SizeSource | None = None,
        now_ms: Callable[[], int] | None = None,
        history: Callable[[], HistoryPlace] | None = None,
        traffic: TrafficSource | None = None,
    ) -> None:
        """``selection``: which partitions to list; ``sizes``: the brokers' log dirs (none: sizes ``?``);
        ``now_ms``: the clock (epoch ms) the sizes' age is told by; ``history``: where the cluster's history store
        is (asked in the worker, when ``h`` is pressed; none: ``$KZC_HISTORY`` alone); ``traffic``: the rates
        (none: ``?``)."""
        super().__init__()
        self.selection = selection
        self.history = history or partial(history_place, ConnectionSettings())
        self.now_ms = now_ms
        self._sizes: SizesView | None = None
        self._sizes_error: str | None = None
        self._unasked: tuple[int, ...] = ()  # brokers holding replicas, not registered: never asked
        self._count = ""
        self._title = ""  # as last drawn
        self._size_reads = SizeReads(self, sizes, self._derive_sizes, self._sizes_read) if sizes is not None else None
        self._traffic: TrafficView | None = None
        self._traffic_error: str | None = None
        self._traffic_reads = (
            traffic_reads(self, traffic, self._derive_traffic, self._traffic_read) if traffic is not None else None
        )

    @property
    def view_name(self) -> str:
        """Exports are named after the selection."""
        return f"partitions-{self.selection.health or f'broker-{self.selection.broker}'}"

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label(self.selection.title, id="partitions-title")
        yield VirtualTable(COLUMNS, empty_text="no such partition now", id="selected-partitions")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#selected-partitions", VirtualTable).focus()
        if self._size_reads is not None:
            self._size_reads.start()
        if self._traffic_reads is not None:
            self._traffic_reads.start()

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self._size_reads is not None:
            self._size_reads.resume()
        if self._traffic_reads is not None:
            self._traffic_reads.resume()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``z`` only on a broker's list."""
        return self.selection.broker is not None if action == "registration" else True

    def prepare(self, view: ClusterView) -> list[Row]:
        """The rows, derived in the view worker."""
        return selected_rows(view, self.selection, self._sizes, self._traffic)

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Show the selected partitions of ``view``."""
        rows = (
            prepared if isinstance(prepared, list) else selected_rows(view, self.selection, self._sizes, self._traffic)
        )
        self._show_rows(rows)

    def _show_rows(self, rows: list[Row]) -> None:
        self.query_one("#selected-partitions", VirtualTable).set_rows(rows)
        text = f"{self.selection.title}: {len(rows):,} partitions"
        if self.selection.broker is not None:
            leads = sum(1 for r in rows if r.cells[2] == "leader")
            text += f" · leads {leads:,}, follows {len(rows) - leads:,}"
        self._count = text
        self._show_title(self.now_ms() if self.now_ms is not None else 0)

    def _show_title(self, now_ms: int) -> None:
        sizes = ""
        if self._sizes_error is not None:
            sizes = f"sizes: {self._sizes_error}"
        elif self._sizes is not None:
            sizes = self._sizes.aged(now_ms).footer(now_ms, self._unasked)
        elif self._size_reads is not None:
            sizes = "sizes: reading…"
        traffic = ""
        if self._traffic_error is not None:
            traffic = f"traffic: {self._traffic_error}"
        elif self._traffic is not None:
            traffic = self._traffic.footer(now_ms)
        text = self._count + "".join(f" · {note}" for note in (traffic, sizes) if note)
        if text != self._title:  # an idle tick redraws nothing
            self._title = text
            self.query_one("#partitions-title", Label).update(text)

    def show_clock(self, now_ms: int, link: StatusInfo) -> None:
        """The sizes' age ticks on the title line."""
        if self.is_mounted and self.query("#partitions-title"):
            self._show_title(now_ms)

    # ---- sizes (tui.size_reads: a worker, every 30 s while this screen is up) -------------------------

    def _derive_sizes(self, sizes: SizesView) -> list[Row] | None:
        """Worker thread: the rows with the sizes just read."""
        view = self.latest_view
        if view is None:
            return None
        self._unasked = sizes.unasked(view.snapshot)
        return selected_rows(view, self.selection, sizes, self._traffic)

    def _sizes_read(self, sizes: SizesView | None, rows: list[Row] | None, error: str | None) -> None:
        self._sizes_error = error
        if sizes is not None:
            self._sizes = sizes
        if rows is not None:
            self._show_rows(rows)
        else:
            self._show_title(self.now_ms() if self.now_ms is not None else 0)

    # ---- traffic (tui.size_reads.traffic_reads: a worker, every tick while this screen is up) -------------

    def _derive_traffic(self, traffic: TrafficView) -> list[Row] | None:
        """Worker thread: the rows with the tick's rates."""
        self._traffic = traffic
        view = self.latest_view
        return None if view is None else selected_rows(view, self.selection, self._sizes, traffic)

    def _traffic_read(self, traffic: TrafficView | None, rows: list[Row] | None, error: str | None) -> None:
        self._traffic_error = error
        if rows is not None:
            self._show_rows(rows)
        else:
            self._show_title(self.now_ms() if self.now_ms is not None else 0)

    @on(VirtualTable.Selected, "#selected-partitions")
    def _open(self, event: VirtualTable.Selected) -> None:
        self.post_message(TopicChosen(str(event.row.data)))

    def action_registration(self) -> None:
        """Open the broker's registration znode."""
        if self.selection.broker is not None:
            self.post_message(ZnodeChosen(broker_path(self.selection.broker)))

    def action_history(self) -> None:
        """The selected partition's ISR history from the history store (a worker reads it)."""
        row = self.query_one("#selected-partitions", VirtualTable).current_row
        if row is not None:
            self._read_history(str(row.cells[0]), int(row.cells[1]))

    class HistoryRead(Message):
        """A partition's ISR history lines from the store."""

        def __init__(self, title: str, lines: list[str]) -> None:
            super().__init__()
            self.title = title
            self.lines = lines

    @work(thread=True, exclusive=True, exit_on_error=False, group="partition-history")
    def _read_history(self, topic: str, partition: int) -> None:
        from core.history.isr import partition_history_lines  # pyarrow: imported when a history is asked for

        lines = partition_history_lines(self.history(), topic, partition, int(time.time() * 1000) - HISTORY_WINDOW_MS)
        self.post_message(self.HistoryRead(f"ISR history of {topic}-{partition}", lines))

    @on(HistoryRead)
    def _on_history_read(self, message: HistoryRead) -> None:
        self.app.push_screen(HistoryDialog(message.title, message.lines))
