"""Reading a reassignment file as ``kafka-reassign-partitions.sh --execute`` does: its checks, with Kafka's messages."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.errors import KafkaRuleError, UsageError
from core.kafka.topic_partition import TopicPartition


@dataclass(frozen=True)
class ReassignmentFile:
    """A parsed reassignment file: target replicas per partition and the ``current`` each entry names."""

    targets: tuple[tuple[TopicPartition, tuple[int, ...]], ...]
    current: Mapping[TopicPartition, tuple[int, ...]]


def parse_reassignment_file(text: str) -> ReassignmentFile:
    """``parseExecuteAssignmentArgs`` (Kafka 2.5 to 3.9): the file's checks with Kafka's messages.

    Raises:
        KafkaRuleError: ``AdminCommandFailedException`` for an empty list, an empty replica list,
            duplicate partitions or duplicate replicas; UsageError for text that is not such JSON.
    """
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"the reassignment file is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("partitions", []), list):
        raise UsageError('the reassignment file must be {"version":1,"partitions":[...]}')
    if data.get("version", 1) != 1:
        raise KafkaRuleError(f"Not supported version field value {data.get('version')}", "AdminOperationException")
    targets: list[tuple[TopicPartition, tuple[int, ...]]] = []
    current: dict[TopicPartition, tuple[int, ...]] = {}
    for index, entry in enumerate(data.get("partitions", [])):
        try:
            key = (str(entry["topic"]), _int(entry["partition"]))
            replicas = tuple(_int(b) for b in entry["replicas"])
            if "current" in entry:
                current[key] = tuple(_int(b) for b in entry["current"])
        except (KeyError, TypeError, ValueError):
            raise UsageError(
                f"entry {index} of the reassignment file needs topic, partition and replicas (integers)"
            ) from None
        targets.append((key, replicas))
    _rule = "AdminCommandFailedException"
    if not targets:
        raise KafkaRuleError("Partition reassignment list cannot be empty", _rule)
    if any(not replicas for _, replicas in targets):
        raise KafkaRuleError("Partition replica list cannot be empty", _rule)
    keys = [k for k, _ in targets]
    duplicate_keys = sorted({k for k in keys if keys.count(k) > 1}) if len(set(keys)) != len(keys) else []
    if duplicate_keys:
        raise KafkaRuleError(
            "Partition reassignment contains duplicate topic partitions: "
            + ",".join(f"{t}-{p}" for t, p in duplicate_keys),
            _rule,
        )
    duplicated = [(k, sorted({b for b in r if r.count(b) > 1})) for k, r in targets if len(set(r)) != len(r)]
    if duplicated:
        message = ". ".join(
            f"{t}-{p} contains multiple entries for {','.join(map(str, d))}" for (t, p), d in duplicated
        )
        raise KafkaRuleError(f"Partition replica lists may not contain duplicate entries: {message}", _rule)
    return ReassignmentFile(tuple(targets), current)


def check_partitions_and_brokers(
    targets: Sequence[tuple[TopicPartition, Sequence[int]]],
    existing: Mapping[TopicPartition, Sequence[int]],
    broker_ids: Iterable[int],
) -> None:
    """``verifyReplicasAndBrokersInAssignment`` (ZooKeeper path, 2.5 to 2.8): partitions and brokers exist.

    Raises:
        KafkaRuleError: "The proposed assignment contains non-existent partitions: ..." or
            "... non-existent brokerIDs: ..." (``AdminCommandFailedException``).
    """
    missing = [k for k, _ in targets if k not in existing]
    if missing:
        listed = ", ".join(f"{t}-{p}" for t, p in missing)
        raise KafkaRuleError(
            f"The proposed assignment contains non-existent partitions: List({listed})", "AdminCommandFailedException"
        )
    known = set(broker_ids)
    unknown = sorted({b for _, r in targets for b in r if b not in known})
    if unknown:
        raise KafkaRuleError(
            "The proposed assignment contains non-existent brokerIDs: " + ",".join(map(str, unknown)),
            "AdminCommandFailedException",
        )


def _int(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(value)
    return value
