"""The brokers' log dirs for a screen that shows sizes (the topics and partitions tables, the cluster screen's
broker totals and likely cause): read in a worker, never on the UI thread, only while that screen is current,
and again ``EVERY_S`` after each read finished (``core.snapshot.sizes``). The backend keeps its last read, so a
screen that comes up takes one younger than a period instead of asking the brokers again.

What the screen derives from a read (rows, a likely cause) is derived in the same worker (``derive``); the
screen gets both on the UI thread (``done``), or why the read failed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any, Generic, TypeVar

from textual.screen import Screen
from textual.timer import Timer

from core.console.protocols import SizeSource, TrafficSource
from core.errors import KzcError
from core.snapshot.sizes import EVERY_S, SizesView
from core.traffic.ticker import PACE, TICK_S, TrafficView

T = TypeVar("T")
V = TypeVar("V")
FRESH = 0.9  # of a period: a read younger than this (another screen's) serves as it is


class PolledReads(Generic[V, T]):
    """Polls ``read`` (given the oldest age it may serve, in seconds) for one screen every ``every_s`` (see the
    module docstring; ``tui.traffic_reads`` polls the traffic ticks so)."""

    def __init__(
        self,
        screen: Screen[Any],
        read: Callable[[float], V],
        derive: Callable[[V], T],
        done: Callable[[V | None, T | None, str | None], None],
        every_s: float,
        group: str,
        pace: float = 0.0,
    ) -> None:
        self.screen = screen
        self.read = read
        self.derive = derive
        self.done = done
        self.every_s = every_s
        self.pace = pace  # wait at least this many times the last read's length (a big cluster's ticks)
        self._took_s = 0.0
        self.group = group
        self.latest: V | None = None
        self._running = False
        self._again = False  # a read was asked for while one ran
        self._due = False  # the period ended while the screen was not current
        self._timer: Timer | None = None

    def start(self) -> None:
        """Read now (or take a fresh read of another screen's)."""
        self._read(FRESH * self.every_s)

    def resume(self) -> None:
        """The screen is current again: read if the period ended meanwhile."""
        if self._due:
            self._due = False
            self._read(FRESH * self.every_s)

    def now(self) -> None:
        """Read again at once (something changed that the sizes' evidence must follow)."""
        if self._running:
            self._again = True
        else:
            self._read(0.0)

    def _read(self, max_age_s: float) -> None:
        if self._running:
            return
        self._running = True
        self.screen.run_worker(partial(self._job, max_age_s), thread=True, group=self.group, exit_on_error=False)

    def _job(self, max_age_s: float) -> None:
        """Worker thread: the read and what the screen derives from it; ends on the UI thread."""
        started = time.monotonic()
        view: V | None = None
        derived: T | None = None
        error: str | None = "the read ended unexpectedly"
        try:
            view = self.read(max_age_s)
            derived = self.derive(view)
            error = None
        except KzcError as exc:
            error = str(exc)
        finally:
            self._took_s = time.monotonic() - started
            self.screen.app.call_from_thread(self._finished, view, derived, error)

    def _finished(self, view: V | None, derived: T | None, error: str | None) -> None:
        self._running = False
        if view is not None:
            self.latest = view
        if not self.screen.is_mounted:
            return
        self.done(view, derived, error)
        if self._again:
            self._again = False
            self._read(0.0)
            return
        if self._timer is not None:
            self._timer.stop()
        wait = max(self.every_s, self.pace * self._took_s) if view is not None else self.every_s / 5
        self._timer = self.screen.set_timer(wait, self._next)

    def _next(self) -> None:
        if self.screen.is_current:
            self._read(FRESH * self.every_s)
        else:
            self._due = True


class SizeReads(PolledReads[SizesView, T]):
    """Polls ``source``'s log dirs for one screen, every ``EVERY_S``."""

    def __init__(
        self,
        screen: Screen[Any],
        source: SizeSource,
        derive: Callable[[SizesView], T],
        done: Callable[[SizesView | None, T | None, str | None], None],
    ) -> None:
        super().__init__(screen, source.log_dirs, derive, done, EVERY_S, "sizes")


def traffic_reads(
    screen: Screen[Any],
    source: TrafficSource,
    derive: Callable[[TrafficView], T],
    done: Callable[[TrafficView | None, T | None, str | None], None],
) -> PolledReads[TrafficView, T]:
    """Polls ``source``'s traffic ticks for one screen: every ``TICK_S``, or ``PACE`` times a tick's length when
    ticks are long (a large cluster), so the worker never takes most of the process."""
    return PolledReads(screen, source.traffic, derive, done, TICK_S, "traffic", PACE)
