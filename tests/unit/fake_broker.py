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
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from core.brokers.codec import Encoder
from core.brokers.logdirs import LogDir, ReplicaLog

# Releases' ApiVersions for the APIs kzc's own requests and path choices use (each release's ApiKeys /
# *Request.json; min-max).
RELEASE_APIS: dict[str, dict[int, tuple[int, int]]] = {
    "0.10.2": {2: (0, 1), 3: (0, 2), 18: (0, 0), 19: (0, 1), 20: (0, 0)},
    "1.1": {2: (0, 2), 3: (0, 5), 18: (0, 1), 19: (0, 2), 20: (0, 1), 29: (0, 0), 30: (0, 0), 31: (0, 0), 32: (0, 1),
            33: (0, 0), 35: (0, 0), 37: (0, 0)},
    "2.2": {2: (0, 5), 3: (0, 7), 18: (0, 2), 19: (0, 3), 20: (0, 3), 29: (0, 1), 30: (0, 1), 31: (0, 1), 32: (0, 2),
            33: (0, 1), 35: (0, 1), 37: (0, 1), 43: (0, 0)},
    "2.6": {
        2: (0, 5), 3: (0, 9), 18: (0, 3), 19: (0, 5), 20: (0, 4), 29: (0, 2), 30: (0, 2), 31: (0, 2), 32: (0, 3),
        33: (0, 1), 35: (0, 2), 37: (0, 2), 43: (0, 2), 44: (0, 1), 45: (0, 0), 48: (0, 0), 49: (0, 0),
    },
    "3.9": {
        2: (0, 9), 3: (0, 12), 18: (0, 4), 19: (0, 7), 20: (0, 6), 32: (0, 4), 33: (0, 2), 35: (0, 4), 37: (0, 3),
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

# The first flexible version (request header v2) of each API kzc sends flexible (``flexibleVersions``).
FIRST_FLEXIBLE = {2: 6, 35: 2, 45: 0}


def kafka_flexible(api_key: int, version: int) -> bool:
    """Whether Kafka sends ``api_key`` at ``version`` with the flexible header."""
    first = FIRST_FLEXIBLE.get(api_key)
    return first is not None and version >= first


def api_versions_body(ranges: Mapping[int, tuple[int, int]]) -> bytes:
    """An ApiVersions v0 response body after the correlation id."""
    body = struct.pack(">hi", 0, len(ranges))
    for key, (low, high) in sorted(ranges.items()):
        body += struct.pack(">hhh", key, low, high)
    return body


def read_frame(conn: socket.socket) -> bytes | None:
    """One request frame after its size prefix, None once the client closed the connection."""
    head = conn.recv(4, socket.MSG_WAITALL)
    if len(head) < 4:
        return None
    (size,) = struct.unpack(">i", head)
    return conn.recv(size, socket.MSG_WAITALL)


def _parse(raw: bytes, flexible: Callable[[int, int], bool]) -> Received:
    api_key, version, correlation, length = struct.unpack_from(">hhih", raw)
    client_id = raw[10 : 10 + length].decode()
    at = 10 + length + (1 if flexible(api_key, version) else 0)
    return Received(api_key, version, correlation, client_id, raw[at:], raw)


@contextmanager
def fake_broker(
    ranges: Mapping[int, tuple[int, int]] | None,
    handlers: Mapping[int, Handler] | None = None,
    flexible: Callable[[int, int], bool] = kafka_flexible,
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
            while (raw := read_frame(conn)) is not None:
                request = _parse(raw, flexible)
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


def log_dirs_answer(version: int, dirs: Sequence[LogDir], error: int = 0) -> bytes:
    """A DescribeLogDirs response body at ``version`` (after the correlation id) listing ``dirs``, as a broker
    of that version writes it (v2+ flexible, v3+ the top-level ``error``, v4+ each dir's total and usable
    bytes, -1 where a dir's are None)."""
    out = Encoder(version >= 2)
    out.tags()  # the response header's tag buffer (flexible only)
    out.int32(0)  # throttle time
    if version >= 3:
        out.int16(error)

    def replica(e: Encoder, r: ReplicaLog) -> None:
        e.int32(r.partition).int64(r.size).int64(r.offset_lag).boolean(r.future)

    def log_dir(e: Encoder, d: LogDir) -> None:
        topics: dict[str, list[ReplicaLog]] = {}
        for r in d.replicas:
            topics.setdefault(r.topic, []).append(r)
        e.int16(d.error).string(d.path)
        e.array(list(topics.items()), lambda t, item: t.string(item[0]).array(item[1], replica))
        if version >= 4:
            e.int64(-1 if d.total_bytes is None else d.total_bytes)
            e.int64(-1 if d.usable_bytes is None else d.usable_bytes)

    return out.array(list(dirs), log_dir).body()


def list_offsets_answer(
    version: int, answers: Mapping[tuple[str, int], int], errors: Mapping[tuple[str, int], int]
) -> bytes:
    """A ListOffsets response body at ``version`` (after the correlation id): ``answers`` (offsets) and
    ``errors`` (error codes) per (topic, partition), as a broker of that version writes them."""
    out = Encoder(version >= 6)
    out.tags()
    if version >= 2:
        out.int32(0)  # throttle time
    topics: dict[str, list[tuple[int, int, int]]] = {}
    for (topic, partition), offset in answers.items():
        topics.setdefault(topic, []).append((partition, 0, offset))
    for (topic, partition), code in errors.items():
        topics.setdefault(topic, []).append((partition, code, -1))

    def partition(e: Encoder, item: tuple[int, int, int]) -> None:
        e.int32(item[0]).int16(item[1]).int64(-1).int64(item[2])
        if version >= 4:
            e.int32(0)  # leader epoch

    return out.array(list(topics.items()), lambda t, item: t.string(item[0]).array(item[1], partition)).body()
