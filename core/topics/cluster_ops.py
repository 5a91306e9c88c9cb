"""What every ``*Ops`` of a fix command holds, written once: the ZooKeeper session, the brokers' AdminClient
(or None), the settings, the state reader, the audit log (the cluster's default one unless given), the brokers'
ApiVersions (read on first use, ``CapabilityCache``), and the read-only refusal each write checks first
(read-only mode, a migration: ``core.topics.guard.read_only_reason``).

``TopicOps``, ``ConfigOps``, ``BrokerConfigOps``, ``ElectionOps`` and ``ReassignOps`` derive from it;
``open_cluster_ops`` is the one way a command opens one on a fresh session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Generic, TypeVar

from core.audit import AuditLog
from core.brokers.admin import KafkaAdmin
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Capabilities, CapabilityCache
from core.config import ConnectionSettings, cluster_name, read_only_cause
from core.errors import ReadOnlyError
from core.topics.facts import ClusterFacts, TopicStateReader
from core.topics.guard import read_only_reason
from core.zookeeper.kafka_root import open_kafka_session, read_cluster_id
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


OpsT = TypeVar("OpsT", bound=ClusterOps[Any])


@contextmanager
def open_cluster_ops(
    make: Callable[[ZkSession, AdminT | None, ConnectionSettings, AuditLog | None], OpsT],
    admin_type: Callable[..., AdminT],
    settings: ConnectionSettings,
    admin_timeout: float = 15.0,
    audit: AuditLog | None = None,
    check_reachable: bool = False,
) -> Iterator[OpsT]:
    """``make(session, admin, settings, audit)`` on a fresh session that holds a Kafka cluster
    (``open_kafka_session``), and an ``admin_type`` AdminClient when bootstrap servers are set (``check_reachable``:
    a wrong ``--bootstrap-server`` fails now, with its cause, not after the timeout). ``audit`` (the default log for
    this cluster when None; the CLI opens it first, so an attempt that fails to connect is recorded too) learns the
    cluster id.

    Raises:
        UsageError: no ZooKeeper connect string.
        ConnectError: ZooKeeper unreachable (or, with ``check_reachable``, the brokers).
    """
    audit = audit or AuditLog(cluster_name(settings))
    with open_kafka_session(settings) as session:
        audit.cluster_id = read_cluster_id(session)
        admin = (
            admin_type(settings.bootstrap_servers, security=settings.kafka_security, timeout=admin_timeout)
            if settings.bootstrap_servers
            else None
        )
        if admin is not None and check_reachable:
            admin.check_reachable()
        yield make(session, admin, settings, audit)
