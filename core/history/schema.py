"""The history store's schema, version 1 (docs/history.md): its tables, columns and rows from a snapshot.

Three tables share one layout, ``<store>/<table>/cluster=<name>/hour=<YYYY-MM-DDTHH>/<file>.parquet``
(hive-style, UTC hours, so Spark and pyarrow read them natively):

- ``events``: one row per change the recorder saw (a partition's state or replicas, a partition gone, a broker
  registered or gone, the controller moved), with the partition's or broker's whole new value;
- ``snapshots``: the whole cluster at one moment (one row per partition, per broker, and one for the
  controller), written at the first read, after every gap and every ``--snapshot-every``;
- ``gaps``: moments the store knows nothing about (``from_ms``, ``to_ms``, ``reason``);
- ``group_lag``: at each traffic tick, each consumer group's committed offset, the partition's high watermark
  then and the lag (``core.groups.lag``), or why unknown (``core.groups.recorded.group_lag_rows``); a store
  without it says "not recorded";
- ``traffic``: the rates of each traffic tick (``core.traffic``): one row per partition (messages and bytes in
  per second) and one per log dir (used bytes, growth per hour), each with its window and read time; a rate
  that cannot be given is null with the reason in its ``*_unknown`` column, never 0.

``events`` and ``snapshots`` have the same columns (``ROW_SCHEMA``), so a question reads both as one sequence of
observations. A row's ``partition`` and ``broker`` columns are null where they do not apply.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from core.kafka.znodes import BrokerRegistration, ControllerInfo, PartitionState, Unreadable
from core.snapshot.model import BrokerEntry, ClusterSnapshot, TopicEntry
from core.traffic.view import Row as TrafficRow
from core.traffic.view import Traffic

STORE_FORMAT = "kzc-history"
STORE_VERSION = 1
EVENTS = "events"
SNAPSHOTS = "snapshots"
GAPS = "gaps"
TRAFFIC = "traffic"
GROUP_LAG = "group_lag"
TABLES = (EVENTS, SNAPSHOTS, GAPS, TRAFFIC, GROUP_LAG)

# Row kinds (the ``kind`` column).
PARTITION = "partition"  # a partition's state and replicas (events: after a change; snapshots: as read)
PARTITION_REMOVED = "partition_removed"  # the partition (or its topic) is gone
BROKER = "broker"  # a broker registered (or re-registered), as /brokers/ids/<id> holds it
BROKER_LEFT = "broker_left"  # its registration went away
CONTROLLER = "controller"  # /controller names ``broker`` (null: no controller) at ``controller_epoch``
LOG_DIR = "log_dir"  # traffic: one log dir of ``broker``

ROW_SCHEMA = pa.schema(
    [
        pa.field("ts_ms", pa.int64(), nullable=False),  # when the recorder saw it (epoch ms, UTC)
        pa.field("seq", pa.int64(), nullable=False),  # order of rows seen in the same millisecond
        pa.field("kind", pa.string(), nullable=False),
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("broker", pa.int32()),
        pa.field("leader", pa.int32()),  # -1: no leader (offline)
        pa.field("leader_epoch", pa.int32()),
        pa.field("isr", pa.list_(pa.int32())),
        pa.field("replicas", pa.list_(pa.int32())),
        pa.field("controller_epoch", pa.int32()),
        pa.field("zk_version", pa.int32()),  # the state znode's version, where the read gave its stat
        pa.field("zk_mtime_ms", pa.int64()),  # ... and its modification time
        pa.field("broker_epoch", pa.int64()),  # a broker's registration czxid (its epoch on 2.2+)
        pa.field("rack", pa.string()),
        pa.field("endpoint", pa.string()),
        pa.field("note", pa.string()),  # why a value is missing: "state unreadable: ...", "no state znode"
    ]
)
GAP_SCHEMA = pa.schema(
    [
        pa.field("from_ms", pa.int64(), nullable=False),
        pa.field("to_ms", pa.int64(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
    ]
)
TRAFFIC_SCHEMA = pa.schema(
    [
        pa.field("ts_ms", pa.int64(), nullable=False),  # the tick (epoch ms, UTC)
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # PARTITION or LOG_DIR
        pa.field("topic", pa.string()),
        pa.field("partition", pa.int32()),
        pa.field("broker", pa.int32()),  # a partition's leader at the end of the window; a log dir's broker
        pa.field("log_dir", pa.string()),
        pa.field("messages_in_per_s", pa.float64()),  # partitions only
        pa.field("messages_unknown", pa.string()),
        pa.field("bytes_in_per_s", pa.float64()),  # a log dir: of the leader replicas it holds
        pa.field("bytes_unknown", pa.string()),
        pa.field("window_s", pa.float64()),  # the longest window of the row's rates
        pa.field("read_ms", pa.int64()),  # when the broker answered (the later reading)
        pa.field("used_bytes", pa.int64()),  # log dirs only, from here on
        pa.field("usable_bytes", pa.int64()),  # free space (DescribeLogDirs v4, Kafka 3.3+)
        pa.field("total_bytes", pa.int64()),
        pa.field("growth_bytes_per_hour", pa.float64()),
        pa.field("growth_unknown", pa.string()),
    ]
)
GROUP_LAG_SCHEMA = pa.schema(
    [
        pa.field("ts_ms", pa.int64(), nullable=False),  # the traffic tick (epoch ms, UTC)
        pa.field("seq", pa.int64(), nullable=False),
        pa.field("group", pa.string()),  # null: the groups could not be read at this tick (why in ``unknown``)
        pa.field("source", pa.string()),  # kafka or zookeeper (core.groups.lag)
        pa.field("state", pa.string()),  # as ListGroups gave it (Stable, Empty, ...); ZooKeeper-stored: Active/Empty
        pa.field("topic", pa.string()),  # null: the group holds no committed offset (or they were not read)
        pa.field("partition", pa.int32()),
        pa.field("committed", pa.int64()),
        pa.field("end_offset", pa.int64()),  # the partition's high watermark at the tick
        pa.field("lag", pa.int64()),  # core.groups.lag.partition_lag; null: unknown (why in ``unknown``)
        pa.field("unknown", pa.string()),
    ]
)
SCHEMAS = {
    EVENTS: ROW_SCHEMA,
    SNAPSHOTS: ROW_SCHEMA,
    GAPS: GAP_SCHEMA,
    TRAFFIC: TRAFFIC_SCHEMA,
    GROUP_LAG: GROUP_LAG_SCHEMA,
}
COLUMNS = tuple(ROW_SCHEMA.names)

Row = dict[str, Any]

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
HOUR_FORMAT = "%Y-%m-%dT%H"
HOUR_MS = 3_600_000


def cluster_key(name: str) -> str:
    """A cluster's directory name: its context name (or connect string) with anything but ``[A-Za-z0-9._-]``
    replaced by ``_``."""
    return _UNSAFE.sub("_", name) or "_"


def hour_of(ms: int) -> str:
    """The UTC hour of ``ms`` as its directory value, ``2026-11-26T19``."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime(HOUR_FORMAT)


@functools.lru_cache(maxsize=65_536)  # every listing of the store parses every hour's name
def hour_start_ms(hour: str) -> int:
    """The first millisecond of an hour directory value (``ValueError`` for anything else)."""
    return int(datetime.strptime(hour, HOUR_FORMAT).replace(tzinfo=UTC).timestamp() * 1000)


def partition_row(ts_ms: int, seq: int, topic: TopicEntry, partition: int, replicas: tuple[int, ...] | None) -> Row:
    """The ``partition`` row of one partition of ``topic`` as the snapshot holds it."""
    state = topic.states.get(partition)
    stamp = topic.state_stamps.get(partition)
    row: Row = {"ts_ms": ts_ms, "seq": seq, "kind": PARTITION, "topic": topic.name, "partition": partition}
    row["replicas"] = list(replicas) if replicas is not None else None
    if isinstance(state, PartitionState):
        row.update(leader=state.leader, leader_epoch=state.leader_epoch, isr=list(state.isr))
        row["controller_epoch"] = state.controller_epoch
    elif isinstance(state, Unreadable):
        row["note"] = f"state unreadable: {state.reason}"
    else:
        row["note"] = "no state znode"
    if stamp is not None:
        row.update(zk_version=stamp.version, zk_mtime_ms=stamp.mtime_ms)
    return row


def broker_row(ts_ms: int, seq: int, entry: BrokerEntry) -> Row:
    """The ``broker`` row of a registered broker."""
    row: Row = {"ts_ms": ts_ms, "seq": seq, "kind": BROKER, "broker": entry.broker_id}
    row["broker_epoch"] = entry.times.czxid
    registration = entry.registration
    if isinstance(registration, BrokerRegistration):
        row["rack"] = registration.rack
        if registration.endpoints:
            first = registration.endpoints[0]
            row["endpoint"] = f"{first.host}:{first.port}"
    else:
        row["note"] = f"registration unreadable: {registration.reason}"
    return row


def controller_row(ts_ms: int, seq: int, snapshot: ClusterSnapshot) -> Row:
    """The ``controller`` row: who holds /controller, at which epoch."""
    controller = snapshot.controller
    epoch = snapshot.controller_epoch
    row: Row = {"ts_ms": ts_ms, "seq": seq, "kind": CONTROLLER}
    row["broker"] = controller.broker_id if isinstance(controller, ControllerInfo) else None
    row["controller_epoch"] = epoch if isinstance(epoch, int) else None
    return row


def partition_replicas(topic: TopicEntry) -> dict[int, tuple[int, ...] | None]:
    """Every partition of ``topic`` (assigned or with a state znode) and its replicas (None: not assigned)."""
    assigned = {} if isinstance(topic.assignment, Unreadable) else dict(topic.assignment.partitions)
    found: dict[int, tuple[int, ...] | None] = dict.fromkeys(topic.states, None)
    found.update(assigned)
    return found


def snapshot_rows(snapshot: ClusterSnapshot, ts_ms: int) -> Iterator[Row]:
    """Every row of the ``snapshots`` table for ``snapshot`` at ``ts_ms``: controller, brokers, partitions."""
    seq = 0
    yield controller_row(ts_ms, seq, snapshot)
    for broker_id in sorted(snapshot.brokers):
        seq += 1
        yield broker_row(ts_ms, seq, snapshot.brokers[broker_id])
    for name in sorted(snapshot.topics):
        topic = snapshot.topics[name]
        for partition, replicas in sorted(partition_replicas(topic).items()):
            seq += 1
            yield partition_row(ts_ms, seq, topic, partition, replicas)


def traffic_rows(ts_ms: int, traffic: Traffic) -> Iterator[Row]:
    """The ``traffic`` rows of one tick: every partition's rates, then every log dir's."""
    seq = 0
    for row in traffic.partitions():
        seq += 1
        out: Row = {"ts_ms": ts_ms, "seq": seq, "kind": PARTITION, "topic": row.topic, "partition": row.partition}
        out["broker"] = row.broker
        yield out | _rates(row)
    for row in traffic.log_dirs():
        seq += 1
        extra = row.extra
        out = {"ts_ms": ts_ms, "seq": seq, "kind": LOG_DIR, "broker": row.broker, "log_dir": row.log_dir}
        out.update({k: extra.get(k) for k in ("used_bytes", "usable_bytes", "total_bytes", "growth_bytes_per_hour")})
        out["growth_unknown"] = extra.get("growth_unknown")
        yield out | _rates(row)


def _rates(row: TrafficRow) -> Row:
    """A traffic row's rates (each null with its reason when unknown), window and read time."""
    out: Row = {}
    windows, reads = [], []
    for name, r in (("messages", row.messages_in), ("bytes", row.bytes_in)):
        if r is None:
            continue
        out[f"{name}_in_per_s"], out[f"{name}_unknown"] = r.per_s, r.unknown
        windows += [r.window_s] if r.window_s is not None else []
        reads += [r.read_ms] if r.read_ms is not None else []
    out["window_s"] = max(windows) if windows else None
    out["read_ms"] = max(reads) if reads else None
    return out


def table_of(table: str, rows: list[Row]) -> pa.Table:
    """``rows`` (dicts, missing columns null) as a pyarrow table of ``table``'s schema."""
    schema = SCHEMAS[table]
    return pa.table({name: [row.get(name) for row in rows] for name in schema.names}, schema=schema)
