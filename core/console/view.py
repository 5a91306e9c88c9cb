"""What the console's tables show, derived from a ``ClusterSnapshot``: topic, partition and broker rows,
health counters, pending admin work, the controller panel and where each topic deletion stands.

Pure and headless. ``ViewBuilder`` keeps the per-topic results of the previous snapshot and recomputes
only topics whose ``TopicEntry`` object changed (snapshot entries are immutable and replaced on change),
so a live refresh of a 50k-topic cluster costs what changed, not the whole cluster.

Offline, under-replicated, under-min-ISR and ``acks=all`` come from ``core.snapshot.health.partition_health``,
the one derivation ``describe``, ``check``, ``watch`` and the exports use too; leader imbalance counts
partitions led by a broker other than their preferred (first) replica.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core.console.protocols import DeletionStage, DeletionStatus
from core.kafka.znodes import (
    BrokerRegistration,
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
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    PREFERRED_REPLICA_ELECTION,
    REASSIGN_PARTITIONS,
    deletion_marker_path,
)
from core.migration.status import NOT_ASKED, BrokerFacts, MigrationStatus, migration_status
from core.snapshot.deletion import (
    DELETION_STARTED,
    deletion_started,
    replica_deletion_states,
    replica_states_text,
    topic_deletion_blockers,
)
from core.snapshot.health import MinIsr, MinIsrResolver, live_leader, partition_health
from core.snapshot.kraft import with_served_kraft_brokers
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.snapshot.summary import ControllerSummary, broker_summary, controller_summary

STALLED_DELETION_MS = 5 * 60 * 1000  # after this long a queued deletion is called stalled


# ---- partitions --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PartitionRow:
    """One partition as the topic detail shows it. ``flags`` are the meanings the UI styles by class:
    ``offline``, ``under-min-isr``, ``under-replicated``, ``reassigning``, ``non-preferred``, ``no-state``,
    ``unreadable``. ``accepts_acks_all`` is None when unknown; ``acks_all_text`` says why."""

    partition: int
    replicas: tuple[int, ...]
    leader: int | None
    leader_epoch: int | None
    isr: tuple[int, ...]
    preferred_leader: int | None
    accepts_acks_all: bool | None
    flags: frozenset[str]
    note: str
    acks_all_text: str = ""

    @property
    def health(self) -> str:
        """One word for the health column, worst first."""
        for flag in ("unreadable", "no-state", "offline", "under-min-isr", "under-replicated", "reassigning"):
            if flag in self.flags:
                return flag
        return "non-preferred" if "non-preferred" in self.flags else "ok"


def partition_row(
    partition: int,
    replicas: tuple[int, ...],
    state: PartitionState | Unreadable | None,
    live: frozenset[int] | set[int],
    min_isr: MinIsr,
    reassigning: bool = False,
    adding: tuple[int, ...] = (),
) -> PartitionRow:
    """The health of one partition (``core.snapshot.health.partition_health``) as a table row."""
    preferred = replicas[0] if replicas else None
    h = partition_health(replicas, adding, state, live, min_isr)
    flags: set[str] = set()
    if reassigning:
        flags.add("reassigning")
    if h.offline is not None:
        flags.add("offline")
    if h.under_replicated:
        flags.add("under-replicated")
    if h.under_min_isr:
        flags.add("under-min-isr")
    text = h.acks_all_text
    if state is None:
        flags.add("no-state")
        note = "no state znode: the controller has not processed this partition"
        return PartitionRow(partition, replicas, None, None, (), preferred, False, frozenset(flags), note, text)
    if isinstance(state, Unreadable):
        flags.add("unreadable")
        return PartitionRow(partition, replicas, None, None, (), preferred, False, frozenset(flags), state.reason, text)
    leader = state.leader
    note = ""
    if leader < 0:
        note = "being deleted (leader -2)" if leader == -2 else "no leader"
    elif leader not in live:
        note = f"leader {leader} is not registered"
    if leader >= 0 and preferred is not None and leader != preferred:
        flags.add("non-preferred")
    return PartitionRow(
        partition, replicas, leader, state.leader_epoch, state.isr, preferred, h.acks_all, frozenset(flags), note, text
    )


def partition_rows(snapshot: ClusterSnapshot, entry: TopicEntry) -> list[PartitionRow]:
    """Every partition of ``entry`` (assignment order), then state znodes left over beyond it."""
    live = snapshot.live_broker_ids()
    resolver = MinIsrResolver(snapshot)
    rows: list[PartitionRow] = []
    listed: set[int] = set()
    if isinstance(entry.assignment, TopicAssignment):
        for partition, replicas in entry.assignment.partitions:
            listed.add(partition)
            state = entry.states.get(partition)
            min_isr = resolver.resolve(entry.config, live_leader(state, live))
            reassigning = entry.assignment.is_reassigning(partition)
            adding = entry.assignment.adding_replicas(partition)
            rows.append(partition_row(partition, replicas, state, live, min_isr, reassigning, adding))
    for partition in sorted(set(entry.states) - listed):
        state = entry.states[partition]
        row = partition_row(partition, (), state, live, resolver.resolve(entry.config, live_leader(state, live)))
        note = "state znode without an assignment entry (left over)"
        rows.append(
            PartitionRow(
                row.partition,
                (),
                row.leader,
                row.leader_epoch,
                row.isr,
                None,
                False,
                row.flags | {"unreadable"},
                note,
                "no (not a partition of the topic)",
            )
        )
    return rows


# ---- topics ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TopicSummary:
    """One row of the topics table. ``replication_factor`` is partition 0's replica count (what Kafka's
    tools use); ``None`` when the assignment is unreadable (``problem`` says why)."""

    name: str
    partitions: int
    replication_factor: int | None
    under_replicated: int
    offline: int
    under_min_isr: int
    non_preferred: int
    reassigning: int
    pending_deletion: bool
    config_overrides: int
    min_isr: int | None  # what a partition without a per-broker value applies; None when unknown
    problem: str | None = None
    acks_all_unknown: int = 0  # partitions whose acks=all answer depends on an unknown min.insync.replicas

    @property
    def flags(self) -> frozenset[str]:
        """The meanings the UI styles by class, worst first in ``health``."""
        flags: set[str] = set()
        if self.problem:
            flags.add("unreadable")
        if self.offline:
            flags.add("offline")
        if self.under_min_isr:
            flags.add("under-min-isr")
        if self.under_replicated:
            flags.add("under-replicated")
        if self.pending_deletion:
            flags.add("pending-deletion")
        if self.reassigning:
            flags.add("reassigning")
        return frozenset(flags)


@dataclass(frozen=True, slots=True)
class _TopicTally:
    summary: TopicSummary
    replicas: Mapping[int, int]  # broker -> replicas of this topic
    leaders: Mapping[int, int]  # broker -> partitions of this topic it leads
    lacking: Mapping[int, int]  # broker -> under-replicated partitions of this topic whose ISR lacks it


def _tally_topic(entry: TopicEntry, live: frozenset[int], resolver: MinIsrResolver, pending: bool) -> _TopicTally:
    min_isr = resolver.resolve(entry.config, None).value
    overrides = len(entry.config.config) if isinstance(entry.config, EntityConfig) else 0
    assignment = entry.assignment
    if isinstance(assignment, Unreadable):
        summary = TopicSummary(entry.name, 0, None, 0, 0, 0, 0, 0, pending, overrides, min_isr, assignment.reason)
        return _TopicTally(summary, {}, {}, {})
    replicas_count: dict[int, int] = {}
    leaders_count: dict[int, int] = {}
    lacking: dict[int, int] = {}
    urp = offline = under_min = non_preferred = unknown = 0
    states = entry.states
    config = entry.config
    reassigning = assignment.adding or assignment.removing
    for partition, replicas in assignment.partitions:
        for broker in replicas:
            replicas_count[broker] = replicas_count.get(broker, 0) + 1
        state = states.get(partition)
        leader = live_leader(state, live)
        adding = assignment.adding_replicas(partition) if reassigning else ()
        h = partition_health(replicas, adding, state, live, resolver.resolve(config, leader))
        if h.offline is not None:
            offline += 1
        else:
            assert leader is not None
            leaders_count[leader] = leaders_count.get(leader, 0) + 1
            if replicas and leader != replicas[0]:
                non_preferred += 1
        if h.under_min_isr:
            under_min += 1
        elif h.under_min_isr is None:
            unknown += 1
        if h.under_replicated:
            urp += 1
            isr = state.isr if isinstance(state, PartitionState) else ()
            for broker in replicas:
                if broker not in isr:
                    lacking[broker] = lacking.get(broker, 0) + 1
    rf = len(assignment.partitions[0][1]) if assignment.partitions else 0
    summary = TopicSummary(
        name=entry.name,
        partitions=len(assignment.partitions),
        replication_factor=rf,
        under_replicated=urp,
        offline=offline,
        under_min_isr=under_min,
        non_preferred=non_preferred,
        reassigning=len(assignment.reassigning_partitions),
        pending_deletion=pending,
        config_overrides=overrides,
        min_isr=min_isr,
        acks_all_unknown=unknown,
    )
    return _TopicTally(summary, replicas_count, leaders_count, lacking)


# ---- brokers, controller, pending work, health -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerRow:
    """One row of the brokers table. ``alive`` False for brokers that hold replicas but are not registered."""

    id: int
    endpoints: tuple[str, ...]
    rack: str | None
    registered_ms: int | None
    replicas: int
    leaders: int
    alive: bool
    problem: str | None = None

    @property
    def host_port(self) -> str:
        """``host:port`` of the first endpoint (what event lines quote), or ``-``."""
        if not self.endpoints:
            return "-"
        return self.endpoints[0].split("://", 1)[-1]


@dataclass(frozen=True, slots=True)
class PendingItem:
    """One line of pending admin work: what, how many, since when, and why it is stuck (if it is)."""

    kind: str  # "deletion", "reassignment", "preferred-election", "isr-notifications", "log-dir-events"
    subject: str
    count: int
    since_ms: int | None
    stuck: str | None = None
    topic: str | None = None
    path: str | None = None


@dataclass(frozen=True, slots=True)
class HealthCounters:
    """The cluster's health counters."""

    topics: int
    partitions: int
    offline: int
    under_replicated: int
    under_min_isr: int
    non_preferred_leaders: int
    unreadable_znodes: int
    acks_all_unknown: int = 0  # partitions whose acks=all answer depends on an unknown min.insync.replicas
    acks_all_unknown_reason: str | None = None
    # The brokers missing from the ISR of every under-replicated partition (the timeline's "all without broker 2").
    lacking_everywhere: tuple[int, ...] = ()

    @property
    def leader_imbalance_percent(self) -> float:
        """Share of led partitions whose leader is not the preferred replica."""
        return 100.0 * self.non_preferred_leaders / self.partitions if self.partitions else 0.0


@dataclass(frozen=True)
class ClusterView:
    """Everything the cluster and topics screens show, from one snapshot."""

    snapshot: ClusterSnapshot
    controller: ControllerSummary
    brokers: tuple[BrokerRow, ...]
    topics: tuple[TopicSummary, ...]
    health: HealthCounters
    pending: tuple[PendingItem, ...]
    migration: MigrationStatus | None = None  # None while no migration shows in ZooKeeper


def deletion_status(snapshot: ClusterSnapshot, topic: str, now_ms: int) -> DeletionStatus:
    """Where the deletion of ``topic`` stands, per replica as the controller holds it, and every reason it
    cannot progress (``core.snapshot.deletion.deletion_blockers``, zk-layout §7)."""
    marker = snapshot.deletion_markers.get(topic)
    entry = snapshot.topics.get(topic)
    age = now_ms - marker.ctime_ms if marker is not None else None
    if entry is None:
        if marker is None:
            return DeletionStatus(topic, DeletionStage.GONE, "topic and deletion marker are gone")
        [stale] = topic_deletion_blockers(snapshot, topic)
        return DeletionStatus(
            topic, DeletionStage.QUEUED, "marker queued for a topic that does not exist", stuck=stale.detail, age_ms=age
        )
    if marker is None:
        return DeletionStatus(topic, DeletionStage.NOT_QUEUED, "not queued for deletion")
    reasons = topic_deletion_blockers(snapshot, topic)
    stuck = "; ".join(r.detail for r in reasons) or None
    assignment = entry.assignment
    if not isinstance(assignment, TopicAssignment):
        return DeletionStatus(topic, DeletionStage.QUEUED, "marker queued", stuck=stuck, age_ms=age)
    replicas = replica_deletion_states(assignment, entry.states, snapshot.live_broker_ids(), deletion_started(reasons))
    states = [entry.states.get(p) for p in entry.partition_ids]
    led = sum(1 for s in states if isinstance(s, PartitionState) and s.leader >= 0)
    if replicas and all(r.state == DELETION_STARTED for r in replicas):
        stage, detail = DeletionStage.REPLICAS_REMOVED, "StopReplica sent to every replica; replicas being deleted"
    elif states and led == 0:
        stage, detail = DeletionStage.PARTITIONS_OFFLINE, "every partition is offline"
    else:
        stage, detail = DeletionStage.QUEUED, f"marker queued; {led} of {len(states)} partitions still have a leader"
    detail = f"{detail}; {replica_states_text(replicas)}"
    if stuck is None and age is not None and age > STALLED_DELETION_MS:
        stuck = (
            f"queued for {age // 60000} min with every replica's broker registered: a StopReplica may have "
            "failed (see the controller log); it resumes when a broker restarts"
        )
    return DeletionStatus(topic, stage, detail, stuck=stuck, age_ms=age)


def _pending_work(snapshot: ClusterSnapshot, now_ms: int) -> list[PendingItem]:
    items: list[PendingItem] = []
    for topic, times in sorted(snapshot.deletion_markers.items()):
        status = deletion_status(snapshot, topic, now_ms)
        path = deletion_marker_path(topic)
        items.append(PendingItem("deletion", topic, 1, times.ctime_ms, status.stuck, topic, path))
    request = snapshot.reassignment
    if request is not None:
        since = snapshot.reassignment_times.ctime_ms if snapshot.reassignment_times else None
        count = len(request.partitions) if isinstance(request, ReassignmentRequest) else 0
        stuck = _admin_stuck(snapshot, request)
        path = REASSIGN_PARTITIONS
        items.append(PendingItem("reassignment", f"{count} partition(s) to move", count, since, stuck, None, path))
    inflight = sum(
        len(t.assignment.reassigning_partitions)
        for t in snapshot.topics.values()
        if isinstance(t.assignment, TopicAssignment) and t.assignment.adding + t.assignment.removing
    )
    if inflight and request is None:
        subject = f"{inflight} partition(s) with adding/removing replicas"
        items.append(PendingItem("reassignment", subject, inflight, None, None, None, None))
    election = snapshot.preferred_election
    if election is not None:
        since = snapshot.preferred_election_times.ctime_ms if snapshot.preferred_election_times else None
        count = len(election.partitions) if isinstance(election, PreferredElectionRequest) else 0
        items.append(
            PendingItem(
                "preferred-election",
                f"{count} partition(s)",
                count,
                since,
                _admin_stuck(snapshot, election),
                None,
                PREFERRED_REPLICA_ELECTION,
            )
        )
    for kind, notes, path, what in (
        ("isr-notifications", snapshot.isr_change_notifications, ISR_CHANGE_NOTIFICATIONS, IsrChangeNotification),
        (
            "log-dir-events",
            snapshot.log_dir_event_notifications,
            LOG_DIR_EVENT_NOTIFICATIONS,
            LogDirEventNotification,
        ),
    ):
        if not notes:
            continue
        oldest = min(n.ctime_ms for n in notes)
        stuck = None
        if now_ms - oldest > 15 * 60 * 1000:
            stuck = "older than 15 min: the controller is not consuming notifications"
        elif snapshot.controller_id() is None:
            stuck = "no controller to consume them"
        unreadable = sum(1 for n in notes if not isinstance(n.value, what))
        subject = f"{len(notes)} pending" + (f" ({unreadable} unreadable)" if unreadable else "")
        items.append(PendingItem(kind, subject, len(notes), oldest, stuck, None, path))
    return items


def _admin_stuck(snapshot: ClusterSnapshot, request: object) -> str | None:
    if isinstance(request, Unreadable):
        return f"unreadable: {request.reason}"
    if snapshot.controller_id() is None:
        return "no controller to process it"
    return None


def _broker_rows(
    snapshot: ClusterSnapshot,
    replicas: Counter[int],
    leaders: Counter[int],
    last_known: dict[int, tuple[tuple[str, ...], str | None]] | None = None,
) -> tuple[BrokerRow, ...]:
    """One row per registered broker and per broker id that holds replicas; a broker seen registered before
    (``last_known``, updated here) keeps its last endpoints and rack once it is gone (``alive`` False)."""
    known = last_known if last_known is not None else {}
    rows: list[BrokerRow] = []
    for broker_id in sorted(set(snapshot.brokers) | set(replicas)):
        entry = snapshot.brokers.get(broker_id)
        if entry is None:
            endpoints, rack = known.get(broker_id, ((), None))
            kraft = broker_id in (snapshot.kraft_brokers or ())  # moved to KRaft during a migration: serving
            led = leaders[broker_id] if kraft else 0
            rows.append(BrokerRow(broker_id, endpoints, rack, None, replicas[broker_id], led, kraft))
            continue
        broker = broker_summary(entry)
        if broker.problem is None:
            known[broker_id] = (broker.endpoints, broker.rack)
        rows.append(
            BrokerRow(
                broker_id,
                broker.endpoints,
                broker.rack,
                broker.registered_since_ms,
                replicas[broker_id],
                leaders[broker_id],
                True,
                broker.problem,
            )
        )
    return tuple(rows)


class ViewBuilder:
    """Builds ``ClusterView``s incrementally: per-topic results are kept, and only topics whose entry
    changed (a new object that is not equal) are tallied again; cluster totals are adjusted by the
    difference, so a change to one topic of 50k costs one topic plus a walk over the names."""

    def __init__(self) -> None:
        self._basis: tuple[frozenset[int], object] | None = None
        # The last registration seen of each broker: a broker that leaves keeps its endpoint and rack on screen
        # (marked gone), which is what an on-call engineer needs to find the host.
        self._last_known: dict[int, tuple[tuple[str, ...], str | None]] = {}
        self._reset()

    def _reset(self) -> None:
        self._cache: dict[str, tuple[TopicEntry, bool, _TopicTally]] = {}
        self._replicas: dict[int, int] = {}
        self._leaders: dict[int, int] = {}
        self._lacking: dict[int, int] = {}
        self._totals = [0, 0, 0, 0, 0, 0]  # partitions, offline, urp, under-min-isr, non-preferred, unknown
        self._names: list[str] = []
        self._ordered: tuple[TopicSummary, ...] = ()

    def _apply(self, tally: _TopicTally, sign: int) -> None:
        s = tally.summary
        tables = ((self._replicas, tally.replicas), (self._leaders, tally.leaders), (self._lacking, tally.lacking))
        for table, counts in tables:
            for broker, count in counts.items():
                table[broker] = table.get(broker, 0) + sign * count
        values = (s.partitions, s.offline, s.under_replicated, s.under_min_isr, s.non_preferred, s.acks_all_unknown)
        for index, value in enumerate(values):
            self._totals[index] += sign * value

    def build(self, snapshot: ClusterSnapshot, now_ms: int) -> ClusterView:
        """The view of ``snapshot``; ``now_ms`` dates the ages of pending work."""
        migration = None
        if snapshot.kraft_brokers is None:
            # During a migration, brokers moved to KRaft left /brokers/ids but still serve: alive, not dead. Not
            # determined by whoever read the snapshot (the live model does, with the brokers): the ISR tells.
            snapshot = with_served_kraft_brokers(snapshot, None)
        if snapshot.migration is not None:
            # The live model says what the brokers listed and whether /migration moves (finalized or not).
            asked = BrokerFacts(served=snapshot.served_brokers) if snapshot.served_brokers is not None else NOT_ASKED
            migration = migration_status(snapshot, asked, snapshot.migration_advancing, readiness=False)
        live = snapshot.live_broker_ids()
        resolver = MinIsrResolver(snapshot)
        if self._basis != (live, resolver.key):
            # Liveness and the broker-level min.insync.replicas feed every topic's health: start over.
            self._reset()
            self._basis = (live, resolver.key)
        markers = snapshot.deletion_markers
        cache = self._cache
        topics = snapshot.topics
        changed = False
        for name, entry in topics.items():
            pending = name in markers
            hit = cache.get(name)
            if hit is not None and hit[1] == pending and (hit[0] is entry or hit[0] == entry):
                continue
            if hit is not None:
                self._apply(hit[2], -1)
            tally = _tally_topic(entry, live, resolver, pending)
            cache[name] = (entry, pending, tally)
            self._apply(tally, 1)
            changed = True
        if len(cache) != len(topics):
            for name in [n for n in cache if n not in topics]:
                self._apply(cache.pop(name)[2], -1)
            changed = True
        if changed or len(self._ordered) != len(cache):
            if len(self._names) != len(cache) or changed:
                self._names = sorted(cache)
            self._ordered = tuple(cache[name][2].summary for name in self._names)
        partitions, offline, urp, under_min, non_preferred, unknown = self._totals
        health = HealthCounters(
            topics=len(self._ordered),
            partitions=partitions,
            offline=offline,
            under_replicated=urp,
            under_min_isr=under_min,
            non_preferred_leaders=non_preferred,
            unreadable_znodes=len(snapshot.unreadable),
            acks_all_unknown=unknown,
            acks_all_unknown_reason=resolver.resolve(None, None).source if unknown else None,
            lacking_everywhere=tuple(sorted(b for b, n in self._lacking.items() if urp and n == urp)),
        )
        return ClusterView(
            snapshot=snapshot,
            controller=controller_summary(snapshot),
            brokers=_broker_rows(snapshot, Counter(self._replicas), Counter(self._leaders), self._last_known),
            topics=self._ordered,
            health=health,
            pending=tuple(_pending_work(snapshot, now_ms)),
            migration=migration,
        )


def topic_configs(entry: TopicEntry) -> list[tuple[str, str]]:
    """The topic's config overrides, sorted by key (empty when none or unreadable)."""
    if isinstance(entry.config, EntityConfig):
        return sorted(entry.config.config)
    return []


def broker_endpoint_text(registration: BrokerRegistration | Unreadable | None) -> str:
    """``host:port`` of the first endpoint of a registration, for event lines."""
    if isinstance(registration, BrokerRegistration) and registration.endpoints:
        return str(registration.endpoints[0]).split("://", 1)[-1]
    return "?"


def names_matching(names: Iterable[str], needle: str) -> list[str]:
    """Names containing ``needle`` (case-insensitive), for the palette's topic completion."""
    lowered = needle.lower()
    return [n for n in names if lowered in n.lower()]
