"""Leader election plans, pure: which partitions a preferred election would move (and why the others are
skipped), and what an unclean election would risk.

The controller's rule (zk-layout §2.5): a preferred election makes the first replica of the assignment
leader if it is alive and in the ISR; an unclean election makes the first live replica in assignment
order leader even when it is not in the ISR, and whatever only the ISR held is lost.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.errors import GuardError
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import PartitionState

# Why a partition is not sent.
ALREADY = "the preferred replica already leads"


@dataclass(frozen=True)
class Candidate:
    """One partition as an election sees it: replicas (first = preferred), its state, the reason it is
    skipped (None: it is sent)."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    leader: int | None
    isr: tuple[int, ...]
    skipped: str | None

    @property
    def preferred(self) -> int | None:
        """The preferred replica (first of the assignment)."""
        return self.replicas[0] if self.replicas else None

    def to_json(self) -> dict[str, Any]:
        """JSON-able view."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "preferred": self.preferred,
            "leader": self.leader,
            "isr": list(self.isr),
            "skipped": self.skipped,
        }


@dataclass(frozen=True)
class PreferredPlan:
    """A preferred election: ``sent`` are elected, ``skipped`` listed with why. ``blocked``: read-only..."""

    sent: tuple[Candidate, ...]
    skipped: tuple[Candidate, ...]
    via: str
    blocked: str | None = None
    via_reason: str | None = None  # why this path (``core.brokers.capabilities.route``)

    @property
    def keys(self) -> tuple[TopicPartition, ...]:
        """(topic, partition) of every partition sent."""
        return tuple((c.topic, c.partition) for c in self.sent)

    def to_json(self) -> dict[str, Any]:
        """``{"sent", "skipped", "via", "path", "blocked"}``."""
        return {
            "sent": [c.to_json() for c in self.sent],
            "skipped": [c.to_json() for c in self.skipped],
            "via": self.via,
            "path": self.via_reason,
            "blocked": self.blocked,
        }

    def describe(self, shown: int = 40) -> list[str]:
        """Terminal lines, before anything is sent: what would be sent (capped), what is skipped and why (grouped,
        capped)."""
        head = f"Preferred leader election: {len(self.sent)} partition(s) would be sent, {len(self.skipped)} skipped"
        lines = [head]
        lines += [f"  {c.topic}-{c.partition}: leader {c.leader} -> {c.preferred}" for c in self.sent[:shown]]
        if len(self.sent) > shown:
            lines.append(f"  ... {len(self.sent) - shown} more")
        not_already = [c for c in self.skipped if c.skipped != ALREADY]
        already = len(self.skipped) - len(not_already)
        if already:
            lines.append(f"  skipped {already}: {ALREADY}")
        lines += [f"  skipped {c.topic}-{c.partition}: {c.skipped}" for c in not_already[:shown]]
        if self.via_reason:
            lines.append(f"  path: {self.via_reason}")
        if self.blocked:
            lines.append(f"  BLOCKED: {self.blocked}")
        return lines


def preferred_candidates(
    assignment: Mapping[TopicPartition, Sequence[int]],
    states: Mapping[TopicPartition, PartitionState | None],
    live_brokers: frozenset[int],
    deleting: frozenset[str],
) -> list[Candidate]:
    """Each partition with the reason it is skipped, or None when a preferred election would move it."""
    result = []
    for key in sorted(assignment):
        replicas = tuple(assignment[key])
        state = states.get(key)
        leader = state.leader if state is not None else None
        isr = state.isr if state is not None else ()
        preferred = replicas[0] if replicas else None
        if key[0] in deleting:
            reason: str | None = "the topic is being deleted"
        elif state is None:
            reason = "no state znode (the controller has not created the partition yet)"
        elif preferred is None:
            reason = "no replicas"
        elif leader == preferred:
            reason = ALREADY
        elif preferred not in live_brokers:
            reason = f"preferred replica {preferred} is not registered (broker down)"
        elif preferred not in isr:
            reason = f"preferred replica {preferred} is not in the ISR {list(isr)}"
        else:
            reason = None
        result.append(Candidate(key[0], key[1], replicas, leader, tuple(isr), reason))
    return result


def plan_preferred(
    candidates: Sequence[Candidate], via: str, blocked: str | None = None, via_reason: str | None = None
) -> PreferredPlan:
    """Split candidates into sent and skipped."""
    return PreferredPlan(
        tuple(c for c in candidates if c.skipped is None),
        tuple(c for c in candidates if c.skipped is not None),
        via,
        blocked,
        via_reason,
    )


def encode_preferred_election(keys: Sequence[TopicPartition]) -> bytes:
    """``PreferredReplicaElectionZNode.encode``: ``{"version":1,"partitions":[{"topic","partition"}]}``."""
    partitions = [{"topic": t, "partition": p} for t, p in keys]
    return json.dumps({"version": 1, "partitions": partitions}, separators=(",", ":")).encode()


@dataclass(frozen=True)
class UncleanPlan:
    """An unclean election of one leaderless partition: who would lead and what can be lost."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    last_isr: tuple[int, ...]
    new_leader: int
    blocked: str | None = None

    @property
    def confirmation(self) -> str:
        """What the user types: ``<topic>-<partition>``."""
        return f"{self.topic}-{self.partition}"

    @property
    def loses_data(self) -> bool:
        """The new leader was not in the last ISR: what only the ISR held is gone."""
        return self.new_leader not in self.last_isr

    def describe(self) -> list[str]:
        """The risk, in words."""
        lines = [
            f"Unclean leader election for {self.confirmation}: replicas {list(self.replicas)}, no leader, "
            f"last ISR {list(self.last_isr)}",
            f"  broker {self.new_leader} would lead (the first live replica in assignment order)",
        ]
        if self.loses_data:
            lines.append(
                f"  DATA LOSS: broker {self.new_leader} was not in the last ISR {list(self.last_isr)}: every message "
                f"it had not copied from the last ISR is lost for good, and consumers may see offsets go back "
                "(log end offsets: unknown to kzc, the last ISR's brokers are down)"
            )
        else:
            lines.append(f"  broker {self.new_leader} was in the last ISR: no acknowledged message should be lost")
        if self.blocked:
            lines.append(f"  BLOCKED: {self.blocked}")
        return lines

    def to_json(self) -> dict[str, Any]:
        """JSON-able view."""
        return {
            "topic": self.topic,
            "partition": self.partition,
            "replicas": list(self.replicas),
            "last_isr": list(self.last_isr),
            "new_leader": self.new_leader,
            "loses_data": self.loses_data,
            "blocked": self.blocked,
        }


def plan_unclean(
    key: TopicPartition,
    replicas: Sequence[int],
    state: PartitionState | None,
    live_brokers: frozenset[int],
    blocked: str | None,
) -> UncleanPlan:
    """Who an unclean election would make leader of a leaderless partition.

    Raises:
        GuardError: the partition has a leader (Kafka answers ELECTION_NOT_NEEDED), no state yet, or no
            replica is alive (nothing could lead).
    """
    name = f"{key[0]}-{key[1]}"
    if state is None:
        raise GuardError(f"{name} has no state znode yet: the controller has not created it")
    if state.leader >= 0:
        raise GuardError(
            f"{name} has a leader (broker {state.leader}): an unclean election only applies to a partition without "
            "one (Kafka would answer ELECTION_NOT_NEEDED)"
        )
    alive = [b for b in replicas if b in live_brokers]
    if not alive:
        raise GuardError(f"no replica of {name} ({list(replicas)}) is registered: no broker could lead it")
    return UncleanPlan(key[0], key[1], tuple(replicas), tuple(state.isr), alive[0], blocked)
