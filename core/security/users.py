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
from dataclasses import dataclass
from typing import Any

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
from core.security.common import config_fence, mutation_guard, write_checked, znode_state
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
    """Setting or deleting SCRAM credentials of one user. ``after`` holds a new credential: it is secret
    (``describe`` and ``to_json`` show only mechanisms and iterations)."""

    user: str
    action: str  # "set" or "delete"
    mechanisms: tuple[str, ...]
    iterations: int | None
    before: StoredConfig
    after: dict[str, str]

    @property
    def changes(self) -> bool:
        """Whether the plan changes anything."""
        return self.after != self.before.as_dict()

    def describe(self) -> list[str]:
        """The preview, without secrets."""
        path = config_path(USER_CONFIG_TYPE, self.before.name)
        had = {c.mechanism: c.iterations for c in credential_infos(self.before.as_dict())}
        lines = [f"SCRAM credentials of user {self.user} ({znode_state(path, self.before.zk_version)}):"]
        for mechanism in self.mechanisms:
            if self.action == "set":
                verb = "replace" if mechanism in had else "create"
                lines.append(f"  {verb} {mechanism} credential (iterations {self.iterations})")
            elif mechanism in had:
                lines.append(f"  delete {mechanism} credential (iterations {had[mechanism]})")
        if not self.changes:
            lines.append("  no change: the user has no such credential")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The plan without secrets."""
        return {
            "user": self.user,
            "action": self.action,
            "mechanisms": list(self.mechanisms),
            "iterations": self.iterations,
            "path": config_path(USER_CONFIG_TYPE, self.before.name),
            "zk_version": self.before.zk_version,
            "before": [c.mechanism for c in credential_infos(self.before.as_dict())],
            "after": [c.mechanism for c in credential_infos(self.after)],
        }


def check_user(user: str) -> str:
    """``user`` when it can name a SCRAM user.

    Raises:
        UsageError: empty, or ``<default>``.
    """
    if not user or user == DEFAULT:
        raise UsageError("give a user name (SCRAM credentials are per user; <default> cannot have one)")
    return user


def plan_set_password(session: ZkWriter, user: str, mechanism: str, password: str, iterations: int) -> CredentialPlan:
    """Read the user's config and plan a new credential for ``password`` (a fresh salt, Kafka's formatter).

    Raises:
        UsageError: bad user, mechanism or iterations, or an empty password.
    """
    check_user(user)
    check_iterations(check_mechanism(mechanism), iterations)
    if not password:
        raise UsageError("the password is empty")
    before = _read(session, user)
    after = before.as_dict()
    after[mechanism] = credential_to_string(generate_credential(mechanism, password, iterations))
    return CredentialPlan(user, "set", (mechanism,), iterations, before, after)


def plan_delete(session: ZkSession, user: str, mechanisms: Sequence[str] = ()) -> CredentialPlan:
    """Plan deleting the user's credentials for ``mechanisms`` (all of them when empty)."""
    check_user(user)
    chosen = tuple(check_mechanism(m) for m in mechanisms) or tuple(MECHANISMS)
    before = _read(session, user)
    after = {k: v for k, v in before.as_dict().items() if k not in chosen}
    return CredentialPlan(user, "delete", chosen, None, before, after)


def _read(session: ZkWriter, user: str) -> StoredConfig:
    return read_config(session, USER_CONFIG_TYPE, sanitize(user))


def credential_writes(plan: CredentialPlan, fence: Sequence[PlannedWrite] = ()) -> tuple[PlannedWrite, ...]:
    """The fence, the user's config and the change notification (their data holds the secret credential:
    show them with ``redacted``)."""
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
