"""The typed change events of the live cluster model: what ``core.live.watcher.ClusterWatcher`` reports.

Every event is a frozen dataclass named as a past event, a ``core.live.live_event.LiveEvent``: with what
it is about and its severity beside its fields, ``describe()`` (one line for the console's event log and
``kzc watch``) and ``to_json()`` (its fields as JSON, after an ``"event"`` key that is the class name).
Znode values appear as the typed values of ``core.kafka.znodes``; a value Kafka could not read either is an
``Unreadable`` (carried inline, shown with its reason) or, for ``/controller`` and
``/controller_epoch``, is reported as ``ZnodeUnreadable``. ``docs/live-events.md`` lists every kind
with its JSON.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import (
    BrokerRegistration,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.kafka.znodes.paths import PREFERRED_REPLICA_ELECTION, REASSIGN_PARTITIONS
from core.live.live_event import EventKind, LiveEvent
from core.zookeeper.session import ConnectionState

# How many partitions a one-line description names before it says "... N more".
_NAMED_IN_LINE = 3


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

    @property
    def about(self) -> EventKind:
        moved = self.new is not None and self.old != self.new
        return EventKind.CONTROLLER_MOVED if moved else EventKind.CONTROLLER_GONE

    @property
    def severity(self) -> str:
        return "error" if self.new is None else "warning"

    def describe(self) -> str:
        epoch = f" (epoch {self.epoch})" if self.epoch is not None else ""
        if self.old is None:
            return f"controller elected: broker {self.new}{epoch}"
        if self.new is None:
            return f"controller gone: broker {self.old} no longer holds /controller, no controller now{epoch}"
        if self.old == self.new:
            return f"controller re-elected: broker {self.new}{epoch}"
        return f"controller moved {self.old} -> {self.new}{epoch}"


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


# --- brokers -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerRegistered(LiveEvent):
    """A broker registered in ``/brokers/ids`` (it is alive, as the controller sees it)."""

    ABOUT = EventKind.BROKER_JOINED

    id: int
    registration: BrokerRegistration | Unreadable

    def describe(self) -> str:
        if isinstance(self.registration, Unreadable):
            return f"broker {self.id} registered (registration unreadable: {self.registration.reason})"
        rack = f", rack {self.registration.rack}" if self.registration.rack is not None else ""
        return f"broker {self.id} registered ({_address(self.registration) or 'no endpoint'}{rack})"


@dataclass(frozen=True, slots=True)
class BrokerLeft(LiveEvent):
    """A broker's registration left ``/brokers/ids`` (shutdown, crash or expired session)."""

    ABOUT = EventKind.BROKER_LEFT
    SEVERITY = "error"

    id: int
    last_registration: BrokerRegistration | Unreadable | None

    def describe(self) -> str:
        address = _address(self.last_registration)
        return f"broker {self.id} left" + (f" ({address})" if address else "")


@dataclass(frozen=True, slots=True)
class BrokerUpdated(LiveEvent):
    """A live broker rewrote its registration in place (same session, e.g. a listener change)."""

    ABOUT = EventKind.BROKER_CHANGED

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


# --- topics and deletion -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicCreated(LiveEvent):
    """A child appeared under ``/brokers/topics``."""

    ABOUT = EventKind.TOPIC_CREATED

    name: str

    def describe(self) -> str:
        return f"topic {self.name} created"


@dataclass(frozen=True, slots=True)
class TopicRemoved(LiveEvent):
    """A child left ``/brokers/topics`` (the controller finished deleting the topic)."""

    ABOUT = EventKind.TOPIC_DELETED
    SEVERITY = "warning"

    name: str

    def describe(self) -> str:
        return f"topic {self.name} removed"


@dataclass(frozen=True, slots=True)
class TopicAssignmentChanged(LiveEvent):
    """The assignment ``/brokers/topics/<topic>`` of a followed topic changed (``None``: znode absent)."""

    ABOUT = EventKind.TOPIC_CHANGED

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


@dataclass(frozen=True, slots=True)
class DeletionQueued(LiveEvent):
    """``/admin/delete_topics/<topic>`` appeared: deletion of the topic was requested."""

    ABOUT = EventKind.DELETION_QUEUED
    SEVERITY = "warning"

    topic: str

    def describe(self) -> str:
        return f"topic {self.topic} queued for deletion"


@dataclass(frozen=True, slots=True)
class DeletionFinished(LiveEvent):
    """The deletion marker of ``topic`` is gone. ``topic_still_exists``: the controller dropped the
    request without deleting (``delete.topic.enable=false``)."""

    ABOUT = EventKind.DELETION_MARKER_REMOVED

    topic: str
    topic_still_exists: bool = False

    def describe(self) -> str:
        if self.topic_still_exists:
            return (
                f"deletion marker of topic {self.topic} removed but the topic still exists "
                "(deletion refused: delete.topic.enable=false?)"
            )
        return f"deletion of topic {self.topic} finished (marker removed)"


# --- admin requests and notifications ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReassignmentChanged(LiveEvent):
    """``/admin/reassign_partitions`` appeared, changed or went away (``None``: no reassignment pending)."""

    ABOUT = EventKind.ADMIN_REQUEST

    request: ReassignmentRequest | Unreadable | None

    def describe(self) -> str:
        if self.request is None:
            return "partition reassignment finished (/admin/reassign_partitions removed)"
        if isinstance(self.request, Unreadable):
            return f"{REASSIGN_PARTITIONS} unreadable: {self.request.reason}"
        moves = [f"{t}-{p} -> {_ids(r)}" for t, p, r in self.request.partitions]
        count = _plural(len(moves), "partition")
        return f"partition reassignment pending: {count}" + (f" ({_named(moves)})" if moves else "")


@dataclass(frozen=True, slots=True)
class PreferredElectionChanged(LiveEvent):
    """``/admin/preferred_replica_election`` appeared, changed or went away (``None``: none pending)."""

    ABOUT = EventKind.ADMIN_REQUEST

    request: PreferredElectionRequest | Unreadable | None

    def describe(self) -> str:
        if self.request is None:
            return "preferred leader election done (/admin/preferred_replica_election removed)"
        if isinstance(self.request, Unreadable):
            return f"{PREFERRED_REPLICA_ELECTION} unreadable: {self.request.reason}"
        names = [f"{t}-{p}" for t, p in self.request.partitions]
        count = _plural(len(names), "partition")
        return f"preferred leader election requested for {count}" + (f" ({_named(names)})" if names else "")


@dataclass(frozen=True, slots=True)
class IsrNotificationsChanged(LiveEvent):
    """The number of ``/isr_change_notification`` entries waiting for the controller changed."""

    ABOUT = EventKind.NOTIFICATION

    count: int

    def describe(self) -> str:
        if self.count == 0:
            return "ISR change notifications: none pending"
        return f"ISR change notifications pending: {self.count}"


@dataclass(frozen=True, slots=True)
class LogDirEventsChanged(LiveEvent):
    """The number of ``/log_dir_event_notification`` entries (log dir failures) waiting changed."""

    ABOUT = EventKind.NOTIFICATION
    SEVERITY = "error"

    count: int

    def describe(self) -> str:
        if self.count == 0:
            return "log dir failure notifications: none pending"
        return f"log dir failure notifications pending: {self.count}"


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

    @property
    def severity(self) -> str:
        new = self.new
        return "error" if new is None or isinstance(new, Unreadable) or new.leader < 0 else "info"

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


@dataclass(frozen=True, slots=True)
class IsrChanged(LiveEvent):
    """The in-sync replicas of a followed partition changed (derived from ``PartitionStateChanged``)."""

    topic: str
    partition: int
    old_isr: tuple[int, ...]
    new_isr: tuple[int, ...]

    @property
    def severity(self) -> str:
        return "warning" if len(self.new_isr) < len(self.old_isr) else "info"

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


@dataclass(frozen=True, slots=True)
class LeaderChanged(LiveEvent):
    """The leader of a followed partition changed (derived from ``PartitionStateChanged``); -1 means
    no leader (offline)."""

    SEVERITY = "warning"

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


@dataclass(frozen=True, slots=True)
class ZnodeUnreadable(LiveEvent):
    """``/controller`` or ``/controller_epoch`` now holds data Kafka could not read (``reason`` says why)."""

    SEVERITY = "error"

    path: str
    reason: str

    def describe(self) -> str:
        return f"{self.path} unreadable: {self.reason}"


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


@dataclass(frozen=True, slots=True)
class Resynced(LiveEvent):
    """After a reconnect the watches were set again and the model re-read: ``changes`` is what differs
    from the last state seen before (empty when nothing changed). ``session_expired``: the old session
    expired (a new one was opened), else the same session came back."""

    ABOUT = EventKind.RESYNC

    session_expired: bool
    changes: tuple[LiveEvent, ...]

    def describe(self) -> str:
        after = "session expiry" if self.session_expired else "reconnect"
        changes = _plural(len(self.changes), "change") if self.changes else "no changes"
        return f"re-synced after {after}: {changes} while away"


# --- health --------------------------------------------------------------------------------------------


def _set_changes_json(changes: tuple[tuple[str, tuple[TopicPartition, ...]], ...]) -> dict[str, object]:
    """``HealthChanged``'s ``entered``/``left`` as JSON: per set, its partitions as topic and partition."""
    return {name: [{"topic": t, "partition": p} for t, p in parts] for name, parts in changes}


@dataclass(frozen=True, slots=True)
class HealthChanged(LiveEvent):
    """The offline, under-replicated or under-min-ISR partitions changed (``core.snapshot.health``, the
    counts ``kzc describe`` and the console show): the new counts, and per set the partitions that
    ``entered`` and ``left`` it (sorted), as ``(set name, partitions)`` pairs for the sets that changed."""

    offline: int
    under_replicated: int
    under_min_isr: int
    entered: tuple[tuple[str, tuple[TopicPartition, ...]], ...] = field(metadata={"json": _set_changes_json})
    left: tuple[tuple[str, tuple[TopicPartition, ...]], ...] = field(metadata={"json": _set_changes_json})

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
