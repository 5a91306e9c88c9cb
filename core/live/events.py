"""The typed change events of the live cluster model: what ``core.live.watcher.ClusterWatcher`` reports.

Every event is a frozen dataclass named as a past event, with ``describe()`` (one line for the console's
event log and ``kzc watch``) and ``to_json()`` (a JSON-able dict whose ``"event"`` key is the class
name). Znode values appear as the typed values of ``core.kafka.znodes``; a value Kafka could not read
either is an ``Unreadable`` (carried inline, shown with its reason) or, for ``/controller`` and
``/controller_epoch``, is reported as ``ZnodeUnreadable``. ``docs/live-events.md`` lists every kind
with its JSON.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core.kafka.znodes import (
    BrokerRegistration,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.kafka.znodes.paths import (
    CONTROLLER,
    PREFERRED_REPLICA_ELECTION,
    REASSIGN_PARTITIONS,
    broker_path,
    deletion_marker_path,
    state_path,
    topic_path,
)
from core.snapshot.health import HealthReport
from core.zookeeper.session import ConnectionState

# How many partitions a one-line description names before it says "... N more".
_NAMED_IN_LINE = 3


class LiveEvent:
    """Base of every live event: ``kind`` is the class name, the ``"event"`` value of its JSON."""

    __slots__ = ()

    @property
    def kind(self) -> str:
        """The event's name, e.g. ``ControllerMoved``."""
        return type(self).__name__

    def describe(self) -> str:
        """One line for an operator, e.g. ``controller moved 1 -> 3 (epoch 8)``."""
        raise NotImplementedError

    def to_json(self) -> dict[str, object]:
        """A JSON-able dict: ``{"event": kind, ...fields}``."""
        raise NotImplementedError


# --- JSON of znode values ----------------------------------------------------------------------------


def unreadable_json(value: Unreadable) -> dict[str, object]:
    """An unreadable znode value: why Kafka could not read it."""
    return {"unreadable": value.reason}


def registration_json(value: BrokerRegistration | Unreadable | None) -> dict[str, object] | None:
    """A broker registration as JSON (``None`` stays ``None``)."""
    if value is None:
        return None
    if isinstance(value, Unreadable):
        return unreadable_json(value)
    return {
        "version": value.version,
        "host": value.host,
        "port": value.port,
        "endpoints": [str(e) for e in value.endpoints],
        "rack": value.rack,
        "jmx_port": value.jmx_port,
        "timestamp_ms": value.timestamp_ms,
    }


def assignment_json(value: TopicAssignment | Unreadable | None) -> dict[str, object] | None:
    """A topic assignment as JSON: partitions (and moving replicas) keyed by partition id as text."""
    if value is None:
        return None
    if isinstance(value, Unreadable):
        return unreadable_json(value)
    return {
        "version": value.version,
        "topic_id": value.topic_id,
        "partitions": {str(p): list(r) for p, r in value.partitions},
        "adding": {str(p): list(r) for p, r in value.adding},
        "removing": {str(p): list(r) for p, r in value.removing},
    }


def partition_state_json(value: PartitionState | Unreadable | None) -> dict[str, object] | None:
    """A partition state as JSON, with Kafka's field names."""
    if value is None:
        return None
    if isinstance(value, Unreadable):
        return unreadable_json(value)
    return {
        "leader": value.leader,
        "leader_epoch": value.leader_epoch,
        "isr": list(value.isr),
        "controller_epoch": value.controller_epoch,
        "leader_recovery_state": value.leader_recovery_state,
        "version": value.version,
    }


def reassignment_json(value: ReassignmentRequest | Unreadable | None) -> dict[str, object] | None:
    """A reassignment request as JSON: ``partitions`` as Kafka writes them."""
    if value is None:
        return None
    if isinstance(value, Unreadable):
        return unreadable_json(value)
    return {
        "version": value.version,
        "partitions": [{"topic": t, "partition": p, "replicas": list(r)} for t, p, r in value.partitions],
    }


def election_json(value: PreferredElectionRequest | Unreadable | None) -> dict[str, object] | None:
    """A preferred replica election request as JSON."""
    if value is None:
        return None
    if isinstance(value, Unreadable):
        return unreadable_json(value)
    return {"version": value.version, "partitions": [{"topic": t, "partition": p} for t, p in value.partitions]}


# --- text helpers ------------------------------------------------------------------------------------


def _ids(values: tuple[int, ...] | list[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _address(registration: BrokerRegistration | Unreadable | None) -> str:
    """``127.0.0.1:9094`` (the first endpoint), several joined by ``, ``; ``""`` when unknown."""
    if not isinstance(registration, BrokerRegistration) or not registration.endpoints:
        return ""
    return ", ".join(f"[{e.host}]:{e.port}" if ":" in e.host else f"{e.host}:{e.port}" for e in registration.endpoints)


def _leader(leader: int | None) -> str:
    if leader is None:
        return "unknown"
    if leader == -1:
        return "none (offline)"
    if leader == -2:
        return "none (topic being deleted)"
    return str(leader)


def _named(items: list[str]) -> str:
    shown = ", ".join(items[:_NAMED_IN_LINE])
    return shown + (f", ... {len(items) - _NAMED_IN_LINE} more" if len(items) > _NAMED_IN_LINE else "")


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# --- controller --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ControllerMoved(LiveEvent):
    """``/controller`` now names another broker, none, or the same broker under a new registration.

    ``old``/``new`` are broker ids (``None``: no controller); ``epoch`` is ``/controller_epoch`` when the
    move was seen (``None`` if absent or unreadable).
    """

    old: int | None
    new: int | None
    epoch: int | None

    def describe(self) -> str:
        epoch = f" (epoch {self.epoch})" if self.epoch is not None else ""
        if self.old is None:
            return f"controller elected: broker {self.new}{epoch}"
        if self.new is None:
            return f"controller gone: broker {self.old} no longer holds /controller, no controller now{epoch}"
        if self.old == self.new:
            return f"controller re-elected: broker {self.new}{epoch}"
        return f"controller moved {self.old} -> {self.new}{epoch}"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "old": self.old, "new": self.new, "epoch": self.epoch}


@dataclass(frozen=True, slots=True)
class ControllerEpochChanged(LiveEvent):
    """``/controller_epoch`` changed (each election bumps it); ``None`` when absent."""

    old: int | None
    new: int | None

    def describe(self) -> str:
        if self.old is None:
            return f"controller epoch is {self.new}"
        if self.new is None:
            return f"controller epoch znode removed (was {self.old})"
        return f"controller epoch {self.old} -> {self.new}"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "old": self.old, "new": self.new}


# --- brokers -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerRegistered(LiveEvent):
    """A broker registered in ``/brokers/ids`` (it is alive, as the controller sees it)."""

    id: int
    registration: BrokerRegistration | Unreadable

    def describe(self) -> str:
        if isinstance(self.registration, Unreadable):
            return f"broker {self.id} registered (registration unreadable: {self.registration.reason})"
        rack = f", rack {self.registration.rack}" if self.registration.rack is not None else ""
        return f"broker {self.id} registered ({_address(self.registration) or 'no endpoint'}{rack})"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "id": self.id, "registration": registration_json(self.registration)}


@dataclass(frozen=True, slots=True)
class BrokerLeft(LiveEvent):
    """A broker's registration left ``/brokers/ids`` (shutdown, crash or expired session)."""

    id: int
    last_registration: BrokerRegistration | Unreadable | None

    def describe(self) -> str:
        address = _address(self.last_registration)
        return f"broker {self.id} left" + (f" ({address})" if address else "")

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "id": self.id, "last_registration": registration_json(self.last_registration)}


@dataclass(frozen=True, slots=True)
class BrokerUpdated(LiveEvent):
    """A live broker rewrote its registration in place (same session, e.g. a listener change)."""

    id: int
    old: BrokerRegistration | Unreadable
    new: BrokerRegistration | Unreadable

    def describe(self) -> str:
        if isinstance(self.new, Unreadable):
            return f"broker {self.id} registration updated, now unreadable: {self.new.reason}"
        if isinstance(self.old, Unreadable):
            return f"broker {self.id} registration updated, readable again ({_address(self.new) or 'no endpoint'})"
        changes = []
        if self.old.endpoints != self.new.endpoints:
            changes.append(f"endpoints {_address(self.old) or 'none'} -> {_address(self.new) or 'none'}")
        if self.old.rack != self.new.rack:
            changes.append(f"rack {self.old.rack or 'none'} -> {self.new.rack or 'none'}")
        if self.old.version != self.new.version:
            changes.append(f"version {self.old.version} -> {self.new.version}")
        if self.old.features != self.new.features:
            changes.append("supported features changed")
        return f"broker {self.id} registration updated" + (f": {', '.join(changes)}" if changes else "")

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.kind,
            "id": self.id,
            "old": registration_json(self.old),
            "new": registration_json(self.new),
        }


# --- topics and deletion -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicCreated(LiveEvent):
    """A child appeared under ``/brokers/topics``."""

    name: str

    def describe(self) -> str:
        return f"topic {self.name} created"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "name": self.name}


@dataclass(frozen=True, slots=True)
class TopicRemoved(LiveEvent):
    """A child left ``/brokers/topics`` (the controller finished deleting the topic)."""

    name: str

    def describe(self) -> str:
        return f"topic {self.name} removed"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "name": self.name}


@dataclass(frozen=True, slots=True)
class TopicAssignmentChanged(LiveEvent):
    """The assignment ``/brokers/topics/<topic>`` of a followed topic changed (``None``: znode absent)."""

    topic: str
    old: TopicAssignment | Unreadable | None
    new: TopicAssignment | Unreadable | None

    def describe(self) -> str:
        head = f"topic {self.topic} assignment"
        if isinstance(self.new, Unreadable):
            return f"{head} unreadable: {self.new.reason}"
        if self.new is None:
            return f"{head} removed (topic deleted)"
        if not isinstance(self.old, TopicAssignment):
            return f"{head} is now readable: {_plural(self.new.partition_count, 'partition')}"
        changes = []
        if self.old.partition_count != self.new.partition_count:
            changes.append(f"partitions {self.old.partition_count} -> {self.new.partition_count}")
        moved = [
            f"{self.topic}-{p} {_ids(self.old.replicas(p))} -> {_ids(r)}"
            for p, r in self.new.partitions
            if p in self.old.partition_ids and self.old.replicas(p) != r
        ]
        if moved:
            changes.append("replicas " + _named(moved))
        started = sorted(set(self.new.reassigning_partitions) - set(self.old.reassigning_partitions))
        finished = sorted(set(self.old.reassigning_partitions) - set(self.new.reassigning_partitions))
        if started:
            changes.append("reassigning " + _named([f"{self.topic}-{p}" for p in started]))
        if finished:
            changes.append("reassignment done for " + _named([f"{self.topic}-{p}" for p in finished]))
        if self.old.topic_id != self.new.topic_id:
            changes.append(f"topic id {self.old.topic_id or 'none'} -> {self.new.topic_id or 'none'}")
        return f"{head} changed" + (f": {'; '.join(changes)}" if changes else "")

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.kind,
            "topic": self.topic,
            "old": assignment_json(self.old),
            "new": assignment_json(self.new),
        }


@dataclass(frozen=True, slots=True)
class DeletionQueued(LiveEvent):
    """``/admin/delete_topics/<topic>`` appeared: deletion of the topic was requested."""

    topic: str

    def describe(self) -> str:
        return f"topic {self.topic} queued for deletion"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "topic": self.topic}


@dataclass(frozen=True, slots=True)
class DeletionFinished(LiveEvent):
    """The deletion marker of ``topic`` is gone. ``topic_still_exists``: the controller dropped the
    request without deleting (``delete.topic.enable=false``)."""

    topic: str
    topic_still_exists: bool = False

    def describe(self) -> str:
        if self.topic_still_exists:
            return (
                f"deletion marker of topic {self.topic} removed but the topic still exists "
                "(deletion refused: delete.topic.enable=false?)"
            )
        return f"deletion of topic {self.topic} finished (marker removed)"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "topic": self.topic, "topic_still_exists": self.topic_still_exists}


# --- admin requests and notifications ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReassignmentChanged(LiveEvent):
    """``/admin/reassign_partitions`` appeared, changed or went away (``None``: no reassignment pending)."""

    request: ReassignmentRequest | Unreadable | None

    def describe(self) -> str:
        if self.request is None:
            return "partition reassignment finished (/admin/reassign_partitions removed)"
        if isinstance(self.request, Unreadable):
            return f"{REASSIGN_PARTITIONS} unreadable: {self.request.reason}"
        moves = [f"{t}-{p} -> {_ids(r)}" for t, p, r in self.request.partitions]
        count = _plural(len(moves), "partition")
        return f"partition reassignment pending: {count}" + (f" ({_named(moves)})" if moves else "")

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "request": reassignment_json(self.request)}


@dataclass(frozen=True, slots=True)
class PreferredElectionChanged(LiveEvent):
    """``/admin/preferred_replica_election`` appeared, changed or went away (``None``: none pending)."""

    request: PreferredElectionRequest | Unreadable | None

    def describe(self) -> str:
        if self.request is None:
            return "preferred leader election done (/admin/preferred_replica_election removed)"
        if isinstance(self.request, Unreadable):
            return f"{PREFERRED_REPLICA_ELECTION} unreadable: {self.request.reason}"
        names = [f"{t}-{p}" for t, p in self.request.partitions]
        count = _plural(len(names), "partition")
        return f"preferred leader election requested for {count}" + (f" ({_named(names)})" if names else "")

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "request": election_json(self.request)}


@dataclass(frozen=True, slots=True)
class IsrNotificationsChanged(LiveEvent):
    """The number of ``/isr_change_notification`` entries waiting for the controller changed."""

    count: int

    def describe(self) -> str:
        if self.count == 0:
            return "ISR change notifications: none pending"
        return f"ISR change notifications pending: {self.count}"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "count": self.count}


@dataclass(frozen=True, slots=True)
class LogDirEventsChanged(LiveEvent):
    """The number of ``/log_dir_event_notification`` entries (log dir failures) waiting changed."""

    count: int

    def describe(self) -> str:
        if self.count == 0:
            return "log dir failure notifications: none pending"
        return f"log dir failure notifications pending: {self.count}"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "count": self.count}


# --- partitions of followed topics -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PartitionStateChanged(LiveEvent):
    """``/brokers/topics/<topic>/partitions/<partition>/state`` of a followed topic changed
    (``None``: the znode is absent). ``IsrChanged`` and ``LeaderChanged`` follow it when those parts
    changed."""

    topic: str
    partition: int
    old: PartitionState | Unreadable | None
    new: PartitionState | Unreadable | None

    def describe(self) -> str:
        name = f"{self.topic}-{self.partition}"
        new, old = self.new, self.old
        if isinstance(new, Unreadable):
            return f"{name} state unreadable: {new.reason}"
        if new is None:
            return f"{name} state removed"
        if not isinstance(old, PartitionState):
            verb = "created" if old is None else "readable again"
            return (
                f"{name} state {verb}: leader {_leader(new.leader)}, ISR {_ids(new.isr)}, "
                f"leader epoch {new.leader_epoch}"
            )
        changes = []
        if old.leader != new.leader:
            changes.append(f"leader {_leader(old.leader)} -> {_leader(new.leader)}")
        if old.isr != new.isr:
            changes.append(f"ISR {_ids(old.isr)} -> {_ids(new.isr)}")
        if old.leader_epoch != new.leader_epoch:
            changes.append(f"leader epoch {old.leader_epoch} -> {new.leader_epoch}")
        if old.controller_epoch != new.controller_epoch:
            changes.append(f"controller epoch {old.controller_epoch} -> {new.controller_epoch}")
        if old.leader_recovery_state != new.leader_recovery_state:
            changes.append(f"leader recovery state {old.leader_recovery_state} -> {new.leader_recovery_state}")
        return f"{name} state changed" + (f": {', '.join(changes)}" if changes else " (znode rewritten)")

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.kind,
            "topic": self.topic,
            "partition": self.partition,
            "old": partition_state_json(self.old),
            "new": partition_state_json(self.new),
        }


@dataclass(frozen=True, slots=True)
class IsrChanged(LiveEvent):
    """The in-sync replicas of a followed partition changed (derived from ``PartitionStateChanged``)."""

    topic: str
    partition: int
    old_isr: tuple[int, ...]
    new_isr: tuple[int, ...]

    def describe(self) -> str:
        left = [b for b in self.old_isr if b not in self.new_isr]
        joined = [b for b in self.new_isr if b not in self.old_isr]
        notes = []
        if left:
            notes.append(f"{_ids(left)} left")
        if joined:
            notes.append(f"{_ids(joined)} joined")
        note = f" ({', '.join(notes)})" if notes else " (order changed)"
        return f"{self.topic}-{self.partition} ISR {_ids(self.old_isr)} -> {_ids(self.new_isr)}{note}"

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.kind,
            "topic": self.topic,
            "partition": self.partition,
            "old_isr": list(self.old_isr),
            "new_isr": list(self.new_isr),
        }


@dataclass(frozen=True, slots=True)
class LeaderChanged(LiveEvent):
    """The leader of a followed partition changed (derived from ``PartitionStateChanged``); -1 means
    no leader (offline)."""

    topic: str
    partition: int
    old_leader: int
    new_leader: int
    leader_epoch: int

    def describe(self) -> str:
        return (
            f"{self.topic}-{self.partition} leader {_leader(self.old_leader)} -> {_leader(self.new_leader)} "
            f"(leader epoch {self.leader_epoch})"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.kind,
            "topic": self.topic,
            "partition": self.partition,
            "old_leader": self.old_leader,
            "new_leader": self.new_leader,
            "leader_epoch": self.leader_epoch,
        }


# --- session and re-sync -----------------------------------------------------------------------------

_SESSION_TEXT = {
    ConnectionState.CONNECTING: "ZooKeeper: connecting",
    ConnectionState.CONNECTED: "ZooKeeper: connected",
    ConnectionState.SUSPENDED: "ZooKeeper: connection lost, reconnecting (the session may survive; events paused)",
    ConnectionState.LOST: "ZooKeeper: session expired (its watches are gone; re-syncing once reconnected)",
    ConnectionState.RECONNECTING: "ZooKeeper: opening a new session",
    ConnectionState.CLOSED: "ZooKeeper: session closed",
}


@dataclass(frozen=True, slots=True)
class SessionStateChanged(LiveEvent):
    """The ZooKeeper connection changed state (``core.zookeeper.session.ConnectionState``)."""

    state: ConnectionState

    def describe(self) -> str:
        return _SESSION_TEXT[self.state]

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "state": self.state.value}


@dataclass(frozen=True, slots=True)
class ZnodeUnreadable(LiveEvent):
    """``/controller`` or ``/controller_epoch`` now holds data Kafka could not read (``reason`` says why)."""

    path: str
    reason: str

    def describe(self) -> str:
        return f"{self.path} unreadable: {self.reason}"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "path": self.path, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class MigrationPhaseChanged(LiveEvent):
    """The ZooKeeper-to-KRaft migration entered another phase (``core.kafka.migration.Phase`` values; ``old``
    is None for the first phase seen). Derived from ``/migration``, ``/controller`` and ``/brokers/ids``; the
    offset ``/migration`` advances twice a second is never an event by itself."""

    old: str | None
    new: str
    label: str
    reason: str

    def describe(self) -> str:
        return f"migration: {self.label} ({self.reason})"

    def to_json(self) -> dict[str, object]:
        return {"event": self.kind, "old": self.old, "new": self.new, "label": self.label, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class Resynced(LiveEvent):
    """After a reconnect the watches were set again and the model re-read: ``changes`` is what differs
    from the last state seen before (empty when nothing changed). ``session_expired``: the old session
    expired (a new one was opened), else the same session came back."""

    changes: tuple[LiveEvent, ...]
    session_expired: bool

    def describe(self) -> str:
        after = "session expiry" if self.session_expired else "reconnect"
        changes = _plural(len(self.changes), "change") if self.changes else "no changes"
        return f"re-synced after {after}: {changes} while away"

    def to_json(self) -> dict[str, object]:
        return {
            "event": self.kind,
            "session_expired": self.session_expired,
            "changes": [change.to_json() for change in self.changes],
        }


# --- health --------------------------------------------------------------------------------------------

TopicPartition = tuple[str, int]
HEALTH_SETS = ("offline", "under_replicated", "under_min_isr")


@dataclass(frozen=True, slots=True)
class HealthSets:
    """The partitions in each health set of one snapshot (``core.snapshot.health.assess``)."""

    offline: frozenset[TopicPartition]
    under_replicated: frozenset[TopicPartition]
    under_min_isr: frozenset[TopicPartition]

    @classmethod
    def of(cls, report: HealthReport) -> HealthSets:
        """The sets of ``report``."""
        return cls(
            frozenset((o.topic, o.partition) for o in report.offline),
            frozenset((u.topic, u.partition) for u in report.under_replicated),
            frozenset((u.topic, u.partition) for u in report.under_min_isr),
        )

    def get(self, name: str) -> frozenset[TopicPartition]:
        """The set called ``name`` (one of ``HEALTH_SETS``)."""
        value: frozenset[TopicPartition] = getattr(self, name)
        return value


EMPTY_HEALTH = HealthSets(frozenset(), frozenset(), frozenset())


@dataclass(frozen=True, slots=True)
class HealthChanged(LiveEvent):
    """The offline, under-replicated or under-min-ISR partitions changed (``core.snapshot.health``, the
    counts ``kzc describe`` and the console show): the new counts, and per set the partitions that
    ``entered`` and ``left`` it (sorted), as ``(set name, partitions)`` pairs for the sets that changed."""

    offline: int
    under_replicated: int
    under_min_isr: int
    entered: tuple[tuple[str, tuple[TopicPartition, ...]], ...]
    left: tuple[tuple[str, tuple[TopicPartition, ...]], ...]

    def describe(self) -> str:
        counts = (
            f"health: {self.offline:,} offline, {self.under_replicated:,} under-replicated, "
            f"{self.under_min_isr:,} under min ISR"
        )
        moves = [
            f"{name.replace('_', '-')} {sign}{len(parts)} ({_named([f'{t}-{p}' for t, p in parts])})"
            for sign, changes in (("+", self.entered), ("-", self.left))
            for name, parts in changes
        ]
        return counts + (": " + "; ".join(moves) if moves else "")

    def to_json(self) -> dict[str, object]:
        def partitions(changes: tuple[tuple[str, tuple[TopicPartition, ...]], ...]) -> dict[str, object]:
            return {name: [{"topic": t, "partition": p} for t, p in parts] for name, parts in changes}

        return {
            "event": self.kind,
            "offline": self.offline,
            "under_replicated": self.under_replicated,
            "under_min_isr": self.under_min_isr,
            "entered": partitions(self.entered),
            "left": partitions(self.left),
        }


def health_changed(before: HealthSets, after: HealthSets) -> HealthChanged | None:
    """The ``HealthChanged`` event from ``before`` to ``after``, or None when no set changed."""
    entered = []
    left = []
    for name in HEALTH_SETS:
        old, new = before.get(name), after.get(name)
        if new - old:
            entered.append((name, tuple(sorted(new - old))))
        if old - new:
            left.append((name, tuple(sorted(old - new))))
    if not entered and not left:
        return None
    return HealthChanged(
        len(after.offline), len(after.under_replicated), len(after.under_min_isr), tuple(entered), tuple(left)
    )


EVENT_KINDS: tuple[type[LiveEvent], ...] = (
    ControllerMoved,
    ControllerEpochChanged,
    BrokerRegistered,
    BrokerLeft,
    BrokerUpdated,
    TopicCreated,
    TopicRemoved,
    TopicAssignmentChanged,
    DeletionQueued,
    DeletionFinished,
    ReassignmentChanged,
    PreferredElectionChanged,
    IsrNotificationsChanged,
    LogDirEventsChanged,
    PartitionStateChanged,
    IsrChanged,
    LeaderChanged,
    SessionStateChanged,
    ZnodeUnreadable,
    MigrationPhaseChanged,
    Resynced,
    HealthChanged,
)
"""Every event kind, in the order ``docs/live-events.md`` lists them."""


# --- events as subscribers receive them ----------------------------------------------------------------


class EventKind(enum.Enum):
    """What an event is about; the TUI uses it to count controller moves and to style log lines."""

    BROKER_JOINED = "broker-joined"
    BROKER_LEFT = "broker-left"
    BROKER_CHANGED = "broker-changed"
    CONTROLLER_MOVED = "controller-moved"
    CONTROLLER_GONE = "controller-gone"
    TOPIC_CREATED = "topic-created"
    TOPIC_DELETED = "topic-deleted"
    TOPIC_CHANGED = "topic-changed"
    PARTITION_CHANGED = "partition-changed"
    DELETION_QUEUED = "deletion-queued"
    DELETION_MARKER_REMOVED = "deletion-marker-removed"
    ADMIN_REQUEST = "admin-request"
    NOTIFICATION = "notification"
    CONFIG_CHANGED = "config-changed"
    CONNECTION = "connection"
    RESYNC = "resync"


_SEVERITY: dict[type[LiveEvent], str] = {
    BrokerLeft: "error",
    ZnodeUnreadable: "error",
    LogDirEventsChanged: "error",
    ControllerMoved: "warning",
    DeletionQueued: "warning",
    LeaderChanged: "warning",
    TopicRemoved: "warning",
}
_KINDS: dict[type[LiveEvent], EventKind] = {
    ControllerMoved: EventKind.CONTROLLER_MOVED,
    BrokerRegistered: EventKind.BROKER_JOINED,
    BrokerLeft: EventKind.BROKER_LEFT,
    BrokerUpdated: EventKind.BROKER_CHANGED,
    TopicCreated: EventKind.TOPIC_CREATED,
    TopicRemoved: EventKind.TOPIC_DELETED,
    TopicAssignmentChanged: EventKind.TOPIC_CHANGED,
    DeletionQueued: EventKind.DELETION_QUEUED,
    DeletionFinished: EventKind.DELETION_MARKER_REMOVED,
    ReassignmentChanged: EventKind.ADMIN_REQUEST,
    PreferredElectionChanged: EventKind.ADMIN_REQUEST,
    IsrNotificationsChanged: EventKind.NOTIFICATION,
    LogDirEventsChanged: EventKind.NOTIFICATION,
    Resynced: EventKind.RESYNC,
}


@dataclass(frozen=True, slots=True)
class TimedEvent:
    """A live event with when it was seen, and what the console links it to (``core.live.cluster`` hands
    these to its subscribers)."""

    event: LiveEvent
    at_ms: int

    def describe(self) -> str:
        """The event's own line."""
        return self.event.describe()

    @property
    def kind(self) -> EventKind:
        """What the event is about."""
        if isinstance(self.event, ControllerMoved):
            moved = self.event.new is not None and self.event.old != self.event.new
            return EventKind.CONTROLLER_MOVED if moved else EventKind.CONTROLLER_GONE
        return _KINDS.get(type(self.event), EventKind.PARTITION_CHANGED)

    @property
    def severity(self) -> str:
        """``error``, ``warning`` or ``info``: how the event log styles the line."""
        event = self.event
        if isinstance(event, PartitionStateChanged):
            new = event.new
            return "error" if new is None or isinstance(new, Unreadable) or new.leader < 0 else "info"
        if isinstance(event, IsrChanged) and len(event.new_isr) < len(event.old_isr):
            return "warning"
        if isinstance(event, ControllerMoved) and event.new is None:
            return "error"
        return _SEVERITY.get(type(event), "info")

    @property
    def broker(self) -> int | None:
        """The broker that registered or left, or the new controller (None for other events)."""
        event = self.event
        if isinstance(event, BrokerRegistered | BrokerLeft):
            return event.id
        return event.new if isinstance(event, ControllerMoved) else None

    @property
    def topic(self) -> str | None:
        """The topic the event is about, if any."""
        if isinstance(self.event, TopicCreated | TopicRemoved):
            return self.event.name
        value = getattr(self.event, "topic", None)
        return value if isinstance(value, str) else None

    @property
    def path(self) -> str | None:
        """The znode the event is about, if it names one."""
        event = self.event
        if isinstance(event, ZnodeUnreadable):
            return event.path
        if isinstance(event, BrokerRegistered | BrokerLeft | BrokerUpdated):
            return broker_path(event.id)
        if isinstance(event, ControllerMoved | ControllerEpochChanged):
            return CONTROLLER
        topic = self.topic
        partition = getattr(event, "partition", None)
        if topic is not None and isinstance(partition, int):
            return state_path(topic, partition)
        if isinstance(event, DeletionQueued):
            return deletion_marker_path(event.topic)
        return topic_path(topic) if topic is not None else None
