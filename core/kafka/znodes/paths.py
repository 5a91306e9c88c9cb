"""Which Kafka format a znode path holds: ``classify`` works on paths relative to the Kafka chroot
(``/brokers/topics/foo/partitions/0/state``), following zk-layout §1."""

from __future__ import annotations

import enum
from dataclasses import dataclass

from core.kafka.znodes.base import Row, parser


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


CONFIG_TYPES = frozenset(("topics", "clients", "users", "brokers", "ips"))

# Fixed paths and what they hold; everything here but the data-carrying nodes is STRUCTURAL.
_FIXED: dict[str, ZnodeKind] = {
    "/controller": ZnodeKind.CONTROLLER,
    "/controller_epoch": ZnodeKind.CONTROLLER_EPOCH,
    "/admin/reassign_partitions": ZnodeKind.REASSIGN_PARTITIONS,
    "/admin/preferred_replica_election": ZnodeKind.PREFERRED_REPLICA_ELECTION,
    "/cluster/id": ZnodeKind.CLUSTER_ID,
    "/latest_producer_id_block": ZnodeKind.PRODUCER_ID_BLOCK,
    "/feature": ZnodeKind.FEATURE,
    "/migration": ZnodeKind.MIGRATION,
}

PURPOSES: dict[str, str] = {
    "/brokers": "broker registrations, topics and the broker id sequence",
    "/brokers/ids": "one ephemeral child per live broker",
    "/brokers/topics": "one child per topic (its replica assignment)",
    "/brokers/seqid": "its znode version generates broker ids (plus reserved.broker.max.id)",
    "/admin": "admin requests for the controller",
    "/admin/delete_topics": "one child per topic queued for deletion",
    "/config": "dynamic config overrides, one child per entity type",
    "/config/changes": "config change notifications (purged after 15 minutes)",
    "/isr_change_notification": "ISR change notifications for the controller",
    "/log_dir_event_notification": "log dir failure notifications for the controller",
    "/cluster": "holds the cluster id",
    "/kafka-acl": "literal ACLs, one child per resource type",
    "/kafka-acl-changes": "literal ACL change events",
    "/kafka-acl-extended": "prefixed ACLs (2.0+), one child per pattern type",
    "/kafka-acl-extended-changes": "prefixed ACL change events (2.0+)",
    "/delegation_token": "delegation tokens (1.1+)",
    "/delegation_token/tokens": "one child per delegation token",
    "/delegation_token/token_changes": "delegation token change events",
    "/consumers": "old Scala consumer groups (brokers still create it)",
}

_SEQUENTIAL = {
    "/config/changes": ("config_change_", ZnodeKind.CONFIG_CHANGE),
    "/isr_change_notification": ("isr_change_", ZnodeKind.ISR_CHANGE),
    "/log_dir_event_notification": ("log_dir_event_", ZnodeKind.LOG_DIR_EVENT),
    "/kafka-acl-changes": ("acl_changes_", ZnodeKind.ACL_CHANGE),
    "/kafka-acl-extended-changes": ("acl_changes_", ZnodeKind.ACL_CHANGE),
    "/delegation_token/token_changes": ("token_change_", ZnodeKind.DELEGATION_TOKEN_CHANGE),
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
