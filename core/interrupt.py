"""What to undo when the user interrupts kzc: close sessions, stop processes, drop partial files.

kazoo 2.11 wraps its socket writes in a bare ``except:`` that swallows ``KeyboardInterrupt`` raised in
the calling thread, so Ctrl-C cannot be trusted to surface where a blocking ZooKeeper call runs. The
command line therefore runs each command in a worker thread and waits for it in the main thread, which
receives Ctrl-C; on Ctrl-C it calls ``interrupt()``, which runs every registered cleanup (newest first):
the ZooKeeper sessions close (the worker's calls fail at once), the Spark worker's process group is
killed, temporary output files are removed, and audit attempts in progress are recorded as
``interrupted``. After that the worker's own errors are irrelevant: ``interrupted()`` is True.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Cleanup = Callable[[], None]

_lock = threading.Lock()
_cleanups: dict[int, Cleanup] = {}
_ids = itertools.count()
_interrupted = threading.Event()
_left_behind = threading.Event()


def on_interrupt(cleanup: Cleanup) -> Callable[[], None]:
    """Run ``cleanup`` if kzc is interrupted; returns the function that unregisters it.

    When kzc is already interrupted, ``cleanup`` runs at once (a session opened after Ctrl-C closes).
    """
    with _lock:
        key = next(_ids)
        _cleanups[key] = cleanup
    if _interrupted.is_set():
        _run(key)

    def unregister() -> None:
        with _lock:
            _cleanups.pop(key, None)

    return unregister


@contextmanager
def cleanup_on_interrupt(cleanup: Cleanup) -> Iterator[None]:
    """``on_interrupt(cleanup)`` for the duration of the ``with`` block."""
    unregister = on_interrupt(cleanup)
    try:
        yield
    finally:
        unregister()


def interrupt() -> None:
    """The user interrupted kzc: run every registered cleanup once, newest first; never raises."""
    _interrupted.set()
    with _lock:
        keys = sorted(_cleanups, reverse=True)
    for key in keys:
        _run(key)


def interrupted() -> bool:
    """Whether ``interrupt()`` was called (the worker's errors are then consequences, not causes)."""
    return _interrupted.is_set()


def leave_behind() -> None:
    """The command stopped waiting for work that may stay blocked (a hung ZooKeeper's read in ``kzc fleet``):
    kzc exits without waiting for it (its threads are daemons, but a thread pool's workers would be joined)."""
    _left_behind.set()


def left_behind() -> bool:
    """Whether ``leave_behind()`` was called."""
    return _left_behind.is_set()


def reset() -> None:
    """Forget an interrupt (tests that run several commands in one process)."""
    _interrupted.clear()
    _left_behind.clear()
    with _lock:
        _cleanups.clear()


def _run(key: int) -> None:
    with _lock:
        cleanup = _cleanups.pop(key, None)
    if cleanup is None:
        return
    with contextlib.suppress(Exception):  # a failed cleanup must not stop the others
        cleanup()
