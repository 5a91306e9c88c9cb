"""The Kafka wire protocol as kzc's own requests need it: request headers, strings, one round trip.

Every request kzc builds itself (``apiversions``, ``probe``, ``logdirs``, ``reassignments``) is framed and
sent here, and is sent only at a version ``core.brokers.apiversions.negotiate`` chose from the broker's
own ApiVersions answer: a broker that cannot parse a request logs ``InvalidRequestException`` and closes
the connection.
"""

from __future__ import annotations

import socket
import struct


def string(text: str) -> bytes:
    """A non-flexible STRING: INT16 length, then UTF-8."""
    data = text.encode("utf-8")
    return struct.pack(">h", len(data)) + data


def uvarint(value: int) -> bytes:
    """An unsigned varint (flexible versions' lengths and tag counts)."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def compact_string(text: str) -> bytes:
    """A flexible COMPACT_STRING: length + 1 as a varint, then UTF-8."""
    data = text.encode("utf-8")
    return uvarint(len(data) + 1) + data


def frame(api_key: int, version: int, correlation: int, client_id: str, body: bytes, flexible: bool = False) -> bytes:
    """The size-prefixed request: header v1 (api key, version, correlation id, client id), or header v2 (the
    same plus an empty tag buffer) for a flexible version, then ``body``."""
    header = struct.pack(">hhi", api_key, version, correlation) + string(client_id)
    if flexible:
        header += b"\x00"
    message = header + body
    return struct.pack(">i", len(message)) + message


def read_exactly(sock: socket.socket, n: int, who: str = "the broker") -> bytes:
    """``n`` bytes from ``sock``.

    Raises:
        ConnectionError: the peer closed the connection first. OSError: timeout or socket error.
    """
    data = bytearray()
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError(f"{who} closed the connection before answering")
        data += chunk
    return bytes(data)


def round_trip(sock: socket.socket, request: bytes, who: str = "the broker") -> bytes:
    """Send one framed request on ``sock`` and return the response body (after its size prefix)."""
    sock.sendall(request)
    (size,) = struct.unpack(">i", read_exactly(sock, 4, who))
    return read_exactly(sock, size, who)
