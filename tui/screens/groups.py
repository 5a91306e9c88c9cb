"""The consumer groups screen: every group with state, members, topics, lag, trend and when its numbers
were read, sorted by lag (unknown first), filterable (``/``), live while shown; and the group detail screen
(one row per partition).

Both read through ``GroupSource`` in a worker that reschedules itself only after the previous read
finished, and only while the screen is shown: a slow cluster slows the refresh, it never piles reads up.
Every second the ages are drawn again: a group whose source stopped answering reads "stale since HH:MM:SS
(reason)", and once no read has finished for ``STALE_AFTER_S`` every number does (``GroupsView.aged``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Label

from core.console.protocols import GroupDetail, GroupSource, GroupsView
from core.console.view import ClusterView
from core.errors import KzcError
from core.groups.freshness import aged, as_of_text, read_text
from core.groups.lag import GroupLag, LagTotal, PartitionLag
from core.groups.trend import LagTrend
from core.human_time import age_text, clock_text
from tui.messages import GroupChosen, TopicChosen
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.text_line import TextLine
from tui.widgets.virtual_table import Column, Row, VirtualTable

REFRESH_S = 5.0
STALE_AFTER_S = 30.0  # no read finished for this long: every number shown is marked stale
GROUP_COLUMNS = (
    Column("group", "group", max_width=60),
    Column("state", "state"),
    Column("members", "members", align="right"),
    Column("topics", "topics", max_width=24),
    Column("lag", "lag", align="right"),
    Column("max_lag", "max lag", align="right"),
    Column("trend", "trend", max_width=70),
    Column("source", "source"),
    Column("as_of", "as of", max_width=90),
)
GROUP_PARTITION_COLUMNS = (
    Column("topic", "topic", max_width=60),
    Column("partition", "p", align="right"),
    Column("committed", "committed", align="right"),
    Column("end", "end", align="right"),
    Column("lag", "lag", align="right"),
    Column("member", "member", max_width=60),
    Column("host", "host", max_width=30),
    Column("client_id", "client id", max_width=30),
)
TOPIC_GROUP_COLUMNS = (
    Column("group", "consumer group", max_width=60),
    Column("state", "state"),
    Column("lag", "lag on this topic", align="right"),
    Column("max_lag", "max lag", align="right"),
    Column("as_of", "as of", max_width=90),
)


def lag_cell(total: LagTotal, error: str | None = None) -> str:
    """A lag as the tables show it: the number, ``≥N?`` when part is unknown, ``unknown``; never 0 for unknown."""
    if error:
        return "unknown"
    if total.lag is not None:
        return f"{total.lag:,}"
    return f"≥{total.lag_at_least:,}?" if total.lag_at_least else "unknown"


def _lag_meanings(lag: int | None, stale: bool = False) -> frozenset[str]:
    if lag is None:
        return frozenset({"error"})
    meanings = {"warning"} if lag > 0 else set()
    return frozenset(meanings | ({"muted"} if stale else set()))


def trend_text(group: GroupLag, trend: LagTrend | None) -> str:
    """The trend column: rates and verdict, or why there is none (stale numbers have no current rate)."""
    if group.stale is not None:
        return "- (stale)"
    return trend.short() if trend is not None else "(after the next reads)"


def group_row(group: GroupLag, trend: LagTrend | None) -> Row:
    """One row of the groups table."""
    totals = group.lag_total
    cells = (
        group.group,
        group.state,
        str(len(group.members)),
        ",".join(group.topics) or "-",
        lag_cell(totals, group.error),
        "-" if totals.max_lag is None else f"{totals.max_lag:,}",
        trend_text(group, trend),
        group.source,
        as_of_text(group),
    )
    values = (group.group, group.state, len(group.members), list(group.topics), group.lag, totals.max_lag,
              trend.to_json() if trend else None, group.source, _as_of_json(group))  # fmt: skip
    return Row(group.group, cells, _lag_meanings(group.lag, group.stale is not None), values, group)


def _as_of_json(group: GroupLag) -> dict[str, Any]:
    stale = group.stale
    return {"as_of_ms": group.as_of_ms, "stale_since_ms": stale.since_ms if stale else None,
            "stale_reason": stale.reason if stale else None}  # fmt: skip


def partition_row(row: PartitionLag) -> Row:
    """One row of the group detail."""
    cells = (
        row.topic,
        str(row.partition),
        "-" if row.committed is None else f"{row.committed:,}",
        "-" if row.end is None else f"{row.end:,}",
        "unknown" if row.unknown else ("-" if row.lag is None else f"{row.lag:,}"),
        row.member or "-",
        row.host or "-",
        row.client_id or "-",
    )
    meanings = frozenset({"error"}) if row.unknown else _lag_meanings(row.lag if row.lag is not None else 0)
    values = (row.topic, row.partition, row.committed, row.end, row.lag, row.member, row.host, row.client_id)
    return Row(f"{row.topic}:{row.partition}", cells, meanings, values, row)


def topic_group_row(group: GroupLag, total: LagTotal) -> Row:
    """One row of the groups consuming a topic (topic detail)."""
    cells = (group.group, group.state, lag_cell(total, group.error),
             "-" if total.max_lag is None else f"{total.max_lag:,}", as_of_text(group))  # fmt: skip
    values = (group.group, group.state, total.lag, total.max_lag, _as_of_json(group))
    meanings = _lag_meanings(None if group.error else total.lag, group.stale is not None)
    return Row(group.group, cells, meanings, values, group)


def wall_ms() -> int:
    """Now, in epoch milliseconds (the screens' default clock)."""
    return int(time.time() * 1000)


class _Refreshing(KzcScreen):
    """A screen that reads through ``GroupSource`` every ``REFRESH_S`` while it is shown, and draws its ages
    again every second."""

    def __init__(self, source: GroupSource, clock_ms: Callable[[], int] = wall_ms) -> None:
        super().__init__()
        self.source = source
        self.clock_ms = clock_ms
        self._reading = False
        self._again = False  # read once more as soon as the read in flight ends (it may be of an older moment)
        self._failure: tuple[int, str] | None = None  # the last read failed: when, why
        self._next: Timer | None = None  # the refresh after the last read: one at a time

    def on_mount(self) -> None:
        self.read_now()
        self.set_interval(1.0, self._tick_ages)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.is_mounted:
            self.read_now()

    def read_now(self) -> None:
        """Start a read unless one is running (the timer of a finished read calls this too)."""
        if not self._reading:
            self._reading = True
            self._read()

    def read_again(self) -> None:
        """Read now; when a read is running, once more as soon as it ends (what it reads may be out of date)."""
        if self._reading:
            self._again = True
        else:
            self.read_now()

    class GroupsRead(Message):
        """The groups read, or the error that stopped the read."""

        def __init__(self, result: object) -> None:
            super().__init__()
            self.result = result

    @work(thread=True, exclusive=True, exit_on_error=False, group="groups")
    def _read(self) -> None:
        try:
            result: object = self.read()
        except KzcError as exc:
            result = exc
        self.post_message(self.GroupsRead(result))

    @on(GroupsRead)
    def _on_groups_read(self, message: GroupsRead) -> None:
        self._arrived(message.result)

    def _arrived(self, result: object) -> None:
        self._reading = False
        if isinstance(result, KzcError):
            self._failure = (self.clock_ms(), str(result))
            self.show_error(str(result))
        else:
            self._failure = None
            self.show(result)
        if self._again:
            self._again = False
            self.read_now()
        elif self.is_mounted:
            if self._next is not None:
                self._next.stop()  # a read the timer did not start (a step, a resume): one refresh chain still
            self._next = self.set_timer(REFRESH_S, self._tick)

    def _tick(self) -> None:
        if self.is_current:
            self.read_now()

    def _tick_ages(self) -> None:
        if self.is_current:
            self.redraw()

    def read(self) -> object:
        """The blocking read (worker thread)."""
        raise NotImplementedError

    def show(self, result: Any) -> None:
        """Draw what ``read`` returned (UI thread)."""

    def redraw(self) -> None:
        """Draw the last read again with the ages as they are now (UI thread)."""

    def show_error(self, text: str) -> None:
        """Say the read failed; the rows shown stay, marked stale by ``redraw`` (UI thread)."""
        self.notify(f"consumer groups: {text}", severity="warning", timeout=5)
        self.redraw()


class GroupsScreen(_Refreshing):
    """Every consumer group, live."""

    VIEW_NAME = "groups"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "refresh", "Refresh", id="refresh_groups")]

    def compose(self) -> ComposeResult:
        yield StatusBar()
        with Horizontal(id="groups-head"):
            yield FilterBar(pinned=True)
            yield TextLine(id="groups-count")
        yield VirtualTable(GROUP_COLUMNS, empty_text="reading the consumer groups…", id="groups")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#groups", VirtualTable).focus()
        super().on_mount()

    def read(self) -> GroupsView:
        """Every group, with the trend (worker thread)."""
        return self.source.group_overview()

    def show(self, result: Any) -> None:
        """Draw the groups, sorted by lag (the read's order)."""
        assert isinstance(result, GroupsView)
        self._view = result
        self.redraw()

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """At a recorded moment (``kzc --at``) a new cluster view is a step to another moment: the groups' lag as of
        it is read at once, not at the next refresh. A live cluster's views leave the groups to their refresh."""
        shown: GroupsView | None = getattr(self, "_view", None)
        if shown is not None and shown.recorded is not None:
            self.read_again()

    def current_view(self) -> GroupsView | None:
        """The last read as it stands now: stale marks on every group once reads stopped finishing, or
        when the last one failed."""
        view: GroupsView | None = getattr(self, "_view", None)
        if view is None:
            return None
        return view.aged(self.clock_ms(), STALE_AFTER_S, self._failure[1] if self._failure else None)

    def redraw(self) -> None:
        """Rows (when what they show changed: a new read, a failure, numbers turning stale) and the count
        line with its age, as they are now."""
        view = self.current_view()
        if view is None:
            return
        table = self.query_one("#groups", VirtualTable)
        drawn = (id(getattr(self, "_view", None)), self._failure, view.stale)
        if drawn != getattr(self, "_drawn", None):
            self._drawn = drawn
            table.set_rows([group_row(g, view.trends.get(g.group)) for g in view.groups])
        self.filter_applied(table)

    def filter_applied(self, table: VirtualTable) -> None:
        """The count line: groups shown, lagging, empty with offsets, when read, and the notes of the read."""
        view = self.current_view()
        total = table.total_count
        text = f"{table.row_count:,} of {total:,} groups" if table.filter_text else f"{total:,} groups"
        if view is not None:
            text += f" · {view.lagging} lagging · {view.empty_with_offsets} empty with offsets"
            if view.stale is not None:
                text += f" · {view.stale.text()}"
            elif view.recorded is not None:
                text += f" · {view.recorded}"
            elif view.at_ms:
                text += (
                    f" · read {clock_text(view.at_ms)} ({age_text(max(self.clock_ms() - view.at_ms, 0) / 1000)} ago)"
                )
            if view.notes:
                text += " · " + "; ".join(view.notes)
        self.query_one("#groups-count", TextLine).show(text)

    def action_refresh(self) -> None:
        """Read now."""
        self.read_now()

    @on(VirtualTable.Selected, "#groups")
    def _open(self, event: VirtualTable.Selected) -> None:
        self.post_message(GroupChosen(event.row.key))


class GroupDetailScreen(_Refreshing):
    """One consumer group: every partition with committed and end offsets, lag and owner, live."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("r", "refresh", "Refresh", id="refresh_group")]

    def __init__(self, group: str, source: GroupSource, clock_ms: Callable[[], int] = wall_ms) -> None:
        super().__init__(source, clock_ms)
        self.group = group
        self._detail: GroupDetail | None = None

    @property
    def view_name(self) -> str:
        """Exports are named after the group."""
        return f"group-{self.group}"

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label(f"group {self.group}", id="group-summary")
        yield VirtualTable(GROUP_PARTITION_COLUMNS, empty_text="reading the group…", id="group-partitions")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#group-partitions", VirtualTable).focus()
        super().on_mount()

    def read(self) -> GroupDetail:
        """The group now (worker thread)."""
        return self.source.group_detail(self.group)

    def show(self, result: Any) -> None:
        """Draw the summary line and the partitions."""
        assert isinstance(result, GroupDetail)
        self._detail = result
        self.redraw()

    def redraw(self) -> None:
        """The summary line (with when the numbers were read, or since when they are stale) and the rows."""
        detail = self._detail
        if detail is None:
            return
        now = self.clock_ms()
        group = aged(detail.group, now, STALE_AFTER_S, self._failure[1] if self._failure else None)
        totals = group.lag_total
        parts = [f"group {group.group} ({group.source})", group.state, f"{len(group.members)} member(s)"]
        if group.protocol:
            parts.append(f"protocol {group.protocol}")
        if group.coordinator is not None:
            parts.append(f"coordinator {group.coordinator}")
        parts.append(f"lag {lag_cell(totals, group.error)}")
        if group.stale is None and detail.trend is not None:
            parts.append(detail.trend.describe())
        parts.append(group.stale.text() if group.stale else read_text(group.as_of_ms or now, now))
        if group.error:
            parts.append(group.error)
        parts += list(group.notes)
        summary = self.query_one("#group-summary", Label)
        summary.update(" · ".join(parts))
        summary.set_class(group.lag is None or group.stale is not None, "-offline")
        drawn = (id(detail), group.stale)
        if drawn != getattr(self, "_drawn", None):  # between reads only the summary's age changes
            self._drawn = drawn
            self.query_one("#group-partitions", VirtualTable).set_rows([partition_row(r) for r in group.partitions])

    def show_error(self, text: str) -> None:
        """Say why the group could not be read: in the summary line (the numbers shown, if any, marked stale)."""
        if self._detail is not None:
            self.redraw()
            return
        summary = self.query_one("#group-summary", Label)
        summary.update(f"group {self.group}: {text}")
        summary.add_class("-offline")

    def action_refresh(self) -> None:
        """Read now."""
        self.read_now()

    @on(VirtualTable.Selected, "#group-partitions")
    def _open_topic(self, event: VirtualTable.Selected) -> None:
        data = event.row.data
        if isinstance(data, PartitionLag):
            self.post_message(TopicChosen(data.topic))
