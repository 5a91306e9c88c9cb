"""core.kafka.assignment_metrics: balance, rack spread and pair overlap of an assignment."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.kafka.assignment import BrokerMeta, assign_replicas_to_brokers
from core.kafka.assignment_metrics import PairOverlap, compute_metrics, expansion_metrics

RACKED = [BrokerMeta(0, "r1"), BrokerMeta(1, "r1"), BrokerMeta(2, "r2"), BrokerMeta(3, "r3")]


def test_counts_cover_every_known_broker_including_idle_and_unregistered() -> None:
    metrics = compute_metrics({0: [0, 1], 1: [1, 9]}, [BrokerMeta(0), BrokerMeta(1), BrokerMeta(2)])
    assert dict(metrics.replicas_per_broker) == {0: 1, 1: 2, 2: 0, 9: 1}
    assert dict(metrics.leaders_per_broker) == {0: 1, 1: 1, 2: 0, 9: 0}


def test_min_max_and_skew() -> None:
    brokers = [BrokerMeta(0), BrokerMeta(1), BrokerMeta(2)]
    metrics = compute_metrics({0: [0, 1], 1: [0, 2], 2: [0, 1]}, brokers)
    assert (metrics.min_replicas, metrics.max_replicas, metrics.replica_skew) == (1, 3, 2)
    assert (metrics.min_leaders, metrics.max_leaders, metrics.leader_skew) == (0, 3, 3)


def test_no_brokers_and_no_partitions_give_zeros() -> None:
    metrics = compute_metrics({}, [])
    assert (metrics.replica_skew, metrics.leader_skew, metrics.min_replicas, metrics.max_leaders) == (
        0,
        0,
        0,
        0,
    )
    assert metrics.broker_pair_overlap == PairOverlap(0, None)


def test_racks_per_partition_counts_distinct_racks() -> None:
    metrics = compute_metrics({0: [0, 1], 1: [0, 2], 2: [1, 2, 3]}, RACKED)
    assert dict(metrics.racks_per_partition) == {0: 1, 1: 2, 2: 3}


def test_rack_violation_when_replicas_miss_available_racks() -> None:
    # p0: 2 replicas on one rack although 3 racks exist; p2: 3 replicas on 2 racks.
    metrics = compute_metrics({0: [0, 1], 1: [0, 2], 2: [0, 1, 2], 3: [0, 2, 3]}, RACKED)
    assert metrics.rack_violations == (0, 2)


def test_replicas_beyond_rack_count_need_only_every_rack() -> None:
    brokers = [BrokerMeta(0, "a"), BrokerMeta(1, "a"), BrokerMeta(2, "b")]
    assert compute_metrics({0: [0, 1, 2]}, brokers).rack_violations == ()
    assert compute_metrics({0: [0, 1]}, brokers).rack_violations == (0,)


def test_unknown_rack_brokers_add_no_rack() -> None:
    metrics = compute_metrics({0: [0, 9]}, RACKED)
    assert dict(metrics.racks_per_partition) == {0: 1}
    assert metrics.rack_violations == (0,)


def test_rack_metrics_empty_without_racks() -> None:
    metrics = compute_metrics({0: [0, 1]}, [BrokerMeta(0), BrokerMeta(1)])
    assert dict(metrics.racks_per_partition) == {}
    assert metrics.rack_violations == ()


def test_pair_overlap_finds_most_shared_pair_smallest_first_on_ties() -> None:
    metrics = compute_metrics({0: [2, 3], 1: [3, 2, 0], 2: [0, 1], 3: [1, 0]}, RACKED)
    assert metrics.broker_pair_overlap == PairOverlap(2, (0, 1))


def test_metrics_are_read_only() -> None:
    metrics = compute_metrics({0: [0]}, [BrokerMeta(0)])
    with pytest.raises(TypeError):
        metrics.replicas_per_broker[0] = 5  # type: ignore[index]
    with pytest.raises(AttributeError):
        metrics.replica_skew = 3  # type: ignore[misc]


def test_to_json_has_string_keys_and_survives_json_round_trip() -> None:
    as_json = compute_metrics({0: [0, 2], 1: [2, 9]}, RACKED).to_json()
    assert json.loads(json.dumps(as_json)) == as_json
    assert as_json["replicas_per_broker"] == {"0": 1, "1": 0, "2": 2, "3": 0, "9": 1}
    assert as_json["leaders_per_broker"] == {"0": 1, "1": 0, "2": 1, "3": 0, "9": 0}
    assert as_json["racks_per_partition"] == {"0": 2, "1": 1}
    assert as_json["rack_violations"] == [1]
    assert as_json["broker_pair_overlap"] == {"shared_partitions": 1, "pair": [0, 2]}
    assert (as_json["replica_skew"], as_json["leader_skew"]) == (2, 1)


def test_expansion_metrics_before_and_after() -> None:
    brokers = [BrokerMeta(0), BrokerMeta(1), BrokerMeta(2)]
    result = expansion_metrics({0: [0, 1]}, {1: [2, 0]}, brokers)
    assert set(result) == {"before", "after"}
    assert dict(result["before"].replicas_per_broker) == {0: 1, 1: 1, 2: 0}
    assert dict(result["after"].replicas_per_broker) == {0: 2, 1: 1, 2: 1}
    assert dict(result["after"].leaders_per_broker) == {0: 1, 1: 0, 2: 1}


@settings(deadline=None)
@given(
    st.dictionaries(st.integers(0, 30), st.sampled_from(["r1", "r2", "r3", "r4"]), min_size=1, max_size=10),
    st.integers(1, 30),
    st.data(),
)
def test_kafka_rack_aware_assignments_have_no_rack_violations(
    racks: dict[int, str], partitions: int, data: st.DataObject
) -> None:
    brokers = [BrokerMeta(i, rack) for i, rack in sorted(racks.items())]
    rf = data.draw(st.integers(1, len(brokers)))
    seed = data.draw(st.integers(0, 2**32))
    assignment = assign_replicas_to_brokers(brokers, partitions, rf, rng=random.Random(seed))
    metrics = compute_metrics(assignment, brokers)
    assert metrics.rack_violations == ()
    assert sum(metrics.replicas_per_broker.values()) == partitions * rf
    assert sum(metrics.leaders_per_broker.values()) == partitions


@settings(deadline=None)
@given(st.integers(1, 8), st.integers(1, 5), st.data())
def test_kafka_whole_rounds_have_zero_skew(n: int, rounds: int, data: st.DataObject) -> None:
    brokers = [BrokerMeta(i) for i in range(n)]
    rf = data.draw(st.integers(1, n))
    rng = random.Random(data.draw(st.integers(0, 99)))
    assignment = assign_replicas_to_brokers(brokers, n * rounds, rf, rng=rng)
    metrics = compute_metrics(assignment, brokers)
    assert (metrics.replica_skew, metrics.leader_skew) == (0, 0)
