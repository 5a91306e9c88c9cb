"""One history question as a unit: its rule on each engine side by side, and how it is asked.

A question (``core.history.questions`` lists them) reads a ``Span`` of a store: one cluster, or with
``fleet`` every cluster of the store ranked together (the Spark rules already take a fleet, a cluster
being a fleet of one). ``local`` is the reference rule (pyarrow and plain Python), ``spark`` the same rule
on Spark; both live in the question's module, beside ``ask``, which runs one of them and builds the answer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from core.history.observations import Window
from core.history.store import HistoryStore


class Answer(Protocol):
    """What every question answers: JSON and text lines."""

    def to_json(self) -> dict[str, object]: ...

    def lines(self) -> list[str]: ...


@dataclass(frozen=True)
class Span:
    """What a question reads: ``clusters`` of ``store`` (several: the fleet) over [since_ms, until_ms]."""

    store: HistoryStore
    clusters: tuple[str, ...]
    since_ms: int
    until_ms: int
    fleet: bool = False

    @property
    def cluster(self) -> str:
        """The one cluster of a single-cluster span."""
        return self.clusters[0]

    def window(self) -> Window:
        """The observations' window of the one cluster."""
        return Window.of(self.store, self.cluster, self.since_ms, self.until_ms)

    def windows(self) -> list[Window]:
        """Every cluster's window, over the same span."""
        return [Window.of(self.store, c, self.since_ms, self.until_ms) for c in self.clusters]


Ask = Callable[..., Answer]  # (span, spark or None, **the question's parameters)


@dataclass(frozen=True)
class Question:
    """One registered question: its name (``kzc history NAME``), what it answers, its two rules, whether it
    takes a fleet (``--cluster all``), and ``ask``."""

    name: str
    summary: str
    local: Callable[..., Any]
    spark: Callable[..., Any]
    ask: Ask
    fleet: bool = False

    def __post_init__(self) -> None:
        modules = {f.__module__ for f in (self.local, self.spark, self.ask)}
        if len(modules) != 1:
            raise ValueError(f"{self.name}: its rules and ask are not side by side ({sorted(modules)})")
