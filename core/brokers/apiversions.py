"""Which request versions a broker serves (ApiVersions) and the one rule choosing the version kzc sends.

Every request kzc builds itself opens a ``BrokerConnection``, which asks ApiVersions first, and sends only
the version ``negotiate`` picks: the highest both kzc and that broker speak. When none fits, ``NoVersion``
carries the reason as users read it ("broker 1 has no DescribeLogDirs (Kafka 1.0.0+)"), and nothing is
sent. ApiVersions itself goes out at v0, which every broker from 0.10.0 to 3.9 serves (schemas:
``Protocol.API_VERSIONS_REQUEST_V0`` in 0.10.x, ``ApiVersionsRequest.json`` "0-4" in 3.9); a 0.9 broker,
which predates it, closes the connection and is reported as not answering.

The catalog below names each API with the first release whose brokers serve it (``ApiKeys`` of each
release; ``*Request.json`` from 2.x), for the messages.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from core.brokers.codec import Decoder
from core.brokers.sasl import authenticate
from core.brokers.wire import frame, round_trip
from core.config import KafkaSecurity


@dataclass(frozen=True)
class Api:
    """A Kafka API: its key, name and the first release whose brokers serve it."""

    key: int
    name: str
    since: str


PRODUCE = Api(0, "Produce", "0.8.0")
FETCH = Api(1, "Fetch", "0.8.0")  # v4 (0.11.0): message format v2, the first with headers
LIST_OFFSETS = Api(2, "ListOffsets", "0.8.0")  # v1 (0.10.1, KIP-79): one offset per partition, by timestamp
METADATA = Api(3, "Metadata", "0.8.0")
LEADER_AND_ISR = Api(4, "LeaderAndIsr", "0.8.0")  # inter-broker; ZooKeeper-mode brokers list it too
OFFSET_FETCH = Api(9, "OffsetFetch", "0.8.1")
FIND_COORDINATOR = Api(10, "FindCoordinator", "0.9.0")  # GroupCoordinator until 0.11 (KIP-98 renamed it)
JOIN_GROUP = Api(11, "JoinGroup", "0.9.0")
API_VERSIONS = Api(18, "ApiVersions", "0.10.0")
CREATE_TOPICS = Api(19, "CreateTopics", "0.10.1")
DELETE_TOPICS = Api(20, "DeleteTopics", "0.10.1")
ADD_PARTITIONS_TO_TXN = Api(24, "AddPartitionsToTxn", "0.11.0")
DESCRIBE_ACLS = Api(29, "DescribeAcls", "0.11.0")
# v1 (2.0, KIP-290) carries the resource pattern type: prefixed ACLs need it.
CREATE_ACLS = Api(30, "CreateAcls", "0.11.0")
DELETE_ACLS = Api(31, "DeleteAcls", "0.11.0")
DESCRIBE_CONFIGS = Api(32, "DescribeConfigs", "0.11.0")
ALTER_CONFIGS = Api(33, "AlterConfigs", "0.11.0")
DESCRIBE_LOG_DIRS = Api(35, "DescribeLogDirs", "1.0.0")
CREATE_PARTITIONS = Api(37, "CreatePartitions", "1.0.0")
# v0 is 2.2's ElectPreferredLeaders; v1 (2.4, KIP-460) adds the election type, so unclean needs v1.
ELECT_LEADERS = Api(43, "ElectLeaders", "2.2.0")
INCREMENTAL_ALTER_CONFIGS = Api(44, "IncrementalAlterConfigs", "2.3.0")
ALTER_PARTITION_REASSIGNMENTS = Api(45, "AlterPartitionReassignments", "2.4.0")
DESCRIBE_CLIENT_QUOTAS = Api(48, "DescribeClientQuotas", "2.6.0")
ALTER_CLIENT_QUOTAS = Api(49, "AlterClientQuotas", "2.6.0")
DESCRIBE_USER_SCRAM_CREDENTIALS = Api(50, "DescribeUserScramCredentials", "2.7.0")
ALTER_USER_SCRAM_CREDENTIALS = Api(51, "AlterUserScramCredentials", "2.7.0")
DESCRIBE_CLUSTER = Api(60, "DescribeCluster", "2.8.0")

# Version ranges a broker serves: api key -> (min, max).
ApiRanges = Mapping[int, tuple[int, int]]


class NoVersion(Exception):
    """No version of an API is spoken by both kzc and the broker; ``str()`` is the reason."""


def negotiate(api: Api, ours: tuple[int, int], theirs: ApiRanges, who: str, needs: str = "") -> int:
    """The highest version of ``api`` in both ``ours`` (what kzc encodes) and ``theirs`` (the broker's
    ApiVersions answer).

    Args:
        who: how the messages name the broker ("broker 1").
        needs: why the versions in ``ours`` are the only ones that do (for the message), e.g. "the election
            type (v1, Kafka 2.4.0+)".

    Raises:
        NoVersion: the broker lacks the API, or serves none of ``ours``.
    """
    found = theirs.get(api.key)
    if found is None:
        return _refuse(f"{who} has no {api.name} (Kafka {api.since}+; its ApiVersions lacks api key {api.key})")
    low, high = max(ours[0], found[0]), min(ours[1], found[1])
    if low > high:
        why = f": kzc needs {needs}" if needs else f", kzc speaks v{ours[0]}-v{ours[1]}"
        return _refuse(f"{who} serves {api.name} v{found[0]}-v{found[1]}{why}")
    return high


def _refuse(reason: str) -> int:
    raise NoVersion(reason)


def no_listener(api: Api, who: str, security: KafkaSecurity | None) -> str:
    """Why ``api`` cannot be sent to a broker without a listener of ``security``'s protocol (PLAINTEXT without
    it)."""
    need = f"a {security.protocol} listener (kafka_security_protocol)" if security else "a PLAINTEXT listener"
    return f"kzc's own requests ({api.name}) need {need}; {who} has none"


def encode_api_versions() -> bytes:
    """The framed ApiVersions v0 request (an empty body)."""
    return frame(API_VERSIONS.key, 0, b"")


def decode_api_versions(body: bytes) -> dict[int, tuple[int, int]]:
    """An ApiVersions v0 response body: api key -> (min, max).

    Raises:
        ValueError: not an ApiVersions v0 response, or the broker answered with an error code.
    """
    d = Decoder(body, flexible=False)  # ApiVersions answers with header v0, whatever the version
    try:
        error = d.header().int16()
        if error == 0:
            ranges = d.array(lambda r: (r.int16(), (r.int16(), r.int16()))) or []
    except ValueError as exc:
        raise ValueError(f"not an ApiVersions v0 response: {exc}") from None
    if error != 0:
        raise ValueError(f"the broker answered ApiVersions with error code {error}")
    return dict(ranges)


class BrokerConnection:
    """One socket to one broker whose ApiVersions kzc asked when it opened (``open_broker``)."""

    def __init__(self, sock: socket.socket, ranges: ApiRanges, who: str) -> None:
        self.sock = sock
        self.ranges = ranges
        self.who = who

    def negotiate(self, api: Api, ours: tuple[int, int], needs: str = "") -> int:
        """``negotiate`` against this broker (``NoVersion`` when none fits)."""
        return negotiate(api, ours, self.ranges, self.who, needs)

    def send(self, request: bytes) -> bytes:
        """One framed request, sent as is; the response body."""
        return round_trip(self.sock, request, self.who)


def ask_versions(sock: socket.socket, who: str) -> dict[int, tuple[int, int]]:
    """ApiVersions v0 on an open socket."""
    return decode_api_versions(round_trip(sock, encode_api_versions(), who))


@contextmanager
def open_broker(
    host: str,
    port: int,
    timeout: float,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
    login: bool = True,
) -> Iterator[BrokerConnection]:
    """Connect to ``host:port`` and ask its ApiVersions; the connection is closed after. With ``security``
    (a listener of that protocol): TLS first for SSL/SASL_SSL (the CA verified, the host name checked), and
    after ApiVersions (which brokers answer before authentication, KIP-43) the SASL login (``core.brokers.sasl``;
    not with ``login`` False, for ApiVersions alone).

    Raises:
        OSError: refused, closed, timed out, or the TLS handshake failed. ValueError: an answer that is not
            ApiVersions v0, or the broker refused the SASL login (``SaslRefused``, the reason in words).
    """
    with socket.create_connection((host, port), timeout=timeout) as raw:
        sock = _tls(raw, host, security) if security is not None and security.tls else raw
        try:
            broker = BrokerConnection(sock, ask_versions(sock, who), who)
            if login and security is not None and security.sasl:
                authenticate(broker.send, dict(broker.ranges), security, who)
            yield broker
        finally:
            if sock is not raw:
                sock.close()


def _tls(sock: socket.socket, host: str, security: KafkaSecurity) -> socket.socket:
    """``sock`` wrapped in TLS as librdkafka would: the CA file (or the system's), the client certificate."""
    context = ssl.create_default_context(cafile=security.ssl_ca_location)
    if security.ssl_certificate_location:
        context.load_cert_chain(security.ssl_certificate_location, security.ssl_key_location)
    return context.wrap_socket(sock, server_hostname=host)


def request(
    host: str,
    port: int,
    timeout: float,
    api: Api,
    ours: tuple[int, int],
    build: Callable[[int], bytes],
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> tuple[int, bytes]:
    """Negotiate ``api`` with the broker at ``host:port``, send ``build(version)``; (version, response body).

    Raises:
        NoVersion: no version fits (nothing was sent). OSError, ValueError: see ``open_broker``.
    """
    with open_broker(host, port, timeout, who, security) as broker:
        version = broker.negotiate(api, ours)
        return version, broker.send(build(version))
