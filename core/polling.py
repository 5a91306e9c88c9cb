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
