"""``core.live.state``: the diff of two states into change events, without ZooKeeper."""

from __future__ import annotations

import json

from core.kafka.znodes import (
    BrokerRegistration,
    ControllerInfo,
    PartitionState,
    TopicAssignment,
    Unreadable,
    parse_broker,
    parse_controller,
    parse_partition_state,
    parse_topic,
)
from core.live.events import (
    BrokerLeft,
    BrokerRegistered,
    BrokerUpdated,
    ControllerEpochChanged,
    ControllerMoved,
    DeletionFinished,
    DeletionQueued,
    IsrChanged,
    IsrNotificationsChanged,
    LeaderChanged,
    LogDirEventsChanged,
    PartitionStateChanged,
    ReassignmentChanged,
    TopicAssignmentChanged,
    TopicCreated,
    TopicRemoved,
    ZnodeUnreadable,
)
from core.live.state import (
    FollowedTopic,
    LiveState,
    diff_brokers,
    diff_controller,
    diff_controller_epoch,
    diff_deletions,
    diff_followed,
    diff_partition_state,
    diff_states,
    diff_topics,
)


def _controller(broker_id: int) -> ControllerInfo:
    value = parse_controller(
        "/controller", f'{{"version":2,"brokerid":{broker_id},"timestamp":"1","kraftControllerEpoch":-1}}'.encode()
    )
    assert isinstance(value, ControllerInfo)
    return value


def _broker(broker_id: int, port: int) -> BrokerRegistration:
    doc = {"version": 4, "endpoints": [f"PLAINTEXT://h:{port}"], "jmx_port": -1, "host": "h", "port": port}
    value = parse_broker(f"/brokers/ids/{broker_id}", json.dumps(doc).encode())
    assert isinstance(value, BrokerRegistration)
    return value


def _state(leader: int, isr: list[int], epoch: int) -> PartitionState:
    doc = {"controller_epoch": 1, "leader": leader, "version": 1, "leader_epoch": epoch, "isr": isr}
    value = parse_partition_state("/brokers/topics/t/partitions/0/state", json.dumps(doc).encode())
    assert isinstance(value, PartitionState)
    return value


def _assignment(partitions: dict[str, list[int]]) -> TopicAssignment:
    value = parse_topic("/brokers/topics/t", json.dumps({"version": 3, "partitions": partitions}).encode())
    assert isinstance(value, TopicAssignment)
    return value


def test_a_new_controller_is_a_move_reported_with_the_epoch() -> None:
    assert diff_controller(_controller(1), 10, _controller(3), 20, 8) == [ControllerMoved(1, 3, 8)]
    assert diff_controller(None, None, _controller(3), 20, 8) == [ControllerMoved(None, 3, 8)]
    assert diff_controller(_controller(1), 10, None, None, 7) == [ControllerMoved(1, None, 7)]


def test_the_same_broker_registering_again_is_a_re_election_and_no_change_is_nothing() -> None:
    assert diff_controller(_controller(1), 10, _controller(1), 30, 9) == [ControllerMoved(1, 1, 9)]
    assert diff_controller(_controller(1), 10, _controller(1), 10, 9) == []
    assert diff_controller(None, None, None, None, None) == []


def test_an_unreadable_controller_is_reported_once_then_a_readable_one_is_an_election() -> None:
    bad = Unreadable("/controller", b"x", "not JSON")
    assert diff_controller(_controller(1), 10, bad, 11, 5) == [ZnodeUnreadable("/controller", "not JSON")]
    assert diff_controller(bad, 11, bad, 11, 5) == []
    assert diff_controller(bad, 11, _controller(2), 12, 6) == [ControllerMoved(None, 2, 6)]


def test_epoch_changes_and_unreadable_epochs() -> None:
    assert diff_controller_epoch(7, 8) == [ControllerEpochChanged(7, 8)]
    assert diff_controller_epoch(8, 8) == []
    bad = Unreadable("/controller_epoch", b"x", "not a decimal")
    assert diff_controller_epoch(8, bad) == [ZnodeUnreadable("/controller_epoch", "not a decimal")]
    assert diff_controller_epoch(bad, 9) == [ControllerEpochChanged(None, 9)]


def test_brokers_leaving_registering_re_registering_and_updating() -> None:
    old = {1: _broker(1, 1), 2: _broker(2, 2), 3: _broker(3, 3)}
    old_epochs = {1: 100, 2: 200, 3: 300}
    new = {1: _broker(1, 1), 2: _broker(2, 2), 3: _broker(3, 33), 4: _broker(4, 4)}
    new_epochs = {1: 100, 2: 250, 3: 300, 4: 400}
    assert diff_brokers(old, old_epochs, new, new_epochs) == [
        BrokerLeft(2, old[2]),
        BrokerRegistered(2, new[2]),
        BrokerUpdated(3, old[3], new[3]),
        BrokerRegistered(4, new[4]),
    ]
    assert diff_brokers(new, new_epochs, {}, {}) == [BrokerLeft(i, new[i]) for i in (1, 2, 3, 4)]


def test_topics_and_deletion_markers() -> None:
    assert diff_topics(frozenset({"a", "b"}), frozenset({"b", "c"})) == [TopicRemoved("a"), TopicCreated("c")]
    assert diff_deletions(frozenset({"a", "x"}), frozenset({"b"}), topics=frozenset({"x", "b"})) == [
        DeletionFinished("a", topic_still_exists=False),
        DeletionFinished("x", topic_still_exists=True),
        DeletionQueued("b"),
    ]


def test_a_partition_state_change_derives_leader_and_isr_events() -> None:
    old, new = _state(1, [1, 2, 3], 4), _state(2, [2, 3], 5)
    assert diff_partition_state("t", 0, old, new) == [
        PartitionStateChanged("t", 0, old, new),
        LeaderChanged("t", 0, 1, 2, 5),
        IsrChanged("t", 0, (1, 2, 3), (2, 3)),
    ]
    assert diff_partition_state("t", 0, old, old) == []
    # Only the epoch moved: no derived event.
    assert diff_partition_state("t", 0, old, _state(1, [1, 2, 3], 5)) == [
        PartitionStateChanged("t", 0, old, _state(1, [1, 2, 3], 5))
    ]
    # Created or removed: the state event only.
    assert diff_partition_state("t", 0, None, new) == [PartitionStateChanged("t", 0, None, new)]


def test_a_followed_topic_reports_the_assignment_then_its_partitions() -> None:
    old = FollowedTopic("t", _assignment({"0": [1, 2]}), {0: _state(1, [1, 2], 0)})
    new = FollowedTopic("t", _assignment({"0": [1, 2], "1": [2, 1]}), {0: _state(1, [1], 1), 1: _state(2, [2, 1], 0)})
    assert diff_followed(old, new) == [
        TopicAssignmentChanged("t", old.assignment, new.assignment),
        PartitionStateChanged("t", 0, old.states[0], new.states[0]),
        IsrChanged("t", 0, (1, 2), (1,)),
    ]


def test_diff_states_lists_every_difference_in_a_stable_order() -> None:
    old = LiveState(
        controller=_controller(1),
        controller_czxid=10,
        controller_epoch=7,
        brokers={1: _broker(1, 1), 2: _broker(2, 2)},
        broker_epochs={1: 1, 2: 2},
        topics=frozenset({"t", "gone"}),
        deletions=frozenset({"gone"}),
        followed={"t": FollowedTopic("t", _assignment({"0": [1]}), {0: _state(1, [1], 0)})},
    )
    new = LiveState(
        controller=_controller(2),
        controller_czxid=20,
        controller_epoch=8,
        brokers={2: _broker(2, 2)},
        broker_epochs={2: 2},
        topics=frozenset({"t", "new"}),
        reassignment=None,
        isr_notifications=1,
        log_dir_events=2,
        followed={"t": FollowedTopic("t", _assignment({"0": [1]}), {0: _state(2, [2], 1)})},
    )
    kinds = [type(e).__name__ for e in diff_states(old, new)]
    assert kinds == [
        "ControllerMoved",
        "ControllerEpochChanged",
        "BrokerLeft",
        "TopicRemoved",
        "TopicCreated",
        "DeletionFinished",
        "IsrNotificationsChanged",
        "LogDirEventsChanged",
        "PartitionStateChanged",
        "LeaderChanged",
        "IsrChanged",
    ]
    assert diff_states(new, new) == []
    events = diff_states(old, new)
    assert events[0] == ControllerMoved(1, 2, 8)
    assert IsrNotificationsChanged(1) in events and LogDirEventsChanged(2) in events
    assert ReassignmentChanged(None) not in events
