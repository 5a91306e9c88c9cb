"""The check catalog in plain Python over a ``ClusterSnapshot``: the reference engine.

No JVM, no extra process: the fast path for small clusters and hosts without Java, and the reference the
Spark job is tested against (both must return identical findings). The engine only drives: it derives
the facts the checks read (``core.consistency.checks.facts``) and calls each registered check's Python
rule (``core.consistency.checks``) in the loop the rule names. The catalog is fused into one pass over
the partitions (everything per partition, per topic and per broker is gathered in that pass) plus small
passes over brokers, admin znodes and notifications. Work that only depends on a replica list
(duplicates, unregistered brokers, racks) is memoised per distinct list: real assignments repeat a few
thousand lists over millions of partitions, and a partition in sync at its preferred leader on such a
list takes a fast path no partition rule can fire on.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from typing import Any

from core.brokers.metadata import ServedMetadata
from core.consistency.catalog import MIGRATION_CHECKS, selected
from core.consistency.checks import REGISTRY
from core.consistency.checks.deletions import queued_topic
from core.consistency.checks.facts import (
    BrokerLeads,
    ClusterFacts,
    Found,
    PartitionFacts,
    ReplicaFacts,
    TopicFacts,
)
from core.consistency.checks.unit import LocalRule
from core.consistency.findings import Finding, make_finding
from core.consistency.params import CheckParams
from core.kafka.znodes import PartitionState, TopicAssignment, Unreadable
from core.snapshot.health import MinIsr, live_leader, partition_health
from core.snapshot.model import ClusterSnapshot, TopicEntry

DoneCallback = Callable[[tuple[str, ...]], None]
"""Called with the check ids a pass has finished, as soon as it finishes."""

# Which checks each pass produces, for progress reporting (each check's unit names its rules' loops).
PARTITION_PASS = tuple(unit.id for unit in REGISTRY if unit.local_pass == "partitions")
CLUSTER_PASS = tuple(unit.id for unit in REGISTRY if unit.local_pass == "cluster")

_INT_MAX = 2**31 - 1


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


class _Topic(TopicFacts):
    """``TopicFacts`` plus what the partition pass gathers for the topic's deletion."""

    __slots__ = ("adding", "deleting", "min_isr", "offline_all", "reassigning", "removing")

    def __init__(self, name: str, entry: TopicEntry, assignment: TopicAssignment, deleting: bool) -> None:
        super().__init__(name, entry, assignment)
        self.deleting = deleting
        self.adding = dict(assignment.adding)
        self.removing = dict(assignment.removing)
        self.offline_all: set[int] = set()
        self.reassigning = False
        self.min_isr: dict[int | None, MinIsr] = {}  # by live leader (None: no live leader)


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
        self.c = ClusterFacts(snapshot, params, served)
        self.want = frozenset(checks)
        self.on_done = on_done
        self.out: list[Finding] = []
        self.memo: dict[tuple[int, ...], ReplicaFacts] = {}
        # The wanted checks' rules, by the loop that calls them, in catalog order.
        self.rules: dict[str, list[LocalRule]] = defaultdict(list)
        for unit in REGISTRY:
            if unit.id in self.want:
                for loop, rule in unit.local.items():
                    self.rules[loop].append(rule)

    def apply(self, loop: str, facts: Any) -> None:
        """Every wanted rule of ``loop`` on ``facts``."""
        for rule in self.rules.get(loop, ()):
            self.add(rule(facts))

    def add(self, found: Iterable[Found]) -> None:
        for record, at in found:
            self.out.append(make_finding(record, at.path, topic=at.topic, partition=at.partition, broker=at.broker))

    def run(self) -> list[Finding]:
        self.partition_pass()
        self.done(PARTITION_PASS)
        self.apply("cluster", self.c)
        self.done(CLUSTER_PASS)
        if self.want & set(MIGRATION_CHECKS):
            self.apply("migration", self.c)
        self.done(MIGRATION_CHECKS)
        return self.out

    def done(self, checks: tuple[str, ...]) -> None:
        if self.on_done is not None:
            self.on_done(tuple(c for c in checks if c in self.want))

    # ---- topics and partitions, one fused pass -----------------------------------------------------

    def partition_pass(self) -> None:
        self.apply("name", self.c)
        preferred_total: dict[int, int] = defaultdict(int)
        preferred_elsewhere: dict[int, int] = defaultdict(int)
        for name in sorted(self.s.topics):
            self.topic(name, self.s.topics[name], preferred_total, preferred_elsewhere)
        for facts in self.memo.values():
            if facts.uses and facts.preferred is not None:
                preferred_total[facts.preferred] += facts.uses
        threshold = self.c.params.imbalance_percent
        for broker in sorted(self.c.live):
            leads = BrokerLeads(broker, preferred_total.get(broker, 0), preferred_elsewhere.get(broker, 0), threshold)
            self.apply("leaders", leads)
        self.apply("requests", self.c)
        self.apply("served", self.c)

    def topic(
        self, name: str, entry: TopicEntry, preferred_total: dict[int, int], preferred_elsewhere: dict[int, int]
    ) -> None:
        a = entry.assignment
        deleting = name in self.c.deleting
        if not isinstance(a, TopicAssignment):
            if deleting:
                self.apply("deletion", queued_topic(self.c, name, ()))
            return
        t = _Topic(name, entry, a, deleting)
        t.reassigning = name in self.c.requested_topics
        states_get = entry.states.get
        memo = self.memo
        memo_get = memo.get
        slow = self.partition
        cluster = self.c
        if a.adding or a.removing or deleting or t.reassigning:
            for p, replicas in a.partitions:
                facts = memo_get(replicas)
                if facts is None:
                    facts = memo[replicas] = ReplicaFacts(replicas, cluster)
                slow(t, p, replicas, facts, states_get(p), preferred_total, preferred_elsewhere)
        else:
            # The common case, kept tight: a healthy partition (ISR is exactly the replicas, led by the
            # preferred replica, every replica registered, no duplicates, racks fine, at least
            # min.insync.replicas of them or that value unknown) only counts towards its preferred leader
            # and the topic's replication factors: no partition rule fires there.
            epoch = cluster.controller_epoch if cluster.controller_epoch is not None else _INT_MAX
            min_isr_of = self.min_isr
            rfs = t.rfs
            for p, replicas in a.partitions:
                facts = memo_get(replicas)
                if facts is None:
                    facts = memo[replicas] = ReplicaFacts(replicas, cluster)
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
                slow(t, p, replicas, facts, st, preferred_total, preferred_elsewhere)
        self.topic_end(t)

    def partition(
        self,
        t: _Topic,
        p: int,
        replicas: tuple[int, ...],
        facts: ReplicaFacts,
        st: object,
        preferred_total: dict[int, int],
        preferred_elsewhere: dict[int, int],
    ) -> None:
        """One partition off the fast path: what its topic and its preferred leader gather, then every
        partition rule."""
        add = t.adding.get(p, ())
        rem = t.removing.get(p, ())
        t.rfs.add(len(facts.members.difference(rem)) if rem else facts.rf)
        if facts.offline:
            t.offline_all.update(facts.offline)
        requested = self.c.requests.get((t.name, p))
        if add or rem or requested:
            t.reassigning = True
        state = st if isinstance(st, PartitionState | Unreadable) else None
        if isinstance(state, Unreadable):
            self.c.unreadable_states.append(state)  # reported by unreadable_znode
        preferred = facts.preferred if not t.deleting else None
        if preferred is not None:
            preferred_total[preferred] += 1
            leader = state.leader if type(state) is PartitionState else None
            # Kafka's count (checkAndTriggerAutoLeaderRebalance): any readable state whose leader is not the
            # preferred replica, an offline partition (leader -1) or one led by a dead broker included.
            if leader is not None and leader != preferred:
                preferred_elsewhere[preferred] += 1
        live = self.c.live
        health = partition_health(replicas, add, state, live, self.min_isr(t, live_leader(state, live)))
        self.apply(
            "partition",
            PartitionFacts(self.c, t.name, p, replicas, add, rem, facts, state, health, t.deleting, requested),
        )

    def min_isr(self, t: _Topic, leader: int | None) -> MinIsr:
        """The ``min.insync.replicas`` a live ``leader`` (None: none) applies to ``t``, memoised per topic."""
        hit = t.min_isr.get(leader)
        if hit is None:
            hit = t.min_isr[leader] = self.c.resolver.resolve(t.entry.config, leader)
        return hit

    def topic_end(self, t: _Topic) -> None:
        """Topic-wide rules once all its partitions were seen."""
        for p in t.orphans():
            orphan = t.entry.states[p]
            if isinstance(orphan, Unreadable):
                self.c.unreadable_states.append(orphan)  # an orphan's unreadable state
        self.apply("topic", t)
        if t.deleting:
            self.apply("deletion", queued_topic(self.c, t.name, t.offline_all))
