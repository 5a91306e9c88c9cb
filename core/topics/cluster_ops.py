"""What every ``*Ops`` of a fix command holds, written once: the ZooKeeper session, the brokers' AdminClient
(or None), the settings, the state reader, the audit log (the cluster's default one unless given), the brokers'
ApiVersions (read on first use, ``CapabilityCache``), and the read-only refusal each write checks first
(read-only mode, a migration: ``core.topics.guard.read_only_reason``).

``TopicOps``, ``ConfigOps``, ``BrokerConfigOps``, ``ElectionOps`` and ``ReassignOps`` derive from it.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from core.audit import AuditLog
from core.brokers.admin import KafkaAdmin
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Capabilities, CapabilityCache
from core.config import ConnectionSettings, cluster_name, read_only_cause
from core.errors import ReadOnlyError
from core.topics.facts import ClusterFacts, TopicStateReader
from core.topics.guard import read_only_reason
from core.zookeeper.session import ZkSession

AdminT = TypeVar("AdminT", bound=KafkaAdmin)


class ClusterOps(Generic[AdminT]):
    """The wiring of one cluster's operations.

    Args:
        session: a started ``ZkSession`` (kzc always reads the truth from ZooKeeper).
        admin: the brokers' AdminClient, or None for clusters reachable only through ZooKeeper.
        settings: read-only mode, context name and the cluster's name for the audit log.
        audit: where attempts are recorded; the default audit file when None.
        capabilities: the brokers' ApiVersions when already known; read from the brokers on first use when
            None (and there is an AdminClient).
    """

    def __init__(
        self,
        session: ZkSession,
        admin: AdminT | None,
        settings: ConnectionSettings,
        audit: AuditLog | None = None,
        capabilities: Capabilities | None = None,
    ) -> None:
        self.session = session
        self.admin = admin
        self.settings = settings
        self.reader = TopicStateReader(session)
        self.audit = audit or AuditLog(cluster_name(settings))
        self.capabilities = CapabilityCache(
            admin.timeout if admin is not None else None, capabilities, security=settings.kafka_security
        )

    @property
    def via(self) -> str:
        """``admin`` with a ``--bootstrap-server``, else ``zookeeper`` (each plan's ``via`` is the path it
        takes: its ``route``)."""
        return VIA_ADMIN if self.admin is not None else VIA_ZOOKEEPER

    def read_only(self, facts: ClusterFacts, via_admin: bool = False) -> str | None:
        """Why nothing may be applied now (read-only mode, a migration; ``via_admin``: through the brokers), or
        None."""
        return read_only_reason(read_only_cause(self.settings), facts, via_admin=via_admin)

    def writable_facts(self, via_admin: bool = False) -> ClusterFacts:
        """The cluster's facts read now, once nothing forbids a write.

        Raises:
            ReadOnlyError: read-only mode or a migration.
        """
        facts = self.reader.facts()
        reason = self.read_only(facts, via_admin)
        if reason is not None:
            raise ReadOnlyError(reason)
        return facts
