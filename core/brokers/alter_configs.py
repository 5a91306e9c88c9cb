"""Config changes as kzc's own requests, for what librdkafka will not send: a BROKER resource with an empty
name, which is how Kafka names the cluster-wide default (``ConfigResource(BROKER, "")``, stored in
``/config/brokers/<default>``).

- IncrementalAlterConfigs (44, Kafka 2.3+, KIP-339): per config a SET (0) or DELETE (1); v0 classic, v1 the
  same fields flexible (``IncrementalAlterConfigsRequest.json``).
- AlterConfigs (33, 0.11+): the resource's whole dynamic set, replacing what it held; v0 and v1 the same
  layout, v2 flexible (``AlterConfigsRequest.json``). What ``kafka-configs --bootstrap-server`` of 1.1 to 2.2
  sent for brokers (``ConfigCommand.alterBrokerConfig``).

Both answer (``*Response.json``): throttle, then per resource ErrorCode, ErrorMessage, ResourceType,
ResourceName. Sent at the highest version both sides speak (``core.brokers.apiversions``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial

from core.brokers.apiversions import ALTER_CONFIGS, INCREMENTAL_ALTER_CONFIGS, Api, NoVersion, request
from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame
from core.config import KafkaSecurity
from core.errors import ConnectError, KafkaRuleError

BROKER_RESOURCE = 4  # ConfigResource.Type.BROKER
SET, DELETE = 0, 1  # AlterConfigOp.OpType ids
INCREMENTAL_VERSIONS = (0, 1)
WHOLE_SET_VERSIONS = (0, 2)
# Errors.java codes a config change is refused with, by their exception names.
ERROR_NAMES = {
    -1: "UnknownServerException",
    29: "TopicAuthorizationException",
    31: "ClusterAuthorizationException",
    40: "InvalidConfigurationException",
    42: "InvalidRequestException",
    44: "PolicyViolationException",
}


def encode_incremental(
    name: str, updates: Mapping[str, str], deletes: Sequence[str], validate_only: bool, version: int
) -> bytes:
    """The framed IncrementalAlterConfigs request for BROKER resource ``name`` (``""``: the default)."""
    if not INCREMENTAL_VERSIONS[0] <= version <= INCREMENTAL_VERSIONS[1]:
        raise ValueError(f"kzc encodes IncrementalAlterConfigs v0-v1, not v{version}")
    ops: list[tuple[str, int, str | None]] = [(k, SET, v) for k, v in updates.items()]
    ops += [(k, DELETE, None) for k in deletes]

    def write_op(e: Encoder, op: tuple[str, int, str | None]) -> None:
        e.string(op[0]).int8(op[1]).string(op[2])

    def write_resource(e: Encoder, _: object) -> None:
        e.int8(BROKER_RESOURCE).string(name).array(ops, write_op)

    flexible = version >= 1
    body = Encoder(flexible).array([name], write_resource).boolean(validate_only).body()
    return frame(INCREMENTAL_ALTER_CONFIGS.key, version, body, flexible)


def encode_whole_set(name: str, config: Mapping[str, str], validate_only: bool, version: int) -> bytes:
    """The framed AlterConfigs request setting BROKER resource ``name``'s dynamic configs to ``config``."""
    if not WHOLE_SET_VERSIONS[0] <= version <= WHOLE_SET_VERSIONS[1]:
        raise ValueError(f"kzc encodes AlterConfigs v0-v2, not v{version}")
    entries = sorted(config.items())

    def write_entry(e: Encoder, entry: tuple[str, str]) -> None:
        e.string(entry[0]).string(entry[1])

    def write_resource(e: Encoder, _: object) -> None:
        e.int8(BROKER_RESOURCE).string(name).array(entries, write_entry)

    flexible = version >= 2
    body = Encoder(flexible).array([name], write_resource).boolean(validate_only).body()
    return frame(ALTER_CONFIGS.key, version, body, flexible)


def decode_answer(body: bytes, flexible: bool) -> list[tuple[int, str | None, int, str]]:
    """Each resource's (error code, message, type, name) of an (Incremental)AlterConfigs answer.

    Raises:
        ValueError: not such an answer.
    """
    d = Decoder(body, flexible)
    d.header()
    d.int32()  # throttle

    def resource(r: Decoder) -> tuple[int, str | None, int, str]:
        code, message = r.int16(), r.string()
        return code, message, r.int8(), r.string() or ""

    found = d.array(resource) or []
    d.tags()
    return found


def _check(answers: Sequence[tuple[int, str | None, int, str]], what: str) -> None:
    for code, message, _, _ in answers:
        if code:
            name = ERROR_NAMES.get(code, f"error code {code}")
            raise KafkaRuleError(message or f"the broker refused to {what} ({name})", name)


def incremental_alter_broker(
    host: str,
    port: int,
    timeout: float,
    name: str,
    updates: Mapping[str, str],
    deletes: Sequence[str],
    validate_only: bool = False,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> None:
    """IncrementalAlterConfigs of BROKER ``name`` (``""``: the cluster default) through ``host:port``.

    Raises:
        KafkaRuleError: the broker's refusal (its own message: unknown or non-dynamic key, per-broker key at
            the default, bad value). ConnectError: no version fits (nothing sent) or no usable answer.
    """
    build = partial(encode_incremental, name, updates, deletes, validate_only)
    _send(host, port, timeout, INCREMENTAL_ALTER_CONFIGS, INCREMENTAL_VERSIONS, build, 1, name, who, security)


def alter_broker_whole_set(
    host: str,
    port: int,
    timeout: float,
    name: str,
    config: Mapping[str, str],
    validate_only: bool = False,
    who: str = "the broker",
    security: KafkaSecurity | None = None,
) -> None:
    """AlterConfigs of BROKER ``name``: its dynamic configs become ``config`` (keys left out are removed).

    Raises:
        KafkaRuleError, ConnectError: as ``incremental_alter_broker``.
    """
    build = partial(encode_whole_set, name, config, validate_only)
    _send(host, port, timeout, ALTER_CONFIGS, WHOLE_SET_VERSIONS, build, 2, name, who, security)


def _send(
    host: str,
    port: int,
    timeout: float,
    api: Api,
    ours: tuple[int, int],
    build: Callable[[int], bytes],
    flexible_from: int,
    name: str,
    who: str,
    security: KafkaSecurity | None,
) -> None:
    """Send one config change of BROKER ``name`` and check every resource's answer."""
    try:
        version, body = request(host, port, timeout, api, ours, build, who, security)
        answers = decode_answer(body, version >= flexible_from)
    except NoVersion as exc:
        raise ConnectError(f"{exc}; nothing was sent") from exc
    except (OSError, ValueError) as exc:
        raise ConnectError(f"{api.name} to {who} ({host}:{port}) failed: {exc}") from exc
    _check(answers, f"alter the config of broker {name or '<default>'}")
