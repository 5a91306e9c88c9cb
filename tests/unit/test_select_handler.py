"""``core.zookeeper.select_handler``: kazoo's ``select`` answered by ``select.select`` below ``FD_SETSIZE``, by
kazoo's selector above it, the same way."""

from __future__ import annotations

import os
import resource
import socket

import pytest

from core.zookeeper.select_handler import FD_SETSIZE, SelectHandler


def test_select_answers_as_kazoo_s_below_and_above_fd_setsize() -> None:
    handler = SelectHandler()
    a, b = socket.socketpair()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    high_fd = FD_SETSIZE + 500
    try:
        assert handler.select([a], [], [], 0) == ([], [], [])
        b.send(b"x")
        assert handler.select([a, b], [b], [], 1) == ([a], [b], [])
        if soft <= high_fd:
            resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, high_fd + 1), hard))
        high = socket.socket(fileno=os.dup2(a.fileno(), high_fd))  # beyond select(2): kazoo's epoll selector
        try:
            assert handler.select([high], [], [], 1) == ([high], [], [])
        finally:
            high.close()
        a.close()
        with pytest.raises(ValueError):  # a closed socket, as kazoo's selector says it
            handler.select([a], [], [], 0)
    finally:
        a.close()
        b.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
