"""Every change ZooKeeper can date, read from the znode stats a snapshot already holds.

Nothing needs to have been running beforehand: a partition state's ``mtime`` is its last leader or ISR
change (its znode version counts every such write), a broker registration's ``ctime`` when that broker last
started, the controller's ``ctime`` when it was elected, a topic's ``ctime`` its creation and ``mtime`` its
last assignment rewrite, a config znode's ``mtime`` its last change, and the admin markers and notification
sequence nodes their own moment. Each ``Change`` says what it means in Kafka's terms, where its date comes
from, and what ZooKeeper cannot tell about it (only the last change of each znode is dated; a deleted topic
leaves nothing; config notifications are purged after 15 minutes).

``dated_changes`` costs no ZooKeeper read: the stats come with the data the snapshot reader fetched.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from core.changes.live import FactKind, LiveFact, live_summary
from core.kafka.znodes import (
    BrokerRegistration,
    ConfigChangeNotification,
    ControllerInfo,
    EntityConfig,
    IsrChangeNotification,
    LogDirEventNotification,
    PartitionState,
    PreferredElectionRequest,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.kafka.znodes.paths import (
    CONFIG_CHANGES,
    CONTROLLER,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    PREFERRED_REPLICA_ELECTION,
    REASSIGN_PARTITIONS,
    broker_config_path,
    broker_path,
    child_path,
    deletion_marker_path,
    state_path,
    topic_config_path,
    topic_path,
)
from core.snapshot.model import ClusterSnapshot, TopicEntry

# How Kafka's controller marks a partition without a leader in its state znode.
_NO_LEADER = -1


class ChangeKind(enum.Enum):
    """What kind of change a line dates; the value is its name in ``--json``."""

    CONTROLLER_ELECTED = "controller_elected"
    BROKER_REGISTERED = "broker_registered"
    TOPIC_CREATED = "topic_created"
    ASSIGNMENT_CHANGED = "assignment_changed"
    PARTITION_STATE = "partition_state"
    TOPIC_CONFIG = "topic_config"
    BROKER_CONFIG = "broker_config"
    CONFIG_NOTIFICATION = "config_notification"
    DELETION_QUEUED = "deletion_queued"
    REASSIGNMENT = "reassignment"
    PREFERRED_ELECTION = "preferred_election"
    ISR_NOTIFICATION = "isr_notification"
    LOG_DIR_EVENT = "log_dir_event"
    LIVE = "live"  # seen by the console's watches since it opened (core.changes.live)
    RECORDED = "recorded"  # a broker, controller or partition change from a history store (core.incident)


# What ZooKeeper cannot tell, by kind: shown beside each line and in --json.
LIMITS: dict[ChangeKind, str] = {
    ChangeKind.CONTROLLER_ELECTED: "the current controller's election only; earlier elections are counted by "
    "the controller epoch, not dated",
    ChangeKind.BROKER_REGISTERED: "when the broker last started; when it stopped before that is not in ZooKeeper",
    ChangeKind.TOPIC_CREATED: "creation time; a deleted topic leaves nothing",
    ChangeKind.ASSIGNMENT_CHANGED: "the last rewrite of the assignment only (partitions added, a reassignment "
    "completed, or the controller adding the topic id)",
    ChangeKind.PARTITION_STATE: "the last leader or ISR change only; earlier ones are counted by the znode's "
    "version, not dated",
    ChangeKind.TOPIC_CONFIG: "the last config change only; earlier values are not kept",
    ChangeKind.BROKER_CONFIG: "the last config change only; earlier values are not kept",
    ChangeKind.CONFIG_NOTIFICATION: "Kafka purges config change notifications after 15 minutes",
    ChangeKind.DELETION_QUEUED: "the marker goes when the deletion completes; a finished deletion leaves nothing",
    ChangeKind.REASSIGNMENT: "the request in progress; the znode goes when the reassignment completes",
    ChangeKind.PREFERRED_ELECTION: "the request in progress; the znode goes when the election completes",
    ChangeKind.ISR_NOTIFICATION: "the controller deletes these within seconds once processed",
    ChangeKind.LOG_DIR_EVENT: "the controller deletes these once processed",
    ChangeKind.LIVE: "seen live since the console opened",
    ChangeKind.RECORDED: "recorded by kzc record when it saw the change; nothing is known in a recorded gap",
}


@dataclass(frozen=True, slots=True)
class Change:
    """One dated change.

    ``source`` names the znode and stat field the date comes from; ``brokers`` the brokers it concerns
    (a partition's replicas, a registered broker, the controller), for filtering by broker.
    """

    at_ms: int
    kind: ChangeKind
    text: str
    source: str
    topic: str | None = None
    partition: int | None = None
    brokers: tuple[int, ...] = ()
    # A partition state's brokers outside the ISR now (for bursts); the leader (-1: none).
    out_of_isr: tuple[int, ...] = ()
    leader: int | None = None
    writes: int | None = None  # how many times the znode was written (its version + 1), where it counts
    fact: LiveFact | None = None  # a live line's meaning (``core.changes.live``), where the timeline reads it

    @property
    def limit(self) -> str:
        """What ZooKeeper cannot tell about this change."""
        return LIMITS[self.kind]

    def to_json(self) -> dict[str, object]:
        """The change as JSON (``limit`` included)."""
        data: dict[str, object] = {
            "at_ms": self.at_ms,
            "kind": self.kind.value,
            "text": self.text,
            "source": self.source,
            "limit": self.limit,
        }
        if self.topic is not None:
            data["topic"] = self.topic
        if self.partition is not None:
            data["partition"] = self.partition
        if self.brokers:
            data["brokers"] = list(self.brokers)
        if self.kind is ChangeKind.PARTITION_STATE:
            data["leader"] = self.leader
            data["out_of_isr"] = list(self.out_of_isr)
        if self.writes is not None:
            data["writes"] = self.writes
        return data


def dated_changes(snapshot: ClusterSnapshot) -> list[Change]:
    """Every change the snapshot's znode stats date, newest first (ties: by text, for stable output)."""
    changes: list[Change] = []
    changes.extend(_controller(snapshot))
    for broker_id, entry in snapshot.brokers.items():
        if entry.times.ctime_ms > 0:
            changes.append(_broker(broker_id, entry.registration, entry.times.ctime_ms))
    for topic in snapshot.topics.values():
        changes.extend(_topic(topic))
    for name, times in snapshot.topic_config_times.items():
        changes.append(
            Change(
                times.mtime_ms,
                ChangeKind.TOPIC_CONFIG,
                f"topic {name}: config last changed ({_config_summary(snapshot.topic_configs.get(name))})",
                f"{topic_config_path(name)} mtime",
                topic=name,
                writes=times.version + 1,
            )
        )
    for name, times in snapshot.broker_config_times.items():
        who = "the cluster-wide default" if name == "<default>" else f"broker {name}"
        changes.append(
            Change(
                times.mtime_ms,
                ChangeKind.BROKER_CONFIG,
                f"{who}: dynamic config last changed ({_config_summary(snapshot.broker_configs.get(name))})",
                f"{broker_config_path(name)} mtime",
                brokers=(int(name),) if name.isdigit() else (),
                writes=times.version + 1,
            )
        )
    changes.extend(_admin(snapshot))
    changes.extend(_notifications(snapshot))
    changes.sort(key=lambda c: (-c.at_ms, c.text))
    return changes


def select(
    changes: Iterable[Change], since_ms: int | None = None, topic: str | None = None, broker: int | None = None
) -> list[Change]:
    """The changes at or after ``since_ms`` that concern ``topic`` and ``broker`` (each when given)."""
    return [
        c
        for c in changes
        if (since_ms is None or c.at_ms >= since_ms)
        and (topic is None or c.topic == topic)
        and (broker is None or broker in c.brokers)
    ]


# ---- one function per source -------------------------------------------------------------------------


def _controller(snapshot: ClusterSnapshot) -> list[Change]:
    info, times = snapshot.controller, snapshot.controller_times
    if not isinstance(info, ControllerInfo) or times is None:
        return []
    epoch = snapshot.controller_epoch if isinstance(snapshot.controller_epoch, int) else None
    counted = f" (controller epoch {epoch}: elections since the cluster began)" if epoch is not None else ""
    return [
        Change(
            times.ctime_ms,
            ChangeKind.CONTROLLER_ELECTED,
            f"broker {info.broker_id} became the controller{counted}",
            f"{CONTROLLER} ctime",
            brokers=(info.broker_id,),
        )
    ]


def _broker(broker_id: int, registration: BrokerRegistration | Unreadable, ctime_ms: int) -> Change:
    rack = ""
    if isinstance(registration, BrokerRegistration) and registration.rack:
        rack = f", rack {registration.rack}"
    return Change(
        ctime_ms,
        ChangeKind.BROKER_REGISTERED,
        f"broker {broker_id} registered (started{rack})",
        f"{broker_path(broker_id)} ctime",
        brokers=(broker_id,),
    )


def _topic(topic: TopicEntry) -> list[Change]:
    name = topic.name
    assignment = topic.assignment
    replicas_of: dict[int, tuple[int, ...]] = {}
    all_brokers: tuple[int, ...] = ()
    if isinstance(assignment, TopicAssignment):
        replicas_of = dict(assignment.partitions)
        all_brokers = tuple(sorted({b for replicas in replicas_of.values() for b in replicas}))
    out: list[Change] = []
    times = topic.times
    if times.czxid > 0:  # 0: a topic the console saw appear live, dated by its live event instead
        count = len(replicas_of)
        out.append(
            Change(
                times.ctime_ms,
                ChangeKind.TOPIC_CREATED,
                f"topic {name} created" + (f" ({count} partition(s) now)" if count else ""),
                f"{topic_path(name)} ctime",
                topic=name,
                brokers=all_brokers,
            )
        )
        if times.version > 0 and times.mtime_ms > times.ctime_ms:
            out.append(
                Change(
                    times.mtime_ms,
                    ChangeKind.ASSIGNMENT_CHANGED,
                    f"topic {name}: replica assignment rewritten ({times.version} time(s) since creation: "
                    "partitions added, a reassignment completed, or the controller adding the topic id)",
                    f"{topic_path(name)} mtime",
                    topic=name,
                    brokers=all_brokers,
                    writes=times.version + 1,
                )
            )
    for partition, stamp in topic.state_stamps.items():
        state = topic.states.get(partition)
        if not isinstance(state, PartitionState) or stamp.mtime_ms <= 0:
            continue
        replicas = replicas_of.get(partition, ())
        out_of_isr = tuple(b for b in replicas if b not in state.isr)
        out.append(
            Change(
                stamp.mtime_ms,
                ChangeKind.PARTITION_STATE,
                _state_text(name, partition, state, out_of_isr, stamp.version),
                f"{state_path(name, partition)} mtime",
                topic=name,
                partition=partition,
                brokers=tuple(sorted(set(replicas) | set(state.isr))),
                out_of_isr=out_of_isr,
                leader=state.leader,
                writes=stamp.version + 1,
            )
        )
    return out


def _state_text(topic: str, partition: int, state: PartitionState, out_of_isr: Sequence[int], version: int) -> str:
    isr = ",".join(str(b) for b in state.isr)
    now = "offline (no leader)" if state.leader == _NO_LEADER else f"leader {state.leader}"
    missing = f"; broker(s) {', '.join(str(b) for b in out_of_isr)} out of the ISR" if out_of_isr else ""
    return (
        f"{topic}-{partition}: leader/ISR last changed: {now}, leader epoch {state.leader_epoch}, ISR [{isr}]"
        f"{missing} ({version + 1} state write(s) in all)"
    )


def _config_summary(config: object) -> str:
    if isinstance(config, EntityConfig):
        keys = [k for k, _ in config.config]
        if not keys:
            return "no overrides now"
        shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
        return f"overrides now: {shown}"
    if isinstance(config, Unreadable):
        return f"unreadable: {config.reason}"
    return "no overrides now"


def _admin(snapshot: ClusterSnapshot) -> list[Change]:
    out: list[Change] = []
    for name, times in snapshot.deletion_markers.items():
        out.append(
            Change(
                times.ctime_ms,
                ChangeKind.DELETION_QUEUED,
                f"topic {name} queued for deletion (still pending)",
                f"{deletion_marker_path(name)} ctime",
                topic=name,
            )
        )
    request, requested = snapshot.reassignment, snapshot.reassignment_times
    if requested is not None:
        count = len(request.partitions) if isinstance(request, ReassignmentRequest) else None
        what = f"{count} partition(s)" if count is not None else "unreadable request"
        brokers = (
            tuple(sorted({b for _, _, replicas in request.partitions for b in replicas}))
            if isinstance(request, ReassignmentRequest)
            else ()
        )
        out.append(
            Change(
                requested.ctime_ms,
                ChangeKind.REASSIGNMENT,
                f"partition reassignment requested ({what}; still in progress)",
                f"{REASSIGN_PARTITIONS} ctime",
                brokers=brokers,
            )
        )
    election, asked = snapshot.preferred_election, snapshot.preferred_election_times
    if asked is not None:
        count = len(election.partitions) if isinstance(election, PreferredElectionRequest) else None
        what = f"{count} partition(s)" if count is not None else "unreadable request"
        out.append(
            Change(
                asked.ctime_ms,
                ChangeKind.PREFERRED_ELECTION,
                f"preferred replica election requested ({what}; still in progress)",
                f"{PREFERRED_REPLICA_ELECTION} ctime",
            )
        )
    return out


def _notifications(snapshot: ClusterSnapshot) -> list[Change]:
    out: list[Change] = []
    for note in snapshot.config_change_notifications:
        value = note.value
        if isinstance(value, ConfigChangeNotification):
            what = f"config change of {value.entity_path or f'{value.entity_type}/{value.entity_name}'} notified"
            topic = value.entity_name if value.entity_type == "topics" else None
        else:
            what, topic = "config change notified (unreadable notification)", None
        out.append(
            Change(
                note.ctime_ms,
                ChangeKind.CONFIG_NOTIFICATION,
                what,
                f"{child_path(CONFIG_CHANGES, note.name)} ctime",
                topic=topic,
            )
        )
    for note in snapshot.isr_change_notifications:
        value = note.value
        count = len(value.partitions) if isinstance(value, IsrChangeNotification) else None
        what = f"{count} partition(s)" if count is not None else "unreadable"
        out.append(
            Change(
                note.ctime_ms,
                ChangeKind.ISR_NOTIFICATION,
                f"ISR change notification ({what}) not yet processed by the controller",
                f"{child_path(ISR_CHANGE_NOTIFICATIONS, note.name)} ctime",
            )
        )
    for note in snapshot.log_dir_event_notifications:
        value = note.value
        broker = value.broker if isinstance(value, LogDirEventNotification) else None
        out.append(
            Change(
                note.ctime_ms,
                ChangeKind.LOG_DIR_EVENT,
                f"broker {broker} reported a log dir failure" if broker is not None else "log dir event (unreadable)",
                f"{child_path(LOG_DIR_EVENT_NOTIFICATIONS, note.name)} ctime",
                brokers=(broker,) if broker is not None else (),
            )
        )
    return out


# ---- bursts -----------------------------------------------------------------------------------------

BURST_GAP_MS = 3000  # changes closer than this to the previous one belong to the same burst


@dataclass(frozen=True)
class Burst:
    """Changes that happened together (each within ``BURST_GAP_MS`` of the previous), summarised in one
    line by what they share: a failover, a rolling restart's step, a reassignment's end."""

    start_ms: int
    end_ms: int
    changes: tuple[Change, ...]  # newest first
    text: str
    shared_out_of_isr: tuple[int, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """The burst with its changes."""
        return {
            "start_ms": self.start_ms,
            "end_ms": self.end_ms,
            "text": self.text,
            "count": len(self.changes),
            "shared_out_of_isr": list(self.shared_out_of_isr),
            "changes": [c.to_json() for c in self.changes],
        }


def bursts(changes: Sequence[Change], gap_ms: int = BURST_GAP_MS) -> list[Burst]:
    """Group ``changes`` (any order) into bursts, newest first. A lone change is a burst of one."""
    ordered = sorted(changes, key=lambda c: c.at_ms)
    groups: list[list[Change]] = []
    for change in ordered:
        if groups and change.at_ms - groups[-1][-1].at_ms <= gap_ms:
            groups[-1].append(change)
        else:
            groups.append([change])
    out = [_burst(group) for group in groups]
    out.reverse()
    return out


_NAMED_UP_TO = 3  # of one kind, a burst names this many changes one by one, and counts more
# Named whatever their number: a controller move, a broker's start, a log dir failure each matter on their own.
_ALWAYS_NAMED = (ChangeKind.CONTROLLER_ELECTED, ChangeKind.BROKER_REGISTERED, ChangeKind.LOG_DIR_EVENT)
_COUNTED = {
    ChangeKind.TOPIC_CREATED: "topic(s) created",
    ChangeKind.ASSIGNMENT_CHANGED: "assignment(s) rewritten",
    ChangeKind.TOPIC_CONFIG: "topic config(s) changed",
    ChangeKind.BROKER_CONFIG: "broker config(s) changed",
    ChangeKind.CONFIG_NOTIFICATION: "config change notification(s)",
    ChangeKind.DELETION_QUEUED: "deletion(s) queued",
    ChangeKind.REASSIGNMENT: "reassignment request",
    ChangeKind.PREFERRED_ELECTION: "preferred election request",
    ChangeKind.ISR_NOTIFICATION: "ISR change notification(s)",
}


def _burst(group: list[Change]) -> Burst:
    newest_first = tuple(sorted(group, key=lambda c: (-c.at_ms, c.text)))
    start, end = group[0].at_ms, group[-1].at_ms
    states = [c for c in newest_first if c.kind is ChangeKind.PARTITION_STATE]
    shared = _shared_out_of_isr(states) if states else ()
    if len(group) == 1:
        return Burst(start, end, newest_first, group[0].text, shared)
    parts = [c.text for c in newest_first if c.kind in _ALWAYS_NAMED]
    for kind, others in ((ChangeKind.LIVE, "live event(s)"), (ChangeKind.RECORDED, "recorded change(s)")):
        parts.extend(live_summary([(c.text, c.fact) for c in newest_first if c.kind is kind], others))
    if states:
        offline = sum(1 for c in states if c.leader == _NO_LEADER)
        line = f"leader/ISR changed on {len(states)} partition(s)"
        if shared:
            names = ", ".join(str(b) for b in shared)
            line += f", all {len(states)} without broker {names} in their ISR now"
        elif not any(c.out_of_isr for c in states):
            line += f", all {len(states)} with every replica in the ISR now"
        else:
            lacking = sum(1 for c in states if c.out_of_isr)
            line += f", {lacking} of them with a replica out of the ISR now"
        if offline:
            line += f", {offline} offline"
        parts.append(line)
    for kind, label in _COUNTED.items():
        of_kind = [c.text for c in newest_first if c.kind is kind]
        if len(of_kind) > _NAMED_UP_TO:
            parts.append(f"{len(of_kind)} {label}")
        else:
            parts.extend(of_kind)
    return Burst(start, end, newest_first, "; ".join(parts), shared)


def _shared_out_of_isr(states: Sequence[Change]) -> tuple[int, ...]:
    """The brokers outside the ISR of every partition in ``states`` (empty when none is shared)."""
    common = set(states[0].out_of_isr)
    for change in states[1:]:
        common &= set(change.out_of_isr)
        if not common:
            return ()
    return tuple(sorted(common))


# ---- live events ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LiveLine:
    """A live event the console saw (its event log line): when, what, the topic it concerns, and what it states
    (``core.changes.live``), where the timeline reads more than its text."""

    at_ms: int
    text: str
    topic: str | None = None
    fact: LiveFact | None = None


# A dated change and a live event are one change when the event was seen at most this long before the date:
# the console's clock and ZooKeeper's differ, and a registration seen live is dated when the model laid it over.
SAME_CHANGE_MS = BURST_GAP_MS

# The dated kinds a live event also reports, by the fact that reports them.
_REPORTED_LIVE = {
    ChangeKind.BROKER_REGISTERED: FactKind.BROKER_REGISTERED,
    ChangeKind.CONTROLLER_ELECTED: FactKind.CONTROLLER,
}


def with_live(changes: Sequence[Change], live: Iterable[LiveLine]) -> list[Change]:
    """``changes`` merged with the live events the console saw, newest first, each change once.

    The live events know more (what a state was before, every change rather than the last). The console's
    model drops the stat of a partition state once it re-reads it live, so a dated line never repeats a
    partition change a live event reports; a broker's registration and the controller's election are dated
    from the znode's ctime, which is the registration or election a live event saw when that event came at or
    after it (within ``SAME_CHANGE_MS``): the dated line is then left out.
    """
    lines = list(live)
    seen: dict[tuple[FactKind, int | None], int] = {}  # the last live moment of each (fact, broker)
    for line in lines:
        if line.fact is not None and line.fact.kind is not FactKind.HEALTH:
            key = (line.fact.kind, line.fact.broker)
            seen[key] = max(seen.get(key, line.at_ms), line.at_ms)
    merged = [c for c in changes if not _reported_live(c, seen)]
    merged.extend(
        Change(line.at_ms, ChangeKind.LIVE, line.text, "seen live by the console", topic=line.topic, fact=line.fact)
        for line in lines
    )
    merged.sort(key=lambda c: (-c.at_ms, c.text))
    return merged


def _reported_live(change: Change, seen: dict[tuple[FactKind, int | None], int]) -> bool:
    fact = _REPORTED_LIVE.get(change.kind)
    if fact is None or len(change.brokers) != 1:
        return False
    at = seen.get((fact, change.brokers[0]))
    return at is not None and at >= change.at_ms - SAME_CHANGE_MS
