"""The Metadata v1 probe's bytes: what it sends and how it reads answers, from a loopback socket that
replies with hand-built frames (the real brokers answer it in tests/integration/test_sandbox.py)."""

from __future__ import annotations

import socket
import struct
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from core.brokers.probe import BrokerView, broker_view
from tests.unit.fake_broker import RELEASE_APIS, Received, fake_broker


def _string(value: str | None) -> bytes:
    if value is None:
        return struct.pack(">h", -1)
    return struct.pack(">h", len(value)) + value.encode()


def _response(brokers: list[tuple[int, str | None]], controller: int) -> bytes:
    """A Metadata v1 response body after the correlation id."""
    body = struct.pack(">i", len(brokers))
    for node_id, rack in brokers:
        body += struct.pack(">i", node_id) + _string("127.0.0.1") + struct.pack(">i", 9092) + _string(rack)
    return body + struct.pack(">i", controller) + struct.pack(">i", 0)  # no topics


@contextmanager
def _broker(reply: bytes | None, release: str = "0.10.2") -> Iterator[tuple[int, list[Received]]]:
    """A broker of ``release`` answering Metadata with ``reply`` (None: hanging up at once)."""
    ranges = None if reply is None else RELEASE_APIS[release]
    with fake_broker(ranges, {3: lambda _: reply or b""}) as served:
        yield served


@pytest.mark.parametrize("release", ["0.10.2", "3.9"])
def test_the_probe_asks_api_versions_then_sends_metadata_v1_for_no_topics(release: str) -> None:
    with _broker(_response([(1, "r1"), (3, None)], controller=3), release) as (port, received):
        assert broker_view("127.0.0.1", port) == BrokerView(controller=3, brokers=frozenset({1, 3}))
    assert [(r.api_key, r.version) for r in received] == [(18, 0), (3, 1)]
    assert received[1].correlation == 1
    assert received[1].body == struct.pack(">i", 0)


def test_a_broker_without_metadata_v1_gets_no_metadata_request() -> None:
    with fake_broker({18: (0, 0), 3: (0, 0)}) as (port, received), pytest.raises(ValueError, match="Metadata v0-v0"):
        broker_view("127.0.0.1", port)
    assert [r.api_key for r in received] == [18]


def test_a_broker_that_knows_no_controller_yet_is_reported_without_one() -> None:
    with _broker(_response([], controller=-1)) as (port, _):
        assert broker_view("127.0.0.1", port) == BrokerView(controller=None, brokers=frozenset())


def test_a_truncated_answer_is_not_taken_for_metadata() -> None:
    cut = _response([(1, "r1")], controller=1)[:6]
    with _broker(cut) as (port, _), pytest.raises(ValueError, match="not a Metadata v1 response"):
        broker_view("127.0.0.1", port)


def test_a_broker_that_hangs_up_before_answering_is_an_os_error() -> None:
    with _broker(None) as (port, _), pytest.raises(ConnectionError, match="closed the connection"):
        broker_view("127.0.0.1", port)


def test_a_port_nobody_listens_on_is_an_os_error() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    server.close()
    with pytest.raises(OSError):
        broker_view("127.0.0.1", port, timeout=2)
