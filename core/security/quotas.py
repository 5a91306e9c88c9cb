"""Client quotas in ZooKeeper, read and changed as ``kafka-configs --zookeeper --entity-type users|clients``
(``AdminZkClient.changeUserOrUserClientIdConfig`` / ``changeClientIdConfig``): the entity's config znode
set at the version read, with the ``/config/changes`` notification, through the one writer topic configs
use (``core.configs.zk``). A user's other config entries (its SCRAM credentials) are kept as they are and
never shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.config import ConnectionSettings
from core.configs.zk import StoredConfig, change_writes, read_config
from core.errors import KzcError, UsageError
from core.kafka.quotas import (
    DEFAULT,
    QUOTA_KEYS,
    EffectiveQuota,
    QuotaEntity,
    desanitize,
    effective_quotas,
    parse_quota,
    sanitize,
)
from core.kafka.znodes.paths import (
    CLIENT_CONFIG_TYPE,
    USER_CONFIG_TYPE,
    config_path,
    config_type_path,
    quota_entity_path,
    user_clients_path,
)
from core.security.common import config_fence, mutation_guard, write_checked, znode_state
from core.topics.write import PlannedWrite
from core.zookeeper.session import ZkSession


def entity_location(entity: QuotaEntity) -> tuple[str, str]:
    """The (config type, name) of an entity's znode, names sanitised as Kafka does."""
    user = None if entity.user is None else sanitize(entity.user)
    client = None if entity.client_id is None else sanitize(entity.client_id)
    return quota_entity_path(user, client)


def quota_items(config: Mapping[str, str]) -> dict[str, str]:
    """The quota keys of an entity's config (never its SCRAM credentials)."""
    return {k: v for k, v in config.items() if k in QUOTA_KEYS}


def read_all_quotas(session: ZkSession) -> dict[QuotaEntity, dict[str, str]]:
    """Every entity that has a quota: users, users' client ids, client ids (and their ``<default>``s).

    Raises:
        ConnectError: ZooKeeper failed. KafkaRuleError: a config znode is unreadable.
    """
    found: dict[QuotaEntity, dict[str, str]] = {}

    def take(entity: QuotaEntity) -> None:
        entity_type, name = entity_location(entity)
        quotas = quota_items(read_config(session, entity_type, name).as_dict())
        if quotas:
            found[entity] = quotas

    for user in session.read_children(config_type_path(USER_CONFIG_TYPE)) or []:
        take(QuotaEntity(desanitize(user), None))
        for client in session.read_children(user_clients_path(user)) or []:
            take(QuotaEntity(desanitize(user), desanitize(client)))
    for client in session.read_children(config_type_path(CLIENT_CONFIG_TYPE)) or []:
        take(QuotaEntity(None, desanitize(client)))
    return found


def effective(session: ZkSession, user: str, client_id: str) -> list[EffectiveQuota]:
    """The quotas ``user`` with ``client_id`` gets now, and where each comes from (``effective_quotas``)."""
    return effective_quotas(read_all_quotas(session), user, client_id)


@dataclass(frozen=True)
class QuotaPlan:
    """A quota change of one entity: the quota keys before and after, and the writes."""

    entity: QuotaEntity
    before: StoredConfig
    after: dict[str, str]  # the entity's whole config after the change (other keys kept)
    writes: tuple[PlannedWrite, ...]

    @property
    def changes(self) -> bool:
        """Whether the plan changes anything."""
        return self.after != self.before.as_dict()

    def describe(self) -> list[str]:
        """The preview: each quota key's value before and after."""
        path = config_path(self.before.entity_type, self.before.name)
        lines = [f"quotas of {self.entity.describe()} ({znode_state(path, self.before.zk_version)}):"]
        old, new = quota_items(self.before.as_dict()), quota_items(self.after)
        for key in QUOTA_KEYS:
            if key in old or key in new:
                mark = " " if old.get(key) == new.get(key) else "~"
                lines.append(f"  {mark} {key}: {old.get(key, '(none)')} -> {new.get(key, '(none)')}")
        if not self.changes:
            lines.append("  no change")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON (quota keys only)."""
        return {
            "entity": self.entity.to_json(),
            "path": config_path(self.before.entity_type, self.before.name),
            "before": quota_items(self.before.as_dict()),
            "after": quota_items(self.after),
            "zk_version": self.before.zk_version,
        }


def plan_quota(
    session: ZkSession, entity: QuotaEntity, set_items: Mapping[str, str], delete_keys: Sequence[str]
) -> QuotaPlan:
    """Read the entity's config and plan setting and deleting quota keys (other keys are kept).

    Raises:
        UsageError: an unknown key or a bad value; nothing to do.
    """
    if not set_items and not delete_keys:
        raise UsageError("give quotas to set (KEY=VALUE) or to delete (KEY)")
    for key in delete_keys:
        if key not in QUOTA_KEYS:
            raise UsageError(f"Unknown quota {key!r}: one of {', '.join(QUOTA_KEYS)}")
    values = {key: parse_quota(key, value, None) for key, value in set_items.items()}
    entity_type, name = entity_location(entity)
    before = read_config(session, entity_type, name)
    after = {k: v for k, v in before.as_dict().items() if k not in delete_keys}
    after.update(values)
    return QuotaPlan(entity, before, after, ())


def quota_writes(plan: QuotaPlan, fence: Sequence[PlannedWrite]) -> tuple[PlannedWrite, ...]:
    """The fence, the entity's config and the change notification."""
    return (*fence, *change_writes(plan.before, plan.after))


def apply_quota(session: ZkSession, settings: ConnectionSettings, plan: QuotaPlan) -> dict[str, str]:
    """Write ``plan``; return the entity's quotas as read back.

    Raises:
        ReadOnlyError: read-only mode or a migration.
        ConcurrentChangeError: the entity's config changed since the plan (nothing written).
    """
    facts = mutation_guard(session, settings)
    writes = quota_writes(plan, config_fence(facts, f"{plan.before.entity_type} {plan.before.name}"))

    def now() -> str:
        return str(quota_items(read_config(session, plan.before.entity_type, plan.before.name).as_dict()) or "none")

    write_checked(session, writes, f"the quotas of {plan.entity.describe()}", now)
    stored = read_config(session, plan.before.entity_type, plan.before.name)
    if stored.as_dict() != plan.after:
        raise KzcError(f"the config of {plan.entity.describe()} is not the planned one after the write")
    return quota_items(stored.as_dict())


__all__ = ["DEFAULT", "QuotaEntity", "QuotaPlan", "apply_quota", "effective", "plan_quota", "read_all_quotas"]
