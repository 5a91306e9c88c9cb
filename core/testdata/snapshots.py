"""Synthetic ``ClusterSnapshot``s in memory: a realistic cluster of any size, deterministic for a seed.

For the console's snapshot tests, demos and the responsiveness benchmark (``core.consistency.synthetic``
writes snapshot files for the checks).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ControllerInfo,
    Endpoint,
    EntityConfig,
    PartitionState,
    TopicAssignment,
    Unreadable,
)
from core.snapshot.model import BrokerEntry, ClusterSnapshot, TopicEntry, ZnodeTimes
from core.testdata.builder import snapshot


def synthetic_snapshot(
    topics: int = 50_000,
    partitions_per_topic: int = 4,
    brokers: int = 6,
    racks: int = 3,
    replication_factor: int = 3,
    dead_brokers: Sequence[int] = (),
    seed: int = 7,
    taken_at_ms: int = 1_700_000_000_000,
) -> ClusterSnapshot:
    """A cluster of ``topics`` x ``partitions_per_topic`` partitions on ``brokers`` brokers.

    Realistic blemishes, deterministic for a seed: every 997th topic is under-replicated, every 4999th
    has an offline partition, every 9973th is queued for deletion, every 50th has config overrides;
    ``dead_brokers`` are left out of ``/brokers/ids`` (their replicas fall out of the ISRs).
    """
    rng = random.Random(seed)
    dead = frozenset(dead_brokers)
    broker_ids = list(range(1, brokers + 1))
    broker_entries: dict[int, BrokerEntry] = {}
    for b in broker_ids:
        if b in dead:
            continue
        endpoint = Endpoint("PLAINTEXT", "PLAINTEXT", f"kafka-{b}.example", 9092)
        registration = BrokerRegistration(
            b,
            5,
            endpoint.host,
            9092,
            -1,
            taken_at_ms - 86_400_000,
            (endpoint,),
            f"rack-{(b - 1) % racks + 1}",
            (("PLAINTEXT", "PLAINTEXT"),),
            (),
        )
        times = ZnodeTimes(1000 + b, 1000 + b, taken_at_ms - 86_400_000 + b * 1000, taken_at_ms - 86_400_000, 0)
        broker_entries[b] = BrokerEntry(b, registration, times)
    states_cache: dict[tuple[int, tuple[int, ...]], PartitionState] = {}

    def state(leader: int, isr: tuple[int, ...]) -> PartitionState:
        key = (leader, isr)
        found = states_cache.get(key)
        if found is None:
            found = states_cache[key] = PartitionState(leader, 3, isr, 5, 0, 1)
        return found

    topic_entries: dict[str, TopicEntry] = {}
    topic_configs: dict[str, EntityConfig | Unreadable] = {}
    markers: dict[str, ZnodeTimes] = {}
    n = len(broker_ids)
    empty_config = EntityConfig(1, ())
    for t in range(topics):
        name = f"{_WORDS[t % len(_WORDS)]}.{_WORDS[(t // len(_WORDS)) % len(_WORDS)]}-{t:05d}"
        start = rng.randrange(n)
        parts: list[tuple[int, tuple[int, ...]]] = []
        states: dict[int, PartitionState | Unreadable | None] = {}
        for p in range(partitions_per_topic):
            first = (start + p) % n
            replicas = tuple(broker_ids[(first + j) % n] for j in range(replication_factor))
            parts.append((p, replicas))
            isr = tuple(r for r in replicas if r not in dead)
            leader = isr[0] if isr else -1
            if t % 997 == 5 and p == 0 and len(isr) > 1:
                isr = isr[:-1]
            if t % 4999 == 11 and p == 1:
                leader, isr = -1, isr[:1]
            states[p] = state(leader, isr)
        assignment = TopicAssignment(name, 3, tuple(parts), (), (), f"{t:022d}")
        config: EntityConfig = empty_config
        if t % 50 == 0:
            config = EntityConfig(1, (("retention.ms", "604800000"), ("min.insync.replicas", "2")))
        topic_configs[name] = config
        times = ZnodeTimes(5000 + t, 5000 + t, taken_at_ms - 3_600_000, taken_at_ms - 3_600_000, 0)
        topic_entries[name] = TopicEntry(name, assignment, times, states, config)
        if t % 9973 == 17:
            markers[name] = ZnodeTimes(9_000_000 + t, 9_000_000 + t, taken_at_ms - 120_000, taken_at_ms - 120_000, 0)
    controller_id = next(b for b in broker_ids if b not in dead)
    return snapshot(
        brokers=broker_entries.values(),
        topics=topic_entries.values(),
        controller=ControllerInfo(controller_id, taken_at_ms - 7_200_000, 2, -1),
        markers=markers,
        topic_configs=topic_configs,
        taken_at_ms=taken_at_ms,
        zookeeper="synthetic:2181/kafka",
        zxid=10_000_000,
        session_id=1,
        cluster_id=ClusterId("1", "c2ludGhldGljLWNsdXN0ZQ"),
        controller_epoch=8,
        controller_epoch_zk_version=7,
    )


_WORDS = (
    "orders",
    "payments",
    "clicks",
    "audit",
    "billing",
    "search",
    "inventory",
    "shipping",
    "users",
    "metrics",
    "logs",
    "events",
    "sessions",
    "alerts",
    "ledger",
    "profiles",
    "catalog",
    "pricing",
    "fraud",
    "reports",
)
