"""Cluster health derived from a ``ClusterSnapshot``: pure functions, no I/O, small frozen results.

What each rule counts, and whose definition it follows:

- **Offline** (``kafka-topics --unavailable-partitions``; the controller's OfflinePartitionsCount): no
  leader a client can reach. The state znode is missing or unreadable, the leader is -1 (or -2), or the
  leader is not a registered broker. The controller's metric leaves out topics queued for deletion;
  here they are kept and flagged ``queued_for_deletion``, as Kafka's tool keeps them.
- **Under-replicated** (``kafka-topics --under-replicated-partitions``): the ISR held in the state znode
  is smaller than the replication factor, which during a reassignment is the replicas minus the adding
  ones (Kafka's ``OngoingReassignmentState.replicationFactor`` and TopicCommand's ``getReplicationFactor``:
  the original replicas). As the ZooKeeper-reading tool counts it, a partition without a (readable) state
  znode has an empty ISR and counts.
- **Topics queued for deletion** count in all three, as Kafka's tool lists them (the controller's
  OfflinePartitionsCount alone leaves them out); every surface flags them ``queued_for_deletion``.
- **Under min ISR** (``--under-min-isr-partitions``): no live leader, or an ISR smaller than
  ``min.insync.replicas``. **``acks=all``** is refused (NOT_ENOUGH_REPLICAS) when a live leader has
  an ISR smaller than that value. The value, as the leader resolves it (``resolve_min_isr``): the
  topic override in ``/config/topics/<t>``, else the leader's dynamic per-broker config
  ``/config/brokers/<id>``, else the cluster-wide dynamic default ``/config/brokers/<default>``, else
  the brokers' static ``server.properties`` value, which ZooKeeper does not hold: read through the
  AdminClient (``core.snapshot.static_min_isr``) or given by the operator (``StaticMinIsr``). Without it the
  answer is unknown (``None``) with the reason, never guessed.
- **Preferred-leader imbalance** (``KafkaController.checkAndTriggerAutoLeaderRebalance``): per broker, of
  the partitions whose first assigned replica it is (topics queued for deletion left out), the share whose
  current leader is another broker; partitions without a state count only in the denominator. The
  controller triggers elections above ``leader.imbalance.per.broker.percentage`` (default 10).
- **Deletion queue** (zk-layout §7.4 and §9.8): each ``/admin/delete_topics`` marker with the reasons
  visible in ZooKeeper why it may be stuck.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.kafka.znodes import BrokerRegistration, EntityConfig, PartitionState, TopicAssignment, Unreadable
from core.snapshot.model import ClusterSnapshot, StaticMinIsr, TopicEntry

DEFAULT_IMBALANCE_PERCENT = 10  # leader.imbalance.per.broker.percentage
MIN_ISR_KEY = "min.insync.replicas"
DEFAULT_ENTITY = "<default>"
_JAVA_INT = re.compile(r"[+-]?[0-9]{1,10}")
_JAVA_TRIMMED = "".join(map(chr, range(33)))  # String.trim removes every char up to ' '


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
    """A partition whose ISR is smaller than its replication factor (``isr`` empty without a state)."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]
    replication_factor: int


@dataclass(frozen=True, slots=True)
class MinIsr:
    """The ``min.insync.replicas`` a partition's leader applies: ``value`` None when unknown, and
    ``source`` says where it came from (``topic``, ``broker <id> dynamic``, ``cluster default``,
    ``broker <id> static``, ``given``) or, when unknown, why."""

    value: int | None
    source: str


@dataclass(frozen=True, slots=True)
class UnderMinIsrPartition:
    """A partition below ``min.insync.replicas`` (``acks=all`` writes fail) or without a live leader."""

    topic: str
    partition: int
    isr: tuple[int, ...]
    min_isr: int | None
    min_isr_source: str
    has_live_leader: bool


@dataclass(frozen=True, slots=True)
class PartitionHealth:
    """Every health rule for one partition (see the module docstring).

    ``under_min_isr`` and ``acks_all`` are None when ``min_isr`` is unknown and the answer depends on it.
    """

    offline: str | None  # why no reachable leader; None when it has one
    under_replicated: bool
    under_min_isr: bool | None
    acks_all: bool | None
    isr: tuple[int, ...]
    min_isr: MinIsr

    @property
    def acks_all_text(self) -> str:
        """``yes``, ``no`` or ``?`` with the reason, as every surface words it."""
        if self.acks_all is None:
            return f"? ({self.min_isr.source})"
        if self.acks_all:
            return "yes"
        if self.offline is not None:
            return f"no ({self.offline})"
        return f"no (ISR {len(self.isr)} < min.insync.replicas {self.min_isr.value}, {self.min_isr.source})"


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
        """Whether the controller would trigger a preferred election (``over_imbalance_threshold``)."""
        return over_imbalance_threshold(self.registered, self.preferred, self.not_leading, percent)


def over_imbalance_threshold(
    live: bool, preferred: int, not_leading: int, percent: float = DEFAULT_IMBALANCE_PERCENT
) -> bool:
    """The one leader-imbalance rule (describe, the console, the checks): a broker is over
    ``leader.imbalance.per.broker.percentage`` when it is live and more than ``percent`` % of the partitions
    whose preferred replica it is are led by another broker. A dead broker never counts: Kafka's auto leader
    rebalance (``KafkaController.checkAndTriggerAutoLeaderRebalance``) only elects a preferred replica that is
    online, so a dead broker's imbalance is the outage itself, not something a rebalance would fix.
    """
    return live and preferred > 0 and not_leading * 100 > percent * preferred


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
    replicas: tuple[ReplicaDeletion, ...] = ()

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
    min_isr_unknown: tuple[tuple[str, int, str], ...]  # (topic, partition, why) where acks=all is "?"
    leader_imbalance: tuple[LeaderImbalance, ...]
    deletions: tuple[QueuedDeletion, ...]
    imbalance_percent: float = DEFAULT_IMBALANCE_PERCENT

    @property
    def imbalanced_brokers(self) -> tuple[LeaderImbalance, ...]:
        """Brokers above the imbalance threshold."""
        return tuple(b for b in self.leader_imbalance if b.exceeds(self.imbalance_percent))


def assess(
    snapshot: ClusterSnapshot,
    static_min_isr: StaticMinIsr | None = None,
    delete_topic_enable: bool | None = None,
    imbalance_percent: float = DEFAULT_IMBALANCE_PERCENT,
    kafka_version: tuple[int, int] | None = None,
) -> HealthReport:
    """All health rules at once; ``static_min_isr`` defaults to the snapshot's (see ``MinIsrResolver``)."""
    offline: list[OfflinePartition] = []
    urp: list[UnderReplicatedPartition] = []
    under_min: list[UnderMinIsrPartition] = []
    unknown: list[tuple[str, int, str]] = []
    queued = snapshot.deletion_markers
    for topic, partition, replicas, factor, state, h in iter_partition_health(snapshot, static_min_isr):
        if h.offline is not None:
            leader = state.leader if isinstance(state, PartitionState) else None
            offline.append(OfflinePartition(topic, partition, leader, h.offline, topic in queued))
        if h.under_replicated:
            urp.append(UnderReplicatedPartition(topic, partition, replicas, h.isr, factor))
        if h.under_min_isr:
            source = h.min_isr.source
            under_min.append(UnderMinIsrPartition(topic, partition, h.isr, h.min_isr.value, source, h.offline is None))
        elif h.under_min_isr is None:
            unknown.append((topic, partition, h.min_isr.source))
    return HealthReport(
        offline=tuple(offline),
        under_replicated=tuple(urp),
        under_min_isr=tuple(under_min),
        min_isr_unknown=tuple(unknown),
        leader_imbalance=leader_imbalance(snapshot),
        deletions=deletion_queue(snapshot, delete_topic_enable, kafka_version),
        imbalance_percent=imbalance_percent,
    )


# ---- partitions ---------------------------------------------------------------------------------


def replication_factor(replicas: tuple[int, ...], adding: tuple[int, ...] = ()) -> int:
    """The replication factor the ISR is compared with: the replicas a reassignment is not adding."""
    return len(replicas) if not adding else sum(1 for r in replicas if r not in adding)


def partition_health(
    replicas: tuple[int, ...],
    adding: tuple[int, ...],
    state: PartitionState | Unreadable | None,
    live: frozenset[int] | set[int],
    min_isr: MinIsr,
) -> PartitionHealth:
    """The one derivation of a partition's health; every surface calls it.

    Args:
        replicas: the assigned replicas; ``adding`` those a reassignment adds (2.4+ topic znode).
        state: the partition's state znode (None when missing).
        live: the registered brokers.
        min_isr: ``resolve_min_isr`` for this partition's leader.
    """
    offline = offline_reason(state, live)
    isr = state.isr if isinstance(state, PartitionState) else ()
    under_replicated = len(isr) < replication_factor(replicas, adding)
    value = min_isr.value
    if offline is not None:
        return PartitionHealth(offline, under_replicated, True, False, isr, min_isr)
    if value is None:
        return PartitionHealth(None, under_replicated, None, None, isr, min_isr)
    below = len(isr) < value
    return PartitionHealth(None, under_replicated, below, not below, isr, min_isr)


class MinIsrResolver:
    """``resolve_min_isr`` for one snapshot and static value, with the per-broker parts computed once."""

    def __init__(
        self,
        snapshot: ClusterSnapshot | None,
        static: StaticMinIsr | None = None,
        broker_configs: Mapping[str, EntityConfig | Unreadable | None] | None = None,
    ) -> None:
        """From ``snapshot`` (its broker configs and static value), or from ``broker_configs`` and ``static``
        alone when there is no snapshot object (the Spark driver)."""
        if static is None:
            static = snapshot.static_min_isr if snapshot is not None else StaticMinIsr()
        configs = snapshot.broker_configs if snapshot is not None else (broker_configs or {})
        self._dynamic: dict[int, int] = {}
        for name, config in configs.items():
            value = min_isr_value(config)
            if value is not None and name.isdigit():
                self._dynamic[int(name)] = value
        self._cluster = min_isr_value(configs.get(DEFAULT_ENTITY))
        self._static = static
        self._memo: dict[int | None, MinIsr] = {}
        # What decides a broker's value when there is no topic override, for caches keyed on it.
        self.key = (tuple(sorted(self._dynamic.items())), self._cluster, static)

    def resolve(self, topic_config: EntityConfig | Unreadable | None, leader: int | None) -> MinIsr:
        """The value ``leader`` (None: no live leader) applies to a topic with ``topic_config``."""
        override = min_isr_value(topic_config)
        if override is not None:
            return MinIsr(override, "topic")
        hit = self._memo.get(leader)
        if hit is None:
            hit = self._memo[leader] = self._broker_value(leader)
        return hit

    def _broker_value(self, leader: int | None) -> MinIsr:
        if leader is not None and leader in self._dynamic:
            return MinIsr(self._dynamic[leader], f"broker {leader} dynamic")
        if self._cluster is not None:
            return MinIsr(self._cluster, "cluster default")
        static = self._static
        if leader is not None and leader in static.by_broker:
            return MinIsr(static.by_broker[leader], f"broker {leader} static")
        if leader is None and len(set(static.by_broker.values())) == 1:
            return MinIsr(next(iter(static.by_broker.values())), "brokers' static")
        if static.given is not None:
            return MinIsr(static.given, "given")
        return MinIsr(None, static.reason)


def resolve_min_isr(
    snapshot: ClusterSnapshot, topic: str, leader: int | None, static: StaticMinIsr | None = None
) -> MinIsr:
    """The ``min.insync.replicas`` ``leader`` applies to ``topic`` (see the module docstring)."""
    entry = snapshot.topics.get(topic)
    return MinIsrResolver(snapshot, static).resolve(entry.config if entry else None, leader)


def live_leader(state: PartitionState | Unreadable | None, live: frozenset[int] | set[int]) -> int | None:
    """The partition's leader when it is a registered broker, else None."""
    if isinstance(state, PartitionState) and state.leader >= 0 and state.leader in live:
        return state.leader
    return None


def iter_partition_health(
    snapshot: ClusterSnapshot, static: StaticMinIsr | None = None
) -> Iterable[tuple[str, int, tuple[int, ...], int, PartitionState | Unreadable | None, PartitionHealth]]:
    """(topic, partition, replicas, replication factor, state, health) for every assigned partition."""
    live = snapshot.live_broker_ids()
    resolver = MinIsrResolver(snapshot, static)
    for entry in _readable_topics(snapshot):
        assignment = entry.assignment
        assert isinstance(assignment, TopicAssignment)
        for partition, replicas in assignment.partitions:
            state = entry.states.get(partition)
            adding = assignment.adding_replicas(partition)
            min_isr = resolver.resolve(entry.config, live_leader(state, live))
            yield (
                entry.name,
                partition,
                replicas,
                replication_factor(replicas, adding),
                state,
                partition_health(replicas, adding, state, live, min_isr),
            )


def offline_partitions(snapshot: ClusterSnapshot) -> tuple[OfflinePartition, ...]:
    """Partitions without a reachable leader, in topic and partition order."""
    return assess(snapshot).offline


def offline_reason(state: PartitionState | Unreadable | None, live: frozenset[int] | set[int]) -> str | None:
    """Why the partition has no reachable leader, or None when it has one."""
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
    """Partitions whose ISR is smaller than their replication factor."""
    return assess(snapshot).under_replicated


def under_replicated_by_leader(snapshot: ClusterSnapshot) -> dict[int, int]:
    """How many under-replicated partitions each live broker leads: what its own ``UnderReplicatedPartitions``
    gauge counts (Kafka's ``Partition.isUnderReplicated``: leader here, ISR below the replication factor)."""
    live = snapshot.live_broker_ids()
    counts = dict.fromkeys(live, 0)
    for _topic, _partition, _replicas, _factor, state, h in iter_partition_health(snapshot):
        leader = live_leader(state, live)
        if h.under_replicated and leader is not None:
            counts[leader] += 1
    return counts


def under_min_isr_partitions(
    snapshot: ClusterSnapshot, static: StaticMinIsr | None = None
) -> tuple[UnderMinIsrPartition, ...]:
    """Partitions without a live leader or with an ISR smaller than ``min.insync.replicas``."""
    return assess(snapshot, static).under_min_isr


def replica_brokers(snapshot: ClusterSnapshot) -> frozenset[int]:
    """Every broker id that holds a replica in a readable topic assignment: the brokers the cluster expects."""
    found: set[int] = set()
    for topic_entry in _readable_topics(snapshot):
        assignment = topic_entry.assignment
        assert isinstance(assignment, TopicAssignment)
        for _, replicas in assignment.partitions:
            found.update(replicas)
    return frozenset(found)


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

DELETION_STARTED = "ReplicaDeletionStarted/Successful"
DELETION_INELIGIBLE = "ReplicaDeletionIneligible"
DELETION_NOT_STARTED = "OnlineReplica"


@dataclass(frozen=True, slots=True)
class ReplicaDeletion:
    """The state the controller's replica state machine holds for one replica of a queued topic, as far
    as ZooKeeper shows it (zk-layout §7.2, §8; ``replica_deletion_states``)."""

    partition: int
    broker: int
    state: str  # DELETION_STARTED, DELETION_INELIGIBLE or DELETION_NOT_STARTED
    detail: str


def deletion_blockers(
    assignment: TopicAssignment | Unreadable | None,
    live: frozenset[int] | set[int],
    controller_present: bool,
    requested_moves: Iterable[int] = (),
    requested_elections: Iterable[int] = (),
    delete_topic_enable: bool | None = None,
    old_rules: bool = False,
) -> tuple[StuckReason, ...]:
    """Every reason the controller holds a queued topic's deletion (zk-layout §7.1 to §7.4); the one rule
    the console, ``describe``, the topic guards and progress, and the check ``deletion_stuck`` use.

    Args:
        assignment: the topic znode (None: the topic does not exist).
        live: the registered brokers.
        controller_present: ``/controller`` names a controller.
        requested_moves: partitions of the topic in ``/admin/reassign_partitions``.
        requested_elections: partitions of the topic in ``/admin/preferred_replica_election``.
        delete_topic_enable: the brokers' ``delete.topic.enable`` when known (it is not in ZooKeeper).
        old_rules: the brokers run 0.8.1 to 0.10.x, where a preferred election blocks deletion too.

    Returns:
        The reasons in this order: ``topic_missing`` (alone), ``deletion_disabled``, ``no_controller``,
        ``assignment_unreadable``, ``replica_on_dead_broker``, ``reassignment_in_progress``,
        ``preferred_election_in_progress``; empty when nothing visible in ZooKeeper blocks it.
    """
    if assignment is None:
        return (
            StuckReason(
                "topic_missing",
                "the topic does not exist: a stale marker, which the controller removes on its next deletion event",
            ),
        )
    reasons = []
    if delete_topic_enable is False:
        reasons.append(
            StuckReason(
                "deletion_disabled",
                "delete.topic.enable=false: the controller deletes nothing and removes such markers at start-up and "
                "on each deletion event; to delete the topic, set delete.topic.enable=true on every broker, restart "
                "them one at a time (rolling restart), then send the delete again",
            )
        )
    if not controller_present:
        reasons.append(StuckReason("no_controller", "no active controller (/controller is missing): nothing deletes"))
    if isinstance(assignment, Unreadable):
        detail = f"the topic znode is unreadable, for the controller too: {assignment.reason}"
        reasons.append(StuckReason("assignment_unreadable", detail))
    else:
        dead = sorted({r for _, replicas in assignment.partitions for r in replicas} - set(live))
        if dead:
            reasons.append(
                StuckReason(
                    "replica_on_dead_broker",
                    f"replicas on broker(s) {_ids(dead)}, which are not registered: the controller marks them "
                    "ReplicaDeletionIneligible and the topic ineligible, and resumes when they register again",
                )
            )
        moving = sorted(set(assignment.reassigning_partitions) | set(requested_moves))
        if moving:
            reasons.append(
                StuckReason(
                    "reassignment_in_progress",
                    f"partition(s) {_ids(moving)} are being reassigned: deletion starts when the reassignment "
                    "completes",
                )
            )
    electing = sorted(set(requested_elections)) if old_rules else []
    if electing:
        reasons.append(
            StuckReason(
                "preferred_election_in_progress",
                f"a preferred replica election is pending for partition(s) {_ids(electing)}, which blocks "
                "deletion in Kafka 0.8.1 to 0.10.x",
            )
        )
    return tuple(reasons)


def deletion_started(reasons: Iterable[StuckReason]) -> bool:
    """Whether the controller has begun deleting (onTopicDeletion): replicas on dead brokers do not stop it
    from starting, the other blockers do (zk-layout §7.1, §7.2)."""
    return all(r.code == "replica_on_dead_broker" for r in reasons)


def replica_deletion_states(
    assignment: TopicAssignment,
    states: Mapping[int, PartitionState | Unreadable | None],
    live: frozenset[int] | set[int],
    started: bool,
) -> tuple[ReplicaDeletion, ...]:
    """Per replica of a queued topic, the state the controller's replica state machine would hold.

    Once deletion started (onTopicDeletion), a replica on a dead broker is ReplicaDeletionIneligible (the
    controller resets it to OfflineReplica for a retry that runs when the broker registers again); a live
    replica goes OfflineReplica, which removes it from the ISR in ZooKeeper (the last ISR member stays,
    with leader -1), then ReplicaDeletionStarted (StopReplica with delete) and ReplicaDeletionSuccessful
    when the broker answers. ZooKeeper does not record that answer, so a live replica out of the ISR is
    Started or Successful; one still leading or in a larger ISR has not been reached yet.
    """
    result = []
    for partition, replicas in assignment.partitions:
        state = states.get(partition)
        for broker in dict.fromkeys(replicas):
            if not started:
                result.append(ReplicaDeletion(partition, broker, DELETION_NOT_STARTED, "deletion has not started"))
            elif broker not in live:
                detail = f"broker {broker} is not registered: deletion waits until it registers again"
                result.append(ReplicaDeletion(partition, broker, DELETION_INELIGIBLE, detail))
            elif isinstance(state, PartitionState) and (
                state.leader == broker or (broker in state.isr and len(state.isr) > 1)
            ):
                detail = "still leader or in the ISR: the controller has not stopped it yet"
                result.append(ReplicaDeletion(partition, broker, DELETION_NOT_STARTED, detail))
            else:
                detail = "out of the ISR: StopReplica sent; Successful once the broker answered (not in ZooKeeper)"
                result.append(ReplicaDeletion(partition, broker, DELETION_STARTED, detail))
    return tuple(result)


def replica_states_text(replicas: Iterable[ReplicaDeletion]) -> str:
    """``replicas: 5 ReplicaDeletionStarted/Successful, 1 ReplicaDeletionIneligible (broker 3)``."""
    counts: dict[str, int] = {}
    dead: dict[str, set[int]] = {}
    for r in replicas:
        counts[r.state] = counts.get(r.state, 0) + 1
        if r.state == DELETION_INELIGIBLE:
            dead.setdefault(r.state, set()).add(r.broker)
    parts = []
    for state in (DELETION_STARTED, DELETION_INELIGIBLE, DELETION_NOT_STARTED):
        if state in counts:
            brokers = f" (broker {_ids(sorted(dead[state]))})" if state in dead else ""
            parts.append(f"{counts[state]} {state}{brokers}")
    return "replicas: " + ", ".join(parts) if parts else "replicas: none"


def deletion_queue(
    snapshot: ClusterSnapshot,
    delete_topic_enable: bool | None = None,
    kafka_version: tuple[int, int] | None = None,
) -> tuple[QueuedDeletion, ...]:
    """Every deletion marker with every reason (``deletion_blockers``) it may be stuck, and its replicas'
    deletion states.

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
        reasons = topic_deletion_blockers(snapshot, topic, delete_topic_enable, old_rules)
        replicas: tuple[ReplicaDeletion, ...] = ()
        if entry is not None and isinstance(entry.assignment, TopicAssignment):
            replicas = replica_deletion_states(entry.assignment, entry.states, live, deletion_started(reasons))
        if not reasons and entry is not None:
            reasons = (_NO_VISIBLE_CAUSE,)
        result.append(QueuedDeletion(topic, times.ctime_ms, entry is not None, reasons, replicas))
    return tuple(result)


def topic_deletion_blockers(
    snapshot: ClusterSnapshot, topic: str, delete_topic_enable: bool | None = None, old_rules: bool | None = None
) -> tuple[StuckReason, ...]:
    """``deletion_blockers`` for ``topic`` in ``snapshot`` (``old_rules`` None: judged from the registrations)."""
    entry = snapshot.topics.get(topic)
    return deletion_blockers(
        entry.assignment if entry is not None else None,
        snapshot.live_broker_ids(),
        snapshot.controller is not None,
        _requested(snapshot.reassignment, topic),
        _requested(snapshot.preferred_election, topic),
        delete_topic_enable,
        _before_0_11(snapshot, None) if old_rules is None else old_rules,
    )


_NO_VISIBLE_CAUSE = StuckReason(
    "no_visible_cause",
    "nothing in ZooKeeper blocks it: the deletion may be under way, or a StopReplica failed and the "
    "controller waits for a broker start-up or a finished reassignment to retry (see its log); "
    "delete.topic.enable=false would also leave it, but that is not stored in ZooKeeper",
)


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


def min_isr_value(config: EntityConfig | Unreadable | None) -> int | None:
    """A ``min.insync.replicas`` override from an entity config; None when absent, unreadable or not an
    integer of at least 1 (Kafka's ConfigDef reads an INT trimmed, then Integer.parseInt, and refuses < 1)."""
    if not isinstance(config, EntityConfig):
        return None
    for name, value in config.config:
        if name == MIN_ISR_KEY:
            text = value.strip(_JAVA_TRIMMED)
            if _JAVA_INT.fullmatch(text) and 1 <= int(text) < 2**31:
                return int(text)
            return None
    return None


def _ids(values: Iterable[int]) -> str:
    return ", ".join(map(str, values))
