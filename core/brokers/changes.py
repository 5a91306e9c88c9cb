"""The AdminClient requests of the fix actions: DescribeConfigs with sources, IncrementalAlterConfigs and
ElectLeaders (confluent-kafka 2.16; Kafka 2.3+ for incremental configs, 2.4+ for ElectLeaders).

``ChangeAdmin`` extends ``KafkaAdmin`` (same client, timeouts and error mapping), so a command opens one
client for everything it sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import ElectionType, KafkaException, TopicPartition
from confluent_kafka.admin._config import AlterConfigOpType, ConfigEntry, ConfigResource  # untyped re-exports

from core.brokers.admin import KafkaAdmin
from core.errors import ConnectError, KzcError

PREFERRED = "preferred"
UNCLEAN = "unclean"


@dataclass(frozen=True)
class ConfigValue:
    """One config as a broker describes it: value (None when sensitive), source and flags."""

    name: str
    value: str | None
    source: str
    is_default: bool
    read_only: bool
    sensitive: bool

    def to_json(self) -> dict[str, Any]:
        """``{"name", "value", "source", "default", "read_only", "sensitive"}``."""
        return {
            "name": self.name,
            "value": self.value,
            "source": self.source,
            "default": self.is_default,
            "read_only": self.read_only,
            "sensitive": self.sensitive,
        }


class ChangeAdmin(KafkaAdmin):
    """``KafkaAdmin`` plus config changes and leader elections."""

    def describe_config(self, entity_type: str, name: str) -> list[ConfigValue]:
        """DescribeConfigs of a topic (``topics``) or broker (``brokers``; ``""`` is the cluster default).

        Raises:
            KafkaRuleError: the broker refused (unknown topic...), ConnectError: no answer.
        """
        resource = ConfigResource(_type(entity_type), name)
        futures = self._call(
            "describe configs", lambda: self._client.describe_configs([resource], request_timeout=self.timeout)
        )
        entries = self._result(futures[resource], f"describe the config of {entity_type} {name or '<default>'}")
        result = []
        for entry in sorted(entries.values(), key=lambda e: e.name):
            result.append(
                ConfigValue(
                    entry.name,
                    None if entry.value is None else str(entry.value),
                    str(getattr(entry.source, "name", entry.source)),
                    bool(entry.is_default),
                    bool(entry.is_read_only),
                    bool(entry.is_sensitive),
                )
            )
        return result

    def alter_config(
        self,
        entity_type: str,
        name: str,
        updates: Mapping[str, str],
        deletes: Sequence[str] = (),
        *,
        validate_only: bool = False,
    ) -> None:
        """IncrementalAlterConfigs: SET each of ``updates``, DELETE each of ``deletes``.

        Raises:
            KafkaRuleError: the broker refused (invalid value, unknown topic), ConnectError: no answer.
        """
        entries = [ConfigEntry(k, v, incremental_operation=AlterConfigOpType.SET) for k, v in updates.items()]
        entries += [ConfigEntry(k, None, incremental_operation=AlterConfigOpType.DELETE) for k in deletes]
        resource = ConfigResource(_type(entity_type), name, incremental_configs=entries)
        futures = self._call(
            "alter configs",
            lambda: self._client.incremental_alter_configs(
                [resource], request_timeout=self.timeout, validate_only=validate_only
            ),
        )
        self._result(futures[resource], f"alter the config of {entity_type} {name}")

    def elect_leaders(
        self, election: str, partitions: Sequence[tuple[str, int]]
    ) -> dict[tuple[str, int], KzcError | None]:
        """ElectLeaders (preferred or unclean) for ``partitions``; each partition's error or None.

        Raises:
            ConnectError: no broker answered; KzcError: the request as a whole failed.
        """
        kind = ElectionType.PREFERRED if election == PREFERRED else ElectionType.UNCLEAN
        wanted = [TopicPartition(t, p) for t, p in partitions]
        future = self._call(
            "elect leaders",
            lambda: self._client.elect_leaders(kind, wanted, request_timeout=self.timeout, operation_timeout=0),
        )
        answers = self._result(future, "elect leaders")
        outcome: dict[tuple[str, int], KzcError | None] = {}
        for tp, error in answers.items():
            key = (tp.topic, tp.partition)
            if error is None:
                outcome[key] = None
            else:
                inner = error.args[0] if isinstance(error, KafkaException) and error.args else error
                problem = self._error(inner, f"elect a leader for {tp.topic}-{tp.partition}")
                if isinstance(problem, ConnectError):
                    raise problem
                outcome[key] = problem
        return outcome


def _type(entity_type: str) -> Any:
    return ConfigResource.Type.TOPIC if entity_type == "topics" else ConfigResource.Type.BROKER
