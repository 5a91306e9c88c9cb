"""The console's adapter to ``core.topics.plan``: its requests become topic_plans requests, topic_plans
plans become the console's plans (assignment preview with ``core.kafka.assignment_metrics`` metrics, dry-run
writes, checks, warnings), and a ``ClusterSnapshot`` stands in for the live ``ClusterFacts`` when the
cluster is a recording.

Two console features topic_plans has no parameter for, and how they map without changing its rules:

- the reshuffle ``seed``: topic_plans draws Kafka's two random numbers from the ``rng`` it is given,
  so the console passes ``random.Random(seed)``;
- rack-aware off (``--disable-rack-aware``): the console computes Kafka's rack-unaware assignment
  (``broker_metadatas(rack_aware=False)``, the same draws) and hands it to topic_plans as an explicit
  assignment, which then goes through Kafka's manual-assignment checks.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from core.console.protocols import (
    AssignmentPreview,
    BrokerSlot,
    CreatePlan,
    CreateRequest,
    DeletePlan,
    DeleteSelection,
    ExpandPlan,
    ExpandRequest,
    PlannedWrite,
)
from core.errors import UsageError
from core.kafka.assignment import BrokerMeta, assign_replicas_to_brokers, broker_metadatas
from core.kafka.assignment_metrics import compute_metrics, expansion_metrics
from core.kafka.znodes import Unreadable
from core.snapshot.model import ClusterSnapshot
from core.topics import plan as topic_plans
from core.topics.facts import ClusterFacts, LiveTopic
from core.topics.plan import VIA_ADMIN
from core.topics.write import encode_new_topic, encode_topic_config

Assignment = tuple[tuple[int, tuple[int, ...]], ...]


# ---- requests ----------------------------------------------------------------------------------------


def create_request(request: CreateRequest, facts: ClusterFacts) -> tuple[topic_plans.CreateRequest, random.Random]:
    """The topic_plans request for a console request, and the draws to use (see the module docstring)."""
    config = tuple(sorted(request.configs.items()))
    rng = random.Random(request.seed)
    if request.manual_assignment:
        return topic_plans.CreateRequest(
            request.topic, replica_assignment=request.manual_assignment, config=config
        ), rng
    if not request.rack_aware:
        brokers = broker_metadatas(facts.broker_metas(), rack_aware=False)
        assignment = assign_replicas_to_brokers(brokers, request.partitions, request.replication_factor, rng=rng)
        text = ",".join(":".join(map(str, assignment[p])) for p in sorted(assignment))
        return topic_plans.CreateRequest(request.topic, replica_assignment=text, config=config), rng
    return (
        topic_plans.CreateRequest(request.topic, request.partitions, request.replication_factor, config=config),
        rng,
    )


def expand_request(request: ExpandRequest) -> topic_plans.ExpandRequest:
    """The topic_plans request for a console request."""
    return topic_plans.ExpandRequest(request.topic, request.partitions, request.manual_assignment or None)


def delete_request(selection: DeleteSelection) -> topic_plans.DeleteRequest:
    """The topic_plans request for a console selection (a regex must match whole names, as Kafka's)."""
    if selection.regex is not None:
        return topic_plans.DeleteRequest(regex=selection.regex)
    return topic_plans.DeleteRequest(topics=tuple(dict.fromkeys(selection.topics)))


# ---- plans -------------------------------------------------------------------------------------------


def slots(racks: Sequence[tuple[int, str | None]], assignments: Sequence[Assignment]) -> tuple[BrokerSlot, ...]:
    """Registered brokers with racks, plus unregistered ids an assignment names (marked not alive)."""
    known = {b: BrokerSlot(b, rack, True) for b, rack in racks}
    for assignment in assignments:
        for _, replicas in assignment:
            for broker in replicas:
                known.setdefault(broker, BrokerSlot(broker, None, False))
    return tuple(known[b] for b in sorted(known))


def _metas(brokers: Sequence[BrokerSlot]) -> list[BrokerMeta]:
    return [BrokerMeta(b.id, b.rack) for b in brokers if b.alive]


def console_create_plan(request: CreateRequest, plan: topic_plans.CreatePlan) -> CreatePlan:
    """A topic_plans create plan as the console shows and applies it."""
    brokers = slots(plan.racks, [plan.assignment])
    metrics = compute_metrics(dict(plan.assignment), _metas(brokers))
    manual = bool(request.manual_assignment)
    preview = AssignmentPreview(brokers, plan.assignment, (), metrics, None, None if manual else request.seed, manual)
    writes: tuple[PlannedWrite, ...]
    if plan.via == VIA_ADMIN:
        body = {
            "topic": plan.topic,
            "replica_assignment": [list(r) for _, r in plan.assignment],
            "config": dict(plan.config),
        }
        writes = (PlannedWrite("admin", "CreateTopics", json.dumps(body, separators=(",", ":"))),)
    else:
        writes = (
            PlannedWrite("create", f"/config/topics/{plan.topic}", encode_topic_config(plan.config).decode()),
            PlannedWrite(
                "create",
                f"/brokers/topics/{plan.topic}",
                encode_new_topic(plan.assignment, plan.topic_znode_version).decode(),
            ),
        )
    checks = tuple(f"{c.name}: {c.detail}" for c in plan.checks)
    return CreatePlan(request, preview, writes, plan.warnings, checks, plan.blocked, plan)


def console_expand_plan(request: ExpandRequest, plan: topic_plans.ExpandPlan, existing: Assignment) -> ExpandPlan:
    """A topic_plans expand plan as the console shows and applies it."""
    brokers = slots(plan.racks, [existing, plan.new_assignment])
    both = expansion_metrics(dict(existing), dict(plan.new_assignment), _metas(brokers))
    preview = AssignmentPreview(
        brokers, plan.new_assignment, existing, both["after"], both["before"], None, plan.manual
    )
    writes: tuple[PlannedWrite, ...]
    if plan.via == VIA_ADMIN:
        body = {
            "topic": plan.topic,
            "total": plan.target_partitions,
            "new_assignments": [list(r) for _, r in plan.new_assignment],
        }
        writes = (
            PlannedWrite("admin", "CreatePartitions", json.dumps(body, separators=(",", ":")), plan.topic_zk_version),
        )
    else:
        body_text = json.dumps({str(p): list(r) for p, r in plan.new_assignment}, separators=(",", ":"))
        writes = (
            PlannedWrite(
                "set",
                f"/brokers/topics/{plan.topic}",
                f"existing bytes + new partitions {body_text}",
                plan.topic_zk_version,
            ),
        )
    checks = tuple(f"{c.name}: {c.detail}" for c in plan.checks)
    return ExpandPlan(request, preview, writes, plan.warnings, checks, plan.blocked, plan.topic_zk_version, plan)


def console_delete_plan(plan: topic_plans.DeletePlan) -> DeletePlan:
    """A topic_plans delete plan as the console shows and applies it."""
    confirmation = plan.topics[0] if len(plan.topics) == 1 else str(len(plan.topics))
    writes: tuple[PlannedWrite, ...]
    if plan.via == VIA_ADMIN:
        writes = (PlannedWrite("admin", "DeleteTopics", json.dumps(list(plan.topics))),)
    else:
        writes = tuple(PlannedWrite("create", f"/admin/delete_topics/{t}", "") for t in plan.topics)
    checks = tuple(f"{c.name}: {c.detail}" for c in plan.checks)
    return DeletePlan(plan.topics, confirmation, writes, plan.warnings, plan.obstacles, checks, plan.blocked, plan)


# ---- a snapshot as the facts of a live cluster (recordings) ------------------------------------------


def facts_from_snapshot(snapshot: ClusterSnapshot) -> ClusterFacts:
    """The ``ClusterFacts`` topic_plans needs, taken from a snapshot (topic order: sorted names)."""
    return ClusterFacts(
        brokers={b: entry.registration for b, entry in snapshot.brokers.items()},
        topic_names=frozenset(snapshot.topics),
        topic_order=tuple(sorted(snapshot.topics)),
        marked_for_deletion=frozenset(snapshot.deletion_markers),
        controller=snapshot.controller,
        controller_zk_version=None,
        migration=snapshot.migration,
        reassignment=snapshot.reassignment,
    )


def live_topic_from_snapshot(snapshot: ClusterSnapshot, topic: str) -> LiveTopic | None:
    """A snapshot's topic as topic_plans reads it (bytes re-encoded as Kafka writes them)."""
    entry = snapshot.topics.get(topic)
    if entry is None:
        return None
    from core.console.recorded import encode_value  # the recording's encoder; imported here: it imports us

    raw = entry.assignment.raw if isinstance(entry.assignment, Unreadable) else encode_value(entry.assignment)
    return LiveTopic(topic, entry.assignment, raw, entry.times.version)


def existing_assignment(live: LiveTopic | None) -> Assignment:
    """The partitions a topic has now (empty when unreadable or missing)."""
    if live is None or isinstance(live.assignment, Unreadable):
        return ()
    return live.assignment.partitions


def parse_configs(text: str) -> dict[str, str]:
    """``key=value,key=value`` (what the create form accepts) as a dict.

    Raises:
        UsageError: an entry without ``=``.
    """
    result: dict[str, str] = {}
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        key, sep, value = piece.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"config '{piece}' must be key=value")
        result[key.strip()] = value.strip()
    return result


def plan_for_recording(
    snapshot: ClusterSnapshot, request: CreateRequest | ExpandRequest | DeleteSelection, blocked: str | None
) -> CreatePlan | ExpandPlan | DeletePlan:
    """Plan against a recorded snapshot with topic_plans' own rules (nothing can be applied)."""
    facts = facts_from_snapshot(snapshot)
    via = "recording"
    if isinstance(request, CreateRequest):
        their, rng = create_request(request, facts)
        return console_create_plan(request, topic_plans.plan_create(facts, their, via=via, blocked=blocked, rng=rng))
    if isinstance(request, ExpandRequest):
        live = live_topic_from_snapshot(snapshot, request.topic)
        expand = topic_plans.plan_expand(facts, live, expand_request(request), via=via, blocked=blocked)
        return console_expand_plan(request, expand, existing_assignment(live))
    selection = delete_request(request)
    topics = topic_plans.select_topics(facts, selection)
    live_topics = {t: lt for t in topics if (lt := live_topic_from_snapshot(snapshot, t)) is not None}
    plan = topic_plans.plan_delete(
        facts,
        selection,
        topics,
        live_topics,
        via=via,
        delete_topic_enable=None,
        delete_topic_enable_source="a recording holds no broker config",
        blocked=blocked,
    )
    return console_delete_plan(plan)
