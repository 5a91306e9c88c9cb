"""A recorded moment as a cluster snapshot: what the history store holds at that moment (``state_at``: the
partitions' replicas, leaders and ISRs, the registered brokers with their rack and first endpoint, the
controller) in the form the snapshot rules take, so that the one health derivation
(``core.snapshot.health``) and the likely cause (``core.snapshot.likely_cause``) judge a past moment as they
judge the present. What the store does not record (configs, admin requests, notifications, znode stats) is
absent, never made up.
"""

from __future__ import annotations

from collections import defaultdict
from types import MappingProxyType

from core.history.diff import ClusterState
from core.kafka.znodes import BrokerRegistration, ControllerInfo, Endpoint, PartitionState, TopicAssignment
from core.snapshot.model import BrokerEntry, ClusterSnapshot, TopicEntry, ZnodeTimes

_NO_TIMES = ZnodeTimes(0, 0, 0, 0, 0)


def snapshot_of(state: ClusterState, at_ms: int) -> ClusterSnapshot:
    """``state`` (a moment of the store) as a ``ClusterSnapshot`` taken at ``at_ms``."""
    by_topic: dict[str, dict[int, tuple[tuple[int, ...] | None, int | None, tuple[int, ...] | None]]]
    by_topic = defaultdict(dict)
    for (topic, partition), value in state.partitions.items():
        by_topic[topic][partition] = value
    topics: dict[str, TopicEntry] = {}
    for topic, partitions in sorted(by_topic.items()):
        assigned = tuple((p, replicas) for p, (replicas, _, _) in sorted(partitions.items()) if replicas is not None)
        states = {
            p: PartitionState(leader, -1, isr, -1, 0, 1) if leader is not None and isr is not None else None
            for p, (_, leader, isr) in partitions.items()
        }
        assignment = TopicAssignment(topic, 1, assigned, (), (), None)
        topics[topic] = TopicEntry(topic, assignment, _NO_TIMES, MappingProxyType(states), None)
    brokers = {b: BrokerEntry(b, _registration(b, rack, endpoint), _NO_TIMES) for b, (rack, endpoint) in
               state.brokers.items()}  # fmt: skip
    controller = ControllerInfo(state.controller, None, 1, None) if state.controller is not None else None
    return ClusterSnapshot(
        taken_at_ms=at_ms, zookeeper=state.name, zxid=0, session_id=0, cluster_id=None, controller=controller,
        controller_epoch=None, controller_epoch_zk_version=None, brokers=MappingProxyType(brokers),
        topics=MappingProxyType(topics), deletion_markers=MappingProxyType({}), reassignment=None,
        reassignment_times=None, preferred_election=None, preferred_election_times=None,
        topic_configs=MappingProxyType({}), broker_configs=MappingProxyType({}), isr_change_notifications=(),
        log_dir_event_notifications=(), config_change_notifications=(), feature=None, migration=None,
        producer_id_block=None, kraft_brokers=frozenset(), recorded=True,
    )  # fmt: skip


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
