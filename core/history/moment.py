"""A recorded moment as a cluster snapshot: what the history store holds at that moment (``state_at``: the
partitions' replicas, leaders and ISRs, the registered brokers with their rack and first endpoint, the
controller) in the form the snapshot rules take, so that the one health derivation
(``core.snapshot.health``) and the likely cause (``core.snapshot.likely_cause``) judge a past moment as they
judge the present. What the store does not record (configs, admin requests, notifications, znode stats) is
absent, never made up.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from types import MappingProxyType

from core.history.diff import ClusterState, PartitionValue
from core.kafka.znodes import BrokerRegistration, ControllerInfo, Endpoint, PartitionState, TopicAssignment
from core.snapshot.model import BrokerEntry, ClusterSnapshot, TopicEntry, ZnodeTimes

_NO_TIMES = ZnodeTimes(0, 0, 0, 0, 0)


def snapshot_of(state: ClusterState, at_ms: int) -> ClusterSnapshot:
    """``state`` (a moment of the store) as a ``ClusterSnapshot`` taken at ``at_ms``."""
    by_topic: dict[str, dict[int, PartitionValue]] = defaultdict(dict)
    for (topic, partition), value in state.partitions.items():
        by_topic[topic][partition] = value
    return replay_snapshot(state.name, by_topic, state.brokers, state.controller, at_ms)


def replay_snapshot(
    name: str,
    topics: Mapping[str, Mapping[int, PartitionValue]],
    brokers: Mapping[int, tuple[str | None, str | None]],
    controller: int | None,
    at_ms: int,
    previous: ClusterSnapshot | None = None,
    changed: Collection[str] = (),
) -> ClusterSnapshot:
    """A moment (each topic's partitions, the brokers' rack and endpoint, the controller) as a ``ClusterSnapshot``
    taken at ``at_ms``. Given the ``previous`` snapshot, only the ``changed`` topics are built again: the others
    keep their very entries, so a view builder re-tallies only the changed ones."""
    entries: dict[str, TopicEntry] = {}
    kept = previous.topics if previous is not None else {}
    for topic in sorted(topics):
        entry = kept.get(topic)
        entries[topic] = entry if entry is not None and topic not in changed else _topic_entry(topic, topics[topic])
    registered = {
        b: BrokerEntry(b, _registration(b, rack, endpoint), _NO_TIMES) for b, (rack, endpoint) in brokers.items()
    }
    elected = ControllerInfo(controller, None, 1, None) if controller is not None else None
    return ClusterSnapshot(
        taken_at_ms=at_ms, zookeeper=name, zxid=0, session_id=0, cluster_id=None, controller=elected,
        controller_epoch=None, controller_epoch_zk_version=None, brokers=MappingProxyType(registered),
        topics=MappingProxyType(entries), deletion_markers=MappingProxyType({}), reassignment=None,
        reassignment_times=None, preferred_election=None, preferred_election_times=None,
        topic_configs=MappingProxyType({}), broker_configs=MappingProxyType({}), isr_change_notifications=(),
        log_dir_event_notifications=(), config_change_notifications=(), feature=None, migration=None,
        producer_id_block=None, kraft_brokers=frozenset(), recorded=True,
    )  # fmt: skip


def _topic_entry(topic: str, partitions: Mapping[int, PartitionValue]) -> TopicEntry:
    assigned = tuple((p, replicas) for p, (replicas, _, _) in sorted(partitions.items()) if replicas is not None)
    states = {
        p: PartitionState(leader, -1, isr, -1, 0, 1) if leader is not None and isr is not None else None
        for p, (_, leader, isr) in partitions.items()
    }
    return TopicEntry(
        topic, TopicAssignment(topic, 1, assigned, (), (), None), _NO_TIMES, MappingProxyType(states), None
    )


def _registration(broker: int, rack: str | None, endpoint: str | None) -> BrokerRegistration:
    endpoints: tuple[Endpoint, ...] = ()
    host, port = None, -1
    if endpoint is not None and ":" in endpoint:
        host, _, text = endpoint.rpartition(":")
        port = int(text) if text.isdigit() else -1
        endpoints = (Endpoint("PLAINTEXT", "PLAINTEXT", host, port),)
    # The store keeps no registration version: 5 lets the rules that read it take a modern broker (0.11+ health,
    # a rack allowed); the release shown says it is not known (ClusterSnapshot.recorded).
    return BrokerRegistration(broker, 5, host, port, -1, None, endpoints, rack, None, None)
