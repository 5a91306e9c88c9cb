"""The writes behind a plan: through the AdminClient, or straight to ZooKeeper as Kafka's ZooKeeper tools do.

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
import re
from collections.abc import Callable, Sequence
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
from core.errors import ConcurrentChangeError, ConnectError, GuardError, KafkaRuleError, KzcError
from core.topics.facts import (
    CONTROLLER,
    DELETE_TOPICS,
    TOPIC_CONFIGS,
    TOPICS,
    ClusterFacts,
    topic_path,
    zk_create_format,
)
from core.topics.plan import Assignment, CreatePlan, ExpandPlan
from core.zookeeper.session import ZkSession

_WHITESPACE = re.compile(r"[ \t\n\r]*")


# ---- encodings Kafka uses -----------------------------------------------------------------------------


def encode_topic_config(config: Sequence[tuple[str, str]]) -> bytes:
    """``ConfigEntityZNode.encode``: ``{"version":1,"config":{...}}`` (written even when empty)."""
    return _compact({"version": 1, "config": dict(config)})


def encode_new_topic(assignment: Assignment, version: int = 3) -> bytes:
    """``TopicZNode.encode`` for a new topic without a topic id, as the Kafka that writes ``version`` does.

    v3 (2.8+): ``partitions``, empty ``adding_replicas``/``removing_replicas`` and ``version`` (Jackson's
    order for 3.x's mutable map); v2 (2.4 to 2.7): ``version``, ``partitions`` and the two empty maps;
    v1 (up to 2.3): ``version`` and ``partitions``.

    Raises:
        ValueError: ``version`` is not 1, 2 or 3.
    """
    partitions = {str(p): list(r) for p, r in assignment}
    if version == 3:
        return _compact({"partitions": partitions, "adding_replicas": {}, "removing_replicas": {}, "version": 3})
    if version == 2:
        return _compact({"version": 2, "partitions": partitions, "adding_replicas": {}, "removing_replicas": {}})
    if version == 1:
        return _compact({"version": 1, "partitions": partitions})
    raise ValueError(f"no topic znode version {version}")


def _compact(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode("utf-8")


def add_partitions_to_raw(raw: bytes, new: Assignment) -> bytes:
    """``raw`` (a topic znode) with ``new`` partitions appended inside its ``partitions`` object.

    Everything else, byte for byte, is kept: other fields, their order, spacing and escapes.

    Raises:
        GuardError: ``raw`` is not a JSON object with a ``partitions`` object, or a new partition
            key is already there.
    """
    try:
        text = raw.decode("utf-8")
        members = _top_level_members(text)
    except (UnicodeDecodeError, ValueError) as exc:
        raise GuardError(f"the topic znode is not a JSON object kzc can extend ({exc}); nothing was written") from None
    spans = [(start, end) for key, start, end in members if key == "partitions"]
    if not spans:
        raise GuardError('the topic znode has no "partitions" object; nothing was written')
    start, end = spans[-1]  # Jackson, like Python, keeps the last of duplicate keys
    original = json.loads(text)
    partitions = original.get("partitions")
    if not isinstance(partitions, dict) or text[start] != "{":
        raise GuardError('"partitions" in the topic znode is not a JSON object; nothing was written')
    clashes = [p for p, _ in new if str(p) in partitions]
    if clashes:
        raise GuardError(f"partitions {clashes} already exist in the topic znode; nothing was written")
    entries = ",".join(f'"{p}":[{",".join(map(str, replicas))}]' for p, replicas in new)
    inner = text[start + 1 : end - 1]
    insertion = entries if not inner.strip() else "," + entries
    updated = text[: end - 1] + insertion + text[end - 1 :]
    # The result must be the original object plus exactly the new keys, nothing else.
    expected = dict(original)
    expected["partitions"] = {**partitions, **{str(p): list(r) for p, r in new}}
    if json.loads(updated) != expected:
        raise GuardError("kzc could not extend the topic znode faithfully; nothing was written")
    return updated.encode("utf-8")


def _top_level_members(text: str) -> list[tuple[str, int, int]]:
    """(key, value start, value end) of every member of the top-level JSON object in ``text``."""
    decoder = json.JSONDecoder()

    def skip(i: int) -> int:
        match = _WHITESPACE.match(text, i)
        return match.end() if match else i

    i = skip(0)
    if i >= len(text) or text[i] != "{":
        raise ValueError("not a JSON object")
    i = skip(i + 1)
    members: list[tuple[str, int, int]] = []
    if i < len(text) and text[i] == "}":
        return members
    while True:
        if i >= len(text) or text[i] != '"':
            raise ValueError("expected a key")
        key, i = decoder.raw_decode(text, i)
        i = skip(i)
        if i >= len(text) or text[i] != ":":
            raise ValueError("expected ':'")
        start = skip(i + 1)
        _, end = decoder.raw_decode(text, start)
        members.append((str(key), start, end))
        i = skip(end)
        if i < len(text) and text[i] == ",":
            i = skip(i + 1)
            continue
        if i < len(text) and text[i] == "}":
            if skip(i + 1) != len(text):
                raise ValueError("data after the JSON object")
            return members
        raise ValueError("expected ',' or '}'")


# ---- AdminClient path ---------------------------------------------------------------------------------


def create_via_admin(admin: KafkaAdmin, plan: CreatePlan) -> None:
    """CreateTopics with the plan's explicit assignment and config."""
    admin.create_topic(plan.topic, [replicas for _, replicas in plan.assignment], dict(plan.config))


def expand_via_admin(admin: KafkaAdmin, plan: ExpandPlan) -> None:
    """CreatePartitions to the plan's total with the plan's replicas for each new partition."""
    admin.create_partitions(plan.topic, plan.target_partitions, [replicas for _, replicas in plan.new_assignment])


def delete_via_admin(admin: KafkaAdmin, topics: Sequence[str]) -> dict[str, KzcError | None]:
    """DeleteTopics; each topic's error or None."""
    return admin.delete_topics(topics)


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
    config_path = f"{TOPIC_CONFIGS}/{topic}"
    client = session.client
    _zk(session, "prepare the parent znodes", lambda: (client.ensure_path(TOPIC_CONFIGS), client.ensure_path(TOPICS)))
    transaction = client.transaction()
    labels: list[str] = []
    if fenced:
        transaction.check(CONTROLLER, facts.controller_zk_version)
        labels.append(CONTROLLER)
    # else: a Kafka older than 3.7.1 writes without the fence (ZooKeeper has no "is absent" check op).
    if plan.config_zk_version is None:
        transaction.create(config_path, encode_topic_config(plan.config), acl=_acl_of(session, TOPIC_CONFIGS))
    else:
        transaction.set_data(config_path, encode_topic_config(plan.config), plan.config_zk_version)
    topic_data = encode_new_topic(plan.assignment, plan.topic_znode_version)
    transaction.create(topic_path(topic), topic_data, acl=_acl_of(session, TOPICS))
    labels += [config_path, topic_path(topic)]

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
    path = topic_path(plan.topic)
    data = add_partitions_to_raw(plan.topic_raw, plan.new_assignment)
    client = session.client

    def landed() -> bool:
        return _read(session, path) == data

    def write() -> list[object]:
        try:
            return [client.set(path, data, version=plan.topic_zk_version)]
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


def delete_via_zookeeper(session: ZkSession, topics: Sequence[str]) -> None:
    """Create every ``/admin/delete_topics/<t>`` in one multi-op, each topic checked to exist.

    Raises:
        KafkaRuleError: a topic does not exist ("Topic `<t>` to delete does not exist").
        GuardError: a topic was marked for deletion meanwhile (nothing was written).
    """
    client = session.client
    _zk(session, "prepare /admin/delete_topics", lambda: client.ensure_path(DELETE_TOPICS))
    acl = _acl_of(session, DELETE_TOPICS)
    transaction = client.transaction()
    for topic in topics:
        transaction.check(topic_path(topic), -1)  # -1: any version, i.e. it exists
        transaction.create(f"{DELETE_TOPICS}/{topic}", b"", acl=acl)

    def landed() -> bool:
        return all(_read(session, f"{DELETE_TOPICS}/{t}") is not None for t in topics)

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
