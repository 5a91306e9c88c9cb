"""Ask one broker, and only that broker, what it knows: a single Metadata v1 request over a plain socket.

A Kafka client would answer from whichever broker it likes once it has learnt the others; the sandbox
needs the answer of the broker it just started (does it listen yet, has the controller told it who the
controller and its peers are). Metadata v1 is served by every Kafka from 0.10.0 to 3.9 (0-12 in 3.9's
``MetadataRequest.json``); like every request of kzc's own it is sent only after the broker's ApiVersions
said so (``core.brokers.apiversions``).
"""

from __future__ import annotations

from dataclasses import dataclass

from core.brokers.apiversions import METADATA, NoVersion, request
from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame

_VERSIONS = (1, 1)  # what this module encodes and decodes


@dataclass(frozen=True)
class BrokerView:
    """What one broker's metadata cache says: the controller (None when it knows none) and the live brokers."""

    controller: int | None
    brokers: frozenset[int]


def broker_view(host: str, port: int, timeout: float = 5.0) -> BrokerView:
    """Send Metadata v1 for no topics to ``host:port`` and read the controller and broker ids it answers.

    Raises:
        OSError: the broker refused, closed or did not answer within ``timeout`` seconds.
        ValueError: the answer is not a Metadata v1 response, or the broker serves no Metadata v1.
    """
    try:
        _, body = request(host, port, timeout, METADATA, _VERSIONS, encode_metadata, f"{host}:{port}")
    except NoVersion as exc:
        raise ValueError(str(exc)) from None
    return _parse(body)


def encode_metadata(version: int) -> bytes:
    """The framed Metadata request at ``version`` (1) for no topics: brokers and controller only."""
    return frame(METADATA.key, version, Encoder(flexible=False).int32s([]).body())


def _parse(body: bytes) -> BrokerView:
    d = Decoder(body, flexible=False)

    def broker(r: Decoder) -> int:
        node_id = r.int32()
        r.string(), r.int32(), r.string()  # host, port, rack
        return node_id

    try:
        ids = d.header().array(broker) or []
        controller = d.int32()
    except ValueError as exc:
        raise ValueError(f"not a Metadata v1 response: {exc}") from None
    return BrokerView(controller if controller >= 0 else None, frozenset(ids))
