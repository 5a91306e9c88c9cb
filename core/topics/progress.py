"""What the controller did after a create, expand or delete, read from ZooKeeper: new partitions with a
leader, topics gone, and why a deletion is stuck (zk-layout §7.4).

``online_progress`` / ``deletion_progress`` take one look; ``wait_online`` / ``wait_deleted`` poll with
a deadline (``core.polling``) and report each change through a callback, so the CLI can print
"stuck: replica on dead broker 2" while it keeps waiting for the broker to return.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from core.errors import KzcError
from core.kafka.znodes import PartitionState, TopicAssignment, Unreadable
from core.polling import follow_until
from core.snapshot.model import TopicEntry
from core.topics.facts import ClusterFacts, LiveTopic, TopicStateReader
from core.topics.guard import deletion_obstacles

POLL_INTERVAL = 0.25


class ProgressTimeout(KzcError):
    """``--wait`` ran out of time; the message says what is still pending and why."""


@dataclass(frozen=True)
class OnlineProgress:
    """New partitions of ``topic`` and whether each has a leader yet."""

    topic: str
    partitions: tuple[int, ...]
    with_leader: tuple[int, ...]
    no_state: tuple[int, ...]  # the controller has not created partitions/<p>/state (yet)
    no_leader: tuple[int, ...]  # state exists with leader -1
    unreadable: tuple[int, ...]
    reasons: tuple[str, ...]  # why partitions lack a leader, when ZooKeeper shows it
    foreign_leader: tuple[int, ...] = ()  # a leader that is not one of the partition's replicas

    @property
    def done(self) -> bool:
        """Every partition has a leader that is one of its replicas."""
        return len(self.with_leader) == len(self.partitions)

    def describe(self) -> str:
        """One line for the terminal."""
        head = f"{self.topic}: {len(self.with_leader)}/{len(self.partitions)} new partitions have a leader"
        if self.done:
            return head
        parts = []
        if self.no_state:
            parts.append(f"waiting for the controller on {_ids(self.no_state)}")
        if self.no_leader:
            parts.append(f"no leader for {_ids(self.no_leader)}")
        if self.unreadable:
            parts.append(f"unreadable state for {_ids(self.unreadable)}")
        return "; ".join([head, *parts, *self.reasons])

    def to_json(self) -> dict[str, object]:
        """JSON-able summary."""
        return {
            "topic": self.topic,
            "partitions": len(self.partitions),
            "with_leader": len(self.with_leader),
            "without_leader": [p for p in self.partitions if p not in self.with_leader],
            "leader_not_a_replica": list(self.foreign_leader),
            "done": self.done,
            "reasons": list(self.reasons),
        }


@dataclass(frozen=True)
class TopicDeletion:
    """One topic being deleted: whether it is gone and, if not, what holds it."""

    topic: str
    topic_present: bool
    marker_present: bool
    reasons: tuple[str, ...]

    @property
    def done(self) -> bool:
        """The controller removed the topic and its deletion marker."""
        return not self.topic_present and not self.marker_present

    @property
    def stuck(self) -> bool:
        """Something visible in ZooKeeper holds the deletion (not just the controller being busy)."""
        return not self.done and bool(self.reasons)

    def describe(self) -> str:
        """One line for the terminal, e.g. ``t: stuck: replica on dead broker 2``."""
        if self.done:
            return f"{self.topic}: deleted"
        if self.reasons:
            return f"{self.topic}: stuck: " + "; ".join(self.reasons)
        return f"{self.topic}: marked for deletion, the controller is deleting it"


@dataclass(frozen=True)
class DeleteProgress:
    """Every topic of a delete request."""

    topics: tuple[TopicDeletion, ...]

    @property
    def done(self) -> bool:
        """Every topic is gone."""
        return all(t.done for t in self.topics)

    def describe(self) -> str:
        """One line per topic."""
        return "\n".join(t.describe() for t in self.topics)

    def to_json(self) -> dict[str, object]:
        """``{"completed": [...], "pending": {topic: [reasons]}, "done": bool}``."""
        return {
            "completed": [t.topic for t in self.topics if t.done],
            "pending": {t.topic: list(t.reasons) for t in self.topics if not t.done},
            "done": self.done,
        }


def is_online(state: PartitionState | Unreadable | None, replicas: Sequence[int] | None) -> bool:
    """Whether a new partition is online: its state znode names a leader that is one of its ``replicas``
    (None: not known, any leader). The one rule of ``--wait`` and of the console's follow-ups."""
    if not isinstance(state, PartitionState) or not state.has_leader:
        return False
    return replicas is None or state.leader in replicas


def online_count(entry: TopicEntry) -> tuple[int, int]:
    """``(online, total)``: the topic's partitions that are online (``is_online``), of all of them."""
    assignment = entry.assignment if isinstance(entry.assignment, TopicAssignment) else None
    online = sum(
        1 for p, s in entry.states.items() if is_online(s, assignment.replicas(p) if assignment is not None else None)
    )
    return online, len(entry.partition_ids)


def online_progress(reader: TopicStateReader, topic: str, partitions: Sequence[int]) -> OnlineProgress:
    """One look at the ``state`` znodes of ``partitions``: a partition counts as online only when its leader
    is one of its replicas (a state znode left before the partition was added keeps its old leader)."""
    states = reader.partition_states(topic, partitions)
    live = reader.topic(topic)
    assignment = live.assignment if live is not None and isinstance(live.assignment, TopicAssignment) else None
    with_leader: list[int] = []
    no_state: list[int] = []
    no_leader: list[int] = []
    unreadable: list[int] = []
    foreign: dict[int, PartitionState] = {}
    for p in partitions:
        state = states[p]
        if state is None:
            no_state.append(p)
        elif isinstance(state, Unreadable):
            unreadable.append(p)
        elif not state.has_leader:
            no_leader.append(p)
        elif is_online(state, assignment.replicas(p) if assignment is not None else None):
            with_leader.append(p)
        else:
            foreign[p] = state
    reasons: list[str] = []
    if foreign:
        assert assignment is not None
        reasons.extend(
            f"partition {p}: leader {st.leader} (ISR {list(st.isr)}) is not one of its replicas "
            f"{list(assignment.replicas(p))}: the controller did not initialise it because its state znode "
            "existed before the partition was added; Kafka kept that state"
            for p, st in foreign.items()
        )
    if len(with_leader) < len(partitions):
        reasons += _offline_reasons(reader, topic, [p for p in partitions if p not in with_leader and p not in foreign])
    return OnlineProgress(
        topic,
        tuple(partitions),
        tuple(with_leader),
        tuple(no_state),
        tuple(no_leader),
        tuple(unreadable),
        tuple(reasons),
        tuple(foreign),
    )


def _offline_reasons(reader: TopicStateReader, topic: str, partitions: Sequence[int]) -> list[str]:
    """Partitions none of whose replicas is registered can never get a leader: say so."""
    facts = reader.facts()
    live = reader.topic(topic)
    reasons = []
    if facts.controller is None:
        reasons.append("no active controller (/controller is missing)")
    if live is not None and isinstance(live.assignment, TopicAssignment):
        dead_only = [p for p in partitions if not set(live.assignment.replicas(p)) & facts.broker_ids]
        if dead_only:
            brokers = sorted({b for p in dead_only for b in live.assignment.replicas(p)})
            reasons.append(
                f"partitions {_ids(dead_only)} have no live replica (brokers {', '.join(map(str, brokers))} are "
                "not registered): they stay offline until one is back"
            )
    return reasons


def deletion_progress(reader: TopicStateReader, topics: Sequence[str]) -> DeleteProgress:
    """One look at each topic's znode and deletion marker, with the §7.4 reasons it may be held."""
    facts = reader.facts()
    live = reader.topics(t for t in topics if t in facts.topic_names)
    return DeleteProgress(tuple(_deletion(facts, topic, live.get(topic)) for topic in topics))


def _deletion(facts: ClusterFacts, topic: str, live: LiveTopic | None) -> TopicDeletion:
    marker = topic in facts.marked_for_deletion
    if live is None:
        # The controller deletes the topic znode first and the marker last: a lone marker is finishing.
        return TopicDeletion(topic, False, marker, ())
    reasons = deletion_obstacles(facts, live)
    if not marker:
        reasons.append(
            "the deletion marker is gone but the topic remains: the controller dropped the request "
            "(delete.topic.enable=false on the controller?)"
        )
    return TopicDeletion(topic, True, marker, tuple(reasons))


def wait_online(
    reader: TopicStateReader,
    topic: str,
    partitions: Sequence[int],
    timeout: float,
    on_change: Callable[[OnlineProgress], None] | None = None,
) -> OnlineProgress:
    """Poll until every partition has a leader.

    Raises:
        ProgressTimeout: ``timeout`` passed; the message says which partitions lack a leader and why.
    """
    return _wait(lambda: online_progress(reader, topic, partitions), timeout, on_change, f"leaders of {topic}")


def wait_deleted(
    reader: TopicStateReader,
    topics: Sequence[str],
    timeout: float,
    on_change: Callable[[DeleteProgress], None] | None = None,
) -> DeleteProgress:
    """Poll until the controller removed every topic and marker.

    Raises:
        ProgressTimeout: ``timeout`` passed; the message lists the topics still there and why.
    """
    return _wait(lambda: deletion_progress(reader, topics), timeout, on_change, "the deletion")


class _Progress(Protocol):
    @property
    def done(self) -> bool: ...

    def describe(self) -> str: ...


P = TypeVar("P", bound=_Progress)


def _wait(look: Callable[[], P], timeout: float, on_change: Callable[[P], None] | None, what: str) -> P:
    def timed_out(last: P | None) -> ProgressTimeout:
        return ProgressTimeout(f"not finished after {timeout:g} s: {last.describe() if last else what}")

    return follow_until(
        look, lambda p: p.done, timeout, what, timed_out, on_change, lambda p: p.describe(), POLL_INTERVAL
    )


def _ids(partitions: Sequence[int]) -> str:
    shown = ", ".join(map(str, partitions[:10]))
    return shown + (f" and {len(partitions) - 10} more" if len(partitions) > 10 else "")
