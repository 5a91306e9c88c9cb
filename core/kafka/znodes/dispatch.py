"""``parse_znode``: parse any Kafka znode by its path, and ``explain`` any parsed value."""

from __future__ import annotations

from collections.abc import Callable

import core.kafka.znodes.admin as admin
import core.kafka.znodes.brokers as brokers
import core.kafka.znodes.cluster_wide as cluster
import core.kafka.znodes.configs as configs
import core.kafka.znodes.paths as paths
import core.kafka.znodes.security as security
import core.kafka.znodes.topics as topics
from core.kafka.znodes.base import Row, Unreadable, preview
from core.kafka.znodes.paths import ZnodeKind, classify

KafkaValue = (
    cluster.ControllerInfo
    | int
    | brokers.BrokerRegistration
    | topics.TopicAssignment
    | topics.PartitionState
    | topics.DeletionMarker
    | admin.ReassignmentRequest
    | admin.PreferredElectionRequest
    | configs.EntityConfig
    | configs.ConfigChangeNotification
    | admin.IsrChangeNotification
    | admin.LogDirEventNotification
    | cluster.ClusterId
    | cluster.ProducerIdBlock
    | cluster.FeatureZNode
    | cluster.MigrationState
    | security.AclResource
    | security.AclChangeEvent
    | security.GenericKafkaData
    | paths.StructuralZnode
)
"""Every value a Kafka znode parses to (``int`` is the controller epoch)."""

_PARSERS: dict[ZnodeKind, Callable[[str, bytes | None], KafkaValue | Unreadable]] = {
    ZnodeKind.CONTROLLER: cluster.parse_controller,
    ZnodeKind.CONTROLLER_EPOCH: cluster.parse_controller_epoch,
    ZnodeKind.BROKER: brokers.parse_broker,
    ZnodeKind.TOPIC: topics.parse_topic,
    ZnodeKind.PARTITION_STATE: topics.parse_partition_state,
    ZnodeKind.DELETE_TOPIC: topics.parse_deletion_marker,
    ZnodeKind.REASSIGN_PARTITIONS: admin.parse_reassignment,
    ZnodeKind.PREFERRED_REPLICA_ELECTION: admin.parse_preferred_election,
    ZnodeKind.ENTITY_CONFIG: configs.parse_entity_config,
    ZnodeKind.CONFIG_CHANGE: configs.parse_config_change,
    ZnodeKind.ISR_CHANGE: admin.parse_isr_change,
    ZnodeKind.LOG_DIR_EVENT: admin.parse_log_dir_event,
    ZnodeKind.CLUSTER_ID: cluster.parse_cluster_id,
    ZnodeKind.PRODUCER_ID_BLOCK: cluster.parse_producer_id_block,
    ZnodeKind.FEATURE: cluster.parse_feature,
    ZnodeKind.MIGRATION: cluster.parse_migration,
    ZnodeKind.ACL: security.parse_acl_resource,
    ZnodeKind.ACL_CHANGE: security.parse_acl_change,
    ZnodeKind.DELEGATION_TOKEN: security.parse_delegation_token,
    ZnodeKind.DELEGATION_TOKEN_CHANGE: security.parse_generic,
    ZnodeKind.OLD_CONSUMER: security.parse_generic,
    ZnodeKind.STRUCTURAL: paths.parse_structural,
}


def parse_znode(path: str, data: bytes | None) -> KafkaValue | Unreadable | None:
    """Parse ``data`` in the format Kafka uses at ``path`` (relative to the Kafka chroot).

    Returns:
        The parsed value, ``Unreadable`` when the data is not in that format, or ``None`` when
        ``path`` is not a Kafka znode.
    """
    kind = classify(path)
    return None if kind is None else _PARSERS[kind](path, data)


_EXPLAINERS: dict[type, Callable[..., list[Row]]] = {
    cluster.ControllerInfo: cluster.explain_controller,
    int: cluster.explain_controller_epoch,
    cluster.ClusterId: cluster.explain_cluster_id,
    cluster.FeatureZNode: cluster.explain_feature,
    cluster.MigrationState: cluster.explain_migration,
    cluster.ProducerIdBlock: cluster.explain_producer_id_block,
    brokers.BrokerRegistration: brokers.explain_broker,
    topics.TopicAssignment: topics.explain_topic,
    topics.PartitionState: topics.explain_partition_state,
    topics.DeletionMarker: topics.explain_deletion_marker,
    admin.ReassignmentRequest: admin.explain_reassignment,
    admin.PreferredElectionRequest: admin.explain_preferred_election,
    admin.IsrChangeNotification: admin.explain_isr_change,
    admin.LogDirEventNotification: admin.explain_log_dir_event,
    configs.EntityConfig: configs.explain_entity_config,
    configs.ConfigChangeNotification: configs.explain_config_change,
    security.AclResource: security.explain_acl_resource,
    security.AclChangeEvent: security.explain_acl_change,
    security.GenericKafkaData: security.explain_generic,
    paths.StructuralZnode: paths.explain_structural,
}


def explain(value: KafkaValue | Unreadable) -> list[Row]:
    """(field, value as text, one-line meaning) rows for the browser's "explained field by field" pane."""
    if isinstance(value, Unreadable):
        return _explain_unreadable(value)
    explainer = _EXPLAINERS.get(type(value))
    if explainer is None:
        return [("value", repr(value)[:200], "not a Kafka znode value kzc knows")]
    return explainer(value)


def _explain_unreadable(value: Unreadable) -> list[Row]:
    kind = classify(value.path)
    expected = f"Kafka's {kind.value} format" if kind is not None else "a Kafka format"
    return [
        ("error", value.reason, f"the data is not in {expected}; Kafka's own reader may fail on it too"),
        ("size", f"{len(value.raw)} bytes", "raw data size"),
        ("data", preview(value.raw) if value.raw else "(empty)", "start of the raw data"),
    ]
