"""One read at a time per key, shared by every caller that comes while it runs: the console backend's cached
reads (log dirs, ZooKeeper's health, consumer groups).

``SingleFlight.read(key, fetch, max_age_s)`` returns the last value of ``key`` when it finished less than
``max_age_s`` ago; otherwise, when a read of ``key`` is in flight on another thread, it waits for that read's
outcome (its value, or the exception it raised); otherwise it runs ``fetch`` on the calling thread and hands
the outcome to every caller that waited. The lock is held only to look up or install the in-flight future,
never while ``fetch`` talks to the network. A failed read is not kept: the next caller reads again.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Generic, TypeVar

from core.errors import ConnectError

V = TypeVar("V")


class SingleFlight(Generic[V]):
    """Cached, single-flight reads by key (any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()  # guards the two dicts only; never held during a read
        self._in_flight: dict[str, Future[V]] = {}
        self._last: dict[str, tuple[float, V]] = {}  # key -> (monotonic end of its last good read, the value)

    def read(self, key: str, fetch: Callable[[], V], max_age_s: float = 0.0, wait_s: float | None = None) -> V:
        """The value of ``key``: the last one if younger than ``max_age_s``, else that of the read in flight,
        else ``fetch()`` run now.

        Args:
            key: what is read, named for the reader (``"consumer groups"``): the error of a wait says it.
            wait_s: how long to wait for another caller's read (None: as long as it takes).

        Raises:
            Whatever ``fetch`` raised, in this caller or in the one whose read it shared.
            ConnectError: another caller's read did not finish within ``wait_s``.
        """
        with self._lock:
            last = self._last.get(key)
            if last is not None and time.monotonic() - last[0] < max_age_s:
                return last[1]
            shared = self._in_flight.get(key)
            if shared is None:
                mine: Future[V] = Future()
                self._in_flight[key] = mine
        if shared is not None:
            try:
                return shared.result(timeout=wait_s)
            except FutureTimeout:
                if shared.done():
                    raise  # the read itself failed with a timeout
                raise ConnectError(f"the {key} read did not finish within {wait_s:g} s") from None
        try:
            value = fetch()
        except BaseException as exc:
            with self._lock:
                del self._in_flight[key]
            mine.set_exception(exc)
            raise
        with self._lock:
            self._last[key] = (time.monotonic(), value)
            del self._in_flight[key]
        mine.set_result(value)
        return value

    def last(self, key: str) -> V | None:
        """The value of ``key``'s last good read, however old (None: never read)."""
        with self._lock:
            last = self._last.get(key)
        return None if last is None else last[1]
