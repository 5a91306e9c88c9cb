"""The state of the console's consistency-check run. It belongs to the app, not to the checks screen, so a
run keeps going (and its results stay) while the user works elsewhere."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from textual.message import Message

from core.consistency.findings import CheckReport, StageProgress
from core.console.checks import CheckEngines
from core.console.protocols import CheckRunner
from core.errors import KzcError

QUIT_WAIT_S = 4.0  # how long quitting waits for the Spark worker before killing it and its JVM


@runtime_checkable
class HasCheckEngines(Protocol):
    """A backend whose check engines the console can warm up as it opens and stop in bounded time."""

    @property
    def check_engines(self) -> CheckEngines: ...


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
