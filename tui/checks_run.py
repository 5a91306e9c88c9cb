"""The state of the console's consistency-check run. It belongs to the app, not to the checks screen, so a
run keeps going (and its results stay) while the user works elsewhere."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from textual.message import Message

from core.console.protocols import CheckProgress, CheckReport, CheckRunner
from core.errors import KzcError


@dataclass
class ChecksRun:
    """Progress per stage, the report once done, or the error that stopped the run."""

    running: bool = False
    engine: str = "spark"
    progress: dict[str, CheckProgress] = field(default_factory=dict)
    report: CheckReport | None = None
    error: str | None = None

    def advance(self, message: ChecksProgressed | ChecksFinished) -> None:
        """Take in a progress step or the end of the run."""
        if isinstance(message, ChecksFinished):
            self.running, self.report, self.error = False, message.report, message.error
        elif message.progress is not None:
            self.progress[message.progress.stage] = message.progress


@dataclass
class ChecksProgressed(Message):
    """A stage advanced (posted from the worker thread); ``None``: the run just started."""

    progress: CheckProgress | None


@dataclass
class ChecksFinished(Message):
    """The run ended with a report, or with an error message."""

    report: CheckReport | None
    error: str | None = None


def checks_job(runner: CheckRunner, engine: str, post: Callable[[Message], object]) -> None:
    """Run the checks (worker thread); progress and the result come back as messages."""

    def progressed(progress: CheckProgress) -> None:
        post(ChecksProgressed(progress))

    try:
        report = runner.run_checks(progressed, engine)
    except KzcError as exc:
        post(ChecksFinished(None, str(exc)))
        return
    post(ChecksFinished(report))
