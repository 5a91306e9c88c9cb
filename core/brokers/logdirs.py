"""Replica log sizes: DescribeLogDirs v0 or v1 over a plain socket to one broker.

Why kzc's own request: confluent-kafka 2.16 has no DescribeLogDirs, and each broker answers only for its
own log directories, so the request goes to every broker whose replicas matter. Like
``core.brokers.probe`` it speaks to PLAINTEXT listeners only.

Versions (``DescribeLogDirsRequest.schemaVersions``): v0 in 1.0 and 1.1, v0-v1 from 2.0, where v1 has the
same fields and only changes when a throttled broker answers (KIP-219); v2+ (2.4+) are flexible. kzc speaks
v0-v1 and sends the highest the broker lists in ApiVersions (``core.brokers.apiversions``): a 1.1 broker
cannot parse v1, a 0.10/0.11 broker has no DescribeLogDirs at all (``NoVersion`` then says so).

Request (header v1, non-flexible): ``topics`` ARRAY of (STRING name, ARRAY INT32 partitions). Response:
throttle time, then per log dir an error code, the path and per topic and partition its size, offset lag
and whether it is a future replica (a move between log dirs, not counted).
"""

from __future__ import annotations

import struct
from collections.abc import Mapping, Sequence

from core.brokers.apiversions import DESCRIBE_LOG_DIRS, request
from core.brokers.wire import frame, string

VERSIONS = (0, 1)  # what this module encodes and decodes: the same layout
_CLIENT_ID = "kzc-logdirs"
_CORRELATION = 11


def encode_describe_log_dirs(partitions: Mapping[str, Sequence[int]], version: int) -> bytes:
    """The framed request (size prefix included) at ``version`` (0 or 1) for ``partitions`` of each topic."""
    if not VERSIONS[0] <= version <= VERSIONS[1]:
        raise ValueError(f"kzc encodes DescribeLogDirs v0-v1, not v{version}")
    body = struct.pack(">i", len(partitions))
    for topic, ids in partitions.items():
        body += string(topic) + struct.pack(">i", len(ids)) + b"".join(struct.pack(">i", p) for p in ids)
    return frame(DESCRIBE_LOG_DIRS.key, version, _CORRELATION, _CLIENT_ID, body)


def decode_describe_log_dirs(body: bytes) -> dict[tuple[str, int], int]:
    """(topic, partition) -> size in bytes, the largest over this broker's log dirs (future replicas and
    failed log dirs left out).

    Raises:
        ValueError: not a DescribeLogDirs v0/v1 response.
    """
    at = 0

    def take(fmt: str) -> int:
        nonlocal at
        (value,) = struct.unpack_from(fmt, body, at)
        at += struct.calcsize(fmt)
        return int(value)

    def text() -> str:
        nonlocal at
        length = take(">h")
        value = body[at : at + max(length, 0)].decode("utf-8", errors="replace")
        at += max(length, 0)
        return value

    sizes: dict[tuple[str, int], int] = {}
    try:
        if take(">i") != _CORRELATION:
            raise ValueError("unexpected correlation id")
        take(">i")  # throttle time
        for _ in range(take(">i")):
            error = take(">h")
            text()  # the log dir
            for _ in range(take(">i")):
                topic = text()
                for _ in range(take(">i")):
                    partition, size = take(">i"), take(">q")
                    take(">q")  # offset lag
                    future = take(">b")
                    if error == 0 and not future:
                        key = (topic, partition)
                        sizes[key] = max(size, sizes.get(key, 0))
    except struct.error as exc:
        raise ValueError(f"not a DescribeLogDirs v0/v1 response: {exc}") from None
    return sizes


def log_sizes(
    host: str, port: int, partitions: Mapping[str, Sequence[int]], timeout: float, who: str = "the broker"
) -> dict[tuple[str, int], int]:
    """Ask the broker at ``host:port`` for the sizes of its replicas of ``partitions``, at the version its
    ApiVersions allows.

    Raises:
        NoVersion: the broker has no DescribeLogDirs (before 1.0): nothing was sent.
        OSError: connection refused, closed or timed out. ValueError: an answer kzc cannot parse.
    """
    _, body = request(
        host, port, timeout, DESCRIBE_LOG_DIRS, VERSIONS, lambda v: encode_describe_log_dirs(partitions, v), who
    )
    return decode_describe_log_dirs(body)
