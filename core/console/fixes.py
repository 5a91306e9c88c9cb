"""What the console's fix screens need from core: their capabilities and the real backends.

Each screen receives its capability when it is built: ``MoveOffActions`` (implemented by
``ReassignActions`` through ``core.reassign.ops``), ``ElectionActions`` (``ElectionBackend``,
``core.elections.ops``) and ``ConfigActions`` (``ConfigBackend``, ``core.configs.ops``), so the console and
the CLI plan, write and follow exactly alike. Every apply is audited as the CLI's is, with the before-state.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.audit import AuditLog
from core.brokers.changes import ChangeAdmin
from core.config import ConnectionSettings
from core.configs.broker import (
    BrokerConfigOps,
    BrokerConfigPlan,
    BrokerConfigRequest,
    BrokerConfigsView,
    entity_label,
    masked,
    read_broker_configs,
)
from core.configs.ops import ConfigOps
from core.configs.plan import ConfigPlan, ConfigRequest
from core.configs.zk import BROKERS, TOPICS, StoredConfig, read_config
from core.elections.ops import ElectionOps
from core.elections.plan import Candidate, PreferredPlan
from core.kafka.topic_partition import TopicPartition
from core.reassign.ops import ReassignOps
from core.reassign.plan import ReassignPlan
from core.reassign.progress import ReassignProgress
from core.zookeeper.session import ZkSession


@dataclass(frozen=True)
class FixActions:
    """The fix actions of one live cluster, each the capability of its screen."""

    move_off: MoveOffActions
    elections: ElectionActions
    configs: ConfigActions
    broker_configs: BrokerConfigActions | None = None

    @classmethod
    def of(
        cls,
        session: ZkSession,
        settings: ConnectionSettings,
        audit: AuditLog,
        config_read: Callable[[StoredConfig], None] | None = None,
    ) -> FixActions:
        """The real ones for a connected session (the brokers' AdminClient when bootstrap servers are set);
        ``config_read`` receives each topic config read back after a write."""
        admin = (
            ChangeAdmin(settings.bootstrap_servers, security=settings.kafka_security)
            if settings.bootstrap_servers
            else None
        )
        return cls(
            ReassignActions(session, admin, settings, audit),
            ElectionBackend(session, admin, settings, audit),
            ConfigBackend(session, admin, settings, audit, config_read),
            BrokerConfigBackend(session, admin, settings, audit),
        )


class MoveOffActions(Protocol):
    """Plan, apply and follow "move everything off these brokers" (blocking: call from a worker)."""

    def plan_move_off(self, brokers: Sequence[int]) -> ReassignPlan:
        """The minimal-movement plan over every topic (``KzcError`` when it cannot be planned)."""
        ...

    def apply(self, plan: ReassignPlan, throttle: int | None) -> None:
        """Start exactly ``plan`` (refusals raise ``KzcError`` with the user's message)."""
        ...

    def progress(self, plan: ReassignPlan) -> ReassignProgress:
        """One look at the plan's partitions."""
        ...

    def finish(self, plan: ReassignPlan) -> list[str]:
        """Remove the throttles once every partition is done; the entities changed."""
        ...


class ReassignActions:
    """``MoveOffActions`` on a live cluster, every apply audited with the before-state."""

    def __init__(
        self, session: ZkSession, admin: ChangeAdmin | None, settings: ConnectionSettings, audit: AuditLog
    ) -> None:
        self.ops = ReassignOps(session, admin, settings, audit)
        self.audit = audit

    def plan_move_off(self, brokers: Sequence[int]) -> ReassignPlan:
        return self.ops.plan_move_off(brokers)

    def apply(self, plan: ReassignPlan, throttle: int | None) -> None:
        before = {"partitions": [m.to_json() for m in plan.moves], "metrics": plan.metrics()}
        arguments = {"move_off": list(plan.brokers), "throttle": throttle, "from": "console"}
        with self.audit.attempt("reassign apply", arguments) as attempt:
            self.ops.apply(plan, throttle)
            path = self.ops.path_reason(throttle, self.ops.reader.facts())
            attempt.applied(f"started the reassignment of {len(plan.moves)} partition(s)", before=before, path=path)

    def progress(self, plan: ReassignPlan) -> ReassignProgress:
        return self.ops.progress(plan)

    def finish(self, plan: ReassignPlan) -> list[str]:
        topics = sorted({m.topic for m in plan.moves})
        with self.audit.attempt("reassign clear-throttles", {"topics": topics, "from": "console"}) as attempt:
            cleared = self.ops.clear_throttles(topics)
            attempt.applied(f"removed throttles from {len(cleared)} entities", entities=cleared)
        return cleared


class ElectionActions(Protocol):
    """Preferred leader elections (blocking: call from a worker)."""

    def plan_preferred(self, topic: str | None) -> PreferredPlan:
        """Which partitions of ``topic`` (None: every topic) are sent, and why the others are skipped."""
        ...

    def apply_preferred(self, plan: PreferredPlan) -> dict[TopicPartition, str | None]:
        """Send the election; each partition's error or None."""
        ...

    def look(self, plan: PreferredPlan) -> list[Candidate]:
        """The sent partitions now."""
        ...


class ElectionBackend:
    """``ElectionActions`` on a live cluster, audited."""

    def __init__(
        self, session: ZkSession, admin: ChangeAdmin | None, settings: ConnectionSettings, audit: AuditLog
    ) -> None:
        self.ops = ElectionOps(session, admin, settings, audit)
        self.audit = audit

    def plan_preferred(self, topic: str | None) -> PreferredPlan:
        return self.ops.plan_preferred(topic)

    def apply_preferred(self, plan: PreferredPlan) -> dict[TopicPartition, str | None]:
        before = [c.to_json() for c in plan.sent]
        with self.audit.attempt("elect preferred", {"partitions": len(plan.sent), "from": "console"}) as attempt:
            outcome = self.ops.apply_preferred(plan)
            attempt.applied(
                f"preferred election sent for {len(plan.sent)} partition(s)",
                before=before,
                via=plan.via,
                path=plan.via_reason,
            )
        return outcome

    def look(self, plan: PreferredPlan) -> list[Candidate]:
        return self.ops.look(plan)


class ConfigActions(Protocol):
    """Topic config changes (blocking: call from a worker)."""

    def stored(self, topic: str) -> StoredConfig:
        """The overrides ZooKeeper holds."""
        ...

    def plan(self, request: ConfigRequest) -> ConfigPlan:
        """Check and diff (``KzcError`` with Kafka's message when refused)."""
        ...

    def apply(self, plan: ConfigPlan) -> StoredConfig:
        """Write exactly ``plan``; the overrides afterwards."""
        ...


class ConfigBackend:
    """``ConfigActions`` on a live cluster, audited; what a write left is read back and handed to
    ``config_read`` (the console's live snapshot), so every view shows it at once."""

    def __init__(
        self,
        session: ZkSession,
        admin: ChangeAdmin | None,
        settings: ConnectionSettings,
        audit: AuditLog,
        config_read: Callable[[StoredConfig], None] | None = None,
    ) -> None:
        self.ops = ConfigOps(session, admin, settings, audit)
        self.audit = audit
        self.config_read = config_read

    def stored(self, topic: str) -> StoredConfig:
        return self.ops.stored(TOPICS, topic)

    def plan(self, request: ConfigRequest) -> ConfigPlan:
        return self.ops.plan(request)

    def apply(self, plan: ConfigPlan) -> StoredConfig:
        arguments = {**plan.request.to_json(), "from": "console"}
        with self.audit.attempt("config set", arguments) as attempt:
            stored = self.ops.apply(plan)
            attempt.applied(
                f"changed the config of {plan.topic}",
                before=plan.before.to_json(),
                after=stored.as_dict(),
                via=plan.via,
                path=plan.via_reason,
            )
        if self.config_read is not None:
            self.config_read(stored)  # ConfigOps.apply read it back from ZooKeeper after the write
        return stored


class BrokerConfigActions(Protocol):
    """Dynamic broker config changes, per broker (an id) or the cluster default (``<default>``); blocking."""

    def stored(self, entity: str) -> StoredConfig:
        """The overrides ZooKeeper holds."""
        ...

    def plan(self, request: BrokerConfigRequest) -> BrokerConfigPlan:
        """Check and diff (``KzcError`` with Kafka's message when refused)."""
        ...

    def apply(self, plan: BrokerConfigPlan) -> StoredConfig:
        """Write exactly ``plan``; the overrides afterwards."""
        ...

    def view(self, broker: int) -> BrokerConfigsView:
        """The broker's configs now (ZooKeeper's overrides, the brokers' report where they give one)."""
        ...


class BrokerConfigBackend:
    """``BrokerConfigActions`` on a live cluster, audited as ``kzc config set --broker`` is."""

    def __init__(
        self, session: ZkSession, admin: ChangeAdmin | None, settings: ConnectionSettings, audit: AuditLog
    ) -> None:
        self.ops = BrokerConfigOps(session, admin, settings, audit)
        self.audit = audit

    def stored(self, entity: str) -> StoredConfig:
        return read_config(self.ops.session, BROKERS, entity)

    def plan(self, request: BrokerConfigRequest) -> BrokerConfigPlan:
        return self.ops.plan(request)

    def apply(self, plan: BrokerConfigPlan) -> StoredConfig:
        arguments = {**plan.request.to_json(), "from": "console"}
        with self.audit.attempt("config set broker", arguments) as attempt:
            stored = self.ops.apply(plan)
            attempt.applied(
                f"changed the dynamic config of {entity_label(plan.entity)}",
                before=masked(dict(plan.before.config)),
                after=masked(dict(stored.config)),
                via=plan.via,
                path=plan.via_reason,
            )
        return stored

    def view(self, broker: int) -> BrokerConfigsView:
        return read_broker_configs(self.ops, broker)
