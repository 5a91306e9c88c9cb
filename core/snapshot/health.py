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
  visible in ZooKeeper why it may be stuck (``core.snapshot.deletion``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.kafka.znodes import EntityConfig, PartitionState, TopicAssignment, Unreadable
from core.snapshot.deletion import QueuedDeletion, deletion_queue
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
