"""Client quotas, read and changed by the path the cluster's release offers.

- Brokers 2.6+ and a ``--bootstrap-server``: AlterClientQuotas (KIP-546), kzc's own request
  (``core.brokers.client_quotas``; confluent-kafka has none), previewed with ``validateOnly`` so the broker
  checks the keys and values itself, as ``kafka-configs --bootstrap-server --entity-type users|clients`` does.
- Otherwise ZooKeeper, as ``kafka-configs --zookeeper`` wrote (``AdminZkClient.changeUserOrUserClientIdConfig``
  / ``changeClientIdConfig``): the entity's config znode set at the version read, with the ``/config/changes``
  notification, through the one writer topic configs use (``core.configs.zk``).

Either way the plan reads ZooKeeper (the preview's before-state and its znode version, checked again just
before the write), and the keys are checked against the oldest broker's release where kzc can tell it
(``Capabilities.release``). A user's other config entries (its SCRAM credentials) are kept as they are and
never shown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.brokers.apiversions import ALTER_CLIENT_QUOTAS, NoVersion
from core.brokers.capabilities import (
    VIA_ADMIN,
    VIA_ZOOKEEPER,
    Capabilities,
    Route,
    read_capabilities,
    wire_endpoint,
    write_route,
)
from core.brokers.client_quotas import alter_client_quotas, describe_client_quotas
from core.config import PLAINTEXT, ConnectionSettings, KafkaSecurity
from core.configs.zk import StoredConfig, change_writes, read_config
from core.errors import ConcurrentChangeError, ConnectError, KzcError, UsageError
from core.kafka.quotas import (
    DEFAULT,
    QUOTA_KEYS,
    USER_QUOTAS_SINCE,
    EffectiveQuota,
    QuotaEntity,
    desanitize,
    effective_quotas,
    parse_quota,
    precedence,
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
from core.topics.facts import ClusterFacts, TopicStateReader
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


@dataclass(frozen=True)
class QuotaListing:
    """Every quota entity with its quota keys, and where they were read (``DescribeClientQuotas from broker
    1`` or ``ZooKeeper (...)``)."""

    quotas: Mapping[QuotaEntity, Mapping[str, str]]
    source: str


def read_quota_listing(session: ZkSession, settings: ConnectionSettings) -> QuotaListing:
    """``read_quotas`` as one value (the console's quotas tab)."""
    quotas, source = read_quotas(session, settings)
    return QuotaListing(quotas, source)


def read_quotas(session: ZkSession, settings: ConnectionSettings) -> tuple[dict[QuotaEntity, dict[str, str]], str]:
    """Every quota entity and where they were read: DescribeClientQuotas when a ``--bootstrap-server`` is
    given and the brokers serve it (2.6+; what the brokers enforce), else ZooKeeper (``read_all_quotas``).

    Raises:
        ConnectError: ZooKeeper or the broker failed. KafkaRuleError: a config znode is unreadable, or the
            broker answered with an error.
    """
    if settings.bootstrap_servers:
        _, path = read_quota_path(session, settings)
        if path.route.via == VIA_ADMIN and path.broker is not None:
            broker, host, port = path.broker
            try:
                found = describe_client_quotas(host, port, ADMIN_TIMEOUT, f"broker {broker}", path.security)
            except NoVersion as exc:
                raise ConnectError(str(exc)) from exc
            except (OSError, ValueError) as exc:
                raise ConnectError(f"DescribeClientQuotas to broker {broker} ({host}:{port}) failed: {exc}") from exc
            return found, f"DescribeClientQuotas from broker {broker}"
        return read_all_quotas(session), f"ZooKeeper ({path.route.reason.split(':')[0]})"
    return read_all_quotas(session), "ZooKeeper (/config/users, /config/clients)"


def effective(session: ZkSession, user: str, client_id: str) -> list[EffectiveQuota]:
    """The quotas ``user`` with ``client_id`` gets now, and where each comes from (``effective_quotas``):
    only the eight config znodes Kafka's precedence consults are read (``precedence``), whatever the
    number of entities, so a console can ask it on a timer."""
    found: dict[QuotaEntity, dict[str, str]] = {}
    for entity in precedence(user, client_id):
        entity_type, name = entity_location(entity)
        quotas = quota_items(read_config(session, entity_type, name).as_dict())
        if quotas:
            found[entity] = quotas
    return effective_quotas(found, user, client_id)


ADMIN_TIMEOUT = 15.0  # seconds a broker may take to answer a quota request
QUOTA_TOOL = (
    "as kafka-configs --zookeeper did before 2.6 (AdminZkClient.changeUserOrUserClientIdConfig / "
    "changeClientIdConfig: /config/users|clients/<name>, then a /config/changes notification; kzc sets the "
    "config at the version it read)"
)


@dataclass(frozen=True)
class QuotaPath:
    """How a quota change travels: ``route`` (``admin``: AlterClientQuotas, or ``zookeeper``) and, for
    ``admin``, the broker kzc sends it to; ``release`` is the oldest broker's (None: unknown)."""

    route: Route
    broker: tuple[int, str, int] | None = None  # (id, host, port): its listener of ``security``'s protocol
    release: tuple[int, ...] | None = None
    security: KafkaSecurity = PLAINTEXT  # how kzc's request to ``broker`` authenticates


def quota_path(
    capabilities: Capabilities | None,
    brokers: Mapping[int, Any],
    security: KafkaSecurity = PLAINTEXT,
    via: str | None = None,
) -> QuotaPath:
    """The path of a quota change (``write_route``; ``capabilities`` None: no ``--bootstrap-server``).

    AlterClientQuotas when every broker whose ApiVersions are known serves it and one of them has a
    listener of the client's security protocol (``security``, ``core.brokers.capabilities.wire_endpoint``);
    else ZooKeeper, saying why. ``via`` (``--via``) forces a path.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
    """
    release = None if capabilities is None else capabilities.release()
    decided = write_route(capabilities, ALTER_CLIENT_QUOTAS, via, QUOTA_TOOL, QUOTA_TOOL)
    if decided.via == VIA_ZOOKEEPER or capabilities is None:
        return QuotaPath(decided, None, release)
    for entry in capabilities.brokers:
        endpoint = wire_endpoint(brokers.get(entry.broker), security)
        if entry.ranges is not None and ALTER_CLIENT_QUOTAS.key in entry.ranges and endpoint is not None:
            reason = (
                f"every broker serves AlterClientQuotas (Kafka 2.6+): sent to broker {entry.broker} by kzc's own "
                "request (confluent-kafka has no client-quota API); the broker writes ZooKeeper"
            )
            target = (entry.broker, endpoint.host or "127.0.0.1", endpoint.port)
            return QuotaPath(Route(VIA_ADMIN, reason), target, release, security)
    why = capabilities.unknown() or "no broker is registered"
    missing = f"no broker kzc can send AlterClientQuotas to ({why}; none has a {security.protocol} listener)"
    if via == VIA_ADMIN:
        raise UsageError(f"--via admin cannot be taken: {missing}")
    return QuotaPath(Route(VIA_ZOOKEEPER, f"{missing}: written through ZooKeeper, {QUOTA_TOOL}"), None, release)


def read_quota_path(
    session: ZkSession, settings: ConnectionSettings, via: str | None = None
) -> tuple[ClusterFacts, QuotaPath]:
    """The cluster's facts and the path of a quota change (``quota_path``, ``via``: ``--via``): the brokers'
    ApiVersions are asked (kzc's own request, one per broker) for the release even without
    ``--bootstrap-server``."""
    facts = TopicStateReader(session).facts()
    capabilities = read_capabilities(facts.brokers, 5.0, settings.kafka_security)
    asked = capabilities if settings.bootstrap_servers else None
    path = quota_path(asked, facts.brokers, settings.kafka_security, via)
    if path.release is None:
        path = replace(path, release=capabilities.release())
    return facts, path


@dataclass(frozen=True)
class QuotaPlan:
    """A quota change of one entity: the quota keys before and after, and the path it takes."""

    entity: QuotaEntity
    before: StoredConfig
    after: dict[str, str]  # the entity's whole config after the change (other keys kept)
    writes: tuple[PlannedWrite, ...]
    path: QuotaPath = QuotaPath(Route(VIA_ZOOKEEPER, QUOTA_TOOL))

    @property
    def via(self) -> str:
        """``admin`` (AlterClientQuotas) or ``zookeeper``."""
        return self.path.route.via

    @property
    def via_reason(self) -> str:
        """Why this path."""
        return self.path.route.reason

    def request(self) -> tuple[dict[str, str], list[str]]:
        """The quota keys to set and to remove (what AlterClientQuotas carries)."""
        old, new = quota_items(self.before.as_dict()), quota_items(self.after)
        return {k: v for k, v in new.items() if old.get(k) != v}, [k for k in old if k not in new]

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
        via = "AlterClientQuotas" if self.via == VIA_ADMIN else "ZooKeeper"
        lines.append(f"  via {via}: {self.via_reason}")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON (quota keys only)."""
        return {
            "entity": self.entity.to_json(),
            "path": config_path(self.before.entity_type, self.before.name),
            "before": quota_items(self.before.as_dict()),
            "after": quota_items(self.after),
            "zk_version": self.before.zk_version,
            "via": self.via,
            "path_reason": self.via_reason,
            "release_at_least": None if self.path.release is None else ".".join(map(str, self.path.release)),
        }


def parse_quota_items(items: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` items (``kzc quota set``, the console's quota form) as a dict; values are checked later.

    Raises:
        UsageError: an item without ``=``.
    """
    parsed: dict[str, str] = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise UsageError(f"{item}: give KEY=VALUE, e.g. producer_byte_rate=1048576")
        parsed[key.strip()] = value.strip()
    return parsed


def plan_quota(
    session: ZkSession,
    entity: QuotaEntity,
    set_items: Mapping[str, str],
    delete_keys: Sequence[str],
    path: QuotaPath | None = None,
    timeout: float = 15.0,
) -> QuotaPlan:
    """Read the entity's config and plan setting and deleting quota keys (other keys are kept), checked
    against ``path.release``; on the AlterClientQuotas path the broker validates the change too
    (``validateOnly``).

    Raises:
        UsageError: an unknown key, a key the release lacks, a bad value; nothing to do.
        KafkaRuleError: the broker refused the change.
    """
    path = path or QuotaPath(Route(VIA_ZOOKEEPER, QUOTA_TOOL))
    if not set_items and not delete_keys:
        raise UsageError("give quotas to set (KEY=VALUE) or to delete (KEY)")
    for key in delete_keys:
        if key not in QUOTA_KEYS:
            raise UsageError(f"Unknown quota {key!r}: one of {', '.join(QUOTA_KEYS)}")
    if entity.user is not None and path.release is not None and path.release < USER_QUOTAS_SINCE:
        raise UsageError(
            f"user quotas need Kafka 0.10.1+ (KIP-55); the oldest broker runs {'.'.join(map(str, path.release))}"
        )
    values = {key: parse_quota(key, value, path.release) for key, value in set_items.items()}
    entity_type, name = entity_location(entity)
    before = read_config(session, entity_type, name)
    after = {k: v for k, v in before.as_dict().items() if k not in delete_keys}
    after.update(values)
    plan = QuotaPlan(entity, before, after, (), path)
    if plan.via == VIA_ADMIN and plan.changes:
        updates, removes = plan.request()
        _send(plan, updates, removes, True, timeout)
    return plan


def _send(plan: QuotaPlan, updates: Mapping[str, str], removes: Sequence[str], validate: bool, timeout: float) -> None:
    assert plan.path.broker is not None
    broker, host, port = plan.path.broker
    try:
        alter_client_quotas(
            host, port, timeout, plan.entity, updates, removes, validate, f"broker {broker}", plan.path.security
        )
    except NoVersion as exc:
        raise ConnectError(f"{exc}; nothing was sent") from exc
    except (OSError, ValueError) as exc:
        raise ConnectError(f"AlterClientQuotas to broker {broker} ({host}:{port}) failed: {exc}") from exc


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

    def now() -> str:
        return str(quota_items(read_config(session, plan.before.entity_type, plan.before.name).as_dict()) or "none")

    if plan.via == VIA_ADMIN:
        # AlterClientQuotas has no version check: kzc checks the znode it planned from just before sending.
        current = read_config(session, plan.before.entity_type, plan.before.name)
        if current.zk_version != plan.before.zk_version:
            raise ConcurrentChangeError(
                f"the quotas of {plan.entity.describe()} changed since they were read (now: {now()}); nothing was "
                "sent: plan again"
            )
        updates, removes = plan.request()
        _send(plan, updates, removes, False, ADMIN_TIMEOUT)
    else:
        writes = quota_writes(plan, config_fence(facts, f"{plan.before.entity_type} {plan.before.name}"))
        write_checked(session, writes, f"the quotas of {plan.entity.describe()}", now)
    stored = read_config(session, plan.before.entity_type, plan.before.name)
    if not same_quotas(stored.as_dict(), plan.after):
        raise KzcError(f"the config of {plan.entity.describe()} is not the planned one after the write")
    return quota_items(stored.as_dict())


def same_quotas(stored: Mapping[str, str], planned: Mapping[str, str]) -> bool:
    """Whether ``stored`` holds ``planned``: the same keys, quota values equal as numbers (a broker stores
    ``request_percentage=50`` as Java's ``50.0``)."""
    if set(stored) != set(planned):
        return False
    for key, value in planned.items():
        if key in QUOTA_KEYS:
            try:
                if float(stored[key]) != float(value):
                    return False
            except ValueError:
                return False
        elif stored[key] != value:
            return False
    return True


__all__ = [
    "DEFAULT",
    "QuotaEntity",
    "QuotaListing",
    "QuotaPath",
    "QuotaPlan",
    "apply_quota",
    "effective",
    "plan_quota",
    "quota_path",
    "read_all_quotas",
    "read_quota_listing",
    "read_quota_path",
    "read_quotas",
]
