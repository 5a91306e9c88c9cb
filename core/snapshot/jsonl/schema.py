"""The snapshot file's schema: the record kinds, their fields, one type per field, and Spark's DDL.

Line 1 is a header (``{"kind":"header","format":"kzc-snapshot","version":1,...}``), the last line an
``end`` record with the number of lines before it (a truncated file is detected), and in between one
flat record per line, each with a ``kind``: one per znode value (cluster id, controller, broker, topic,
config, ...), and ONE PER PARTITION. Every field name has a single type across all kinds (``FIELD_TYPES``),
so one explicit schema (``SPARK_SCHEMA_DDL``) reads every line and a filter on ``kind`` selects a
record type::

    spark.read.schema(SPARK_SCHEMA_DDL).json(path).filter("kind = 'partition'")

Each kind writes all of its fields (``KIND_FIELDS``), ``null`` where a value does not apply. A znode
whose data kzc could not parse has ``readable: false`` with ``problem`` (why) and ``raw_base64`` (its
data). The format is specified in ``docs/snapshot-format.md``; a file name ending in ``.gz`` is
gzip-compressed (Spark reads that too).
"""

from __future__ import annotations

FORMAT_NAME = "kzc-snapshot"

# One type per field name, whatever the kind (Spark SQL DDL types). Every value may be null.
FIELD_TYPES: dict[str, str] = {
    "kind": "STRING",
    "path": "STRING",
    "readable": "BOOLEAN",
    "problem": "STRING",
    "raw_base64": "STRING",
    # znode stat
    "czxid": "BIGINT",
    "mzxid": "BIGINT",
    "ctime_ms": "BIGINT",
    "mtime_ms": "BIGINT",
    "zk_version": "INT",
    # header and end
    "format": "STRING",
    "version": "INT",
    "kzc_version": "STRING",
    "taken_at_ms": "BIGINT",
    "zookeeper": "STRING",
    "zxid": "BIGINT",
    "session_id": "BIGINT",
    "broker_count": "INT",
    "topic_count": "INT",
    "partition_count": "INT",
    "record_count": "BIGINT",
    # cluster-wide znodes
    "cluster_id": "STRING",
    "cluster_id_version": "STRING",
    "broker_id": "INT",
    "timestamp_ms": "BIGINT",
    "kraft_controller_epoch": "INT",
    "controller_epoch": "INT",
    "status": "INT",
    "feature_min_versions": "MAP<STRING,INT>",
    "feature_max_versions": "MAP<STRING,INT>",
    "kraft_controller_id": "INT",
    "kraft_metadata_offset": "BIGINT",
    "kraft_metadata_epoch": "INT",
    "block_start": "BIGINT",
    "block_end": "BIGINT",
    # brokers
    "host": "STRING",
    "port": "INT",
    "jmx_port": "INT",
    "endpoints": "ARRAY<STRING>",
    "endpoint_security_protocols": "ARRAY<STRING>",
    "rack": "STRING",
    "listener_security_protocol_map": "MAP<STRING,STRING>",
    # topics and partitions
    "topic": "STRING",
    "topic_id": "STRING",
    "partition": "INT",
    "in_assignment": "BOOLEAN",
    "replicas": "ARRAY<INT>",
    "adding": "ARRAY<INT>",
    "removing": "ARRAY<INT>",
    "state_present": "BOOLEAN",
    "leader": "INT",
    "leader_epoch": "INT",
    "isr": "ARRAY<INT>",
    "leader_recovery_state": "INT",
    # configs, admin requests, notifications
    "entity_type": "STRING",
    "entity_name": "STRING",
    "config": "MAP<STRING,STRING>",
    "entry_count": "INT",
    "notification_type": "STRING",
    "name": "STRING",
    "event": "INT",
    "entity_path": "STRING",
    "entry_topics": "ARRAY<STRING>",
    "entry_partitions": "ARRAY<INT>",
}

_VALUE = ("path", "readable", "problem", "raw_base64")
_TIMES = ("czxid", "mzxid", "ctime_ms", "mtime_ms", "zk_version")
_REQUEST = (*_VALUE, "version", "entry_count", *_TIMES)

# The fields of each kind, in the order they are written (after "kind").
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    "header": ("format", "version", "kzc_version", "taken_at_ms", "zookeeper", "zxid", "session_id",
               "broker_count", "topic_count", "partition_count"),
    "cluster_id": (*_VALUE, "cluster_id", "cluster_id_version"),
    "controller": (*_VALUE, "broker_id", "timestamp_ms", "version", "kraft_controller_epoch"),
    "controller_epoch": (*_VALUE, "controller_epoch", "zk_version"),
    "feature": (*_VALUE, "version", "status", "feature_min_versions", "feature_max_versions"),
    "migration": (*_VALUE, "version", "kraft_controller_id", "kraft_controller_epoch", "kraft_metadata_offset",
                  "kraft_metadata_epoch"),
    "producer_id_block": (*_VALUE, "version", "broker_id", "block_start", "block_end"),
    "delegation_tokens": (*_VALUE, "entry_count"),
    "broker": (*_VALUE, "broker_id", "version", "host", "port", "jmx_port", "timestamp_ms", "endpoints",
               "endpoint_security_protocols", "rack", "listener_security_protocol_map", "feature_min_versions",
               "feature_max_versions", *_TIMES),
    "kraft_broker": ("broker_id",),
    "topic": (*_VALUE, "topic", "version", "topic_id", "partition_count", *_TIMES),
    "partition": ("topic", "partition", "in_assignment", "replicas", "adding", "removing", "state_present",
                  *_VALUE, "leader", "leader_epoch", "isr", "controller_epoch", "leader_recovery_state",
                  "version"),
    "config": (*_VALUE, "entity_type", "entity_name", "version", "config"),
    "deletion_marker": ("path", "topic", *_TIMES),
    "reassignment_request": _REQUEST,
    "reassignment_entry": ("topic", "partition", "replicas"),
    "preferred_election_request": _REQUEST,
    "preferred_election_entry": ("topic", "partition"),
    "notification": (*_VALUE, "notification_type", "name", "ctime_ms", "version", "broker_id", "event",
                     "entity_type", "entity_name", "entity_path", "entry_topics", "entry_partitions"),
    "unreadable": ("path", "problem", "raw_base64"),
    "end": ("record_count",),
}  # fmt: skip

SPARK_SCHEMA_DDL = ", ".join(f"{name} {kind}" for name, kind in FIELD_TYPES.items())
"""The Spark schema of every line, as a DDL string for ``spark.read.schema(...)``."""

# The notification znodes a snapshot holds, in the order they are written.
NOTIFICATION_TYPES = ("isr_change", "log_dir_event", "config_change")
