"""Synthetic log dirs (what DescribeLogDirs would report) for a snapshot: deterministic sizes for every replica
of every registered broker, spread over its dirs, and dirs that failed. For the console's tests and demos.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping

from core.brokers.logdirs import KAFKA_STORAGE_ERROR, BrokerLogDirs, LogDir, ReplicaLog
from core.kafka.znodes import TopicAssignment
from core.snapshot.model import ClusterSnapshot

MAX_PARTITION_BYTES = 64 * 1024 * 1024


def replica_bytes(topic: str, partition: int) -> int:
    """A partition's log size, the same on each of its replicas: deterministic, up to 64 MiB."""
    return _hash(f"{topic}-{partition}") % MAX_PARTITION_BYTES


def _hash(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def synthetic_log_dirs(
    snapshot: ClusterSnapshot,
    read_ms: int,
    dirs_per_broker: int = 2,
    offline: Mapping[int, Collection[int]] | None = None,
    unknown: Mapping[int, str] | None = None,
) -> dict[int, BrokerLogDirs]:
    """Every registered broker's log dirs ``/data/<broker>/d<N>``, each replica in a dir picked by a hash.

    Args:
        offline: broker -> the dir numbers (1-based) that failed: listed with ``KAFKA_STORAGE_ERROR`` and no
            replica, as a broker reports an offline dir.
        unknown: broker -> why its log dirs cannot be read (e.g. a 0.11 broker).
    """
    held: dict[int, list[list[ReplicaLog]]] = {b: [[] for _ in range(dirs_per_broker)] for b in snapshot.brokers}
    for entry in snapshot.topics.values():
        if not isinstance(entry.assignment, TopicAssignment):
            continue
        for partition, replicas in entry.assignment.partitions:
            size = replica_bytes(entry.name, partition)
            for broker in replicas:
                if broker in held:
                    slot = _hash(f"{entry.name}-{partition}@{broker}") % dirs_per_broker
                    held[broker][slot].append(ReplicaLog(entry.name, partition, size, 0, False))
    reads: dict[int, BrokerLogDirs] = {}
    for broker, slots in held.items():
        if unknown and broker in unknown:
            reads[broker] = BrokerLogDirs(broker, read_ms, unknown=unknown[broker])
            continue
        failed = (offline or {}).get(broker, ())
        dirs = tuple(
            LogDir(f"/data/{broker}/d{n}", KAFKA_STORAGE_ERROR)
            if n in failed
            else LogDir(f"/data/{broker}/d{n}", 0, tuple(logs))
            for n, logs in enumerate(slots, 1)
        )
        reads[broker] = BrokerLogDirs(broker, read_ms, dirs)
    return reads
