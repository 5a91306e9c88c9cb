"""Where a reassignment stands, read from ZooKeeper: per partition queued, adding (catching up into the
ISR), removing, or done; what is stuck and why.

The controller (2.4+) takes each partition listed in ``/admin/reassign_partitions``, writes the union of
old and new replicas with ``adding_replicas`` / ``removing_replicas`` into the topic znode, waits for the
adding replicas to join the ISR, then writes the target alone and drops the partition from the znode.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import KzcError
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import PartitionState, ReassignmentRequest, TopicAssignment
from core.polling import follow_until
from core.topics.facts import ClusterFacts, TopicStateReader

QUEUED = "queued"
ADDING = "adding"
REMOVING = "removing"
DONE = "done"
POLL_INTERVAL = 0.25


class ReassignTimeout(KzcError):
    """``--wait`` ran out of time; the message says what is still moving and why."""


@dataclass(frozen=True)
class PartitionProgress:
    """One partition of a reassignment as ZooKeeper shows it now."""

    topic: str
    partition: int
    target: tuple[int, ...]
    replicas: tuple[int, ...]
    adding: tuple[int, ...]
    removing: tuple[int, ...]
    isr: tuple[int, ...]
    leader: int | None
    phase: str
    reasons: tuple[str, ...]

    def describe(self) -> str:
        """``t-0: adding 4 (not yet in ISR 1,2,3); target 1,4,3``."""
        head = f"{self.topic}-{self.partition}: {self.phase}"
        if self.phase == ADDING:
            behind = [b for b in self.adding if b not in self.isr]
            head += f" {_ids(self.adding)}" + (f" (catching up: {_ids(behind)} not in ISR)" if behind else "")
        elif self.phase == REMOVING:
            head += f" {_ids(self.removing)}"
        head += f"; replicas {_ids(self.replicas)}, target {_ids(self.target)}, ISR {_ids(self.isr)}"
        return head + "".join(f"; STUCK: {r}" for r in self.reasons)

    def to_json(self) -> dict[str, Any]:
        """JSON-able view."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "phase": self.phase,
            "target": list(self.target),
            "replicas": list(self.replicas),
            "adding": list(self.adding),
            "removing": list(self.removing),
            "isr": list(self.isr),
            "leader": self.leader,
            "stuck": list(self.reasons),
        }


def reverted_replicas(p: PartitionProgress) -> tuple[int, ...]:
    """The replicas a cancel leaves ``p`` with: Kafka's ``originReplicas``, the current replica list without
    the adding replicas, in that list's order."""
    return tuple(r for r in p.replicas if r not in p.adding)


@dataclass(frozen=True)
class ReassignProgress:
    """Every followed partition, and the throttles still set."""

    partitions: tuple[PartitionProgress, ...]
    throttles: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        """Every partition reached its target and left the reassignment."""
        return all(p.phase == DONE for p in self.partitions)

    @property
    def moving(self) -> tuple[PartitionProgress, ...]:
        """Partitions not done."""
        return tuple(p for p in self.partitions if p.phase != DONE)

    def describe(self) -> list[str]:
        """Terminal lines: a count, then each partition not done (capped), then throttles left."""
        done = len(self.partitions) - len(self.moving)
        lines = [f"{done}/{len(self.partitions)} partitions reassigned"]
        stuck = [p for p in self.moving if p.reasons]
        if stuck:
            lines[0] += f", {len(stuck)} stuck"
        lines += [f"  {p.describe()}" for p in self.moving[:50]]
        if len(self.moving) > 50:
            lines.append(f"  ... and {len(self.moving) - 50} more")
        lines += [f"  throttle still set: {t}" for t in self.throttles]
        return lines

    def cancel_effects(self) -> list[str]:
        """What a cancel does to each moving partition's replica order, for the preview.

        Kafka reverts to ``replicas`` without the adding ones, in the order of the reassignment's replica
        list (target first: ``ReplicaAssignment.originReplicas``), not in the order the partition had before
        it: the preferred leader (the first replica) can change.
        """
        lines = [
            "The controller keeps the order of the reassignment's replica list (target first), not the order "
            "before it: the preferred leader (first replica) can change."
        ]
        for p in self.moving[:50]:
            after = reverted_replicas(p)
            if not after:
                continue
            note = f"preferred leader {after[0]}"
            if p.leader is not None and p.leader != after[0]:
                note += f" (the leader now is {p.leader}: kzc elect preferred moves it)"
            lines.append(f"  {p.topic}-{p.partition}: reverts to replicas {_ids(after)}, {note}")
        if len(self.moving) > 50:
            lines.append(f"  ... and {len(self.moving) - 50} more")
        return lines

    def to_json(self) -> dict[str, Any]:
        """``{"done", "partitions", "throttles"}``."""
        return {
            "done": self.done,
            "partitions": [p.to_json() for p in self.partitions],
            "throttles": list(self.throttles),
        }


def in_progress(facts: ClusterFacts, assignments: Iterable[TopicAssignment]) -> list[TopicPartition]:
    """Partitions being reassigned: listed in ``/admin/reassign_partitions`` or with adding/removing
    replicas in their topic znode (a reassignment started through the AdminClient, KIP-455)."""
    keys: set[TopicPartition] = set()
    if isinstance(facts.reassignment, ReassignmentRequest):
        keys.update((t, p) for t, p, _ in facts.reassignment.partitions)
    for assignment in assignments:
        keys.update((assignment.topic, p) for p, _ in (*assignment.adding, *assignment.removing))
    return sorted(keys)


def partition_progress(
    key: TopicPartition,
    target: Sequence[int],
    assignment: TopicAssignment | None,
    state: PartitionState | None,
    queued: bool,
    facts: ClusterFacts,
) -> PartitionProgress:
    """One partition's phase and what holds it (pure)."""
    topic, partition = key
    replicas = assignment.replicas(partition) if assignment is not None else ()
    adding = assignment.adding_replicas(partition) if assignment is not None else ()
    removing = assignment.removing_replicas(partition) if assignment is not None else ()
    isr = state.isr if state is not None else ()
    leader = state.leader if state is not None else None
    if adding and any(b not in isr for b in adding):
        phase = ADDING
    elif adding or removing:
        phase = REMOVING
    elif queued or tuple(replicas) != tuple(target):
        phase = QUEUED
    else:
        phase = DONE
    reasons: list[str] = []
    if phase != DONE:
        if assignment is None:
            reasons.append("the topic does not exist (any more)")
        if facts.controller is None:
            reasons.append("no active controller")
        dead = sorted(b for b in set(target) | set(adding) if b not in facts.broker_ids)
        reasons += [f"broker {b} is not registered" for b in dead]
        if leader is not None and leader < 0:
            reasons.append("the partition has no leader")
        if phase == QUEUED and not queued:
            reasons.append("not listed in /admin/reassign_partitions and not at its target: nothing moves it")
    return PartitionProgress(
        topic, partition, tuple(target), tuple(replicas), tuple(adding), tuple(removing), tuple(isr),
        leader, phase, tuple(reasons),
    )  # fmt: skip


def read_progress(
    reader: TopicStateReader, targets: Mapping[TopicPartition, Sequence[int]] | None, throttles: Callable[[], list[str]]
) -> ReassignProgress:
    """Look once at the partitions of ``targets`` (None: every partition being reassigned now)."""
    facts = reader.facts()
    queued: dict[TopicPartition, tuple[int, ...]] = {}
    if isinstance(facts.reassignment, ReassignmentRequest):
        queued = {(t, p): r for t, p, r in facts.reassignment.partitions}
    names = facts.topic_names if targets is None else frozenset(t for t, _ in targets)
    live = reader.topics(sorted(names))
    assignments = {n: t.assignment for n, t in live.items() if isinstance(t.assignment, TopicAssignment)}
    wanted: dict[TopicPartition, Sequence[int]]
    if targets is None:
        wanted = {}
        for key in in_progress(facts, assignments.values()):
            assignment = assignments.get(key[0])
            if key in queued:
                wanted[key] = queued[key]
            elif assignment is not None:
                current = assignment.replicas(key[1])
                wanted[key] = tuple(b for b in current if b not in assignment.removing_replicas(key[1]))
    else:
        wanted = dict(targets)
    by_topic: dict[str, list[int]] = {}
    for topic, partition in wanted:
        by_topic.setdefault(topic, []).append(partition)
    states: dict[TopicPartition, PartitionState | None] = {}
    for topic, partitions in by_topic.items():
        for partition, state in reader.partition_states(topic, partitions).items():
            states[(topic, partition)] = state if isinstance(state, PartitionState) else None
    looked = tuple(
        partition_progress(key, wanted[key], assignments.get(key[0]), states.get(key), key in queued, facts)
        for key in sorted(wanted)
    )
    return ReassignProgress(looked, tuple(throttles()))


def wait_done(
    look: Callable[[], ReassignProgress], timeout: float, on_change: Callable[[ReassignProgress], None] | None = None
) -> ReassignProgress:
    """Poll until every partition is done; ``on_change`` hears each different look.

    Raises:
        ReassignTimeout: the deadline passed; the message lists what still moves and why.
    """

    def timed_out(last: ReassignProgress | None) -> ReassignTimeout:
        lines = last.describe() if last else []
        return ReassignTimeout(f"the reassignment did not finish within {timeout:g} s: " + "; ".join(lines))

    return follow_until(
        look, lambda p: p.done, timeout, "the reassignment", timed_out, on_change, lambda p: p.to_json(), POLL_INTERVAL
    )


def _ids(ids: Iterable[int]) -> str:
    return ",".join(map(str, ids)) or "-"
