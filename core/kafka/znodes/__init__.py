"""Typed parsers for every znode format Kafka (0.8 to 3.9) keeps in ZooKeeper, by version.

The public face of ``core.kafka.znodes``: import everything from here. Each ``parse_*`` function takes
the znode path (relative to the Kafka chroot) and its data and never raises: data not in Kafka's format
yields an ``Unreadable`` saying why. ``classify`` names the format of a path, ``parse_znode`` dispatches
on it, ``explain`` turns any parsed value into rows for the browser, and ``decode_data`` prepares any
znode's data for display. The formats are those of zk-layout.md §2; strictness rules are in
``core.kafka.znodes.base``.
"""

from __future__ import annotations

from core.kafka.znodes.admin import (
    IsrChangeNotification,
    LogDirEventNotification,
    PreferredElectionRequest,
    ReassignmentRequest,
    parse_isr_change,
    parse_log_dir_event,
    parse_preferred_election,
    parse_reassignment,
)
from core.kafka.znodes.base import Row, Unreadable
from core.kafka.znodes.brokers import (
    SECURITY_PROTOCOLS,
    BrokerRegistration,
    Endpoint,
    parse_broker,
)
from core.kafka.znodes.cluster_wide import (
    ClusterId,
    ControllerInfo,
    FeatureZNode,
    MigrationState,
    ProducerIdBlock,
    parse_cluster_id,
    parse_controller,
    parse_controller_epoch,
    parse_feature,
    parse_migration,
    parse_producer_id_block,
)
from core.kafka.znodes.configs import (
    CONFIG_ENTITY_TYPES,
    ConfigChangeNotification,
    EntityConfig,
    parse_config_change,
    parse_entity_config,
)
from core.kafka.znodes.dispatch import KafkaValue, explain, parse_znode
from core.kafka.znodes.display import DataKind, DecodedData, decode_data, hexdump
from core.kafka.znodes.paths import StructuralZnode, ZnodeKind, classify
from core.kafka.znodes.security import (
    AclChangeEvent,
    AclEntry,
    AclResource,
    GenericKafkaData,
    parse_acl_change,
    parse_acl_resource,
    parse_delegation_token,
    parse_generic,
)
from core.kafka.znodes.topics import (
    DeletionMarker,
    PartitionState,
    TopicAssignment,
    parse_deletion_marker,
    parse_partition_state,
    parse_topic,
)

__all__ = [
    "CONFIG_ENTITY_TYPES",
    "SECURITY_PROTOCOLS",
    "AclChangeEvent",
    "AclEntry",
    "AclResource",
    "BrokerRegistration",
    "ClusterId",
    "ConfigChangeNotification",
    "ControllerInfo",
    "DataKind",
    "DecodedData",
    "DeletionMarker",
    "Endpoint",
    "EntityConfig",
    "FeatureZNode",
    "GenericKafkaData",
    "IsrChangeNotification",
    "KafkaValue",
    "LogDirEventNotification",
    "MigrationState",
    "PartitionState",
    "PreferredElectionRequest",
    "ProducerIdBlock",
    "ReassignmentRequest",
    "Row",
    "StructuralZnode",
    "TopicAssignment",
    "Unreadable",
    "ZnodeKind",
    "classify",
    "decode_data",
    "explain",
    "hexdump",
    "parse_acl_change",
    "parse_acl_resource",
    "parse_broker",
    "parse_cluster_id",
    "parse_config_change",
    "parse_controller",
    "parse_controller_epoch",
    "parse_delegation_token",
    "parse_deletion_marker",
    "parse_entity_config",
    "parse_feature",
    "parse_generic",
    "parse_isr_change",
    "parse_log_dir_event",
    "parse_migration",
    "parse_partition_state",
    "parse_preferred_election",
    "parse_producer_id_block",
    "parse_reassignment",
    "parse_topic",
    "parse_znode",
]
