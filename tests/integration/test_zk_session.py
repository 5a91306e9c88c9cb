"""ZkSession against the sandbox's real ZooKeeper: connect, state, chroot and unreachable hosts."""

from __future__ import annotations

import socket
import time

import pytest

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.errors import ConnectError
from core.sandbox.local_cluster import Sandbox
from core.zookeeper.session import ConnectionState, ZkSession


def _settings(connect: str, **kw: object) -> ConnectionSettings:
    return ConnectionSettings(zookeeper=parse_zookeeper(connect), **kw)  # type: ignore[arg-type]


def test_a_session_connects_under_the_chroot_and_reports_its_states(sandbox: Sandbox) -> None:
    session = ZkSession(_settings(sandbox.info().zookeeper))
    seen: list[ConnectionState] = []
    session.add_state_listener(seen.append)
    session.start()
    try:
        assert session.state is ConnectionState.CONNECTED and session.session_id
        assert "brokers" in session.retry(session.client.get_children, "/")
    finally:
        session.stop()
    assert seen[0] is ConnectionState.CONNECTING and seen[-1] is ConnectionState.CLOSED
    assert ConnectionState.LOST not in seen and ConnectionState.RECONNECTING not in seen


def test_a_missing_chroot_is_named_in_the_error(sandbox: Sandbox) -> None:
    hosts = sandbox.info().zookeeper.rsplit("/", 1)[0]
    with pytest.raises(ConnectError, match="chroot /no-such-chroot does not exist"):
        ZkSession(_settings(f"{hosts}/no-such-chroot")).start()


def test_an_unreachable_host_fails_within_the_timeout_with_one_message() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(ConnectError, match=f"cannot connect to ZooKeeper 127.0.0.1:{port} within 2 s"):
        ZkSession(_settings(f"127.0.0.1:{port}")).start(timeout=2)
    assert time.monotonic() - started < 10
