"""``core.live.model.LiveCluster`` (the live model) on an in-memory ZooKeeper (``tests.fake_zookeeper``): each
change read once, held by the snapshot and reported once; topics created and deleted; a session lost and
re-synced; malformed znodes held as unreadable, never a crash."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator

import pytest

from core.kafka.znodes import PartitionState, TopicAssignment, Unreadable
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CONTROLLER,
    CONTROLLER_EPOCH,
    TOPICS,
    broker_path,
    partitions_path,
    state_path,
    topic_path,
)
from core.live import events as ev
from core.live.model import LiveCluster
from core.live.timed import TimedEvent
from core.polling import wait_until
from core.testdata.checks import broker_json, state_json, topic_json
from core.zookeeper.session import ConnectionState
from tests.fake_zookeeper import FakeSession, FakeZooKeeper

DEADLINE_S = 10.0


class Model:
    """A started model over a fake cluster, with what it reported."""

    def __init__(self, session: FakeSession, live: LiveCluster) -> None:
        self.session = session
        self.zk: FakeZooKeeper = session.client
        self.live = live
        self.events: list[ev.LiveEvent] = []
        self.raw: list[ev.LiveEvent] = []
        self.lock = threading.Lock()

    def seen(self, kind: type[ev.LiveEvent]) -> list[ev.LiveEvent]:
        with self.lock:
            return [event for event in self.events if isinstance(event, kind)]

    def state(self, topic: str, partition: int) -> object:
        entry = self.live.snapshot().topics.get(topic)
        return None if entry is None else entry.states.get(partition)


def _write_topic(zk: FakeZooKeeper, name: str, partitions: int, leader: int = 1) -> None:
    zk.create(topic_path(name), topic_json({p: [1, 2] for p in range(partitions)}))
    for partition in range(partitions):
        zk.create(state_path(name, partition), state_json(leader, [1, 2]))


def _cluster() -> FakeZooKeeper:
    zk = FakeZooKeeper()
    zk.create(CONTROLLER, b'{"version":1,"brokerid":1,"timestamp":"1700000000000"}')
    zk.create(CONTROLLER_EPOCH, b"5")
    for broker in (1, 2):
        zk.create(broker_path(broker), broker_json(broker))
    zk.create(TOPICS)
    _write_topic(zk, "orders", 3)
    _write_topic(zk, "payments", 2)
    return zk


@pytest.fixture
def model() -> Iterator[Model]:
    session = FakeSession(_cluster())
    holder: list[Model] = []

    def on_event(event: TimedEvent) -> None:
        with holder[0].lock:
            holder[0].events.append(event.event)

    live = LiveCluster(session, on_event, lambda: None, on_raw=lambda e: holder[0].raw.append(e))  # type: ignore[arg-type]
    holder.append(Model(session, live))
    live.start()
    wait_until(lambda: live.loading() is None, DEADLINE_S, "the first full read")
    yield holder[0]
    live.stop()


def _leader_is(m: Model, topic: str, partition: int, leader: int) -> bool:
    state = m.state(topic, partition)
    return isinstance(state, PartitionState) and state.leader == leader


def test_the_first_full_read_watches_every_partition_state_once(model: Model) -> None:
    snapshot = model.live.snapshot()
    assert sorted(snapshot.topics) == ["orders", "payments"]
    assert _leader_is(model, "orders", 2, 1)
    # One watch per znode: the full read set it, with the watcher's one callback.
    assert all(model.zk.watched(state_path("orders", p)) == 1 for p in range(3))
    assert model.zk.watched(topic_path("payments")) == 1


def test_a_state_change_of_a_followed_topic_updates_the_snapshot_and_is_reported_once(model: Model) -> None:
    model.live.follow("orders", lambda _entry: None)
    model.zk.set(state_path("orders", 1), state_json(2, [2], leader_epoch=1))
    wait_until(lambda: _leader_is(model, "orders", 1, 2), DEADLINE_S, "the new leader in the snapshot")
    wait_until(lambda: model.seen(ev.LeaderChanged), DEADLINE_S, "the LeaderChanged event")
    assert model.seen(ev.LeaderChanged) == [ev.LeaderChanged("orders", 1, 1, 2, 1)]
    assert model.seen(ev.IsrChanged) == [ev.IsrChanged("orders", 1, (1, 2), (2,))]
    assert model.seen(ev.PartitionStateChanged) == []  # said better by the two above
    assert model.live.targeted_reads == 1  # the one znode that fired, read once
    assert model.zk.watched(state_path("orders", 1)) == 1  # its watch set again


def test_a_state_change_of_any_topic_reaches_the_snapshot_without_an_event(model: Model) -> None:
    model.zk.set(state_path("payments", 0), state_json(2, [1, 2], leader_epoch=1))
    wait_until(lambda: _leader_is(model, "payments", 0, 2), DEADLINE_S, "the new leader in the snapshot")
    assert model.seen(ev.LeaderChanged) == []
    assert model.live.targeted_reads == 1


def test_a_topic_created_and_then_deleted(model: Model) -> None:
    _write_topic(model.zk, "audit", 2, leader=2)
    wait_until(lambda: _leader_is(model, "audit", 1, 2), DEADLINE_S, "the new topic's states in the snapshot")
    assert model.seen(ev.TopicCreated) == [ev.TopicCreated("audit")]
    assert model.zk.watched(state_path("audit", 0)) == 1  # followed like the others from now on

    model.zk.delete(topic_path("audit"), recursive=True)
    wait_until(lambda: "audit" not in model.live.snapshot().topics, DEADLINE_S, "the topic gone from the snapshot")
    wait_until(lambda: model.seen(ev.TopicRemoved), DEADLINE_S, "the TopicRemoved event")
    assert model.seen(ev.TopicRemoved) == [ev.TopicRemoved("audit")]
    assert model.seen(ev.PartitionStateChanged) == []  # its partitions going is the topic going


def test_partitions_added_to_a_topic_are_reported_once_and_followed(model: Model) -> None:
    model.zk.set(topic_path("payments"), topic_json({0: [1, 2], 1: [1, 2], 2: [2, 1]}))
    model.zk.create(state_path("payments", 2), state_json(2, [2, 1]))
    wait_until(lambda: _leader_is(model, "payments", 2, 2), DEADLINE_S, "the new partition in the snapshot")
    changes = model.seen(ev.TopicAssignmentChanged)
    assert len(changes) == 1 and changes[0].topic == "payments"  # type: ignore[attr-defined]


def test_partitions_added_during_a_full_read_are_still_reported(model: Model) -> None:
    """The topic znode fires while a full read is under way and the read already holds the new assignment: the
    change is reported against what was known before the read (it was lost: the console missed an expansion)."""
    three = topic_json({0: [1, 2], 1: [1, 2], 2: [2, 1]})
    model.zk.before_next_read(topic_path("payments"), lambda: model.zk.set(topic_path("payments"), three))
    model.live.request_full_read()
    wait_until(lambda: model.seen(ev.TopicAssignmentChanged), DEADLINE_S, "the TopicAssignmentChanged event")
    [change] = model.seen(ev.TopicAssignmentChanged)
    assert isinstance(change, ev.TopicAssignmentChanged) and change.topic == "payments"
    assert isinstance(change.old, TopicAssignment) and change.old.partition_ids == (0, 1)
    assert isinstance(change.new, TopicAssignment) and change.new.partition_ids == (0, 1, 2)


def test_a_leader_change_during_a_full_read_is_still_reported(model: Model) -> None:
    model.live.follow("orders", lambda _entry: None)
    moved = state_json(2, [2], leader_epoch=1)
    model.zk.before_next_read(state_path("orders", 1), lambda: model.zk.set(state_path("orders", 1), moved))
    model.live.request_full_read()
    wait_until(lambda: model.seen(ev.LeaderChanged), DEADLINE_S, "the LeaderChanged event")
    assert model.seen(ev.LeaderChanged) == [ev.LeaderChanged("orders", 1, 1, 2, 1)]
    assert _leader_is(model, "orders", 1, 2)


def test_a_leader_change_re_synced_during_a_full_read_is_reported_once(model: Model) -> None:
    """The state znode fires during a full read, then the connection drops and comes back (same session) before
    the read ends: the re-sync reports the change, and the re-read after the full read must not report it again."""
    model.live.follow("orders", lambda _entry: None)
    moved = state_json(2, [2], leader_epoch=1)

    def change_then_reconnect() -> None:
        model.zk.set(state_path("orders", 1), moved)
        model.session._tell(ConnectionState.SUSPENDED)
        model.session._tell(ConnectionState.CONNECTED)

    model.zk.before_next_read(state_path("orders", 1), change_then_reconnect)
    model.live.request_full_read()
    wait_until(lambda: model.seen(ev.Resynced), DEADLINE_S, "the Resynced event")
    wait_until(lambda: model.live.loading() is None and _leader_is(model, "orders", 1, 2), DEADLINE_S, "the read done")
    model.zk.set(state_path("orders", 0), state_json(2, [2], leader_epoch=1))  # a later change: all before it is out
    wait_until(lambda: _leader_is(model, "orders", 0, 2), DEADLINE_S, "the later change")
    wait_until(lambda: any(e.partition == 0 for e in _leader_changes(model)), DEADLINE_S, "the later change's event")
    assert [(e.partition, e.old_leader, e.new_leader) for e in _leader_changes(model) if e.partition == 1] == [
        (1, 1, 2)
    ]


def _leader_changes(m: Model) -> list[ev.LeaderChanged]:
    """Every LeaderChanged reported, alone or inside a Resynced."""
    found: list[ev.LiveEvent] = []
    for event in m.seen(ev.LiveEvent):
        found += event.changes if isinstance(event, ev.Resynced) else [event]
    return [e for e in found if isinstance(e, ev.LeaderChanged)]


def test_a_topic_created_during_a_full_read_has_its_partitions_followed(model: Model) -> None:
    """The full read lists the new topic before the controller wrote its partition states (a read of a missing
    znode sets no watch): the topic is read again after the read, from nothing, so its states are watched (the
    console's create flow waited for partitions that were online)."""
    model.zk.before_next_read(TOPICS, lambda: model.zk.create(topic_path("audit"), topic_json({0: [1, 2]})))
    model.live.request_full_read()
    wait_until(lambda: "audit" in model.live.snapshot().topics, DEADLINE_S, "the new topic in the snapshot")
    model.zk.create(state_path("audit", 0), state_json(2, [2, 1]))
    wait_until(lambda: _leader_is(model, "audit", 0, 2), DEADLINE_S, "the new partition's leader in the snapshot")


def test_a_lost_session_is_resynced_and_watched_again(model: Model) -> None:
    reads_before = model.zk.reads

    def while_away() -> None:
        model.zk.set(state_path("orders", 0), state_json(2, [2], leader_epoch=3))
        model.zk.delete(broker_path(1))

    model.session.expire(meanwhile=while_away)
    wait_until(lambda: model.seen(ev.Resynced), DEADLINE_S, "the Resynced event")
    resynced = model.seen(ev.Resynced)[0]
    assert isinstance(resynced, ev.Resynced) and resynced.session_expired
    assert any(isinstance(change, ev.BrokerLeft) and change.id == 1 for change in resynced.changes)
    # The watches were gone: the model reads the cluster again, which watches every znode again.
    wait_until(lambda: _leader_is(model, "orders", 0, 2), DEADLINE_S, "the change made while away")
    wait_until(lambda: model.zk.watched(state_path("orders", 0)) == 1, DEADLINE_S, "the state watched again")
    assert model.zk.reads > reads_before
    assert sorted(model.live.snapshot().brokers) == [2]
    model.zk.set(state_path("orders", 0), state_json(1, [1, 2], leader_epoch=4))
    wait_until(lambda: _leader_is(model, "orders", 0, 1), DEADLINE_S, "a change after the re-sync")


def test_malformed_znodes_are_held_as_unreadable_never_a_crash(model: Model) -> None:
    model.live.follow("orders", lambda _entry: None)
    model.zk.set(state_path("orders", 2), b"{not json")
    wait_until(lambda: isinstance(model.state("orders", 2), Unreadable), DEADLINE_S, "the unreadable state")
    model.zk.set(topic_path("payments"), b"\xff\xfe")
    wait_until(
        lambda: isinstance(model.live.snapshot().topics["payments"].assignment, Unreadable),
        DEADLINE_S,
        "the unreadable assignment",
    )
    model.zk.set(broker_path(2), b"[]")
    wait_until(lambda: isinstance(model.live.snapshot().brokers[2].registration, Unreadable), DEADLINE_S, "broker")
    # Still live: a later good value is read as such.
    model.zk.set(state_path("orders", 2), state_json(2, [2, 1], leader_epoch=9))
    wait_until(lambda: _leader_is(model, "orders", 2, 2), DEADLINE_S, "the state readable again")
    assert [type(e) for e in model.seen(ev.PartitionStateChanged)] == [ev.PartitionStateChanged] * 2


def test_a_malformed_znode_in_the_first_read_is_held_as_unreadable() -> None:
    zk = _cluster()
    zk.set(state_path("orders", 0), b"not json")
    zk.create(f"{BROKER_IDS}/x", b"")  # not a broker id: left out, as Kafka reads it
    zk.create(partitions_path("ghost"))  # partitions without a topic znode
    session = FakeSession(zk)
    live = LiveCluster(session, lambda _e: None, lambda: None)  # type: ignore[arg-type]
    live.start()
    try:
        wait_until(lambda: live.loading() is None, DEADLINE_S, "the first full read")
        snapshot = live.snapshot()
        assert isinstance(snapshot.topics["orders"].states[0], Unreadable)
        assert sorted(snapshot.brokers) == [1, 2]
    finally:
        live.stop()


def test_the_browser_is_told_when_a_watched_znode_changes(model: Model) -> None:
    seen: list[str] = []
    unsubscribe = model.live.watch_path(BROKER_IDS, seen.append)
    wait_until(lambda: model.zk.watched(BROKER_IDS) >= 1, DEADLINE_S, "the browser's watch")
    model.zk.create(broker_path(3), broker_json(3))
    wait_until(lambda: seen == [BROKER_IDS], DEADLINE_S, "the browser told")
    wait_until(lambda: 3 in model.live.snapshot().brokers, DEADLINE_S, "the broker in the snapshot")
    unsubscribe()
    model.zk.delete(broker_path(3))
    wait_until(lambda: 3 not in model.live.snapshot().brokers, DEADLINE_S, "the broker gone")
    assert seen == [BROKER_IDS]


def test_a_burst_of_state_changes_is_held_and_each_reported_once(model: Model) -> None:
    model.live.follow("orders", lambda _entry: None)
    changed = [("orders", p) for p in range(3)] + [("payments", p) for p in range(2)]
    for round_ in range(1, 4):  # a failover and back, and again: several notes per znode may be queued
        for topic, partition in changed:
            leader = 2 if round_ % 2 else 1
            model.zk.set(state_path(topic, partition), state_json(leader, [1, 2], leader_epoch=round_))
    wait_until(
        lambda: all(_leader_is(model, t, p, 2) for t, p in changed), DEADLINE_S, "every new leader in the snapshot"
    )
    wait_until(lambda: len(model.seen(ev.LeaderChanged)) >= 3, DEADLINE_S, "the followed topic's changes")
    moves = [(e.partition, e.new_leader) for e in model.seen(ev.LeaderChanged)]  # type: ignore[attr-defined]
    # ZooKeeper may fold quick rewrites of one znode into one change, but a change is never reported twice:
    # per partition, each event moves the leader from where the previous one left it.
    for partition in range(3):
        leaders = [1] + [leader for p, leader in moves if p == partition]
        assert all(a != b for a, b in itertools.pairwise(leaders)), leaders
        assert leaders[-1] == 2
    assert all(e.topic == "orders" for e in model.seen(ev.LeaderChanged))  # type: ignore[attr-defined]


def test_a_full_read_tells_the_followers_what_it_found(model: Model) -> None:
    """A change the watches did not report (here: dropped watches; on a real cluster a znode that fired during a
    full read and is re-read equal after it) reaches a follower when the full read lands."""
    told: list[object] = []
    model.live.follow("orders", lambda entry: told.append(entry and entry.states.get(1)))
    model.zk.drop_watches()
    model.zk.set(state_path("orders", 1), state_json(2, [2], leader_epoch=1))
    model.live.request_full_read()

    def new_leader_told() -> bool:
        last = told[-1] if told else None
        return isinstance(last, PartitionState) and last.leader == 2

    wait_until(new_leader_told, DEADLINE_S, "the follower told of the new leader after the full read")
