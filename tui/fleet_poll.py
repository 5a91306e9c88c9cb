"""The console's fleet: every context of the config file followed in a worker by ``core.fleet.follow`` (``kzc
fleet``'s reader, reading a cluster whole only when a watch on its structural znodes fired), a round again
``EVERY_S`` after each ends, its rows kept on a ``core.fleet.board``.

A round over clusters that did not change asks ZooKeeper nothing. Each row is posted as it arrives, so a hung
cluster never holds the others; the reader's deadline ends each round; the UI thread never waits.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from textual.app import App
from textual.message import Message
from textual.timer import Timer

from core.config import ConnectionSettings
from core.fleet.board import FleetBoard
from core.fleet.follow import FollowingReader
from core.fleet.read import DEFAULT_DEADLINE_S
from core.fleet.row import FleetRow

EVERY_S = 5.0  # between the end of one round and the start of the next (a round without changes is free)
WORKER_GROUP = "fleet"


class RowReader(Protocol):
    """What reads the fleet (``core.fleet.follow.FollowingReader``; tests give scripted rows)."""

    def read(self, on_row: Callable[[FleetRow], None] | None = None) -> list[FleetRow]: ...

    def forget(self) -> None:
        """Read every cluster whole in the next round, changed or not."""

    def close(self) -> None:
        """Drop what it holds open (sessions)."""


class ShowsFleet(Protocol):
    """The fleet screen."""

    def show_fleet(self, board: FleetBoard) -> None: ...


@dataclass
class FleetRowRead(Message):
    """One context's row arrived (posted from the worker)."""

    row: FleetRow


@dataclass
class FleetRoundEnded(Message):
    """A round over every context ended (posted from the worker), with why it failed if it did."""

    problem: str | None = None


def read_round(reader: RowReader, post: Callable[[Message], Any]) -> None:
    """One round (worker thread): each row posted as it arrives, then ``FleetRoundEnded``."""
    try:
        reader.read(lambda row: post(FleetRowRead(row)))
    except Exception as exc:  # the reader never raises for a cluster; anything else is said, not a crash
        post(FleetRoundEnded(f"{type(exc).__name__}: {exc}"))
        return
    post(FleetRoundEnded())


def reader_for(contexts: Mapping[str, ConnectionSettings | str]) -> FollowingReader:
    """``kzc fleet``'s reader over ``contexts``, with its default deadline, following their changes."""
    return FollowingReader(contexts, DEFAULT_DEADLINE_S)


class FleetPoll:
    """Reads the fleet for the app while it runs (started by ``kzc --fleet`` or the first ``F``)."""

    def __init__(self, app: App[Any], reader: RowReader) -> None:
        self.app = app
        self.reader = reader
        self.board = FleetBoard()
        self.problem: str | None = None
        self.rounds = 0
        self._running = False
        self._started = False
        self._timer: Timer | None = None

    def start(self) -> None:
        """Read now, then ``EVERY_S`` after each round (once: later calls do nothing)."""
        if self._started:
            return
        self._started = True
        self._read()

    def read_now(self) -> None:
        """Start a round now that reads every cluster whole, unless one is running (``r`` on the fleet screen)."""
        if not self._running:
            self.reader.forget()
        self._read()

    def _read(self) -> None:
        if self._running:
            return
        self._running = True
        job = partial(read_round, self.reader, self.app.post_message)
        self.app.run_worker(job, thread=True, exit_on_error=False, group=WORKER_GROUP)

    def take(self, message: FleetRowRead | FleetRoundEnded) -> None:
        """A row or the end of a round (UI thread): keep it, draw it, schedule the next round."""
        if isinstance(message, FleetRowRead):
            self.board.take(message.row)
        else:
            self._running = False
            self.problem = message.problem
            self.rounds += 1
            if self._timer is not None:
                self._timer.stop()
            self._timer = self.app.set_timer(EVERY_S, self._read)
        self.draw()

    def close(self) -> None:
        """Close the reader's sessions on a daemon thread (a hung ZooKeeper's close would block the UI)."""
        threading.Thread(target=self.reader.close, name="kzc-fleet-close", daemon=True).start()

    def draw(self) -> None:
        """Show the board on the active screen if it is the fleet's."""
        if self.app.screen_stack and hasattr(self.app.screen, "show_fleet"):
            self.app.screen.show_fleet(self.board)
