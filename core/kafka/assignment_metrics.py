"""Balance metrics of a replica assignment, for previews before kzc writes anything.

Pure functions over ``{partition: [replicas]}`` and the broker list: per-broker replica and
preferred-leader counts with their skew, rack spread per partition, partitions that miss racks
Kafka's rack-aware placement would have used, and the most-shared broker pair (the brokers
whose joint loss hits the most partitions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from types import MappingProxyType

from core.kafka.assignment import BrokerMeta

JsonDict = dict[str, object]


@dataclass(frozen=True, slots=True)
class PairOverlap:
    """The broker pair sharing the most partitions (smallest ids first on ties); None if no pair."""

    shared_partitions: int
    pair: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class AssignmentMetrics:
    """Balance of one assignment; mappings are read-only and cover every known broker (0 included).

    ``racks_per_partition`` and ``rack_violations`` are empty when no broker has a rack. A
    violation is a partition whose replicas span fewer than ``min(replicas, racks)`` distinct
    racks, which Kafka's rack-aware placement never produces.
    """

    replicas_per_broker: Mapping[int, int]
    leaders_per_broker: Mapping[int, int]
    min_replicas: int
    max_replicas: int
    replica_skew: int
    min_leaders: int
    max_leaders: int
    leader_skew: int
    racks_per_partition: Mapping[int, int]
    rack_violations: tuple[int, ...]
    broker_pair_overlap: PairOverlap

    def to_json(self) -> JsonDict:
        """Plain JSON-able dicts (string keys, lists) for ``--output json`` and snapshots."""
        overlap = self.broker_pair_overlap
        return {
            "replicas_per_broker": {str(b): n for b, n in self.replicas_per_broker.items()},
            "leaders_per_broker": {str(b): n for b, n in self.leaders_per_broker.items()},
            "min_replicas": self.min_replicas,
            "max_replicas": self.max_replicas,
            "replica_skew": self.replica_skew,
            "min_leaders": self.min_leaders,
            "max_leaders": self.max_leaders,
            "leader_skew": self.leader_skew,
            "racks_per_partition": {str(p): n for p, n in self.racks_per_partition.items()},
            "rack_violations": list(self.rack_violations),
            "broker_pair_overlap": {
                "shared_partitions": overlap.shared_partitions,
                "pair": None if overlap.pair is None else list(overlap.pair),
            },
        }


def _counts(brokers: list[int], counter: Counter[int]) -> Mapping[int, int]:
    return MappingProxyType({broker: counter.get(broker, 0) for broker in brokers})


def _rack_spread(
    assignment: Mapping[int, Sequence[int]], rack_of: Mapping[int, str]
) -> tuple[Mapping[int, int], tuple[int, ...]]:
    """Distinct known racks per partition, and the partitions short of ``min(replicas, racks)``.

    A replica on a broker with no known rack (unregistered, or rack-less) adds no rack.
    """
    if not rack_of:
        return MappingProxyType({}), ()
    total_racks = len(set(rack_of.values()))
    spread: dict[int, int] = {}
    violations: list[int] = []
    for partition in sorted(assignment):
        replicas = set(assignment[partition])
        spread[partition] = len({rack_of[b] for b in replicas if b in rack_of})
        if spread[partition] < min(len(replicas), total_racks):
            violations.append(partition)
    return MappingProxyType(spread), tuple(violations)


def _pair_overlap(assignment: Mapping[int, Sequence[int]]) -> PairOverlap:
    shared: Counter[tuple[int, int]] = Counter()
    for replicas in assignment.values():
        shared.update(combinations(sorted(set(replicas)), 2))
    if not shared:
        return PairOverlap(0, None)
    pair, count = min(shared.items(), key=lambda item: (-item[1], item[0]))
    return PairOverlap(count, pair)


def compute_metrics(
    assignment: Mapping[int, Sequence[int]],
    brokers: Sequence[BrokerMeta],
) -> AssignmentMetrics:
    """Metrics of ``assignment`` on a cluster of ``brokers``.

    Args:
        assignment: ``{partition: [preferred leader, followers...]}``; every listed replica counts.
        brokers: the registered brokers; brokers only found in the assignment are reported too.

    Returns:
        The metrics; min/max/skew are 0 when there is no broker at all.
    """
    replicas: Counter[int] = Counter(b for replica_list in assignment.values() for b in replica_list)
    leaders: Counter[int] = Counter(replica_list[0] for replica_list in assignment.values() if replica_list)
    known = sorted({b.id for b in brokers} | set(replicas))
    replica_counts = _counts(known, replicas)
    leader_counts = _counts(known, leaders)
    min_r, max_r = (min(replica_counts.values()), max(replica_counts.values())) if known else (0, 0)
    min_l, max_l = (min(leader_counts.values()), max(leader_counts.values())) if known else (0, 0)
    spread, violations = _rack_spread(assignment, {b.id: b.rack for b in brokers if b.rack is not None})
    return AssignmentMetrics(
        replicas_per_broker=replica_counts,
        leaders_per_broker=leader_counts,
        min_replicas=min_r,
        max_replicas=max_r,
        replica_skew=max_r - min_r,
        min_leaders=min_l,
        max_leaders=max_l,
        leader_skew=max_l - min_l,
        racks_per_partition=spread,
        rack_violations=violations,
        broker_pair_overlap=_pair_overlap(assignment),
    )


def expansion_metrics(
    existing: Mapping[int, Sequence[int]], new: Mapping[int, Sequence[int]], brokers: Sequence[BrokerMeta]
) -> dict[str, AssignmentMetrics]:
    """Metrics before and after adding ``new`` partitions: ``{"before": ..., "after": ...}``."""
    return {
        "before": compute_metrics(existing, brokers),
        "after": compute_metrics({**existing, **new}, brokers),
    }
