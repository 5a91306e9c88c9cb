"""The immutable cluster snapshot: everything Kafka keeps in ZooKeeper, read at one point in time.

This module holds only the data model (frozen, slotted dataclasses and one named tuple, built from the typed
znode values of ``core.kafka.znodes``). ``core.snapshot.reader`` fills it from ZooKeeper; ``core.snapshot.jsonl``
writes and reads it as JSON Lines; ``core.snapshot.health`` and ``core.consistency`` derive findings from it.

A znode that could not be parsed is kept as an ``Unreadable`` in the place of its value, so every
consumer sees that it exists and why it is unreadable, and nothing raises.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ControllerInfo,
    EntityConfig,
    FeatureZNode,
    MigrationState,
    PartitionState,
    PreferredElectionRequest,
    ProducerIdBlock,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)

SNAPSHOT_FORMAT_VERSION = 2
# Version 2 added the ``kraft_broker`` and ``delegation_tokens`` records; a version-1 file has neither and is
# read as such (brokers on KRaft then come from the ISR rule, the delegation tokens are unknown).
READABLE_FORMAT_VERSIONS = (1, 2)


@dataclass(frozen=True, slots=True)
class ZnodeTimes:
    """Creation and modification of a znode: ZooKeeper txids and epoch milliseconds."""

    czxid: int
    mzxid: int
    ctime_ms: int
    mtime_ms: int
    version: int


class StateStamp(NamedTuple):
    """When a partition's ``state`` znode was last written (epoch ms) and how many writes it has had
    (its znode version): the controller and the partition leader rewrite it on every leader or ISR change.

    A named tuple, not a frozen dataclass: the reader makes one per partition on its hot path, while kazoo's
    thread waits for the GIL, and a tuple is made in a third of the time."""

    mtime_ms: int
    version: int


@dataclass(frozen=True, slots=True)
class BrokerEntry:
    """One child of ``/brokers/ids``. ``times.czxid`` is the broker epoch (2.2+); ``ctime_ms`` is
    when it registered."""

    broker_id: int
    registration: BrokerRegistration | Unreadable
    times: ZnodeTimes


@dataclass(frozen=True, slots=True)
class TopicEntry:
    """One child of ``/brokers/topics`` with its partition states and config.

    ``states`` maps a partition id to its ``state`` znode: ``None`` when the znode is missing. It holds
    every partition listed in the assignment *and* every ``partitions/<p>`` child found, so state
    znodes left over beyond the assignment are visible too (reference §9.7).
    """

    name: str
    assignment: TopicAssignment | Unreadable
    times: ZnodeTimes
    states: Mapping[int, PartitionState | Unreadable | None]
    config: EntityConfig | Unreadable | None  # /config/topics/<t>; None when absent
    # The stat of each state znode that was read (ZooKeeper reads only; never in snapshot files, so not part of
    # equality: a snapshot and its file round trip compare equal).
    state_stamps: Mapping[int, StateStamp] = field(default_factory=dict, compare=False)

    @property
    def partition_ids(self) -> tuple[int, ...]:
        """Partition ids of the assignment (empty when it is unreadable), ascending."""
        return () if isinstance(self.assignment, Unreadable) else self.assignment.partition_ids


@dataclass(frozen=True, slots=True)
class Notification:
    """A sequential notification znode (ISR change, log-dir event, config change) and its age."""

    name: str
    ctime_ms: int
    value: object  # the parsed notification, or Unreadable


@dataclass(frozen=True, slots=True)
class StaticMinIsr:
    """The brokers' static ``min.insync.replicas`` (server.properties), which ZooKeeper does not hold.

    ``by_broker`` is what each broker reported through DescribeConfigs (``core.snapshot.static_min_isr``);
    ``given`` is the operator's word (``--min-insync-replicas``); ``reason`` says why the value is unknown
    when neither has it. ``core.snapshot.health.resolve_min_isr`` uses it last.
    """

    by_broker: Mapping[int, int] = field(default_factory=dict)
    given: int | None = None
    reason: str = "the brokers' static min.insync.replicas is not in ZooKeeper: give --bootstrap-server to read it"


NOT_READ = StaticMinIsr()


@dataclass(frozen=True)
class ClusterSnapshot:
    """All cluster metadata in ZooKeeper at one point in time.

    ``zxid`` is the highest transaction id seen while reading, ``session_id`` the ZooKeeper session
    that read it (a snapshot that straddles a lost session is discarded by the reader).
    """

    taken_at_ms: int
    zookeeper: str
    zxid: int
    session_id: int
    cluster_id: ClusterId | Unreadable | None
    controller: ControllerInfo | Unreadable | None
    controller_epoch: int | Unreadable | None
    controller_epoch_zk_version: int | None
    brokers: Mapping[int, BrokerEntry]
    topics: Mapping[str, TopicEntry]
    deletion_markers: Mapping[str, ZnodeTimes]  # /admin/delete_topics/<t>, including unknown topics
    reassignment: ReassignmentRequest | Unreadable | None
    reassignment_times: ZnodeTimes | None
    preferred_election: PreferredElectionRequest | Unreadable | None
    preferred_election_times: ZnodeTimes | None
    topic_configs: Mapping[str, EntityConfig | Unreadable]  # every /config/topics child, orphans included
    broker_configs: Mapping[str, EntityConfig | Unreadable]  # /config/brokers/<id | <default>>
    isr_change_notifications: tuple[Notification, ...]
    log_dir_event_notifications: tuple[Notification, ...]
    config_change_notifications: tuple[Notification, ...]
    feature: FeatureZNode | Unreadable | None
    migration: MigrationState | Unreadable | None
    producer_id_block: ProducerIdBlock | Unreadable | None
    unreadable: tuple[Unreadable, ...] = field(default=())  # every Unreadable above, for quick listing
    # Not in ZooKeeper: what the brokers said through --bootstrap-server (never written to snapshot files).
    static_min_isr: StaticMinIsr = NOT_READ
    # The live console's model only: when its last full read of ZooKeeper finished (epoch ms); between
    # full reads it follows changes znode by znode (core.live.model). Never written to snapshot files.
    full_read_ms: int | None = None
    # Brokers in KRaft mode during a migration: gone from /brokers/ids but serving or in an ISR the KRaft
    # controller keeps (core.snapshot.kraft, the rule core.kafka.migration.broker_modes); alive. None: not
    # determined (no KRaft controller seen, or nobody asked); the snapshot file carries a determined set.
    kraft_brokers: frozenset[int] | None = None
    # The live console's model only, never written to snapshot files: the brokers DescribeCluster listed (None:
    # not asked), and whether /migration moves (the KRaft controller dual-writes; None: not observed).
    served_brokers: frozenset[int] | None = None
    migration_advancing: bool | None = None
    # How many delegation tokens /delegation_token/tokens holds (its child count, never the tokens): None when
    # the znode is absent. Migration readiness (core.consistency) relies on it.
    delegation_tokens: int | Unreadable | None = None
    # A moment rebuilt from the history store (kzc --at, core.history.moment.snapshot_of): the store keeps each
    # broker's rack and endpoint, not its registration version, so which release the brokers ran is not known.
    recorded: bool = False
    # Stats of znodes whose data the model keeps without them (ZooKeeper reads only; never in snapshot files):
    # /controller (when the current controller was elected), /config/topics/<t> and /config/brokers/<b>.
    # Not part of equality, as they are not in files.
    controller_times: ZnodeTimes | None = field(default=None, compare=False)
    topic_config_times: Mapping[str, ZnodeTimes] = field(default_factory=dict, compare=False)
    broker_config_times: Mapping[str, ZnodeTimes] = field(default_factory=dict, compare=False)

    @property
    def partition_count(self) -> int:
        """Number of partitions over all readable topic assignments."""
        return sum(len(t.partition_ids) for t in self.topics.values())

    def live_broker_ids(self) -> frozenset[int]:
        """Brokers registered in ``/brokers/ids`` (registered = alive, as Kafka's controller sees it), plus the
        brokers known to run in KRaft mode during a migration (they serve without registering in ZooKeeper)."""
        return frozenset(self.brokers) | (self.kraft_brokers or frozenset())

    def controller_id(self) -> int | None:
        """The active controller's broker id, or None (no or unreadable ``/controller``)."""
        return self.controller.broker_id if isinstance(self.controller, ControllerInfo) else None

    def iter_partitions(self) -> Iterator[tuple[str, int, tuple[int, ...], PartitionState | Unreadable | None]]:
        """(topic, partition, replicas, state) for every partition of every readable assignment."""
        for topic in self.topics.values():
            if isinstance(topic.assignment, Unreadable):
                continue
            for partition, replicas in topic.assignment.partitions:
                yield topic.name, partition, replicas, topic.states.get(partition)
