"""Hand-built check cases: snapshots made from Kafka's own JSON through kzc's parsers (as the snapshot reader
builds them), and ``CASES`` (name -> builder, the check ids it must fire), which both check engines run.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import (
    Unreadable,
    parse_broker,
    parse_cluster_id,
    parse_config_change,
    parse_controller,
    parse_entity_config,
    parse_isr_change,
    parse_log_dir_event,
    parse_partition_state,
    parse_reassignment,
    parse_topic,
)
from core.kafka.znodes.paths import (
    CLUSTER_ID,
    CONFIG_CHANGE_PREFIX,
    CONFIG_CHANGES,
    CONTROLLER,
    DELEGATION_TOKENS,
    ISR_CHANGE_NOTIFICATIONS,
    ISR_CHANGE_PREFIX,
    LOG_DIR_EVENT_NOTIFICATIONS,
    LOG_DIR_EVENT_PREFIX,
    REASSIGN_PARTITIONS,
    broker_config_path,
    broker_path,
    child_path,
    state_path,
    topic_config_path,
    topic_path,
)
from core.snapshot.kraft import with_served_kraft_brokers
from core.snapshot.model import BrokerEntry, ClusterSnapshot, Notification, TopicEntry, ZnodeTimes
from core.testdata.builder import snapshot

NOW = 1_700_000_000_000
MINUTE = 60_000


def times(ctime: int = NOW - 60 * MINUTE, version: int = 0) -> ZnodeTimes:
    return ZnodeTimes(czxid=1, mzxid=1, ctime_ms=ctime, mtime_ms=ctime, version=version)


def broker_json(broker_id: int, rack: str | None = "auto", version: int = 5, **extra: Any) -> bytes:
    data: dict[str, Any] = {
        "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
        "endpoints": [f"PLAINTEXT://127.0.0.1:{9090 + broker_id}"],
        "jmx_port": -1,
        "features": {},
        "host": "127.0.0.1",
        "timestamp": str(NOW),
        "port": 9090 + broker_id,
        "version": version,
    }
    if rack == "auto":
        data["rack"] = f"r{broker_id}"
    elif rack is not None:
        data["rack"] = rack
    data.update(extra)
    return json.dumps(data).encode()


def state_json(leader: int, isr: list[int], epoch: int = 5, leader_epoch: int = 0) -> bytes:
    return json.dumps(
        {"controller_epoch": epoch, "leader": leader, "version": 1, "leader_epoch": leader_epoch, "isr": isr}
    ).encode()


def topic_json(partitions: Mapping[int, list[int]], **extra: Any) -> bytes:
    data: dict[str, Any] = {
        "version": 3,
        "partitions": {str(p): r for p, r in partitions.items()},
        "adding_replicas": {},
        "removing_replicas": {},
        "topic_id": "AAAAAAAAAAAAAAAAAAAAAQ",
    }
    data.update(extra)
    return json.dumps(data).encode()


StateSpec = bytes | None


def build(
    *,
    brokers: Mapping[int, bytes] | None = None,
    topics: Mapping[str, bytes] | None = None,
    states: Mapping[TopicPartition, StateSpec] | None = None,
    topic_configs: Mapping[str, bytes] | None = None,
    broker_configs: Mapping[str, bytes] | None = None,
    controller: bytes | None = b'{"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1}',
    controller_epoch: int | None = 5,
    markers: Mapping[str, int] | None = None,
    reassignment: bytes | None = None,
    isr_changes: Mapping[str, int] | None = None,
    log_dir_events: Mapping[str, int] | None = None,
    config_changes: Mapping[str, int] | None = None,
    extra_unreadable: tuple[Unreadable, ...] = (),
    cluster_id: bytes | None = None,
    delegation_tokens: int | Unreadable | None = None,
) -> ClusterSnapshot:
    """A snapshot as the reader would build it from these znodes (data as Kafka writes it)."""
    unreadable: list[Unreadable] = list(extra_unreadable)

    def track(value: Any) -> Any:
        if isinstance(value, Unreadable):
            unreadable.append(value)
        return value

    broker_data = brokers if brokers is not None else {b: broker_json(b) for b in (1, 2, 3)}
    broker_entries = {
        b: BrokerEntry(b, track(parse_broker(broker_path(b), data)), times()) for b, data in broker_data.items()
    }
    configs = {
        name: track(parse_entity_config(topic_config_path(name), data)) for name, data in (topic_configs or {}).items()
    }
    topic_entries = {}
    for name, data in (topics or {}).items():
        assignment = track(parse_topic(topic_path(name), data))
        listed = () if isinstance(assignment, Unreadable) else assignment.partition_ids
        topic_states: dict[int, Any] = {}
        for p in listed:
            spec = (states or {}).get((name, p), b"auto")
            if spec == b"auto":
                replicas = assignment.replicas(p)
                spec = state_json(replicas[0], list(replicas)) if replicas else None
            topic_states[p] = spec
        for (t, p), spec in (states or {}).items():
            if t == name and p not in listed:
                topic_states[p] = spec
        parsed = {
            p: None if spec is None else track(parse_partition_state(state_path(name, p), spec))
            for p, spec in sorted(topic_states.items())
        }
        topic_entries[name] = TopicEntry(name, assignment, times(), MappingProxyType(parsed), configs.get(name))

    def notes(parent: str, prefix: str, parse: Callable[[str, bytes], Any], items: Mapping[str, int] | None) -> Any:
        out = []
        for seq, (data, ctime) in enumerate((items or {}).items()):
            name = f"{prefix}{seq:010d}"
            out.append(Notification(name, ctime, track(parse(child_path(parent, name), data.encode()))))
        return tuple(out)

    return snapshot(
        brokers=broker_entries.values(),
        topics=topic_entries.values(),
        controller=None if controller is None else track(parse_controller(CONTROLLER, controller)),
        markers={t: times(c) for t, c in (markers or {}).items()},
        reassignment=None if reassignment is None else track(parse_reassignment(REASSIGN_PARTITIONS, reassignment)),
        broker_configs={
            n: track(parse_entity_config(broker_config_path(n), d)) for n, d in (broker_configs or {}).items()
        },
        notifications={
            "isr_change": notes(ISR_CHANGE_NOTIFICATIONS, ISR_CHANGE_PREFIX, parse_isr_change, isr_changes),
            "log_dir_event": notes(
                LOG_DIR_EVENT_NOTIFICATIONS, LOG_DIR_EVENT_PREFIX, parse_log_dir_event, log_dir_events
            ),
            "config_change": notes(CONFIG_CHANGES, CONFIG_CHANGE_PREFIX, parse_config_change, config_changes),
        },
        topic_configs=configs,
        taken_at_ms=NOW,
        zookeeper="127.0.0.1:2181/kafka",
        zxid=100,
        session_id=1,
        cluster_id=None if cluster_id is None else track(parse_cluster_id(CLUSTER_ID, cluster_id)),
        controller_epoch=controller_epoch,
        controller_epoch_zk_version=controller_epoch,
        reassignment_times=None if reassignment is None else times(),
        delegation_tokens=track(delegation_tokens),
        unreadable=tuple(sorted(unreadable, key=lambda u: u.path)),  # last: every part above is parsed first
    )


RF3 = {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}


def healthy(**overrides: Any) -> ClusterSnapshot:
    """Three brokers on three racks, controller 1, topic 'orders' with 3 partitions in sync at their
    preferred leaders, plus whatever ``overrides`` changes."""
    args: dict[str, Any] = {
        "topics": {"orders": topic_json(RF3)},
        "topic_configs": {"orders": b'{"version":1,"config":{}}'},
    }
    args.update(overrides)
    return build(**args)


def with_states(**states: StateSpec) -> dict[TopicPartition, StateSpec]:
    """``{"orders-1": data}`` keyword style for the states of 'orders'."""
    return {("orders", int(k.rsplit("_", 1)[1])): v for k, v in states.items()}


KRAFT_CONTROLLER = b'{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":4}'


def kraft_moved(served: tuple[int, ...] | None = None, **overrides: Any) -> ClusterSnapshot:
    """``healthy`` in the phase "brokers moving to KRaft": a KRaft controller holds /controller and broker 3
    left /brokers/ids for KRaft; its mode as ``core.snapshot.kraft`` determines it (``served``: what
    DescribeCluster lists, None: not asked, the ISR tells)."""
    args: dict[str, Any] = {"controller": KRAFT_CONTROLLER, "brokers": {1: broker_json(1), 2: broker_json(2)}}
    args.update(overrides)
    return with_served_kraft_brokers(healthy(**args), served)


# name -> (builder, checks that must fire)
CASES: dict[str, tuple[Callable[[], ClusterSnapshot], set[str]]] = {
    "healthy": (healthy, set()),
    "no_controller": (lambda: healthy(controller=None), {"no_controller"}),
    "controller_not_registered": (
        lambda: healthy(controller=b'{"version":1,"brokerid":7,"timestamp":"1"}'),
        {"controller_not_registered"},
    ),
    "kraft_controller_is_fine": (lambda: healthy(controller=KRAFT_CONTROLLER), set()),
    # Broker 3 rolled to KRaft during a migration: gone from /brokers/ids, still in every ISR: alive, so nothing
    # is under-replicated, on an unknown broker or on too few racks (its rack is not in ZooKeeper).
    "kraft_broker_is_alive": (lambda: kraft_moved(), set()),
    # The same broker, but the brokers (DescribeCluster) do not list it: gone, its replicas offline.
    "kraft_broker_not_served_is_dead": (
        lambda: kraft_moved(served=(1, 2), states=with_states(p_2=state_json(1, [1, 2]))),
        {"under_replicated", "replica_on_unknown_broker", "preferred_leader_not_leader"},
    ),
    "broker_registration_unreadable": (
        lambda: healthy(brokers={1: broker_json(1), 2: broker_json(2), 3: b'{"version":4,"jmx_port":-1}'}),
        {"broker_registration_invalid"},
    ),
    "broker_registration_version_mismatch": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2), 3: broker_json(3, version=4)},
        ),
        {"broker_registration_invalid"},
    ),
    "broker_duplicate_endpoint": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2), 3: broker_json(3, endpoints=["PLAINTEXT://127.0.0.1:9091"])}
        ),
        {"broker_registration_invalid"},
    ),
    "partial_racks": (
        lambda: healthy(brokers={1: broker_json(1), 2: broker_json(2), 3: broker_json(3, rack=None)}),
        {"rack_violation"},
    ),
    "replicas_share_a_rack": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2, rack="r1"), 3: broker_json(3)},
            topics={"orders": topic_json({0: [1, 2], 1: [2, 3], 2: [3, 1]})},
        ),
        {"rack_violation"},
    ),
    "unreadable_state": (
        lambda: healthy(states=with_states(p_1=b'{"leader":1}')),
        {"unreadable_znode", "offline_partition", "under_replicated", "under_min_isr"},
    ),
    "unreadable_topic": (lambda: healthy(topics={"orders": b"not json"}), {"unreadable_znode"}),
    "topic_name_invalid": (
        lambda: healthy(topics={"orders": topic_json(RF3), "bad name!": topic_json({0: [1, 2, 3]})}),
        {"topic_name_invalid"},
    ),
    "topic_name_collision": (
        lambda: healthy(
            topics={"orders": topic_json(RF3), "a.b": topic_json({0: [1, 2, 3]}), "a_b": topic_json({0: [2, 3, 1]})}
        ),
        {"topic_name_collision"},
    ),
    "non_contiguous_partitions": (
        lambda: healthy(topics={"orders": topic_json({0: [1, 2, 3], 2: [3, 1, 2], 5: [2, 3, 1]})}),
        {"non_contiguous_partitions"},
    ),
    "inconsistent_replication_factor": (
        lambda: healthy(topics={"orders": topic_json({0: [1, 2, 3], 1: [2, 3], 2: [3, 1, 2]})}),
        {"inconsistent_replication_factor"},
    ),
    "duplicate_replica": (
        lambda: healthy(
            topics={"orders": topic_json({0: [1, 2, 1], 1: [2, 3, 1], 2: [3, 1, 2]})},
            states=with_states(p_0=state_json(1, [1, 2])),
        ),
        # The ISR (2) is shorter than the replica list (3), which is what Kafka's tool compares.
        {"duplicate_replica", "inconsistent_replication_factor", "under_replicated"},
    ),
    # Kafka's tool lists a partition without a state as unavailable, under-replicated and under min ISR.
    "partition_state_missing": (
        lambda: healthy(states=with_states(p_2=None)),
        {"partition_state_missing", "offline_partition", "under_replicated", "under_min_isr"},
    ),
    "orphan_partition_state": (
        lambda: healthy(states=with_states(p_7=state_json(1, [1, 2, 3]))),
        {"orphan_partition_state"},
    ),
    "empty_isr": (
        # Partition 1 is one of its preferred broker's partitions: offline, it counts as not led by it (as Kafka's
        # controller counts it), above the 10 % threshold of this small cluster.
        lambda: healthy(states=with_states(p_1=state_json(-1, []))),
        {"empty_isr", "offline_partition", "under_replicated", "under_min_isr", "leader_imbalance"},
    ),
    "leader_not_in_isr": (
        lambda: healthy(states=with_states(p_0=state_json(1, [2, 3]))),
        {"leader_not_in_isr", "under_replicated"},
    ),
    "isr_not_subset_of_replicas": (
        lambda: healthy(states=with_states(p_0=state_json(1, [1, 2, 3, 9]))),
        {"isr_not_subset_of_replicas"},
    ),
    "controller_epoch_ahead": (
        lambda: healthy(states=with_states(p_0=state_json(1, [1, 2, 3], epoch=9))),
        {"controller_epoch_ahead"},
    ),
    "offline_no_leader": (
        lambda: healthy(states=with_states(p_0=state_json(-1, [1]))),
        {"offline_partition", "under_replicated", "under_min_isr", "leader_imbalance"},
    ),
    "offline_dead_leader": (
        # The controller is gone too (no ISR shrink): broker 3 is still in the ISRs of partitions 0 and 1.
        lambda: healthy(brokers={1: broker_json(1), 2: broker_json(2)}, states=with_states(p_2=state_json(3, [3]))),
        {"offline_partition", "under_replicated", "under_min_isr", "replica_on_unknown_broker"},
    ),
    "under_replicated": (lambda: healthy(states=with_states(p_1=state_json(2, [2, 3]))), {"under_replicated"}),
    "under_min_isr_topic_override": (
        lambda: healthy(
            topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":" +3 "}}'},
            states=with_states(p_1=state_json(2, [2, 3])),
        ),
        {"under_min_isr", "under_replicated"},
    ),
    "under_min_isr_cluster_default": (
        lambda: healthy(
            broker_configs={"<default>": b'{"version":1,"config":{"min.insync.replicas":"3"}}'},
            states=with_states(p_1=state_json(2, [2, 3])),
        ),
        {"under_min_isr", "under_replicated"},
    ),
    "under_min_isr_leader_dynamic": (
        # Broker 2's own dynamic value applies to the partitions it leads, over the cluster default.
        lambda: healthy(
            broker_configs={
                "<default>": b'{"version":1,"config":{"min.insync.replicas":"1"}}',
                "2": b'{"version":1,"config":{"min.insync.replicas":"3"}}',
            },
            states=with_states(p_0=state_json(1, [1, 2]), p_1=state_json(2, [2, 3])),
        ),
        {"under_min_isr", "under_replicated"},
    ),
    "reassignment_growing_replication_factor": (
        # Adding replicas do not count: the original replica in sync is all the factor asks for.
        lambda: healthy(
            topics={"orders": topic_json({0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}, adding_replicas={"0": [2, 3]})},
            states=with_states(p_0=state_json(1, [1])),
        ),
        {"reassignment_in_progress"},
    ),
    "replica_on_unknown_broker": (
        lambda: healthy(
            topics={"orders": topic_json({0: [1, 2, 9], 1: [2, 3, 1], 2: [3, 1, 2]})},
            states=with_states(p_0=state_json(1, [1, 2, 9])),
        ),
        {"replica_on_unknown_broker"},
    ),
    "leader_imbalance": (
        lambda: healthy(states=with_states(p_0=state_json(2, [1, 2, 3]))),
        {"leader_imbalance", "preferred_leader_not_leader"},
    ),
    "deletion_pending": (lambda: healthy(markers={"orders": NOW - MINUTE}), {"deletion_pending"}),
    "deletion_stuck_offline_replica": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2)},
            markers={"orders": NOW - MINUTE},
            states=with_states(p_0=state_json(-1, [1]), p_1=state_json(-1, [2]), p_2=state_json(-1, [3])),
        ),
        {
            "deletion_stuck",
            "offline_partition",
            "under_replicated",
            "under_min_isr",
        },  # queued topics count as Kafka's tool counts them
    ),
    "deletion_stuck_unreadable_topic": (
        lambda: healthy(topics={"orders": b"not json"}, markers={"orders": NOW - MINUTE}),
        {"unreadable_znode", "deletion_stuck"},
    ),
    "deletion_stuck_old_marker": (lambda: healthy(markers={"orders": NOW - 20 * MINUTE}), {"deletion_stuck"}),
    "stale_deletion_marker": (lambda: healthy(markers={"gone": NOW - MINUTE}), {"stale_deletion_marker"}),
    "orphan_topic_config": (
        lambda: healthy(topic_configs={"orders": b'{"version":1,"config":{}}', "gone": b'{"version":1,"config":{}}'}),
        {"orphan_topic_config"},
    ),
    "reassignment_in_progress": (
        lambda: healthy(
            # Partition 0 moves from [1,2] to [2,3]; every partition keeps replication factor 2.
            topics={
                "orders": topic_json(
                    {0: [1, 2, 3], 1: [2, 3], 2: [3, 1]}, adding_replicas={"0": [3]}, removing_replicas={"0": [1]}
                )
            },
            states=with_states(p_0=state_json(1, [1, 2])),
        ),
        {"reassignment_in_progress"},
    ),
    "reassignment_requested": (
        lambda: healthy(
            reassignment=b'{"version":1,"partitions":[{"topic":"orders","partition":1,"replicas":[3,2,1]}]}'
        ),
        {"reassignment_in_progress"},
    ),
    "invalid_reassignment_missing_topic": (
        lambda: healthy(reassignment=b'{"version":1,"partitions":[{"topic":"nope","partition":0,"replicas":[1]}]}'),
        {"invalid_reassignment_request"},
    ),
    "invalid_reassignment_bad_replicas": (
        lambda: healthy(
            reassignment=b'{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,1,9]}]}'
        ),
        {"invalid_reassignment_request", "reassignment_in_progress"},
    ),
    "invalid_reassignment_in_topic_znode": (
        lambda: healthy(topics={"orders": topic_json(RF3, adding_replicas={"1": [4]}, removing_replicas={"1": [4]})}),
        {"invalid_reassignment_request", "reassignment_in_progress"},
    ),
    "notification_backlog": (
        lambda: healthy(
            isr_changes={'{"version":1,"partitions":[{"topic":"orders","partition":0}]}': NOW - 30 * MINUTE},
            log_dir_events={'{"version":1,"broker":2,"event":1}': NOW - 16 * MINUTE},
            config_changes={
                '{"version":2,"entity_path":"topics/orders"}': NOW - 40 * MINUTE,
                '{"version":2,"entity_path":"topics/a"}': NOW - 2 * MINUTE,
            },
        ),
        {"notification_backlog"},
    ),
    "recent_notifications_are_fine": (
        lambda: healthy(
            isr_changes={'{"version":1,"partitions":[{"topic":"orders","partition":0}]}': NOW - MINUTE},
            config_changes={'{"version":2,"entity_path":"topics/orders"}': NOW - 300 * MINUTE},
        ),
        set(),
    ),
    "unreadable_notification": (lambda: healthy(isr_changes={"{": NOW}), {"unreadable_znode"}),
}

CLUSTER_ID_JSON = b'{"version":"1","id":"VWERpMGtRWKlQcCMpYd6AQ"}'


def migration_ready(**overrides: Any) -> ClusterSnapshot:
    """``healthy`` with a cluster id: nothing blocks a ZooKeeper-to-KRaft migration."""
    return healthy(**{"cluster_id": CLUSTER_ID_JSON, **overrides})


def _old_broker(broker_id: int) -> bytes:
    data = json.loads(broker_json(broker_id, version=4))
    del data["features"]  # a v4 registration (inter.broker.protocol.version below 2.7-IV0)
    return json.dumps(data).encode()


# name -> (builder, checks that must fire), run with only=MIGRATION_CHECKS (the readiness checks run when asked).
MIGRATION_CASES: dict[str, tuple[Callable[[], ClusterSnapshot], set[str]]] = {
    "migration_ready": (migration_ready, set()),
    "migration_cluster_id_missing": (healthy, {"migration_cluster_id_missing"}),
    "migration_cluster_id_unreadable": (
        lambda: migration_ready(cluster_id=b'{"version":1,"id":"x"}'),
        {"migration_cluster_id_missing"},
    ),
    "migration_protocol_too_old": (
        lambda: migration_ready(brokers={1: _old_broker(1), 2: broker_json(2), 3: _old_broker(3)}),
        {"migration_protocol_too_old"},
    ),
    "migration_reassignment_pending": (
        lambda: migration_ready(
            topics={
                "orders": topic_json(
                    {0: [1, 2, 3], 1: [2, 3], 2: [3, 1]}, adding_replicas={"0": [3]}, removing_replicas={"0": [1]}
                ),
                "other": topic_json({0: [1, 2]}),
            },
            reassignment=b'{"version":1,"partitions":[{"topic":"other","partition":0,"replicas":[2,3]}]}',
        ),
        {"migration_reassignment_pending"},
    ),
    "migration_deletion_pending": (
        lambda: migration_ready(markers={"orders": NOW - MINUTE, "gone": NOW - MINUTE}),
        {"migration_deletion_pending"},
    ),
    "migration_leaderless_partition": (
        lambda: migration_ready(states=with_states(p_0=state_json(-1, [1]))),
        {"migration_leaderless_partition"},
    ),
    "migration_delegation_tokens": (lambda: migration_ready(delegation_tokens=2), {"migration_delegation_tokens"}),
    "migration_delegation_tokens_uncounted": (
        lambda: migration_ready(delegation_tokens=Unreadable(DELEGATION_TOKENS, b"", "kzc may not read it (NoAuth)")),
        {"migration_delegation_tokens"},
    ),
    "migration_no_delegation_tokens": (lambda: migration_ready(delegation_tokens=0), set()),
}
