"""Kafka's ZooKeeper layout, as ``ZkData.scala`` keeps it: every Kafka znode path kzc reads or writes is
built here, every path pattern is parsed here, and ``classify`` names the format a path holds (zk-layout §1).

Paths are relative to the Kafka chroot (``/brokers/topics/foo/partitions/0/state``). Nothing else in
kzc spells a Kafka path (``tests/unit/test_kafka_path_literals.py`` enforces it). The builders take ``str`` as
well as ``int`` ids, so ``state_path("%s", "%s")`` is the same path as a format string (the Spark engine
builds its path columns with it; topic names cannot contain ``%``).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes.base import Row, parser

# ---- the layout: fixed znodes (ZkData.scala's ``*ZNode.path``) ----------------------------------------
CONTROLLER = "/controller"
CONTROLLER_EPOCH = "/controller_epoch"
BROKERS = "/brokers"
BROKER_IDS = "/brokers/ids"
TOPICS = "/brokers/topics"
BROKER_SEQUENCE_ID = "/brokers/seqid"
ADMIN = "/admin"
DELETE_TOPICS = "/admin/delete_topics"
REASSIGN_PARTITIONS = "/admin/reassign_partitions"
PREFERRED_REPLICA_ELECTION = "/admin/preferred_replica_election"
CONFIG = "/config"
CONFIG_CHANGES = "/config/changes"
ISR_CHANGE_NOTIFICATIONS = "/isr_change_notification"
LOG_DIR_EVENT_NOTIFICATIONS = "/log_dir_event_notification"
CLUSTER = "/cluster"
CLUSTER_ID = "/cluster/id"
PRODUCER_ID_BLOCK = "/latest_producer_id_block"
FEATURE = "/feature"
MIGRATION = "/migration"
ACLS = "/kafka-acl"
ACL_CHANGES = "/kafka-acl-changes"
EXTENDED_ACLS = "/kafka-acl-extended"
EXTENDED_ACL_CHANGES = "/kafka-acl-extended-changes"
DELEGATION_TOKEN_ROOT = "/delegation_token"
DELEGATION_TOKENS = "/delegation_token/tokens"
DELEGATION_TOKEN_CHANGES = "/delegation_token/token_changes"
CONSUMERS = "/consumers"

KAFKA_ROOTS = (
    CONTROLLER,
    CONTROLLER_EPOCH,
    BROKERS,
    ADMIN,
    CONFIG,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    CLUSTER,
    PRODUCER_ID_BLOCK,
    FEATURE,
    MIGRATION,
    ACLS,
    ACL_CHANGES,
    EXTENDED_ACLS,
    EXTENDED_ACL_CHANGES,
    DELEGATION_TOKEN_ROOT,
    CONSUMERS,
)
"""The top-level znodes Kafka (0.8 to 3.9) creates under its chroot."""

# Sequential children: the name prefix before ZooKeeper's 10-digit sequence number.
CONFIG_CHANGE_PREFIX = "config_change_"
ISR_CHANGE_PREFIX = "isr_change_"
LOG_DIR_EVENT_PREFIX = "log_dir_event_"
ACL_CHANGE_PREFIX = "acl_changes_"
TOKEN_CHANGE_PREFIX = "token_change_"
CONFIG_CHANGE_SEQUENCE = f"{CONFIG_CHANGES}/{CONFIG_CHANGE_PREFIX}"
"""What a config change notification is created at, sequentially (``config_change_0000000042``)."""

TOPIC_CONFIG_TYPE = "topics"
BROKER_CONFIG_TYPE = "brokers"
USER_CONFIG_TYPE = "users"
CLIENT_CONFIG_TYPE = "clients"
ACL_CHANGE_SEQUENCE = f"{ACL_CHANGES}/{ACL_CHANGE_PREFIX}"
"""Where a literal ACL change event is created, sequentially (``acl_changes_0000000007``)."""
EXTENDED_ACL_CHANGE_SEQUENCE = f"{EXTENDED_ACL_CHANGES}/{ACL_CHANGE_PREFIX}"
"""Where a prefixed ACL change event (2.0+) is created, sequentially."""
TOPIC_CONFIGS = f"{CONFIG}/{TOPIC_CONFIG_TYPE}"
BROKER_CONFIGS = f"{CONFIG}/{BROKER_CONFIG_TYPE}"
USER_CONFIGS = f"{CONFIG}/users"


# ---- the layout: znodes per entity --------------------------------------------------------------------
def broker_path(broker_id: int | str) -> str:
    """``/brokers/ids/<id>``: a broker's registration (``BrokerIdZNode``)."""
    return f"{BROKER_IDS}/{broker_id}"


def topic_path(topic: str) -> str:
    """``/brokers/topics/<t>``: a topic's replica assignment (``TopicZNode``)."""
    return f"{TOPICS}/{topic}"


def partitions_path(topic: str) -> str:
    """``/brokers/topics/<t>/partitions`` (``TopicPartitionsZNode``)."""
    return f"{topic_path(topic)}/partitions"


def partition_path(topic: str, partition: int | str) -> str:
    """``/brokers/topics/<t>/partitions/<p>`` (``TopicPartitionZNode``)."""
    return f"{TOPICS}/{topic}/partitions/{partition}"


def state_path(topic: str, partition: int | str) -> str:
    """``/brokers/topics/<t>/partitions/<p>/state``: leader and ISR (``TopicPartitionStateZNode``)."""
    return f"{TOPICS}/{topic}/partitions/{partition}/state"  # one f-string: called per partition


def deletion_marker_path(topic: str) -> str:
    """``/admin/delete_topics/<t>``: the request to delete a topic (``DeleteTopicsTopicZNode``)."""
    return f"{DELETE_TOPICS}/{topic}"


def config_type_path(entity_type: str) -> str:
    """``/config/<type>``: one child per entity of that type with overrides (``ConfigEntityTypeZNode``)."""
    return f"{CONFIG}/{entity_type}"


def config_path(entity_type: str, name: str) -> str:
    """``/config/<type>/<name>``: an entity's config overrides (``ConfigEntityZNode``)."""
    return f"{config_type_path(entity_type)}/{name}"


def topic_config_path(topic: str) -> str:
    """``/config/topics/<t>``: a topic's config overrides."""
    return config_path(TOPIC_CONFIG_TYPE, topic)


def broker_config_path(broker: int | str) -> str:
    """``/config/brokers/<id>`` (or ``<default>``): a broker's dynamic config overrides."""
    return config_path(BROKER_CONFIG_TYPE, str(broker))


def quota_entity_path(user: str | None, client_id: str | None) -> tuple[str, str]:
    """The config entity of a quota or a user's credentials, as (type, name) for ``config_path`` and the
    change notification's ``entity_path``: ``users/<u>``, ``users/<u>/clients/<c>`` or ``clients/<c>``
    (names already sanitised; ``<default>`` as it is)."""
    if user is not None and client_id is not None:
        return USER_CONFIG_TYPE, f"{user}/{CLIENT_CONFIG_TYPE}/{client_id}"
    if user is not None:
        return USER_CONFIG_TYPE, user
    if client_id is not None:
        return CLIENT_CONFIG_TYPE, client_id
    raise ValueError("a quota entity names a user, a client id or both")


def user_clients_path(user: str) -> str:
    """``/config/users/<u>/clients``: the user's per-client-id quota entities."""
    return f"{config_path(USER_CONFIG_TYPE, user)}/{CLIENT_CONFIG_TYPE}"


def acl_type_path(resource_type: str, pattern_type: str) -> str:
    """``/kafka-acl/<Type>`` (literal) or ``/kafka-acl-extended/<pattern>/<Type>`` (2.0+): the resources of
    one type with ACLs (``ZkAclStore``)."""
    if pattern_type == "LITERAL":
        return f"{ACLS}/{resource_type}"
    return f"{EXTENDED_ACLS}/{pattern_type.lower()}/{resource_type}"


def acl_path(resource_type: str, name: str, pattern_type: str = "LITERAL") -> str:
    """``/kafka-acl/<Type>/<name>`` or ``/kafka-acl-extended/prefixed/<Type>/<name>``: one pattern's ACLs."""
    return f"{acl_type_path(resource_type, pattern_type)}/{name}"


def acl_change_sequence(pattern_type: str) -> str:
    """Where the change event of a pattern's ACLs is created: literal or extended (``ZkAclChangeStore``)."""
    return ACL_CHANGE_SEQUENCE if pattern_type == "LITERAL" else EXTENDED_ACL_CHANGE_SEQUENCE


def child_path(parent: str, name: str) -> str:
    """A child of a Kafka container znode (a notification under its parent, a listed child)."""
    return f"{parent}/{name}"


def consumer_group_path(group: str) -> str:
    """``/consumers/<g>``: an old Scala consumer group (``ZKGroupDirs``)."""
    return f"{CONSUMERS}/{group}"


def consumer_offset_path(group: str, topic: str, partition: int | str) -> str:
    """``/consumers/<g>/offsets/<t>/<p>``: an old consumer's committed offset (``ZKGroupTopicDirs``)."""
    return f"{consumer_group_path(group)}/offsets/{topic}/{partition}"


# ---- path patterns ------------------------------------------------------------------------------------
_NAME = r"([^/]+)"
_BROKER_PATH = re.compile(re.escape(BROKER_IDS) + "/([0-9]+)")
_TOPIC_PATH = re.compile(re.escape(TOPICS) + "/" + _NAME)
_STATE_PATH = re.compile(re.escape(TOPICS) + "/" + _NAME + r"/partitions/([0-9]+)/state")
_TOPIC_NAMED = re.compile("(?:" + "|".join(re.escape(p) for p in (TOPICS, TOPIC_CONFIGS, DELETE_TOPICS)) + ")/" + _NAME)


def parse_broker_path(path: str) -> int | None:
    """The broker id of ``/brokers/ids/<id>``; None for any other path (or a child that is not a number)."""
    match = _BROKER_PATH.fullmatch(path)
    return int(match.group(1)) if match else None


def parse_topic_path(path: str) -> str | None:
    """The topic of ``/brokers/topics/<t>``; None for any other path."""
    match = _TOPIC_PATH.fullmatch(path)
    return match.group(1) if match else None


def parse_state_path(path: str) -> TopicPartition | None:
    """The (topic, partition) of ``/brokers/topics/<t>/partitions/<p>/state``; None for any other path."""
    match = _STATE_PATH.fullmatch(path)
    return (match.group(1), int(match.group(2))) if match else None


def located(path: str) -> tuple[str | None, int | None]:
    """The topic and partition a topic's znode belongs to: a partition state gives both; the assignment,
    the topic's config and its deletion marker give the topic; any other path gives (None, None)."""
    if state := parse_state_path(path):
        return state
    match = _TOPIC_NAMED.fullmatch(path)
    return (match.group(1), None) if match else (None, None)


class ZnodeKind(enum.Enum):
    """The Kafka format of a znode; the value is a short name for display."""

    CONTROLLER = "controller"
    CONTROLLER_EPOCH = "controller epoch"
    BROKER = "broker registration"
    TOPIC = "topic assignment"
    PARTITION_STATE = "partition state"
    DELETE_TOPIC = "topic deletion marker"
    REASSIGN_PARTITIONS = "partition reassignment"
    PREFERRED_REPLICA_ELECTION = "preferred replica election"
    ENTITY_CONFIG = "entity config"
    CONFIG_CHANGE = "config change notification"
    ISR_CHANGE = "ISR change notification"
    LOG_DIR_EVENT = "log dir event notification"
    CLUSTER_ID = "cluster id"
    PRODUCER_ID_BLOCK = "producer id block"
    FEATURE = "finalized features"
    MIGRATION = "ZooKeeper to KRaft migration state"
    ACL = "ACLs"
    ACL_CHANGE = "ACL change event"
    DELEGATION_TOKEN = "delegation token"
    DELEGATION_TOKEN_CHANGE = "delegation token change"
    OLD_CONSUMER = "old consumer data"
    STRUCTURAL = "Kafka container"


CONFIG_TYPES = frozenset((TOPIC_CONFIG_TYPE, "clients", "users", BROKER_CONFIG_TYPE, "ips"))

# Fixed paths and what they hold; everything here but the data-carrying nodes is STRUCTURAL.
_FIXED: dict[str, ZnodeKind] = {
    CONTROLLER: ZnodeKind.CONTROLLER,
    CONTROLLER_EPOCH: ZnodeKind.CONTROLLER_EPOCH,
    REASSIGN_PARTITIONS: ZnodeKind.REASSIGN_PARTITIONS,
    PREFERRED_REPLICA_ELECTION: ZnodeKind.PREFERRED_REPLICA_ELECTION,
    CLUSTER_ID: ZnodeKind.CLUSTER_ID,
    PRODUCER_ID_BLOCK: ZnodeKind.PRODUCER_ID_BLOCK,
    FEATURE: ZnodeKind.FEATURE,
    MIGRATION: ZnodeKind.MIGRATION,
}

PURPOSES: dict[str, str] = {
    BROKERS: "broker registrations, topics and the broker id sequence",
    BROKER_IDS: "one ephemeral child per live broker",
    TOPICS: "one child per topic (its replica assignment)",
    BROKER_SEQUENCE_ID: "its znode version generates broker ids (plus reserved.broker.max.id)",
    ADMIN: "admin requests for the controller",
    DELETE_TOPICS: "one child per topic queued for deletion",
    CONFIG: "dynamic config overrides, one child per entity type",
    CONFIG_CHANGES: "config change notifications (purged after 15 minutes)",
    ISR_CHANGE_NOTIFICATIONS: "ISR change notifications for the controller",
    LOG_DIR_EVENT_NOTIFICATIONS: "log dir failure notifications for the controller",
    CLUSTER: "holds the cluster id",
    ACLS: "literal ACLs, one child per resource type",
    ACL_CHANGES: "literal ACL change events",
    EXTENDED_ACLS: "prefixed ACLs (2.0+), one child per pattern type",
    EXTENDED_ACL_CHANGES: "prefixed ACL change events (2.0+)",
    DELEGATION_TOKEN_ROOT: "delegation tokens (1.1+)",
    DELEGATION_TOKENS: "one child per delegation token",
    DELEGATION_TOKEN_CHANGES: "delegation token change events",
    CONSUMERS: "old Scala consumer groups (brokers still create it)",
}

_SEQUENTIAL = {
    CONFIG_CHANGES: (CONFIG_CHANGE_PREFIX, ZnodeKind.CONFIG_CHANGE),
    ISR_CHANGE_NOTIFICATIONS: (ISR_CHANGE_PREFIX, ZnodeKind.ISR_CHANGE),
    LOG_DIR_EVENT_NOTIFICATIONS: (LOG_DIR_EVENT_PREFIX, ZnodeKind.LOG_DIR_EVENT),
    ACL_CHANGES: (ACL_CHANGE_PREFIX, ZnodeKind.ACL_CHANGE),
    EXTENDED_ACL_CHANGES: (ACL_CHANGE_PREFIX, ZnodeKind.ACL_CHANGE),
    DELEGATION_TOKEN_CHANGES: (TOKEN_CHANGE_PREFIX, ZnodeKind.DELEGATION_TOKEN_CHANGE),
}


def classify(path: str) -> ZnodeKind | None:
    """The Kafka format of ``path`` (relative to the Kafka chroot), or ``None`` for a non-Kafka path."""
    if path in _FIXED:
        return _FIXED[path]
    if path in PURPOSES:
        return ZnodeKind.STRUCTURAL
    parent, _, name = path.rpartition("/")
    if not name or not path.startswith("/"):
        return None
    sequential = _SEQUENTIAL.get(parent)
    if sequential is not None:
        return sequential[1] if name.startswith(sequential[0]) else None
    return _classify_nested(path.split("/")[1:])


def _classify_nested(parts: list[str]) -> ZnodeKind | None:
    # parts has no empty entries from here on: an empty segment means a malformed path.
    if "" in parts:
        return None
    depth = len(parts)
    root = parts[0]
    if root == "brokers" and depth == 3 and parts[1] == "ids":
        return ZnodeKind.BROKER
    if root == "brokers" and depth >= 3 and parts[1] == "topics":
        return _classify_topic(parts[3:])
    if root == "admin" and depth == 3 and parts[1] == "delete_topics":
        return ZnodeKind.DELETE_TOPIC
    if root == "config" and parts[1] in CONFIG_TYPES:
        if depth == 2:
            return ZnodeKind.STRUCTURAL
        if depth == 3 or (depth == 5 and parts[1] == "users" and parts[3] == "clients"):
            return ZnodeKind.ENTITY_CONFIG
        return ZnodeKind.STRUCTURAL if depth == 4 and parts[1] == "users" and parts[3] == "clients" else None
    if root == "kafka-acl":
        return {2: ZnodeKind.STRUCTURAL, 3: ZnodeKind.ACL}.get(depth)
    if root == "kafka-acl-extended":
        return {2: ZnodeKind.STRUCTURAL, 3: ZnodeKind.STRUCTURAL, 4: ZnodeKind.ACL}.get(depth)
    if root == "delegation_token" and depth == 3 and parts[1] == "tokens":
        return ZnodeKind.DELEGATION_TOKEN
    if root == "consumers":
        return ZnodeKind.OLD_CONSUMER
    return None


def _classify_topic(below_topic: list[str]) -> ZnodeKind | None:
    # below_topic: what follows /brokers/topics/<t>
    if not below_topic:
        return ZnodeKind.TOPIC
    if below_topic[0] != "partitions" or len(below_topic) > 3:
        return None
    if len(below_topic) == 3:
        return ZnodeKind.PARTITION_STATE if below_topic[2] == "state" else None
    return ZnodeKind.STRUCTURAL


@dataclass(frozen=True, slots=True)
class StructuralZnode:
    """A Kafka znode whose data does not matter, only its children (or version): ``purpose`` says what."""

    path: str
    purpose: str


def purpose_of(path: str) -> str:
    """What a structural Kafka znode holds."""
    if path in PURPOSES:
        return PURPOSES[path]
    parts = path.split("/")[1:]
    if parts[:2] == ["brokers", "topics"]:
        return "one child per partition" if len(parts) == 4 else "holds the partition's state znode"
    if parts[0] == "config":
        return "one child per entity with overrides" if len(parts) == 2 else "per-client overrides of this user"
    if parts[0].startswith("kafka-acl"):
        return "one child per resource (or resource type) with ACLs"
    return "Kafka container"


@parser
def parse_structural(path: str, data: bytes) -> StructuralZnode:
    """A structural znode; its data is ignored (Kafka creates most of them with none)."""
    return StructuralZnode(path=path, purpose=purpose_of(path))


def explain_structural(value: StructuralZnode) -> list[Row]:
    """Meaning of a structural znode."""
    return [("znode", value.path, value.purpose)]
