"""What the cluster's brokers can be asked, from their own ApiVersions, and the path each write takes.

The one place every command path (topics, configs, reassignments, elections, the console's fix actions)
asks whether the brokers serve an API. All registered brokers are asked (in a mixed cluster, a rolling
upgrade half done, the oldest decides: a request may land on any of them). Where the brokers lack an API,
``route`` names the path Kafka's own tools of that release took (ZooKeeper) and says why, for the preview,
the dry run and the audit line.

ApiVersions is kzc's own request over a plain socket (``core.brokers.apiversions``), to each broker's
PLAINTEXT listener, or its SASL_PLAINTEXT one (brokers answer ApiVersions before authentication, KIP-43).
A broker reachable only over TLS, or not answering, is unknown: it constrains nothing and the reason is
kept, so a request on the AdminClient path is then left to librdkafka's own negotiation.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from core.brokers.apiversions import (
    ADD_PARTITIONS_TO_TXN,
    ALTER_PARTITION_REASSIGNMENTS,
    API_VERSIONS,
    CREATE_TOPICS,
    DESCRIBE_ACLS,
    DESCRIBE_CLIENT_QUOTAS,
    DESCRIBE_CLUSTER,
    DESCRIBE_CONFIGS,
    DESCRIBE_LOG_DIRS,
    DESCRIBE_USER_SCRAM_CREDENTIALS,
    ELECT_LEADERS,
    FETCH,
    INCREMENTAL_ALTER_CONFIGS,
    JOIN_GROUP,
    LEADER_AND_ISR,
    LIST_OFFSETS,
    OFFSET_FETCH,
    PRODUCE,
    Api,
    ApiRanges,
    NoVersion,
    negotiate,
    open_broker,
)
from core.config import KafkaSecurity
from core.connect import HostPort
from core.errors import UsageError
from core.kafka.znodes import BrokerRegistration, Endpoint, Unreadable

# The two paths of a mutation (``--via``): the brokers (a Kafka request) or ZooKeeper (the znodes). Defined here
# only (tests/unit/test_write_path.py).
VIA_ADMIN = "admin"
VIA_ZOOKEEPER = "zookeeper"
VIAS = (VIA_ADMIN, VIA_ZOOKEEPER)
_ANSWERS_UNAUTHENTICATED = ("PLAINTEXT", "SASL_PLAINTEXT")


def plaintext_endpoint(registration: BrokerRegistration | Unreadable | None, sasl: bool = False) -> Endpoint | None:
    """The broker's PLAINTEXT endpoint (with ``sasl``, else its SASL_PLAINTEXT one), or None."""
    if not isinstance(registration, BrokerRegistration):
        return None
    protocols = _ANSWERS_UNAUTHENTICATED if sasl else _ANSWERS_UNAUTHENTICATED[:1]
    for protocol in protocols:
        found = next((e for e in registration.endpoints if e.security_protocol == protocol), None)
        if found is not None:
            return found
    return None


def wire_endpoint(
    registration: BrokerRegistration | Unreadable | Iterable[Endpoint] | None, security: KafkaSecurity
) -> Endpoint | None:
    """Where kzc's own requests reach the broker (its registration, or its endpoints): its listener of the
    client's security protocol (``kafka_security_protocol``: PLAINTEXT by default), or None when it has none."""
    if isinstance(registration, Unreadable) or registration is None:
        return None
    endpoints = registration.endpoints if isinstance(registration, BrokerRegistration) else registration
    return next((e for e in endpoints if e.security_protocol == security.protocol), None)


def registered_bootstrap(
    brokers: Mapping[int, BrokerRegistration | Unreadable], protocol: str = "PLAINTEXT"
) -> tuple[HostPort, ...]:
    """Bootstrap servers from the brokers' own registrations: each registered broker's endpoint whose
    security protocol is ``protocol`` (the client's ``kafka_security_protocol``), by broker id (what a
    command uses when no ``--bootstrap-server`` was given). An endpoint without a host (a wildcard listener
    the broker did not resolve) is left out rather than guessed."""
    found = []
    for broker in sorted(brokers):
        registration = brokers[broker]
        if not isinstance(registration, BrokerRegistration):
            continue
        endpoint = next((e for e in registration.endpoints if e.security_protocol == protocol), None)
        if endpoint is not None and endpoint.host:
            found.append(HostPort(endpoint.host, endpoint.port))
    return tuple(found)


# (api, lowest version, release): a broker that serves ``api`` at that version runs ``release`` or later: the
# version each release's ``*Request.json`` first lists in ``validVersions`` (clients/src/main/resources/common/
# message), as the brokers of each release answer ApiVersions. Every release 0.10.0 to 3.9 has a mark its
# predecessor lacks, so a broker's whole answer dates its release exactly (to the minor release); the marks of
# the APIs kzc itself needs (DescribeCluster...) keep a partial answer dated as far as it goes. Newest first.
RELEASE_MARKS: tuple[tuple[Api, int, tuple[int, ...]], ...] = (
    (FETCH, 17, (3, 9)),  # KIP-853's ReplicaDirectoryId
    (PRODUCE, 11, (3, 8)),
    (FETCH, 16, (3, 7)),
    (DESCRIBE_CLUSTER, 1, (3, 7)),
    (ADD_PARTITIONS_TO_TXN, 4, (3, 6)),  # KIP-890
    (FETCH, 15, (3, 5)),
    (LEADER_AND_ISR, 7, (3, 4)),
    (DESCRIBE_ACLS, 3, (3, 3)),
    (JOIN_GROUP, 9, (3, 2)),
    (FETCH, 13, (3, 1)),  # topic ids
    (LIST_OFFSETS, 7, (3, 0)),
    (PRODUCE, 9, (2, 8)),
    (DESCRIBE_CLUSTER, 0, (2, 8)),
    (FETCH, 12, (2, 7)),
    (DESCRIBE_USER_SCRAM_CREDENTIALS, 0, (2, 7)),
    (DESCRIBE_CLIENT_QUOTAS, 0, (2, 6)),
    (JOIN_GROUP, 7, (2, 5)),
    (DESCRIBE_ACLS, 2, (2, 5)),
    (PRODUCE, 8, (2, 4)),
    (ALTER_PARTITION_REASSIGNMENTS, 0, (2, 4)),
    (FETCH, 11, (2, 3)),
    (INCREMENTAL_ALTER_CONFIGS, 0, (2, 3)),
    (LIST_OFFSETS, 5, (2, 2)),
    (ELECT_LEADERS, 0, (2, 2)),
    (FETCH, 10, (2, 1)),
    (FETCH, 8, (2, 0)),
    (FETCH, 7, (1, 1)),
    (DESCRIBE_CONFIGS, 1, (1, 1)),  # 1.1's KIP-226 synonyms
    (FETCH, 6, (1, 0)),
    (DESCRIBE_LOG_DIRS, 0, (1, 0)),
    (FETCH, 5, (0, 11)),
    (DESCRIBE_ACLS, 0, (0, 11)),
    (OFFSET_FETCH, 2, (0, 10, 2)),
    (CREATE_TOPICS, 1, (0, 10, 2)),  # KIP-108's validateOnly
    (FETCH, 3, (0, 10, 1)),
    (CREATE_TOPICS, 0, (0, 10, 1)),
    (API_VERSIONS, 0, (0, 10)),
)


def release_floor(ranges: ApiRanges) -> tuple[int, ...]:
    """The oldest release a broker with these ApiVersions can run: its exact (minor) release when ``ranges`` is a
    broker's whole answer (``RELEASE_MARKS``), a lower bound when only some APIs are known."""
    for api, version, release in RELEASE_MARKS:
        found = ranges.get(api.key)
        if found is not None and found[1] >= version:
            return release
    return (0, 10)


@dataclass(frozen=True)
class BrokerApis:
    """One broker's ApiVersions answer, or why it is unknown (``ranges`` None)."""

    broker: int
    ranges: ApiRanges | None
    problem: str | None = None


@dataclass(frozen=True)
class Route:
    """The path a write takes (``admin`` or ``zookeeper``) and why, as the preview and the audit say it."""

    via: str
    reason: str


@dataclass(frozen=True)
class Capabilities:
    """The ApiVersions of every registered broker."""

    brokers: tuple[BrokerApis, ...]

    def of(self, broker: int) -> BrokerApis | None:
        """``broker``'s answer (None: not registered when asked)."""
        return next((b for b in self.brokers if b.broker == broker), None)

    def lacking(self, api: Api, ours: tuple[int, int] = (0, 32767), needs: str = "") -> str | None:
        """Why the cluster cannot serve ``api`` at one of the versions ``ours``: the first registered broker
        (by id) that lacks it; None when every broker whose ApiVersions is known serves it."""
        for entry in self.brokers:
            if entry.ranges is None:
                continue
            try:
                negotiate(api, ours, entry.ranges, f"broker {entry.broker}", needs)
            except NoVersion as exc:
                return str(exc)
        return None

    def release(self) -> tuple[int, ...] | None:
        """The oldest release among the brokers whose ApiVersions are known (``release_floor``), None when
        none is known: the release Kafka's per-release rules are checked against."""
        floors = [release_floor(b.ranges) for b in self.brokers if b.ranges is not None]
        return min(floors) if floors else None

    def unknown(self) -> str | None:
        """Which brokers' ApiVersions could not be read, and why (None: all known)."""
        problems = [f"broker {b.broker}: {b.problem}" for b in self.brokers if b.ranges is None]
        if not problems:
            return None
        return "ApiVersions unknown for " + "; ".join(problems[:3]) + (" ..." if len(problems) > 3 else "")


def read_capabilities(
    brokers: Mapping[int, BrokerRegistration | Unreadable], timeout: float, security: KafkaSecurity | None = None
) -> Capabilities:
    """Ask every registered broker for its ApiVersions (in parallel: a dead broker costs one ``timeout``): on its
    PLAINTEXT or SASL_PLAINTEXT listener (answered before authentication), else, when ``security`` speaks TLS,
    on its listener of that protocol over TLS (ApiVersions again before any SASL login)."""

    def ask(broker: int) -> BrokerApis:
        endpoint = plaintext_endpoint(brokers[broker], sasl=True)
        tls = None
        if endpoint is None and security is not None and security.tls:
            endpoint, tls = wire_endpoint(brokers[broker], security), security
        if endpoint is None:
            reason = (
                "its registration is unreadable"
                if isinstance(brokers[broker], Unreadable)
                else "no PLAINTEXT or SASL_PLAINTEXT listener (nor a TLS one of kafka_security_protocol)"
            )
            return BrokerApis(broker, None, reason)
        try:
            host = endpoint.host or "127.0.0.1"
            with open_broker(host, endpoint.port, timeout, f"broker {broker}", tls, login=False) as conn:
                return BrokerApis(broker, dict(conn.ranges))
        except (OSError, ValueError) as exc:
            return BrokerApis(broker, None, f"{endpoint} did not answer ApiVersions: {exc}")

    ids = sorted(brokers)
    if not ids:
        return Capabilities(())
    with ThreadPoolExecutor(max_workers=min(16, len(ids))) as pool:
        return Capabilities(tuple(pool.map(ask, ids)))


def route(
    capabilities: Capabilities | None,
    api: Api,
    kafka_tool: str,
    ours: tuple[int, int] = (0, 32767),
    needs: str = "",
) -> Route:
    """The path of a write the brokers serve with ``api``: ``admin`` when there is an AdminClient
    (``capabilities`` not None) and no registered broker lacks the API; else ``zookeeper``.

    Args:
        kafka_tool: what Kafka's own tools did without the API, for the reason ("as kafka-topics --alter
            --zookeeper did before 1.0: set /brokers/topics/<t>").
    """
    if capabilities is None:
        return Route(VIA_ZOOKEEPER, "no --bootstrap-server: written through ZooKeeper")
    missing = capabilities.lacking(api, ours, needs)
    if missing is not None:
        return Route(VIA_ZOOKEEPER, f"{missing}: written through ZooKeeper, {kafka_tool}")
    if not capabilities.brokers:
        return Route(VIA_ADMIN, f"no broker is registered to ask: {api.name} through the AdminClient")
    unknown = capabilities.unknown()
    if unknown is not None:
        return Route(VIA_ADMIN, f"{api.name} through the AdminClient (librdkafka negotiates the version; {unknown})")
    return Route(VIA_ADMIN, f"every broker serves {api.name}: sent through the AdminClient")


def write_route(
    capabilities: Capabilities | None,
    api: Api,
    via: str | None,
    zookeeper_tool: str,
    old_zookeeper_tool: str,
    unsendable: str | None = None,
    ours: tuple[int, int] = (0, 32767),
    needs: str = "",
) -> Route:
    """The path of a mutation that has two (ACLs, SCRAM users, quotas, configs, topics, preferred elections):
    ``--via`` (``via``) forces one, else the brokers (``route``) when there is an AdminClient (``capabilities`` not
    None), the request can be sent (``unsendable`` None, else why not) and every registered broker serves ``api``
    at one of the versions ``ours`` (``needs``: what the oldest of them brought); else ZooKeeper, saying why.

    Args:
        zookeeper_tool: what Kafka's tools of the brokers' release do through ZooKeeper, for the reason.
        old_zookeeper_tool: what Kafka's tools did before ``api`` existed.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
    """
    if via == VIA_ZOOKEEPER:
        return Route(VIA_ZOOKEEPER, f"--via zookeeper: written through ZooKeeper, {zookeeper_tool} (no broker asked)")
    if capabilities is None:
        if via == VIA_ADMIN:
            raise UsageError("--via admin needs --bootstrap-server (the brokers to send the request to)")
        return Route(VIA_ZOOKEEPER, f"no --bootstrap-server: written through ZooKeeper, {zookeeper_tool}")
    lacking = capabilities.lacking(api, ours, needs)
    missing = unsendable or lacking
    if missing is not None and via == VIA_ADMIN:
        raise UsageError(f"--via admin cannot be taken: {missing}")
    if missing is not None:
        tool = zookeeper_tool if lacking is None else old_zookeeper_tool
        return Route(VIA_ZOOKEEPER, f"{missing}: written through ZooKeeper, {tool}")
    return route(capabilities, api, old_zookeeper_tool, ours, needs)


class CapabilityCache:
    """The brokers' ApiVersions for one command or a console session: read on first use, then kept while
    the registrations stay the same (a broker restarted on another release, during a rolling upgrade,
    registers anew: its registration's timestamp changes and everything is read again).

    Args:
        timeout: seconds each broker may take to answer; None when there is no AdminClient (every write
            then goes through ZooKeeper and nothing is asked).
        preset: capabilities already known (tests, or a caller that read them).
        security: the client's (``read_capabilities``: a TLS-only cluster is asked over TLS).
    """

    def __init__(
        self, timeout: float | None, preset: Capabilities | None = None, security: KafkaSecurity | None = None
    ) -> None:
        self.timeout = timeout
        self.security = security
        self._value = preset
        self._key: tuple[tuple[int, object], ...] | None = None

    def get(self, brokers: Mapping[int, BrokerRegistration | Unreadable]) -> Capabilities | None:
        """The registered brokers' ApiVersions (None without an AdminClient)."""
        if self.timeout is None:
            return None
        key = tuple(sorted((b, _registration_key(r)) for b, r in brokers.items()))
        if self._value is None or (self._key is not None and key != self._key):
            self._value = read_capabilities(brokers, min(self.timeout, 5.0), self.security)
        self._key = key
        return self._value


def _registration_key(registration: BrokerRegistration | Unreadable) -> object:
    if isinstance(registration, BrokerRegistration):
        return (registration.timestamp_ms, registration.endpoints)
    return "unreadable"
