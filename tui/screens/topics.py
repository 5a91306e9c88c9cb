"""The Topics screen: every topic with its health and size, filterable (``/``), sortable (``s``, or a click on a
header), markable for deletion.

Traffic (``msg/s``, ``in/s``: messages and bytes in per second, ``core.traffic.ticker``) is sampled every 5 s
while the screen is up; ``h`` sorts the hottest topic first; ``idle`` when nothing moved, ``?`` when unknown
(the count line says when it was read).

Sizes come from the brokers' log dirs (DescribeLogDirs, ``core.snapshot.sizes``): ``size`` is the sum of the
topic's partitions' leader replicas, ``on disk`` the sum over all its replicas; ``?`` where a broker cannot
say, the count line says which and why, and when the sizes were read (again every 30 s while the screen is
up, ``tui.size_reads``)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal

from core.console.protocols import SizeSource, TrafficSource
from core.console.view import ClusterView, TopicSummary
from core.human_size import human_size as size_text
from core.snapshot.sizes import Size, SizesView
from core.traffic.rates import Rate, rate_text
from core.traffic.ticker import TrafficView
from tui.keymap import MUTATION_IDS
from tui.messages import (
    CreateTopicRequested,
    DeleteTopicsRequested,
    ExpandTopicRequested,
    MessagesChosen,
    TopicChosen,
)
from tui.screens.base import KzcScreen
from tui.size_reads import SizeReads, traffic_reads
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar, StatusInfo
from tui.widgets.text_line import TextLine
from tui.widgets.virtual_table import Column, Row, VirtualTable, measure_widths

TOPIC_COLUMNS = (
    Column("name", "topic", max_width=80),
    Column("partitions", "parts", align="right"),
    Column("replication_factor", "rf", align="right"),
    Column("messages_in", "msg/s", align="right"),  # messages in per second (high watermarks, core.traffic)
    Column("bytes_in", "in/s", align="right"),  # bytes appended per second (its leaders' log sizes)
    Column("size", "size", align="right"),  # its partitions' leader replicas (DescribeLogDirs)
    Column("on_disk", "on disk", align="right"),  # all its replicas
    Column("under_replicated", "urp", align="right"),
    Column("offline", "offline", align="right"),
    Column("under_min_isr", "<minisr", align="right"),
    Column("pending_deletion", "deleting"),
    Column("config_overrides", "cfg", align="right"),
    Column("health", "health"),
)


Rates = tuple[Rate, Rate]  # messages and bytes in per second

_HEALTH = {"offline": "OFFLINE", "under-min-isr": "<MIN-ISR", "under-replicated": "URP", "reassigning": "moving"}


def bytes_cell(value: int | None) -> str:
    """A size cell: ``12.4 KiB``, or ``?`` when unknown."""
    return "?" if value is None else size_text(value)


def topic_row(t: TopicSummary, size: Size | None = None, rates: Rates | None = None) -> Row:
    """The table row of one topic (``size``: from the brokers' log dirs, None while not read; ``rates``: its
    messages and bytes in per second, None while not measured)."""
    flags = t.flags
    messages, bytes_in = rates if rates is not None else (None, None)
    health = "UNREADABLE" if t.problem else next((_HEALTH[f] for f in _HEALTH if f in flags), "ok")
    cells = (
        t.name,
        f"{t.partitions:,}",
        "?" if t.replication_factor is None else str(t.replication_factor),
        rate_text(messages),
        rate_text(bytes_in, "bytes"),
        bytes_cell(size.size if size is not None else None),
        bytes_cell(size.on_disk if size is not None else None),
        str(t.under_replicated) if t.under_replicated else "",
        str(t.offline) if t.offline else "",
        str(t.under_min_isr) if t.under_min_isr else "",
        "yes" if t.pending_deletion else "",
        str(t.config_overrides) if t.config_overrides else "",
        health,
    )
    values = (
        t.name,
        t.partitions,
        t.replication_factor,
        messages.per_s if messages is not None else None,
        bytes_in.per_s if bytes_in is not None else None,
        size.size if size is not None else None,
        size.on_disk if size is not None else None,
        t.under_replicated,
        t.offline,
        t.under_min_isr,
        t.pending_deletion,
        t.config_overrides,
        health,
    )
    return Row(t.name, cells, flags, values, t)


@dataclass(frozen=True)
class TopicRows:
    """The topics table's content, derived off the UI thread."""

    rows: list[Row]
    widths: list[int]
    search: list[str]


class TopicRowCache:
    """Rows of unchanged topics are reused across refreshes (a summary is a small frozen value).
    Used from the view worker and, when a screen comes back, from the UI thread: a lock keeps it whole."""

    def __init__(self) -> None:
        self._rows: dict[str, tuple[TopicSummary, Size | None, Rates | None, Row, str]] = {}
        self._lock = threading.Lock()

    def derive(
        self, view: ClusterView, sizes: Mapping[str, Size] | None = None, traffic: TrafficView | None = None
    ) -> TopicRows:
        """The rows, widths and search texts of ``view``'s topics (with their ``sizes`` and ``traffic``, where
        read)."""
        with self._lock:
            cache = self._rows
            fresh: dict[str, tuple[TopicSummary, Size | None, Rates | None, Row, str]] = {}
            rows: list[Row] = []
            search: list[str] = []
            for summary in view.topics:
                hit = cache.get(summary.name)
                size = sizes.get(summary.name) if sizes is not None else None
                rates = traffic.topic(summary.name) if traffic is not None else None
                if hit is None or (hit[0] is not summary and hit[0] != summary) or hit[1] != size or hit[2] != rates:
                    row = topic_row(summary, size, rates)
                    hit = (summary, size, rates, row, "\n".join(row.cells))  # as search_texts: one cell per line
                fresh[summary.name] = hit
                rows.append(hit[3])
                search.append(hit[4])
            self._rows = fresh
        return TopicRows(rows, measure_widths(TOPIC_COLUMNS, rows), search)


class TopicsScreen(KzcScreen):
    """All topics, live."""

    VIEW_NAME = "topics"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create", "New topic", id="create_topic"),
        Binding("plus", "expand", "Add partitions", id="expand_topic"),
        Binding("d", "delete", "Delete", id="delete_topic"),
        Binding("D", "delete_matching", "Delete matching", id="delete_matching", show=False),
        Binding("m", "messages", "Messages", id="topic_messages"),
        Binding("h", "hottest", "Hottest first", id="sort_hot"),
    ]

    def __init__(
        self,
        read_only: bool,
        sizes: SizeSource | None = None,
        now_ms: Callable[[], int] | None = None,
        traffic: TrafficSource | None = None,
    ) -> None:
        """``read_only``: hide and refuse every mutation; ``sizes``: the brokers' log dirs (none: sizes ``?``);
        ``now_ms``: the clock (epoch ms) the sizes' age is told by; ``traffic``: the rates (none: ``?``)."""
        super().__init__()
        self.read_only = read_only
        self.now_ms = now_ms
        self._rows = TopicRowCache()
        self._sizes: SizesView | None = None
        self._sizes_error: str | None = None
        self._unasked: tuple[int, ...] = ()  # brokers holding replicas, not registered: never asked
        self._topic_sizes: Mapping[str, Size] | None = None  # of the latest read, for the view worker
        self._size_reads = SizeReads(self, sizes, self._derive_sizes, self._sizes_read) if sizes is not None else None
        self._traffic: TrafficView | None = None  # the latest tick's sums, for the view worker
        self._traffic_error: str | None = None
        self._traffic_reads = (
            traffic_reads(self, traffic, self._derive_traffic, self._traffic_read) if traffic is not None else None
        )

    def compose(self) -> ComposeResult:
        yield StatusBar()
        with Horizontal(id="topics-head"):
            yield FilterBar(pinned=True)
            yield TextLine(id="topics-count")
        yield VirtualTable(TOPIC_COLUMNS, empty_text="no topics", markable=True, id="topics")
        yield KeyBar(hide=MUTATION_IDS if self.read_only else frozenset())

    def on_mount(self) -> None:
        self.query_one("#topics", VirtualTable).focus()
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

    def prepare(self, view: ClusterView) -> TopicRows:
        """Rows, widths and search texts, derived in the view worker."""
        return self._rows.derive(view, self._topic_sizes, self._traffic)

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Show every topic of ``view``."""
        content = (
            prepared if isinstance(prepared, TopicRows) else self._rows.derive(view, self._topic_sizes, self._traffic)
        )
        self._show_rows(content)

    def _show_rows(self, content: TopicRows) -> None:
        table = self.query_one("#topics", VirtualTable)
        table.set_rows(content.rows, widths=content.widths, search=content.search)
        self.filter_applied(table)

    # ---- sizes (tui.size_reads: a worker, every 30 s while this screen is up) -------------------------

    def _derive_sizes(self, sizes: SizesView) -> TopicRows | None:
        """Worker thread: every topic's size from the read, and the rows with them."""
        view = self.latest_view
        if view is None:
            return None
        self._topic_sizes = sizes.topics(view.snapshot)
        self._unasked = sizes.unasked(view.snapshot)
        return self._rows.derive(view, self._topic_sizes, self._traffic)

    def _sizes_read(self, sizes: SizesView | None, rows: TopicRows | None, error: str | None) -> None:
        self._sizes_error = error
        if sizes is not None:
            self._sizes = sizes
        if rows is not None:
            self._show_rows(rows)
        else:
            self.filter_applied(self._table())

    # ---- traffic (a PolledReads worker, every TICK_S while this screen is up) ----------------------------

    def _derive_traffic(self, traffic: TrafficView) -> TopicRows | None:
        """Worker thread: the rows with the tick's rates (its sums kept: the rows show no partition's rates)."""
        self._traffic = sums = traffic.sums()
        view = self.latest_view
        return None if view is None else self._rows.derive(view, self._topic_sizes, sums)

    def _traffic_read(self, traffic: TrafficView | None, rows: TopicRows | None, error: str | None) -> None:
        self._traffic_error = error
        if rows is not None:
            self._show_rows(rows)
        else:
            self.filter_applied(self._table())

    def action_hottest(self) -> None:
        """Sort by messages in per second, the most first (unknown last)."""
        table = self._table()
        table.sort_by([c.key for c in table.columns].index("messages_in"), descending=True)
        self.filter_applied(table)

    def traffic_text(self, now_ms: int) -> str:
        """When the rates were read and over which window, or why there are none."""
        if self._traffic_error is not None:
            return f"traffic: {self._traffic_error}"
        if self._traffic is None:
            return "traffic: reading…" if self._traffic_reads is not None else ""
        return self._traffic.footer(now_ms)

    def sizes_text(self, now_ms: int) -> str:
        """When the sizes were read and what is unknown, and why (``core.snapshot.sizes.SizesView.footer``)."""
        if self._sizes_error is not None:
            return f"sizes: {self._sizes_error}"
        if self._sizes is None:
            return "sizes: reading…" if self._size_reads is not None else ""
        return self._sizes.aged(now_ms).footer(now_ms, self._unasked)

    def show_clock(self, now_ms: int, link: StatusInfo) -> None:
        """The sizes' age ticks on the count line."""
        if self.is_mounted and self.query("#topics-count"):
            self.filter_applied(self._table())

    def filter_applied(self, table: VirtualTable) -> None:
        """Update the count line."""
        shown, total = table.row_count, table.total_count
        marked = len(table.marked_keys)
        hidden = marked - len(table.visible_marked_keys)
        text = f"{shown:,} of {total:,} topics" if table.filter_text else f"{total:,} topics"
        if table.filter_text:
            text += f" matching /{table.filter_text}/"
        if self.filter_problem:
            text += f" · {self.filter_problem} (the previous filter stays)"
        if marked:
            text += f" · {marked} marked (space)" + (f", {hidden} hidden by the filter" if hidden else "")
        if table.sort_description:
            text += f" · sorted by {table.sort_description}"
        now = self.now_ms() if self.now_ms is not None else 0
        for note in (self.traffic_text(now), self.sizes_text(now)):
            if note:
                text += f" · {note}"
        self.query_one("#topics-count", TextLine).show(text)

    @on(VirtualTable.Selected, "#topics")
    def _open(self, event: VirtualTable.Selected) -> None:
        self.post_message(TopicChosen(event.row.key))

    @on(VirtualTable.Highlighted, "#topics")
    @on(VirtualTable.MarksChanged, "#topics")
    def _moved(self, event: VirtualTable.Highlighted | VirtualTable.MarksChanged) -> None:
        self.filter_applied(event.table)

    def _table(self) -> VirtualTable:
        return self.query_one("#topics", VirtualTable)

    def action_messages(self) -> None:
        """The highlighted topic's messages (read without a trace)."""
        key = self._table().current_key
        if key is not None:
            self.post_message(MessagesChosen(key))

    def action_create(self) -> None:
        """Open the create form."""
        self.post_message(CreateTopicRequested())

    def action_expand(self) -> None:
        """Add partitions to the topic under the cursor."""
        key = self._table().current_key
        if key is not None or self.read_only:  # read-only: the app refuses it and says why
            self.post_message(ExpandTopicRequested(key or ""))

    def action_delete(self) -> None:
        """Delete the marked topics the filter shows (the confirmation says how many marked ones it hides),
        or the one under the cursor."""
        table = self._table()
        if self.read_only:
            self.post_message(DeleteTopicsRequested())  # the app refuses it and says why
            return
        marked = table.marked_keys
        shown = table.visible_marked_keys
        if marked and not shown:
            self.notify(
                f"the {len(marked)} marked topics are hidden by the filter: clear it (esc) to see them",
                severity="warning",
            )
            return
        names = shown or ([table.current_key] if table.current_key else [])
        if names:
            self.post_message(DeleteTopicsRequested(topics=tuple(names), hidden=len(marked) - len(shown)))

    def action_delete_matching(self) -> None:
        """Delete every topic the filter shows: exactly the rows on the table, whatever column matched."""
        table = self._table()
        if self.read_only:
            self.post_message(DeleteTopicsRequested())  # the app refuses it and says why
            return
        if not table.filter_text:
            self.notify("set a filter with / first: D deletes every topic it shows", severity="warning")
            return
        names = [row.key for row in table.visible_rows()]
        if not names:
            self.notify(f"the filter /{table.filter_text}/ shows no topic: nothing to delete", severity="warning")
            return
        self.post_message(DeleteTopicsRequested(topics=tuple(names)))
