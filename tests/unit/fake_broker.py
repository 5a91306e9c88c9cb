"""A loopback stand-in for one broker's socket, for the bytes of kzc's own requests (tests/unit helper).

It answers ApiVersions v0 from the ranges it is given, as a broker of that release does, and every other
request with its handler; it records each request frame (header and body) so tests assert the exact bytes
sent, and that nothing was sent at a version the "broker" does not list. The real brokers answer the same
requests in tests/integration.
"""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

# Releases' ApiVersions for the APIs kzc's own requests and path choices use (each release's ApiKeys /
# *Request.json; min-max).
RELEASE_APIS: dict[str, dict[int, tuple[int, int]]] = {
    "0.10.2": {3: (0, 2), 18: (0, 0), 19: (0, 1), 20: (0, 0)},
    "1.1": {3: (0, 5), 18: (0, 1), 19: (0, 2), 20: (0, 1), 29: (0, 0), 30: (0, 0), 31: (0, 0), 32: (0, 1), 33: (0, 0),
            35: (0, 0), 37: (0, 0)},
    "2.2": {3: (0, 7), 18: (0, 2), 19: (0, 3), 20: (0, 3), 29: (0, 1), 30: (0, 1), 31: (0, 1), 32: (0, 2), 33: (0, 1),
            35: (0, 1), 37: (0, 1), 43: (0, 0)},
    "2.6": {
        3: (0, 9), 18: (0, 3), 19: (0, 5), 20: (0, 4), 29: (0, 2), 30: (0, 2), 31: (0, 2), 32: (0, 3), 33: (0, 1),
        35: (0, 2), 37: (0, 2), 43: (0, 2), 44: (0, 1), 45: (0, 0), 48: (0, 0), 49: (0, 0),
    },
    "3.9": {
        3: (0, 12), 18: (0, 4), 19: (0, 7), 20: (0, 6), 32: (0, 4), 33: (0, 2), 35: (0, 4), 37: (0, 3),
        43: (0, 2), 44: (0, 1), 45: (0, 0), 48: (0, 1), 49: (0, 1), 29: (0, 3), 30: (0, 3), 31: (0, 3), 50: (0, 0),
        51: (0, 0), 60: (0, 1),
    },
}  # fmt: skip


@dataclass(frozen=True)
class Received:
    """One request as the stand-in read it."""

    api_key: int
    version: int
    correlation: int
    client_id: str
    body: bytes  # after the header (and, for flexible versions, not including the header's tag buffer)
    raw: bytes  # the whole frame after the size prefix


Handler = Callable[[Received], bytes]


def api_versions_body(ranges: Mapping[int, tuple[int, int]]) -> bytes:
    """An ApiVersions v0 response body after the correlation id."""
    body = struct.pack(">hi", 0, len(ranges))
    for key, (low, high) in sorted(ranges.items()):
        body += struct.pack(">hhh", key, low, high)
    return body


def _parse(raw: bytes, flexible: Callable[[int, int], bool]) -> Received:
    api_key, version, correlation, length = struct.unpack_from(">hhih", raw)
    client_id = raw[10 : 10 + length].decode()
    at = 10 + length + (1 if flexible(api_key, version) else 0)
    return Received(api_key, version, correlation, client_id, raw[at:], raw)


@contextmanager
def fake_broker(
    ranges: Mapping[int, tuple[int, int]] | None,
    handlers: Mapping[int, Handler] | None = None,
    flexible: Callable[[int, int], bool] = lambda key, version: key == 45,
) -> Iterator[tuple[int, list[Received]]]:
    """Serve connections on 127.0.0.1 until the block ends; yields (port, requests received).

    ``ranges`` None: the stand-in answers nothing (it closes the connection on any request, as a broker
    that cannot parse one does). A request with no handler is recorded and the connection closed.
    """
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    received: list[Received] = []
    stop = threading.Event()

    def serve_one(conn: socket.socket) -> None:
        with conn:
            while True:
                head = conn.recv(4, socket.MSG_WAITALL)
                if len(head) < 4:
                    return
                (size,) = struct.unpack(">i", head)
                request = _parse(conn.recv(size, socket.MSG_WAITALL), flexible)
                received.append(request)
                if ranges is None:
                    return
                if request.api_key == 18:
                    body = api_versions_body(ranges)
                elif handlers and request.api_key in handlers:
                    body = handlers[request.api_key](request)
                else:
                    return
                reply = struct.pack(">i", request.correlation) + body
                conn.sendall(struct.pack(">i", len(reply)) + reply)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            serve_one(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], received
    finally:
        stop.set()
        thread.join(timeout=5)
        server.close()
