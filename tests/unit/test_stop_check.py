"""The stop check: what the controller would make of each partition if brokers stopped now (leader = first
live in-sync replica in assignment order, ISR without the stopped, the last ISR member kept when none is
left), and the health of each partition then by the one derivation. Real kills compared with these
predictions: tests/integration/test_stop_check.py."""

from __future__ import annotations

from core.snapshot.model import StaticMinIsr
from core.snapshot.stop_check import predict_state, stop_check
from core.testdata.builder import config, snapshot, state, topic

STATIC_2 = StaticMinIsr(by_broker={1: 1, 2: 1, 3: 1, 4: 1}, reason="")


def test_the_new_leader_is_the_first_live_in_sync_replica_in_assignment_order() -> None:
    # Assignment order 3, 1, 2 with ISR [2, 1, 3]: stopping 3 elects 1 (before 2), not the ISR's first.
    after, exact = predict_state((3, 1, 2), state(3, (2, 1, 3)), frozenset({3}), frozenset({1, 2}))
    assert (after.leader, after.isr, exact) == (1, (2, 1), True)


def test_a_replica_out_of_the_isr_is_never_elected() -> None:
    after, _ = predict_state((1, 2, 3), state(1, (1, 3)), frozenset({1}), frozenset({2, 3}))
    assert (after.leader, after.isr) == (3, (3,))


def test_the_last_in_sync_replica_stays_in_the_isr_with_no_leader() -> None:
    after, exact = predict_state((1, 2), state(1, (1,)), frozenset({1}), frozenset({2}))
    assert (after.leader, after.isr, exact) == (-1, (1,), True)
    after, exact = predict_state((1, 2, 3), state(1, (1, 2)), frozenset({1, 2}), frozenset({3}))
    assert after.leader == -1 and len(after.isr) == 1 and not exact  # which one depends on the controller's order


def test_a_stopped_follower_leaves_the_isr_and_the_leader_stays() -> None:
    after, _ = predict_state((1, 2, 3), state(1, (1, 2, 3)), frozenset({2}), frozenset({1, 3}))
    assert (after.leader, after.isr) == (1, (1, 3))


def test_stop_check_lists_offline_under_min_isr_and_moves() -> None:
    cluster = snapshot(
        brokers=(1, 2, 3, 4),
        topics=[
            topic("single", {0: (2,), 1: (1,)}),  # rf 1 on broker 2: offline
            topic("pairs", {0: (2, 3), 1: (3, 2)}, topic_config=config(**{"min.insync.replicas": "2"})),
            topic("triples", {0: (2, 3, 4), 1: (1, 2, 3)}, topic_config=config(**{"min.insync.replicas": "2"})),
            topic("lagging", {0: (1, 2)}, states={0: state(1, (1,))}),  # 2 out of the ISR: nothing changes
        ],
    )
    check = stop_check(cluster, [2], STATIC_2)
    assert [(c.topic, c.partition) for c in check.offline] == [("single", 0)]
    assert [(c.topic, c.partition) for c in check.under_min_isr] == [("pairs", 0), ("pairs", 1)]
    assert [(c.topic, c.partition, c.leader_after) for c in check.leader_moves] == [("pairs", 0, 3), ("triples", 0, 3)]
    assert [(c.topic, c.partition) for c in check.single_copy] == [("pairs", 0), ("pairs", 1)]
    assert not check.safe and check.unknown_brokers == ()
    touched = {(c.topic, c.partition) for c in check.changes}
    assert ("lagging", 0) not in touched and ("single", 1) not in touched
    offline = check.offline[0]
    assert offline.loses_last_in_sync_copy and offline.isr_after == (2,) and offline.leader_after is None
    assert offline.after.offline is not None and offline.live_out_of_sync == ()


def test_a_stop_that_keeps_every_partition_writable_is_safe() -> None:
    cluster = snapshot(brokers=(1, 2, 3), topics=[topic("t", {0: (1, 2, 3), 1: (2, 3, 1)})])
    check = stop_check(cluster, [1], StaticMinIsr(by_broker={1: 2, 2: 2, 3: 2}, reason=""))
    assert check.safe and [c.leader_after for c in check.leader_moves] == [2]
    assert check.changes[1].after.acks_all is True


def test_an_unknown_min_isr_is_not_called_safe() -> None:
    cluster = snapshot(brokers=(1, 2), topics=[topic("t", {0: (1, 2)})])
    check = stop_check(cluster, [2])  # no static value read: min.insync.replicas unknown for broker 1
    assert [c.partition for c in check.min_isr_unknown] == [0] and not check.safe


def test_several_brokers_at_once_as_for_a_rack() -> None:
    cluster = snapshot(brokers=(1, 2, 3, 4), topics=[topic("t", {0: (1, 2, 3), 1: (4, 1, 2)})])
    check = stop_check(cluster, [1, 2], STATIC_2)
    assert [(c.partition, c.leader_after, c.isr_after) for c in check.changes] == [(0, 3, (3,)), (1, 4, (4,))]
    assert not check.offline and check.brokers == (1, 2)


def test_a_broker_that_is_not_registered_is_named() -> None:
    check = stop_check(snapshot(brokers=(1, 2)), [7])
    assert check.unknown_brokers == (7,) and check.changes == ()
