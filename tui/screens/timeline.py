"""The timeline: what changed, newest first, from ZooKeeper's znode stats merged with the live events seen
since the console connected (``core.changes.timeline``). Each burst is one row; Enter opens it into its
changes, and Enter on a change of a topic opens that topic. It follows the view: new changes appear at the top.
``e`` exports the incident report of the last two hours from the cluster's history store (``kzc report``'s,
as HTML; at a recorded moment, of the window ``AROUND_MS`` either side of the moment), written in a worker.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Label

from core.changes.timeline import LIMITS, Burst, Change, ChangeKind, LiveLine, bursts, dated_changes, with_live
from core.console.moment import AROUND_MS
from core.console.view import ClusterView
from core.errors import KzcError
from core.history.location import HistoryPlace
from core.human_time import age_text, parse_duration, utc_text
from tui.export import export_path
from tui.journal import EventJournal
from tui.messages import ExportWritten, TopicChosen
from tui.screens.base import KzcScreen
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar, StatusInfo
from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = (
    Column("when", "when (UTC)"),
    Column("change", "change", max_width=160),
    Column("count", "n", align="right"),
    Column("source", "dated by", max_width=70),
)


def burst_key(burst: Burst) -> str:
    """A burst's row key: stable while the burst keeps its first moment and oldest change."""
    return f"burst:{burst.start_ms}:{burst.changes[-1].source}"


def timeline_rows(groups: Sequence[Burst], expanded: set[str], now_ms: int) -> list[Row]:
    """One row per burst, and under each opened burst one row per change (pure; any thread)."""
    rows: list[Row] = []
    for burst in groups:
        key = burst_key(burst)
        when = utc_text(burst.start_ms)[11:19]
        if burst.end_ms != burst.start_ms:
            when += f"-{utc_text(burst.end_ms)[11:19]}"
        age = age_text((now_ms - burst.end_ms) / 1000)
        single = len(burst.changes) == 1
        source = burst.changes[0].source if single else ("open: Enter" if key not in expanded else "")
        meanings = frozenset({"-live"}) if all(c.kind is ChangeKind.LIVE for c in burst.changes) else frozenset()
        cells = (f"{when} ({age} ago)", burst.text, str(len(burst.changes)), source)
        rows.append(Row(key, cells, meanings, None, burst.changes[0] if single else key))
        if key in expanded and not single:
            for n, change in enumerate(burst.changes):
                cells = (f"  {utc_text(change.at_ms)[11:19]}", f"  {change.text}", "", change.source)
                rows.append(Row(f"{key}/{n}", cells, frozenset(), None, change))
    return rows


class TimelineScreen(KzcScreen):
    """What changed, live."""

    VIEW_NAME: ClassVar[str] = "timeline"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("o", "toggle_all", "Open/close all", id="timeline_toggle_all"),
    ]

    def __init__(
        self, journal: EventJournal, now_ms: Callable[[], int], history: Callable[[], HistoryPlace] | None = None,
        recorded: Callable[[], tuple[list[Burst], int]] | None = None,
    ) -> None:  # fmt: skip
        """``journal``: the console's event log (its live events join the dated changes); ``now_ms``: the app's
        clock; ``history``: where the cluster's history store is (for the incident report; None: nowhere);
        ``recorded``: at a recorded moment (``kzc --at``), what reads the recorded changes around it and the
        moment (blocking: run in a worker), shown in place of the live timeline with the current burst marked."""
        super().__init__()
        self.journal = journal
        self.now_ms = now_ms
        self.history = history
        self.recorded = recorded
        self._current: str | None = None  # at a recorded moment: the key of the burst it is in (or last before it)
        self._moment_ms: int | None = None  # at a recorded moment: the moment the changes shown were read around
        self.expanded: set[str] = set()
        self._dated: list[Change] = []
        self._groups: list[Burst] = []
        self._journal_seen = -1  # the journal's version last merged in

    def compose(self) -> ComposeResult:
        yield StatusBar()
        if self.recorded is not None:  # the store's rows, not ZooKeeper's dates: its limits are not these
            yield Label("reading the recorded changes…", id="timeline-title")
            yield VirtualTable(COLUMNS, empty_text="no recorded change around the moment", id="timeline")
            yield Label(RECORDED_NOTE, id="timeline-limits")
        else:
            yield Label("reading what ZooKeeper dates…", id="timeline-title")
            yield VirtualTable(COLUMNS, empty_text="nothing ZooKeeper can date", id="timeline")
            yield Label(_limits_text(), id="timeline-limits")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#timeline", VirtualTable).focus()

    def prepare(self, view: ClusterView) -> object:
        """Every dated change of the view's snapshot (the view worker: 100k partitions are 100k changes)."""
        return dated_changes(view.snapshot)

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Merge the dated changes with the live events seen since connecting, and show them."""
        if self.recorded is not None:
            self._read_recorded()
            return
        self._dated = prepared if isinstance(prepared, list) else dated_changes(view.snapshot)
        self.show_events()

    class RecordedRead(Message):
        """The recorded changes around the moment shown (``at_ms``), in bursts, newest first."""

        def __init__(self, groups: list[Burst], at_ms: int) -> None:
            super().__init__()
            self.groups, self.at_ms = groups, at_ms

    @work(thread=True, exclusive=True, group="timeline-recorded", exit_on_error=False)
    def _read_recorded(self) -> None:
        assert self.recorded is not None
        groups, at_ms = self.recorded()
        self.post_message(self.RecordedRead(groups, at_ms))

    @on(RecordedRead)
    def _on_recorded_read(self, message: RecordedRead) -> None:
        self._moment_ms = message.at_ms
        self._show_recorded(message.groups, message.at_ms)

    def _show_recorded(self, groups: list[Burst], at_ms: int) -> None:
        self._groups = groups
        current = next((g for g in groups if g.start_ms <= at_ms), None)  # newest first
        self._current = burst_key(current) if current is not None else None
        self._redraw()
        self.query_one("#timeline-title", Label).update(
            f"Recorded changes {utc_text(at_ms - AROUND_MS)[11:16]}-{utc_text(at_ms + AROUND_MS)[11:16]} UTC, newest "
            f"first: {sum(len(g.changes) for g in groups):,} in {len(groups):,} burst(s); ▶ the moment shown, "
            f"{utc_text(at_ms)}"
        )

    def show_clock(self, now_ms: int, link: StatusInfo) -> None:
        """Every second while shown: merge the events logged since the last draw (new changes go on top)."""
        if self.recorded is None and self._journal_seen != self.journal.version:
            self.show_events()

    def show_events(self) -> None:
        """Redraw with the journal as it is now."""
        self._journal_seen = self.journal.version
        live = [LiveLine(line.at_ms, line.text, line.topic, line.fact) for line in self.journal.lines]
        self._groups = bursts(with_live(self._dated, live))
        self._redraw()

    def _redraw(self) -> None:
        rows = timeline_rows(self._groups, self.expanded, self.now_ms())
        if self._current is not None:
            rows = [replace(r, cells=(r.cells[0], f"▶ {r.cells[1]}", *r.cells[2:]), meanings=r.meanings | {"-current"})
                    if r.key == self._current else r for r in rows]  # fmt: skip
        self.query_one("#timeline", VirtualTable).set_rows(rows)
        if self.recorded is not None:
            return
        changes = sum(len(g.changes) for g in self._groups)
        live = len(self.journal.lines)
        self.query_one("#timeline-title", Label).update(
            f"What changed: {changes:,} change(s) in {len(self._groups):,} burst(s), newest first: ZooKeeper's "
            f"znode stats and {live:,} live event(s) seen since the console connected"
        )

    @on(VirtualTable.Selected, "#timeline")
    def _open(self, event: VirtualTable.Selected) -> None:
        data = event.row.data
        if isinstance(data, Change):
            if data.topic is not None:
                self.post_message(TopicChosen(data.topic))
            return
        if isinstance(data, str):
            self.expanded.symmetric_difference_update({data})
            self._redraw()

    def action_toggle_all(self) -> None:
        """Open every burst, or close them all."""
        keys = {burst_key(g) for g in self._groups if len(g.changes) > 1}
        self.expanded = set() if self.expanded >= keys and keys else keys
        self._redraw()

    # ---- the incident report (e) ----------------------------------------------------------------------

    class ReportWritten(Message):
        """The incident report was written to ``path``, or could not be (``error``)."""

        def __init__(self, path: str | None, bursts: int, error: str | None = None) -> None:
            super().__init__()
            self.path, self.bursts, self.error = path, bursts, error

    def action_export(self) -> None:
        """Export the incident report (``kzc report``) as HTML, in a worker: of the last two hours, or at a
        recorded moment of the window ``AROUND_MS`` either side of the moment (the changes this screen shows)."""
        if self.history is None:
            self.notify("no incident report: this console has no history store", severity="warning")
            return
        now = self.now_ms()
        if self.recorded is None:
            self._write_report(self.history(), None, now)
        elif self._moment_ms is None:
            self.notify("no incident report yet: the recorded changes are still being read", severity="warning")
        else:
            self._write_report(self.history(), self._moment_ms - AROUND_MS, min(self._moment_ms + AROUND_MS, now))

    @work(thread=True, exclusive=True, exit_on_error=False, group="incident-report")
    def _write_report(self, place: HistoryPlace, since_ms: int | None, until_ms: int) -> None:
        """``since_ms`` None: ``kzc report``'s default window before ``until_ms``."""
        # The report reads Parquet: pyarrow and numpy (a quarter of a second) are imported in this worker when a
        # report is asked for, not as the console opens.
        from core.incident.render import render
        from core.incident.report import DEFAULT_SINCE, report_of

        if since_ms is None:
            since_ms = until_ms - int(parse_duration(DEFAULT_SINCE) * 1000)
        try:
            report = report_of(place, since_ms, until_ms)
        except KzcError as exc:
            self.post_message(self.ReportWritten(None, 0, str(exc)))
            return
        path = export_path("incident-report", time.time(), "html")
        try:
            _write(path, render(report, "html"))
        except OSError as exc:
            self.post_message(self.ReportWritten(str(path), 0, exc.strerror or str(exc)))
            return
        self.post_message(self.ReportWritten(str(path), len(report.bursts)))

    @on(ReportWritten)
    def _on_report_written(self, message: ReportWritten) -> None:
        if message.path is None:
            self.notify(f"no incident report: {message.error}", severity="error", timeout=10)
            return
        self.post_message(ExportWritten(message.path, message.bursts, message.error))


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


RECORDED_NOTE = (
    "Recorded by kzc record: every broker, controller and partition change it wrote to the history store; nothing "
    "is known inside a recorded gap."
)


def _limits_text() -> str:
    return (
        "ZooKeeper cannot tell: every leader/ISR change but each partition's last; a broker's stop; a deleted "
        f"topic; {LIMITS[ChangeKind.CONFIG_NOTIFICATION]}. Live events since the console connected are complete."
    )
