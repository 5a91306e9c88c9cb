"""Hand-built ``ClusterSnapshot`` values, piece by piece: healthy by default, every part overridable.

The one builder of synthetic clusters: the unit tests use it directly, ``core.testdata.checks`` (clusters
from Kafka's own JSON, through the parsers) and ``core.testdata.snapshots`` (large realistic clusters) make
their parts and hand them to ``snapshot``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType

from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ControllerInfo,
    Endpoint,
    EntityConfig,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.snapshot.model import BrokerEntry, ClusterSnapshot, Notification, TopicEntry, ZnodeTimes

NOW_MS = 1_700_000_000_000


def times(czxid: int = 10, ctime_ms: int = NOW_MS - 60_000, version: int = 0) -> ZnodeTimes:
    """Stat times of a znode created a minute before ``NOW_MS``."""
    return ZnodeTimes(czxid, czxid, ctime_ms, ctime_ms, version)


def registration(broker_id: int, rack: str | None = None, version: int = 5) -> BrokerRegistration:
    """A registration with one PLAINTEXT listener on ``h<id>:9092``."""
    return BrokerRegistration(
        broker_id=broker_id,
        version=version,
        host=f"h{broker_id}",
        port=9092,
        jmx_port=-1,
        timestamp_ms=NOW_MS - 60_000,
        endpoints=(Endpoint("PLAINTEXT", "PLAINTEXT", f"h{broker_id}", 9092),),
        rack=rack,
        listener_security_protocol_map=(("PLAINTEXT", "PLAINTEXT"),) if version >= 4 else None,
        features=() if version >= 5 else None,
    )


def broker(broker_id: int, rack: str | None = None, version: int = 5) -> BrokerEntry:
    """A registered broker."""
    return BrokerEntry(broker_id, registration(broker_id, rack, version), times(czxid=100 + broker_id))


def state(leader: int, isr: Iterable[int], leader_epoch: int = 0, controller_epoch: int = 5) -> PartitionState:
    """A partition state."""
    return PartitionState(leader, leader_epoch, tuple(isr), controller_epoch, 0, 1)


def config(**values: str) -> EntityConfig:
    """An entity config; keys with ``_`` stand for ``.`` (``min_insync_replicas``)."""
    return EntityConfig(1, tuple((k.replace("_", "."), v) for k, v in values.items()))


def topic(
    name: str,
    partitions: Mapping[int, Iterable[int]],
    states: Mapping[int, PartitionState | Unreadable | None] | None = None,
    adding: Mapping[int, Iterable[int]] | None = None,
    removing: Mapping[int, Iterable[int]] | None = None,
    topic_config: EntityConfig | Unreadable | None = None,
    assignment: Unreadable | None = None,
) -> TopicEntry:
    """A topic; partitions without a given state are healthy (leader = first replica, ISR = replicas)."""
    parts = tuple(sorted((p, tuple(r)) for p, r in partitions.items()))
    value: TopicAssignment | Unreadable = assignment or TopicAssignment(
        topic=name,
        version=3,
        partitions=parts,
        adding=tuple(sorted((p, tuple(r)) for p, r in (adding or {}).items())),
        removing=tuple(sorted((p, tuple(r)) for p, r in (removing or {}).items())),
        topic_id="AAAAAAAAAAAAAAAAAAAAAQ",
    )
    full: dict[int, PartitionState | Unreadable | None] = {p: state(r[0], r) for p, r in parts if r}
    full.update(states or {})
    return TopicEntry(name, value, times(), MappingProxyType(dict(sorted(full.items()))), topic_config)


def snapshot(
    brokers: Iterable[BrokerEntry | int] = (1, 2, 3),
    topics: Iterable[TopicEntry] = (),
    controller: int | ControllerInfo | Unreadable | None = 1,
    markers: Iterable[str] | Mapping[str, ZnodeTimes] = (),
    reassignment: ReassignmentRequest | Unreadable | None = None,
    preferred_election: PreferredElectionRequest | Unreadable | None = None,
    broker_configs: Mapping[str, EntityConfig | Unreadable] | None = None,
    notifications: Mapping[str, tuple[Notification, ...]] | None = None,
    unreadable: tuple[Unreadable, ...] = (),
    topic_configs: Mapping[str, EntityConfig | Unreadable] | None = None,
    **extra: object,
) -> ClusterSnapshot:
    """A snapshot: ``controller`` is a broker id (or the parsed znode), ``markers`` topic names (or their
    times); ``topic_configs`` default to the topics' configs; ``extra`` sets any other field."""
    entries = [b if isinstance(b, BrokerEntry) else broker(b) for b in brokers]
    topic_list = list(topics)
    notes = notifications or {}
    if isinstance(markers, Mapping):
        marker_times = dict(markers)
    else:
        marker_times = {m: times(ctime_ms=NOW_MS - 600_000) for m in markers}
    if isinstance(controller, int):
        controller = ControllerInfo(controller, NOW_MS - 30_000, 2, -1)
    if topic_configs is None:
        topic_configs = {t.name: t.config for t in topic_list if t.config is not None}
    fields: dict[str, object] = {
        "taken_at_ms": NOW_MS,
        "zookeeper": "zk1:2181/kafka",
        "zxid": 4242,
        "session_id": 77,
        "cluster_id": ClusterId("1", "AAAAAAAAAAAAAAAAAAAAAg"),
        "controller": controller,
        "controller_epoch": 5,
        "controller_epoch_zk_version": 4,
        "brokers": MappingProxyType({b.broker_id: b for b in entries}),
        "topics": MappingProxyType({t.name: t for t in topic_list}),
        "deletion_markers": MappingProxyType(marker_times),
        "reassignment": reassignment,
        "reassignment_times": None if reassignment is None else times(),
        "preferred_election": preferred_election,
        "preferred_election_times": None if preferred_election is None else times(),
        "topic_configs": MappingProxyType(dict(topic_configs)),
        "broker_configs": MappingProxyType(dict(broker_configs or {})),
        "isr_change_notifications": notes.get("isr_change", ()),
        "log_dir_event_notifications": notes.get("log_dir_event", ()),
        "config_change_notifications": notes.get("config_change", ()),
        "feature": None,
        "migration": None,
        "producer_id_block": None,
        "unreadable": unreadable,
    }
    fields.update(extra)
    return ClusterSnapshot(**fields)  # type: ignore[arg-type]
