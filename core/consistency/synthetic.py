"""Synthetic snapshot files of any size with a chosen mix of planted faults: what the Spark worker warms up
on (``spark_job.warm_up``), and what benchmarks and tests check the engines with.

``write_synthetic`` writes ``core.snapshot.jsonl``'s format directly (one formatted line per record, no
``ClusterSnapshot`` in memory), fast enough for 1M-3M partitions, and the result reads back with
``read_snapshot_file``. The layout: brokers 1..B on racks r1..rN in turn, topics of ``partitions_per_topic``
partitions, replicas on consecutive brokers of a ring (so on distinct racks: the default broker count is
a multiple of the rack count), every partition in sync at its preferred leader, a config per topic (topic
creation writes one), controller 1 at epoch 5; without faults no check finds anything. Faults are planted
on randomly chosen partitions, topics and cluster znodes; ``SyntheticInfo.planted`` counts them.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from core import __version__
from core.kafka.znodes.paths import (
    CLUSTER_ID,
    CONTROLLER,
    CONTROLLER_EPOCH,
    ISR_CHANGE_NOTIFICATIONS,
    REASSIGN_PARTITIONS,
    broker_path,
    child_path,
    deletion_marker_path,
    state_path,
    topic_config_path,
    topic_path,
)
from core.snapshot.jsonl.schema import FORMAT_NAME
from core.snapshot.jsonl.write import RecordWriter
from core.snapshot.model import SNAPSHOT_FORMAT_VERSION

TAKEN_AT_MS = 1_700_000_000_000
EPOCH = 5
MINUTE_MS = 60_000

PARTITION_FAULTS = (
    "offline",
    "under_replicated",
    "leader_not_in_isr",
    "isr_not_subset",
    "empty_isr",
    "state_missing",
    "unreadable_state",
    "duplicate_replica",
    "unknown_broker",
    "epoch_ahead",
    "preferred_not_leader",
    "reassigning",
    "rack_violation",
)
TOPIC_FAULTS = (
    "orphan_state",
    "non_contiguous",
    "inconsistent_rf",
    "invalid_name",
    "collision",
    "under_min_isr",
    "deletion_pending",
    "deletion_stuck",
    "stale_marker",
    "orphan_config",
)
CLUSTER_FAULTS = ("invalid_reassignment", "notification_backlog", "bad_broker", "no_controller")

# What each fault the generator plants is reported as (docs/checks.md): every check of the registry
# (``core.consistency.checks``) but the migration readiness ones is here or in NOT_PLANTABLE.
PLANTED_AS = {
    "offline": "offline_partition",
    "under_replicated": "under_replicated",
    "leader_not_in_isr": "leader_not_in_isr",
    "isr_not_subset": "isr_not_subset_of_replicas",
    "empty_isr": "empty_isr",
    "state_missing": "partition_state_missing",
    "unreadable_state": "unreadable_znode",
    "duplicate_replica": "duplicate_replica",
    "unknown_broker": "replica_on_unknown_broker",
    "epoch_ahead": "controller_epoch_ahead",
    "preferred_not_leader": "preferred_leader_not_leader",
    "reassigning": "reassignment_in_progress",
    "rack_violation": "rack_violation",
    "orphan_state": "orphan_partition_state",
    "non_contiguous": "non_contiguous_partitions",
    "inconsistent_rf": "inconsistent_replication_factor",
    "invalid_name": "topic_name_invalid",
    "collision": "topic_name_collision",
    "under_min_isr": "under_min_isr",
    "deletion_pending": "deletion_pending",
    "deletion_stuck": "deletion_stuck",
    "stale_marker": "stale_deletion_marker",
    "orphan_config": "orphan_topic_config",
    "invalid_reassignment": "invalid_reassignment_request",
    "notification_backlog": "notification_backlog",
    "bad_broker": "broker_registration_invalid",
    "no_controller": "no_controller",
}
# What the generator cannot plant, and why (the hand-built cases of core.testdata.checks fire them).
NOT_PLANTABLE = {
    "controller_not_registered": "the generator's controller is always broker 1",
    "leader_imbalance": "planted faults are too sparse to unbalance a broker's preferred partitions",
    "metadata_mismatch": "needs the brokers' metadata, which a snapshot file does not hold",
}


@dataclass(frozen=True)
class FaultMix:
    """How many faults to plant: a share of partitions / topics per fault kind (at least ``minimum`` each
    when the rate is above 0), and which cluster-wide faults."""

    partition_rates: Mapping[str, float] = field(default_factory=dict)
    topic_rates: Mapping[str, float] = field(default_factory=dict)
    cluster: frozenset[str] = frozenset()
    minimum: int = 1

    @classmethod
    def none(cls) -> FaultMix:
        """A healthy cluster."""
        return cls()

    @classmethod
    def default(cls, rate: float = 0.0005) -> FaultMix:
        """Every partition and topic fault at ``rate``, every cluster fault except a missing controller."""
        return cls(
            partition_rates={k: rate for k in PARTITION_FAULTS},
            topic_rates={k: rate for k in TOPIC_FAULTS},
            cluster=frozenset(CLUSTER_FAULTS) - {"no_controller"},
        )

    @classmethod
    def every_fault(cls) -> FaultMix:
        """At least one of every fault kzc plants (no controller included)."""
        return cls(
            partition_rates={k: 1e-9 for k in PARTITION_FAULTS},
            topic_rates={k: 1e-9 for k in TOPIC_FAULTS},
            cluster=frozenset(CLUSTER_FAULTS),
        )


@dataclass
class SyntheticInfo:
    """What was written."""

    path: Path
    partitions: int
    topics: int
    brokers: int
    records: int
    planted: dict[str, int]


def _pick(rng: random.Random, population: int, rates: Mapping[str, float], minimum: int) -> dict[int, str]:
    wanted = {kind: max(minimum, round(rate * population)) for kind, rate in rates.items() if rate > 0}
    total = min(population, sum(wanted.values()))
    chosen = rng.sample(range(population), total)
    plan: dict[int, str] = {}
    kinds = [kind for kind, n in wanted.items() for _ in range(n)]
    for index, kind in zip(chosen, kinds, strict=False):
        plan[index] = kind
    return plan


def _times(ctime: int) -> dict[str, int]:
    return {"czxid": 1, "mzxid": 1, "ctime_ms": ctime, "mtime_ms": ctime, "zk_version": 0}


def write_synthetic(
    path: Path,
    partitions: int,
    *,
    topics: int | None = None,
    brokers: int | None = None,
    racks: int = 3,
    replication_factor: int = 3,
    faults: FaultMix | None = None,
    seed: int = 0,
) -> SyntheticInfo:
    """Write a synthetic snapshot of ``partitions`` partitions to ``path``.

    Args:
        topics: number of topics (default: one per 10 partitions).
        brokers: number of brokers (default: between 6 and 300, growing with the partitions, a multiple of
            ``racks``; with another count, replica lists that wrap around the ring may share a rack).
        faults: what to plant (default: none).
    """
    faults = faults or FaultMix.none()
    rng = random.Random(seed)
    n_topics = max(1, topics if topics is not None else partitions // 10)
    n_brokers = brokers if brokers is not None else min(300, max(6, partitions // 10_000))
    if brokers is None and racks:
        # Replicas sit on consecutive brokers of a ring: only a multiple of the rack count keeps the windows
        # that wrap around (brokers n, 1, 2...) on distinct racks, so healthy partitions stay healthy.
        n_brokers = max(racks, n_brokers - n_brokers % racks)
    rf = min(replication_factor, n_brokers)
    unknown_broker = n_brokers + 1  # never registered
    sizes = [partitions // n_topics + (1 if t < partitions % n_topics else 0) for t in range(n_topics)]
    partition_plan = _pick(rng, partitions, faults.partition_rates, faults.minimum)
    topic_plan = _pick(rng, n_topics, faults.topic_rates, faults.minimum)
    planted: dict[str, int] = {}
    for kind in (*partition_plan.values(), *topic_plan.values()):
        planted[kind] = planted.get(kind, 0) + 1
    cluster = set(faults.cluster)
    for kind in cluster:
        planted[kind] = 1
    names = [f"topic-{t:07d}" for t in range(n_topics)]
    for t, kind in topic_plan.items():
        if kind == "invalid_name":
            names[t] = f"bad topic {t}"
        elif kind == "collision":
            names[t] = f"coll.{t}"
    total_partitions = sum(sizes) + sum(1 for t, k in topic_plan.items() if k == "collision")
    with path.open("w", encoding="utf-8", buffering=1 << 20) as out:
        w = RecordWriter(out)
        w.record(
            "header", format=FORMAT_NAME, version=SNAPSHOT_FORMAT_VERSION, kzc_version=__version__,
            taken_at_ms=TAKEN_AT_MS, zookeeper="synthetic:2181/kafka", zxid=1, session_id=1,
            broker_count=n_brokers, topic_count=n_topics + planted.get("collision", 0),
            partition_count=total_partitions,
        )  # fmt: skip
        w.record(
            "cluster_id", path=CLUSTER_ID, readable=True, cluster_id="AAAAAAAAAAAAAAAAAAAAAA", cluster_id_version="1"
        )
        if "no_controller" not in cluster:
            w.record("controller", path=CONTROLLER, readable=True, broker_id=1, timestamp_ms=TAKEN_AT_MS,
                     version=2, kraft_controller_epoch=-1)  # fmt: skip
        w.record("controller_epoch", path=CONTROLLER_EPOCH, readable=True, controller_epoch=EPOCH, zk_version=EPOCH)
        for b in range(1, n_brokers + 1):
            bad = "bad_broker" in cluster and b == n_brokers
            w.record(
                "broker", path=broker_path(b), readable=True, broker_id=b, version=4 if bad else 5,
                host="127.0.0.1", port=9000 + b, jmx_port=-1, timestamp_ms=TAKEN_AT_MS,
                endpoints=[f"PLAINTEXT://127.0.0.1:{9000 + b}"], endpoint_security_protocols=["PLAINTEXT"],
                rack=f"r{(b - 1) % racks + 1}" if racks else None,
                listener_security_protocol_map={"PLAINTEXT": "PLAINTEXT"},
                feature_min_versions={}, feature_max_versions={}, **_times(TAKEN_AT_MS - 60 * MINUTE_MS),
            )  # fmt: skip
        unreadable: list[tuple[str, str, str]] = []
        index = 0
        configs: list[tuple[str, dict[str, str]]] = []
        markers: list[tuple[str, int]] = []
        for t in range(n_topics):
            name = names[t]
            fault = topic_plan.get(t)
            index = _topic(
                w, name, sizes[t], index, fault, partition_plan, n_brokers, rf, unknown_broker, racks, rng, unreadable
            )
            configs.append((name, {"min.insync.replicas": str(rf)} if fault == "under_min_isr" else {}))
            if fault == "collision":
                twin = name.replace(".", "_")
                _topic(w, twin, 1, -1, None, {}, n_brokers, rf, unknown_broker, racks, rng, unreadable)
                configs.append((twin, {}))
            if fault == "deletion_pending":
                markers.append((name, TAKEN_AT_MS - MINUTE_MS))
            elif fault == "deletion_stuck":
                markers.append((name, TAKEN_AT_MS - 20 * MINUTE_MS))
            elif fault == "stale_marker":
                markers.append((f"gone-{t}", TAKEN_AT_MS - MINUTE_MS))
            elif fault == "orphan_config":
                configs.append((f"orphan-{t}", {}))
        for name, config in configs:
            w.record("config", path=topic_config_path(name), readable=True, entity_type="topics", entity_name=name,
                     version=1, config=config)  # fmt: skip
        for name, ctime in markers:
            w.record("deletion_marker", path=deletion_marker_path(name), topic=name, **_times(ctime))
        if "invalid_reassignment" in cluster:
            w.record("reassignment_request", path=REASSIGN_PARTITIONS, readable=True, version=1,
                     entry_count=1, **_times(TAKEN_AT_MS - MINUTE_MS))  # fmt: skip
            w.record("reassignment_entry", topic="no-such-topic", partition=0, replicas=[1])
        if "notification_backlog" in cluster:
            w.record(
                "notification", path=child_path(ISR_CHANGE_NOTIFICATIONS, "isr_change_0000000001"), readable=True,
                notification_type="isr_change", name="isr_change_0000000001",
                ctime_ms=TAKEN_AT_MS - 30 * MINUTE_MS, version=1, entry_topics=[names[0]], entry_partitions=[0],
            )  # fmt: skip
        for path_, problem, raw in unreadable:
            w.record("unreadable", path=path_, problem=problem, raw_base64=raw)
        w.record("end", record_count=w.count)
    return SyntheticInfo(path, total_partitions, n_topics, n_brokers, w.count, planted)


def _topic(
    w: RecordWriter,
    name: str,
    size: int,
    index: int,
    fault: str | None,
    plan: Mapping[int, str],
    n_brokers: int,
    rf: int,
    unknown_broker: int,
    racks: int,
    rng: random.Random,
    unreadable: list[tuple[str, str, str]],
) -> int:
    """Write one topic and its partitions; ``index`` is the global index of its first partition (-1: no
    partition faults). Returns the next global index."""
    ids = list(range(1, size + 1)) if fault == "non_contiguous" else list(range(size))
    base = topic_path(name)
    w.record("topic", path=base, readable=True, topic=name, version=3, topic_id=None, partition_count=size,
             **_times(TAKEN_AT_MS - 60 * MINUTE_MS))  # fmt: skip
    start = rng.randrange(n_brokers)
    for position, p in enumerate(ids):
        kind = plan.get(index) if index >= 0 else None
        if index >= 0:
            index += 1
        first = (start + p) % n_brokers
        replicas = [(first + k) % n_brokers + 1 for k in range(rf)]
        if fault == "inconsistent_rf" and position == 0 and rf > 1:
            replicas = replicas[:-1]
        adding: list[int] = []
        removing: list[int] = []
        leader, isr, epoch, present, readable = replicas[0], list(replicas), EPOCH, True, True
        if fault == "under_min_isr" and position == 0 and rf > 1:
            isr = replicas[:-1]
        if kind == "offline":
            leader, isr = -1, replicas[:1]
        elif kind == "under_replicated" and rf > 1:
            isr = replicas[:-1]
        elif kind == "leader_not_in_isr" and rf > 1:
            isr = replicas[1:]
        elif kind == "isr_not_subset":
            isr = [*replicas, unknown_broker + 1]
        elif kind == "empty_isr":
            leader, isr = -1, []
        elif kind == "state_missing":
            present = False
        elif kind == "unreadable_state":
            readable = False
        elif kind == "duplicate_replica" and rf > 1:
            replicas = [*replicas[:-1], replicas[0]]
            isr = list(dict.fromkeys(replicas))
        elif kind == "unknown_broker":
            replicas = [*replicas[:-1], unknown_broker]
            isr = list(replicas)
        elif kind == "epoch_ahead":
            epoch = EPOCH + 5
        elif kind == "preferred_not_leader" and rf > 1:
            leader = replicas[1]
        elif kind == "reassigning" and rf < n_brokers:
            extra = (first + rf) % n_brokers + 1
            adding, removing = [extra], [replicas[-1]]
            replicas = [*replicas, extra]
        elif kind == "rack_violation" and racks >= rf > 1:
            # Another broker on the first replica's rack (brokers b and b +/- racks share one).
            twin = replicas[0] + racks if replicas[0] + racks <= n_brokers else replicas[0] - racks
            if twin >= 1 and twin not in replicas:
                replicas = [replicas[0], twin, *replicas[2:]]
                isr = list(replicas)
        if not present:
            w.partition(name, p, replicas, adding, removing, None)
        elif not readable:
            raw = base64.b64encode(b'{"leader":').decode()
            problem = "not JSON: Expecting value (line 1, column 11)"
            unreadable.append((state_path(name, p), problem, raw))
            w.partition(name, p, replicas, adding, removing, problem, raw)
        else:
            w.partition(name, p, replicas, adding, removing, (leader, isr, epoch))
    if fault == "orphan_state":
        p = ids[-1] + 1 if ids else 0
        w.record("partition", topic=name, partition=p, in_assignment=False, state_present=True,
                 path=state_path(name, p), readable=True, leader=1, leader_epoch=0, isr=[1],
                 controller_epoch=EPOCH, leader_recovery_state=0, version=1)  # fmt: skip
    return index
