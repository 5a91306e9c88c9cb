"""``core.live.events``: every event kind's one-line description and its JSON, with real znode data."""

from __future__ import annotations

import json

import pytest

from core.kafka.znodes import (
    BrokerRegistration,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
    parse_broker,
    parse_partition_state,
    parse_preferred_election,
    parse_reassignment,
    parse_topic,
)
from core.live.events import (
    EVENT_KINDS,
    BrokerLeft,
    BrokerRegistered,
    BrokerUpdated,
    ControllerEpochChanged,
    ControllerMoved,
    DeletionFinished,
    DeletionQueued,
    HealthChanged,
    IsrChanged,
    IsrNotificationsChanged,
    LeaderChanged,
    LogDirEventsChanged,
    MigrationPhaseChanged,
    PartitionStateChanged,
    PreferredElectionChanged,
    ReassignmentChanged,
    Resynced,
    SessionStateChanged,
    TopicAssignmentChanged,
    TopicCreated,
    TopicRemoved,
    ZnodeUnreadable,
)
from core.live.health_sets import HealthSets, health_changed
from core.live.live_event import LiveEvent
from core.live.timed import TimedEvent
from core.zookeeper.session import ConnectionState


def _broker(broker_id: int, port: int, rack: str | None = "r2") -> BrokerRegistration:
    doc = {
        "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
        "endpoints": [f"PLAINTEXT://127.0.0.1:{port}"],
        "jmx_port": -1,
        "features": {},
        "host": "127.0.0.1",
        "timestamp": "1700000000000",
        "port": port,
        "version": 5,
    }
    if rack is not None:
        doc["rack"] = rack
    value = parse_broker(f"/brokers/ids/{broker_id}", json.dumps(doc).encode())
    assert isinstance(value, BrokerRegistration)
    return value


def _state(leader: int, isr: list[int], leader_epoch: int, controller_epoch: int = 7) -> PartitionState:
    doc = {"controller_epoch": controller_epoch, "leader": leader, "version": 1, "leader_epoch": leader_epoch}
    value = parse_partition_state("/brokers/topics/orders/partitions/3/state", json.dumps({**doc, "isr": isr}).encode())
    assert isinstance(value, PartitionState)
    return value


def _assignment(partitions: dict[str, list[int]], adding: dict[str, list[int]] | None = None) -> TopicAssignment:
    doc = {
        "version": 3,
        "topic_id": "cCkPzMDaTU2IavXK8TQk5w",
        "partitions": partitions,
        "adding_replicas": adding or {},
        "removing_replicas": {},
    }
    value = parse_topic("/brokers/topics/orders", json.dumps(doc).encode())
    assert isinstance(value, TopicAssignment)
    return value


def _reassignment() -> ReassignmentRequest:
    doc = {"version": 1, "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2]}]}
    value = parse_reassignment("/admin/reassign_partitions", json.dumps(doc).encode())
    assert isinstance(value, ReassignmentRequest)
    return value


def _election() -> PreferredElectionRequest:
    doc = {"version": 1, "partitions": [{"topic": "orders", "partition": p} for p in range(5)]}
    value = parse_preferred_election("/admin/preferred_replica_election", json.dumps(doc).encode())
    assert isinstance(value, PreferredElectionRequest)
    return value


BAD = Unreadable("/brokers/ids/2", b"{", "not JSON: Expecting property name enclosed in double quotes")

CASES: list[tuple[LiveEvent, str]] = [
    (ControllerMoved(1, 3, 8), "controller moved 1 -> 3 (epoch 8)"),
    (ControllerMoved(None, 3, 8), "controller elected: broker 3 (epoch 8)"),
    (ControllerMoved(1, None, 7), "controller gone: broker 1 no longer holds /controller, no controller now (epoch 7)"),
    (ControllerMoved(2, 2, 9), "controller re-elected: broker 2 (epoch 9)"),
    (ControllerEpochChanged(7, 8), "controller epoch 7 -> 8"),
    (ControllerEpochChanged(None, 1), "controller epoch is 1"),
    (ControllerEpochChanged(4, None), "controller epoch znode removed (was 4)"),
    (BrokerRegistered(2, _broker(2, 9094)), "broker 2 registered (127.0.0.1:9094, rack r2)"),
    (BrokerRegistered(2, _broker(2, 9094, rack=None)), "broker 2 registered (127.0.0.1:9094)"),
    (BrokerRegistered(2, BAD), f"broker 2 registered (registration unreadable: {BAD.reason})"),
    (BrokerLeft(2, _broker(2, 9094)), "broker 2 left (127.0.0.1:9094)"),
    (BrokerLeft(2, None), "broker 2 left"),
    (
        BrokerUpdated(2, _broker(2, 9094), _broker(2, 9095, rack="r3")),
        "broker 2 registration updated: endpoints 127.0.0.1:9094 -> 127.0.0.1:9095, rack r2 -> r3",
    ),
    (BrokerUpdated(2, _broker(2, 9094), BAD), f"broker 2 registration updated, now unreadable: {BAD.reason}"),
    (TopicCreated("orders"), "topic orders created"),
    (TopicRemoved("orders"), "topic orders removed"),
    (
        TopicAssignmentChanged("orders", _assignment({"0": [1, 2]}), _assignment({"0": [1, 2], "1": [2, 3]})),
        "topic orders assignment changed: partitions 1 -> 2",
    ),
    (
        TopicAssignmentChanged("orders", _assignment({"0": [1]}), _assignment({"0": [1, 2]}, adding={"0": [2]})),
        "topic orders assignment changed: replicas orders-0 [1] -> [1,2]; reassigning orders-0",
    ),
    (
        TopicAssignmentChanged("orders", _assignment({"0": [1]}), None),
        "topic orders assignment removed (topic deleted)",
    ),
    (
        TopicAssignmentChanged("orders", None, _assignment({"0": [1], "1": [2]})),
        "topic orders assignment is now readable: 2 partitions",
    ),
    (DeletionQueued("orders"), "topic orders queued for deletion"),
    (DeletionFinished("orders"), "deletion of topic orders finished (marker removed)"),
    (
        DeletionFinished("orders", topic_still_exists=True),
        "deletion marker of topic orders removed but the topic still exists "
        "(deletion refused: delete.topic.enable=false?)",
    ),
    (ReassignmentChanged(_reassignment()), "partition reassignment pending: 1 partition (orders-0 -> [1,2])"),
    (ReassignmentChanged(None), "partition reassignment finished (/admin/reassign_partitions removed)"),
    (
        PreferredElectionChanged(_election()),
        "preferred leader election requested for 5 partitions (orders-0, orders-1, orders-2, ... 2 more)",
    ),
    (PreferredElectionChanged(None), "preferred leader election done (/admin/preferred_replica_election removed)"),
    (IsrNotificationsChanged(2), "ISR change notifications pending: 2"),
    (IsrNotificationsChanged(0), "ISR change notifications: none pending"),
    (LogDirEventsChanged(1), "log dir failure notifications pending: 1"),
    (LogDirEventsChanged(0), "log dir failure notifications: none pending"),
    (
        PartitionStateChanged("orders", 3, _state(1, [1, 2, 3], 4), _state(2, [2, 3], 5)),
        "orders-3 state changed: leader 1 -> 2, ISR [1,2,3] -> [2,3], leader epoch 4 -> 5",
    ),
    (
        PartitionStateChanged("orders", 3, None, _state(1, [1, 2, 3], 0)),
        "orders-3 state created: leader 1, ISR [1,2,3], leader epoch 0",
    ),
    (PartitionStateChanged("orders", 3, _state(1, [1], 0), None), "orders-3 state removed"),
    (IsrChanged("orders", 3, (1, 2, 3), (1, 3)), "orders-3 ISR [1,2,3] -> [1,3] ([2] left)"),
    (IsrChanged("orders", 3, (1, 3), (1, 3, 2)), "orders-3 ISR [1,3] -> [1,3,2] ([2] joined)"),
    (LeaderChanged("orders", 3, 1, 2, 5), "orders-3 leader 1 -> 2 (leader epoch 5)"),
    (LeaderChanged("orders", 3, 2, -1, 6), "orders-3 leader 2 -> none (offline) (leader epoch 6)"),
    (SessionStateChanged(ConnectionState.CONNECTED), "ZooKeeper: connected"),
    (
        SessionStateChanged(ConnectionState.LOST),
        "ZooKeeper: session expired (its watches are gone; re-syncing once reconnected)",
    ),
    (ZnodeUnreadable("/controller", "not JSON"), "/controller unreadable: not JSON"),
    (
        Resynced(True, (TopicCreated("orders"), BrokerLeft(2, None))),
        "re-synced after session expiry: 2 changes while away",
    ),
    (Resynced(False, ()), "re-synced after reconnect: no changes while away"),
    (
        HealthChanged(1, 2, 1, (("offline", (("orders", 0),)),), (("under_replicated", (("a", 1), ("b", 2))),)),
        "health: 1 offline, 2 under-replicated, 1 under min ISR: offline +1 (orders-0); under-replicated -2 (a-1, b-2)",
    ),
    (
        MigrationPhaseChanged("waiting_for_brokers", "dual_write", "dual write", "/migration at offset 158"),
        "migration: dual write (/migration at offset 158)",
    ),
]


@pytest.mark.parametrize(("event", "text"), CASES, ids=[f"{e.kind}-{i}" for i, (e, _) in enumerate(CASES)])
def test_describe_gives_the_operator_one_exact_line(event: LiveEvent, text: str) -> None:
    assert event.describe() == text
    assert "\n" not in text


@pytest.mark.parametrize(("event", "text"), CASES, ids=[f"{e.kind}-{i}" for i, (e, _) in enumerate(CASES)])
def test_to_json_names_the_event_and_survives_a_json_round_trip(event: LiveEvent, text: str) -> None:
    data = event.to_json()
    assert data["event"] == type(event).__name__ == event.kind
    assert json.loads(json.dumps(data)) == data


def test_every_event_kind_has_a_case() -> None:
    assert {type(event) for event, _ in CASES} == set(EVENT_KINDS)


def test_json_carries_the_values_with_kafkas_field_names() -> None:
    assert ControllerMoved(1, 3, 8).to_json() == {"event": "ControllerMoved", "old": 1, "new": 3, "epoch": 8}
    assert BrokerLeft(2, _broker(2, 9094)).to_json() == {
        "event": "BrokerLeft",
        "id": 2,
        "last_registration": {
            "version": 5,
            "host": "127.0.0.1",
            "port": 9094,
            "endpoints": ["PLAINTEXT://127.0.0.1:9094"],
            "rack": "r2",
            "jmx_port": -1,
            "timestamp_ms": 1700000000000,
        },
    }
    assert PartitionStateChanged("orders", 3, None, _state(1, [1, 2], 0)).to_json() == {
        "event": "PartitionStateChanged",
        "topic": "orders",
        "partition": 3,
        "old": None,
        "new": {
            "leader": 1,
            "leader_epoch": 0,
            "isr": [1, 2],
            "controller_epoch": 7,
            "leader_recovery_state": 0,
            "version": 1,
        },
    }
    assert TopicAssignmentChanged("orders", None, _assignment({"0": [1]}, adding={"0": [1]})).to_json()["new"] == {
        "version": 3,
        "topic_id": "cCkPzMDaTU2IavXK8TQk5w",
        "partitions": {"0": [1]},
        "adding": {"0": [1]},
        "removing": {},
    }
    assert ReassignmentChanged(_reassignment()).to_json()["request"] == {
        "version": 1,
        "partitions": [{"topic": "orders", "partition": 0, "replicas": [1, 2]}],
    }
    assert SessionStateChanged(ConnectionState.SUSPENDED).to_json() == {
        "event": "SessionStateChanged",
        "state": "suspended",
    }


def test_an_unreadable_value_appears_in_json_with_its_reason() -> None:
    assert BrokerRegistered(2, BAD).to_json()["registration"] == {"unreadable": BAD.reason}


def test_resynced_json_nests_the_changes_in_order() -> None:
    event = Resynced(False, (TopicCreated("a"), DeletionQueued("b")))
    assert event.to_json() == {
        "event": "Resynced",
        "session_expired": False,
        "changes": [{"event": "TopicCreated", "name": "a"}, {"event": "DeletionQueued", "topic": "b"}],
    }


def test_events_are_frozen_values() -> None:
    event = TopicCreated("orders")
    assert event == TopicCreated("orders") and hash(event) == hash(TopicCreated("orders"))
    with pytest.raises(AttributeError):
        event.name = "other"  # type: ignore[misc]


def _sets(offline: set[tuple[str, int]], urp: set[tuple[str, int]], under_min: set[tuple[str, int]]) -> HealthSets:
    return HealthSets(frozenset(offline), frozenset(urp), frozenset(under_min))


def test_health_changed_names_the_partitions_that_entered_and_left_each_set() -> None:
    before = _sets({("a", 0)}, {("a", 0), ("a", 1)}, {("a", 0)})
    after = _sets(set(), {("a", 1), ("b", 0)}, {("a", 0)})
    event = health_changed(before, after)
    assert event is not None
    assert event.to_json() == {
        "event": "HealthChanged",
        "offline": 0,
        "under_replicated": 2,
        "under_min_isr": 1,
        "entered": {"under_replicated": [{"topic": "b", "partition": 0}]},
        "left": {"offline": [{"topic": "a", "partition": 0}], "under_replicated": [{"topic": "a", "partition": 0}]},
    }
    assert health_changed(after, after) is None


def test_a_timed_event_names_the_broker_that_moved_or_the_new_controller() -> None:
    assert TimedEvent(BrokerLeft(2, None), 1).broker == 2
    assert TimedEvent(BrokerRegistered(3, Unreadable("/brokers/ids/3", b"", "empty")), 1).broker == 3
    assert TimedEvent(ControllerMoved(1, 3, 8), 1).broker == 3
    assert TimedEvent(ControllerMoved(1, None, 8), 1).broker is None
    assert TimedEvent(TopicCreated("t"), 1).broker is None
