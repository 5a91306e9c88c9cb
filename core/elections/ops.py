"""Leader elections on a live cluster: read, plan, write, follow.

Preferred: ZooKeeper path creates ``/admin/preferred_replica_election`` exactly as
``PreferredReplicaLeaderElectionCommand`` (ZooKeeper mode, up to 2.8) does, refusing with Kafka's message
while one is pending (the same JSON and message from 0.10 to 2.8); with ``--bootstrap-server`` it sends
ElectLeaders (PREFERRED) when every broker serves it with the election type (v1, 2.4+), else the znode
(``preferred_route``, the one ``--via`` decision ``core.brokers.capabilities.write_route``, as Kafka's tools
offered both: ``kafka-preferred-replica-election --zookeeper`` up to 2.8, ``kafka-leader-election
--bootstrap-server`` from 2.4; 2.2 and 2.3's v0 ElectPreferredLeaders is left aside: their controllers act on
the znode as before). Unclean: ElectLeaders (UNCLEAN, Kafka 2.4+) only; before 2.4 kzc refuses and
names what Kafka offered instead, the topic config ``unclean.leader.election.enable`` (``UNCLEAN_BEFORE_2_4``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from core.audit import AuditLog
from core.brokers.apiversions import ELECT_LEADERS
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Capabilities, Route, write_route
from core.brokers.changes import PREFERRED, UNCLEAN, ChangeAdmin
from core.config import ConnectionSettings
from core.configs.ops import open_ops
from core.configs.zk import execute
from core.elections.plan import (
    ALREADY,
    Candidate,
    PreferredPlan,
    UncleanPlan,
    encode_preferred_election,
    plan_preferred,
    plan_unclean,
    preferred_candidates,
)
from core.errors import ConnectError, GuardError, KafkaRuleError, KzcError, UsageError
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import PartitionState, Unreadable
from core.kafka.znodes.paths import PREFERRED_REPLICA_ELECTION
from core.polling import follow_until
from core.topics.cluster_ops import ClusterOps
from core.topics.facts import ClusterFacts
from core.topics.write import PlannedWrite

PREFERRED_TOOL = (
    "as kafka-preferred-replica-election --zookeeper did (/admin/preferred_replica_election, which every "
    "ZooKeeper-mode controller acts on)"
)
ELECTION_TYPE = "the election type (v1, Kafka 2.4.0+)"
# Kafka before 2.4 has no request electing outside the ISR; the topic config is what it offered
# (ConfigHandler from 2.1 asks the controller to elect at once; before 2.1 the controller reads the config
# at its next election of the partition).
UNCLEAN_INSTEAD = (
    "What Kafka offered instead: the topic config unclean.leader.election.enable=true, which lets the controller "
    "elect a replica outside the ISR (from 2.1 at once for the topic's leaderless partitions; before 2.1 at its "
    "next election of them, when a replica's broker registers or the controller moves); delete it afterwards. "
    "Preview it: kzc config set {topic} unclean.leader.election.enable=true --dry-run"
)
UNCLEAN_BEFORE_2_4 = "Kafka before 2.4 has no unclean election request: {lacking}. " + UNCLEAN_INSTEAD


def preferred_route(capabilities: Capabilities | None, via: str | None = None) -> Route:
    """The path of a preferred election (``write_route``): ElectLeaders with the election type when there is an
    AdminClient (``capabilities`` not None) and every registered broker serves it, else the znode; ``via``
    (``--via``) forces one.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
    """
    return write_route(
        capabilities, ELECT_LEADERS, via, PREFERRED_TOOL, PREFERRED_TOOL, ours=(1, 32767), needs=ELECTION_TYPE
    )


class ElectionTimeout(KzcError):
    """``--wait`` ran out of time; the message says which partitions still lack their preferred leader."""


def planned_writes(plan: PreferredPlan) -> tuple[PlannedWrite, ...]:
    """The one write of a preferred election: the znode, or the ElectLeaders request."""
    if plan.via == VIA_ADMIN:
        partitions = [{"topic": t, "partition": p} for t, p in plan.keys]
        data = json.dumps({"election_type": "PREFERRED", "partitions": partitions}, separators=(",", ":"))
        return (PlannedWrite("admin", "ElectLeaders", data.encode()),)
    return (PlannedWrite("create", PREFERRED_REPLICA_ELECTION, encode_preferred_election(plan.keys)),)


# Unanswered elections: a controller can elect and leave ElectLeaders unanswered until the request's timeout
# (librdkafka's default, past kzc's wait): the answer waits in a purgatory (DelayedElectLeader) for the
# new leader to show in the controller broker's own metadata cache, and the UpdateMetadata that shows it is
# matched to waiting elections only once one is counted as delayed (ReplicaManager.hasDelayedElectionOperations),
# which happens after it is watched. Handled in between, as under load, it is never matched. So when the brokers
# do not answer, kzc reads the outcome where the controller wrote it first: the partitions' state in ZooKeeper.


class ElectionOps(ClusterOps[ChangeAdmin]):
    """Plan, send and follow leader elections on the cluster behind ``session`` (and ``admin``)."""

    def route(self, facts: ClusterFacts, via: str | None = None) -> Route:
        """The path of a preferred election (``preferred_route``); the brokers are not asked with ``--via
        zookeeper``."""
        return preferred_route(None if via == VIA_ZOOKEEPER else self.capabilities.get(facts.brokers), via)

    def candidates(self, topic: str | None, partitions: Sequence[int] = ()) -> tuple[ClusterFacts, list[Candidate]]:
        """Every partition of ``topic`` (None: of every topic), or just ``partitions`` of it.

        Raises:
            KafkaRuleError: the topic or a partition does not exist.
        """
        facts = self.reader.facts()
        if topic is not None and topic not in facts.topic_names:
            raise KafkaRuleError(f"Topic '{topic}' does not exist.", "UnknownTopicOrPartitionException")
        if partitions and topic is None:
            raise UsageError("--partition needs --topic")
        names = [topic] if topic is not None else sorted(facts.topic_names)
        assignment: dict[TopicPartition, tuple[int, ...]] = {}
        states: dict[TopicPartition, PartitionState | None] = {}
        for name, live in self.reader.topics(names).items():
            if isinstance(live.assignment, Unreadable):
                continue
            wanted = [p for p, _ in live.assignment.partitions]
            if partitions:
                missing = sorted(set(partitions) - set(wanted))
                if missing:
                    raise KafkaRuleError(
                        f"Partition {name}-{missing[0]} does not exist.", "UnknownTopicOrPartitionException"
                    )
                wanted = sorted(set(partitions))
            for partition in wanted:
                assignment[(name, partition)] = tuple(live.assignment.replicas(partition))
            for partition, state in self.reader.partition_states(name, wanted).items():
                states[(name, partition)] = state if isinstance(state, PartitionState) else None
        deleting = facts.marked_for_deletion
        return facts, preferred_candidates(assignment, states, facts.broker_ids, deleting)

    def plan_preferred(
        self, topic: str | None, partitions: Sequence[int] = (), via: str | None = None
    ) -> PreferredPlan:
        """Which partitions a preferred election sends, and why the others are skipped; ``via`` (``--via``)
        forces the path.

        Raises:
            UsageError: ``--via admin`` where the brokers' path cannot be taken.
        """
        facts, candidates = self.candidates(topic, partitions)
        path = self.route(facts, via)
        return plan_preferred(candidates, path.via, self.read_only(facts), path.reason)

    def apply_preferred(self, plan: PreferredPlan) -> dict[TopicPartition, str | None]:
        """Send the election; each partition's error (None: accepted).

        Raises:
            ReadOnlyError: read-only or migration. GuardError: nothing to elect.
            KafkaRuleError: an election is already pending in ZooKeeper (Kafka's message).
        """
        self.writable_facts()
        if not plan.sent:
            raise GuardError("no partition needs a preferred leader election: nothing was sent")
        if self.admin is not None and plan.via == VIA_ADMIN:
            try:
                outcome = self.admin.elect_leaders(PREFERRED, plan.keys)
            except ConnectError:
                if all(c.skipped == ALREADY for c in self.look(plan)):  # elected, unanswered (above ElectionOps)
                    return dict.fromkeys(plan.keys)
                raise
            return {k: None if e is None else str(e) for k, e in outcome.items()}
        try:
            execute(self.session, planned_writes(plan), "the preferred leader election")
        except KafkaRuleError:
            pending = self.reader.exists(PREFERRED_REPLICA_ELECTION)
            raise KafkaRuleError(
                "Preferred replica leader election currently in progress for "
                f"{self._pending() if pending else 'some partitions'}. Aborting operation",
                "AdminOperationException",
            ) from None
        return dict.fromkeys(plan.keys)

    def _pending(self) -> str:
        try:
            data, _ = self.session.client.get(PREFERRED_REPLICA_ELECTION)
            entries = json.loads(data)["partitions"]
            return ",".join(f"{e['topic']}-{e['partition']}" for e in entries)
        except Exception:  # a racing controller deletes it; the message then stays general
            return "some partitions"

    def wait_preferred(
        self, plan: PreferredPlan, timeout: float, on_change: Callable[[list[Candidate]], None] | None = None
    ) -> list[Candidate]:
        """Wait until each sent partition has its preferred leader or a reason it cannot (and, on the ZooKeeper
        path, the controller removed ``/admin/preferred_replica_election``).

        Raises:
            ElectionTimeout: the deadline passed first.
        """
        wanted = set(plan.keys)

        def settled(looked: list[Candidate]) -> bool:
            # On the ZooKeeper path the request is done once the controller also removed the znode.
            pending = plan.via == VIA_ZOOKEEPER and self.reader.exists(PREFERRED_REPLICA_ELECTION)
            return all(c.skipped is not None for c in looked) and not pending

        def timed_out(last: list[Candidate] | None) -> ElectionTimeout:
            pending = [f"{c.topic}-{c.partition}" for c in (last or []) if c.skipped is None]
            return ElectionTimeout(
                f"after {timeout:g} s {len(pending)} partition(s) still lack their preferred leader: "
                + ", ".join(pending[:20])
            )

        def look() -> list[Candidate]:
            return [c for c in self.look(plan) if (c.topic, c.partition) in wanted]

        return follow_until(look, settled, timeout, "the preferred leaders", timed_out, on_change, interval=0.25)

    def look(self, plan: PreferredPlan) -> list[Candidate]:
        """The plan's sent partitions now (``skipped`` is ``ALREADY`` once the preferred replica leads)."""
        looked: list[Candidate] = []
        for topic in sorted({t for t, _ in plan.keys}):
            _, candidates = self.candidates(topic, [p for t, p in plan.keys if t == topic])
            looked += candidates
        return looked

    def plan_unclean(self, topic: str, partition: int) -> UncleanPlan:
        """Who would lead ``topic-partition`` after an unclean election, and what it risks.

        Raises:
            UsageError: no AdminClient. GuardError: brokers before 2.4 (what Kafka offered instead); see
                ``core.elections.plan.plan_unclean``.
        """
        if self.admin is None:
            raise UsageError(
                "an unclean election needs --bootstrap-server: it is the ElectLeaders API (Kafka 2.4+); "
                "ZooKeeper has no request for it. " + UNCLEAN_INSTEAD.format(topic=topic)
            )
        caps = self.capabilities.get(self.reader.facts().brokers)
        lacking = None if caps is None else caps.lacking(ELECT_LEADERS, (1, 32767), ELECTION_TYPE)
        if lacking is not None:
            raise GuardError(UNCLEAN_BEFORE_2_4.format(lacking=lacking, topic=topic))
        facts, candidates = self.candidates(topic, [partition])
        (candidate,) = candidates
        state = None
        states = self.reader.partition_states(topic, [partition])
        found = states.get(partition)
        if isinstance(found, PartitionState):
            state = found
        return plan_unclean((topic, partition), candidate.replicas, state, facts.broker_ids, self.read_only(facts))

    def apply_unclean(self, plan: UncleanPlan) -> str | None:
        """Send ElectLeaders (UNCLEAN); the partition's error or None."""
        self.writable_facts()
        assert self.admin is not None
        try:
            outcome = self.admin.elect_leaders(UNCLEAN, [(plan.topic, plan.partition)])
        except ConnectError:
            state = self.reader.partition_states(plan.topic, [plan.partition]).get(plan.partition)
            if isinstance(state, PartitionState) and state.leader == plan.new_leader:  # elected though unanswered
                return None
            raise
        error = outcome.get((plan.topic, plan.partition))
        return None if error is None else str(error)


def candidates_json(candidates: Sequence[Candidate]) -> list[dict[str, Any]]:
    """Each candidate as JSON, with ``elected`` when its preferred replica leads."""
    return [{**c.to_json(), "elected": c.skipped == ALREADY} for c in candidates]


def open_election_ops(
    settings: ConnectionSettings, admin_timeout: float = 15.0, audit: AuditLog | None = None
) -> AbstractContextManager[ElectionOps]:
    """A ``ElectionOps`` on a fresh session (``core.configs.ops.open_ops``)."""
    return open_ops(ElectionOps, settings, admin_timeout, audit)
