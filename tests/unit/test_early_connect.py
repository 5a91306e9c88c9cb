"""``ZkBackend.start_connect``: the CLI begins the connection before it loads the console; the console's
``connect`` then waits for that one (never a second), raises what it raised, and its state listeners, added
meanwhile, hear the state it left (no ZooKeeper here: the connection itself is stood in for)."""

from __future__ import annotations

import threading

import pytest

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.errors import ConnectError
from core.zookeeper.session import ConnectionState


def _backend() -> ZkBackend:
    return ZkBackend(ConnectionSettings(zookeeper=parse_zookeeper("127.0.0.1:1")))


def test_connect_waits_for_the_connection_begun_ahead_and_does_not_connect_again() -> None:
    backend = _backend()
    release, calls = threading.Event(), []

    def connecting() -> None:
        calls.append(threading.current_thread().name)
        release.wait(30)
        backend._state = ConnectionState.CONNECTED

    backend._connect = connecting  # type: ignore[method-assign]
    backend.start_connect()
    heard: list[ConnectionState] = []
    backend.add_state_listener(heard.append)  # as the console does, after the connection began
    done = threading.Event()
    waiter = threading.Thread(target=lambda: (backend.connect(), done.set()))
    waiter.start()
    assert not done.wait(0.2)  # still connecting: connect waits
    release.set()
    waiter.join(30)
    assert done.is_set() and calls == ["kzc-connect"]
    assert heard == [ConnectionState.CONNECTED]


def test_connect_raises_what_the_connection_begun_ahead_raised() -> None:
    backend = _backend()

    def refused() -> None:
        raise ConnectError("ZooKeeper 127.0.0.1:1 is not reachable")

    backend._connect = refused  # type: ignore[method-assign]
    backend.start_connect()
    with pytest.raises(ConnectError, match="not reachable"):
        backend.connect()


def test_without_a_connection_begun_ahead_connect_connects_itself() -> None:
    backend = _backend()
    calls: list[str] = []
    backend._connect = lambda: calls.append(threading.current_thread().name)  # type: ignore[method-assign]
    backend.connect()
    assert calls == [threading.current_thread().name]
