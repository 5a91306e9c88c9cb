"""The checks screen: run the consistency checks (a progress bar per stage; the run belongs to the app, so
the console stays usable and the run survives leaving this screen), findings grouped by severity and
check, Enter jumps to the finding's topic or znode, ``e`` exports."""

from __future__ import annotations

import time
from collections import Counter
from typing import Any, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Label, ProgressBar

from core.consistency.findings import Finding, StageProgress
from tui.checks_run import ChecksRun
from tui.messages import ChecksRequested, TopicChosen, ZnodeChosen
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

FINDING_COLUMNS = (
    Column("severity", "severity"),
    Column("check", "check", max_width=34),
    Column("topic", "topic", max_width=40),
    Column("message", "finding", max_width=300),
    Column("path", "znode", max_width=120),
)


def _grouped(progress: dict[str, StageProgress]) -> dict[str, StageProgress]:
    """One bar per pipeline stage, and one for all the ``check <id>`` stages together."""
    grouped: dict[str, StageProgress] = {}
    for stage, step in progress.items():
        if not stage.startswith("check "):
            grouped[stage] = step
            continue
        known = grouped.get("checks")
        if known is None or step.done >= known.done:
            grouped["checks"] = StageProgress("checks", step.done, step.total, step.done >= step.total > 0)
    return grouped


def _first_check(run: ChecksRun) -> str:
    """The first ``check <id>`` stage seen: when the grouped ``checks`` bar started."""
    return min((s for s in run.stage_started if s.startswith("check ")), key=run.stage_started.__getitem__, default="")


def _seconds(value: float) -> str:
    """``7 s``, ``2 m 13 s``."""
    whole = max(0, int(value))
    return f"{whole // 60} m {whole % 60:02d} s" if whole >= 60 else f"{whole} s"


def _doing(current: tuple[str, StageProgress] | None) -> str:
    """What the run waits on: the stage, and its step when it has steps (``load: starting Spark, step 2 of 3``)."""
    if current is None:
        return "starting"
    stage, progress = current
    if not progress.step or progress.finished:
        return stage
    return f"{stage}: {progress.step}, step {min(progress.done + 1, progress.total)} of {progress.total}"


def finding_rows(findings: tuple[Finding, ...]) -> list[Row]:
    """Findings in the report's order: errors first, then the catalog's order of checks."""
    rows = []
    for number, f in enumerate(sorted(findings, key=Finding.sort_key)):
        severity = f.severity.value
        meanings = frozenset({severity}) if severity in ("error", "warning") else frozenset({"muted"})
        cells = (severity, f.check, f.topic or "", f.detail, f.path or "")
        rows.append(Row(str(number), cells, meanings, cells, f))
    return rows


class ChecksScreen(KzcScreen):
    """Consistency checks with live progress."""

    VIEW_NAME = "checks"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("r", "run('spark')", "Run (Spark)", id="run_checks"),
        Binding("l", "run('local')", "Run locally", id="run_checks_local"),
    ]

    def __init__(self, run: ChecksRun) -> None:
        """``run``: the app's check run (the app updates it and calls ``show_run``)."""
        super().__init__()
        self.checks_run = run
        self._bars: dict[str, ProgressBar] = {}
        self._elapsed: dict[str, Label] = {}

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label("r runs the consistency checks with Spark, l without (in this process)", id="checks-summary")
        yield Vertical(id="stages")
        yield VirtualTable(FINDING_COLUMNS, empty_text="no findings yet", id="findings")
        yield Label("", id="finding-detail")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#findings").border_title = "Findings"
        self.query_one("#findings", VirtualTable).focus()
        self._render_run(self.checks_run)  # a screen opened after a run shows it (is_mounted is False here)
        self.set_interval(1.0, self._tick)

    def _tick(self) -> None:
        """While a run goes, its elapsed times move every second (only when this screen shows)."""
        if self.checks_run.running and self.is_current:
            self._show_elapsed(self.checks_run)

    def _show_elapsed(self, run: ChecksRun) -> None:
        end = run.ended_at if run.ended_at is not None else time.monotonic()
        stages = list(_grouped(run.progress).items())
        for index, (stage, progress) in enumerate(stages):
            label = self._elapsed.get(stage)
            if label is None:
                continue
            started = run.stage_started.get(stage) or run.stage_started.get(_first_check(run), end)
            following = [run.stage_started.get(s, end) for s, _ in stages[index + 1 :]]
            stop = end if not progress.finished else min([*following, end])
            state = "done" if progress.finished else ("running" if run.running else "stopped")
            label.update(f"{state} {_seconds(stop - started)}")
        summary = self.query_one("#checks-summary", Label)
        if run.running:
            current = next(((s, p) for s, p in reversed(stages) if not p.finished), stages[-1] if stages else None)
            summary.update(
                f"running with {run.engine}: {_doing(current)} · {_seconds(end - run.started_at)} elapsed "
                "(the console stays usable; results appear here)"
            )

    def action_run(self, engine: str) -> None:
        """Start a run with ``engine`` (unless one is running)."""
        self.post_message(ChecksRequested(engine))

    def show_run(self, run: ChecksRun) -> None:
        """Render the app's current run."""
        self.checks_run = run
        if self.is_mounted:
            self._render_run(run)  # else on_mount renders it

    def _render_run(self, run: ChecksRun) -> None:
        stages = self.query_one("#stages", Vertical)
        if not run.progress and self._bars:
            stages.remove_children()
            self._bars.clear()
            self._elapsed.clear()
        for stage, progress in _grouped(run.progress).items():
            bar = self._bars.get(stage)
            if bar is None:
                bar = self._bars[stage] = ProgressBar(total=None, show_eta=False)
                elapsed = self._elapsed[stage] = Label("", classes="elapsed")
                stages.mount(Horizontal(Label(stage), bar, elapsed, classes="stage"))
            if progress.total:
                bar.update(total=progress.total, progress=progress.done)
            elif progress.finished:
                bar.update(total=1, progress=1)
        summary = self.query_one("#checks-summary", Label)
        if run.error:
            summary.update(f"checks failed: {run.error}")
        elif run.running:
            self._show_elapsed(run)
        elif run.report is not None:
            report = run.report
            counts = Counter(f.severity.value for f in report.findings)
            per_check = Counter(f.check for f in report.findings)
            top = ", ".join(f"{check} {n}" for check, n in per_check.most_common(4))
            summary.update(
                f"{len(report.findings)} findings: {counts['error']} errors, {counts['warning']} warnings, "
                f"{counts['info']} info · {report.partitions:,} partitions · {report.engine} engine · "
                f"{report.duration_s:.1f} s" + (f" · {top}" if top else "") + "".join(f" · {n}" for n in report.notes)
            )
            table = self.query_one("#findings", VirtualTable)
            table.empty_text = f"no findings: every check passed on {report.partitions:,} partitions"
            table.set_rows(finding_rows(report.findings))
            self._show_elapsed(run)

    @on(VirtualTable.Highlighted, "#findings")
    def _detail(self, event: VirtualTable.Highlighted) -> None:
        finding = event.row.data if event.row is not None else None
        text = f"{finding.detail} ({finding.path})" if isinstance(finding, Finding) else ""
        self.query_one("#finding-detail", Label).update(text)

    @on(VirtualTable.Selected, "#findings")
    def _jump(self, event: VirtualTable.Selected) -> None:
        finding: Finding = event.row.data
        view = self.latest_view
        if finding.topic and view is not None and finding.topic in view.snapshot.topics:
            self.post_message(TopicChosen(finding.topic))
        elif finding.path:
            self.post_message(ZnodeChosen(finding.path))

    def export_payload(self) -> dict[str, Any] | None:
        """Every finding of the last run, as ``kzc check --json`` prints them."""
        report = self.checks_run.report
        return None if report is None else report.to_json()
