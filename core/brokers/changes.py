"""The AdminClient requests of the fix actions: DescribeConfigs with sources, IncrementalAlterConfigs and
ElectLeaders (confluent-kafka 2.16; Kafka 2.3+ for incremental configs, 2.4+ for ElectLeaders).

``ChangeAdmin`` extends ``KafkaAdmin`` (same client, timeouts and error mapping), so a command opens one
client for everything it sends.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from confluent_kafka import ElectionType, KafkaError, KafkaException
from confluent_kafka import TopicPartition as ClientTopicPartition  # the client's own type
from confluent_kafka.admin._config import (  # re-exported by confluent_kafka.admin, untyped there
    AlterConfigOpType,
    ConfigEntry,
    ConfigResource,
    ConfigSource,
)

from core.brokers.admin import KafkaAdmin
from core.errors import ConnectError, KzcError
from core.kafka.topic_partition import TopicPartition

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
                    _source(entry.source),
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
        self, election: str, partitions: Sequence[TopicPartition]
    ) -> dict[TopicPartition, KzcError | None]:
        """ElectLeaders (preferred or unclean) for ``partitions``; each partition's error or None.

        Raises:
            ConnectError: no broker answered; KzcError: the request as a whole failed.
        """
        kind = ElectionType.PREFERRED if election == PREFERRED else ElectionType.UNCLEAN
        wanted = [ClientTopicPartition(t, p) for t, p in partitions]
        future = self._call(
            "elect leaders",
            # No timeout arguments: confluent-kafka 2.16's binding raises SystemError on any of them; kzc's
            # own wait on the future (self.timeout) bounds the call instead.
            lambda: self._client.elect_leaders(kind, wanted),
        )
        answers = self._result(future, "elect leaders")
        outcome: dict[TopicPartition, KzcError | None] = {}
        for tp, error in answers.items():
            key = (tp.topic, tp.partition)
            inner = error.args[0] if isinstance(error, KafkaException) and error.args else error
            if error is None or (isinstance(inner, KafkaError) and inner.code() == KafkaError.ELECTION_NOT_NEEDED):
                outcome[key] = None  # already led by the replica asked for
            else:
                problem = self._error(inner, f"elect a leader for {tp.topic}-{tp.partition}")
                if isinstance(problem, ConnectError):
                    raise problem
                outcome[key] = problem
        return outcome


def _source(source: object) -> str:
    """``DYNAMIC_TOPIC_CONFIG``, ``STATIC_BROKER_CONFIG``...: librdkafka hands the enum's number."""
    try:
        return str(ConfigSource(source).name)
    except ValueError:
        return str(source)


def _type(entity_type: str) -> Any:
    return ConfigResource.Type.TOPIC if entity_type == "topics" else ConfigResource.Type.BROKER
