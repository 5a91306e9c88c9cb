"""The console's consistency-check runs: their state, the worker that runs them, and the Spark worker's
life (warmed up once the whole cluster is on screen, stopped in bounded time on quit). A run belongs to the
app, not to the checks screen, so it keeps going (and its results stay) while the user works elsewhere."""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual.app import App
from textual.message import Message

from core.consistency.findings import CheckReport, StageProgress
from core.console.checks import CheckEngines
from core.console.protocols import CheckRunner
from core.errors import KzcError

QUIT_WAIT_S = 4.0  # how long quitting waits for the Spark worker before killing it and its JVM
REDRAW_S = 0.2  # progress comes in bursts (one step per check): drawn at most this often, keys stay answered
WORKER_GROUP = "checks"


@runtime_checkable
class HasCheckEngines(Protocol):
    """A backend whose check engines the console can warm up (once the cluster is on screen) and stop in
    bounded time."""

    @property
    def check_engines(self) -> CheckEngines: ...


@runtime_checkable
class ShowsChecks(Protocol):
    """A screen that shows the check run (the checks screen)."""

    def show_run(self, run: ChecksRun) -> None: ...


@dataclass
class ChecksRun:
    """Progress per stage, the report once done, or the error that stopped the run."""

    running: bool = False
    engine: str = "spark"
    progress: dict[str, StageProgress] = field(default_factory=dict)
    report: CheckReport | None = None
    error: str | None = None
    started_at: float = 0.0  # time.monotonic() when the run started
    stage_started: dict[str, float] = field(default_factory=dict)  # first progress of each stage
    ended_at: float | None = None

    def advance(self, message: ChecksProgressed | ChecksFinished) -> None:
        """Take in a progress step or the end of the run."""
        now = time.monotonic()
        if isinstance(message, ChecksFinished):
            self.running, self.report, self.error, self.ended_at = False, message.report, message.error, now
        elif message.progress is not None:
            self.progress[message.progress.stage] = message.progress
            self.stage_started.setdefault(message.progress.stage, now)


@dataclass
class ChecksProgressed(Message):
    """A stage advanced (posted from the worker thread); ``None``: the run just started."""

    progress: StageProgress | None


@dataclass
class ChecksFinished(Message):
    """The run ended with a report, or with an error message."""

    report: CheckReport | None
    error: str | None = None


def checks_job(runner: CheckRunner, engine: str, post: Callable[[Message], object]) -> None:
    """Run the checks (worker thread); progress and the result come back as messages."""

    def progressed(progress: StageProgress) -> None:
        post(ChecksProgressed(progress))

    try:
        report = runner.run_checks(progressed, engine)
    except KzcError as exc:
        post(ChecksFinished(None, str(exc)))
        return
    post(ChecksFinished(report))


class CheckRuns:
    """The app's check runs: starts one in a worker, takes in its progress, redraws the screens that show
    it at most every ``REDRAW_S``, warms up the Spark worker once the whole cluster is on screen and stops
    it on quit.

    Args:
        app: runs the workers and timers, holds the screens and shows the notices.
    """

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.run = ChecksRun()
        self._redraw_due = False

    def warm_up(self, backend: object) -> None:
        """Start the Spark worker off the UI thread, so the first run rarely waits on a JVM."""
        if isinstance(backend, HasCheckEngines):
            engines = backend.check_engines

            def warm() -> None:
                with suppress(KzcError):  # e.g. no Java: said when the user runs the Spark checks, not at start
                    engines.warm_up()

            self.app.run_worker(warm, thread=True, exit_on_error=False, group="warm")

    def start(self, runner: CheckRunner, engine: str) -> None:
        """Start a run with ``engine`` unless one is running."""
        if self.run.running:
            self.app.notify("the checks are already running")
            return
        self.run = ChecksRun(running=True, engine=engine, started_at=time.monotonic())
        self.advance(ChecksProgressed(None))
        job = partial(checks_job, runner, engine, self.app.post_message)
        self.app.run_worker(job, thread=True, exclusive=True, exit_on_error=False, group=WORKER_GROUP)

    def advance(self, message: ChecksProgressed | ChecksFinished) -> None:
        """Take in a progress step or the end of the run, and draw it (the end at once)."""
        self.run.advance(message)
        finished = isinstance(message, ChecksFinished)
        if finished or not self._redraw_due:
            self._redraw_due = True
            if finished:
                self.app.call_later(self._redraw)
            else:
                self.app.set_timer(REDRAW_S, self._redraw)
        if isinstance(message, ChecksFinished) and not isinstance(self.app.screen, ShowsChecks):
            done = "consistency checks finished (x shows them)"
            self.app.notify(done if message.report else f"checks failed: {message.error}")

    def _redraw(self) -> None:
        self._redraw_due = False
        for screen in self.app.screen_stack:
            if isinstance(screen, ShowsChecks):
                screen.show_run(self.run)

    async def stop_spark(self, backend: object) -> None:
        """Stop the Spark worker if it started: an idle one ends by itself (nothing to wait for); one running a
        check gets at most ``QUIT_WAIT_S``, then it and its JVM are killed."""
        if isinstance(backend, HasCheckEngines) and backend.check_engines.spark_started:
            if self.run.running:
                self.app.notify(
                    f"quitting: stopping the check run and the Spark worker (at most {QUIT_WAIT_S:.0f} s)…", timeout=10
                )
            engines = backend.check_engines
            worker = self.app.run_worker(partial(engines.close, QUIT_WAIT_S), thread=True, exit_on_error=False)
            await worker.wait()
