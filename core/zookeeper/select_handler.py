"""kazoo's threading handler with a cheaper ``select`` (every ``ZkSession`` uses it).

kazoo 2.x's ``SequentialThreadingHandler.select`` builds a new epoll selector for each call (``selector_select``:
create, register, wait, close; so that descriptors above ``select``'s 1024 work), and its connection thread
calls it about three times per reply (the loop's wait, then before each of the two reads of a reply). For a
10,000-partition snapshot that was about 40 % of the read's CPU, on kazoo's thread (benchmarks/README.md).
``SelectHandler`` makes the same call with ``select.select`` (one system call) while every descriptor is below
``FD_SETSIZE``, and with kazoo's selector otherwise.
"""

from __future__ import annotations

import select
from collections.abc import Sequence
from typing import Any

from kazoo.handlers.threading import SequentialThreadingHandler

FD_SETSIZE = 1024  # select(2)'s limit on a descriptor's number (glibc)


def _fd(obj: Any) -> int:
    return obj if isinstance(obj, int) else int(obj.fileno())


class SelectHandler(SequentialThreadingHandler):  # type: ignore[misc]  # kazoo is untyped
    """``SequentialThreadingHandler`` whose ``select`` is ``select.select`` where it can be."""

    def select(
        self, rlist: Sequence[Any], wlist: Sequence[Any], xlist: Sequence[Any], timeout: float | None = None
    ) -> tuple[list[Any], list[Any], list[Any]]:
        """As kazoo's: the ready ones of ``rlist``, ``wlist`` and ``xlist`` (ValueError for a closed one)."""
        if all(_fd(obj) < FD_SETSIZE for group in (rlist, wlist, xlist) for obj in group):
            return select.select(rlist, wlist, xlist, timeout)
        return super().select(rlist, wlist, xlist, timeout)  # type: ignore[no-any-return]
