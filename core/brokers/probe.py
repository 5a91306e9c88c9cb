"""Ask one broker, and only that broker, what it knows: a single Metadata v1 request over a plain socket.

A Kafka client would answer from whichever broker it likes once it has learnt the others; the sandbox
needs the answer of the broker it just started (does it listen yet, has the controller told it who the
controller and its peers are). Metadata v1 is served by every Kafka from 0.10 to 3.9.
"""

from __future__ import annotations

import socket
import struct
from dataclasses import dataclass

_METADATA = 3
_VERSION = 1
_CLIENT_ID = b"kzc-probe"


@dataclass(frozen=True)
class BrokerView:
    """What one broker's metadata cache says: the controller (None when it knows none) and the live brokers."""

    controller: int | None
    brokers: frozenset[int]


def broker_view(host: str, port: int, timeout: float = 5.0) -> BrokerView:
    """Send Metadata v1 for no topics to ``host:port`` and read the controller and broker ids it answers.

    Raises:
        OSError: the broker refused, closed or did not answer within ``timeout`` seconds.
        ValueError: the answer is not a Metadata v1 response.
    """
    header = struct.pack(">hhih", _METADATA, _VERSION, 1, len(_CLIENT_ID)) + _CLIENT_ID
    request = header + struct.pack(">i", 0)  # an empty topic list: brokers and controller only
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(struct.pack(">i", len(request)) + request)
        (size,) = struct.unpack(">i", _read(sock, 4))
        return _parse(_read(sock, size))


def _read(sock: socket.socket, n: int) -> bytes:
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("the broker closed the connection before answering")
        data += chunk
    return bytes(data)


def _parse(body: bytes) -> BrokerView:
    try:
        correlation, count = struct.unpack_from(">ii", body, 0)
        if correlation != 1:
            raise ValueError(f"correlation id {correlation}, expected 1")
        offset, ids = 8, []
        for _ in range(count):
            node_id, host_len = struct.unpack_from(">ih", body, offset)
            offset += 6 + host_len + 4  # node id, host, port
            (rack_len,) = struct.unpack_from(">h", body, offset)
            offset += 2 + max(rack_len, 0)
            ids.append(node_id)
        (controller,) = struct.unpack_from(">i", body, offset)
    except struct.error as exc:
        raise ValueError(f"not a Metadata v1 response: {exc}") from None
    return BrokerView(controller if controller >= 0 else None, frozenset(ids))
