"""The Kafka wire protocol as kzc's own requests need it: the one request header, one round trip.

Every request kzc builds itself (its body written with ``core.brokers.codec.Encoder``, its answer read with
``Decoder``) is framed here, with one client id and one correlation id, and sent here, only at a version
``core.brokers.apiversions.negotiate`` chose from the broker's own ApiVersions answer: a broker that cannot
parse a request logs ``InvalidRequestException`` and closes the connection.
"""

from __future__ import annotations

import socket
import struct

CLIENT_ID = "kzc"  # the client id of every request kzc sends itself (brokers log it)
# kzc sends one request at a time on a connection and reads its answer before the next, so one id serves all
# (``Decoder.header`` checks that the answer carries it).
CORRELATION = 1


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


def frame(api_key: int, version: int, body: bytes, flexible: bool = False) -> bytes:
    """The size-prefixed request: header v1 (api key, version, ``CORRELATION``, ``CLIENT_ID``), or header v2 (the
    same plus an empty tag buffer) for a flexible version, then ``body``."""
    client_id = CLIENT_ID.encode("utf-8")
    header = struct.pack(">hhih", api_key, version, CORRELATION, len(client_id)) + client_id
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
    return receive(sock, who)


def receive(sock: socket.socket, who: str = "the broker") -> bytes:
    """The next response body on ``sock`` (after its size prefix): answers come in the order of the requests."""
    (size,) = struct.unpack(">i", read_exactly(sock, 4, who))
    return read_exactly(sock, size, who)
