"""The check catalog in plain Python over a ``ClusterSnapshot``: the reference engine.

No JVM, no extra process: the fast path for small clusters and hosts without Java, and the reference the
Spark job is tested against (both must return identical findings). The catalog is fused into one pass
over the partitions (everything per partition, per topic and per broker is gathered in that pass) plus
small passes over brokers, admin znodes and notifications. Work that only depends on a replica list
(duplicates, unregistered brokers, racks) is memoised per distinct list: real assignments repeat a few
thousand lists over millions of partitions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field

from core.brokers.metadata import ServedMetadata, ServedPartition
from core.consistency.catalog import CHECK_IDS, MIGRATION_CHECKS, selected
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
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CLUSTER_ID,
    CONFIG_CHANGES,
    CONTROLLER,
    DELEGATION_TOKENS,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    REASSIGN_PARTITIONS,
    broker_path,
    deletion_marker_path,
    located,
    partition_path,
    state_path,
    topic_config_path,
    topic_path,
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

# The check's reason codes for core.snapshot.health.deletion_blockers' codes (docs/checks.md).
DELETION_CODES = {
    "no_controller": "no_controller",
    "assignment_unreadable": "assignment_unreadable",
    "replica_on_dead_broker": "offline_replicas",
    "reassignment_in_progress": "reassignment",
}

DoneCallback = Callable[[tuple[str, ...]], None]
"""Called with the check ids a pass has finished, as soon as it finishes."""


# Which checks each pass produces, for progress reporting.
CLUSTER_PASS = (
    "no_controller",
    "controller_not_registered",
    "broker_registration_invalid",
    "unreadable_znode",
    "notification_backlog",
    "stale_deletion_marker",
    "orphan_topic_config",
)
PARTITION_PASS = tuple(c for c in CHECK_IDS if c not in CLUSTER_PASS and c not in MIGRATION_CHECKS)


_INT_MAX = 2**31 - 1


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
        check: str,
        path: str,
        *,
        topic: str | None = None,
        partition: int | None = None,
        broker: int | None = None,
        **evidence: object,
    ) -> None:
        if check in self.want:
            self.out.append(
                make_finding(check, path, topic=topic, partition=partition, broker=broker, evidence=evidence)
            )

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
            self.emit("migration_cluster_id_missing", CLUSTER_ID, reason=reason)
        for broker_id, broker in sorted(s.brokers.items()):
            reg = broker.registration
            if isinstance(reg, BrokerRegistration) and reg.version < 5:
                self.emit(
                    "migration_protocol_too_old", broker_path(broker_id), broker=broker_id, version=reg.version
                )
        moving: dict[str, set[int]] = defaultdict(set)
        for name, entry in s.topics.items():
            if isinstance(entry.assignment, TopicAssignment):
                moving[name].update(entry.assignment.reassigning_partitions)
        for topic, partition in self.requests:
            moving[topic].add(partition)
        for name in sorted(t for t, parts in moving.items() if parts):
            requested = name in self.requested_topics
            path = REASSIGN_PARTITIONS if requested else topic_path(name)
            self.emit(
                "migration_reassignment_pending",
                path,
                topic=name,
                partitions=tuple(sorted(moving[name])),
                requested=requested,
            )
        for name in sorted(s.deletion_markers):
            self.emit("migration_deletion_pending", deletion_marker_path(name), topic=name)
        tokens = s.delegation_tokens
        if isinstance(tokens, Unreadable):
            self.emit("migration_delegation_tokens", DELEGATION_TOKENS, reason=tokens.reason)
        elif tokens:
            self.emit("migration_delegation_tokens", DELEGATION_TOKENS, tokens=tokens)
        for topic, partition, _replicas, state in s.iter_partitions():
            if isinstance(state, PartitionState) and state.leader == -1:
                self.emit(
                    "migration_leaderless_partition",
                    state_path(topic, partition),
                    topic=topic,
                    partition=partition,
                    isr=state.isr,
                )

    def done(self, checks: tuple[str, ...]) -> None:
        if self.on_done is not None:
            self.on_done(tuple(c for c in checks if c in self.want))

    # ---- cluster-wide znodes ------------------------------------------------------------------------

    def cluster_pass(self) -> None:
        s = self.s
        registered = tuple(sorted(self.registered))
        if s.controller is None:
            self.emit("no_controller", CONTROLLER, registered_brokers=registered)
        elif isinstance(s.controller, ControllerInfo):
            c = s.controller
            if not c.is_kraft and c.broker_id not in self.registered:
                self.emit(
                    "controller_not_registered",
                    CONTROLLER,
                    broker=c.broker_id,
                    controller=c.broker_id,
                    registered_brokers=registered,
                )
        self.broker_pass()
        self.unreadable_pass()
        self.notifications(ISR_CHANGE_NOTIFICATIONS, s.isr_change_notifications, from_newest=False)
        self.notifications(LOG_DIR_EVENT_NOTIFICATIONS, s.log_dir_event_notifications, from_newest=False)
        self.notifications(CONFIG_CHANGES, s.config_change_notifications, from_newest=True)
        for name in sorted(s.deletion_markers):
            if name not in s.topics:
                self.emit("stale_deletion_marker", deletion_marker_path(name), topic=name)
        for name in sorted(s.topic_configs):
            if name not in s.topics:
                self.emit("orphan_topic_config", topic_config_path(name), topic=name)

    def broker_pass(self) -> None:
        endpoints: dict[str, list[int]] = defaultdict(list)
        for broker_id, entry in self.s.brokers.items():
            reg = entry.registration
            if isinstance(reg, BrokerRegistration):
                for address in sorted({f"{e.host}:{e.port}" for e in reg.endpoints if e.host}):
                    endpoints[address].append(broker_id)
        shared = {address: ids for address, ids in endpoints.items() if len(ids) > 1}
        for broker_id, entry in sorted(self.s.brokers.items()):
            path = broker_path(broker_id)
            reg = entry.registration
            if isinstance(reg, Unreadable):
                self.emit("broker_registration_invalid", path, broker=broker_id, problems=("unreadable",),
                          reason=reg.reason)  # fmt: skip
                continue
            problems = registration_problems(reg)
            mine = sorted(a for a, ids in shared.items() if broker_id in ids)
            others = sorted({other for a in mine for other in shared[a] if other != broker_id})
            if mine:
                problems.append("duplicate_endpoint")
            if problems:
                self.emit(
                    "broker_registration_invalid",
                    path,
                    broker=broker_id,
                    problems=tuple(problems),
                    version=reg.version,
                    duplicate_endpoints=tuple(mine) if mine else None,
                    shared_with=tuple(others) if others else None,
                )
        with_rack = sorted(b for b, r in self.racks.items() if r is not None)
        without = sorted(b for b, r in self.racks.items() if r is None)
        if with_rack and without:
            self.emit("rack_violation", BROKER_IDS, brokers_with_rack=tuple(with_rack),
                      brokers_without_rack=tuple(without))  # fmt: skip

    def unreadable_pass(self) -> None:
        s = self.s
        seen: set[str] = set()
        candidates: list[object] = [
            s.cluster_id, s.controller, s.controller_epoch, s.reassignment, s.preferred_election, s.feature,
            s.migration, s.producer_id_block, *s.topic_configs.values(), *s.broker_configs.values(),
        ]  # fmt: skip
        for notes in (s.isr_change_notifications, s.log_dir_event_notifications, s.config_change_notifications):
            candidates.extend(n.value for n in notes)
        candidates.extend(entry.assignment for entry in s.topics.values())
        candidates.extend(self.unreadable_states)
        candidates.extend(s.unreadable)
        broker_paths = {broker_path(b) for b in s.brokers}
        for value in candidates:
            if not isinstance(value, Unreadable) or value.path in seen or value.path in broker_paths:
                continue
            seen.add(value.path)
            topic, partition = located(value.path)
            self.emit("unreadable_znode", value.path, topic=topic, partition=partition, reason=value.reason)

    def notifications(self, parent: str, notes: tuple[Notification, ...], from_newest: bool) -> None:
        if not notes:
            return
        reference = max(n.ctime_ms for n in notes) if from_newest else self.s.taken_at_ms
        limit = self.params.notification_max_age_ms
        stale = [n for n in notes if reference - n.ctime_ms > limit]
        if stale:
            oldest = min(n.ctime_ms for n in stale)
            self.emit(
                "notification_backlog",
                parent,
                stale=len(stale),
                total=len(notes),
                oldest_age_s=(reference - oldest) // 1000,
                measured_from="newest" if from_newest else "snapshot",
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
                self.emit("topic_name_invalid", topic_path(name), topic=name, reason=problem)
            group = collisions[unify_collision_chars(name)]
            if len(group) > 1:
                others = tuple(sorted(n for n in group if n != name))
                self.emit("topic_name_collision", topic_path(name), topic=name, colliding_with=others)
            self.topic(name, entry, preferred_total, preferred_elsewhere)
        for facts in self.memo.values():
            if facts.uses and facts.preferred is not None:
                preferred_total[facts.preferred] += facts.uses
        for broker in sorted(self.live):
            total = preferred_total.get(broker, 0)
            elsewhere = preferred_elsewhere.get(broker, 0)
            if total and elsewhere * 100 > self.params.imbalance_percent * total:
                self.emit(
                    "leader_imbalance",
                    broker_path(broker),
                    broker=broker,
                    preferred_partitions=total,
                    led_elsewhere=elsewhere,
                    threshold_percent=self.params.imbalance_percent,
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
            emit("duplicate_replica", topic_path(name), topic=name, partition=p, replicas=replicas,
                 duplicates=facts.duplicates)  # fmt: skip
        if facts.rack is not None:
            racks, distinct, expected = facts.rack
            emit("rack_violation", topic_path(name), topic=name, partition=p, replicas=replicas,
                 replica_racks=racks, distinct_racks=distinct, expected_racks=expected)  # fmt: skip
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
                emit("partition_state_missing", state_path(name, p), topic=name, partition=p,
                     replicas=replicas, offline_replicas=offline)  # fmt: skip
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
            emit("controller_epoch_ahead", path, topic=name, partition=p,
                 state_controller_epoch=st.controller_epoch, controller_epoch=epoch)  # fmt: skip
        if not isr:
            emit("empty_isr", path, topic=name, partition=p, leader=leader, replicas=replicas)
            return
        if leader >= 0 and leader not in isr:
            emit("leader_not_in_isr", path, topic=name, partition=p, leader=leader, isr=isr)
        if not members.issuperset(isr):
            strangers = tuple(dict.fromkeys(b for b in isr if b not in members))
            emit("isr_not_subset_of_replicas", path, topic=name, partition=p, isr=isr, replicas=replicas,
                 not_replicas=strangers)  # fmt: skip
        if t.deleting or h.offline is not None:
            return
        if not h.under_replicated and not h.under_min_isr:
            for broker in offline:
                emit("replica_on_unknown_broker", topic_path(name), topic=name, partition=p, broker=broker,
                     replicas=replicas)  # fmt: skip
        if preferred is not None and leader != preferred:
            emit("preferred_leader_not_leader", path, topic=name, partition=p, broker=preferred, leader=leader,
                 preferred_live=preferred in live, preferred_in_isr=preferred in isr)  # fmt: skip

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
            self.emit("offline_partition", path, topic=name, partition=p, leader=leader, isr=h.isr, replicas=replicas,
                      offline_replicas=offline, queued_for_deletion=queued)  # fmt: skip
        if h.under_replicated:
            self.emit("under_replicated", path, topic=name, partition=p, isr=h.isr, replicas=replicas,
                      replication_factor=replication_factor(replicas, add), offline_replicas=offline,
                      queued_for_deletion=queued)  # fmt: skip
        if h.under_min_isr:
            self.emit("under_min_isr", path, topic=name, partition=p, isr=h.isr, replicas=replicas,
                      min_insync_replicas=h.min_isr.value, min_isr_source=h.min_isr.source,
                      has_live_leader=h.offline is None, offline_replicas=offline,
                      queued_for_deletion=queued)  # fmt: skip
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
                where = state_path(name, p) if state is not None else partition_path(name, p)
                emit("orphan_partition_state", where, topic=name, partition=p, partition_count=n_assigned)
        if assigned != tuple(range(n_assigned)):
            ids = set(assigned)
            emit(
                "non_contiguous_partitions",
                topic_path(name),
                topic=name,
                partition_count=n_assigned,
                missing=tuple(i for i in range(n_assigned) if i not in ids),
                unexpected=tuple(i for i in assigned if i >= n_assigned),
            )
        if len(t.rfs) > 1:
            emit(
                "inconsistent_replication_factor",
                topic_path(name),
                topic=name,
                replication_factors=tuple(sorted(t.rfs)),
                partition_0_replication_factor=len(a.replicas(0)) if 0 in a.partition_ids else None,
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
            self.emit("invalid_reassignment_request", topic_path(name), topic=name, partition=p,
                      replicas=replicas, adding=add, removing=rem, problems=tuple(problems))  # fmt: skip
        self.emit(
            "reassignment_in_progress",
            topic_path(name),
            topic=name,
            partition=p,
            replicas=replicas,
            adding=add,
            removing=rem,
            requested=requested[-1] if requested else None,  # the controller reads the entries into a map
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
                    "invalid_reassignment_request",
                    REASSIGN_PARTITIONS,
                    topic=topic,
                    partition=partition,
                    requested=replicas,
                    problems=problems,
                    duplicates=duplicates or None,
                    unknown_brokers=unknown or None,
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
        path = deletion_marker_path(name)
        if reasons:
            self.emit("deletion_stuck", path, topic=name, reasons=tuple(reasons), offline_replicas=offline_ids or None,
                      queued_s=age_ms // 1000)  # fmt: skip
        else:
            self.emit("deletion_pending", path, topic=name, queued_s=age_ms // 1000)

    # ---- what the brokers serve ---------------------------------------------------------------------

    def served_pass(self, served: ServedMetadata) -> None:
        if served.brokers != self.live:
            self.emit("metadata_mismatch", BROKER_IDS, differs=("brokers",),
                      zk_brokers=tuple(sorted(self.live)), served_brokers=tuple(sorted(served.brokers)))  # fmt: skip
        for name in sorted(set(served.topics) - set(self.s.topics)):
            self.emit("metadata_mismatch", topic_path(name), topic=name, differs=("topic",), side="brokers")
        for name in sorted(self.s.topics):
            entry = self.s.topics[name]
            a = entry.assignment
            if name in self.deleting or not isinstance(a, TopicAssignment):
                continue
            with_state = [p for p, _ in a.partitions if type(entry.states.get(p)) is PartitionState]
            topic_served = served.topics.get(name)
            if topic_served is None:
                if with_state:
                    self.emit("metadata_mismatch", topic_path(name), topic=name, differs=("topic",), side="zookeeper")
                continue
            for p in with_state:
                self.compare_partition(name, p, a.replicas(p), entry.states[p], topic_served.get(p))
            for p in sorted(set(topic_served) - set(a.partition_ids)):
                self.emit("metadata_mismatch", state_path(name, p), topic=name, partition=p, differs=("partition",),
                          side="brokers")  # fmt: skip

    def compare_partition(
        self, name: str, p: int, replicas: tuple[int, ...], state: object, part: ServedPartition | None
    ) -> None:
        assert isinstance(state, PartitionState)
        path = state_path(name, p)
        if part is None:
            self.emit("metadata_mismatch", path, topic=name, partition=p, differs=("partition",), side="zookeeper")
            return
        evidence: dict[str, object] = {}
        differs = []
        if state.leader != part.leader:
            differs.append("leader")
            evidence.update(zk_leader=state.leader, served_leader=part.leader)
        if sorted(state.isr) != sorted(part.isr):
            differs.append("isr")
            evidence.update(zk_isr=tuple(sorted(state.isr)), served_isr=tuple(sorted(part.isr)))
        if replicas != part.replicas:
            differs.append("replicas")
            evidence.update(zk_replicas=replicas, served_replicas=part.replicas)
        if differs and "metadata_mismatch" in self.want:
            evidence["differs"] = tuple(differs)
            self.out.append(make_finding("metadata_mismatch", path, topic=name, partition=p, evidence=evidence))


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
