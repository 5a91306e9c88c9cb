"""core.kafka.assignment against Kafka's published examples, its own tests, and recorded Kafka 3.9.1 results.

Cases marked "recorded" were produced by calling ``org.apache.kafka.admin.AdminUtils`` and
``kafka.zk.AdminZkClient`` from the Kafka 3.9.1 jars (with ``AdminUtils.RAND`` replaced by a scripted
``Random`` where a random start is involved).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import KafkaRuleError, UsageError
from core.kafka.assignment import (
    PARTIAL_RACKS_ASSIGNMENT,
    PARTIAL_RACKS_ENFORCED,
    AssignmentStart,
    BrokerMeta,
    assign_expansion,
    assign_replicas_to_brokers,
    assign_replicas_with_start,
    broker_metadatas,
    check_expansion,
    existing_assignment_str,
    expansion_start_index,
    rack_alternated_broker_list,
)


class ScriptedRandom(random.Random):
    """A ``Random`` whose ``randrange`` returns scripted values, recording each bound asked for."""

    def __init__(self, *values: int) -> None:
        super().__init__(0)
        self.values = list(values)
        self.bounds: list[int] = []

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> int:
        assert stop is None and step == 1, "Kafka only draws nextInt(n)"
        self.bounds.append(start)
        value = self.values.pop(0)
        assert 0 <= value < start
        return value


def unracked(*ids: int) -> list[BrokerMeta]:
    return [BrokerMeta(i) for i in ids]


def racked(mapping: Mapping[int, str]) -> list[BrokerMeta]:
    """Like Kafka's test helper ``toBrokerMetadata``: sorted by id."""
    return [BrokerMeta(i, rack) for i, rack in sorted(mapping.items())]


SIX_RACK_EXAMPLE = {0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
BALANCED_SIX = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}


# --- published examples ---------------------------------------------------------------------------


def test_rack_unaware_example_from_spec_and_admin_test() -> None:
    assert assign_replicas_to_brokers(unracked(0, 1, 2, 3, 4), 10, 3, 0) == {
        0: [0, 1, 2], 1: [1, 2, 3], 2: [2, 3, 4], 3: [3, 4, 0], 4: [4, 0, 1],
        5: [0, 2, 3], 6: [1, 3, 4], 7: [2, 4, 0], 8: [3, 0, 1], 9: [4, 1, 2],
    }  # fmt: skip


@pytest.mark.parametrize(
    ("racks", "expected"),
    [
        (SIX_RACK_EXAMPLE, [0, 3, 1, 5, 4, 2]),
        ({k: v for k, v in SIX_RACK_EXAMPLE.items() if k != 5}, [0, 3, 1, 4, 2]),
        ({0: "rack1", 1: "rack1", 2: "rack1", 3: "rack2", 4: "rack2", 5: "rack2",
          6: "rack3", 7: "rack3", 8: "rack3"}, [0, 3, 6, 1, 4, 7, 2, 5, 8]),
    ],
)  # fmt: skip
def test_rack_alternated_list_published_examples(racks: dict[int, str], expected: list[int]) -> None:
    assert rack_alternated_broker_list(racked(racks)) == expected


def test_rack_aware_example_seven_partitions_starts_second_round_with_bigger_shift() -> None:
    assert assign_replicas_to_brokers(racked(SIX_RACK_EXAMPLE), 7, 3, 0, 0) == {
        0: [0, 3, 1], 1: [3, 1, 5], 2: [1, 5, 4], 3: [5, 4, 2], 4: [4, 2, 0], 5: [2, 0, 3], 6: [0, 4, 2],
    }  # fmt: skip


def test_rack_names_sort_by_utf16_code_units_like_java() -> None:
    # Recorded: Java puts "\U0001F600" (surrogates D83D DE00) before "\uff21"; Python's code-point
    # order would not. Also "A" < "B" < "a" (case-sensitive).
    brokers = [BrokerMeta(0, "\uff21"), BrokerMeta(1, "\U0001f600"), BrokerMeta(2, "a"), BrokerMeta(3, "B"),
               BrokerMeta(4, "A")]  # fmt: skip
    assert rack_alternated_broker_list(brokers) == [4, 3, 2, 1, 0]
    assert assign_replicas_to_brokers(brokers, 5, 3, 0, 0) == {
        0: [4, 3, 2], 1: [3, 2, 1], 2: [2, 1, 0], 3: [1, 0, 4], 4: [0, 4, 3],
    }  # fmt: skip


def test_rack_alternated_list_requires_racks() -> None:
    with pytest.raises(ValueError, match="broker 1 has no rack"):
        rack_alternated_broker_list([BrokerMeta(0, "a"), BrokerMeta(1)])


# --- input checks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("brokers", "n", "rf", "exception", "message"),
    [
        (unracked(0, 1), 0, 0, "InvalidPartitionsException", "Number of partitions must be larger than 0."),
        (unracked(0, 1), -1, 5, "InvalidPartitionsException", "Number of partitions must be larger than 0."),
        (unracked(0, 1), 3, 0, "InvalidReplicationFactorException",
         "Replication factor must be larger than 0."),
        (unracked(0, 1, 2, 3, 4), 10, 6, "InvalidReplicationFactorException",
         "Replication factor: 6 larger than available brokers: 5."),
        ([BrokerMeta(0, "r1"), BrokerMeta(1)], 3, 3, "InvalidReplicationFactorException",
         "Replication factor: 3 larger than available brokers: 2."),
        ([BrokerMeta(0, "rack1"), BrokerMeta(1), BrokerMeta(2, "rack3")], 3, 2, "AdminOperationException",
         PARTIAL_RACKS_ASSIGNMENT),
        ([], 1, 1, "InvalidReplicationFactorException",
         "Replication factor: 1 larger than available brokers: 0."),
    ],
)  # fmt: skip
def test_input_checks_in_kafka_order_with_1_0_messages(
    brokers: list[BrokerMeta], n: int, rf: int, exception: str, message: str
) -> None:
    with pytest.raises(KafkaRuleError) as caught:
        assign_replicas_to_brokers(brokers, n, rf)
    assert (caught.value.kafka_exception, str(caught.value)) == (exception, message)
    assert caught.value.exit_code == 2


def test_partial_rack_message_is_kafkas_exact_text() -> None:
    expected = "Not all brokers have rack information for replica rack aware assignment."
    assert expected == PARTIAL_RACKS_ASSIGNMENT


@pytest.mark.parametrize(
    ("argument", "what"),
    [
        ("n_partitions", "the number of partitions"),
        ("replication_factor", "the replication factor"),
        ("fixed_start_index", "the start index"),
        ("start_partition_id", "the start partition"),
    ],
)
@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 99999999999])
def test_arguments_outside_java_int_are_a_usage_error_not_a_bare_value_error(
    argument: str, what: str, value: int
) -> None:
    values = {"n_partitions": 1, "replication_factor": 1, "fixed_start_index": -1, "start_partition_id": -1}
    values[argument] = value
    with pytest.raises(UsageError) as caught:
        assign_replicas_to_brokers(
            unracked(0, 1),
            values["n_partitions"],
            values["replication_factor"],
            values["fixed_start_index"],
            values["start_partition_id"],
        )
    assert str(caught.value) == f"{what} must be a Java int (-2147483648 to 2147483647), got {value}"
    assert caught.value.exit_code == 2


def test_broker_ids_outside_java_int_are_a_usage_error() -> None:
    with pytest.raises(UsageError, match="a broker id must be a Java int"):
        assign_replicas_to_brokers([BrokerMeta(0), BrokerMeta(2**31)], 2, 1, 0)


def test_the_start_used_is_returned_fixed_or_drawn() -> None:
    fixed, start = assign_replicas_with_start(unracked(0, 1, 2), 4, 2, 1, 3)
    assert fixed == assign_replicas_to_brokers(unracked(0, 1, 2), 4, 2, 1, 3)
    assert start == AssignmentStart(1, 1, 3, random=False)
    assert start.describe() == "fixed start: start index 1, replica shift 1, start partition 3"
    brokers = racked({0: "a", 1: "b", 2: "a"})
    drawn, start = assign_replicas_with_start(brokers, 4, 2, rng=ScriptedRandom(2, 1))
    assert start == AssignmentStart(2, 1, 0, random=True)
    assert drawn == assign_replicas_to_brokers(brokers, 4, 2, rng=ScriptedRandom(2, 1))


# --- start index, shift and the two random draws -----------------------------------------------


@pytest.mark.parametrize(
    ("draws", "expected"),
    [
        ((1, 2), {0: [1, 2], 1: [2, 0], 2: [0, 1], 3: [1, 0]}),
        ((2, 1), {0: [2, 1], 1: [0, 2], 2: [1, 0], 3: [2, 0]}),
    ],
)
def test_random_start_uses_two_independent_draws_start_then_shift(
    draws: tuple[int, int], expected: dict[int, list[int]]
) -> None:
    rng = ScriptedRandom(*draws)
    assert assign_replicas_to_brokers(unracked(0, 1, 2), 4, 2, rng=rng) == expected  # recorded
    assert rng.bounds == [3, 3]


def test_random_start_rack_aware_recorded() -> None:
    rng = ScriptedRandom(4, 1)
    assert assign_replicas_to_brokers(racked(SIX_RACK_EXAMPLE), 8, 3, rng=rng) == {
        0: [4, 1, 5], 1: [2, 5, 4], 2: [0, 4, 2], 3: [3, 2, 0], 4: [1, 0, 3], 5: [5, 3, 1], 6: [4, 0, 1],
        7: [2, 3, 5],
    }  # fmt: skip
    assert rng.bounds == [6, 6]


def test_fixed_start_index_draws_nothing() -> None:
    rng = ScriptedRandom()
    assign_replicas_to_brokers(unracked(0, 1, 2), 4, 2, fixed_start_index=0, rng=rng)
    assert rng.bounds == []


def test_seeded_rng_gives_reproducible_assignment() -> None:
    brokers = unracked(*range(7))
    first = assign_replicas_to_brokers(brokers, 20, 3, rng=random.Random(42))
    assert first == assign_replicas_to_brokers(brokers, 20, 3, rng=random.Random(42))


@pytest.mark.parametrize(
    ("start_partition", "expected"),
    [
        # Recorded. From 12 the shift is bumped at p12 and p18 ...
        (12, {12: [0, 2, 3], 13: [1, 3, 4], 14: [2, 4, 5], 15: [3, 5, 0], 16: [4, 0, 1], 17: [5, 1, 2],
              18: [0, 3, 4], 19: [1, 4, 5]}),
        # ... from 13 only at p18: the shift is not startPartitionId / n.
        (13, {13: [1, 2, 3], 14: [2, 3, 4], 15: [3, 4, 5], 16: [4, 5, 0], 17: [5, 0, 1], 18: [0, 2, 3],
              19: [1, 3, 4], 20: [2, 4, 5]}),
    ],
)  # fmt: skip
def test_shift_bumps_only_when_loop_reaches_multiple_of_broker_count(
    start_partition: int, expected: dict[int, list[int]]
) -> None:
    assert assign_replicas_to_brokers(unracked(*range(6)), 8, 3, 0, start_partition) == expected


def test_rack_unaware_uses_brokers_in_given_order() -> None:
    assert assign_replicas_to_brokers(unracked(5, 1, 3), 4, 2, 1) == {
        0: [1, 5],
        1: [3, 1],
        2: [5, 3],
        3: [1, 3],
    }


@pytest.mark.parametrize(
    ("fixed", "start", "expected"),
    [(2**31 - 1, 0, {0: [1, 0]}), (2**31 - 1, 3, {3: [0, 1]})],
)
def test_int_overflow_wraps_like_java(fixed: int, start: int, expected: dict[int, list[int]]) -> None:
    # Recorded; with start 3, partition + startIndex and the bumped shift both wrap to negative ints.
    assert assign_replicas_to_brokers(unracked(0, 1, 2), 1, 2, fixed, start) == expected


def test_negative_index_after_overflow_fails_like_java() -> None:
    with pytest.raises(IndexError, match="Index -2 out of bounds for length 3"):
        assign_replicas_to_brokers(unracked(0, 1, 2), 2, 2, 2**31 - 1, 0)


@pytest.mark.parametrize(
    ("racks", "n", "rf", "fixed", "expected"),
    [
        ({9: "a", 4: "b", 8: "b"}, 4, 2, 2147483612, {0: [8, 9], 1: [9, 4], 2: [4, 9], 3: [8, 9]}),
        ({3: "a", 7: "a", 4: "b", 1: "a"}, 3, 3, 2147483613, {0: [4, 3, 1], 1: [3, 4, 7], 2: [7, 4, 3]}),
        ({9: "b", 6: "b", 3: "a", 0: "b"}, 1, 4, 2147483621, {0: [0, 3, 6, 9]}),
    ],
)
def test_rack_aware_overflow_gives_kafkas_eventual_result_without_spinning(
    racks: dict[int, str], n: int, rf: int, fixed: int, expected: dict[int, list[int]]
) -> None:
    # Recorded: shift * numRacks overflows, Kafka then refuses the same candidates for up to 2**31
    # probes (seconds of CPU per follower) before the int sum wraps to 0; kzc jumps there directly.
    brokers = [BrokerMeta(i, rack) for i, rack in racks.items()]
    assert assign_replicas_to_brokers(brokers, n, rf, fixed) == expected


def test_rack_aware_overflow_negative_index_fails_like_java() -> None:
    # Recorded: Kafka throws IndexOutOfBoundsException after spinning.
    racks = {2: "é", 9: "é", -3: "é", 33: "A", 7: "é", 5: "b", 10: "A", 19: "é", 26: "é"}
    brokers = [BrokerMeta(i, rack) for i, rack in racks.items()]
    with pytest.raises(IndexError, match="Index -2 out of bounds for length 9"):
        assign_replicas_to_brokers(brokers, 21, 9, 2147483644, rng=ScriptedRandom(7, 5))


@pytest.mark.parametrize(
    ("racks", "n", "rf", "fixed", "expected"),
    [
        ({10: "b", 11: "b", 12: "a", 13: "a", 14: "c"}, 10, 4, 3,
         {0: [13, 10, 14, 11], 1: [11, 14, 13, 12], 2: [12, 14, 11, 10], 3: [10, 13, 14, 11],
          4: [14, 11, 12, 10], 5: [13, 11, 14, 12], 6: [11, 12, 14, 13], 7: [12, 10, 14, 13],
          8: [10, 14, 13, 11], 9: [14, 13, 11, 12]}),
        # AdminRackAwareTest.testSkipBrokerWithReplicaAlreadyAssigned, fixedStartIndex 2.
        ({0: "a", 1: "b", 2: "c", 3: "a", 4: "a"}, 6, 4, 2,
         {0: [2, 0, 1, 3], 1: [3, 1, 2, 4], 2: [4, 2, 1, 3], 3: [0, 1, 2, 3], 4: [1, 4, 2, 3],
          5: [2, 4, 1, 3]}),
    ],
)  # fmt: skip
def test_rack_aware_more_replicas_than_racks_recorded(
    racks: dict[int, str], n: int, rf: int, fixed: int, expected: dict[int, list[int]]
) -> None:
    assert assign_replicas_to_brokers(racked(racks), n, rf, fixed) == expected


# --- RackAwareTest.checkReplicaDistribution, for every (startIndex, shift) pair ------------------


def check_replica_distribution(
    assignment: Mapping[int, Sequence[int]],
    rack_of: Mapping[int, str],
    num_brokers: int,
    num_partitions: int,
    rf: int,
    *,
    rack_aware: bool = True,
    leaders: bool = True,
    replicas: bool = True,
) -> None:
    """``RackAwareTest.checkReplicaDistribution`` (Kafka's flags, same defaults)."""
    for replica_list in assignment.values():
        assert len(set(replica_list)) == len(replica_list)
    if rack_aware:
        assert [len({rack_of[b] for b in r}) for r in assignment.values()] == [rf] * num_partitions
    if leaders:
        leader_count = Counter(r[0] for r in assignment.values())
        assert sorted(leader_count.values()) == [num_partitions // num_brokers] * num_brokers
    if replicas:
        replica_count = Counter(b for r in assignment.values() for b in r)
        assert sorted(replica_count.values()) == [num_partitions * rf // num_brokers] * num_brokers


def all_draws(n: int) -> list[ScriptedRandom]:
    return [ScriptedRandom(start, shift) for start in range(n) for shift in range(n)]


@pytest.mark.parametrize(
    ("racks", "n", "rf", "start", "flags"),
    [
        # (AdminRackAwareTest test, flags it enables)
        (BALANCED_SIX, 6, 3, -1, {}),  # testAssignmentWithRackAwareWithRandomStartIndex
        ({0: "rack1", 1: "rack1", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1"}, 12, 3, -1,
         {"replicas": False}),  # testAssignmentWithRackAwareWithUnevenRacks
        (BALANCED_SIX, 12, 2, -1, {}),  # testAssignmentWith2ReplicasRackAware
        ({6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack3", 11: "rack1"}, 12, 2, 12,
         {}),  # testRackAwareExpansion
        ({6: "rack1", 7: "rack2", 8: "rack2", 9: "rack3", 10: "rack3", 11: "rack1"}, 6, 2, -1,
         {}),  # testAssignmentWith2ReplicasRackAwareWith6Partitions
        ({0: "rack1", 1: "rack2", 4: "rack3"}, 3, 2, -1, {}),  # ...With6PartitionsAnd3Brokers
        ({0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack1", 6: "rack1", 7: "rack2",
          8: "rack2", 9: "rack3", 10: "rack1", 11: "rack3"}, 96, 3, -1, {}),  # testLargeNumberPartitions...
    ],
)  # fmt: skip
def test_admin_rack_aware_test_random_cases_hold_for_every_start_and_shift(
    racks: dict[int, str], n: int, rf: int, start: int, flags: dict[str, bool]
) -> None:
    for rng in all_draws(len(racks)):
        assignment = assign_replicas_to_brokers(racked(racks), n, rf, start_partition_id=start, rng=rng)
        check_replica_distribution(assignment, racks, len(racks), n, rf, **flags)


def test_admin_rack_aware_fixed_start_cases() -> None:
    # testAssignmentWithRackAware (fixed 2) and testAssignmentWithRackAwareWithUnevenReplicas (fixed 0).
    fixed_two = assign_replicas_to_brokers(racked(BALANCED_SIX), 6, 3, 2, 0)
    check_replica_distribution(fixed_two, BALANCED_SIX, 6, 6, 3)
    uneven = assign_replicas_to_brokers(racked(BALANCED_SIX), 13, 3, 0, 0)
    check_replica_distribution(uneven, BALANCED_SIX, 6, 13, 3, leaders=False, replicas=False)


@pytest.mark.parametrize(("rf", "expected_racks"), [(5, 3), (2, 2)])
def test_more_and_less_replicas_than_racks_span_expected_racks(rf: int, expected_racks: int) -> None:
    # testMoreReplicasThanRacks / testLessReplicasThanRacks
    racks = {0: "rack1", 1: "rack2", 2: "rack2", 3: "rack3", 4: "rack3", 5: "rack2"}
    for rng in all_draws(6):
        assignment = assign_replicas_to_brokers(racked(racks), 6, rf, rng=rng)
        assert all(len(r) == rf for r in assignment.values())
        assert [len({racks[b] for b in r}) for r in assignment.values()] == [expected_racks] * 6


def test_single_rack_spans_one_rack_and_each_broker_leads_once() -> None:
    racks = dict.fromkeys(range(6), "rack1")
    for rng in all_draws(6):
        assignment = assign_replicas_to_brokers(racked(racks), 6, 3, rng=rng)
        assert all(len({racks[b] for b in r}) == 1 for r in assignment.values())
        assert Counter(r[0] for r in assignment.values()) == dict.fromkeys(range(6), 1)


# --- properties -----------------------------------------------------------------------------------


@st.composite
def rack_layouts(draw: st.DrawFn) -> dict[int, str]:
    ids = draw(st.lists(st.integers(0, 60), min_size=1, max_size=12, unique=True))
    names = draw(st.lists(st.text("aAbB\U0001f600\uff21", min_size=1, max_size=3), min_size=1, max_size=4))
    return {i: draw(st.sampled_from(names)) for i in ids}


@st.composite
def racked_requests(draw: st.DrawFn) -> tuple[dict[int, str], int, int, int, ScriptedRandom]:
    racks = draw(rack_layouts())
    n = len(racks)
    rf = draw(st.integers(1, n))
    partitions = draw(st.integers(1, 40))
    start = draw(st.sampled_from([-1, draw(st.integers(0, 50))]))
    rng = ScriptedRandom(draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
    return racks, rf, partitions, start, rng


@settings(deadline=None)
@given(racked_requests())
def test_no_duplicate_broker_and_racks_distinct_when_possible(
    request: tuple[dict[int, str], int, int, int, ScriptedRandom],
) -> None:
    racks, rf, partitions, start, rng = request
    assignment = assign_replicas_to_brokers(racked(racks), partitions, rf, start_partition_id=start, rng=rng)
    wanted = min(rf, len(set(racks.values())))
    for replicas in assignment.values():
        assert len(replicas) == rf == len(set(replicas))
        assert len({racks[b] for b in replicas}) == wanted


@settings(deadline=None)
@given(racked_requests(), st.randoms(use_true_random=False))
def test_rack_aware_result_independent_of_input_order(
    request: tuple[dict[int, str], int, int, int, ScriptedRandom], shuffler: random.Random
) -> None:
    racks, rf, partitions, start, rng = request
    brokers = racked(racks)
    draws = list(rng.values)
    shuffled = list(brokers)
    shuffler.shuffle(shuffled)
    assert assign_replicas_to_brokers(shuffled, partitions, rf, -1, start, ScriptedRandom(*draws)) == (
        assign_replicas_to_brokers(brokers, partitions, rf, -1, start, ScriptedRandom(*draws))
    )


@settings(deadline=None)
@given(
    st.lists(st.integers(0, 60), min_size=1, max_size=10, unique=True),
    st.data(),
)
def test_single_rack_equals_rack_unaware_on_id_sorted_list(ids: list[int], data: st.DataObject) -> None:
    n = len(ids)
    rf = data.draw(st.integers(1, n))
    partitions = data.draw(st.integers(1, 30))
    start = data.draw(st.sampled_from([-1, data.draw(st.integers(0, 40))]))
    draws = (data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1)))
    one_rack = [BrokerMeta(i, "only") for i in ids]  # any order: the rack path sorts
    rack_unaware = unracked(*sorted(ids))
    assert assign_replicas_to_brokers(one_rack, partitions, rf, -1, start, ScriptedRandom(*draws)) == (
        assign_replicas_to_brokers(rack_unaware, partitions, rf, -1, start, ScriptedRandom(*draws))
    )


@settings(deadline=None)
@given(st.integers(1, 9), st.integers(1, 4), st.integers(0, 3), st.data())
def test_rack_unaware_even_leaders_and_replicas_for_whole_rounds(
    n: int, rounds: int, start_round: int, data: st.DataObject
) -> None:
    # The conditions under which Kafka's tests check evenness: partitions a multiple of the
    # broker count, starting at a multiple of it.
    rf = data.draw(st.integers(1, n))
    rng = ScriptedRandom(data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1)))
    ids = list(range(n))
    assignment = assign_replicas_to_brokers(unracked(*ids), n * rounds, rf, -1, n * start_round, rng)
    check_replica_distribution(assignment, {}, n, n * rounds, rf, rack_aware=False)


@settings(deadline=None)
@given(st.integers(1, 4), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2), st.data())
def test_rack_aware_even_distribution_with_balanced_racks_and_whole_rounds(
    num_racks: int, per_rack: int, rounds: int, start_round: int, data: st.DataObject
) -> None:
    racks = {i: f"r{i % num_racks}" for i in range(num_racks * per_rack)}
    n = len(racks)
    rf = data.draw(st.integers(1, num_racks))
    rng = ScriptedRandom(data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1)))
    assignment = assign_replicas_to_brokers(racked(racks), n * rounds, rf, -1, n * start_round, rng)
    check_replica_distribution(assignment, racks, n, n * rounds, rf)


# --- getBrokerMetadatas ---------------------------------------------------------------------------


def test_broker_metadatas_sorts_by_id() -> None:
    assert broker_metadatas(unracked(3, 1, 2)) == unracked(1, 2, 3)


def test_broker_metadatas_enforced_rejects_partial_racks_with_kafka_message() -> None:
    with pytest.raises(KafkaRuleError) as caught:
        broker_metadatas([BrokerMeta(0, "r1"), BrokerMeta(1)])
    assert caught.value.kafka_exception == "AdminOperationException"
    assert str(caught.value) == (
        "Not all brokers have rack information. Add --disable-rack-aware in command line to make replica "
        "assignment without rack information."
    )
    assert str(caught.value) == PARTIAL_RACKS_ENFORCED


def test_an_expansion_with_racks_disabled_is_the_rack_unaware_one_on_id_sorted_brokers() -> None:
    brokers = [BrokerMeta(2, "r1"), BrokerMeta(1), BrokerMeta(3, "r2")]  # partial racks
    with pytest.raises(KafkaRuleError, match="Add --disable-rack-aware in command line"):
        assign_expansion(brokers, {0: [2, 3]}, 3, topic="t")
    new = assign_expansion(brokers, {0: [2, 3]}, 3, topic="t", rack_aware=False)
    assert new == assign_replicas_to_brokers(unracked(1, 2, 3), 2, 2, 1, 1)


def test_broker_metadatas_disabled_drops_racks() -> None:
    assert broker_metadatas([BrokerMeta(2, "r1"), BrokerMeta(1)], rack_aware=False) == unracked(1, 2)


def test_broker_metadatas_keeps_complete_racks_and_empty_string_rack() -> None:
    brokers = [BrokerMeta(1, ""), BrokerMeta(0, "r")]
    assert broker_metadatas(brokers) == [BrokerMeta(0, "r"), BrokerMeta(1, "")]


# --- adding partitions ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("first_replica", "expected"),
    [(0, 0), (2, 1), (3, 2), (4, 2), (6, 3), (99, 0)],
)
def test_expansion_start_index_is_first_broker_with_id_at_least_first_replica(
    first_replica: int, expected: int
) -> None:
    assert expansion_start_index(unracked(1, 2, 4, 6), first_replica) == expected


def test_add_partitions_test_replica_placement_all_servers() -> None:
    # AddPartitionsTest.testReplicaPlacementAllServers (leaders and replica sets), exact lists recorded.
    new = assign_expansion(unracked(0, 1, 2, 3), {0: [2, 3, 0, 1]}, 7, topic="new-topic3")
    assert new == {1: [3, 2, 0, 1], 2: [0, 3, 1, 2], 3: [1, 0, 2, 3], 4: [2, 3, 0, 1], 5: [3, 0, 1, 2], 6: [0, 1, 2, 3]}


def test_add_partitions_test_replica_placement_partial_servers() -> None:
    new = assign_expansion(unracked(0, 1, 2, 3), {0: [1, 2]}, 3, topic="new-topic2")
    assert new == {1: [2, 0], 2: [3, 1]}


def test_expansion_start_index_past_every_broker_wraps_to_zero() -> None:
    assert assign_expansion(unracked(3, 0, 1, 2), {0: [9, 1], 1: [1, 2]}, 4, topic="t") == {
        2: [2, 3],
        3: [3, 0],
    }


def test_rack_aware_expansion_uses_sorted_index_on_alternated_list() -> None:
    # Recorded: partition 0 starts at broker 3 = index 3 of the id-sorted list, but index 3 of the
    # alternated list [0, 1, 4, 2, 3] is broker 2.
    brokers = [
        BrokerMeta(0, "r1"),
        BrokerMeta(1, "r2"),
        BrokerMeta(2, "r1"),
        BrokerMeta(3, "r2"),
        BrokerMeta(4, "r3"),
    ]
    assert rack_alternated_broker_list(brokers) == [0, 1, 4, 2, 3]
    new = assign_expansion(brokers, {0: [3, 1], 1: [1, 2]}, 6, topic="t")
    assert new == {2: [0, 4], 3: [1, 2], 4: [4, 3], 5: [2, 3]}


def test_assign_expansion_checks_racks_first() -> None:
    with pytest.raises(KafkaRuleError, match="Add --disable-rack-aware"):
        assign_expansion([BrokerMeta(0, "r"), BrokerMeta(1)], {}, 0, topic="t")


def test_missing_partition_0_message_small_map() -> None:
    # AddPartitionsTest.testMissingPartition0, full 3.x message recorded.
    with pytest.raises(KafkaRuleError) as caught:
        assign_expansion(unracked(0, 1, 2, 3), {1: [0, 1]}, 3, topic="new-topic5")
    assert caught.value.kafka_exception == "AdminOperationException"
    assert str(caught.value) == (
        "Unexpected existing replica assignment for topic 'new-topic5', partition id 0 is missing. "
        "Assignment: Map(1 -> ReplicaAssignment(replicas=0,1, addingReplicas=, removingReplicas=))"
    )


def test_missing_partition_0_message_uses_scala_hash_map_order_from_five_partitions() -> None:
    existing = {1: [0, 1], 2: [1, 2], 3: [2, 3], 4: [3, 0], 5: [0, 2], 6: [1, 3]}
    order = [5, 1, 6, 2, 3, 4]  # recorded
    tail = "addingReplicas=, removingReplicas="
    entries = [f"{p} -> ReplicaAssignment(replicas={','.join(map(str, existing[p]))}, {tail})" for p in order]
    expected = ", ".join(entries)
    assert existing_assignment_str(existing) == f"HashMap({expected})"


def test_partition_count_must_increase_message() -> None:
    with pytest.raises(KafkaRuleError) as caught:
        check_expansion("t", {0: [0], 1: [1]}, 2)
    assert caught.value.kafka_exception == "InvalidPartitionsException"
    assert str(caught.value) == (
        "The number of partitions for a topic can only be increased. Topic t currently has 2 partitions, "
        "2 would not be an increase."
    )


def test_expansion_rf_comes_from_partition_0_and_may_exceed_brokers() -> None:
    with pytest.raises(KafkaRuleError, match=r"^Replication factor: 3 larger than available brokers: 2\.$"):
        assign_expansion(unracked(0, 1), {0: [0, 1, 2], 1: [1]}, 3, topic="t")


def test_empty_partition_0_fails_like_scala_head() -> None:
    with pytest.raises(KafkaRuleError) as caught:
        assign_expansion(unracked(0, 1), {0: []}, 2, topic="t")
    assert (caught.value.kafka_exception, str(caught.value)) == (
        "NoSuchElementException",
        "head of empty list",
    )
