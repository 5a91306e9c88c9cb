"""The guards kzc puts in front of every topic mutation: pure checks over ``ClusterFacts``.

Each guard either passes, adds a warning, or raises before anything is written: ``ReadOnlyError``
(read-only mode, a ZooKeeper-to-KRaft migration), ``GuardError`` (kzc's own refusals: internal topics,
deletion markers, reassignments, unknown brokers, ``delete.topic.enable=false``) or ``KafkaRuleError``
(the refusals Kafka itself makes, in Kafka's words; zk-layout §4.3 and §5.3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from core.errors import GuardError, KafkaRuleError
from core.kafka.names import is_internal
from core.kafka.znodes import ControllerInfo, MigrationState, TopicAssignment, Unreadable
from core.kafka.znodes.paths import CONTROLLER, MIGRATION, REASSIGN_PARTITIONS
from core.snapshot.deletion import deletion_blockers
from core.topics.facts import ClusterFacts, LiveTopic


@dataclass(frozen=True)
class Check:
    """One guard's outcome as plans show it: ``status`` is ``ok`` or ``warning``."""

    name: str
    status: str
    detail: str

    def to_json(self) -> dict[str, str]:
        """``{"name", "status", "detail"}``."""
        return {"name": self.name, "status": self.status, "detail": self.detail}


def is_internal_topic(name: str) -> bool:
    """``Topic.isInternal`` (3.9): ``__consumer_offsets``, ``__transaction_state``, ``__share_group_state``."""
    return is_internal(name)


def read_only_reason(read_only: str | None, facts: ClusterFacts, via_admin: bool = False) -> str | None:
    """Why no mutation may be applied to this cluster now, or None.

    ``read_only`` is what made kzc read-only, in words (``core.config.read_only_cause``: the flag, or the
    context that set ``read_only``), or None. Read-only mode comes first; then a ZooKeeper-to-KRaft
    migration: a KRaft controller registered in ``/controller`` (with ``/migration`` present, or
    unreadable) owns the metadata, and writes made through ZooKeeper would bypass it. Through the brokers
    (``via_admin``) Kafka allows CreateTopics, CreatePartitions and DeleteTopics while the controller
    dual-writes (ZooKeeper-mode brokers forward them to it): allowed while ``/migration`` records an offset
    and a broker is still in ``/brokers/ids`` (kzc reads the result back from ZooKeeper, which a finalized
    controller no longer writes).
    """
    if read_only is not None:
        return f"kzc is read-only ({read_only}): refusing every mutation"
    controller = facts.controller
    migration = facts.migration
    kraft = isinstance(controller, ControllerInfo) and controller.is_kraft
    if kraft and isinstance(controller, ControllerInfo):
        epoch = controller.kraft_controller_epoch
        where = f"{MIGRATION} exists and " if migration is not None else ""
        owner = (
            f"a ZooKeeper-to-KRaft migration is in progress ({where}KRaft controller {controller.broker_id}, epoch "
            f"{epoch}, holds /controller): the KRaft controller owns the metadata and dual-writes ZooKeeper"
        )
        dual_writing = isinstance(migration, MigrationState) and migration.kraft_metadata_offset >= 0
        if via_admin:
            if dual_writing and facts.broker_ids:
                return None
            return (
                f"{owner}, but kzc cannot tell that it still dual-writes (no metadata offset in /migration yet, or "
                "no broker left in /brokers/ids: finalized?), and kzc reads results back from ZooKeeper: use "
                "Kafka's tools against the brokers"
            )
        return (
            f"{owner}, so kzc is read-only on this cluster through ZooKeeper: writing znodes would bypass the "
            "KRaft controller. Give --bootstrap-server to create, expand or delete topics through the brokers, "
            "which forward them to the KRaft controller (Kafka allows it while it dual-writes), or use Kafka's tools"
        )
    if migration is not None and isinstance(controller, Unreadable):
        return (
            f"{MIGRATION} exists and /controller is unreadable ({controller.reason}): kzc cannot rule out a "
            "ZooKeeper-to-KRaft migration, so it is read-only on this cluster"
        )
    return None


def migration_warnings(facts: ClusterFacts) -> list[str]:
    """Warnings about ``/migration`` that do not block (a ZooKeeper controller is active)."""
    if facts.migration is None or read_only_reason(None, facts) is not None:
        return []
    return [
        f"{MIGRATION} exists but a ZooKeeper controller is active (a migration not started yet, or rolled back): "
        "make sure no KRaft controller is about to take over"
    ]


def controller_warnings(facts: ClusterFacts) -> list[str]:
    """A warning when no controller is active: the change is recorded but nothing happens until one is."""
    if facts.controller is None:
        return ["no active controller (/controller is missing): nothing happens until a controller is elected"]
    if isinstance(facts.controller, Unreadable):
        return [f"{CONTROLLER} is unreadable ({facts.controller.reason})"]
    return []


def reassignment_warnings(facts: ClusterFacts) -> list[str]:
    """A warning when ``/admin/reassign_partitions`` cannot be read: kzc cannot tell what it moves."""
    if isinstance(facts.reassignment, Unreadable):
        return [
            f"{REASSIGN_PARTITIONS} is unreadable ({facts.reassignment.reason}): kzc cannot tell which "
            "partitions it asks the controller to move"
        ]
    return []


def check_not_marked_for_deletion(facts: ClusterFacts, topic: str) -> None:
    """3.1+ ``validateTopicCreate`` step 2 (also used before expanding).

    Raises:
        KafkaRuleError: ``TopicExistsException`` "Topic '<t>' is marked for deletion."
    """
    if topic in facts.marked_for_deletion:
        raise KafkaRuleError(f"Topic '{topic}' is marked for deletion.", "TopicExistsException")


def check_not_internal_for_expand(topic: str) -> None:
    """TopicCommand's refusal to change the partition count of an internal topic.

    Raises:
        GuardError: "The number of partitions for the internal topic <t> cannot be changed."
    """
    if is_internal_topic(topic):
        raise GuardError(f"The number of partitions for the internal topic {topic} cannot be changed.")


def check_no_reassignment(facts: ClusterFacts, topic: LiveTopic) -> None:
    """The broker-side CreatePartitions check (2.4+), plus partitions still waiting in the reassign znode.

    Raises:
        KafkaRuleError: ``ReassignmentInProgressException`` with Kafka's message.
    """
    assignment = topic.assignment
    moving = assignment.reassigning_partitions if isinstance(assignment, TopicAssignment) else ()
    queued = facts.reassigning_in_znode(topic.name)
    if moving or queued:
        raise KafkaRuleError(
            f"A partition reassignment is in progress for the topic '{topic.name}'.",
            "ReassignmentInProgressException",
        )


def check_known_brokers(assignment: Mapping[int, Sequence[int]], broker_ids: Iterable[int]) -> None:
    """kzc's guard on manual assignments for new topics: Kafka accepts unregistered brokers on create
    (the partitions then stay offline), kzc does not.

    Raises:
        GuardError: naming the unknown broker ids and the registered ones.
    """
    known = set(broker_ids)
    unknown = sorted({b for replicas in assignment.values() for b in replicas if b not in known})
    if unknown:
        listed = ", ".join(map(str, unknown))
        registered = ", ".join(map(str, sorted(known))) or "none"
        raise GuardError(
            f"Unknown broker(s) in replica assignment: {listed}. Registered brokers: {registered}. Kafka would "
            "accept this on create and leave those replicas offline; kzc refuses"
        )


def check_deletable(facts: ClusterFacts, topics: Sequence[str], live: Mapping[str, LiveTopic] | None = None) -> None:
    """TopicCommand's and AdminZkClient's refusals before marking topics for deletion, in Kafka's order.

    Args:
        live: the topics as read, to say why an already-marked topic is held.

    Raises:
        GuardError: an internal topic ("... is a kafka internal topic and is not allowed to be marked for
            deletion."), or topics already marked for deletion (with what holds them).
        KafkaRuleError: a topic that does not exist ("Topic `<t>` to delete does not exist").
    """
    internal = [t for t in topics if is_internal_topic(t)]
    if internal:
        raise GuardError(
            " ".join(
                f"Topic {t} is a kafka internal topic and is not allowed to be marked for deletion." for t in internal
            )
        )
    missing = [t for t in topics if t not in facts.topic_names]
    if missing:
        raise KafkaRuleError(
            " ".join(f"Topic `{t}` to delete does not exist" for t in missing), "UnknownTopicOrPartitionException"
        )
    marked = [t for t in topics if t in facts.marked_for_deletion]
    if marked:
        messages = []
        for topic in marked:
            reasons = deletion_obstacles(facts, (live or {}).get(topic))
            held = f" It is stuck: {'; '.join(reasons)}." if reasons else ""
            messages.append(f"Topic {topic} is already marked for deletion.{held}")
        raise GuardError(" ".join(messages))


def check_delete_enabled(value: bool | None, source: str) -> Check:
    """The ``delete.topic.enable`` guard.

    Args:
        value: the controller's setting, or None when it could not be read.
        source: where it was read (or why not), for the message.

    Raises:
        GuardError: deletion is disabled: the controller would remove the marker and delete nothing.
    """
    if value is False:
        raise GuardError(
            f"delete.topic.enable=false ({source}): the controller would drop the deletion request and delete "
            "nothing; enable it on the brokers first"
        )
    if value is None:
        return Check(
            "delete.topic.enable",
            "warning",
            f"unknown ({source}); if it is false, the controller removes the marker and deletes nothing",
        )
    return Check("delete.topic.enable", "ok", f"true ({source})")


def deletion_obstacles(facts: ClusterFacts, topic: LiveTopic | None) -> list[str]:
    """Why the controller would hold a topic's deletion now: ``core.snapshot.deletion.deletion_blockers``
    (zk-layout §7.4), for plans and progress; empty when nothing visible in ZooKeeper blocks it."""
    if topic is None:
        return (
            [] if facts.controller is not None else ["no active controller (/controller is missing): nothing deletes"]
        )
    reasons = deletion_blockers(
        topic.assignment, facts.broker_ids, facts.controller is not None, facts.reassigning_in_znode(topic.name)
    )
    return [r.detail for r in reasons]
