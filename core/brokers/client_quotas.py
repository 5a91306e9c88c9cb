"""Client quotas through the brokers: DescribeClientQuotas (48) and AlterClientQuotas (49), KIP-546, Kafka 2.6+,
as kzc's own requests over a plain socket (confluent-kafka 2.16 has no client-quota API).

Schemas (``DescribeClientQuotas{Request,Response}.json``, ``AlterClientQuotas{Request,Response}.json``):
v0 from 2.6, v1 the same fields in the flexible encoding (KIP-482). kzc speaks v0-v1 and sends the highest
the broker lists in ApiVersions.

- DescribeClientQuotas: ``Components`` [EntityType STRING, MatchType INT8 (0 exact, 1 default, 2 any),
  Match NULLABLE_STRING], ``Strict`` BOOL; the answer: throttle, ErrorCode, ErrorMessage, ``Entries``
  (nullable) [``Entity`` [EntityType, EntityName (null: the default)], ``Values`` [Key, Value FLOAT64]].
  No components, not strict: every entity with a quota.
- AlterClientQuotas: ``Entries`` [``Entity`` [EntityType, EntityName], ``Ops`` [Key, Value FLOAT64, Remove
  BOOL]], ``ValidateOnly``; the answer: throttle, then per entry ErrorCode, ErrorMessage and its Entity.

Entity types as ``ClientQuotaEntity`` names them: ``user``, ``client-id`` (``ip`` from 2.7 is not a client
quota kzc shows). Names travel unsanitised (the broker sanitises them for ZooKeeper); a null name is
``<default>``. Values are doubles on the wire: the LONG quotas are shown as integers, as ``kafka-configs``
prints them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from core.brokers.apiversions import ALTER_CLIENT_QUOTAS, DESCRIBE_CLIENT_QUOTAS, request
from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame
from core.config import KafkaSecurity
from core.errors import KafkaRuleError
from core.kafka.quotas import DEFAULT, QUOTA_KEYS, QuotaEntity

VERSIONS = (0, 1)
FLEXIBLE_FROM = 1
USER = "user"
CLIENT_ID = "client-id"
# Error codes AlterClientQuotas answers with (``Errors.java``), as Java names them.
ERROR_NAMES = {
    -1: "UNKNOWN_SERVER_ERROR",
    31: "CLUSTER_AUTHORIZATION_FAILED",
    42: "INVALID_REQUEST",
    35: "UNSUPPORTED_VERSION",
}


def entity_components(entity: QuotaEntity) -> list[tuple[str, str | None]]:
    """The (entity type, name) pairs of ``entity``, user first (``<default>`` is a null name)."""
    pairs: list[tuple[str, str | None]] = []
    if entity.user is not None:
        pairs.append((USER, None if entity.user == DEFAULT else entity.user))
    if entity.client_id is not None:
        pairs.append((CLIENT_ID, None if entity.client_id == DEFAULT else entity.client_id))
    return pairs


def entity_of(pairs: Sequence[tuple[str, str | None]]) -> QuotaEntity | None:
    """The entity a broker names with ``pairs``; None for one kzc does not show (an ``ip`` quota)."""
    found: dict[str, str] = {}
    for kind, name in pairs:
        if kind not in (USER, CLIENT_ID):
            return None
        found[kind] = DEFAULT if name is None else name
    if not found:
        return None
    return QuotaEntity(found.get(USER), found.get(CLIENT_ID))


def shown_value(key: str, value: float) -> str:
    """A quota's double as kzc (and ZooKeeper's config) shows it: LONG quotas as integers."""
    kind = QUOTA_KEYS.get(key, (float, ()))[0]
    return str(int(value)) if kind is int else repr(value)  # Java's Double.toString, as the broker stores it


def encode_describe(version: int) -> bytes:
    """The framed DescribeClientQuotas request for every entity (no components, not strict)."""
    if not VERSIONS[0] <= version <= VERSIONS[1]:
        raise ValueError(f"kzc encodes DescribeClientQuotas v0-v1, not v{version}")
    flexible = version >= FLEXIBLE_FROM
    body = Encoder(flexible).array([], lambda e, c: e).boolean(False).body()
    return frame(DESCRIBE_CLIENT_QUOTAS.key, version, body, flexible)


def decode_describe(body: bytes, version: int) -> dict[QuotaEntity, dict[str, str]]:
    """Every user/client-id entity of a DescribeClientQuotas answer with its quotas.

    Raises:
        KafkaRuleError: the broker answered with an error. ValueError: not such an answer.
    """
    d = Decoder(body, version >= FLEXIBLE_FROM)
    d.header()
    d.int32()  # throttle
    code, message = d.int16(), d.string()

    def value(r: Decoder) -> tuple[str, float]:
        return (r.string() or "", r.float64())

    def entry(r: Decoder) -> tuple[list[tuple[str, str | None]], list[tuple[str, float]]]:
        pairs = r.array(lambda p: (p.string() or "", p.string())) or []
        return pairs, r.array(value) or []

    entries = d.array(entry)
    d.tags()
    if code:
        raise KafkaRuleError(_refusal("DescribeClientQuotas", code, message), ERROR_NAMES.get(code, str(code)))
    found: dict[QuotaEntity, dict[str, str]] = {}
    for pairs, values in entries or []:
        entity = entity_of(pairs)
        if entity is not None:
            found[entity] = {k: shown_value(k, v) for k, v in values}
    return found


def encode_alter(
    entity: QuotaEntity, updates: Mapping[str, str], removes: Sequence[str], validate_only: bool, version: int
) -> bytes:
    """The framed AlterClientQuotas request setting ``updates`` and removing ``removes`` of ``entity``."""
    if not VERSIONS[0] <= version <= VERSIONS[1]:
        raise ValueError(f"kzc encodes AlterClientQuotas v0-v1, not v{version}")
    flexible = version >= FLEXIBLE_FROM
    ops = [(k, float(v), False) for k, v in updates.items()] + [(k, 0.0, True) for k in removes]

    def write_pair(e: Encoder, pair: tuple[str, str | None]) -> None:
        e.string(pair[0]).string(pair[1])

    def write_op(e: Encoder, op: tuple[str, float, bool]) -> None:
        e.string(op[0]).float64(op[1]).boolean(op[2])

    def write_entry(e: Encoder, _: object) -> None:
        e.array(entity_components(entity), write_pair).array(ops, write_op)

    body = Encoder(flexible).array([entity], write_entry).boolean(validate_only).body()
    return frame(ALTER_CLIENT_QUOTAS.key, version, body, flexible)


@dataclass(frozen=True)
class AlterAnswer:
    """Each entity's answer: (error code, message)."""

    entries: tuple[tuple[QuotaEntity | None, int, str | None], ...]


def decode_alter(body: bytes, version: int) -> AlterAnswer:
    """An AlterClientQuotas answer.

    Raises:
        ValueError: not such an answer.
    """
    d = Decoder(body, version >= FLEXIBLE_FROM)
    d.header()
    d.int32()  # throttle

    def entry(r: Decoder) -> tuple[QuotaEntity | None, int, str | None]:
        code, message = r.int16(), r.string()
        pairs = r.array(lambda p: (p.string() or "", p.string())) or []
        return entity_of(pairs), code, message

    entries = d.array(entry) or []
    d.tags()
    return AlterAnswer(tuple(entries))


def _refusal(api: str, code: int, message: str | None) -> str:
    name = ERROR_NAMES.get(code, f"error code {code}")
    return f"the broker refused {api}: {name}" + (f": {message}" if message else "")


def describe_client_quotas(
    host: str, port: int, timeout: float, who: str = "the broker", security: KafkaSecurity | None = None
) -> dict[QuotaEntity, dict[str, str]]:
    """Every user/client-id quota the broker at ``host:port`` reports.

    Raises:
        NoVersion: the broker has no DescribeClientQuotas (before 2.6): nothing was sent.
        KafkaRuleError: the broker answered with an error. OSError, ValueError: no usable answer.
    """
    version, body = request(host, port, timeout, DESCRIBE_CLIENT_QUOTAS, VERSIONS, encode_describe, who, security)
    return decode_describe(body, version)


def alter_client_quotas(
    host: str,
    port: int,
    timeout: float,
    entity: QuotaEntity,
    updates: Mapping[str, str],
    removes: Sequence[str],
    validate_only: bool = False,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> None:
    """Set ``updates`` and remove ``removes`` of ``entity`` through the broker at ``host:port`` (it writes
    ZooKeeper and the change notification itself, as ``AdminZkClient`` does).

    Raises:
        NoVersion: the broker has no AlterClientQuotas (before 2.6): nothing was sent.
        KafkaRuleError: the broker refused (its message, e.g. an unknown key or a bad value).
        OSError, ValueError: no usable answer.
    """
    version, body = request(
        host,
        port,
        timeout,
        ALTER_CLIENT_QUOTAS,
        VERSIONS,
        lambda v: encode_alter(entity, updates, removes, validate_only, v),
        who,
        security,
    )
    for _, code, message in decode_alter(body, version).entries:
        if code:
            raise KafkaRuleError(_refusal("AlterClientQuotas", code, message), ERROR_NAMES.get(code, str(code)))
