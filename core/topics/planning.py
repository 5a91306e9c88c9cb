"""Topic create, expand and delete planned: each request validated into its plan (``core.topics.plan``).

The ``plan_*`` functions are pure: they take the ``ClusterFacts`` (and the topic) read by
``core.topics.facts`` and raise, in Kafka's order and with Kafka's messages, what Kafka would raise
(zk-layout §4.2 for create, §4.3 and the broker-side CreatePartitions checks for expand, §5.3 for
delete), then kzc's own guards (``core.topics.guard``).
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence

from core.brokers.capabilities import VIA_ZOOKEEPER
from core.config import JUTE_MAXBUFFER
from core.errors import GuardError, KafkaRuleError, UsageError
from core.kafka import topic_rules
from core.kafka.assignment import (
    AssignmentStart,
    BrokerMeta,
    assign_expansion,
    assign_replicas_with_start,
    broker_metadatas,
    check_java_int,
)
from core.kafka.assignment_metrics import compute_metrics, expansion_metrics
from core.kafka.names import has_collision_chars
from core.kafka.znode_size import EMPTY_TOPIC_ZNODE, check_topic_znode_size, entries_size
from core.kafka.znodes import TopicAssignment, Unreadable
from core.kafka.znodes.paths import state_path, topic_config_path, topic_path
from core.topics.facts import ClusterFacts, LiveTopic, zk_create_format
from core.topics.guard import (
    Check,
    check_deletable,
    check_delete_enabled,
    check_known_brokers,
    check_no_reassignment,
    check_not_internal_for_expand,
    check_not_marked_for_deletion,
    controller_warnings,
    deletion_obstacles,
    migration_warnings,
    reassignment_warnings,
)
from core.topics.plan import (
    Assignment,
    CreatePlan,
    CreateRequest,
    DeletePlan,
    DeleteRequest,
    ExpandPlan,
    ExpandRequest,
    frozen_assignment,
)

COLLISION_WARNING = (
    "Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. "
    "To avoid issues it is best to use either, but not both."
)


def broker_racks(facts: ClusterFacts) -> tuple[tuple[int, str | None], ...]:
    """(broker id, rack) of every registered broker with a readable registration, by id."""
    return tuple((b, r.rack) for b, r in sorted(facts.brokers.items()) if not isinstance(r, Unreadable))


def _readable_brokers(facts: ClusterFacts) -> list[BrokerMeta]:
    """The brokers the metrics count: every registered broker whose registration is readable."""
    return [BrokerMeta(b, rack) for b, rack in broker_racks(facts)]


def plan_create(
    facts: ClusterFacts,
    request: CreateRequest,
    *,
    via: str,
    blocked: str | None = None,
    config_zk_version: int | None = None,
    znode_limit: int = JUTE_MAXBUFFER,
) -> CreatePlan:
    """Validate a create as Kafka would and compute (or parse) its assignment.

    Order: the assignment first (``AdminZkClient.createTopic`` computes it before validating), then
    ``validateTopicCreate`` (§4.2: name, marked for deletion, exists, collisions, replica lists), the
    config names, then kzc's guard on unregistered brokers in a manual assignment.

    The start of Kafka's algorithm is drawn from ``random.Random(request.seed)``; with no seed, like
    Kafka, every plan draws anew (a topic deleted and created again does not land where it was). The
    plan records the draws (``start``) and applying it writes exactly its assignment.

    Raises:
        UsageError: neither or both of partitions/replication factor and a manual assignment.
        KafkaRuleError: what Kafka would reject, in Kafka's words.
        GuardError: unknown brokers in a manual assignment; an unreadable broker registration.
    """
    topic = request.topic
    checks: list[Check] = []
    start: AssignmentStart | None = None
    if request.replica_assignment is not None:
        if request.partitions is not None or request.replication_factor is not None:
            raise UsageError("--replica-assignment cannot be combined with --partitions or --replication-factor")
        assignment = topic_rules.parse_create_assignment(request.replica_assignment)
        manual = True
    else:
        if request.partitions is None or request.replication_factor is None:
            raise UsageError("give --partitions and --replication-factor, or --replica-assignment")
        brokers = broker_metadatas(facts.broker_metas(), rack_aware=request.rack_aware)
        if 0 < request.replication_factor <= len(brokers) and request.partitions > 0:
            # Before the assignment is built: it could not be written anyway (and could fill the memory).
            size = EMPTY_TOPIC_ZNODE + entries_size(0, request.partitions, request.replication_factor, facts.broker_ids)
            check_topic_znode_size(topic, size, znode_limit, f"{request.partitions:,} partitions")
        assignment, start = assign_replicas_with_start(
            brokers, request.partitions, request.replication_factor, rng=random.Random(request.seed)
        )
        manual = False
    topic_rules.validate_name(topic)
    checks.append(Check("topic name", "ok", "valid (Topic.validate)"))
    check_not_marked_for_deletion(facts, topic)
    if topic in facts.topic_names:
        raise KafkaRuleError(f"Topic '{topic}' already exists.", "TopicExistsException")
    colliding = topic_rules.colliding_topics(topic, facts.topic_order)
    if colliding:
        raise KafkaRuleError(
            f"Topic '{topic}' collides with existing topics: {', '.join(colliding)}", "InvalidTopicException"
        )
    checks.append(Check("topic does not exist", "ok", "no topic, deletion marker or name collision"))
    topic_rules.validate_create_assignment(assignment)
    topic_rules.validate_config(request.config)
    if manual:
        check_known_brokers(assignment, facts.broker_ids)
        checks.append(Check("brokers", "ok", "every replica is on a registered broker"))
    zk_format = zk_create_format(facts)
    if via == VIA_ZOOKEEPER:
        checks.append(Check("topic znode", "ok", f"written as v{zk_format.topic_version}: {zk_format.reason}"))
    warnings = [*controller_warnings(facts), *migration_warnings(facts)]
    if has_collision_chars(topic):
        warnings.append(COLLISION_WARNING)
    if config_zk_version is not None:
        warnings.append(
            f"{topic_config_path(topic)} exists without the topic (left by a failed create or an interrupted delete): "
            "it is replaced by this topic's config"
        )
    frozen = frozen_assignment(assignment)
    return CreatePlan(
        topic=topic,
        assignment=frozen,
        config=tuple(request.config),
        manual=manual,
        metrics=compute_metrics(dict(frozen), _readable_brokers(facts)),
        via=via,
        racks=broker_racks(facts),
        checks=tuple(checks),
        warnings=tuple(warnings),
        blocked=blocked,
        config_zk_version=config_zk_version,
        start=start,
        rack_aware=request.rack_aware,
        topic_znode_version=zk_format.topic_version,
        seed=None if manual else request.seed,
        controller_zk_version=facts.controller_zk_version if facts.controller is not None else None,
    )


def plan_expand(
    facts: ClusterFacts,
    live: LiveTopic | None,
    request: ExpandRequest,
    *,
    via: str,
    blocked: str | None = None,
    znode_limit: int = JUTE_MAXBUFFER,
) -> ExpandPlan:
    """Validate a partition increase as Kafka's brokers would and compute (or parse) the new replicas.

    Order (zk-layout §4.1, §4.3): TopicCommand parses ``--replica-assignment`` before anything else
    (number format, duplicates, replication factor within the string); then kzc's internal-topic guard
    (TopicCommand's), the Enforced rack check Kafka runs before its per-topic loop (skipped with
    ``--disable-rack-aware``), the broker-side CreatePartitions checks (reassignment, topic exists,
    count), the manual assignment checks, ``createNewPartitionsAssignment``; then kzc's guard against
    topics marked for deletion (the controller would drop the new partitions).

    Raises:
        GuardError: internal topic, marked for deletion, unreadable topic znode.
        KafkaRuleError: what Kafka would reject, in Kafka's words.
        UsageError: a partition count outside Java's ``int`` range.
    """
    topic = request.topic
    check_java_int("the number of partitions", request.partitions)
    parsed = (
        topic_rules.parse_create_assignment(request.replica_assignment)
        if request.replica_assignment is not None
        else None
    )
    check_not_internal_for_expand(topic)
    unreadable = sorted(b for b, r in facts.brokers.items() if isinstance(r, Unreadable))
    rack_warning: list[str] = []
    if parsed is not None and unreadable:
        # A manual assignment needs only the broker ids; the racks feed Kafka's partial-rack check alone.
        all_brokers = [BrokerMeta(b, None) for b in sorted(facts.broker_ids)]
        rack_warning.append(
            f"the registration of broker(s) {', '.join(map(str, unreadable))} is unreadable: their racks are "
            "unknown, so Kafka's check that every broker or none has a rack was not made"
        )
    else:
        all_brokers = broker_metadatas(facts.broker_metas(), rack_aware=request.rack_aware)
    if live is None:
        raise KafkaRuleError(f"The topic '{topic}' does not exist.", "UnknownTopicOrPartitionException")
    if isinstance(live.assignment, Unreadable):
        raise GuardError(f"{topic_path(topic)} is unreadable ({live.assignment.reason}): kzc will not rewrite it")
    assignment: TopicAssignment = live.assignment
    check_no_reassignment(facts, live)
    existing = {p: list(r) for p, r in assignment.partitions}
    current = len(existing)
    if not existing:
        raise KafkaRuleError(f"The topic '{topic}' does not exist.", "UnknownTopicOrPartitionException")
    if request.partitions < current:
        raise KafkaRuleError(
            f"Topic currently has {current} partitions, which is higher than the requested {request.partitions}.",
            "InvalidPartitionsException",
        )
    if request.partitions == current:
        raise KafkaRuleError(f"Topic already has {current} partitions.", "InvalidPartitionsException")
    replicas = len(existing[min(existing)]) if existing else 1
    size = len(live.raw) + entries_size(current, request.partitions, replicas, facts.broker_ids)
    check_topic_znode_size(topic, size, znode_limit, f"{request.partitions:,} partitions")
    if parsed is not None:
        new = topic_rules.expand_assignment_from_parsed(
            topic, parsed, existing, request.partitions, [b.id for b in all_brokers]
        )
        manual = True
    else:
        new = assign_expansion(all_brokers, existing, request.partitions, topic=topic, rack_aware=request.rack_aware)
        manual = False
    check_not_marked_for_deletion_on_expand(facts, topic)
    checks = [
        Check("not internal", "ok", f"{topic} is not an internal topic"),
        Check("no reassignment", "ok", "no partition of the topic is being reassigned"),
    ]
    warnings = [
        *rack_warning,
        *controller_warnings(facts),
        *migration_warnings(facts),
        *reassignment_warnings(facts),
        "If partitions are increased for a topic that has a key, the partition logic or ordering of the messages "
        "will be affected",
    ]
    frozen = frozen_assignment(new)
    warnings += expansion_warnings(topic, existing, parsed, frozen, live.stray_states)
    both = expansion_metrics(existing, dict(frozen), _readable_brokers(facts))
    return ExpandPlan(
        topic=topic,
        current_partitions=current,
        target_partitions=current + len(frozen),
        new_assignment=frozen,
        manual=manual,
        metrics=both["after"],
        metrics_before=both["before"],
        via=via,
        topic_id=assignment.topic_id,
        topic_zk_version=live.zk_version,
        topic_raw=live.raw,
        existing=frozen_assignment(existing),
        racks=broker_racks(facts),
        checks=tuple(checks),
        warnings=tuple(warnings),
        blocked=blocked,
        rack_aware=request.rack_aware,
    )


# The top-level fields of /brokers/topics/<t> that a broker writes back (TopicZNode.encode, 3.9).
TOPIC_ZNODE_FIELDS = frozenset({"version", "partitions", "topic_id", "adding_replicas", "removing_replicas"})


def unknown_topic_fields(raw: bytes) -> tuple[str, ...]:
    """The top-level fields of a topic znode that a broker does not know, so drops when it rewrites it."""
    try:
        value = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        return ()
    return tuple(k for k in value if k not in TOPIC_ZNODE_FIELDS) if isinstance(value, dict) else ()


def expansion_warnings(
    topic: str,
    existing: Mapping[int, Sequence[int]],
    given: Mapping[int, Sequence[int]] | None,
    new: Assignment,
    stray_states: frozenset[int],
) -> list[str]:
    """What Kafka would do silently: skip a new partition whose state znode already exists (its leader
    then is whatever that znode says), and drop ``--replica-assignment`` entries of existing partitions."""
    warnings = []
    stray = sorted(p for p, _ in new if p in stray_states)
    if stray:
        paths = ", ".join(state_path(topic, p) for p in stray[:3])
        warnings.append(
            f"partition(s) {', '.join(map(str, stray))} already have a state znode ({paths}"
            f"{', ...' if len(stray) > 3 else ''}): the controller does not initialise a new partition whose state "
            "exists, so it keeps that state's leader and ISR, not its new replicas (kzc check: "
            "orphan_partition_state); delete the stray state znode(s) before expanding"
        )
    if given is not None:
        differ = [p for p in sorted(given) if p in existing and list(given[p]) != list(existing[p])]
        if differ:
            shown = "; ".join(f"{p}: given {_ids_text(given[p])}, current {_ids_text(existing[p])}" for p in differ[:5])
            warnings.append(
                f"--replica-assignment entries for existing partition(s) differ from their current replicas "
                f"({shown}{'; ...' if len(differ) > 5 else ''}): Kafka ignores them and moves nothing; use a "
                "partition reassignment to move existing partitions"
            )
    return warnings


def _ids_text(replicas: Sequence[int]) -> str:
    return "[" + ",".join(map(str, replicas)) + "]"


def check_not_marked_for_deletion_on_expand(facts: ClusterFacts, topic: str) -> None:
    """kzc's guard: the controller drops partitions added to a topic queued for deletion (§5.2).

    Raises:
        GuardError: the topic has a deletion marker.
    """
    if topic in facts.marked_for_deletion:
        raise GuardError(
            f"Topic '{topic}' is marked for deletion: the controller would skip the new partitions and rewrite "
            "the assignment back"
        )


def select_topics(facts: ClusterFacts, request: DeleteRequest) -> tuple[str, ...]:
    """The topics a delete request names: the given names, or every topic whose whole name matches.

    Raises:
        UsageError: neither or both of names and a regex, or an invalid regex.
        KafkaRuleError: the regex matches no topic.
    """
    if not request.topics and request.regex is None:
        raise UsageError("no topic to delete: give the topic names, or --regex RE")
    if request.topics and request.regex is not None:
        raise UsageError("give topic names or --regex, not both")
    if request.regex is None:
        for name in request.topics:
            topic_rules.validate_name(name)  # before any path is built from it ('..' would be one)
        return tuple(dict.fromkeys(request.topics))
    try:
        pattern = re.compile(request.regex)
    except re.error as exc:
        raise UsageError(f"invalid --regex '{request.regex}': {exc}") from exc
    matched = tuple(sorted(t for t in facts.topic_names if pattern.fullmatch(t)))
    if not matched:
        raise KafkaRuleError(
            f"Topic '{request.regex}' does not exist as expected (no topic name matches the whole regex)",
            "IllegalArgumentException",
        )
    return matched


def plan_delete(
    facts: ClusterFacts,
    request: DeleteRequest,
    topics: Sequence[str],
    live: Mapping[str, LiveTopic],
    *,
    via: str,
    delete_topic_enable: bool | None,
    delete_topic_enable_source: str,
    blocked: str | None = None,
) -> DeletePlan:
    """Check the topics can be marked for deletion and say what would hold each deletion now.

    Order: internal topics, topics that do not exist, topics already marked (Kafka's order), then
    ``delete.topic.enable`` (refused when false, a warning when unknown).

    Raises:
        GuardError: internal topic, already marked for deletion, ``delete.topic.enable=false``.
        KafkaRuleError: a topic does not exist.
    """
    check_deletable(facts, topics, live)
    delete_enable_check = check_delete_enabled(delete_topic_enable, delete_topic_enable_source)
    obstacles = tuple((t, tuple(deletion_obstacles(facts, live.get(t)))) for t in topics)
    warnings = [*controller_warnings(facts), *migration_warnings(facts)]
    if delete_enable_check.status != "ok":
        warnings.append(f"delete.topic.enable is {delete_enable_check.detail}")
    for topic, reasons in obstacles:
        if reasons:
            warnings.append(f"{topic}: deletion would be held now: {'; '.join(reasons)}")
    checks = [
        Check("not internal", "ok", "no internal topic selected"),
        Check("exists", "ok", "every topic exists and is not yet marked for deletion"),
        delete_enable_check,
    ]
    return DeletePlan(
        topics=tuple(topics),
        regex=request.regex,
        via=via,
        delete_topic_enable=delete_topic_enable,
        obstacles=obstacles,
        checks=tuple(checks),
        warnings=tuple(warnings),
        blocked=blocked,
    )
