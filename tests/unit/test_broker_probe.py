"""The Metadata v1 probe's bytes: what it sends and how it reads answers, from a loopback socket that
replies with hand-built frames (the real brokers answer it in tests/integration/test_sandbox.py)."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from core.brokers.probe import BrokerView, broker_view


def _string(value: str | None) -> bytes:
    if value is None:
        return struct.pack(">h", -1)
    return struct.pack(">h", len(value)) + value.encode()


def _response(brokers: list[tuple[int, str | None]], controller: int) -> bytes:
    body = struct.pack(">ii", 1, len(brokers))
    for node_id, rack in brokers:
        body += struct.pack(">i", node_id) + _string("127.0.0.1") + struct.pack(">i", 9092) + _string(rack)
    body += struct.pack(">i", controller) + struct.pack(">i", 0)  # no topics
    return struct.pack(">i", len(body)) + body


@contextmanager
def _broker(reply: bytes) -> Iterator[tuple[int, list[bytes]]]:
    """A one-connection server that records the request frame and sends ``reply``."""
    server = socket.create_server(("127.0.0.1", 0))
    received: list[bytes] = []

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            (size,) = struct.unpack(">i", conn.recv(4, socket.MSG_WAITALL))
            received.append(conn.recv(size, socket.MSG_WAITALL))
            conn.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], received
    finally:
        thread.join(timeout=5)
        server.close()


def test_the_probe_sends_metadata_v1_for_no_topics_and_reads_the_controller_and_broker_ids() -> None:
    with _broker(_response([(1, "r1"), (3, None)], controller=3)) as (port, received):
        assert broker_view("127.0.0.1", port) == BrokerView(controller=3, brokers=frozenset({1, 3}))
    api_key, version, correlation, client_len = struct.unpack_from(">hhih", received[0])
    assert (api_key, version, correlation) == (3, 1, 1)
    assert received[0][10 + client_len :] == struct.pack(">i", 0)


def test_a_broker_that_knows_no_controller_yet_is_reported_without_one() -> None:
    with _broker(_response([], controller=-1)) as (port, _):
        assert broker_view("127.0.0.1", port) == BrokerView(controller=None, brokers=frozenset())


def test_a_truncated_answer_is_not_taken_for_metadata() -> None:
    frame = _response([(1, "r1")], controller=1)
    cut = struct.pack(">i", 10) + frame[4:14]
    with _broker(cut) as (port, _), pytest.raises(ValueError, match="not a Metadata v1 response"):
        broker_view("127.0.0.1", port)


def test_a_broker_that_hangs_up_before_answering_is_an_os_error() -> None:
    with _broker(b"") as (port, _), pytest.raises(ConnectionError, match="closed the connection"):
        broker_view("127.0.0.1", port)


def test_a_port_nobody_listens_on_is_an_os_error() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    server.close()
    with pytest.raises(OSError):
        broker_view("127.0.0.1", port, timeout=2)
