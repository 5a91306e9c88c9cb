"""The likely cause of under-replicated and offline partitions: what the affected partitions share, named by the
smallest explanation with its evidence (pure; the cluster screen's line).

The affected partitions are those the one health derivation (``core.snapshot.health.partition_health``) calls
offline or under-replicated. For each, the *missing* replicas are its replicas outside the ISR. Explanations,
smallest first:

1. **one broker** missing from every affected partition's ISR (``92 of 92 under-replicated partitions lack
   broker 2 in their ISR``), with the evidence ZooKeeper holds about it: not registered (and since when the
   console last saw it), or registered, so the broker runs but its replicas do not keep up (a stopped process,
   a slow or failed disk, a full log dir, a network partition);
2. **one rack**: every missing replica is on brokers of one rack;
3. **one topic**: every affected partition is of one topic (a topic-level problem, e.g. its config);
4. otherwise the broker missing from the most ISRs, with its share.

Log dirs are not grouped here: ZooKeeper does not say which log dir holds a replica (DescribeLogDirs does).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from core.kafka.znodes import BrokerRegistration, PartitionState, TopicAssignment
from core.snapshot.health import MinIsrResolver, live_leader, partition_health
from core.snapshot.model import ClusterSnapshot


@dataclass(frozen=True)
class LikelyCause:
    """The smallest explanation of the affected partitions: ``kind`` (``broker``, ``rack``, ``topic``,
    ``partial``), ``subject`` (the broker id, rack or topic) and the sentence with its evidence."""

    kind: str
    subject: str
    affected: int
    explained: int
    text: str


def likely_cause(snapshot: ClusterSnapshot) -> LikelyCause | None:
    """The likely cause of the offline and under-replicated partitions, or None when there are none."""
    live = snapshot.live_broker_ids()
    resolver = MinIsrResolver(snapshot)
    missing_by_partition: list[frozenset[int]] = []
    topics: Counter[str] = Counter()
    offline = 0
    for entry in snapshot.topics.values():
        assignment = entry.assignment
        if not isinstance(assignment, TopicAssignment):
            continue
        for partition, replicas in assignment.partitions:
            state = entry.states.get(partition)
            adding = assignment.adding_replicas(partition)
            health = partition_health(
                replicas, adding, state, live, resolver.resolve(entry.config, live_leader(state, live))
            )
            if health.offline is None and not health.under_replicated:
                continue
            isr = state.isr if isinstance(state, PartitionState) else ()
            # An offline partition whose ISR still names a dead broker: that broker is what it lacks.
            missing = frozenset(r for r in replicas if r not in isr or r not in live)
            missing_by_partition.append(missing)
            topics[entry.name] += 1
            offline += health.offline is not None
    total = len(missing_by_partition)
    if total == 0:
        return None
    what = _what(total, offline)
    per_broker: Counter[int] = Counter(b for m in missing_by_partition for b in m)
    everywhere = sorted(b for b, n in per_broker.items() if n == total)
    if len(everywhere) == 1:
        b = everywhere[0]
        text = f"{total:,} of {total:,} {what} lack broker {b} in their ISR; {_evidence(snapshot, b)}"
        return LikelyCause("broker", str(b), total, total, text)
    racks = {b: _rack(snapshot, b) for b in per_broker}
    rack_names = set(racks.values())
    if len(rack_names) == 1 and None not in rack_names and len(per_broker) > 1:
        rack = next(iter(rack_names))
        assert rack is not None
        ids = ", ".join(map(str, sorted(per_broker)))
        return LikelyCause("rack", rack, total, total,
                           f"every replica missing from the ISRs of {total:,} {what} is on rack {rack} "
                           f"(brokers {ids})")  # fmt: skip
    if len(topics) == 1:
        topic = next(iter(topics))
        return LikelyCause("topic", topic, total, total, f"all {total:,} {what} are of topic {topic}")
    if not per_broker:
        return LikelyCause("partial", "", total, 0, f"{total:,} {what}: no replica missing from an ISR (no state?)")
    b, n = per_broker.most_common(1)[0]
    return LikelyCause("partial", str(b), total, n,
                       f"broker {b} is missing from the ISR of {n:,} of {total:,} {what} "
                       f"({len(per_broker)} brokers missing from some); {_evidence(snapshot, b)}")  # fmt: skip


def _what(total: int, offline: int) -> str:
    if offline == total:
        return "offline partitions"
    if offline == 0:
        return "under-replicated partitions"
    return f"affected partitions ({offline:,} offline)"


def _rack(snapshot: ClusterSnapshot, broker: int) -> str | None:
    entry = snapshot.brokers.get(broker)
    if entry is not None and isinstance(entry.registration, BrokerRegistration):
        return entry.registration.rack
    return None


def _evidence(snapshot: ClusterSnapshot, broker: int) -> str:
    """What ZooKeeper says about the broker."""
    if broker not in snapshot.live_broker_ids():
        return f"broker {broker} is not registered (down, or its ZooKeeper session expired)"
    return (
        f"broker {broker} is registered, so it runs but its replicas do not keep up (a paused process, a slow or "
        "failed log dir, the network)"
    )
