"""What ``kzc describe`` shows about a cluster, computed from a snapshot and its health report.

``summarize`` gives a ``ClusterSummary``: cluster id, controller (id, epoch, since when), brokers (id,
endpoints, rack, registered since), topic and partition counts, pending admin work and unhealthy
partition counts. ``to_json`` is the ``--json`` output; the CLI renders the text form.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.human_time import utc_text
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import BrokerRegistration, ClusterId, ControllerInfo, TopicAssignment, Unreadable
from core.kafka.znodes.paths import CLUSTER_ID, CONTROLLER, CONTROLLER_EPOCH
from core.snapshot.deletion import DELETION_INELIGIBLE, QueuedDeletion
from core.snapshot.health import HealthReport, assess, replica_brokers
from core.snapshot.model import BrokerEntry, ClusterSnapshot


@dataclass(frozen=True, slots=True)
class BrokerSummary:
    """One registered broker. ``problem`` is set (and the other fields may be empty) when its
    registration is unreadable; ``broker_epoch`` is the registration's czxid (Kafka 2.2+)."""

    id: int
    endpoints: tuple[str, ...]
    rack: str | None
    registered_since_ms: int
    broker_epoch: int
    registration_version: int | None
    problem: str | None

    def to_json(self) -> dict[str, Any]:
        """The broker as a JSON object."""
        return {
            "id": self.id,
            "endpoints": list(self.endpoints),
            "rack": self.rack,
            "registered_since_ms": self.registered_since_ms,
            "registered_since": utc_text(self.registered_since_ms),
            "broker_epoch": self.broker_epoch,
            "registration_version": self.registration_version,
            "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class ControllerSummary:
    """The active controller; ``broker_id`` is None when there is none (or ``/controller`` is unreadable)."""

    broker_id: int | None
    epoch: int | None
    since_ms: int | None
    kraft: bool
    registered: bool
    problem: str | None

    def to_json(self) -> dict[str, Any]:
        """The controller as a JSON object."""
        return {
            "broker_id": self.broker_id,
            "epoch": self.epoch,
            "since_ms": self.since_ms,
            "since": utc_text(self.since_ms),
            "kraft": self.kraft,
            "registered": self.registered,
            "problem": self.problem,
        }


@dataclass(frozen=True, slots=True)
class PendingWork:
    """Admin work queued in ZooKeeper for the controller (or, for config changes, the brokers)."""

    queued_deletions: tuple[str, ...]
    reassigning_partitions: int
    preferred_elections: int
    isr_change_notifications: int
    log_dir_event_notifications: int
    config_change_notifications: int
    deletions: tuple[QueuedDeletion, ...] = ()  # every marker with why it is stuck (deletion_blockers)

    def to_json(self) -> dict[str, Any]:
        """The pending work as a JSON object."""
        return {
            "topic_deletions": len(self.queued_deletions),
            "queued_deletions": list(self.queued_deletions),
            "deletions": [_deletion_json(d) for d in self.deletions],
            "reassigning_partitions": self.reassigning_partitions,
            "preferred_elections": self.preferred_elections,
            "isr_change_notifications": self.isr_change_notifications,
            "log_dir_event_notifications": self.log_dir_event_notifications,
            "config_change_notifications": self.config_change_notifications,
        }


@dataclass(frozen=True, slots=True)
class HealthCounts:
    """How many partitions each health rule flags (``core.snapshot.health``), and unreadable znodes."""

    offline_partitions: int
    under_replicated_partitions: int
    under_min_isr_partitions: int
    imbalanced_brokers: tuple[int, ...]
    unreadable_znodes: int
    acks_all_refused: tuple[tuple[str, int, int | None, str], ...] = ()  # topic, partition, min ISR, source
    acks_all_unknown_partitions: int = 0
    acks_all_unknown_reason: str | None = None

    @property
    def healthy(self) -> bool:
        """No flagged partition, no imbalanced broker, nothing unreadable."""
        return not (
            self.offline_partitions
            or self.under_replicated_partitions
            or self.under_min_isr_partitions
            or self.imbalanced_brokers
            or self.unreadable_znodes
        )

    def to_json(self) -> dict[str, Any]:
        """The counts as a JSON object."""
        return {
            "offline_partitions": self.offline_partitions,
            "under_replicated_partitions": self.under_replicated_partitions,
            "under_min_isr_partitions": self.under_min_isr_partitions,
            "imbalanced_brokers": list(self.imbalanced_brokers),
            "unreadable_znodes": self.unreadable_znodes,
            "acks_all_refused": [
                {"topic": t, "partition": p, "min_insync_replicas": m, "min_isr_source": source}
                for t, p, m, source in self.acks_all_refused
            ],
            "acks_all_unknown_partitions": self.acks_all_unknown_partitions,
            "acks_all_unknown_reason": self.acks_all_unknown_reason,
        }


@dataclass(frozen=True)
class ClusterSummary:
    """The ``kzc describe`` view of a cluster at one point in time."""

    zookeeper: str
    zxid: int
    taken_at_ms: int
    cluster_id: str | None
    cluster_id_problem: str | None
    controller: ControllerSummary
    brokers: tuple[BrokerSummary, ...]
    topics: int
    partitions: int
    pending: PendingWork
    health: HealthCounts
    kraft_brokers: tuple[int, ...] = ()  # during a migration: running KRaft, alive though not in /brokers/ids
    missing_brokers: tuple[int, ...] = ()  # hold replicas (or lead the controller) but are not registered

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON object (``kzc describe --json``; documented in docs/cli.md)."""
        return {
            "zookeeper": self.zookeeper,
            "zxid": self.zxid,
            "zxid_hex": hex(self.zxid),
            "taken_at_ms": self.taken_at_ms,
            "taken_at": utc_text(self.taken_at_ms),
            "cluster_id": self.cluster_id,
            "cluster_id_problem": self.cluster_id_problem,
            "controller": self.controller.to_json(),
            "brokers": [b.to_json() for b in self.brokers],
            "kraft_brokers": list(self.kraft_brokers),
            "missing_brokers": list(self.missing_brokers),
            "topics": self.topics,
            "partitions": self.partitions,
            "pending": self.pending.to_json(),
            "health": self.health.to_json(),
        }


def summarize(snapshot: ClusterSnapshot, report: HealthReport | None = None) -> ClusterSummary:
    """The describe view of ``snapshot``; ``report`` defaults to ``core.snapshot.health.assess(snapshot)``."""
    report = report or assess(snapshot)
    cluster_id, cluster_problem = _cluster_id(snapshot.cluster_id)
    return ClusterSummary(
        zookeeper=snapshot.zookeeper,
        zxid=snapshot.zxid,
        taken_at_ms=snapshot.taken_at_ms,
        cluster_id=cluster_id,
        cluster_id_problem=cluster_problem,
        controller=controller_summary(snapshot),
        brokers=tuple(broker_summary(b) for b in snapshot.brokers.values()),
        kraft_brokers=tuple(sorted(snapshot.kraft_brokers or ())),
        missing_brokers=tuple(sorted(replica_brokers(snapshot) - snapshot.live_broker_ids())),
        topics=len(snapshot.topics),
        partitions=snapshot.partition_count,
        pending=_pending(snapshot, report.deletions),
        health=HealthCounts(
            offline_partitions=len(report.offline),
            under_replicated_partitions=len(report.under_replicated),
            under_min_isr_partitions=len(report.under_min_isr),
            imbalanced_brokers=tuple(b.broker_id for b in report.imbalanced_brokers),
            unreadable_znodes=len(snapshot.unreadable),
            acks_all_refused=tuple(
                (u.topic, u.partition, u.min_isr, u.min_isr_source) for u in report.under_min_isr if u.has_live_leader
            ),
            acks_all_unknown_partitions=len(report.min_isr_unknown),
            acks_all_unknown_reason=report.min_isr_unknown[0][2] if report.min_isr_unknown else None,
        ),
    )


def _cluster_id(value: ClusterId | Unreadable | None) -> tuple[str | None, str | None]:
    if value is None:
        return None, f"{CLUSTER_ID} is missing (Kafka before 0.10.1, or no broker ever started)"
    if isinstance(value, Unreadable):
        return None, f"{CLUSTER_ID} is unreadable: {value.reason}"
    return value.id, None


def controller_summary(snapshot: ClusterSnapshot) -> ControllerSummary:
    """Who controls the cluster, from ``/controller`` and ``/controller_epoch`` (describe and the console)."""
    epoch = snapshot.controller_epoch if isinstance(snapshot.controller_epoch, int) else None
    problems = []
    if isinstance(snapshot.controller_epoch, Unreadable):
        problems.append(f"{CONTROLLER_EPOCH} is unreadable: {snapshot.controller_epoch.reason}")
    value = snapshot.controller
    if value is None:
        problems.insert(0, "no active controller (/controller is missing)")
        return ControllerSummary(None, epoch, None, False, False, "; ".join(problems))
    if isinstance(value, Unreadable):
        problems.insert(0, f"{CONTROLLER} is unreadable: {value.reason}")
        return ControllerSummary(None, epoch, None, False, False, "; ".join(problems))
    assert isinstance(value, ControllerInfo)
    registered = value.broker_id in snapshot.brokers
    if not registered and not value.is_kraft:
        problems.insert(0, f"controller {value.broker_id} is not a registered broker")
    return ControllerSummary(
        value.broker_id, epoch, value.timestamp_ms, value.is_kraft, registered, "; ".join(problems) or None
    )


def broker_summary(entry: BrokerEntry) -> BrokerSummary:
    """One registered broker from its registration (describe and the console)."""
    registration = entry.registration
    if isinstance(registration, Unreadable):
        return BrokerSummary(
            entry.broker_id, (), None, entry.times.ctime_ms, entry.times.czxid, None, registration.reason
        )
    assert isinstance(registration, BrokerRegistration)
    return BrokerSummary(
        id=entry.broker_id,
        endpoints=tuple(str(e) for e in registration.endpoints),
        rack=registration.rack,
        registered_since_ms=entry.times.ctime_ms,
        broker_epoch=entry.times.czxid,
        registration_version=registration.version,
        problem=None,
    )


def _deletion_json(d: QueuedDeletion) -> dict[str, Any]:
    states: dict[str, int] = {}
    for r in d.replicas:
        states[r.state] = states.get(r.state, 0) + 1
    return {
        "topic": d.topic,
        "queued_since_ms": d.queued_since_ms,
        "topic_exists": d.topic_exists,
        "reasons": [{"code": r.code, "detail": r.detail} for r in d.reasons],
        "replica_states": states,
        "ineligible_brokers": sorted({r.broker for r in d.replicas if r.state == DELETION_INELIGIBLE}),
    }


def _pending(snapshot: ClusterSnapshot, deletions: tuple[QueuedDeletion, ...] = ()) -> PendingWork:
    moving: set[TopicPartition] = set()
    for topic in snapshot.topics.values():
        if isinstance(topic.assignment, TopicAssignment):
            moving.update((topic.name, p) for p in topic.assignment.reassigning_partitions)
    requested = getattr(snapshot.reassignment, "partitions", ())
    moving.update((t, p) for t, p, _ in requested)
    elections = getattr(snapshot.preferred_election, "partitions", ())
    return PendingWork(
        queued_deletions=tuple(snapshot.deletion_markers),
        reassigning_partitions=len(moving),
        preferred_elections=len(elections),
        isr_change_notifications=len(snapshot.isr_change_notifications),
        log_dir_event_notifications=len(snapshot.log_dir_event_notifications),
        config_change_notifications=len(snapshot.config_change_notifications),
        deletions=deletions,
    )
