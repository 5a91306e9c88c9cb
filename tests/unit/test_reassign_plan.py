"""Reassignment plans: minimal movement off brokers, Kafka's --generate, the reassignment file, throttles."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import KafkaRuleError, UsageError
from core.kafka.assignment import BrokerMeta, assign_replicas_to_brokers
from core.kafka.topic_partition import TopicPartition
from core.reassign.file import check_partitions_and_brokers, parse_reassignment_file
from core.reassign.move_off import plan_move_off
from core.reassign.plan import (
    Move,
    ReassignPlan,
    balance_of,
    plan_onto,
    reassigning_brokers,
    topic_throttles,
    with_balance,
)
from core.reassign.progress import PartitionProgress, ReassignProgress, reverted_replicas


def kafka_cluster(
    n_brokers: int, topics: int, partitions: int, rf: int, racks: int = 0, seed: int = 0
) -> tuple[dict[TopicPartition, list[int]], list[BrokerMeta]]:
    """Topics assigned by Kafka's own algorithm (random starts), brokers 1..n on ``racks`` racks (0: none)."""
    brokers = [BrokerMeta(b, f"r{b % racks}" if racks else None) for b in range(1, n_brokers + 1)]
    rng = random.Random(seed)
    assignment: dict[TopicPartition, list[int]] = {}
    for t in range(topics):
        for p, replicas in assign_replicas_to_brokers(brokers, partitions, rf, rng=rng).items():
            assignment[(f"t{t}", p)] = replicas
    return assignment, brokers


def final_assignment(
    assignment: dict[TopicPartition, list[int]], moves: tuple[Move, ...]
) -> dict[TopicPartition, tuple[int, ...]]:
    result = {k: tuple(v) for k, v in assignment.items()}
    for move in moves:
        result[move.key] = move.target
    return result


def test_move_off_moves_only_the_replicas_on_the_leaving_broker() -> None:
    assignment = {("a", 0): [1, 2, 3], ("a", 1): [2, 3, 4], ("a", 2): [3, 4, 1], ("a", 3): [4, 1, 2]}
    brokers = [BrokerMeta(b) for b in (1, 2, 3, 4, 5)]
    plan = plan_move_off(assignment, brokers, [2])
    assert {m.key for m in plan.moves} == {("a", 0), ("a", 1), ("a", 3)}
    for move in plan.moves:
        assert move.removing == (2,)
        assert len(move.adding) == 1
        assert set(move.current) - {2} <= set(move.target)
    assert plan.replicas_moved == 3
    # Broker 5 holds nothing: every moved replica goes there first while it is the emptiest (3 < 3+1).
    assert plan.after.replicas[5] == 3


def test_move_off_keeps_positions_of_staying_replicas() -> None:
    assignment = {("a", 0): [1, 2, 3], ("a", 1): [3, 1, 2]}
    plan = plan_move_off(assignment, [BrokerMeta(b) for b in (1, 2, 3, 4)], [2])
    targets = {m.key: m.target for m in plan.moves}
    assert targets[("a", 0)][:2] == (1, 4) or targets[("a", 0)] == (1, 4, 3)
    assert targets[("a", 0)] == (1, 4, 3)
    assert targets[("a", 1)] == (3, 1, 4)


def test_moved_preferred_leader_goes_to_a_staying_replica() -> None:
    assignment = {("a", 0): [2, 1, 3]}
    plan = plan_move_off(assignment, [BrokerMeta(b) for b in (1, 2, 3, 4)], [2])
    (move,) = plan.moves
    assert move.target[0] in (1, 3)
    assert 4 in move.target and 2 not in move.target
    # The staying replica that took the lead swapped places with the new one.
    assert sorted(move.target) == [1, 3, 4]


def test_move_off_keeps_racks_distinct() -> None:
    brokers = [BrokerMeta(1, "a"), BrokerMeta(2, "b"), BrokerMeta(3, "c"), BrokerMeta(4, "a"), BrokerMeta(5, "c")]
    assignment = {("t", 0): [1, 2, 3]}
    plan = plan_move_off(assignment, brokers, [2])
    (move,) = plan.moves
    # Brokers 4 (rack a) and 5 (rack c) share a rack with a staying replica; no rack b remains: warned.
    assert plan.warnings and "distinct rack" in plan.warnings[0]
    brokers.append(BrokerMeta(6, "b"))
    plan = plan_move_off(assignment, brokers, [2])
    assert plan.moves[0].target == (1, 6, 3)
    assert not plan.warnings
    assert move.current == (1, 2, 3)


def test_move_off_refuses_when_too_few_brokers_remain() -> None:
    with pytest.raises(UsageError, match="needs 3 brokers"):
        plan_move_off({("t", 0): [1, 2, 3]}, [BrokerMeta(b) for b in (1, 2, 3)], [3])


def test_move_off_json_is_kafkas_reassignment_format_with_current() -> None:
    plan = plan_move_off({("t", 0): [1, 2], ("t", 1): [3, 1]}, [BrokerMeta(b) for b in (1, 2, 3)], [2])
    data = plan.to_json()
    assert data["version"] == 1
    assert data["partitions"] == [{"topic": "t", "partition": 0, "replicas": [1, 3], "current": [1, 2]}]
    # Kafka's parser reads the same file back.
    parsed = parse_reassignment_file(json.dumps(data))
    assert parsed.targets == ((("t", 0), (1, 3)),)
    assert parsed.current == {("t", 0): (1, 2)}
    assert data["kzc"]["metrics"]["replicas_moved"] == 1


@settings(max_examples=60, deadline=None)
@given(
    n_brokers=st.integers(3, 12),
    topics=st.integers(1, 4),
    partitions=st.integers(1, 30),
    rf=st.integers(1, 3),
    racks=st.sampled_from([0, 2, 3]),
    leaving=st.integers(1, 2),
    seed=st.integers(0, 10_000),
)
def test_move_off_properties(
    n_brokers: int, topics: int, partitions: int, rf: int, racks: int, leaving: int, seed: int
) -> None:
    if n_brokers - leaving < rf:
        return
    assignment, brokers = kafka_cluster(n_brokers, topics, partitions, rf, racks, seed)
    off = random.Random(seed).sample(range(1, n_brokers + 1), leaving)
    plan = plan_move_off(assignment, brokers, off)
    final = final_assignment(assignment, plan.moves)
    rack_of = {b.id: b.rack for b in brokers}
    for key, replicas in final.items():
        before = assignment[key]
        assert len(replicas) == len(before), "replication factor unchanged"
        assert len(set(replicas)) == len(replicas), "never two replicas on one broker"
        assert not set(replicas) & set(off), "nothing stays on a leaving broker"
        assert {b for b in before if b not in off} <= set(replicas), "staying replicas stay"
        staying_positions = [i for i, b in enumerate(before) if b not in off]
        if before[0] not in off:
            assert replicas == tuple(before[i] if i in staying_positions else replicas[i] for i in range(len(before)))
        elif staying_positions:
            assert replicas[0] in before, "a moved preferred leader's place goes to a staying replica"
        if racks and len(before) > 1 and len({rack_of[b] for b in before}) == len(before) and not plan.warnings:
            assert len({rack_of[b] for b in replicas}) == len(replicas), "racks stay distinct"
    # Only partitions that change are listed, each with its current replicas.
    assert all(m.current == tuple(assignment[m.key]) and m.target != m.current for m in plan.moves)
    # Balance: within 1, unless the staying replicas alone are already further apart or no single
    # move of a new replica from a fullest to an emptiest broker is allowed.
    counts = Counter(b for r in final.values() for b in r)
    targets = [b for b in range(1, n_brokers + 1) if b not in off]
    spread = max(counts[b] for b in targets) - min(counts[b] for b in targets)
    staying = Counter(b for r in assignment.values() for b in r if b not in off)
    if not racks and spread > 1:
        staying_spread = max(staying[b] for b in targets) - min(staying[b] for b in targets)
        assert spread <= staying_spread or _no_repair_possible(plan.moves, counts, targets, off)


def _no_repair_possible(moves: tuple[Move, ...], counts: Counter[int], targets: list[int], off: list[int]) -> bool:
    high = max(counts[b] for b in targets)
    low = min(counts[b] for b in targets)
    for move in moves:
        for position, broker in enumerate(move.target):
            if move.current[position] in off and counts[broker] == high:
                for other in targets:
                    if counts[other] == low and other not in move.target:
                        return False
    return True


def test_move_off_balances_a_large_even_cluster_within_one() -> None:
    assignment, brokers = kafka_cluster(10, 20, 30, 3, seed=4)
    plan = plan_move_off(assignment, brokers, [3])
    replica_skew, leader_skew = plan.after.skew(plan.targets)
    assert replica_skew <= 1
    # Broker 3's 60 leads can only go to its staying followers: {8, 9}, {9, 10}, {1, 10} and {7, 8} alone
    # share 42 of them, so one of those five brokers must lead 60 + 9; kzc reaches that bound.
    assert max(plan.after.leaders[b] for b in plan.targets) == 69
    assert leader_skew == 5
    assert plan.replicas_moved == sum(1 for r in assignment.values() if 3 in r)


def test_onto_is_kafkas_generate_with_a_seed() -> None:
    assignment, brokers = kafka_cluster(4, 2, 6, 2, seed=1)
    plan = plan_onto(assignment, brokers, [1, 2, 3], seed=7)
    again = plan_onto(assignment, brokers, [1, 2, 3], seed=7)
    assert plan.moves == again.moves
    rng = random.Random(7)
    metas = [b for b in brokers if b.id in (1, 2, 3)]
    expected = {}
    for topic in ("t0", "t1"):
        for p, r in assign_replicas_to_brokers(metas, 6, 2, rng=rng).items():
            expected[(topic, p)] = tuple(r)
    final = final_assignment(assignment, plan.moves)
    assert final == expected
    assert dict(plan.starts)["t0"].random


def test_onto_refuses_unknown_and_duplicate_brokers() -> None:
    assignment, brokers = kafka_cluster(3, 1, 3, 1)
    with pytest.raises(UsageError, match="Unknown broker id"):
        plan_onto(assignment, brokers, [1, 9])
    with pytest.raises(KafkaRuleError, match="Broker list contains duplicate entries: 1"):
        plan_onto(assignment, brokers, [1, 1])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"version":1,"partitions":[]}', "Partition reassignment list cannot be empty"),
        ('{"partitions":[{"topic":"t","partition":0,"replicas":[]}]}', "Partition replica list cannot be empty"),
        (
            '{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}',
            "Partition reassignment contains duplicate topic partitions: t-0",
        ),
        (
            '{"partitions":[{"topic":"t","partition":0,"replicas":[1,1]}]}',
            "Partition replica lists may not contain duplicate entries: t-0 contains multiple entries for 1",
        ),
    ],
)
def test_reassignment_file_checks_are_kafkas(text: str, message: str) -> None:
    with pytest.raises(KafkaRuleError) as error:
        parse_reassignment_file(text)
    assert str(error.value) == message


def test_unknown_partitions_and_brokers_are_refused_with_kafkas_messages() -> None:
    existing = {("t", 0): (1, 2)}
    with pytest.raises(KafkaRuleError, match=r"non-existent partitions: List\(t-5\)"):
        check_partitions_and_brokers([(("t", 5), (1,))], existing, [1, 2])
    with pytest.raises(KafkaRuleError, match="non-existent brokerIDs: 7"):
        check_partitions_and_brokers([(("t", 0), (1, 7))], existing, [1, 2])


def test_throttles_are_kafkas_leader_and_follower_lists() -> None:
    moves = [Move("t", 0, (1, 2), (1, 3)), Move("t", 10, (2, 1), (4, 1)), Move("u", 1, (5,), (6,))]
    throttles = topic_throttles(moves)
    assert throttles["t"] == {
        "leader.replication.throttled.replicas": "0:1,0:2,10:1,10:2",
        "follower.replication.throttled.replicas": "0:3,10:4",
    }
    assert throttles["u"]["follower.replication.throttled.replicas"] == "1:6"
    assert reassigning_brokers(moves) == (1, 2, 3, 4, 5, 6)


def test_a_plan_and_the_apply_of_its_file_show_the_same_balance() -> None:
    # Two topics; only "a" holds replicas on broker 3, so the file names only "a"'s partitions.
    assignment = {("a", 0): [1, 3], ("a", 1): [3, 2], ("a", 2): [2, 1], ("b", 0): [1, 2], ("b", 1): [2, 1]}
    registered = (1, 2, 3, 4)
    planned = with_balance(plan_move_off(assignment, [BrokerMeta(b) for b in registered], [3]), assignment, registered)
    in_file = {k: v for k, v in assignment.items() if k[0] == "a"}  # what apply FILE reads: the file's topics
    final = final_assignment(assignment, planned.moves)
    from_file = ReassignPlan(
        mode="file",
        brokers=(),
        targets=registered,
        moves=planned.moves,
        before=balance_of(in_file, registered),
        after=balance_of({k: final[k] for k in in_file}, registered),
        partitions_considered=len(in_file),
    )
    applied = with_balance(from_file, in_file, registered)
    for when in ("before", "after"):
        assert applied.metrics()[when] == planned.metrics()[when]
    assert planned.balanced_over == (1, 2, 4)  # broker 3 is emptied: the skew is over the brokers kept


def test_a_cancel_preview_says_which_preferred_leaders_the_reverted_order_changes() -> None:
    # Moving [1, 2] -> [2, 3]: ZooKeeper holds [2, 3, 1] (target first); a cancel leaves [2, 1].
    moving = PartitionProgress("t", 0, (2, 3), (2, 3, 1), (3,), (1,), (1, 2), 1, "adding", ())
    assert reverted_replicas(moving) == (2, 1)
    lines = ReassignProgress((moving,)).cancel_effects()
    assert "not the order before it" in lines[0]
    assert (
        lines[1]
        == "  t-0: reverts to replicas 2,1, preferred leader 2 (the leader now is 1: kzc elect preferred moves it)"
    )
