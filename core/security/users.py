"""SCRAM users in ZooKeeper, as ``kafka-configs --zookeeper --entity-type users --alter --add-config
'SCRAM-SHA-256=[iterations=N,password=...]'`` writes them (0.10.2+; the only way before 2.7's
AlterUserScramCredentials, and the way to create the first credentials before any broker runs).

The credential (``core.kafka.scram``) is an entry of ``/config/users/<user>``, set at the version read
with the ``/config/changes`` notification through the one config writer (``core.configs.zk``). Nothing
here returns, logs or describes a salt, key or password: plans and listings carry mechanisms and
iterations only, and the dry run lists the writes without their data.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from core.brokers.apiversions import ALTER_USER_SCRAM_CREDENTIALS, DESCRIBE_USER_SCRAM_CREDENTIALS
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Capabilities, CapabilityCache, Route, write_route
from core.brokers.scram import ScramAdmin
from core.config import ConnectionSettings
from core.configs.zk import StoredConfig, ZkWriter, change_writes, read_config
from core.errors import KzcError, UsageError
from core.kafka.quotas import DEFAULT, desanitize, sanitize
from core.kafka.scram import (
    MECHANISMS,
    ScramCredentialInfo,
    check_iterations,
    check_mechanism,
    credential_infos,
    credential_to_string,
    generate_credential,
)
from core.kafka.znodes.paths import USER_CONFIG_TYPE, config_path, config_type_path
from core.security.common import (
    around_the_brokers,
    config_fence,
    mutation_guard,
    write_capabilities,
    write_checked,
    znode_state,
)
from core.topics.facts import TopicStateReader
from core.topics.write import PlannedWrite
from core.zookeeper.session import ZkSession


@dataclass(frozen=True)
class ScramUser:
    """A user with SCRAM credentials: the mechanisms and their iterations (never the keys)."""

    name: str
    credentials: tuple[ScramCredentialInfo, ...]

    def to_json(self) -> dict[str, Any]:
        """``{"user", "credentials": [{"mechanism", "iterations"}]}``."""
        credentials = [{"mechanism": c.mechanism, "iterations": c.iterations} for c in self.credentials]
        return {"user": self.name, "credentials": credentials}


ZK_TOOL = "as kafka-configs --zookeeper --entity-type users --alter writes"
OLD_ZK_TOOL = "as kafka-configs --zookeeper --entity-type users did before 2.7"
USERS_NOTE = "ZooKeeper (/config/users), as kafka-configs --zookeeper --describe --entity-type users reads"


@dataclass(frozen=True)
class UserListing:
    """The SCRAM users and where they were read: ``path`` ``zookeeper`` or ``DescribeUserScramCredentials``."""

    users: tuple[ScramUser, ...]
    path: str
    path_reason: str


def read_users(session: ZkSession, settings: ConnectionSettings, timeout: float = 15.0) -> UserListing:
    """Every SCRAM user: through DescribeUserScramCredentials when there are bootstrap servers and every
    registered broker serves it (2.7+), else from ZooKeeper (``list_users``); ``path`` and ``path_reason`` say
    which and why.

    Raises:
        ConnectError: ZooKeeper failed.
    """
    if not settings.bootstrap_servers:
        return UserListing(tuple(list_users(session)), VIA_ZOOKEEPER, f"no --bootstrap-server: {USERS_NOTE}")
    capabilities = CapabilityCache(timeout, security=settings.kafka_security).get(
        TopicStateReader(session).facts().brokers
    )
    lacking = capabilities.lacking(DESCRIBE_USER_SCRAM_CREDENTIALS) if capabilities is not None else None
    if lacking is not None:
        return UserListing(tuple(list_users(session)), VIA_ZOOKEEPER, f"{lacking}: {USERS_NOTE}")
    admin = ScramAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=timeout)
    try:
        described = admin.describe_credentials()
    except KzcError as exc:
        reason = f"DescribeUserScramCredentials failed ({exc}): {USERS_NOTE}"
        return UserListing(tuple(list_users(session)), VIA_ZOOKEEPER, reason)
    finally:
        admin.close()
    users = tuple(ScramUser(name, tuple(infos)) for name, infos in sorted(described.items()) if infos)
    reason = "DescribeUserScramCredentials through the brokers (every broker serves it)"
    return UserListing(users, DESCRIBE_USER_SCRAM_CREDENTIALS.name, reason)


def list_users(session: ZkSession) -> list[ScramUser]:
    """Every user of ``/config/users`` with at least one SCRAM credential.

    Raises:
        ConnectError: ZooKeeper failed. KafkaRuleError: a user's config is unreadable.
    """
    users = []
    for name in sorted(session.read_children(config_type_path(USER_CONFIG_TYPE)) or []):
        if name == DEFAULT:
            continue
        infos = credential_infos(read_config(session, USER_CONFIG_TYPE, name).as_dict())
        if infos:
            users.append(ScramUser(desanitize(name), tuple(infos)))
    return users


@dataclass(frozen=True)
class CredentialPlan:
    """Setting or deleting SCRAM credentials of one user. ``after`` (ZooKeeper's path) holds a new credential and
    ``password`` (the brokers' path) the password: both are secret (``describe`` and ``to_json`` show only
    mechanisms and iterations, and neither is in the repr).

    On the brokers' path ``before`` is None and ``described`` is what DescribeUserScramCredentials reported."""

    user: str
    action: str  # "set" or "delete"
    mechanisms: tuple[str, ...]
    iterations: int | None
    before: StoredConfig | None
    after: dict[str, str] = field(repr=False)
    via: str = VIA_ZOOKEEPER
    via_reason: str | None = None
    described: tuple[ScramCredentialInfo, ...] = ()
    password: str | None = field(default=None, repr=False, compare=False)

    @property
    def had(self) -> dict[str, int | None]:
        """The user's credentials before: mechanism -> iterations."""
        infos = credential_infos(self.before.as_dict()) if self.before is not None else self.described
        return {c.mechanism: c.iterations for c in infos}

    @property
    def sent(self) -> tuple[str, ...]:
        """On the brokers' path, the mechanisms AlterUserScramCredentials upserts (``set``) or deletes."""
        if self.via != VIA_ADMIN:
            return ()
        return self.mechanisms if self.action == "set" else tuple(m for m in self.mechanisms if m in self.had)

    @property
    def changes(self) -> bool:
        """Whether the plan changes anything."""
        if self.before is None:
            return bool(self.sent)
        return self.after != self.before.as_dict()

    @property
    def after_mechanisms(self) -> list[str]:
        """The user's mechanisms once the plan is applied."""
        if self.action == "set":
            return sorted(set(self.had) | set(self.mechanisms))
        return sorted(m for m in self.had if m not in self.mechanisms)

    def describe(self) -> list[str]:
        """The preview, without secrets: the change, the path and what is sent on it."""
        if self.before is None:
            where = "as DescribeUserScramCredentials reports them"
        else:
            where = znode_state(config_path(USER_CONFIG_TYPE, self.before.name), self.before.zk_version)
        had = self.had
        lines = [f"SCRAM credentials of user {self.user} ({where}):"]
        for mechanism in self.mechanisms:
            if self.action == "set":
                verb = "replace" if mechanism in had else "create"
                lines.append(f"  {verb} {mechanism} credential (iterations {self.iterations})")
            elif mechanism in had:
                lines.append(f"  delete {mechanism} credential (iterations {had[mechanism]})")
        if not self.changes:
            lines.append("  no change: the user has no such credential")
        via = f"the brokers ({ALTER_USER_SCRAM_CREDENTIALS.name})" if self.via == VIA_ADMIN else "ZooKeeper"
        lines.append(f"via {via}" + (f": {self.via_reason}" if self.via_reason else ""))
        for request in self.requests():
            if request["kind"] == "upsertion":
                lines.append(
                    f"  sends {ALTER_USER_SCRAM_CREDENTIALS.name}: upsertion (user={self.user}, mechanism="
                    f"{request['mechanism']}, iterations={request['iterations']}, a fresh salt and the salted "
                    "password computed here; the password itself is not sent)"
                )
            else:
                lines.append(
                    f"  sends {ALTER_USER_SCRAM_CREDENTIALS.name}: deletion (user={self.user}, "
                    f"mechanism={request['mechanism']})"
                )
        return lines

    def requests(self) -> list[dict[str, Any]]:
        """What AlterUserScramCredentials carries, without its secrets (the brokers' path; else empty)."""
        if self.action == "set":
            return [{"api": ALTER_USER_SCRAM_CREDENTIALS.name, "kind": "upsertion", "user": self.user, "mechanism": m,
                     "iterations": self.iterations} for m in self.sent]  # fmt: skip
        return [
            {"api": ALTER_USER_SCRAM_CREDENTIALS.name, "kind": "deletion", "user": self.user, "mechanism": m}
            for m in self.sent
        ]

    def to_json(self) -> dict[str, Any]:
        """The plan without secrets."""
        return {
            "user": self.user,
            "action": self.action,
            "mechanisms": list(self.mechanisms),
            "iterations": self.iterations,
            "znode": None if self.before is None else config_path(USER_CONFIG_TYPE, self.before.name),
            "zk_version": None if self.before is None else self.before.zk_version,
            "before": sorted(self.had),
            "after": self.after_mechanisms,
            "via": self.via,
            "path": self.via_reason,
            "requests": self.requests(),
        }


def user_route(capabilities: Capabilities | None, via: str | None = None) -> Route:
    """The path of a SCRAM credential change (``write_route``): the brokers (AlterUserScramCredentials, 2.7+)
    or ZooKeeper. ``capabilities``: ``write_capabilities``.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
    """
    return write_route(capabilities, ALTER_USER_SCRAM_CREDENTIALS, via, ZK_TOOL, OLD_ZK_TOOL)


def choose_user_path(
    session: ZkWriter, settings: ConnectionSettings | None, via: str | None = None, timeout: float = 15.0
) -> Route:
    """``user_route`` for this cluster (``write_capabilities``; ZooKeeper without ``settings``).

    Raises:
        UsageError: see ``user_route``.
    """
    return user_route(write_capabilities(session, settings, via, timeout), via)


def _described(settings: ConnectionSettings, user: str, timeout: float) -> tuple[ScramCredentialInfo, ...]:
    """``user``'s credentials as DescribeUserScramCredentials reports them.

    Raises:
        KzcError: the brokers refused or did not answer (``around_the_brokers``).
    """
    assert settings.bootstrap_servers
    admin = ScramAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=timeout)
    try:
        return tuple(admin.describe_credentials([user]).get(user, []))
    except KzcError as exc:
        raise around_the_brokers(exc, ZK_TOOL) from None
    finally:
        admin.close()


def check_user(user: str) -> str:
    """``user`` when it can name a SCRAM user.

    Raises:
        UsageError: empty, or ``<default>``.
    """
    if not user or user == DEFAULT:
        raise UsageError("give a user name (SCRAM credentials are per user; <default> cannot have one)")
    return user


def plan_set_password(
    session: ZkWriter, user: str, mechanism: str, password: str, iterations: int,
    settings: ConnectionSettings | None = None, via: str | None = None, timeout: float = 15.0,
    path: Route | None = None,
) -> CredentialPlan:  # fmt: skip
    """On ``path`` (else the one ``choose_user_path`` chooses), read the user's credentials on it and
    plan a new credential for ``password`` (ZooKeeper: a fresh salt, Kafka's formatter; the brokers' path keeps
    the password for librdkafka to salt and hash).

    Raises:
        UsageError: bad user, mechanism or iterations, or an empty password.
        KzcError: the brokers refused DescribeUserScramCredentials or did not answer.
    """
    check_user(user)
    check_iterations(check_mechanism(mechanism), iterations)
    if not password:
        raise UsageError("the password is empty")
    path = path or choose_user_path(session, settings, via, timeout)
    if path.via == VIA_ADMIN:
        assert settings is not None
        described = _described(settings, user, timeout)
        return CredentialPlan(
            user, "set", (mechanism,), iterations, None, {}, path.via, path.reason, described, password
        )
    before = _read(session, user)
    after = before.as_dict()
    after[mechanism] = credential_to_string(generate_credential(mechanism, password, iterations))
    return CredentialPlan(user, "set", (mechanism,), iterations, before, after, path.via, path.reason)


def plan_delete(
    session: ZkSession, user: str, mechanisms: Sequence[str] = (), settings: ConnectionSettings | None = None,
    via: str | None = None, timeout: float = 15.0, path: Route | None = None,
) -> CredentialPlan:  # fmt: skip
    """Plan deleting the user's credentials for ``mechanisms`` (all of them when empty), on the path
    ``user_route`` chooses.

    Raises:
        KzcError: the brokers refused DescribeUserScramCredentials or did not answer.
    """
    check_user(user)
    chosen = tuple(check_mechanism(m) for m in mechanisms) or tuple(MECHANISMS)
    path = path or choose_user_path(session, settings, via, timeout)
    if path.via == VIA_ADMIN:
        assert settings is not None
        described = _described(settings, user, timeout)
        return CredentialPlan(user, "delete", chosen, None, None, {}, path.via, path.reason, described)
    before = _read(session, user)
    after = {k: v for k, v in before.as_dict().items() if k not in chosen}
    return CredentialPlan(user, "delete", chosen, None, before, after, path.via, path.reason)


def _read(session: ZkWriter, user: str) -> StoredConfig:
    return read_config(session, USER_CONFIG_TYPE, sanitize(user))


def credential_writes(plan: CredentialPlan, fence: Sequence[PlannedWrite] = ()) -> tuple[PlannedWrite, ...]:
    """The fence, the user's config and the change notification (their data holds the secret credential:
    show them with ``redacted``); none on the brokers' path."""
    if plan.before is None:
        return ()
    return (*fence, *change_writes(plan.before, plan.after))


def redacted(writes: Sequence[PlannedWrite]) -> list[dict[str, Any]]:
    """The writes for a dry run: op, path and version, the config's data left out."""
    shown = []
    for write in writes:
        entry = write.to_json()
        if write.path.startswith(config_type_path(USER_CONFIG_TYPE)):
            entry["data"] = "(the user's config with the new credential: not shown)"
        shown.append(entry)
    return shown


def apply_credentials(
    session: ZkSession, settings: ConnectionSettings, plan: CredentialPlan
) -> list[ScramCredentialInfo]:
    """Write ``plan``; return the user's credentials as read back (mechanisms and iterations).

    Raises:
        ReadOnlyError: read-only mode or a migration.
        ConcurrentChangeError: the user's config changed since the plan (nothing written).
    """
    facts = mutation_guard(session, settings)
    if plan.before is None:
        return _apply_through_brokers(settings, plan)
    write_credentials(session, plan, config_fence(facts, f"users {plan.before.name}"))
    stored = _read(session, plan.user)
    if stored.as_dict() != plan.after:
        raise KzcError(f"the config of user {plan.user} is not the planned one after the write: check the cluster")
    return credential_infos(stored.as_dict())


def write_credentials(session: ZkWriter, plan: CredentialPlan, fence: Sequence[PlannedWrite] = ()) -> None:
    """The write of a credential plan (``apply_credentials`` on a running cluster; the sandbox before its
    brokers start, when no controller can fence it).

    Raises:
        ConcurrentChangeError: the user's config changed since the plan (nothing written).
    """

    def now() -> str:
        return ", ".join(c.mechanism for c in credential_infos(_read(session, plan.user).as_dict())) or "none"

    what = f"the SCRAM credentials of user {plan.user}"
    write_checked(session, credential_writes(plan, fence), what, now)


def _apply_through_brokers(
    settings: ConnectionSettings, plan: CredentialPlan, timeout: float = 15.0
) -> list[ScramCredentialInfo]:
    """AlterUserScramCredentials for ``plan.sent``, then the user's credentials as DescribeUserScramCredentials
    reports them (the broker that took the request wrote ZooKeeper before answering, and Describe reads it).

    Raises:
        KzcError: the brokers refused or did not answer (``around_the_brokers``: nothing written through
            ZooKeeper), or report other mechanisms afterwards.
    """
    assert settings.bootstrap_servers
    admin = ScramAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=timeout)
    try:
        for mechanism in plan.sent if plan.action == "set" else ():
            assert plan.password is not None and plan.iterations is not None
            admin.upsert_credential(plan.user, mechanism, plan.iterations, plan.password)
        if plan.action == "delete":
            admin.delete_credentials(plan.user, plan.sent)
        found = admin.describe_credentials([plan.user]).get(plan.user, [])
    except KzcError as exc:
        raise around_the_brokers(exc, ZK_TOOL) from None
    finally:
        admin.close()
    if sorted(c.mechanism for c in found) != plan.after_mechanisms:
        raise KzcError(
            f"the brokers accepted {ALTER_USER_SCRAM_CREDENTIALS.name} but report user {plan.user} with "
            f"{', '.join(c.mechanism for c in found) or 'no credential'}: check with kzc user list"
        )
    return found
