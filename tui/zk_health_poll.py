"""The console's ZooKeeper health: the app's one poller of every server of the connect string
(``core.zookeeper.health`` through the backend's ``zookeeper_health``), and what it hands the screens.

A probe runs in a worker, never on the UI thread, and the next one is scheduled only after it finished,
``EVERY_S`` later: a dead server (each word waits up to its timeout) slows the polling, threads never pile
up. Each result goes to the active screen if it shows ZooKeeper's health (``ShowsZkHealth``); the others
get the latest when they come back. A reading older than ``STALE_AFTER_S`` is drawn as stale, with its time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol, runtime_checkable

from textual.app import App
from textual.message import Message
from textual.timer import Timer

from core.console.protocols import ZkHealthSource
from core.errors import KzcError
from core.zookeeper.health import EnsembleHealth

EVERY_S = 10.0  # between the end of one probe and the start of the next: 3 short TCP requests per server
STALE_AFTER_S = 3 * EVERY_S
WORKER_GROUP = "zk-health"


@runtime_checkable
class ShowsZkHealth(Protocol):
    """A screen that shows ZooKeeper's health (the cluster screen's line, the health screen)."""

    def show_zk_health(self, health: EnsembleHealth | None, stale: bool, problem: str | None) -> None: ...


@dataclass
class ZkHealthRead(Message):
    """A probe of the ensemble finished (posted from the worker): its health, or why it failed."""

    health: EnsembleHealth | None
    problem: str | None
    generation: int


def probe_job(source: ZkHealthSource, generation: int, post: Any) -> None:
    """Probe the ensemble (worker thread); ends in one ``ZkHealthRead``."""
    try:
        post(ZkHealthRead(source.zookeeper_health(), None, generation))
    except KzcError as exc:
        post(ZkHealthRead(None, str(exc), generation))


class ZkHealthPoll:
    """Polls one cluster's ensemble for the app (a context switch makes a new poll; results of an older
    one carry its generation and are dropped)."""

    def __init__(self, app: App[Any], source: ZkHealthSource, generation: int, now_ms: Callable[[], int]) -> None:
        self.app = app
        self.source = source
        self.generation = generation
        self.now_ms = now_ms
        self._timer: Timer | None = None
        self.latest: EnsembleHealth | None = None
        self.problem: str | None = None
        self._running = False
        self._stopped = False

    def start(self) -> None:
        """Probe now, then every ``EVERY_S`` after each probe ends; a tick also redraws the stale mark."""
        self._probe()
        self._timer = self.app.set_interval(EVERY_S, self._tick)

    def stop(self) -> None:
        """Stop polling (a context switch)."""
        self._stopped = True
        if self._timer is not None:
            self._timer.stop()

    def _probe(self) -> None:
        if self._running or self._stopped:
            return
        self._running = True
        job = partial(probe_job, self.source, self.generation, self.app.post_message)
        self.app.run_worker(job, thread=True, exit_on_error=False, group=WORKER_GROUP)

    def _tick(self) -> None:
        if self._stopped:
            return
        self._probe()
        self.draw()  # a probe stuck on a dead network turns the shown reading stale

    def take(self, message: ZkHealthRead) -> None:
        """A probe ended: keep its result and draw it on the active screen (UI thread)."""
        if message.generation != self.generation:
            return
        self._running = False
        if message.health is not None:
            self.latest = message.health
        self.problem = message.problem
        self.draw()

    def stale(self) -> bool:
        """Whether the latest reading is older than ``STALE_AFTER_S`` by the app's clock."""
        if self.latest is None:
            return False
        return self.now_ms() - self.latest.at_ms > STALE_AFTER_S * 1000

    def draw(self, screen: object = None) -> None:
        """Show the latest reading on ``screen`` (default: the active one) if it shows ZooKeeper's health."""
        if not self.app.screen_stack:
            return
        target = screen if screen is not None else self.app.screen
        if isinstance(target, ShowsZkHealth):
            target.show_zk_health(self.latest, self.stale(), self.problem)
