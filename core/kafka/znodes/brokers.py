"""Broker registrations, ``/brokers/ids/<id>`` v1 to v5 (zk-layout §2.3), decoded by Kafka 3.9's rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.kafka.znodes.base import (
    INT16,
    INT32,
    Malformed,
    Row,
    as_int,
    as_object,
    as_str,
    describe,
    format_ms,
    load_object,
    opt_decimal_str,
    opt_int,
    opt_str,
    parser,
    preview,
    req_int,
    req_str,
    req_version,
)

# SecurityProtocol in 3.9. TRACE existed in 0.9 and 0.10 (removed in 0.11); kzc reads 0.10 clusters,
# so a registration advertising it is accepted although 3.9's decoder would refuse it.
SECURITY_PROTOCOLS = ("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
_KNOWN_PROTOCOLS = frozenset((*SECURITY_PROTOCOLS, "TRACE"))

# Used when a v2+ registration has no listener_security_protocol_map (0.9 to 0.10.1 brokers): each
# protocol is also a listener name (SocketServerConfigs.DEFAULT_NAME_TO_SECURITY_PROTO).
_DEFAULT_PROTOCOL_MAP = {protocol: protocol for protocol in _KNOWN_PROTOCOLS}

# Kafka's endpoint syntax (SocketServerConfigs.URI_PARSE_REGEXP), matched against the whole string.
_ENDPOINT = re.compile(r"(.*)://\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One advertised listener. ``host`` is ``""`` for Kafka's wildcard (empty host, stored as null)."""

    listener: str
    security_protocol: str
    host: str
    port: int

    def __str__(self) -> str:
        # As Kafka's EndPoint.connectionString: IPv6 literals are bracketed.
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.listener}://{host}:{self.port}"


@dataclass(frozen=True, slots=True)
class BrokerRegistration:
    """``/brokers/ids/<id>``: a live broker's registration (ephemeral; its czxid is the broker epoch).

    ``host``/``port`` are the legacy top-level fields: the first PLAINTEXT endpoint, or ``None``/-1 when
    the broker has none. ``listener_security_protocol_map`` (v4+) and ``features`` (v5) are ``None`` when
    absent; ``rack`` is ``None`` when absent or null.
    """

    broker_id: int
    version: int
    host: str | None
    port: int
    jmx_port: int
    timestamp_ms: int | None
    endpoints: tuple[Endpoint, ...]
    rack: str | None
    listener_security_protocol_map: tuple[tuple[str, str], ...] | None
    features: tuple[tuple[str, int, int], ...] | None

    def endpoint(self, listener: str) -> Endpoint | None:
        """The endpoint of ``listener`` (case-insensitive, as Kafka normalises listener names)."""
        wanted = listener.upper()
        return next((e for e in self.endpoints if e.listener == wanted), None)


# The Kafka releases that write each registration version (zk-layout §2.3). v2 is also written by 0.10+ brokers
# whose inter.broker.protocol.version is below 0.10.0-IV1, v4 by 2.7+ brokers below 2.7-IV0: only a lower bound.
_RELEASES_BY_REGISTRATION = {1: "0.8", 2: "0.9+", 3: "0.10.0-0.10.1", 4: "0.10.2+", 5: "2.7+"}


def releases_of_registration(version: int) -> str:
    """The Kafka releases that write a broker registration of ``version`` (``2.7+`` for v5): what ZooKeeper
    tells of a broker's release; ``unknown`` for a version no release wrote."""
    return _RELEASES_BY_REGISTRATION.get(version, "unknown")


def broker_id_from_path(path: str) -> int:
    """The broker id: the last path segment, a non-negative decimal (Kafka uses ``child.toInt``)."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    if not re.fullmatch(r"[0-9]+", name) or int(name) > INT32[1]:
        raise Malformed(f"the znode name {name[:40]!r} is not a broker id")
    return int(name)


@parser
def parse_broker(path: str, data: bytes) -> BrokerRegistration:
    """Parse a broker registration of any version, as Kafka 3.9's ``BrokerIdZNode.decode`` does.

    v1 reads ``host``/``port`` as a PLAINTEXT endpoint; v2+ reads ``endpoints`` through
    ``listener_security_protocol_map``, or through the default map when that is missing.
    """
    broker_id = broker_id_from_path(path)
    obj = load_object(data)
    version = req_version(obj)
    jmx_port = req_int(obj, "jmx_port")
    if version < 1:
        raise Malformed(f"Unsupported version of broker registration: {preview(data)}")
    protocol_map = _protocol_map(obj)
    host: str | None
    port: int
    endpoints: tuple[Endpoint, ...]
    if version == 1:
        host, port = req_str(obj, "host"), req_int(obj, "port")
        endpoints = (Endpoint("PLAINTEXT", "PLAINTEXT", host, port),)
    else:
        lookup = dict(protocol_map) if protocol_map is not None else _DEFAULT_PROTOCOL_MAP
        if "endpoints" not in obj:
            raise Malformed('required field "endpoints" is missing')
        listeners = obj["endpoints"]
        if type(listeners) is not list:
            raise Malformed(f'"endpoints" is {describe(listeners)}, expected an array of strings')
        endpoints = tuple(_endpoint(as_str(item, '"endpoints" entry'), lookup) for item in listeners)
        # The legacy top-level host/port: the first PLAINTEXT endpoint, else null and -1.
        host = opt_str(obj, "host", null_ok=True)
        legacy_port = opt_int(obj, "port")
        port = -1 if legacy_port is None else legacy_port
    return BrokerRegistration(
        broker_id=broker_id,
        version=version,
        host=host,
        port=port,
        jmx_port=jmx_port,
        timestamp_ms=opt_decimal_str(obj, "timestamp"),
        endpoints=endpoints,
        rack=opt_str(obj, "rack", null_ok=True),
        listener_security_protocol_map=protocol_map,
        features=_features(obj),
    )


def _protocol_map(obj: dict[str, object]) -> tuple[tuple[str, str], ...] | None:
    if "listener_security_protocol_map" not in obj:
        return None
    raw = as_object(obj["listener_security_protocol_map"], '"listener_security_protocol_map"')
    pairs = []
    for listener, protocol in raw.items():
        name = as_str(protocol, f'protocol of listener "{listener}"').upper()  # SecurityProtocol.forName
        if name not in _KNOWN_PROTOCOLS:
            raise Malformed(f'listener "{listener}" has unknown security protocol {protocol!r}')
        pairs.append((listener, name))
    return tuple(pairs)


def _endpoint(text: str, protocols: dict[str, str]) -> Endpoint:
    match = _ENDPOINT.fullmatch(text)
    if match is None:
        raise Malformed(f"Unable to parse {text[:80]!r} to a broker endpoint")
    listener = match.group(1).upper()  # ListenerName.normalised
    port = int(match.group(3))
    if not INT32[0] <= port <= INT32[1]:
        raise Malformed(f"endpoint {text[:80]!r} has a port beyond 32 bits")
    protocol = protocols.get(listener)
    if protocol is None:
        raise Malformed(f"No security protocol defined for listener {listener}")
    return Endpoint(listener, protocol, match.group(2), port)


def _features(obj: dict[str, object]) -> tuple[tuple[str, int, int], ...] | None:
    # v5: {"<name>":{"min_version":a,"max_version":b}}; null reads as absent, like Kafka's to[Option[...]].
    raw = obj.get("features")
    if raw is None:
        return None
    parsed = []
    for name, levels in as_object(raw, '"features"').items():
        entry = as_object(levels, f'feature "{name}"')
        values = {key: as_int(value, f'feature "{name}" {key}', INT16) for key, value in entry.items()}
        if "min_version" not in values or "max_version" not in values:
            raise Malformed(f'feature "{name}" needs min_version and max_version')
        minimum, maximum = values["min_version"], values["max_version"]
        if minimum < 0 or maximum < minimum:  # SupportedVersionRange, 3.x rules
            raise Malformed(f'feature "{name}": expected 0 <= min_version <= max_version, got {minimum}, {maximum}')
        parsed.append((name, minimum, maximum))
    return tuple(parsed)


# --- explain -----------------------------------------------------------------------------------------

_VERSIONS = {
    1: "v1 (0.8): host/port is the only endpoint",
    2: "v2 (0.9, or IBP < 0.10.0-IV1): adds endpoints",
    3: "v3 (0.10.0 to 0.10.1): adds rack",
    4: "v4 (0.10.2 to 2.6, or IBP < 2.7-IV0): adds listener_security_protocol_map",
    5: "v5 (2.7+, IBP >= 2.7-IV0): adds features",
}


def explain_broker(value: BrokerRegistration) -> list[Row]:
    """Field-by-field meaning of a broker registration."""
    rows: list[Row] = [
        ("broker id", str(value.broker_id), "from the znode name, not the JSON"),
        (
            "version",
            str(value.version),
            _VERSIONS.get(value.version, "newer than Kafka 3.9 writes; read as v5"),
        ),
    ]
    for endpoint in value.endpoints:
        where = "wildcard host" if not endpoint.host else endpoint.host
        rows.append(
            (
                "endpoint",
                str(endpoint),
                f"listener {endpoint.listener}: {endpoint.security_protocol} on {where}:{endpoint.port}",
            )
        )
    if value.host is None:
        rows.append(("host", "null", "no PLAINTEXT listener: clients older than 0.9 cannot connect"))
    else:
        rows.append(("host", value.host, "legacy field for pre-0.9 clients: first PLAINTEXT endpoint's host"))
    rows.append(("port", str(value.port), "legacy PLAINTEXT port (-1: none)"))
    rows.append(("jmx_port", str(value.jmx_port), "JMX disabled" if value.jmx_port == -1 else "JMX port"))
    rows.append(
        (
            "timestamp",
            "absent" if value.timestamp_ms is None else str(value.timestamp_ms),
            f"registered at {format_ms(value.timestamp_ms)}",
        )
    )
    rows.append(
        (
            "rack",
            value.rack if value.rack is not None else "none",
            f"rack {value.rack} for rack-aware replica placement"
            if value.rack is not None
            else "no rack: rack-aware placement fails if other brokers have one",
        )
    )
    if value.listener_security_protocol_map is not None:
        for listener, protocol in value.listener_security_protocol_map:
            rows.append(
                (
                    f"listener_security_protocol_map.{listener}",
                    protocol,
                    f"listener {listener} uses {protocol}",
                )
            )
    elif value.version >= 2:
        rows.append(
            (
                "listener_security_protocol_map",
                "absent",
                "listener names are protocol names (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)",
            )
        )
    if value.features is not None:
        if not value.features:
            rows.append(("features", "{}", "broker advertises no supported features"))
        for name, minimum, maximum in value.features:
            rows.append((f"features.{name}", f"{minimum}..{maximum}", f"supported versions of feature {name}"))
    return rows
