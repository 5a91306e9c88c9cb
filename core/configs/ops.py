"""Show and change topic configs on a live cluster: ZooKeeper as ``AdminZkClient`` writes, or the AdminClient.

``ConfigOps.plan`` reads the overrides (and their znode version), checks the change as Kafka does and
diffs it; ``planned_writes`` lists exactly what ``apply`` sends (the dry run prints it). ``apply`` refuses in
read-only mode or during a migration, and when ``/config/topics/<t>`` changed since the plan; afterwards it
reads the znode back and fails loudly if it holds anything else than the plan.

The path (``config_route``, the one ``--via`` decision ``core.brokers.capabilities.write_route``):
IncrementalAlterConfigs when every registered broker serves it (2.3+), else ZooKeeper, as ``kafka-configs
--zookeeper`` did; ``--via`` forces one. Not AlterConfigs (0.11+) with the
whole set: Kafka's own tool never used it for topics before 2.3 (2.2's ``ConfigCommand`` answers
"--zookeeper option must be specified for entity-type topics" to ``--bootstrap-server``), the broker turns
it into the very same ``AdminZkClient.changeTopicConfig`` writes (``AdminManager.alterConfigs``, 1.1), and
a whole-set replace read then written has no version check: a concurrent change would be lost silently,
where kzc's ZooKeeper write is checked against the version the plan read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from core.audit import AuditLog
from core.brokers.apiversions import DESCRIBE_CONFIGS, INCREMENTAL_ALTER_CONFIGS
from core.brokers.capabilities import (
    VIA_ADMIN,
    VIA_ZOOKEEPER,
    Capabilities,
    Route,
    write_route,
)
from core.brokers.changes import ChangeAdmin, ConfigValue
from core.config import ConnectionSettings
from core.configs.plan import ConfigPlan, ConfigRequest, plan_change
from core.configs.zk import (
    BROKER_DEFAULT,
    BROKERS,
    TOPICS,
    StoredConfig,
    change_writes,
    controller_fence,
    execute,
    read_config,
)
from core.errors import ConcurrentChangeError, KafkaRuleError, KzcError
from core.kafka.znodes.paths import config_path, topic_path
from core.topics.cluster_ops import ClusterOps, open_cluster_ops
from core.topics.facts import ClusterFacts
from core.topics.write import PlannedWrite
from core.zookeeper.session import ZkSession

_ZK_WRITES = (
    "(AdminZkClient.changeTopicConfig: /config/topics/<t>, then a /config/changes notification; kzc sets the "
    "config at the version it read)"
)
# What Kafka's own tool does through ZooKeeper, and did before IncrementalAlterConfigs (ConfigCommand).
ZK_TOOL = f"as kafka-configs --zookeeper --entity-type topics --alter writes {_ZK_WRITES}"
CONFIG_TOOL = f"as kafka-configs --zookeeper did before 2.3 {_ZK_WRITES}"


def config_route(capabilities: Capabilities | None, via: str | None = None) -> Route:
    """The path of a topic config change (``write_route``; see the module): IncrementalAlterConfigs when
    there is an AdminClient (``capabilities`` not None) and every registered broker serves it, else
    ZooKeeper; ``via`` (``--via``) forces one.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
    """
    return write_route(capabilities, INCREMENTAL_ALTER_CONFIGS, via, ZK_TOOL, CONFIG_TOOL)


def planned_writes(plan: ConfigPlan, facts: ClusterFacts) -> tuple[PlannedWrite, ...]:
    """What applying ``plan`` writes: the fence, the config and the notification (ZooKeeper), or the
    IncrementalAlterConfigs request (AdminClient).

    Raises:
        KafkaRuleError: ZooKeeper path without a controller on a cluster that may run Kafka 3.7.1+.
    """
    if plan.via == VIA_ADMIN:
        return (PlannedWrite("admin", "IncrementalAlterConfigs", _compact(_admin_arguments(plan))),)
    fence = controller_fence(facts, f"{TOPICS} {plan.topic}")
    return (*(() if fence is None else (fence,)), *change_writes(plan.before, dict(plan.after)))


def _admin_arguments(plan: ConfigPlan) -> dict[str, Any]:
    return {
        "resource": {"type": "TOPIC", "name": plan.topic},
        "set": {c.key: c.after for c in plan.changes if c.after is not None},
        "delete": [c.key for c in plan.changes if c.after is None],
    }


def _compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


class ConfigOps(ClusterOps[ChangeAdmin]):
    """Show, plan and apply topic config changes on the cluster behind ``session`` (and ``admin``)."""

    def route(self, facts: ClusterFacts, via: str | None = None) -> Route:
        """The path of a topic config change (``config_route``); the brokers are not asked with ``--via
        zookeeper``."""
        return config_route(None if via == VIA_ZOOKEEPER else self.capabilities.get(facts.brokers), via)

    def stored(self, entity_type: str, name: str) -> StoredConfig:
        """The overrides ZooKeeper holds for ``/config/<type>/<name>``."""
        return read_config(self.session, entity_type, name)

    def show(self, entity_type: str, name: str) -> dict[str, Any]:
        """The overrides in ZooKeeper (``zk_version`` None: no config znode) and, with an AdminClient, the
        configs the brokers report that are not Kafka's defaults, with their source
        (``DYNAMIC_TOPIC_CONFIG``, ``STATIC_BROKER_CONFIG``...): the text and the JSON show the same list."""
        if entity_type == TOPICS and not self.reader.exists(topic_path(name)):
            raise KafkaRuleError(f"Topic '{name}' does not exist.", "UnknownTopicOrPartitionException")
        stored = self.stored(entity_type, name)
        result: dict[str, Any] = {
            "entity": f"{entity_type}/{name}",
            "path": config_path(entity_type, name),
            "overrides": stored.as_dict(),
            "zk_version": stored.zk_version,
        }
        if self.admin is not None and not (entity_type == BROKERS and name == BROKER_DEFAULT):
            lacking = self._lacking_describe()
            if lacking is not None:
                result["described_unknown"] = f"sources unknown: {lacking}"
                return result
            values: list[ConfigValue] = self.admin.describe_config(entity_type, name)
            result["described"] = [d for d in (v.to_json() for v in values) if not d["default"]]
        return result

    def _lacking_describe(self) -> str | None:
        caps = self.capabilities.get(self.reader.facts().brokers)
        return None if caps is None else caps.lacking(DESCRIBE_CONFIGS)

    def plan(self, request: ConfigRequest, via: str | None = None) -> ConfigPlan:
        """Read, check and diff; on the brokers' path they validate too (``validate_only``). ``via``
        (``--via``) forces the path.

        Raises:
            KafkaRuleError: see ``core.configs.plan.plan_change``; the brokers' refusal.
            UsageError: ``--via admin`` where the brokers' path cannot be taken.
        """
        facts = self.reader.facts()
        before = self.stored(TOPICS, request.topic)
        blocked = self.read_only(facts)
        path = self.route(facts, via)
        plan = plan_change(request, before, request.topic in facts.topic_names, path.via, blocked, path.reason)
        if self.admin is not None and plan.via == VIA_ADMIN and blocked is None and plan.changes:
            arguments = _admin_arguments(plan)
            self.admin.alter_config(TOPICS, plan.topic, arguments["set"], arguments["delete"], validate_only=True)
        return plan

    def apply(self, plan: ConfigPlan) -> StoredConfig:
        """Write ``plan`` and return the overrides ZooKeeper holds afterwards.

        Raises:
            ReadOnlyError: read-only mode or a migration.
            ConcurrentChangeError: ``/config/topics/<t>`` changed since the plan (nothing written).
            KzcError: the znode holds something else than the plan after the write.
        """
        facts = self.writable_facts()
        now = self.stored(TOPICS, plan.topic)
        if now.zk_version != plan.before.zk_version:
            raise ConcurrentChangeError(
                f"{config_path(TOPICS, plan.topic)} changed since the plan was made (version "
                f"{plan.before.zk_version}, now {now.zk_version}); nothing was written: make the plan again"
            )
        if self.admin is not None and plan.via == VIA_ADMIN:
            arguments = _admin_arguments(plan)
            self.admin.alter_config(TOPICS, plan.topic, arguments["set"], arguments["delete"])
        else:
            execute(self.session, planned_writes(plan, facts), f"the config change of {plan.topic}")
        stored = self.stored(TOPICS, plan.topic)
        if stored.as_dict() != dict(plan.after):
            raise KzcError(
                f"{config_path(TOPICS, plan.topic)} holds {stored.as_dict()} after the write, not the planned "
                f"{dict(plan.after)}: check the cluster"
            )
        return stored


OpsT = TypeVar("OpsT", bound=ClusterOps[Any])


def open_ops(
    make: Callable[[ZkSession, ChangeAdmin | None, ConnectionSettings, AuditLog | None], OpsT],
    settings: ConnectionSettings,
    admin_timeout: float = 15.0,
    audit: AuditLog | None = None,
) -> AbstractContextManager[OpsT]:
    """``make(session, admin, settings, audit)`` on a fresh session, with the changes' AdminClient when bootstrap
    servers are set (``open_cluster_ops``): the fix commands' one way to reach a cluster."""
    return open_cluster_ops(make, ChangeAdmin, settings, admin_timeout, audit)


def open_config_ops(
    settings: ConnectionSettings, admin_timeout: float = 15.0, audit: AuditLog | None = None
) -> AbstractContextManager[ConfigOps]:
    """A ``ConfigOps`` on a fresh session (``open_ops``)."""
    return open_ops(ConfigOps, settings, admin_timeout, audit)
