"""The check catalog in plain Python over a ``ClusterSnapshot``: the reference engine.

No JVM, no extra process: the fast path for small clusters and hosts without Java, and the reference the
Spark job is tested against (both must return identical findings). The catalog is fused into one pass
over the partitions (everything per partition, per topic and per broker is gathered in that pass) plus
small passes over brokers, admin znodes and notifications. Work that only depends on a replica list
(duplicates, unregistered brokers, racks) is memoised per distinct list: real assignments repeat a few
thousand lists over millions of partitions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field, replace

from core.brokers.metadata import ServedMetadata, ServedPartition
from core.consistency.catalog import MIGRATION_CHECKS, selected
from core.consistency.checks import REGISTRY
from core.consistency.checks.cluster import (
    BrokerRegistrationInvalid,
    ControllerNotRegistered,
    NoController,
    NotificationBacklog,
    OrphanTopicConfig,
    StaleDeletionMarker,
    UnreadableZnode,
)
from core.consistency.checks.deletions import DELETION_CODES, DeletionPending, DeletionStuck
from core.consistency.checks.migration import (
    MigrationClusterIdMissing,
    MigrationDelegationTokens,
    MigrationDeletionPending,
    MigrationLeaderlessPartition,
    MigrationProtocolTooOld,
    MigrationReassignmentPending,
)
from core.consistency.checks.partitions import (
    ControllerEpochAhead,
    DuplicateReplica,
    EmptyIsr,
    IsrNotSubsetOfReplicas,
    LeaderImbalance,
    LeaderNotInIsr,
    OfflinePartition,
    OrphanPartitionState,
    PartitionStateMissing,
    PreferredLeaderNotLeader,
    RackViolation,
    ReplicaOnUnknownBroker,
    UnderMinIsr,
    UnderReplicated,
)
from core.consistency.checks.reassignments import InvalidReassignmentRequest, ReassignmentInProgress
from core.consistency.checks.served import MetadataMismatch
from core.consistency.checks.topics import (
    InconsistentReplicationFactor,
    NonContiguousPartitions,
    TopicNameCollision,
    TopicNameInvalid,
)
from core.consistency.checks.unit import Evidence
from core.consistency.findings import Finding, make_finding
from core.consistency.params import CheckParams
from core.kafka.names import name_problem, unify_collision_chars
from core.kafka.znodes import (
    BrokerRegistration,
    ControllerInfo,
    PartitionState,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.snapshot.health import (
    MinIsr,
    MinIsrResolver,
    PartitionHealth,
    live_leader,
    partition_health,
    replication_factor,
    topic_deletion_blockers,
)
from core.snapshot.model import ClusterSnapshot, Notification, TopicEntry

DoneCallback = Callable[[tuple[str, ...]], None]
"""Called with the check ids a pass has finished, as soon as it finishes."""

_STATE_PATH = re.compile(r"/brokers/topics/([^/]+)/partitions/([0-9]+)/state")
_TOPIC_PATH = re.compile(r"/(?:brokers/topics|config/topics|admin/delete_topics)/([^/]+)")

# Which checks each pass produces, for progress reporting (each check's unit names its pass).
PARTITION_PASS = tuple(unit.id for unit in REGISTRY if unit.local_pass == "partitions")
CLUSTER_PASS = tuple(unit.id for unit in REGISTRY if unit.local_pass == "cluster")


def topic_path(topic: str) -> str:
    """``/brokers/topics/<t>``."""
    return f"/brokers/topics/{topic}"


def state_path(topic: str, partition: int) -> str:
    """``/brokers/topics/<t>/partitions/<p>/state``."""
    return f"/brokers/topics/{topic}/partitions/{partition}/state"


def located(path: str) -> tuple[str | None, int | None]:
    """The topic and partition a znode path belongs to, when it is a topic's znode."""
    if match := _STATE_PATH.fullmatch(path):
        return match.group(1), int(match.group(2))
    if match := _TOPIC_PATH.fullmatch(path):
        return match.group(1), None
    return None, None


_INT_MAX = 2**31 - 1
TOKENS = "/delegation_token/tokens"


class _ReplicaFacts:
    """What depends only on a replica list (memoised per distinct list), and how often the fast path saw
    it (``uses``: those partitions count towards their preferred leader in bulk)."""

    __slots__ = ("clean", "duplicates", "members", "offline", "preferred", "rack", "rf", "size", "uses")

    def __init__(
        self,
        replicas: tuple[int, ...],
        members: frozenset[int],
        duplicates: tuple[int, ...],
        offline: tuple[int, ...],
        rack: tuple[tuple[str, ...], int, int] | None,
    ) -> None:
        self.members = members
        self.duplicates = duplicates
        self.offline = offline
        self.rack = rack  # (replica racks, distinct racks, expected racks) when violated
        self.preferred = replicas[0] if replicas else None
        self.rf = len(members)
        self.size = len(replicas)
        self.clean = bool(replicas) and not duplicates and not offline and rack is None
        self.uses = 0


@dataclass(slots=True)
class _Topic:
    """Per-topic state of the partition pass."""

    name: str
    entry: TopicEntry
    assignment: TopicAssignment
    deleting: bool
    preferred_total: dict[int, int]
    preferred_elsewhere: dict[int, int]
    adding: dict[int, tuple[int, ...]] = field(default_factory=dict)
    removing: dict[int, tuple[int, ...]] = field(default_factory=dict)
    rfs: set[int] = field(default_factory=set)
    offline_all: set[int] = field(default_factory=set)
    reassigning: bool = False
    min_isr: dict[int | None, MinIsr] = field(default_factory=dict)  # by live leader (None: no live leader)

    def __post_init__(self) -> None:
        self.adding = dict(self.assignment.adding)
        self.removing = dict(self.assignment.removing)


def run_local(
    snapshot: ClusterSnapshot,
    served: ServedMetadata | None = None,
    params: CheckParams | None = None,
    only: Collection[str] | None = None,
    on_done: DoneCallback | None = None,
) -> list[Finding]:
    """Run the catalog (or the ``only`` ids) on ``snapshot`` and return the findings, unsorted.

    ``metadata_mismatch`` runs only when ``served`` (the brokers' metadata) is given.
    """
    return _LocalRun(snapshot, served, params or CheckParams(), selected(only, served is not None), on_done).run()


class _LocalRun:
    def __init__(
        self,
        snapshot: ClusterSnapshot,
        served: ServedMetadata | None,
        params: CheckParams,
        checks: tuple[str, ...],
        on_done: DoneCallback | None,
    ) -> None:
        self.s = snapshot
        self.served = served
        self.params = params
        self.want = frozenset(checks)
        self.on_done = on_done
        self.out: list[Finding] = []
        # Alive: registered, plus the brokers that run KRaft during a migration (serving, not in /brokers/ids).
        self.registered = frozenset(snapshot.brokers)
        self.live = snapshot.live_broker_ids()
        self.racks: dict[int, str | None] = {
            b: e.registration.rack
            for b, e in snapshot.brokers.items()
            if isinstance(e.registration, BrokerRegistration)
        }
        with_rack = [b for b, r in self.racks.items() if r is not None]
        self.racks_complete = bool(with_rack) and len(with_rack) == len(snapshot.brokers)
        self.rack_count = len({r for r in self.racks.values() if r is not None})
        self.controller_epoch = snapshot.controller_epoch if isinstance(snapshot.controller_epoch, int) else None
        self.deleting = frozenset(t for t in snapshot.deletion_markers if t in snapshot.topics)
        self.resolver = MinIsrResolver(snapshot, params.static())
        self.requests: dict[tuple[str, int], list[tuple[int, ...]]] = defaultdict(list)
        if isinstance(snapshot.reassignment, ReassignmentRequest):
            for topic, partition, replicas in snapshot.reassignment.partitions:
                self.requests[(topic, partition)].append(replicas)
        self.requested_topics = frozenset(t for t, _ in self.requests)
        self.memo: dict[tuple[int, ...], _ReplicaFacts] = {}
        self.unreadable_states: list[Unreadable] = []  # found by the partition pass

    def emit(
        self,
        record: Evidence,
        path: str,
        *,
        topic: str | None = None,
        partition: int | None = None,
        broker: int | None = None,
    ) -> None:
        if record.check in self.want:
            self.out.append(make_finding(record, path, topic=topic, partition=partition, broker=broker))

    def run(self) -> list[Finding]:
        self.partition_pass()
        self.done(PARTITION_PASS)
        self.cluster_pass()
        self.done(CLUSTER_PASS)
        if self.want & set(MIGRATION_CHECKS):
            self.migration_pass()
        self.done(MIGRATION_CHECKS)
        return self.out

    # ---- readiness for a ZooKeeper-to-KRaft migration ------------------------------------------------

    def migration_pass(self) -> None:
        s = self.s
        if s.cluster_id is None or isinstance(s.cluster_id, Unreadable):
            reason = "missing" if s.cluster_id is None else f"unreadable ({s.cluster_id.reason})"
            self.emit(MigrationClusterIdMissing(reason=reason), "/cluster/id")
        for broker_id, broker in sorted(s.brokers.items()):
            reg = broker.registration
            if isinstance(reg, BrokerRegistration) and reg.version < 5:
                self.emit(MigrationProtocolTooOld(version=reg.version), f"/brokers/ids/{broker_id}", broker=broker_id)
        moving: dict[str, set[int]] = defaultdict(set)
        for name, entry in s.topics.items():
            if isinstance(entry.assignment, TopicAssignment):
                moving[name].update(entry.assignment.reassigning_partitions)
        for topic, partition in self.requests:
            moving[topic].add(partition)
        for name in sorted(t for t, parts in moving.items() if parts):
            requested = name in self.requested_topics
            path = "/admin/reassign_partitions" if requested else topic_path(name)
            self.emit(
                MigrationReassignmentPending(partitions=tuple(sorted(moving[name])), requested=requested),
                path,
                topic=name,
            )
        for name in sorted(s.deletion_markers):
            self.emit(MigrationDeletionPending(), f"/admin/delete_topics/{name}", topic=name)
        tokens = s.delegation_tokens
        if isinstance(tokens, Unreadable):
            self.emit(MigrationDelegationTokens(reason=tokens.reason), TOKENS)
        elif tokens:
            self.emit(MigrationDelegationTokens(tokens=tokens), TOKENS)
        for topic, partition, _replicas, state in s.iter_partitions():
            if isinstance(state, PartitionState) and state.leader == -1:
                self.emit(
                    MigrationLeaderlessPartition(isr=state.isr),
                    state_path(topic, partition),
                    topic=topic,
                    partition=partition,
                )

    def done(self, checks: tuple[str, ...]) -> None:
        if self.on_done is not None:
            self.on_done(tuple(c for c in checks if c in self.want))

    # ---- cluster-wide znodes ------------------------------------------------------------------------

    def cluster_pass(self) -> None:
        s = self.s
        registered = tuple(sorted(self.registered))
        if s.controller is None:
            self.emit(NoController(registered_brokers=registered), "/controller")
        elif isinstance(s.controller, ControllerInfo):
            c = s.controller
            if not c.is_kraft and c.broker_id not in self.registered:
                self.emit(
                    ControllerNotRegistered(controller=c.broker_id, registered_brokers=registered),
                    "/controller",
                    broker=c.broker_id,
                )
        self.broker_pass()
        self.unreadable_pass()
        self.notifications("/isr_change_notification", s.isr_change_notifications, from_newest=False)
        self.notifications("/log_dir_event_notification", s.log_dir_event_notifications, from_newest=False)
        self.notifications("/config/changes", s.config_change_notifications, from_newest=True)
        for name in sorted(s.deletion_markers):
            if name not in s.topics:
                self.emit(StaleDeletionMarker(), f"/admin/delete_topics/{name}", topic=name)
        for name in sorted(s.topic_configs):
            if name not in s.topics:
                self.emit(OrphanTopicConfig(), f"/config/topics/{name}", topic=name)

    def broker_pass(self) -> None:
        endpoints: dict[str, list[int]] = defaultdict(list)
        for broker_id, entry in self.s.brokers.items():
            reg = entry.registration
            if isinstance(reg, BrokerRegistration):
                for address in sorted({f"{e.host}:{e.port}" for e in reg.endpoints if e.host}):
                    endpoints[address].append(broker_id)
        shared = {address: ids for address, ids in endpoints.items() if len(ids) > 1}
        for broker_id, entry in sorted(self.s.brokers.items()):
            path = f"/brokers/ids/{broker_id}"
            reg = entry.registration
            if isinstance(reg, Unreadable):
                self.emit(
                    BrokerRegistrationInvalid(problems=("unreadable",), reason=reg.reason), path, broker=broker_id
                )
                continue
            problems = registration_problems(reg)
            mine = sorted(a for a, ids in shared.items() if broker_id in ids)
            others = sorted({other for a in mine for other in shared[a] if other != broker_id})
            if mine:
                problems.append("duplicate_endpoint")
            if problems:
                self.emit(
                    BrokerRegistrationInvalid(
                        problems=tuple(problems),
                        version=reg.version,
                        duplicate_endpoints=tuple(mine) if mine else None,
                        shared_with=tuple(others) if others else None,
                    ),
                    path,
                    broker=broker_id,
                )
        with_rack = sorted(b for b, r in self.racks.items() if r is not None)
        without = sorted(b for b, r in self.racks.items() if r is None)
        if with_rack and without:
            self.emit(
                RackViolation(brokers_with_rack=tuple(with_rack), brokers_without_rack=tuple(without)), "/brokers/ids"
            )

    def unreadable_pass(self) -> None:
        s = self.s
        seen: set[str] = set()
        candidates: list[object] = [
            s.cluster_id,
            s.controller,
            s.controller_epoch,
            s.reassignment,
            s.preferred_election,
            s.feature,
            s.migration,
            s.producer_id_block,
            *s.topic_configs.values(),
            *s.broker_configs.values(),
        ]
        for notes in (s.isr_change_notifications, s.log_dir_event_notifications, s.config_change_notifications):
            candidates.extend(n.value for n in notes)
        candidates.extend(entry.assignment for entry in s.topics.values())
        candidates.extend(self.unreadable_states)
        candidates.extend(s.unreadable)
        broker_paths = {f"/brokers/ids/{b}" for b in s.brokers}
        for value in candidates:
            if not isinstance(value, Unreadable) or value.path in seen or value.path in broker_paths:
                continue
            seen.add(value.path)
            topic, partition = located(value.path)
            self.emit(UnreadableZnode(reason=value.reason), value.path, topic=topic, partition=partition)

    def notifications(self, parent: str, notes: tuple[Notification, ...], from_newest: bool) -> None:
        if not notes:
            return
        reference = max(n.ctime_ms for n in notes) if from_newest else self.s.taken_at_ms
        limit = self.params.notification_max_age_ms
        stale = [n for n in notes if reference - n.ctime_ms > limit]
        if stale:
            oldest = min(n.ctime_ms for n in stale)
            self.emit(
                NotificationBacklog(
                    stale=len(stale),
                    total=len(notes),
                    oldest_age_s=(reference - oldest) // 1000,
                    measured_from="newest" if from_newest else "snapshot",
                ),
                parent,
            )

    # ---- topics and partitions, one fused pass -----------------------------------------------------

    def partition_pass(self) -> None:
        s = self.s
        collisions: dict[str, list[str]] = defaultdict(list)
        for name in s.topics:
            collisions[unify_collision_chars(name)].append(name)
        preferred_total: dict[int, int] = defaultdict(int)
        preferred_elsewhere: dict[int, int] = defaultdict(int)
        for name in sorted(s.topics):
            entry = s.topics[name]
            problem = name_problem(name)
            if problem is not None:
                self.emit(TopicNameInvalid(reason=problem), topic_path(name), topic=name)
            group = collisions[unify_collision_chars(name)]
            if len(group) > 1:
                others = tuple(sorted(n for n in group if n != name))
                self.emit(TopicNameCollision(colliding_with=others), topic_path(name), topic=name)
            self.topic(name, entry, preferred_total, preferred_elsewhere)
        for facts in self.memo.values():
            if facts.uses and facts.preferred is not None:
                preferred_total[facts.preferred] += facts.uses
        for broker in sorted(self.live):
            total = preferred_total.get(broker, 0)
            elsewhere = preferred_elsewhere.get(broker, 0)
            if total and elsewhere * 100 > self.params.imbalance_percent * total:
                self.emit(
                    LeaderImbalance(
                        preferred_partitions=total,
                        led_elsewhere=elsewhere,
                        threshold_percent=self.params.imbalance_percent,
                    ),
                    f"/brokers/ids/{broker}",
                    broker=broker,
                )
        self.request_pass()
        if self.served is not None:
            self.served_pass(self.served)

    def topic(
        self, name: str, entry: TopicEntry, preferred_total: dict[int, int], preferred_elsewhere: dict[int, int]
    ) -> None:
        a = entry.assignment
        deleting = name in self.deleting
        if not isinstance(a, TopicAssignment):
            if deleting:
                self.deletion(name, set(), reassigning=False)
            return
        t = _Topic(name, entry, a, deleting, preferred_total, preferred_elsewhere)
        t.reassigning = name in self.requested_topics
        states_get = entry.states.get
        memo = self.memo
        memo_get = memo.get
        facts_of = self.facts
        slow = self.partition
        if a.adding or a.removing or deleting or t.reassigning:
            for p, replicas in a.partitions:
                facts = memo_get(replicas)
                if facts is None:
                    facts = memo[replicas] = facts_of(replicas)
                slow(t, p, replicas, facts, states_get(p))
        else:
            # The common case, kept tight: a healthy partition (ISR is exactly the replicas, led by the
            # preferred replica, every replica registered, no duplicates, racks fine, at least
            # min.insync.replicas of them or that value unknown) only counts towards its preferred leader
            # and the topic's replication factors: partition_health finds nothing there.
            epoch = self.controller_epoch if self.controller_epoch is not None else _INT_MAX
            min_isr_of = self.min_isr
            rfs = t.rfs
            for p, replicas in a.partitions:
                facts = memo_get(replicas)
                if facts is None:
                    facts = memo[replicas] = facts_of(replicas)
                st = states_get(p)
                if (
                    facts.clean
                    and type(st) is PartitionState
                    and st.isr == replicas
                    and st.leader == facts.preferred
                    and st.controller_epoch <= epoch
                    and ((v := min_isr_of(t, st.leader).value) is None or facts.size >= v)
                ):
                    facts.uses += 1
                    if facts.rf not in rfs:
                        rfs.add(facts.rf)
                    continue
                slow(t, p, replicas, facts, st)
        self.topic_end(t)

    def partition(self, t: _Topic, p: int, replicas: tuple[int, ...], facts: _ReplicaFacts, st: object) -> None:
        """Every partition check for one partition (the slow path)."""
        emit = self.emit
        name = t.name
        live = self.live
        add = t.adding.get(p, ())
        rem = t.removing.get(p, ())
        members = facts.members
        t.rfs.add(len(members.difference(rem)) if rem else facts.rf)
        offline = facts.offline
        if offline:
            t.offline_all.update(offline)
        if facts.duplicates:
            emit(
                DuplicateReplica(replicas=replicas, duplicates=facts.duplicates),
                topic_path(name),
                topic=name,
                partition=p,
            )
        if facts.rack is not None:
            racks, distinct, expected = facts.rack
            emit(
                RackViolation(replicas=replicas, replica_racks=racks, distinct_racks=distinct, expected_racks=expected),
                topic_path(name),
                topic=name,
                partition=p,
            )
        requested = self.requests.get((name, p))
        if add or rem or requested:
            t.reassigning = True
            self.reassignment(name, p, replicas, members, add, rem, requested)
        preferred = facts.preferred if not t.deleting else None
        if preferred is not None:
            t.preferred_total[preferred] += 1
        h = self.health(t, p, replicas, add, offline, st)
        if type(st) is not PartitionState:
            if st is None:
                emit(
                    PartitionStateMissing(replicas=replicas, offline_replicas=offline),
                    state_path(name, p),
                    topic=name,
                    partition=p,
                )
            elif isinstance(st, Unreadable):
                self.unreadable_states.append(st)  # reported by the unreadable pass
            return
        leader = st.leader
        isr = st.isr
        path = state_path(name, p)
        if preferred is not None and leader != preferred and leader in live:
            # Offline partitions are reported as such, not as led elsewhere (Kafka counts them too).
            t.preferred_elsewhere[preferred] += 1
        epoch = self.controller_epoch
        if epoch is not None and st.controller_epoch > epoch:
            emit(
                ControllerEpochAhead(state_controller_epoch=st.controller_epoch, controller_epoch=epoch),
                path,
                topic=name,
                partition=p,
            )
        if not isr:
            emit(EmptyIsr(leader=leader, replicas=replicas), path, topic=name, partition=p)
            return
        if leader >= 0 and leader not in isr:
            emit(LeaderNotInIsr(leader=leader, isr=isr), path, topic=name, partition=p)
        if not members.issuperset(isr):
            strangers = tuple(dict.fromkeys(b for b in isr if b not in members))
            emit(
                IsrNotSubsetOfReplicas(isr=isr, replicas=replicas, not_replicas=strangers),
                path,
                topic=name,
                partition=p,
            )
        if t.deleting or h.offline is not None:
            return
        if not h.under_replicated and not h.under_min_isr:
            for broker in offline:
                emit(
                    ReplicaOnUnknownBroker(replicas=replicas), topic_path(name), topic=name, partition=p, broker=broker
                )
        if preferred is not None and leader != preferred:
            emit(
                PreferredLeaderNotLeader(
                    leader=leader, preferred_live=preferred in live, preferred_in_isr=preferred in isr
                ),
                path,
                topic=name,
                partition=p,
                broker=preferred,
            )

    def min_isr(self, t: _Topic, leader: int | None) -> MinIsr:
        """The ``min.insync.replicas`` a live ``leader`` (None: none) applies to ``t``, memoised per topic."""
        hit = t.min_isr.get(leader)
        if hit is None:
            hit = t.min_isr[leader] = self.resolver.resolve(t.entry.config, leader)
        return hit

    def health(
        self, t: _Topic, p: int, replicas: tuple[int, ...], add: tuple[int, ...], offline: tuple[int, ...], st: object
    ) -> PartitionHealth:
        """``partition_health`` for one partition, emitted as offline / under-replicated / under-min-ISR
        findings: the sets ``kzc describe`` and the console count."""
        state = st if isinstance(st, PartitionState | Unreadable) else None
        h = partition_health(replicas, add, state, self.live, self.min_isr(t, live_leader(state, self.live)))
        if h.offline is None and not h.under_replicated and not h.under_min_isr:
            return h
        name = t.name
        path = state_path(name, p)
        leader = state.leader if isinstance(state, PartitionState) else None
        queued = True if t.deleting else None
        if h.offline is not None:
            self.emit(
                OfflinePartition(
                    leader=leader, isr=h.isr, replicas=replicas, offline_replicas=offline, queued_for_deletion=queued
                ),
                path,
                topic=name,
                partition=p,
            )
        if h.under_replicated:
            self.emit(
                UnderReplicated(
                    isr=h.isr,
                    replicas=replicas,
                    replication_factor=replication_factor(replicas, add),
                    offline_replicas=offline,
                    queued_for_deletion=queued,
                ),
                path,
                topic=name,
                partition=p,
            )
        if h.under_min_isr:
            self.emit(
                UnderMinIsr(
                    isr=h.isr,
                    replicas=replicas,
                    min_insync_replicas=h.min_isr.value,
                    min_isr_source=h.min_isr.source,
                    has_live_leader=h.offline is None,
                    offline_replicas=offline,
                    queued_for_deletion=queued,
                ),
                path,
                topic=name,
                partition=p,
            )
        return h

    def topic_end(self, t: _Topic) -> None:
        """Topic-wide checks once all its partitions were seen."""
        emit = self.emit
        name = t.name
        a = t.assignment
        states = t.entry.states
        assigned = a.partition_ids
        n_assigned = len(assigned)
        if len(states) > n_assigned:  # states hold every assigned partition (TopicEntry), so extras are orphans
            assigned_set = set(assigned)
            for p in sorted(states.keys() - assigned_set):
                state = states[p]
                if isinstance(state, Unreadable):
                    self.unreadable_states.append(state)
                where = state_path(name, p) if state is not None else f"{topic_path(name)}/partitions/{p}"
                emit(OrphanPartitionState(partition_count=n_assigned), where, topic=name, partition=p)
        if assigned != tuple(range(n_assigned)):
            ids = set(assigned)
            emit(
                NonContiguousPartitions(
                    partition_count=n_assigned,
                    missing=tuple(i for i in range(n_assigned) if i not in ids),
                    unexpected=tuple(i for i in assigned if i >= n_assigned),
                ),
                topic_path(name),
                topic=name,
            )
        if len(t.rfs) > 1:
            emit(
                InconsistentReplicationFactor(
                    replication_factors=tuple(sorted(t.rfs)),
                    partition_0_replication_factor=len(a.replicas(0)) if 0 in a.partition_ids else None,
                ),
                topic_path(name),
                topic=name,
            )
        if t.deleting:
            self.deletion(name, t.offline_all, t.reassigning)

    def facts(self, replicas: tuple[int, ...]) -> _ReplicaFacts:
        members = frozenset(replicas)
        duplicates: tuple[int, ...] = ()
        if len(members) != len(replicas):
            duplicates = tuple(sorted(b for b in members if replicas.count(b) > 1))
        offline = tuple(dict.fromkeys(b for b in replicas if b not in self.live))
        rack = None
        # Racks are known of registered brokers only (a KRaft broker's is not in ZooKeeper).
        if self.racks_complete and replicas and not offline and self.registered.issuperset(replicas):
            distinct = tuple(dict.fromkeys(replicas))
            racks = tuple(str(self.racks.get(b)) for b in distinct)
            expected = min(len(distinct), self.rack_count)
            if len(set(racks)) < expected:
                rack = (racks, len(set(racks)), expected)
        return _ReplicaFacts(replicas, members, duplicates, offline, rack)

    def reassignment(
        self,
        name: str,
        p: int,
        replicas: tuple[int, ...],
        members: frozenset[int],
        add: tuple[int, ...],
        rem: tuple[int, ...],
        requested: list[tuple[int, ...]] | None,
    ) -> None:
        problems = []
        if not members.issuperset(add):
            problems.append("adding_not_in_replicas")
        if not members.issuperset(rem):
            problems.append("removing_not_in_replicas")
        if set(add) & set(rem):
            problems.append("adding_and_removing")
        if problems:
            self.emit(
                InvalidReassignmentRequest(replicas=replicas, adding=add, removing=rem, problems=tuple(problems)),
                topic_path(name),
                topic=name,
                partition=p,
            )
        self.emit(
            ReassignmentInProgress(
                replicas=replicas, adding=add, removing=rem, requested=requested[-1] if requested else None
            ),
            topic_path(name),
            topic=name,
            partition=p,
        )

    def request_problems(
        self, topic: str, partition: int, replicas: tuple[int, ...]
    ) -> tuple[tuple[str, ...], tuple[int, ...], tuple[int, ...]]:
        """(problems, duplicated ids, unregistered ids) of one /admin/reassign_partitions entry."""
        problems = []
        entry = self.s.topics.get(topic)
        if entry is None:
            problems.append("missing_topic")
        elif isinstance(entry.assignment, TopicAssignment) and partition not in entry.assignment.partition_ids:
            problems.append("missing_partition")
        if not replicas:
            problems.append("empty")
        duplicates = tuple(sorted(b for b in set(replicas) if replicas.count(b) > 1))
        if duplicates:
            problems.append("duplicates")
        if any(b < 0 for b in replicas):
            problems.append("negative_ids")
        unknown = tuple(dict.fromkeys(b for b in replicas if b >= 0 and b not in self.live))
        if unknown:
            problems.append("unknown_brokers")
        return tuple(problems), duplicates, unknown

    def request_pass(self) -> None:
        if not isinstance(self.s.reassignment, ReassignmentRequest):
            return
        for topic, partition, replicas in self.s.reassignment.partitions:
            problems, duplicates, unknown = self.request_problems(topic, partition, replicas)
            if problems:
                self.emit(
                    InvalidReassignmentRequest(
                        requested=replicas,
                        problems=problems,
                        duplicates=duplicates or None,
                        unknown_brokers=unknown or None,
                    ),
                    "/admin/reassign_partitions",
                    topic=topic,
                    partition=partition,
                )

    def deletion(self, name: str, offline: Iterable[int], reassigning: bool) -> None:
        # The blockers are core.snapshot.health.deletion_blockers (as describe and the console list them),
        # under this catalog's codes; the 0.8.1 to 0.10.x election rule is not applied by the checks.
        blockers = topic_deletion_blockers(self.s, name, old_rules=False)
        reasons = [DELETION_CODES[r.code] for r in blockers if r.code in DELETION_CODES]
        offline_ids = tuple(sorted(set(offline)))
        marker = self.s.deletion_markers[name]
        age_ms = self.s.taken_at_ms - marker.ctime_ms
        if age_ms > self.params.deletion_stuck_after_ms:
            reasons.append("old_marker")
        path = f"/admin/delete_topics/{name}"
        if reasons:
            self.emit(
                DeletionStuck(reasons=tuple(reasons), offline_replicas=offline_ids or None, queued_s=age_ms // 1000),
                path,
                topic=name,
            )
        else:
            self.emit(DeletionPending(queued_s=age_ms // 1000), path, topic=name)

    # ---- what the brokers serve ---------------------------------------------------------------------

    def served_pass(self, served: ServedMetadata) -> None:
        if served.brokers != self.live:
            self.emit(
                MetadataMismatch(
                    differs=("brokers",),
                    zk_brokers=tuple(sorted(self.live)),
                    served_brokers=tuple(sorted(served.brokers)),
                ),
                "/brokers/ids",
            )
        for name in sorted(set(served.topics) - set(self.s.topics)):
            self.emit(MetadataMismatch(differs=("topic",), side="brokers"), topic_path(name), topic=name)
        for name in sorted(self.s.topics):
            entry = self.s.topics[name]
            a = entry.assignment
            if name in self.deleting or not isinstance(a, TopicAssignment):
                continue
            with_state = [p for p, _ in a.partitions if type(entry.states.get(p)) is PartitionState]
            topic_served = served.topics.get(name)
            if topic_served is None:
                if with_state:
                    self.emit(MetadataMismatch(differs=("topic",), side="zookeeper"), topic_path(name), topic=name)
                continue
            for p in with_state:
                self.compare_partition(name, p, a.replicas(p), entry.states[p], topic_served.get(p))
            for p in sorted(set(topic_served) - set(a.partition_ids)):
                self.emit(
                    MetadataMismatch(differs=("partition",), side="brokers"),
                    state_path(name, p),
                    topic=name,
                    partition=p,
                )

    def compare_partition(
        self, name: str, p: int, replicas: tuple[int, ...], state: object, part: ServedPartition | None
    ) -> None:
        assert isinstance(state, PartitionState)
        path = state_path(name, p)
        if part is None:
            self.emit(MetadataMismatch(differs=("partition",), side="zookeeper"), path, topic=name, partition=p)
            return
        record = MetadataMismatch(differs=())
        if state.leader != part.leader:
            record = replace(
                record, differs=(*record.differs, "leader"), zk_leader=state.leader, served_leader=part.leader
            )
        if sorted(state.isr) != sorted(part.isr):
            record = replace(
                record,
                differs=(*record.differs, "isr"),
                zk_isr=tuple(sorted(state.isr)),
                served_isr=tuple(sorted(part.isr)),
            )
        # As sets: 0.10.x brokers keep a partition's replicas as a set and serve them in another order.
        if set(replicas) != set(part.replicas):
            record = replace(
                record, differs=(*record.differs, "replicas"), zk_replicas=replicas, served_replicas=part.replicas
            )
        if record.differs:
            self.emit(record, path, topic=name, partition=p)


def registration_problems(reg: BrokerRegistration) -> list[str]:
    """Fields that do not match the registration's version (zk-layout §2.3)."""
    problems = []
    if reg.rack is not None and reg.version < 3:
        problems.append("rack_before_v3")
    if reg.listener_security_protocol_map is not None and reg.version < 4:
        problems.append("protocol_map_before_v4")
    if reg.listener_security_protocol_map is None and reg.version >= 4:
        problems.append("no_protocol_map")
    if reg.features is not None and reg.version < 5:
        problems.append("features_before_v5")
    if reg.features is None and reg.version >= 5:
        problems.append("no_features")
    return problems
