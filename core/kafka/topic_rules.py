"""Kafka's rules that topic operations apply, as one façade for ``core.topics.planning`` and ``kzc assign``.

Names come from ``core.kafka.names``, manual assignments from ``core.kafka.manual_assignment`` and metrics from
``core.kafka.assignment_metrics``; the functions here adapt them to what plans hold (JSON-able metrics). The
topic config check is kzc's own copy of Kafka 3.9's ``LogConfig`` table (names, types, ranges).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from core.errors import KafkaRuleError, UsageError
from core.kafka import manual_assignment
from core.kafka.assignment import BrokerMeta
from core.kafka.assignment_metrics import compute_metrics, expansion_metrics
from core.kafka.java import JavaNumberFormatError, java_parse_int
from core.kafka.manual_assignment import (
    drop_existing_entries,
    parse_expansion_assignment,
    parse_replica_assignment,
    validate_expansion_assignment,
)
from core.kafka.names import collisions, validate_topic_name

_INT = (-(2**31), 2**31 - 1)
_LONG = (-(2**63), 2**63 - 1)
_COMPRESSION_TYPES = ("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")

# LogConfig's topic-level configs in Kafka 3.9 (names as a 3.9.1 broker lists them): (type, validator).
# Validators: ("min", n), ("range", lo, hi), ("in", values...), ("gzip",) or None.
TOPIC_CONFIGS: dict[str, tuple[str, tuple[Any, ...] | None]] = {
    "cleanup.policy": ("LIST", ("in", "compact", "delete")),
    "compression.gzip.level": ("INT", ("gzip",)),
    "compression.lz4.level": ("INT", ("range", 1, 17)),
    "compression.type": ("STRING", ("in", *_COMPRESSION_TYPES)),
    "compression.zstd.level": ("INT", ("range", -131072, 22)),
    "delete.retention.ms": ("LONG", ("min", 0)),
    "file.delete.delay.ms": ("LONG", ("min", 0)),
    "flush.messages": ("LONG", ("min", 1)),
    "flush.ms": ("LONG", ("min", 0)),
    "follower.replication.throttled.replicas": ("LIST", None),
    "index.interval.bytes": ("INT", ("min", 0)),
    "leader.replication.throttled.replicas": ("LIST", None),
    "local.retention.bytes": ("LONG", ("min", -2)),
    "local.retention.ms": ("LONG", ("min", -2)),
    "max.compaction.lag.ms": ("LONG", ("min", 1)),
    "max.message.bytes": ("INT", ("min", 0)),
    "message.downconversion.enable": ("BOOLEAN", None),
    "message.format.version": ("STRING", None),
    "message.timestamp.after.max.ms": ("LONG", ("min", 0)),
    "message.timestamp.before.max.ms": ("LONG", ("min", 0)),
    "message.timestamp.difference.max.ms": ("LONG", ("min", 0)),
    "message.timestamp.type": ("STRING", ("in", "CreateTime", "LogAppendTime")),
    "min.cleanable.dirty.ratio": ("DOUBLE", ("range", 0, 1)),
    "min.compaction.lag.ms": ("LONG", ("min", 0)),
    "min.insync.replicas": ("INT", ("min", 1)),
    "preallocate": ("BOOLEAN", None),
    "remote.log.copy.disable": ("BOOLEAN", None),
    "remote.log.delete.on.disable": ("BOOLEAN", None),
    "remote.storage.enable": ("BOOLEAN", None),
    "retention.bytes": ("LONG", None),
    "retention.ms": ("LONG", ("min", -1)),
    "segment.bytes": ("INT", ("min", 1048576)),
    "segment.index.bytes": ("INT", ("min", 4)),
    "segment.jitter.ms": ("LONG", ("min", 0)),
    "segment.ms": ("LONG", ("min", 1)),
    "unclean.leader.election.enable": ("BOOLEAN", None),
}
TOPIC_CONFIG_NAMES = frozenset(TOPIC_CONFIGS)
_DECIMAL = re.compile(r"[+-]?[0-9]+")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[dDfF]?")


# ---- names (zk-layout §6): core.kafka.names --------------------------------------------------------


def validate_name(name: str) -> None:
    """``Topic.validate`` (``core.kafka.names``).

    Raises:
        KafkaRuleError: ``InvalidTopicException`` with Kafka's 3.4+ message.
    """
    validate_topic_name(name)


def colliding_topics(name: str, existing_in_zk_order: Sequence[str]) -> list[str]:
    """Existing topics colliding with ``name`` in the order Kafka's message lists them (``core.kafka.names``);
    ``name`` itself is left out (kzc reports "already exists" before)."""
    return [t for t in collisions(name, existing_in_zk_order) if t != name]


# ---- manual assignments (zk-layout §4): core.kafka.manual_assignment -------------------------------------


def parse_create_assignment(text: str) -> dict[int, list[int]]:
    """``TopicCommand.parseReplicaAssignment``: ``"1:2,3:4"`` → ``{0: [1, 2], 1: [3, 4]}``.

    Raises:
        KafkaRuleError: Kafka's parse errors (``For input string: "x"``, duplicates, replication factor).
    """
    return parse_replica_assignment(text)


def validate_create_assignment(assignment: Mapping[int, Sequence[int]]) -> None:
    """``AdminZkClient.validateTopicCreate`` steps 5 to 7 (3.9).

    Raises:
        KafkaRuleError: ``InvalidReplicaAssignmentException`` with Kafka's message.
    """
    manual_assignment.validate_create_assignment(assignment)


def parse_expand_assignment(
    topic: str,
    text: str,
    existing: Mapping[int, Sequence[int]],
    target: int,
    broker_ids: Sequence[int],
) -> dict[int, list[int]]:
    """``--alter --partitions N --replica-assignment STR`` as Kafka 2.2+ handles it through the brokers.

    The whole string is parsed (so its entries for existing partitions are checked too), the first
    ``len(existing)`` entries are dropped, then the broker-side CreatePartitions checks and
    ``AdminZkClient``'s manual checks run. The new lists go out in the order written (TopicCommand 3.7+
    scrambles them through a HashMap; kzc sends what it shows).

    Returns:
        ``{partition id: replicas}`` for the new partitions.

    Raises:
        KafkaRuleError: with Kafka's messages (zk-layout §4.1, §4.3).
    """
    new = parse_expansion_assignment(text, len(existing))
    validate_expansion_assignment(topic, existing, new, broker_ids, target_partitions=target)
    return new


def expand_assignment_from_parsed(
    topic: str,
    parsed: Mapping[int, Sequence[int]],
    existing: Mapping[int, Sequence[int]],
    target: int,
    broker_ids: Sequence[int],
) -> dict[int, list[int]]:
    """:func:`parse_expand_assignment` for a string already parsed with :func:`parse_create_assignment`.

    TopicCommand parses ``--replica-assignment`` before anything else (its options object does it), so
    a malformed string is reported before the topic is even looked at; the checks that need the topic
    (existing entries dropped, the broker-side and ``AdminZkClient`` checks) run here, later.

    Raises:
        KafkaRuleError: with Kafka's messages (zk-layout §4.3).
    """
    new = drop_existing_entries(parsed, len(existing))
    validate_expansion_assignment(topic, existing, new, broker_ids, target_partitions=target)
    return new


# ---- command-line numbers ----------------------------------------------------------------------------


def parse_option_int(option: str, text: str) -> int:
    """An ``Integer`` option of Kafka's command-line tools, as joptsimple converts it (``Integer.valueOf``).

    No trimming; a sign and Unicode decimal digits are accepted; anything else, or a value outside
    Java's ``int`` range, fails with joptsimple's message, which ``kafka-topics`` prints.

    Args:
        option: the option name without dashes, as joptsimple names it (``partitions``).
        text: the value as given.

    Raises:
        KafkaRuleError: ``OptionArgumentConversionException``
            ("Cannot parse argument '3000000000' of option partitions").
    """
    try:
        return java_parse_int(text)
    except JavaNumberFormatError:
        raise KafkaRuleError(
            f"Cannot parse argument '{text}' of option {option}", "OptionArgumentConversionException"
        ) from None


# ---- configs ----------------------------------------------------------------------------------------


def parse_configs(items: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``KEY=VALUE`` strings (``--config``, the create form) as pairs, in order; a key given twice keeps its
    last value (as Kafka does).

    Raises:
        UsageError: an item without ``=`` or with an empty key.
    """
    configs: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"a config takes KEY=VALUE, got '{item}'")
        configs[key.strip()] = value.strip()
    return tuple(configs.items())


def validate_config(config: Sequence[tuple[str, str]]) -> None:
    """``LogConfig.validate`` (3.9) for topic overrides: known names, then each value's type and range,
    with ``ConfigDef``'s messages.

    On the AdminClient path the brokers check again (``validate_only``); on the ZooKeeper path this is the
    only check, and a value the brokers cannot parse would break the topic's partitions, so kzc refuses it.

    Raises:
        KafkaRuleError: ``InvalidConfigurationException`` ("Unknown topic config name: x") or
            ``ConfigException`` ("Invalid value x for configuration y: ...").
    """
    for key, _ in config:
        if key not in TOPIC_CONFIGS:
            raise KafkaRuleError(f"Unknown topic config name: {key}", "InvalidConfigurationException")
    for key, raw in config:
        kind, validator = TOPIC_CONFIGS[key]
        problem = _config_problem(kind, validator, raw.strip())
        if problem:
            raise KafkaRuleError(f"Invalid value {raw} for configuration {key}: {problem}", "ConfigException")


def _config_problem(kind: str, validator: tuple[Any, ...] | None, value: str) -> str | None:
    number: float | int
    if kind in ("INT", "LONG"):
        low, high = _INT if kind == "INT" else _LONG
        if not _DECIMAL.fullmatch(value) or not low <= int(value) <= high:
            return f"Not a number of type {kind}"
        number = int(value)
    elif kind == "DOUBLE":
        if not _FLOAT.fullmatch(value):
            return "Not a number of type DOUBLE"
        number = float(value.rstrip("dDfF"))
    elif kind == "BOOLEAN":
        return None if value.lower() in ("true", "false") else "Expected value to be either true or false"
    else:
        items = [item.strip() for item in value.split(",")] if kind == "LIST" and value else [value]
        if validator and validator[0] == "in":
            allowed = validator[1:]
            bad = [item for item in items if item not in allowed]
            return f"String must be one of: {', '.join(allowed)}" if bad else None
        return None
    if validator is None:
        return None
    if validator[0] == "min" and number < validator[1]:
        return f"Value must be at least {validator[1]}"
    if validator[0] == "range":
        if number < validator[1]:
            return f"Value must be at least {validator[1]}"
        if number > validator[2]:
            return f"Value must be no more than {validator[2]}"
    if validator[0] == "gzip" and number != -1 and not 1 <= number <= 9:
        return "Value must be between 1 and 9, or -1 (the default level)"
    return None


# ---- metrics: core.kafka.assignment_metrics ----------------------------------------------------------------


def metrics_for(assignment: Sequence[tuple[int, Sequence[int]]], racks: Mapping[int, str | None]) -> dict[str, Any]:
    """``compute_metrics`` as JSON: replicas and preferred leaders per broker, skew, rack spread, the
    most-shared broker pair.

    Args:
        assignment: (partition, replicas) pairs.
        racks: every broker to count (also those with no replica), with its rack or None.
    """
    return compute_metrics(dict(assignment), _brokers(racks)).to_json()


def expansion_metrics_for(
    existing: Sequence[tuple[int, Sequence[int]]],
    new: Sequence[tuple[int, Sequence[int]]],
    racks: Mapping[int, str | None],
) -> dict[str, Any]:
    """``{"before": ..., "after": ...}``: the topic's metrics without and with the new partitions."""
    both = expansion_metrics(dict(existing), dict(new), _brokers(racks))
    return {when: metrics.to_json() for when, metrics in both.items()}


def _brokers(racks: Mapping[int, str | None]) -> list[BrokerMeta]:
    return [BrokerMeta(broker, rack) for broker, rack in sorted(racks.items())]


def describe_metrics(metrics: Mapping[str, Any]) -> list[str]:
    """Metrics (flat, or ``before``/``after`` an expansion) as terminal lines."""
    if "after" in metrics and isinstance(metrics["after"], Mapping):
        before = metrics.get("before") if isinstance(metrics.get("before"), Mapping) else {}
        lines = [f"after the increase: {line}" for line in describe_metrics(metrics["after"])]
        if before:
            lines.append(f"skew before: replicas {before.get('replica_skew')}, leaders {before.get('leader_skew')}")
        return lines
    lines = []
    for key, label in (("replicas_per_broker", "replicas per broker"), ("leaders_per_broker", "leaders per broker")):
        table = metrics.get(key)
        if isinstance(table, Mapping):
            lines.append(f"{label}: " + "  ".join(f"{b}:{n}" for b, n in table.items()))
    if "replica_skew" in metrics:
        lines.append(f"replica skew {metrics['replica_skew']}, leader skew {metrics.get('leader_skew')}")
    violations = metrics.get("rack_violations") or []
    if violations:
        shown = ", ".join(map(str, violations[:10])) + (" ..." if len(violations) > 10 else "")
        lines.append(
            f"{plural(len(violations), 'partition')} miss{'es' if len(violations) == 1 else ''} racks Kafka's "
            f"rack-aware placement would use: {shown}"
        )
    overlap = metrics.get("broker_pair_overlap")
    if isinstance(overlap, Mapping) and overlap.get("pair"):
        pair = overlap["pair"]
        shared = plural(int(overlap["shared_partitions"]), "partition")
        lines.append(f"most shared broker pair: {pair[0]} and {pair[1]} ({shared})")
    return lines


def plural(count: int, noun: str) -> str:
    """``1 partition``, ``2 partitions``, ``0 partitions``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
