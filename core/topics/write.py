"""The writes behind a plan: through the AdminClient, or straight to ZooKeeper as Kafka's ZooKeeper tools do.

``planned_writes`` lists what applying a plan writes; the ZooKeeper writers execute exactly that list and
the AdminClient writers send exactly its requests, so a dry run (which prints the list) cannot drift from
what is written.

ZooKeeper paths (zk-layout §5), each all-or-nothing and never touching the controller's ``state`` znodes:

- create: one multi-op that checks ``/controller``'s version (Kafka 3.7.1+ fences the config write on
  it), writes ``/config/topics/<t>`` (created, or replacing an orphan at the version the plan saw) and
  creates ``/brokers/topics/<t>`` without a ``topic_id`` (the controller adds one), config first, as
  ``AdminZkClient.createTopicWithAssignment`` writes them, in the topic znode version the cluster's Kafka
  writes (v1, v2 or v3: ``core.topics.facts.zk_create_format``). Without a controller it refuses as Kafka
  3.7.1+ does, unless the cluster is known to be older (then it writes unfenced, as those versions do);
- expand: ``/brokers/topics/<t>`` set at the version the plan read, its bytes kept as they were with only
  the new partition keys inserted, so ``topic_id``, ``adding_replicas``, ``removing_replicas``, the
  version and any unknown field survive byte for byte (KAFKA-14190);
- delete: one multi-op creating ``/admin/delete_topics/<t>`` for every topic, each checked to exist.

New znodes get their parent's ACL, so on a secure cluster they carry the brokers' rights as Kafka's own do.

A lost connection during a write is resolved by reading back what landed, so the result is never a guess.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from kazoo.exceptions import (
    BadVersionError,
    ConnectionLoss,
    KazooException,
    NodeExistsError,
    NoNodeError,
    RolledBackError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError

from core.brokers.admin import KafkaAdmin
from core.brokers.capabilities import VIA_ADMIN
from core.errors import ConcurrentChangeError, ConnectError, GuardError, KafkaRuleError, KzcError
from core.kafka.znodes.encode import add_partitions_to_raw, encode_new_topic, encode_topic_config
from core.kafka.znodes.paths import (
    CONTROLLER,
    DELETE_TOPICS,
    TOPIC_CONFIGS,
    TOPICS,
    deletion_marker_path,
    topic_config_path,
    topic_path,
)
from core.topics.facts import ClusterFacts, zk_create_format
from core.topics.plan import CreatePlan, DeletePlan, ExpandPlan
from core.zookeeper.session import ZkSession

# ---- what a plan writes ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """One write of a plan: a znode write (``create``, or ``set`` at ``expected_version``) or a request
    to the brokers (``admin``: ``path`` names the request, ``data`` its JSON arguments)."""

    op: str
    path: str
    data: bytes
    expected_version: int | None = None

    @property
    def text(self) -> str:
        """``data`` as text (znode data and requests are UTF-8 JSON)."""
        return self.data.decode("utf-8", errors="replace")

    def to_json(self) -> dict[str, Any]:
        """``{"op", "path", "data", "expected_version"}`` with ``data`` as text."""
        return {"op": self.op, "path": self.path, "data": self.text, "expected_version": self.expected_version}


def planned_writes(
    plan: CreatePlan | ExpandPlan | DeletePlan, facts: ClusterFacts | None = None
) -> tuple[PlannedWrite, ...]:
    """What applying ``plan`` writes, in order, through the path the plan was made for.

    A ZooKeeper create starts with the ``/controller`` version check of the same multi-op (Kafka 3.7.1+'s
    fence, ``create_via_zookeeper`` sends exactly these), as the config dry run lists it: at the version in
    ``facts`` (read now), or without them at the one the plan saw (a console preview). A
    delete also checks that every topic exists; that check is a precondition, not listed.

    Raises:
        GuardError: the topic znode cannot be extended faithfully (expand).
    """
    admin = plan.via == VIA_ADMIN
    if isinstance(plan, CreatePlan):
        if admin:
            return (PlannedWrite("admin", "CreateTopics", _compact(_create_arguments(plan))),)
        config_path = topic_config_path(plan.topic)
        config = encode_topic_config(plan.config)
        if facts is None:
            fenced_at = plan.controller_zk_version  # a preview: the version seen when planned
        else:
            fenced_at = facts.controller_zk_version if facts.controller is not None else None
        fence = (PlannedWrite("check", CONTROLLER, b"", fenced_at),) if fenced_at is not None else ()
        return (
            *fence,
            PlannedWrite("create", config_path, config)
            if plan.config_zk_version is None
            else PlannedWrite("set", config_path, config, plan.config_zk_version),
            PlannedWrite("create", topic_path(plan.topic), encode_new_topic(plan.assignment, plan.topic_znode_version)),
        )
    if isinstance(plan, ExpandPlan):
        if admin:
            return (
                PlannedWrite("admin", "CreatePartitions", _compact(_expand_arguments(plan)), plan.topic_zk_version),
            )
        data = add_partitions_to_raw(plan.topic_raw, plan.new_assignment)
        return (PlannedWrite("set", topic_path(plan.topic), data, plan.topic_zk_version),)
    if admin:
        return (PlannedWrite("admin", "DeleteTopics", _compact(list(plan.topics))),)
    return tuple(PlannedWrite("create", deletion_marker_path(t), b"") for t in plan.topics)


def describe_writes(writes: Sequence[PlannedWrite], path: str | None = None) -> list[str]:
    """A dry run's lines: what would be sent to the brokers, or which znodes would be written; ``path`` says
    why that path (``core.brokers.capabilities.Route.reason``)."""
    if writes and all(w.op == "admin" for w in writes):
        lines = ["DRY RUN: nothing is sent. This request would go to the brokers (AdminClient):"]
    else:
        lines = ["DRY RUN: nothing is written. These znodes would be written in one ZooKeeper multi-op:"]
    if path:
        lines.insert(1, f"Path: {path}")
    for write in writes:
        version = f" (if version is {write.expected_version})" if write.expected_version is not None else ""
        lines.append(write.path if write.op == "admin" else f"{write.op} {write.path}{version}")
        if write.data:
            lines.append(f"    {write.text}")
    return lines


def _create_arguments(plan: CreatePlan) -> dict[str, Any]:
    return {
        "topic": plan.topic,
        "replica_assignment": [list(r) for _, r in plan.assignment],
        "config": dict(plan.config),
    }


def _expand_arguments(plan: ExpandPlan) -> dict[str, Any]:
    return {
        "topic": plan.topic,
        "total": plan.target_partitions,
        "new_assignments": [list(r) for _, r in plan.new_assignment],
    }


def _compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


# ---- AdminClient path ---------------------------------------------------------------------------------


def create_via_admin(admin: KafkaAdmin, plan: CreatePlan) -> None:
    """CreateTopics with the plan's explicit assignment and config."""
    arguments = _create_arguments(plan)
    admin.create_topic(arguments["topic"], arguments["replica_assignment"], arguments["config"])


def expand_via_admin(admin: KafkaAdmin, plan: ExpandPlan) -> None:
    """CreatePartitions to the plan's total with the plan's replicas for each new partition."""
    arguments = _expand_arguments(plan)
    admin.create_partitions(arguments["topic"], arguments["total"], arguments["new_assignments"])


def delete_via_admin(admin: KafkaAdmin, plan: DeletePlan) -> dict[str, KzcError | None]:
    """DeleteTopics; each topic's error or None."""
    return admin.delete_topics(plan.topics)


# ---- ZooKeeper path -----------------------------------------------------------------------------------


def create_via_zookeeper(session: ZkSession, plan: CreatePlan, facts: ClusterFacts) -> None:
    """Write the config and topic znodes in one multi-op, fenced on ``/controller`` when there is one.

    The topic znode is written in ``plan.topic_znode_version``. With no controller, the write is refused
    as Kafka 3.7.1+ refuses it unless ``facts`` prove an older cluster (``zk_create_format``).

    Raises:
        KafkaRuleError: no controller on a cluster that may run Kafka 3.7.1+, topic exists.
        ConcurrentChangeError: ``/controller`` or the orphan config changed since they were read.
        ConnectError: ZooKeeper failed; the message says whether the topic was written.
    """
    topic = plan.topic
    fenced = facts.controller is not None and facts.controller_zk_version is not None
    if not fenced and zk_create_format(facts).needs_controller:
        raise KafkaRuleError(
            f"Cannot set entity configs for topics {topic} when there is no controller.", "ControllerMovedException"
        )
    config_path = topic_config_path(topic)
    client = session.client
    _zk(session, "prepare the parent znodes", lambda: (client.ensure_path(TOPIC_CONFIGS), client.ensure_path(TOPICS)))
    transaction = client.transaction()
    labels: list[str] = []
    # Without a controller, a Kafka older than 3.7.1 writes unfenced (ZooKeeper has no "is absent" check op).
    writes = planned_writes(plan, facts)
    for write in writes:
        _add(session, transaction, write)
        labels.append(write.path)
    topic_data = writes[-1].data

    def landed() -> bool:
        data = _read(session, topic_path(topic))
        return data == topic_data

    failure = _commit(session, transaction.commit, landed, f"create topic {topic}")
    if failure is None:
        return
    index, error = failure
    failed = labels[index]
    if failed == CONTROLLER:
        if isinstance(error, NoNodeError):
            raise KafkaRuleError(
                f"Cannot set entity configs for topics {topic} when there is no controller.",
                "ControllerMovedException",
            )
        raise ConcurrentChangeError(
            "the controller changed since the plan was made (/controller has a new version); nothing was written"
        )
    if failed == config_path:
        raise ConcurrentChangeError(
            f"{config_path} was created or changed by someone else since the plan was made; nothing was written"
        )
    if isinstance(error, NodeExistsError):
        raise KafkaRuleError(f"Topic '{topic}' already exists.", "TopicExistsException")
    raise ConnectError(f"writing {failed} failed: {error!r}; nothing was written")


def expand_via_zookeeper(session: ZkSession, plan: ExpandPlan) -> bytes:
    """Set ``/brokers/topics/<t>`` at the plan's version to its bytes plus the new partitions.

    Returns:
        The bytes written.

    Raises:
        ConcurrentChangeError: the znode changed since the plan read it (nothing was written).
        KafkaRuleError: the topic no longer exists.
    """
    (planned,) = planned_writes(plan)
    path, data = planned.path, planned.data
    client = session.client

    def landed() -> bool:
        return _read(session, path) == data

    def write() -> list[object]:
        try:
            return [client.set(path, data, version=planned.expected_version)]
        except (BadVersionError, NoNodeError) as exc:
            return [exc]  # reported like a failed operation of a multi-op

    failure = _commit(session, write, landed, f"expand {plan.topic}")
    if failure is None:
        return data
    _, error = failure
    if isinstance(error, NoNodeError):
        raise KafkaRuleError(f"The topic '{plan.topic}' does not exist.", "UnknownTopicOrPartitionException")
    current = _version(session, path)
    raise ConcurrentChangeError(
        f"{path} changed since the plan was made (version {plan.topic_zk_version}, now {current}); nothing was "
        "written: make the plan again"
    )


def delete_via_zookeeper(session: ZkSession, plan: DeletePlan) -> None:
    """Create every ``/admin/delete_topics/<t>`` in one multi-op, each topic checked to exist.

    Raises:
        KafkaRuleError: a topic does not exist ("Topic `<t>` to delete does not exist").
        GuardError: a topic was marked for deletion meanwhile (nothing was written).
    """
    client = session.client
    topics = plan.topics
    _zk(session, f"prepare {DELETE_TOPICS}", lambda: client.ensure_path(DELETE_TOPICS))
    transaction = client.transaction()
    for topic, write in zip(topics, planned_writes(plan), strict=True):
        transaction.check(topic_path(topic), -1)  # -1: any version, i.e. it exists
        _add(session, transaction, write)

    def landed() -> bool:
        return all(_read(session, deletion_marker_path(t)) is not None for t in topics)

    failure = _commit(session, transaction.commit, landed, "mark topics for deletion")
    if failure is None:
        return
    index, error = failure
    topic = topics[index // 2]
    if index % 2 == 0:
        raise KafkaRuleError(f"Topic `{topic}` to delete does not exist", "UnknownTopicOrPartitionException")
    if isinstance(error, NodeExistsError):
        raise GuardError(f"Topic {topic} is already marked for deletion. Nothing was written.")
    raise ConnectError(f"marking {topic} for deletion failed: {error!r}; nothing was written")


# ---- ZooKeeper plumbing -------------------------------------------------------------------------------


def _add(session: ZkSession, transaction: Any, write: PlannedWrite) -> None:
    """Add one planned znode write (or version check) to a multi-op; a new znode gets its parent's ACL."""
    if write.op == "check":
        transaction.check(write.path, write.expected_version)
    elif write.op == "create":
        parent = write.path.rsplit("/", 1)[0]
        transaction.create(write.path, write.data, acl=_acl_of(session, parent))
    elif write.op == "set":
        transaction.set_data(write.path, write.data, write.expected_version)
    else:
        raise ValueError(f"not a znode write: {write.op} {write.path}")


def _commit(
    session: ZkSession, commit: Callable[[], Sequence[Any]], landed: Callable[[], bool], what: str
) -> tuple[int, BaseException] | None:
    """Run a write once (never retried blindly: a retried create would see its own node and lie).

    Returns:
        None on success, else (index of the failed operation, its error).

    Raises:
        ConnectError: the connection dropped; the message says whether the write landed (read back).
    """
    try:
        results = commit()
    except (ConnectionLoss, KazooTimeoutError) as exc:
        if _resolve(session, landed):
            return None
        raise ConnectError(f"the connection to ZooKeeper dropped during '{what}'; it did not happen") from exc
    except SessionExpiredError as exc:
        if _resolve(session, landed):
            return None
        raise ConnectError(f"the ZooKeeper session expired during '{what}'; it did not happen") from exc
    for index, result in enumerate(results):
        if isinstance(result, BaseException) and not isinstance(result, RolledBackError):
            return index, result
    return None


def _resolve(session: ZkSession, landed: Callable[[], bool]) -> bool:
    try:
        return session.retry(landed)
    except (KazooException, KazooTimeoutError) as exc:
        raise ConnectError(
            "the connection to ZooKeeper dropped during a write and kzc cannot read back whether it landed: "
            "check the topic before trying again"
        ) from exc


def _acl_of(session: ZkSession, parent: str) -> list[Any]:
    """The ACL of ``parent``, for the znodes kzc creates under it.

    On a secure cluster (``zookeeper.set.acl=true``) Kafka's znodes carry its principal's rights plus
    world-read; copying the parent's ACL gives kzc's znodes the same, so the controller can later change
    and delete them whichever identity kzc authenticated with. On an open cluster it is world-all.
    """
    try:
        acls, _ = session.retry(session.client.get_acls, parent)
    except (KazooException, KazooTimeoutError) as exc:
        raise ConnectError(f"ZooKeeper failed to read the ACL of {parent}: {exc!r}; nothing was written") from exc
    return list(acls)


def _read(session: ZkSession, path: str) -> bytes | None:
    try:
        data, _ = session.client.get(path)
    except NoNodeError:
        return None
    return data or b""


def _version(session: ZkSession, path: str) -> int | str:
    try:
        _, stat = session.retry(session.client.get, path)
    except NoNodeError:
        return "deleted"
    except (KazooException, KazooTimeoutError):
        return "unknown"
    return int(stat.version)


def _zk(session: ZkSession, what: str, action: Callable[[], object]) -> None:
    try:
        session.retry(action)
    except (KazooException, KazooTimeoutError) as exc:
        raise ConnectError(f"ZooKeeper failed to {what}: {exc!r}; nothing was written") from exc
