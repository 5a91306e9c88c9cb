"""Waiting on a condition with a deadline (never a bare sleep): for the sandbox, the CLI's --wait and tests."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class DeadlineExceeded(TimeoutError):
    """The condition did not hold before the deadline."""


def wait_until(condition: Callable[[], T], timeout: float, what: str = "condition", interval: float = 0.05) -> T:
    """Poll ``condition`` until it returns something truthy, and return that value.

    ``condition`` may raise to abort the wait (e.g. the process it waits on died).

    Raises:
        DeadlineExceeded: ``timeout`` seconds passed first; the message names ``what``.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise DeadlineExceeded(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


def follow_until(
    look: Callable[[], T],
    done: Callable[[T], bool],
    timeout: float,
    what: str,
    timed_out: Callable[[T | None], Exception],
    on_change: Callable[[T], None] | None = None,
    key: Callable[[T], object] = lambda value: value,
    interval: float = 0.05,
) -> T:
    """Poll ``look()`` until ``done`` holds for it, and return that look; ``on_change`` hears every look whose
    ``key`` differs from the previous one's (the first included): ``--wait``'s progress lines.

    Raises:
        The exception ``timed_out(latest look, or None)`` builds, once ``timeout`` seconds passed first.
    """
    seen: list[T] = []  # the latest look, for the change callback and the timeout's message

    def condition() -> tuple[T] | None:
        value = look()
        if on_change is not None and (not seen or key(value) != key(seen[-1])):
            on_change(value)
        seen[:] = [value]
        return (value,) if done(value) else None

    try:
        finished = wait_until(condition, timeout, what, interval)
    except DeadlineExceeded:
        raise timed_out(seen[-1] if seen else None) from None
    assert finished is not None  # wait_until returns only a truthy value
    return finished[0]
