"""Topic deletion as the controller runs it, derived from a ``ClusterSnapshot`` (zk-layout §7, §9.8): why a
queued topic's deletion may be stuck (``deletion_blockers``, the one rule every surface asks), the state the
controller's replica state machine holds for each replica (``replica_deletion_states``) and the queue of
``/admin/delete_topics`` markers with both (``deletion_queue``, part of ``core.snapshot.health.assess``).
Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.kafka.znodes import BrokerRegistration, PartitionState, TopicAssignment, Unreadable
from core.snapshot.model import ClusterSnapshot

DELETION_STARTED = "ReplicaDeletionStarted/Successful"
DELETION_INELIGIBLE = "ReplicaDeletionIneligible"
DELETION_NOT_STARTED = "OnlineReplica"


@dataclass(frozen=True, slots=True)
class StuckReason:
    """Why a queued deletion may not progress: a stable ``code`` and a sentence for the operator.

    Codes: ``topic_missing``, ``deletion_disabled``, ``no_controller``, ``replica_on_dead_broker``,
    ``reassignment_in_progress``, ``preferred_election_in_progress`` (0.8.1 to 0.10.x only),
    ``assignment_unreadable``, ``no_visible_cause``.
    """

    code: str
    detail: str


@dataclass(frozen=True, slots=True)
class QueuedDeletion:
    """A topic with a deletion marker, since when, and the reasons it may be stuck."""

    topic: str
    queued_since_ms: int
    topic_exists: bool
    reasons: tuple[StuckReason, ...]
    replicas: tuple[ReplicaDeletion, ...] = ()

    @property
    def codes(self) -> tuple[str, ...]:
        """The reason codes, in order."""
        return tuple(r.code for r in self.reasons)


@dataclass(frozen=True, slots=True)
class ReplicaDeletion:
    """The state the controller's replica state machine holds for one replica of a queued topic, as far
    as ZooKeeper shows it (zk-layout §7.2, §8; ``replica_deletion_states``)."""

    partition: int
    broker: int
    state: str  # DELETION_STARTED, DELETION_INELIGIBLE or DELETION_NOT_STARTED
    detail: str


def deletion_blockers(
    assignment: TopicAssignment | Unreadable | None,
    live: frozenset[int] | set[int],
    controller_present: bool,
    requested_moves: Iterable[int] = (),
    requested_elections: Iterable[int] = (),
    delete_topic_enable: bool | None = None,
    old_rules: bool = False,
) -> tuple[StuckReason, ...]:
    """Every reason the controller holds a queued topic's deletion (zk-layout §7.1 to §7.4); the one rule
    the console, ``describe``, the topic guards and progress, and the check ``deletion_stuck`` use.

    Args:
        assignment: the topic znode (None: the topic does not exist).
        live: the registered brokers.
        controller_present: ``/controller`` names a controller.
        requested_moves: partitions of the topic in ``/admin/reassign_partitions``.
        requested_elections: partitions of the topic in ``/admin/preferred_replica_election``.
        delete_topic_enable: the brokers' ``delete.topic.enable`` when known (it is not in ZooKeeper).
        old_rules: the brokers run 0.8.1 to 0.10.x, where a preferred election blocks deletion too.

    Returns:
        The reasons in this order: ``topic_missing`` (alone), ``deletion_disabled``, ``no_controller``,
        ``assignment_unreadable``, ``replica_on_dead_broker``, ``reassignment_in_progress``,
        ``preferred_election_in_progress``; empty when nothing visible in ZooKeeper blocks it.
    """
    if assignment is None:
        return (
            StuckReason(
                "topic_missing",
                "the topic does not exist: a stale marker, which the controller removes on its next deletion event",
            ),
        )
    reasons = []
    if delete_topic_enable is False:
        reasons.append(
            StuckReason(
                "deletion_disabled",
                "delete.topic.enable=false: the controller deletes nothing and removes such markers at start-up and "
                "on each deletion event; to delete the topic, set delete.topic.enable=true on every broker, restart "
                "them one at a time (rolling restart), then send the delete again",
            )
        )
    if not controller_present:
        reasons.append(StuckReason("no_controller", "no active controller (/controller is missing): nothing deletes"))
    if isinstance(assignment, Unreadable):
        detail = f"the topic znode is unreadable, for the controller too: {assignment.reason}"
        reasons.append(StuckReason("assignment_unreadable", detail))
    else:
        dead = sorted({r for _, replicas in assignment.partitions for r in replicas} - set(live))
        if dead:
            reasons.append(
                StuckReason(
                    "replica_on_dead_broker",
                    f"replicas on broker(s) {_ids(dead)}, which are not registered: the controller marks them "
                    "ReplicaDeletionIneligible and the topic ineligible, and resumes when they register again",
                )
            )
        moving = sorted(set(assignment.reassigning_partitions) | set(requested_moves))
        if moving:
            reasons.append(
                StuckReason(
                    "reassignment_in_progress",
                    f"partition(s) {_ids(moving)} are being reassigned: deletion starts when the reassignment "
                    "completes",
                )
            )
    electing = sorted(set(requested_elections)) if old_rules else []
    if electing:
        reasons.append(
            StuckReason(
                "preferred_election_in_progress",
                f"a preferred replica election is pending for partition(s) {_ids(electing)}, which blocks "
                "deletion in Kafka 0.8.1 to 0.10.x",
            )
        )
    return tuple(reasons)


def deletion_started(reasons: Iterable[StuckReason]) -> bool:
    """Whether the controller has begun deleting (onTopicDeletion): replicas on dead brokers do not stop it
    from starting, the other blockers do (zk-layout §7.1, §7.2)."""
    return all(r.code == "replica_on_dead_broker" for r in reasons)


def replica_deletion_states(
    assignment: TopicAssignment,
    states: Mapping[int, PartitionState | Unreadable | None],
    live: frozenset[int] | set[int],
    started: bool,
) -> tuple[ReplicaDeletion, ...]:
    """Per replica of a queued topic, the state the controller's replica state machine would hold.

    Once deletion started (onTopicDeletion), a replica on a dead broker is ReplicaDeletionIneligible (the
    controller resets it to OfflineReplica for a retry that runs when the broker registers again); a live
    replica goes OfflineReplica, which removes it from the ISR in ZooKeeper (the last ISR member stays,
    with leader -1), then ReplicaDeletionStarted (StopReplica with delete) and ReplicaDeletionSuccessful
    when the broker answers. ZooKeeper does not record that answer, so a live replica out of the ISR is
    Started or Successful; one still leading or in a larger ISR has not been reached yet.
    """
    result = []
    for partition, replicas in assignment.partitions:
        state = states.get(partition)
        for broker in dict.fromkeys(replicas):
            if not started:
                result.append(ReplicaDeletion(partition, broker, DELETION_NOT_STARTED, "deletion has not started"))
            elif broker not in live:
                detail = f"broker {broker} is not registered: deletion waits until it registers again"
                result.append(ReplicaDeletion(partition, broker, DELETION_INELIGIBLE, detail))
            elif isinstance(state, PartitionState) and (
                state.leader == broker or (broker in state.isr and len(state.isr) > 1)
            ):
                detail = "still leader or in the ISR: the controller has not stopped it yet"
                result.append(ReplicaDeletion(partition, broker, DELETION_NOT_STARTED, detail))
            else:
                detail = "out of the ISR: StopReplica sent; Successful once the broker answered (not in ZooKeeper)"
                result.append(ReplicaDeletion(partition, broker, DELETION_STARTED, detail))
    return tuple(result)


def replica_states_text(replicas: Iterable[ReplicaDeletion]) -> str:
    """``replicas: 5 ReplicaDeletionStarted/Successful, 1 ReplicaDeletionIneligible (broker 3)``."""
    counts: dict[str, int] = {}
    dead: dict[str, set[int]] = {}
    for r in replicas:
        counts[r.state] = counts.get(r.state, 0) + 1
        if r.state == DELETION_INELIGIBLE:
            dead.setdefault(r.state, set()).add(r.broker)
    parts = []
    for state in (DELETION_STARTED, DELETION_INELIGIBLE, DELETION_NOT_STARTED):
        if state in counts:
            brokers = f" (broker {_ids(sorted(dead[state]))})" if state in dead else ""
            parts.append(f"{counts[state]} {state}{brokers}")
    return "replicas: " + ", ".join(parts) if parts else "replicas: none"


def deletion_queue(
    snapshot: ClusterSnapshot,
    delete_topic_enable: bool | None = None,
    kafka_version: tuple[int, int] | None = None,
) -> tuple[QueuedDeletion, ...]:
    """Every deletion marker with every reason (``deletion_blockers``) it may be stuck, and its replicas'
    deletion states.

    Args:
        delete_topic_enable: the brokers' ``delete.topic.enable`` when known (it is not in ZooKeeper).
        kafka_version: (major, minor) of the brokers when known; otherwise the rule that only 0.8.1 to
            0.10.x had (a preferred election blocks deletion) applies when a registered broker writes a
            v1 to v3 registration (0.8 to 0.10.1). A v4 registration cannot tell 0.10.2 from 0.11+, so
            the rule is then not applied.
    """
    live = snapshot.live_broker_ids()
    old_rules = _before_0_11(snapshot, kafka_version)
    result = []
    for topic, times in snapshot.deletion_markers.items():
        entry = snapshot.topics.get(topic)
        reasons = topic_deletion_blockers(snapshot, topic, delete_topic_enable, old_rules)
        replicas: tuple[ReplicaDeletion, ...] = ()
        if entry is not None and isinstance(entry.assignment, TopicAssignment):
            replicas = replica_deletion_states(entry.assignment, entry.states, live, deletion_started(reasons))
        if not reasons and entry is not None:
            reasons = (_NO_VISIBLE_CAUSE,)
        result.append(QueuedDeletion(topic, times.ctime_ms, entry is not None, reasons, replicas))
    return tuple(result)


def topic_deletion_blockers(
    snapshot: ClusterSnapshot, topic: str, delete_topic_enable: bool | None = None, old_rules: bool | None = None
) -> tuple[StuckReason, ...]:
    """``deletion_blockers`` for ``topic`` in ``snapshot`` (``old_rules`` None: judged from the registrations)."""
    entry = snapshot.topics.get(topic)
    return deletion_blockers(
        entry.assignment if entry is not None else None,
        snapshot.live_broker_ids(),
        snapshot.controller is not None,
        _requested(snapshot.reassignment, topic),
        _requested(snapshot.preferred_election, topic),
        delete_topic_enable,
        _before_0_11(snapshot, None) if old_rules is None else old_rules,
    )


_NO_VISIBLE_CAUSE = StuckReason(
    "no_visible_cause",
    "nothing in ZooKeeper blocks it: the deletion may be under way, or a StopReplica failed and the "
    "controller waits for a broker start-up or a finished reassignment to retry (see its log); "
    "delete.topic.enable=false would also leave it, but that is not stored in ZooKeeper",
)


def _requested(request: object, topic: str) -> set[int]:
    """Partitions of ``topic`` named in a reassignment or preferred-election request znode."""
    partitions = getattr(request, "partitions", None)
    if not partitions:
        return set()
    return {entry[1] for entry in partitions if entry[0] == topic}


def _before_0_11(snapshot: ClusterSnapshot, kafka_version: tuple[int, int] | None) -> bool:
    if kafka_version is not None:
        return kafka_version < (0, 11)
    versions = [
        b.registration.version for b in snapshot.brokers.values() if isinstance(b.registration, BrokerRegistration)
    ]
    return bool(versions) and min(versions) <= 3


def _ids(values: Iterable[int]) -> str:
    return ", ".join(map(str, values))
