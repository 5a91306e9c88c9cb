"""Topic config changes, pure: the request, Kafka's checks in Kafka's order, the diff and the writes.

Checks as ``ConfigCommand`` (ZooKeeper path) and ``AdminZkClient.changeTopicConfig`` make them: the topic
exists ("Topic '<t>' does not exist."), keys to delete are set ("Invalid config(s): a,b"), then
``LogConfig.validate`` on the resulting overrides (``core.kafka.topic_rules.validate_config``, kzc's one
copy of Kafka's table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.brokers.capabilities import VIA_ADMIN
from core.configs.zk import StoredConfig
from core.errors import KafkaRuleError, UsageError
from core.kafka.topic_rules import validate_config


@dataclass(frozen=True)
class ConfigRequest:
    """Set ``updates`` and delete ``deletes`` on topic ``topic``."""

    topic: str
    updates: tuple[tuple[str, str], ...] = ()
    deletes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The arguments as the audit log records them."""
        return {"topic": self.topic, "set": dict(self.updates), "delete": list(self.deletes)}


@dataclass(frozen=True)
class ConfigChange:
    """One key's change: ``before``/``after`` None means unset."""

    key: str
    before: str | None
    after: str | None

    def describe(self) -> str:
        """``- key=old`` / ``+ key=new`` / ``~ key: old -> new``."""
        if self.before is None:
            return f"  + {self.key}={self.after}"
        if self.after is None:
            return f"  - {self.key}={self.before}"
        return f"  ~ {self.key}: {self.before} -> {self.after}"

    def to_json(self) -> dict[str, str | None]:
        """``{"key", "before", "after"}``."""
        return {"key": self.key, "before": self.before, "after": self.after}


@dataclass(frozen=True)
class ConfigPlan:
    """A validated config change: the overrides before and after, and the diff.

    ``before`` is what ZooKeeper held (with its znode version, the one the write is checked against).
    ``blocked`` says why it cannot be applied now (read-only, migration).
    """

    request: ConfigRequest
    before: StoredConfig
    after: tuple[tuple[str, str], ...]
    changes: tuple[ConfigChange, ...]
    via: str
    blocked: str | None = None
    via_reason: str | None = None  # why this path (``core.configs.ops.config_route``)

    @property
    def topic(self) -> str:
        """The topic changed."""
        return self.request.topic

    def to_json(self) -> dict[str, Any]:
        """``{"topic", "before", "after", "changes", "via", "path", "zk_version", "blocked"}``."""
        return {
            "topic": self.topic,
            "before": self.before.as_dict(),
            "after": dict(self.after),
            "changes": [c.to_json() for c in self.changes],
            "via": self.via,
            "path": self.via_reason,
            "zk_version": self.before.zk_version,
            "blocked": self.blocked,
        }

    def describe(self) -> list[str]:
        """The diff as terminal lines."""
        via = "the AdminClient (IncrementalAlterConfigs)" if self.via == VIA_ADMIN else "ZooKeeper"
        head = f"Topic {self.topic} config, via {via}:"
        lines = [head, *(c.describe() for c in self.changes)] if self.changes else [head, "  no change"]
        if self.via_reason:
            lines.append(f"  path: {self.via_reason}")
        if self.blocked:
            lines.append(f"  BLOCKED: {self.blocked}")
        return lines


def parse_request(topic: str, items: Sequence[str], deletes: Sequence[str]) -> ConfigRequest:
    """``KEY=VALUE`` items and keys to delete as a request.

    Raises:
        UsageError: nothing to change, an item without ``=``, or a key both set and deleted.
    """
    updates, keys = parse_changes(items, deletes, "give KEY=VALUE to set or --delete KEY")
    return ConfigRequest(topic, updates, keys)


def parse_changes(
    items: Sequence[str], deletes: Sequence[str], nothing: str, secret: Callable[[str], bool] = lambda _key: False
) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """The one parse of a config change (topics and brokers): ``KEY=VALUE`` items (the last of a key wins)
    and keys to delete; ``nothing`` is the message when both are empty; an item whose key is ``secret`` is
    named by its key alone in an error.

    Raises:
        UsageError: nothing to change, an item without ``=``, or a key both set and deleted.
    """
    updates: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"a config takes KEY=VALUE, got '{key if secret(key) else item}'")
        updates[key.strip()] = value
    keys = tuple(dict.fromkeys(k.strip() for k in deletes))
    if not updates and not keys:
        raise UsageError(nothing)
    both = sorted(set(updates) & set(keys))
    if both:
        raise UsageError(f"{', '.join(both)} both set and deleted")
    return tuple(updates.items()), keys


def plan_change(
    request: ConfigRequest,
    before: StoredConfig,
    topic_exists: bool,
    via: str,
    blocked: str | None = None,
    via_reason: str | None = None,
) -> ConfigPlan:
    """Check and diff a topic config change.

    Raises:
        KafkaRuleError: ``UnknownTopicOrPartitionException`` "Topic '<t>' does not exist.",
            ``InvalidConfigurationException`` "Invalid config(s): ..." for keys to delete that are not set,
            or ``LogConfig.validate``'s refusal of a name or value.
    """
    if not topic_exists:
        raise KafkaRuleError(f"Topic '{request.topic}' does not exist.", "UnknownTopicOrPartitionException")
    current = before.as_dict()
    missing = [k for k in request.deletes if k not in current]
    if missing:
        raise KafkaRuleError(f"Invalid config(s): {','.join(missing)}", "InvalidConfigurationException")
    after = dict(current)
    after.update(request.updates)
    for key in request.deletes:
        after.pop(key, None)
    validate_config(tuple(after.items()))
    changes = tuple(
        ConfigChange(k, current.get(k), after.get(k))
        for k in sorted(set(current) | set(after))
        if current.get(k) != after.get(k)
    )
    return ConfigPlan(request, before, tuple(sorted(after.items())), changes, via, blocked, via_reason)
