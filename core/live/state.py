"""The live cluster model's state, and the pure functions that turn two states into change events.

``LiveState`` is what ``core.live.watcher.ClusterWatcher`` knows at one moment: the structural znodes it
watches plus the assignments and partition states of the topics that changed since the last full read
(``followed``). The ``diff_*`` functions compare an old and a new value of one part and return the
``core.live.events`` that describe the change, in a stable order; ``diff_states`` compares two whole states
(used to re-sync after a reconnect). They do no I/O, so they are tested without ZooKeeper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeVar

from core.kafka.znodes import (
    BrokerRegistration,
    ControllerInfo,
    MigrationState,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.kafka.znodes.paths import CONTROLLER, CONTROLLER_EPOCH
from core.live.events import (
    BrokerLeft,
    BrokerRegistered,
    BrokerUpdated,
    ControllerEpochChanged,
    ControllerMoved,
    DeletionFinished,
    DeletionQueued,
    IsrChanged,
    IsrNotificationsChanged,
    LeaderChanged,
    LogDirEventsChanged,
    PartitionStateChanged,
    PreferredElectionChanged,
    ReassignmentChanged,
    TopicAssignmentChanged,
    TopicCreated,
    TopicRemoved,
    ZnodeUnreadable,
)
from core.live.live_event import LiveEvent
from core.snapshot.model import ZnodeTimes

V = TypeVar("V")

StateValue = PartitionState | Unreadable | None
AssignmentValue = TopicAssignment | Unreadable | None


@dataclass(frozen=True)
class FollowedTopic:
    """A topic a view follows: its assignment and the state of every partition it lists.

    ``assignment`` is ``None`` while ``/brokers/topics/<name>`` does not exist; ``states`` maps each
    listed partition to its state znode (``None`` while absent, e.g. just after creation). ``times``: the
    topic znode's times as last read (``None`` when it was not read with its stat). Never changed in place:
    a change makes a new one.
    """

    name: str
    assignment: AssignmentValue
    states: Mapping[int, StateValue] = field(default_factory=dict)
    times: ZnodeTimes | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LiveState:
    """What the watcher knows about the cluster at one moment.

    ``controller_czxid`` tells a re-registration of the same broker as controller from no change;
    ``broker_epochs`` holds each registration's czxid, which Kafka (2.2+) uses as the broker epoch.
    Counts are the entries waiting in the notification queues.
    """

    controller: ControllerInfo | Unreadable | None = None
    controller_czxid: int | None = None
    controller_epoch: int | Unreadable | None = None
    brokers: Mapping[int, BrokerRegistration | Unreadable] = field(default_factory=dict)
    broker_epochs: Mapping[int, int] = field(default_factory=dict)
    topics: frozenset[str] = frozenset()
    deletions: frozenset[str] = frozenset()
    reassignment: ReassignmentRequest | Unreadable | None = None
    preferred_election: PreferredElectionRequest | Unreadable | None = None
    isr_notifications: int = 0
    log_dir_events: int = 0
    followed: Mapping[str, FollowedTopic] = field(default_factory=dict)
    migration: MigrationState | Unreadable | None = None  # followed without an event per write (watcher)

    def controller_id(self) -> int | None:
        """The controller's broker id, or ``None`` (absent or unreadable ``/controller``)."""
        return self.controller.broker_id if isinstance(self.controller, ControllerInfo) else None

    def epoch(self) -> int | None:
        """``/controller_epoch`` as a number, or ``None`` (absent or unreadable)."""
        return self.controller_epoch if isinstance(self.controller_epoch, int) else None


def diff_controller(
    old: ControllerInfo | Unreadable | None,
    old_czxid: int | None,
    new: ControllerInfo | Unreadable | None,
    new_czxid: int | None,
    epoch: int | None,
) -> list[LiveEvent]:
    """``ControllerMoved`` when another broker (or none, or a new registration) holds ``/controller``;
    ``ZnodeUnreadable`` when it became unreadable. ``epoch`` is the epoch to report with the move."""
    if isinstance(new, Unreadable):
        return [] if old == new else [ZnodeUnreadable(CONTROLLER, new.reason)]
    old_id = old.broker_id if isinstance(old, ControllerInfo) else None
    new_id = new.broker_id if new is not None else None
    if old_id is None and new_id is None:
        return []
    if old_id != new_id or (old_id is not None and old_czxid != new_czxid):
        return [ControllerMoved(old_id, new_id, epoch)]
    return []


def diff_controller_epoch(old: int | Unreadable | None, new: int | Unreadable | None) -> list[LiveEvent]:
    """``ControllerEpochChanged`` (or ``ZnodeUnreadable``) when ``/controller_epoch`` changed."""
    if old == new:
        return []
    if isinstance(new, Unreadable):
        return [ZnodeUnreadable(CONTROLLER_EPOCH, new.reason)]
    old_value = old if isinstance(old, int) else None
    return [] if old_value == new else [ControllerEpochChanged(old_value, new)]


def diff_brokers(
    old: Mapping[int, BrokerRegistration | Unreadable],
    old_epochs: Mapping[int, int],
    new: Mapping[int, BrokerRegistration | Unreadable],
    new_epochs: Mapping[int, int],
) -> list[LiveEvent]:
    """Brokers that left, registered, re-registered (left and registered again: a new broker epoch),
    or rewrote their registration, by broker id."""
    events: list[LiveEvent] = []
    for broker_id in sorted(old.keys() | new.keys()):
        before, after = old.get(broker_id), new.get(broker_id)
        if after is None:
            events.append(BrokerLeft(broker_id, before))
        elif before is None:
            events.append(BrokerRegistered(broker_id, after))
        elif old_epochs.get(broker_id) != new_epochs.get(broker_id):
            events += [BrokerLeft(broker_id, before), BrokerRegistered(broker_id, after)]
        elif before != after:
            events.append(BrokerUpdated(broker_id, before, after))
    return events


def diff_topics(old: frozenset[str], new: frozenset[str]) -> list[LiveEvent]:
    """``TopicRemoved`` then ``TopicCreated``, each sorted by name."""
    if old == new:
        return []
    removed: list[LiveEvent] = [TopicRemoved(name) for name in sorted(old - new)]
    created: list[LiveEvent] = [TopicCreated(name) for name in sorted(new - old)]
    return removed + created


def diff_deletions(old: frozenset[str], new: frozenset[str], topics: frozenset[str]) -> list[LiveEvent]:
    """``DeletionFinished`` for markers gone (noting topics that still exist), ``DeletionQueued`` for new."""
    if old == new:
        return []
    finished: list[LiveEvent] = [DeletionFinished(name, name in topics) for name in sorted(old - new)]
    queued: list[LiveEvent] = [DeletionQueued(name) for name in sorted(new - old)]
    return finished + queued


def diff_value(old: V, new: V, event: Callable[[V], LiveEvent]) -> list[LiveEvent]:
    """``[event(new)]`` when the value changed, else nothing."""
    return [] if old == new else [event(new)]


def diff_reassignment(
    old: ReassignmentRequest | Unreadable | None, new: ReassignmentRequest | Unreadable | None
) -> list[LiveEvent]:
    """``ReassignmentChanged`` when ``/admin/reassign_partitions`` changed."""
    return diff_value(old, new, ReassignmentChanged)


def diff_preferred_election(
    old: PreferredElectionRequest | Unreadable | None, new: PreferredElectionRequest | Unreadable | None
) -> list[LiveEvent]:
    """``PreferredElectionChanged`` when ``/admin/preferred_replica_election`` changed."""
    return diff_value(old, new, PreferredElectionChanged)


def diff_isr_notifications(old: int, new: int) -> list[LiveEvent]:
    """``IsrNotificationsChanged`` when the number of pending ISR change notifications changed."""
    return diff_value(old, new, IsrNotificationsChanged)


def diff_log_dir_events(old: int, new: int) -> list[LiveEvent]:
    """``LogDirEventsChanged`` when the number of pending log dir event notifications changed."""
    return diff_value(old, new, LogDirEventsChanged)


def diff_assignment(topic: str, old: AssignmentValue, new: AssignmentValue) -> list[LiveEvent]:
    """``TopicAssignmentChanged`` when a followed topic's assignment changed."""
    return [] if old == new else [TopicAssignmentChanged(topic, old, new)]


def diff_partition_state(topic: str, partition: int, old: StateValue, new: StateValue) -> list[LiveEvent]:
    """``PartitionStateChanged``, then ``LeaderChanged`` and ``IsrChanged`` when both states are readable
    and those parts differ."""
    if old == new:
        return []
    events: list[LiveEvent] = [PartitionStateChanged(topic, partition, old, new)]
    if isinstance(old, PartitionState) and isinstance(new, PartitionState):
        if old.leader != new.leader:
            events.append(LeaderChanged(topic, partition, old.leader, new.leader, new.leader_epoch))
        if old.isr != new.isr:
            events.append(IsrChanged(topic, partition, old.isr, new.isr))
    return events


def diff_followed(old: FollowedTopic, new: FollowedTopic) -> list[LiveEvent]:
    """The assignment change (if any), then state changes by partition, for one followed topic.

    Only partitions listed in both states are compared: a partition that enters the assignment is
    reported by the assignment change; one that leaves it is no longer followed.
    """
    events = diff_assignment(new.name, old.assignment, new.assignment)
    for partition in sorted(old.states.keys() & new.states.keys()):
        events += diff_partition_state(new.name, partition, old.states[partition], new.states[partition])
    return events


def diff_states(old: LiveState, new: LiveState) -> list[LiveEvent]:
    """Every difference between two states, as the events a watcher would have sent.

    Order: controller, controller epoch, brokers, topics, deletion markers, reassignment, preferred
    election, notification counts, then each topic followed in both states (by name).
    """
    events = diff_controller(old.controller, old.controller_czxid, new.controller, new.controller_czxid, new.epoch())
    events += diff_controller_epoch(old.controller_epoch, new.controller_epoch)
    events += diff_brokers(old.brokers, old.broker_epochs, new.brokers, new.broker_epochs)
    events += diff_topics(old.topics, new.topics)
    events += diff_deletions(old.deletions, new.deletions, new.topics)
    events += diff_reassignment(old.reassignment, new.reassignment)
    events += diff_preferred_election(old.preferred_election, new.preferred_election)
    events += diff_isr_notifications(old.isr_notifications, new.isr_notifications)
    events += diff_log_dir_events(old.log_dir_events, new.log_dir_events)
    for name in sorted(old.followed.keys() & new.followed.keys()):
        events += diff_followed(old.followed[name], new.followed[name])
    return events
