"""Plan ``--move-off`` on 100k partitions x 100 brokers, next to Kafka's own algorithm on the same input.

The cluster: 1,000 topics x 100 partitions, replication factor 3, brokers 1-100 on 10 racks, every topic
assigned by Kafka's ``assignReplicasToBrokers`` (kzc's reproduction, ``core.kafka.assignment``) from a
seeded random start. The baseline is what ``kafka-reassign-partitions.sh --generate`` computes for the same
input (every topic re-assigned over the 99 remaining brokers): Kafka's assignment algorithm as kzc
reproduces it, run in this process (the Kafka tools jar, which holds ReassignPartitionsCommand in 3.9, is
not among the sandbox's cached jars, and a JVM start would dominate the figure anyway).

Printed per case: the planning time (best of 3), replicas moved, and the replica/leader spread after.
Run: ``.venv/bin/python benchmarks/reassign_bench.py``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.kafka.assignment import BrokerMeta, assign_replicas_to_brokers
from core.kafka.topic_partition import TopicPartition
from core.reassign.move_off import plan_move_off
from core.reassign.plan import ReassignPlan, plan_onto

TOPICS, PARTITIONS, RF, BROKERS, RACKS = 1000, 100, 3, 100, 10
GOAL_SECONDS = 10.0


def cluster() -> tuple[dict[TopicPartition, tuple[int, ...]], list[BrokerMeta]]:
    brokers = [BrokerMeta(b, f"rack{b % RACKS}") for b in range(1, BROKERS + 1)]
    rng = random.Random(42)
    assignment: dict[TopicPartition, tuple[int, ...]] = {}
    for t in range(TOPICS):
        for p, replicas in assign_replicas_to_brokers(brokers, PARTITIONS, RF, rng=rng).items():
            assignment[(f"topic-{t:04d}", p)] = tuple(replicas)
    return assignment, brokers


def best_of(runs: int, make: Callable[[], ReassignPlan]) -> tuple[float, ReassignPlan]:
    times, plan = [], None
    for _ in range(runs):
        start = time.perf_counter()
        plan = make()
        times.append(time.perf_counter() - start)
    assert plan is not None
    return min(times), plan


def row(name: str, seconds: float, plan: ReassignPlan) -> str:
    replicas, leaders = plan.after.skew(plan.targets)
    return f"| {name} | {seconds:.2f} s | {plan.replicas_moved:,} | {len(plan.moves):,} | {replicas} | {leaders} |"


def main() -> None:
    build = time.perf_counter()
    assignment, brokers = cluster()
    built = time.perf_counter() - build
    print(f"{len(assignment):,} partitions x {BROKERS} brokers ({RACKS} racks), built in {built:.1f} s")
    print("| plan | time (best of 3) | replicas moved | partitions changed | replica spread | leader spread |")
    print("|---|---|---|---|---|---|")
    remaining = [b for b in range(1, BROKERS + 1) if b != 7]
    for off in ([7], [7, 8, 9, 10, 11]):
        seconds, plan = best_of(3, lambda off=off: plan_move_off(assignment, brokers, off))  # type: ignore[misc]
        print(row(f"kzc --move-off {','.join(map(str, off))}", seconds, plan))
        verdict = "ok" if seconds <= GOAL_SECONDS else "MISSED"
        print(f"|   goal ≤ {GOAL_SECONDS:g} s | {verdict} | | | | |")
    seconds, plan = best_of(3, lambda: plan_onto(assignment, brokers, remaining, seed=1))
    print(row("Kafka's --generate onto the other 99 (kzc's reproduction)", seconds, plan))


if __name__ == "__main__":
    main()
