"""The facts the checks' Python rules read: what the cluster holds (``ClusterFacts``, derived once per
run), what one partition holds (``PartitionFacts``, on the partitions that can fire a check), what one
topic, one broker's preferred partitions and one queued deletion add up to.

The local engine (``core.consistency.local_engine``) builds them in its one pass over the partitions and
hands them to each check's rule. Availability is ``core.snapshot.health.partition_health``, computed once
per partition here, as every surface counts it.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from core.brokers.metadata import ServedMetadata
from core.consistency.checks.unit import Evidence, Where
from core.consistency.params import CheckParams
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import (
    BrokerRegistration,
    PartitionState,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)

# The layout's paths, re-exported for the rules.
from core.kafka.znodes.paths import located as located
from core.kafka.znodes.paths import state_path as state_path
from core.kafka.znodes.paths import topic_path as topic_path
from core.snapshot.health import MinIsrResolver, PartitionHealth
from core.snapshot.model import ClusterSnapshot, TopicEntry

Found = tuple[Evidence, Where]
"""What a rule found: the evidence record and where it is."""

Ints = tuple[int, ...]


class ClusterFacts:
    """What every rule may compare with, derived once per run from the snapshot and the params."""

    def __init__(self, snapshot: ClusterSnapshot, params: CheckParams, served: ServedMetadata | None = None) -> None:
        self.snapshot = snapshot
        self.params = params
        self.served = served  # what the brokers serve (--bootstrap-server), None when not asked
        # Alive: registered, plus the brokers that run KRaft during a migration (serving, not in /brokers/ids).
        self.registered = frozenset(snapshot.brokers)
        self.live = snapshot.live_broker_ids()
        self.racks: dict[int, str | None] = {
            b: e.registration.rack
            for b, e in snapshot.brokers.items()
            if isinstance(e.registration, BrokerRegistration)
        }
        with_rack = [b for b, r in self.racks.items() if r is not None]
        self.racks_complete = bool(with_rack) and len(with_rack) == len(snapshot.brokers)
        self.rack_count = len({r for r in self.racks.values() if r is not None})
        self.controller_epoch = snapshot.controller_epoch if isinstance(snapshot.controller_epoch, int) else None
        self.deleting = frozenset(t for t in snapshot.deletion_markers if t in snapshot.topics)
        self.resolver = MinIsrResolver(snapshot, params.static())
        self.requests: dict[TopicPartition, list[Ints]] = defaultdict(list)
        if isinstance(snapshot.reassignment, ReassignmentRequest):
            for topic, partition, replicas in snapshot.reassignment.partitions:
                self.requests[(topic, partition)].append(replicas)
        self.requested_topics = frozenset(t for t, _ in self.requests)
        self.unreadable_states: list[Unreadable] = []  # unreadable state znodes, found by the partition pass


class ReplicaFacts:
    """What depends only on a replica list (memoised per distinct list: real assignments repeat a few
    thousand lists over millions of partitions), and how often the fast path saw it (``uses``: those
    partitions count towards their preferred leader in bulk)."""

    __slots__ = ("clean", "duplicates", "members", "offline", "preferred", "rack", "rf", "size", "uses")

    def __init__(self, replicas: Ints, cluster: ClusterFacts) -> None:
        members = frozenset(replicas)
        duplicates: Ints = ()
        if len(members) != len(replicas):
            duplicates = tuple(sorted(b for b in members if replicas.count(b) > 1))
        offline = tuple(dict.fromkeys(b for b in replicas if b not in cluster.live))
        rack = None
        # Racks are known of registered brokers only (a KRaft broker's is not in ZooKeeper).
        if cluster.racks_complete and replicas and not offline and cluster.registered.issuperset(replicas):
            distinct = tuple(dict.fromkeys(replicas))
            racks = tuple(str(cluster.racks.get(b)) for b in distinct)
            expected = min(len(distinct), cluster.rack_count)
            if len(set(racks)) < expected:
                rack = (racks, len(set(racks)), expected)
        self.members = members
        self.duplicates = duplicates
        self.offline = offline
        self.rack: tuple[tuple[str, ...], int, int] | None = rack  # (replica racks, distinct, expected) when violated
        self.preferred = replicas[0] if replicas else None
        self.rf = len(members)
        self.size = len(replicas)
        self.clean = bool(replicas) and not duplicates and not offline and rack is None
        self.uses = 0


@dataclass(slots=True)
class PartitionFacts:
    """One assigned partition that may fire a partition check (the fast path's partitions cannot).

    ``state`` is the state znode as read (``None``: missing); ``ok`` the readable state, else ``None``.
    """

    cluster: ClusterFacts
    topic: str
    partition: int
    replicas: Ints
    adding: Ints
    removing: Ints
    replica: ReplicaFacts
    state: PartitionState | Unreadable | None
    health: PartitionHealth
    deleting: bool
    requested: list[Ints] | None  # its entries in /admin/reassign_partitions, in file order

    @property
    def ok(self) -> PartitionState | None:
        """The readable state znode."""
        return self.state if type(self.state) is PartitionState else None

    def at_state(self, broker: int | None = None) -> Where:
        """Where: the partition's state znode."""
        return Where(state_path(self.topic, self.partition), self.topic, self.partition, broker)

    def at_topic(self, broker: int | None = None) -> Where:
        """Where: the topic znode that assigns the partition."""
        return Where(topic_path(self.topic), self.topic, self.partition, broker)


def served_and_healthy(f: PartitionFacts) -> PartitionState | None:
    """The readable state of a partition with an ISR and a live leader, not being deleted."""
    st = f.ok
    return st if st is not None and st.isr and not f.deleting and f.health.offline is None else None


@dataclass(slots=True)
class TopicFacts:
    """One readable topic, once all its partitions were seen."""

    name: str
    entry: TopicEntry
    assignment: TopicAssignment
    rfs: set[int] = field(default_factory=set)  # replication factors (distinct replicas minus those removed)
    partition_ids: tuple[int, ...] = ()  # the assignment's, ascending

    def __post_init__(self) -> None:
        self.partition_ids = self.assignment.partition_ids

    def orphans(self) -> list[int]:
        """Partitions with a ``partitions/<p>`` znode that the assignment does not list, ascending."""
        states = self.entry.states
        # States hold every assigned partition (TopicEntry), so only a topic with more has orphans.
        return sorted(states.keys() - set(self.partition_ids)) if len(states) > len(self.partition_ids) else []

    def at(self) -> Where:
        """Where: the topic znode."""
        return Where(topic_path(self.name), self.name)


@dataclass(frozen=True, slots=True)
class BrokerLeads:
    """A live broker's preferred partitions (topics being deleted left out) and how many of them another
    live broker leads."""

    broker: int
    preferred: int
    elsewhere: int
    threshold_percent: int


@dataclass(frozen=True, slots=True)
class QueuedTopic:
    """A topic queued for deletion that exists, with what keeps it (``reasons``, docs/checks.md codes)."""

    name: str
    reasons: tuple[str, ...]
    offline: Ints
    queued_s: int
