"""Replica log sizes: DescribeLogDirs v1 (Kafka 1.1+) over a plain socket to one broker.

Why kzc's own request: confluent-kafka 2.16 has no DescribeLogDirs, and each broker answers only for its
own log directories, so the request goes to every broker whose replicas matter. Like
``core.brokers.probe`` it speaks to PLAINTEXT listeners only.

Request (header v1, non-flexible): ``topics`` ARRAY of (STRING name, ARRAY INT32 partitions). Response:
throttle time, then per log dir an error code, the path and per topic and partition its size, offset lag
and whether it is a future replica (a move between log dirs, not counted).
"""

from __future__ import annotations

import socket
import struct
from collections.abc import Mapping, Sequence

_API_KEY = 35
_VERSION = 1
_CLIENT_ID = b"kzc-logdirs"
_CORRELATION = 11


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack(">h", len(data)) + data


def encode_describe_log_dirs(partitions: Mapping[str, Sequence[int]]) -> bytes:
    """The framed request (size prefix included) for ``partitions`` of each topic."""
    header = struct.pack(">hhi", _API_KEY, _VERSION, _CORRELATION) + _string(_CLIENT_ID.decode())
    body = struct.pack(">i", len(partitions))
    for topic, ids in partitions.items():
        body += _string(topic) + struct.pack(">i", len(ids)) + b"".join(struct.pack(">i", p) for p in ids)
    message = header + body
    return struct.pack(">i", len(message)) + message


def decode_describe_log_dirs(body: bytes) -> dict[tuple[str, int], int]:
    """(topic, partition) -> size in bytes, the largest over this broker's log dirs (future replicas and
    failed log dirs left out).

    Raises:
        ValueError: not a DescribeLogDirs v1 response.
    """
    at = 0

    def take(fmt: str) -> int:
        nonlocal at
        (value,) = struct.unpack_from(fmt, body, at)
        at += struct.calcsize(fmt)
        return int(value)

    def string() -> str:
        nonlocal at
        length = take(">h")
        text = body[at : at + max(length, 0)].decode("utf-8", errors="replace")
        at += max(length, 0)
        return text

    sizes: dict[tuple[str, int], int] = {}
    try:
        if take(">i") != _CORRELATION:
            raise ValueError("unexpected correlation id")
        take(">i")  # throttle time
        for _ in range(take(">i")):
            error = take(">h")
            string()  # the log dir
            for _ in range(take(">i")):
                topic = string()
                for _ in range(take(">i")):
                    partition, size = take(">i"), take(">q")
                    take(">q")  # offset lag
                    future = take(">b")
                    if error == 0 and not future:
                        key = (topic, partition)
                        sizes[key] = max(size, sizes.get(key, 0))
    except struct.error as exc:
        raise ValueError(f"not a DescribeLogDirs v1 response: {exc}") from None
    return sizes


def log_sizes(
    host: str, port: int, partitions: Mapping[str, Sequence[int]], timeout: float
) -> dict[tuple[str, int], int]:
    """Ask the broker at ``host:port`` for the sizes of its replicas of ``partitions``.

    Raises:
        OSError: connection refused, closed or timed out. ValueError: an answer kzc cannot parse.
    """
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(encode_describe_log_dirs(partitions))
        (size,) = struct.unpack(">i", _read(sock, 4))
        return decode_describe_log_dirs(_read(sock, size))


def _read(sock: socket.socket, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection before answering")
        data += chunk
    return bytes(data)
