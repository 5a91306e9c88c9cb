"""Long tasks the console runs for any screen (a part of ``KzcApp``): the consistency checks (the run
belongs to the app, so it survives leaving the checks screen) and exports to JSON files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App

from core.consistency.findings import StageProgress
from core.console.protocols import ClusterBackend
from core.errors import KzcError
from tui.checks_run import ChecksFinished, ChecksProgressed, ChecksRun
from tui.export import export_path, write_export
from tui.messages import ExportWritten
from tui.screens.checks import ChecksScreen


class Tasks(App[None]):
    """Checks and exports of ``KzcApp``."""

    backend: ClusterBackend
    checks: ChecksRun
    last_export: str | None
    _generation: int

    def now_ms(self) -> int:
        """Now in epoch milliseconds (``KzcApp`` uses its clock)."""
        raise NotImplementedError

    def run_checks(self, engine: str = "spark") -> None:
        """Start a check run with ``engine`` (``spark`` or ``local``) unless one is running."""
        if self.checks.running:
            self.notify("the checks are already running")
            return
        self.checks = ChecksRun(running=True, engine=engine)
        self._show_checks()
        self.checks_worker(self._generation, engine)

    @work(thread=True, exclusive=True, exit_on_error=False, group="checks")
    def checks_worker(self, generation: int, engine: str) -> None:
        """Run the checks (worker thread); progress and the result come back as messages."""

        def progressed(progress: StageProgress) -> None:
            self.post_message(ChecksProgressed(progress))

        try:
            report = self.backend.run_checks(progressed, engine)
        except KzcError as exc:
            self.post_message(ChecksFinished(None, str(exc)))
            return
        if generation == self._generation:
            self.post_message(ChecksFinished(report))

    @on(ChecksProgressed)
    def _checks_progressed(self, message: ChecksProgressed) -> None:
        self.checks.progress[message.progress.stage] = message.progress
        self._show_checks()

    @on(ChecksFinished)
    def _checks_finished(self, message: ChecksFinished) -> None:
        self.checks.running, self.checks.report, self.checks.error = False, message.report, message.error
        self._show_checks()
        if not isinstance(self.screen, ChecksScreen):
            done = "consistency checks finished (x shows them)"
            self.notify(done if message.report else f"checks failed: {message.error}")

    def _show_checks(self) -> None:
        if isinstance(self.screen, ChecksScreen):
            self.screen.show_run(self.checks)

    def export(self, view: str, payload: dict[str, Any]) -> None:
        """Write ``payload`` (plus context and time) to a new export file, in a worker."""
        now = self.now_ms()
        full = {"kzc_export": view, "context": self.backend.name, "exported_at_ms": now, **payload}
        self.write_export_file(export_path(view, now / 1000), full)

    @work(thread=True, exit_on_error=False, group="export")
    def write_export_file(self, path: Path, payload: dict[str, Any]) -> None:
        """Write the export (worker thread)."""
        rows = payload.get("rows")
        count = len(rows) if isinstance(rows, list) else 0
        try:
            write_export(path, payload)
        except OSError as exc:
            self.post_message(ExportWritten(str(path), count, f"{exc.strerror or exc}"))
            return
        self.post_message(ExportWritten(str(path), count))

    @on(ExportWritten)
    def _export_written(self, message: ExportWritten) -> None:
        if message.error:
            self.notify(f"export failed: {message.path}: {message.error}", severity="error", timeout=10)
        else:
            self.last_export = message.path
            self.notify(f"exported to {message.path}", timeout=10)
