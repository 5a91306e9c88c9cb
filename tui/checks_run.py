"""The state of the console's consistency-check run. It belongs to the app, not to the checks screen, so a
run keeps going (and its results stay) while the user works elsewhere."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from core.consistency.findings import CheckReport, StageProgress


@dataclass
class ChecksRun:
    """Progress per stage, the report once done, or the error that stopped the run."""

    running: bool = False
    engine: str = "spark"
    progress: dict[str, StageProgress] = field(default_factory=dict)
    report: CheckReport | None = None
    error: str | None = None


@dataclass
class ChecksProgressed(Message):
    """A stage advanced (posted from the worker thread)."""

    progress: StageProgress


@dataclass
class ChecksFinished(Message):
    """The run ended with a report, or with an error message."""

    report: CheckReport | None
    error: str | None = None
