"""Cluster health derived from a ``ClusterSnapshot``: pure functions, no I/O, small frozen results.

What each rule counts, and whose definition it follows:

- **Offline** (``kafka-topics --unavailable-partitions``; the controller's OfflinePartitionsCount): no
  leader a client can reach. The state znode is missing or unreadable, the leader is -1 (or -2), or the
  leader is not a registered broker. The controller's metric leaves out topics queued for deletion;
  here they are kept and flagged ``queued_for_deletion``.
- **Under-replicated** (``--under-replicated-partitions``, 2.4+ TopicCommand): fewer in-sync replicas
  than the replication factor, which during a reassignment is ``replicas - removing``. ISR members whose
  broker is not registered are not counted as in sync: the controller drops them as soon as it sees the
  broker go, so this only differs from Kafka's metadata while the controller lags or is absent.
- **Under min ISR** (``--under-min-isr-partitions``): no live leader, or fewer live in-sync replicas than
  ``min.insync.replicas``. That value is, as a broker resolves it: the topic override in
  ``/config/topics/<t>``, else the leader's dynamic per-broker config ``/config/brokers/<id>``, else the
  cluster-wide dynamic default ``/config/brokers/<default>``, else the static broker default the caller
  gives (default 1, Kafka's default).
- **Preferred-leader imbalance** (``KafkaController.checkAndTriggerAutoLeaderRebalance``): per broker, of
  the partitions whose first assigned replica it is (topics queued for deletion left out), the share whose
  current leader is another broker; partitions without a state count only in the denominator. The
  controller triggers elections above ``leader.imbalance.per.broker.percentage`` (default 10).
- **Deletion queue** (zk-layout §7.4 and §9.8): each ``/admin/delete_topics`` marker with the reasons
  visible in ZooKeeper why it may be stuck.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from core.kafka.znodes import BrokerRegistration, EntityConfig, PartitionState, TopicAssignment, Unreadable
from core.snapshot.model import ClusterSnapshot, TopicEntry

DEFAULT_MIN_INSYNC_REPLICAS = 1
DEFAULT_IMBALANCE_PERCENT = 10  # leader.imbalance.per.broker.percentage
MIN_ISR_KEY = "min.insync.replicas"
DEFAULT_ENTITY = "<default>"
_JAVA_INT = re.compile(r"[+-]?[0-9]{1,10}")


@dataclass(frozen=True, slots=True)
class OfflinePartition:
    """A partition without a reachable leader; ``leader`` is None when there is no readable state."""

    topic: str
    partition: int
    leader: int | None
    reason: str
    queued_for_deletion: bool


@dataclass(frozen=True, slots=True)
class UnderReplicatedPartition:
    """A partition with fewer live in-sync replicas than its replication factor."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    live_isr: tuple[int, ...]
    replication_factor: int


@dataclass(frozen=True, slots=True)
class UnderMinIsrPartition:
    """A partition below ``min.insync.replicas`` (``acks=all`` writes fail) or without a live leader.

    ``min_isr_source`` says where the value came from: ``topic``, ``broker <id>``, ``cluster default``
    or ``given default``.
    """

    topic: str
    partition: int
    live_isr: tuple[int, ...]
    min_isr: int
    min_isr_source: str
    has_live_leader: bool


@dataclass(frozen=True, slots=True)
class LeaderImbalance:
    """One broker's preferred-leader balance: of the ``preferred`` partitions whose first replica it is,
    ``not_leading`` are led by another broker (or have no leader)."""

    broker_id: int
    registered: bool
    preferred: int
    not_leading: int

    @property
    def ratio(self) -> float:
        """``not_leading / preferred`` (0 when the broker is preferred for nothing)."""
        return self.not_leading / self.preferred if self.preferred else 0.0

    def exceeds(self, percent: float = DEFAULT_IMBALANCE_PERCENT) -> bool:
        """Whether the controller would trigger a preferred election (``ratio > percent / 100``)."""
        return self.ratio > percent / 100


@dataclass(frozen=True, slots=True)
class StuckReason:
    """Why a queued deletion may not progress: a stable ``code`` and a sentence for the operator.

    Codes: ``topic_missing``, ``deletion_disabled``, ``no_controller``, ``replica_on_dead_broker``,
    ``reassignment_in_progress``, ``preferred_election_in_progress`` (0.8.1 to 0.10.x only),
    ``assignment_unreadable``, ``no_visible_cause``.
    """

    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class QueuedDeletion:
    """A topic with a deletion marker, since when, and the reasons it may be stuck."""

    topic: str
    queued_since_ms: int
    topic_exists: bool
    reasons: tuple[StuckReason, ...]

    @property
    def codes(self) -> tuple[str, ...]:
        """The reason codes, in order."""
        return tuple(r.code for r in self.reasons)


@dataclass(frozen=True)
class HealthReport:
    """Every health rule over one snapshot (see the module docstring)."""

    offline: tuple[OfflinePartition, ...]
    under_replicated: tuple[UnderReplicatedPartition, ...]
    under_min_isr: tuple[UnderMinIsrPartition, ...]
    leader_imbalance: tuple[LeaderImbalance, ...]
    deletions: tuple[QueuedDeletion, ...]
    imbalance_percent: float = DEFAULT_IMBALANCE_PERCENT

    @property
    def imbalanced_brokers(self) -> tuple[LeaderImbalance, ...]:
        """Brokers above the imbalance threshold."""
        return tuple(b for b in self.leader_imbalance if b.exceeds(self.imbalance_percent))


def assess(
    snapshot: ClusterSnapshot,
    min_isr_default: int = DEFAULT_MIN_INSYNC_REPLICAS,
    delete_topic_enable: bool | None = None,
    imbalance_percent: float = DEFAULT_IMBALANCE_PERCENT,
    kafka_version: tuple[int, int] | None = None,
) -> HealthReport:
    """All health rules at once (arguments as in the single functions)."""
    return HealthReport(
        offline=offline_partitions(snapshot),
        under_replicated=under_replicated_partitions(snapshot),
        under_min_isr=under_min_isr_partitions(snapshot, min_isr_default),
        leader_imbalance=leader_imbalance(snapshot),
        deletions=deletion_queue(snapshot, delete_topic_enable, kafka_version),
        imbalance_percent=imbalance_percent,
    )


# ---- partitions ---------------------------------------------------------------------------------


def offline_partitions(snapshot: ClusterSnapshot) -> tuple[OfflinePartition, ...]:
    """Partitions without a reachable leader, in topic and partition order."""
    live = snapshot.live_broker_ids()
    queued = snapshot.deletion_markers
    found = []
    for topic, partition, _, state in snapshot.iter_partitions():
        reason = _offline_reason(state, live)
        if reason is not None:
            leader = state.leader if isinstance(state, PartitionState) else None
            found.append(OfflinePartition(topic, partition, leader, reason, topic in queued))
    return tuple(found)


def _offline_reason(state: PartitionState | Unreadable | None, live: frozenset[int]) -> str | None:
    if state is None:
        return "no state znode: no replica was ever live, or the controller never processed the partition"
    if isinstance(state, Unreadable):
        return f"state znode unreadable, leader unknown: {state.reason}"
    if state.leader == -1:
        return "no leader (-1): no in-sync replica is alive"
    if state.leader == -2:
        return "leader -2 (LeaderDuringDelete): the topic is being deleted"
    if state.leader < 0:
        return f"invalid leader id {state.leader}"
    if state.leader not in live:
        return f"leader {state.leader} is not a registered broker"
    return None


def under_replicated_partitions(snapshot: ClusterSnapshot) -> tuple[UnderReplicatedPartition, ...]:
    """Partitions whose live in-sync replicas are fewer than their replication factor."""
    live = snapshot.live_broker_ids()
    found = []
    for topic_entry in _readable_topics(snapshot):
        assignment = topic_entry.assignment
        assert isinstance(assignment, TopicAssignment)
        for partition, replicas in assignment.partitions:
            state = topic_entry.states.get(partition)
            if not isinstance(state, PartitionState):
                continue
            factor = len(replicas) - len(assignment.removing_replicas(partition))
            live_isr = tuple(r for r in state.isr if r in live)
            if len(live_isr) < factor:
                found.append(
                    UnderReplicatedPartition(topic_entry.name, partition, replicas, state.isr, live_isr, factor)
                )
    return tuple(found)


def under_min_isr_partitions(
    snapshot: ClusterSnapshot, min_isr_default: int = DEFAULT_MIN_INSYNC_REPLICAS
) -> tuple[UnderMinIsrPartition, ...]:
    """Partitions without a live leader or with fewer live in-sync replicas than ``min.insync.replicas``.

    Args:
        min_isr_default: the brokers' static ``min.insync.replicas`` (server.properties; Kafka's default 1).
    """
    live = snapshot.live_broker_ids()
    cluster_default = _config_int(snapshot.broker_configs.get(DEFAULT_ENTITY), MIN_ISR_KEY)
    found = []
    for topic_entry in _readable_topics(snapshot):
        topic_value = _config_int(topic_entry.config, MIN_ISR_KEY)
        assignment = topic_entry.assignment
        assert isinstance(assignment, TopicAssignment)
        for partition, _ in assignment.partitions:
            state = topic_entry.states.get(partition)
            leader = state.leader if isinstance(state, PartitionState) else -1
            live_isr = tuple(r for r in state.isr if r in live) if isinstance(state, PartitionState) else ()
            has_leader = leader >= 0 and leader in live
            if topic_value is not None:
                min_isr, source = topic_value, "topic"
            else:
                per_broker = _config_int(snapshot.broker_configs.get(str(leader)), MIN_ISR_KEY) if has_leader else None
                if per_broker is not None:
                    min_isr, source = per_broker, f"broker {leader}"
                elif cluster_default is not None:
                    min_isr, source = cluster_default, "cluster default"
                else:
                    min_isr, source = min_isr_default, "given default"
            if not has_leader or len(live_isr) < min_isr:
                found.append(UnderMinIsrPartition(topic_entry.name, partition, live_isr, min_isr, source, has_leader))
    return tuple(found)


def leader_imbalance(snapshot: ClusterSnapshot) -> tuple[LeaderImbalance, ...]:
    """Per broker (ascending id), how many of its preferred partitions another broker leads."""
    preferred: dict[int, int] = {}
    not_leading: dict[int, int] = {}
    for topic_entry in _readable_topics(snapshot):
        if topic_entry.name in snapshot.deletion_markers:
            continue
        assignment = topic_entry.assignment
        assert isinstance(assignment, TopicAssignment)
        for partition, replicas in assignment.partitions:
            if not replicas:
                continue
            head = replicas[0]
            preferred[head] = preferred.get(head, 0) + 1
            state = topic_entry.states.get(partition)
            if isinstance(state, PartitionState) and state.leader != head:
                not_leading[head] = not_leading.get(head, 0) + 1
    live = snapshot.live_broker_ids()
    return tuple(
        LeaderImbalance(broker, broker in live, count, not_leading.get(broker, 0))
        for broker, count in sorted(preferred.items())
    )


# ---- deletions ----------------------------------------------------------------------------------


def deletion_queue(
    snapshot: ClusterSnapshot,
    delete_topic_enable: bool | None = None,
    kafka_version: tuple[int, int] | None = None,
) -> tuple[QueuedDeletion, ...]:
    """Every deletion marker with the reasons (zk-layout §7.4, §9.8) it may be stuck.

    Args:
        delete_topic_enable: the brokers' ``delete.topic.enable`` when known (it is not in ZooKeeper).
        kafka_version: (major, minor) of the brokers when known; otherwise the rule that only 0.8.1 to
            0.10.x had (a preferred election blocks deletion) applies when a registered broker writes a
            v1 to v3 registration (0.8 to 0.10.1). A v4 registration cannot tell 0.10.2 from 0.11+, so
            the rule is then not applied.
    """
    live = snapshot.live_broker_ids()
    old_rules = _before_0_11(snapshot, kafka_version)
    result = []
    for topic, times in snapshot.deletion_markers.items():
        entry = snapshot.topics.get(topic)
        reasons = _stuck_reasons(snapshot, topic, entry, live, delete_topic_enable, old_rules)
        result.append(QueuedDeletion(topic, times.ctime_ms, entry is not None, tuple(reasons)))
    return tuple(result)


def _stuck_reasons(
    snapshot: ClusterSnapshot,
    topic: str,
    entry: TopicEntry | None,
    live: frozenset[int],
    delete_topic_enable: bool | None,
    old_rules: bool,
) -> list[StuckReason]:
    if entry is None:
        return [
            StuckReason(
                "topic_missing",
                "the topic does not exist: a stale marker, which the controller removes on its next deletion event",
            )
        ]
    reasons = []
    if delete_topic_enable is False:
        reasons.append(
            StuckReason(
                "deletion_disabled",
                "delete.topic.enable=false: the controller never deletes topics and removes such markers at "
                "start-up and on each deletion event, so no controller has handled this one yet",
            )
        )
    if snapshot.controller is None:
        reasons.append(StuckReason("no_controller", "no active controller (/controller is missing): nothing deletes"))
    assignment = entry.assignment
    if isinstance(assignment, Unreadable):
        detail = f"the topic znode is unreadable, for the controller too: {assignment.reason}"
        reasons.append(StuckReason("assignment_unreadable", detail))
    else:
        dead = sorted({r for _, replicas in assignment.partitions for r in replicas} - live)
        if dead:
            reasons.append(
                StuckReason(
                    "replica_on_dead_broker",
                    f"replicas on broker(s) {_ids(dead)}, which are not registered: the controller marks the topic "
                    "ineligible and resumes when they start again",
                )
            )
        moving = sorted(set(assignment.reassigning_partitions) | _requested(snapshot.reassignment, topic))
        if moving:
            reasons.append(
                StuckReason(
                    "reassignment_in_progress",
                    f"partition(s) {_ids(moving)} are being reassigned: deletion resumes when the reassignment "
                    "completes",
                )
            )
    if old_rules:
        electing = sorted(_requested(snapshot.preferred_election, topic))
        if electing:
            reasons.append(
                StuckReason(
                    "preferred_election_in_progress",
                    f"a preferred replica election is pending for partition(s) {_ids(electing)}, which blocks "
                    "deletion in Kafka 0.8.1 to 0.10.x",
                )
            )
    if not reasons:
        reasons.append(
            StuckReason(
                "no_visible_cause",
                "nothing in ZooKeeper blocks it: the deletion may be under way, or a StopReplica failed and the "
                "controller waits for a broker start-up or a finished reassignment to retry (see its log); "
                "delete.topic.enable=false would also leave it, but that is not stored in ZooKeeper",
            )
        )
    return reasons


def _requested(request: object, topic: str) -> set[int]:
    """Partitions of ``topic`` named in a reassignment or preferred-election request znode."""
    partitions = getattr(request, "partitions", None)
    if not partitions:
        return set()
    return {entry[1] for entry in partitions if entry[0] == topic}


def _before_0_11(snapshot: ClusterSnapshot, kafka_version: tuple[int, int] | None) -> bool:
    if kafka_version is not None:
        return kafka_version < (0, 11)
    versions = [
        b.registration.version for b in snapshot.brokers.values() if isinstance(b.registration, BrokerRegistration)
    ]
    return bool(versions) and min(versions) <= 3


# ---- helpers ------------------------------------------------------------------------------------


def _readable_topics(snapshot: ClusterSnapshot) -> Iterable[TopicEntry]:
    return (t for t in snapshot.topics.values() if isinstance(t.assignment, TopicAssignment))


def _config_int(config: EntityConfig | Unreadable | None, key: str) -> int | None:
    """An integer override from an entity config; None when absent, unreadable or not an integer."""
    if not isinstance(config, EntityConfig):
        return None
    for name, value in config.config:
        if name == key:
            # As Kafka's ConfigDef reads an INT: trimmed, then Integer.parseInt.
            text = value.strip()
            return int(text) if _JAVA_INT.fullmatch(text) and -(2**31) <= int(text) < 2**31 else None
    return None


def _ids(values: Iterable[int]) -> str:
    return ", ".join(map(str, values))
