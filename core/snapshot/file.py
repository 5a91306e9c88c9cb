"""The snapshot as a file: versioned JSON Lines that kzc reads back exactly and Spark reads directly.

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
gzip-compressed (Spark reads that too). Writing goes to a temporary file renamed into place, so a
half-written snapshot never carries the final name.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

from core import __version__
from core.errors import KzcError, UsageError
from core.interrupt import on_interrupt
from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ConfigChangeNotification,
    ControllerInfo,
    Endpoint,
    EntityConfig,
    FeatureZNode,
    IsrChangeNotification,
    LogDirEventNotification,
    MigrationState,
    PartitionState,
    PreferredElectionRequest,
    ProducerIdBlock,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
)
from core.kafka.znodes.paths import (
    CLUSTER_ID,
    CONFIG_CHANGES,
    CONTROLLER,
    CONTROLLER_EPOCH,
    DELEGATION_TOKENS,
    FEATURE,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    MIGRATION,
    PREFERRED_REPLICA_ELECTION,
    PRODUCER_ID_BLOCK,
    REASSIGN_PARTITIONS,
    broker_path,
    child_path,
    config_path,
    deletion_marker_path,
    state_path,
    topic_path,
)
from core.snapshot.model import (
    READABLE_FORMAT_VERSIONS,
    SNAPSHOT_FORMAT_VERSION,
    BrokerEntry,
    ClusterSnapshot,
    Notification,
    TopicEntry,
    ZnodeTimes,
)

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

_NOTIFICATION_TYPES = ("isr_change", "log_dir_event", "config_change")


# ---- writing ------------------------------------------------------------------------------------


def write_snapshot_file(snapshot: ClusterSnapshot, path: str | Path) -> int:
    """Write ``snapshot`` to ``path`` (gzip when it ends in ``.gz``); return the number of lines.

    Raises:
        KzcError: the file cannot be written (the message names it and why).
    """
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise KzcError(f"cannot write the snapshot to {target}: {exc.strerror or exc}") from exc
    tmp = Path(tmp_name)
    count = 0
    # Ctrl-C removes the partial file (core.interrupt); the target only ever appears complete.
    unregister = on_interrupt(lambda: tmp.unlink(missing_ok=True))
    try:
        with os.fdopen(fd, "wb") as raw, _text_writer(raw, target.name.endswith(".gz")) as out:
            writer = RecordWriter(out)
            for record in _lines(snapshot):
                if type(record) is dict:
                    writer.line(record)
                else:
                    writer.partition(*record)
            count = writer.count
        tmp.replace(target)
    except OSError as exc:
        with suppress(OSError):
            tmp.unlink()
        raise KzcError(f"cannot write the snapshot to {target}: {exc.strerror or exc}") from exc
    except BaseException:
        with suppress(OSError):
            tmp.unlink()
        raise
    finally:
        unregister()
    return count


class RecordWriter:
    """Writes this format's lines to a text stream, one record at a time: ``write_snapshot_file`` and writers
    that stream records without a ``ClusterSnapshot`` in memory (``core.testdata.synthetic``) share it, so the
    line format is written in one place. ``count`` is the number of lines written."""

    def __init__(self, out: IO[str]) -> None:
        self._out = out
        self.count = 0
        # The last topic, as JSON, and its state path as JSON split where the partition goes.
        self._topic: tuple[str, str, str, str] = ("", "", "", "")

    def line(self, record: Mapping[str, Any]) -> None:
        """Write one record (a dict as ``iter_records`` yields it)."""
        self._out.write(json.dumps(record, separators=(",", ":")))
        self._out.write("\n")
        self.count += 1

    def record(self, kind: str, **values: Any) -> None:
        """Write one record of ``kind``: its ``KIND_FIELDS`` in order, ``null`` where not given."""
        self.line({"kind": kind, **{name: values.get(name) for name in KIND_FIELDS[kind]}})

    def partition(
        self,
        topic: str,
        partition: int,
        replicas: Sequence[int],
        adding: Sequence[int],
        removing: Sequence[int],
        state: PartitionState | tuple[int, list[int], int] | str | None,
        raw_base64: str | None = None,
    ) -> None:
        """Write one assigned partition: the same line as ``record("partition", ...)``, formatted directly (a
        snapshot has one per partition, the synthetic writer emits millions). ``state``: a readable state, or
        ``(leader, isr, controller_epoch)`` of a readable version 1 state with leader epoch 0, the problem of an
        unreadable one (with its ``raw_base64``), or None when its state znode is absent."""
        if self._topic[0] != topic:  # partitions come topic by topic: quote the name once
            before, after = json.dumps(state_path(topic, "\x00")).rsplit("\\u0000", 1)
            self._topic = (topic, json.dumps(topic), before, after)
        _, quoted, before, after = self._topic
        head = (
            f'{{"kind":"partition","topic":{quoted},"partition":{partition},"in_assignment":true,'
            f'"replicas":{_ints(replicas)},"adding":{_ints(adding)},"removing":{_ints(removing)},'
        )
        path = f"{before}{partition}{after}"
        if state is None:
            tail = (
                f'"state_present":false,"path":{path},"readable":null,"problem":null,"raw_base64":null,'
                '"leader":null,"leader_epoch":null,"isr":null,"controller_epoch":null,"leader_recovery_state":null,'
                '"version":null}'
            )
        elif type(state) is PartitionState:
            tail = (
                f'"state_present":true,"path":{path},"readable":true,"problem":null,"raw_base64":null,'
                f'"leader":{state.leader},"leader_epoch":{state.leader_epoch},"isr":{_ints(state.isr)},'
                f'"controller_epoch":{state.controller_epoch},"leader_recovery_state":{state.leader_recovery_state},'
                f'"version":{state.version}}}'
            )
        elif isinstance(state, str):
            tail = (
                f'"state_present":true,"path":{path},"readable":false,"problem":{json.dumps(state)},'
                f'"raw_base64":{json.dumps(raw_base64)},"leader":null,"leader_epoch":null,"isr":null,'
                '"controller_epoch":null,"leader_recovery_state":null,"version":null}'
            )
        else:
            leader, isr, epoch = state  # type: ignore[misc]
            tail = (
                f'"state_present":true,"path":{path},"readable":true,"problem":null,"raw_base64":null,'
                f'"leader":{leader},"leader_epoch":0,"isr":{_ints(isr)},"controller_epoch":{epoch},'
                '"leader_recovery_state":0,"version":1}'
            )
        self._out.write(head + tail + "\n")
        self.count += 1


def _ints(values: Sequence[int]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


def _text_writer(raw: IO[bytes], compress: bool) -> IO[str]:
    # GzipFile does not close ``raw``; the caller's ``with`` does.
    if compress:
        return io.TextIOWrapper(gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6), encoding="utf-8", newline="\n")
    return io.TextIOWrapper(raw, encoding="utf-8", newline="\n")


# An assigned partition whose state is readable or absent, for ``RecordWriter.partition`` (its arguments):
# formatted directly, as building and encoding a dict per partition took most of a write.
PartitionLine = tuple[str, int, tuple[int, ...], tuple[int, ...], tuple[int, ...], PartitionState | None]


def iter_records(snapshot: ClusterSnapshot) -> Iterator[dict[str, Any]]:
    """Every line of the file for ``snapshot``, as dicts, header first and ``end`` last."""
    for record in _lines(snapshot):
        if type(record) is dict:
            yield record
        else:
            line = io.StringIO()
            RecordWriter(line).partition(*record)
            yield json.loads(line.getvalue())


def _lines(snapshot: ClusterSnapshot) -> Iterator[dict[str, Any] | PartitionLine]:
    """What ``write_snapshot_file`` writes, line by line: a record, or a ``PartitionLine`` (the partition record
    of those fields)."""
    count = 0

    def rec(kind: str, **values: Any) -> dict[str, Any]:
        nonlocal count
        count += 1
        return {"kind": kind, **{name: values.get(name) for name in KIND_FIELDS[kind]}}

    yield rec(
        "header",
        format=FORMAT_NAME,
        version=SNAPSHOT_FORMAT_VERSION,
        kzc_version=__version__,
        taken_at_ms=snapshot.taken_at_ms,
        zookeeper=snapshot.zookeeper,
        zxid=snapshot.zxid,
        session_id=snapshot.session_id,
        broker_count=len(snapshot.brokers),
        topic_count=len(snapshot.topics),
        partition_count=snapshot.partition_count,
    )
    yield from _cluster_records(snapshot, rec)
    for entry in snapshot.brokers.values():
        yield rec("broker", **_broker_values(entry))
    for broker_id in sorted(snapshot.kraft_brokers or ()):
        yield rec("kraft_broker", broker_id=broker_id)
    for topic in snapshot.topics.values():
        for record in _topic_records(topic, rec):
            if type(record) is tuple:
                count += 1
            yield record
    for entity_type, configs in (("topics", snapshot.topic_configs), ("brokers", snapshot.broker_configs)):
        for name, config in configs.items():
            values = _value(config, config_path(entity_type, name))
            if isinstance(config, EntityConfig):
                values.update(version=config.version, config=dict(config.config))
            yield rec("config", entity_type=entity_type, entity_name=name, **values)
    for topic_name, times in snapshot.deletion_markers.items():
        yield rec("deletion_marker", path=deletion_marker_path(topic_name), topic=topic_name, **_times(times))
    yield from _request_records(snapshot, rec)
    for kind, notes in zip(
        _NOTIFICATION_TYPES,
        (
            snapshot.isr_change_notifications,
            snapshot.log_dir_event_notifications,
            snapshot.config_change_notifications,
        ),
        strict=True,
    ):
        for note in notes:
            yield rec("notification", **_notification_values(kind, note))
    for problem in snapshot.unreadable:
        yield rec("unreadable", path=problem.path, problem=problem.reason, raw_base64=_b64(problem.raw))
    yield rec("end", record_count=count)


Rec = Callable[..., dict[str, Any]]


def _cluster_records(snapshot: ClusterSnapshot, rec: Rec) -> Iterator[dict[str, Any]]:
    if snapshot.cluster_id is not None:
        values = _value(snapshot.cluster_id, CLUSTER_ID)
        if isinstance(snapshot.cluster_id, ClusterId):
            values.update(cluster_id=snapshot.cluster_id.id, cluster_id_version=snapshot.cluster_id.version)
        yield rec("cluster_id", **values)
    if snapshot.controller is not None:
        values = _value(snapshot.controller, CONTROLLER)
        if isinstance(snapshot.controller, ControllerInfo):
            c = snapshot.controller
            values.update(
                broker_id=c.broker_id,
                timestamp_ms=c.timestamp_ms,
                version=c.version,
                kraft_controller_epoch=c.kraft_controller_epoch,
            )
        yield rec("controller", **values)
    if snapshot.controller_epoch is not None or snapshot.controller_epoch_zk_version is not None:
        values = _value(snapshot.controller_epoch, CONTROLLER_EPOCH)
        if isinstance(snapshot.controller_epoch, int):
            values.update(controller_epoch=snapshot.controller_epoch)
        yield rec("controller_epoch", zk_version=snapshot.controller_epoch_zk_version, **values)
    if snapshot.feature is not None:
        values = _value(snapshot.feature, FEATURE)
        if isinstance(snapshot.feature, FeatureZNode):
            f = snapshot.feature
            values.update(
                version=f.version,
                status=f.status,
                feature_min_versions={n: lo for n, lo, _ in f.features if lo is not None},
                feature_max_versions={n: hi for n, _, hi in f.features},
            )
        yield rec("feature", **values)
    if snapshot.migration is not None:
        values = _value(snapshot.migration, MIGRATION)
        if isinstance(snapshot.migration, MigrationState):
            m = snapshot.migration
            values.update(
                version=m.version,
                kraft_controller_id=m.kraft_controller_id,
                kraft_controller_epoch=m.kraft_controller_epoch,
                kraft_metadata_offset=m.kraft_metadata_offset,
                kraft_metadata_epoch=m.kraft_metadata_epoch,
            )
        yield rec("migration", **values)
    if snapshot.producer_id_block is not None:
        values = _value(snapshot.producer_id_block, PRODUCER_ID_BLOCK)
        if isinstance(snapshot.producer_id_block, ProducerIdBlock):
            b = snapshot.producer_id_block
            values.update(version=b.version, broker_id=b.broker, block_start=b.block_start, block_end=b.block_end)
        yield rec("producer_id_block", **values)
    if snapshot.delegation_tokens is not None:
        values = _value(snapshot.delegation_tokens, DELEGATION_TOKENS)
        if isinstance(snapshot.delegation_tokens, int):
            values.update(entry_count=snapshot.delegation_tokens)
        yield rec("delegation_tokens", **values)


def _broker_values(entry: BrokerEntry) -> dict[str, Any]:
    values = _value(entry.registration, broker_path(entry.broker_id))
    values.update(broker_id=entry.broker_id, **_times(entry.times))
    r = entry.registration
    if isinstance(r, BrokerRegistration):
        values.update(
            version=r.version,
            host=r.host,
            port=r.port,
            jmx_port=r.jmx_port,
            timestamp_ms=r.timestamp_ms,
            endpoints=[str(e) for e in r.endpoints],
            endpoint_security_protocols=[e.security_protocol for e in r.endpoints],
            rack=r.rack,
            listener_security_protocol_map=(
                None if r.listener_security_protocol_map is None else dict(r.listener_security_protocol_map)
            ),
            feature_min_versions=None if r.features is None else {n: lo for n, lo, _ in r.features},
            feature_max_versions=None if r.features is None else {n: hi for n, _, hi in r.features},
        )
    return values


def _topic_records(topic: TopicEntry, rec: Rec) -> Iterator[dict[str, Any] | PartitionLine]:
    base = topic_path(topic.name)
    values = _value(topic.assignment, base)
    assignment = topic.assignment if isinstance(topic.assignment, TopicAssignment) else None
    if assignment is not None:
        values.update(version=assignment.version, topic_id=assignment.topic_id)
    yield rec(
        "topic",
        topic=topic.name,
        partition_count=assignment.partition_count if assignment else 0,
        **values,
        **_times(topic.times),
    )
    listed = dict(assignment.partitions) if assignment else {}
    adding = dict(assignment.adding) if assignment else {}
    removing = dict(assignment.removing) if assignment else {}
    states = topic.states
    for partition in sorted(listed.keys() | states.keys()):
        replicas = listed.get(partition)
        state = states.get(partition, _NOT_READ)
        if replicas is not None and (state is None or type(state) is PartitionState):
            yield (topic.name, partition, replicas, adding.get(partition, ()), removing.get(partition, ()), state)
            continue
        row: dict[str, Any] = {"topic": topic.name, "partition": partition, "in_assignment": replicas is not None}
        if replicas is not None:
            row.update(
                replicas=list(replicas),
                adding=list(adding.get(partition, ())),
                removing=list(removing.get(partition, ())),
            )
        state_znode = state_path(topic.name, partition)
        if state is not _NOT_READ:
            row["state_present"] = state is not None
            row["path"] = state_znode
            if state is not None:
                row.update(_value(state, state_znode))
            if isinstance(state, PartitionState):
                row.update(
                    leader=state.leader,
                    leader_epoch=state.leader_epoch,
                    isr=list(state.isr),
                    controller_epoch=state.controller_epoch,
                    leader_recovery_state=state.leader_recovery_state,
                    version=state.version,
                )
        yield rec("partition", **row)


_NOT_READ = object()  # a listed partition the snapshot holds no state entry for


def _request_records(snapshot: ClusterSnapshot, rec: Rec) -> Iterator[dict[str, Any]]:
    if snapshot.reassignment is not None:
        values = _value(snapshot.reassignment, REASSIGN_PARTITIONS)
        entries = snapshot.reassignment.partitions if isinstance(snapshot.reassignment, ReassignmentRequest) else ()
        if isinstance(snapshot.reassignment, ReassignmentRequest):
            values.update(version=snapshot.reassignment.version, entry_count=len(entries))
        yield rec("reassignment_request", **values, **_times(snapshot.reassignment_times))
        for topic, partition, replicas in entries:
            yield rec("reassignment_entry", topic=topic, partition=partition, replicas=list(replicas))
    if snapshot.preferred_election is not None:
        election = snapshot.preferred_election
        values = _value(election, PREFERRED_REPLICA_ELECTION)
        pairs = election.partitions if isinstance(election, PreferredElectionRequest) else ()
        if isinstance(election, PreferredElectionRequest):
            values.update(version=election.version, entry_count=len(pairs))
        yield rec("preferred_election_request", **values, **_times(snapshot.preferred_election_times))
        for topic, partition in pairs:
            yield rec("preferred_election_entry", topic=topic, partition=partition)


def _notification_values(kind: str, note: Notification) -> dict[str, Any]:
    parent = {
        "isr_change": ISR_CHANGE_NOTIFICATIONS,
        "log_dir_event": LOG_DIR_EVENT_NOTIFICATIONS,
        "config_change": CONFIG_CHANGES,
    }[kind]
    values = _value(note.value, child_path(parent, note.name))
    values.update(notification_type=kind, name=note.name, ctime_ms=note.ctime_ms)
    value = note.value
    if isinstance(value, IsrChangeNotification):
        values.update(
            version=value.version,
            entry_topics=[t for t, _ in value.partitions],
            entry_partitions=[p for _, p in value.partitions],
        )
    elif isinstance(value, LogDirEventNotification):
        values.update(version=value.version, broker_id=value.broker, event=value.event)
    elif isinstance(value, ConfigChangeNotification):
        values.update(
            version=value.version,
            entity_type=value.entity_type,
            entity_name=value.entity_name,
            entity_path=value.entity_path,
        )
    elif not isinstance(value, Unreadable):
        raise KzcError(f"cannot write notification {note.name}: unexpected value {type(value).__name__}")
    return values


def _value(value: object, path: str) -> dict[str, Any]:
    """The common fields of a znode value: its path, whether it is readable, and why not."""
    if isinstance(value, Unreadable):
        return {"path": value.path, "readable": False, "problem": value.reason, "raw_base64": _b64(value.raw)}
    return {"path": path, "readable": True}


def _times(times: ZnodeTimes | None) -> dict[str, Any]:
    if times is None:
        return {}
    return {
        "czxid": times.czxid,
        "mzxid": times.mzxid,
        "ctime_ms": times.ctime_ms,
        "mtime_ms": times.mtime_ms,
        "zk_version": times.version,
    }


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


# ---- reading ------------------------------------------------------------------------------------


class _Line:
    """One parsed record with its line number, for typed access with clear errors."""

    __slots__ = ("data", "number", "source")

    def __init__(self, source: Path, number: int, data: dict[str, Any]) -> None:
        self.source = source
        self.number = number
        self.data = data

    def fail(self, message: str) -> UsageError:
        return UsageError(f"{self.source} line {self.number}: {message}")

    def opt(self, name: str) -> Any:
        return self.data.get(name)

    def req(self, name: str) -> Any:
        value = self.data.get(name)
        if value is None:
            raise self.fail(f"a {self.data.get('kind')} record needs field '{name}'")
        return value

    def unreadable(self) -> Unreadable | None:
        if self.data.get("readable") is not False:
            return None
        try:
            raw = base64.b64decode(self.req("raw_base64"), validate=True)
        except (binascii.Error, ValueError):
            raise self.fail("raw_base64 is not valid base64") from None
        return Unreadable(self.req("path"), raw, self.req("problem"))

    def times(self) -> ZnodeTimes:
        return ZnodeTimes(
            self.req("czxid"), self.req("mzxid"), self.req("ctime_ms"), self.req("mtime_ms"), self.req("zk_version")
        )

    def opt_times(self) -> ZnodeTimes | None:
        return None if self.data.get("czxid") is None else self.times()


def read_snapshot_file(path: str | Path) -> ClusterSnapshot:
    """Read a snapshot file written by ``write_snapshot_file`` (plain or ``.gz``).

    Raises:
        UsageError: the file is missing, unreadable, not a kzc snapshot, of an unsupported format
            version, truncated, or a line is malformed (the message names the line and field).
    """
    source = Path(path)
    try:
        with _open_text(source) as lines:
            return _Builder(source).build(lines)
    except FileNotFoundError:
        raise UsageError(f"no snapshot file {source}") from None
    except (OSError, EOFError, UnicodeDecodeError, gzip.BadGzipFile) as exc:
        raise UsageError(f"cannot read snapshot file {source}: {exc}") from None


def _open_text(source: Path) -> IO[str]:
    if source.name.endswith(".gz"):
        return gzip.open(source, "rt", encoding="utf-8")
    return source.open("r", encoding="utf-8")


_CHECKS: dict[str, Callable[[Any], bool]] = {
    "STRING": lambda v: type(v) is str,
    "BOOLEAN": lambda v: type(v) is bool,
    "INT": lambda v: type(v) is int and -(2**31) <= v < 2**31,
    "BIGINT": lambda v: type(v) is int and -(2**63) <= v < 2**63,
    "ARRAY<INT>": lambda v: type(v) is list and all(type(i) is int and -(2**31) <= i < 2**31 for i in v),
    "ARRAY<STRING>": lambda v: type(v) is list and all(type(i) is str for i in v),
    "MAP<STRING,STRING>": lambda v: type(v) is dict and all(type(i) is str for i in v.values()),
    "MAP<STRING,INT>": lambda v: type(v) is dict and all(type(i) is int and -(2**31) <= i < 2**31 for i in v.values()),
}
_FIELD_CHECKS = {name: (kind, _CHECKS[kind]) for name, kind in FIELD_TYPES.items()}
_DECODER = json.JSONDecoder()


class _Builder:
    """Collects records line by line into the parts of a ``ClusterSnapshot``."""

    def __init__(self, source: Path) -> None:
        self.source = source
        self.header: dict[str, Any] = {}
        self.singles: dict[str, object] = {}
        self.epoch_zk_version: int | None = None
        self.brokers: dict[int, BrokerEntry] = {}
        self.topics: dict[str, _TopicAcc] = {}
        self.configs: dict[str, dict[str, EntityConfig | Unreadable]] = {"topics": {}, "brokers": {}}
        self.markers: dict[str, ZnodeTimes] = {}
        self.requests: dict[str, tuple[_Line, list[_Line]]] = {}
        self.notes: dict[str, list[Notification]] = {kind: [] for kind in _NOTIFICATION_TYPES}
        self.unreadable: list[Unreadable] = []
        self.kraft_brokers: set[int] = set()

    def build(self, lines: IO[str]) -> ClusterSnapshot:
        count = 0
        ended = False
        topic: _TopicAcc | None = None
        request: list[_Line] | None = None
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue  # blank lines carry nothing (Spark's JSON reader skips them too)
            if ended:
                raise UsageError(f"{self.source} line {number}: data after the end record")
            line = self._parse(number, text)
            kind = line.data["kind"]
            count += 1
            if count == 1:
                self._check_header(line)
                continue
            if kind == "partition":
                if topic is None:
                    raise line.fail("a partition record must follow its topic record")
                topic.add(line)  # folded in at once: 100k partition dicts are never held together
                continue
            topic = None
            if kind in ("reassignment_entry", "preferred_election_entry"):
                if request is None or not kind.startswith(self._request_kind(request)):
                    raise line.fail(f"a {kind} record must follow its request record")
                request.append(line)
                continue
            request = None
            if kind == "topic":
                name = line.req("topic")
                if name in self.topics:
                    raise line.fail(f"topic {name} appears twice")
                topic = self.topics[name] = _TopicAcc(line)
            elif kind in ("reassignment_request", "preferred_election_request"):
                request = [line]
                self.requests[kind] = (line, request)
            elif kind == "end":
                if line.req("record_count") != count - 1:
                    raise line.fail(
                        f"the end record counts {line.req('record_count')} records before it, the file has {count - 1}"
                    )
                ended = True
            else:
                self._single_record(kind, line)
        if count == 0:
            raise UsageError(f"{self.source} is empty: not a kzc snapshot")
        if not ended:
            raise UsageError(f"{self.source} ends before its end record: the file is truncated")
        return self._snapshot()

    def _request_kind(self, lines: list[_Line]) -> str:
        return str(lines[0].data["kind"]).removesuffix("_request")

    def _parse(self, number: int, text: str) -> _Line:
        try:
            data = _DECODER.decode(text)
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            if not self.header:
                raise UsageError(f"{self.source} is not a kzc snapshot (line {number} is not JSON)") from None
            raise UsageError(f"{self.source} line {number}: not JSON ({exc})") from None
        if type(data) is not dict:
            raise UsageError(f"{self.source} line {number}: expected a JSON object")
        kind = data.get("kind")
        if kind not in KIND_FIELDS:
            if not self.header:
                raise UsageError(f"{self.source} is not a kzc snapshot (no header on line {number})")
            raise UsageError(f"{self.source} line {number}: unknown record kind {kind!r}")
        for name, value in data.items():
            check = _FIELD_CHECKS.get(name)
            if value is not None and check is not None and not check[1](value):
                raise UsageError(f"{self.source} line {number}: field '{name}' must be {check[0]}, got {value!r:.60}")
        return _Line(self.source, number, data)

    def _check_header(self, line: _Line) -> None:
        data = line.data
        if data["kind"] != "header" or data.get("format") != FORMAT_NAME:
            raise UsageError(f"{self.source} is not a kzc snapshot (line 1 is not its header)")
        version = data.get("version")
        if version not in READABLE_FORMAT_VERSIONS:
            raise UsageError(
                f"{self.source} is a kzc snapshot of format version {version}; this kzc reads versions "
                f"{' and '.join(map(str, READABLE_FORMAT_VERSIONS))}"
            )
        for name in ("taken_at_ms", "zookeeper", "zxid", "session_id"):
            line.req(name)
        self.header = data

    def _single_record(self, kind: str, line: _Line) -> None:
        bad = line.unreadable()
        if kind == "broker":
            broker_id = line.req("broker_id")
            self.brokers[broker_id] = BrokerEntry(broker_id, bad or _registration(line), line.times())
        elif kind == "config":
            entity_type = line.req("entity_type")
            if entity_type not in self.configs:
                raise line.fail(f"unknown config entity_type {entity_type!r}")
            value = bad or EntityConfig(line.req("version"), tuple(line.req("config").items()))
            self.configs[entity_type][line.req("entity_name")] = value
        elif kind == "deletion_marker":
            self.markers[line.req("topic")] = line.times()
        elif kind == "notification":
            note_type = line.req("notification_type")
            if note_type not in self.notes:
                raise line.fail(f"unknown notification_type {note_type!r}")
            note = bad or _notification(note_type, line)
            self.notes[note_type].append(Notification(line.req("name"), line.req("ctime_ms"), note))
        elif kind == "unreadable":
            self.unreadable.append(Unreadable(line.req("path"), _raw(line), line.req("problem")))
        elif kind == "kraft_broker":
            self.kraft_brokers.add(line.req("broker_id"))
        elif kind == "delegation_tokens":
            self.singles[kind] = bad or line.req("entry_count")
        elif kind == "controller_epoch":
            self.epoch_zk_version = line.opt("zk_version")
            self.singles[kind] = bad or line.opt("controller_epoch")
        elif kind == "header":
            raise line.fail("a second header")
        else:
            self.singles[kind] = bad or _SINGLE_READERS[kind](line)

    def _snapshot(self) -> ClusterSnapshot:
        topic_configs = MappingProxyType(self.configs["topics"])
        topics = {name: acc.entry(topic_configs) for name, acc in self.topics.items()}
        reassignment, reassignment_times = self._request("reassignment_request")
        election, election_times = self._request("preferred_election_request")
        h = self.header
        return ClusterSnapshot(
            taken_at_ms=h["taken_at_ms"],
            zookeeper=h["zookeeper"],
            zxid=h["zxid"],
            session_id=h["session_id"],
            cluster_id=self.singles.get("cluster_id"),  # type: ignore[arg-type]
            controller=self.singles.get("controller"),  # type: ignore[arg-type]
            controller_epoch=self.singles.get("controller_epoch"),  # type: ignore[arg-type]
            controller_epoch_zk_version=self.epoch_zk_version,
            brokers=MappingProxyType(self.brokers),
            topics=MappingProxyType(topics),
            deletion_markers=MappingProxyType(self.markers),
            reassignment=reassignment,  # type: ignore[arg-type]
            reassignment_times=reassignment_times,
            preferred_election=election,  # type: ignore[arg-type]
            preferred_election_times=election_times,
            topic_configs=topic_configs,
            broker_configs=MappingProxyType(self.configs["brokers"]),
            isr_change_notifications=tuple(self.notes["isr_change"]),
            log_dir_event_notifications=tuple(self.notes["log_dir_event"]),
            config_change_notifications=tuple(self.notes["config_change"]),
            feature=self.singles.get("feature"),  # type: ignore[arg-type]
            migration=self.singles.get("migration"),  # type: ignore[arg-type]
            producer_id_block=self.singles.get("producer_id_block"),  # type: ignore[arg-type]
            unreadable=tuple(self.unreadable),
            kraft_brokers=frozenset(self.kraft_brokers) or None,
            delegation_tokens=self.singles.get("delegation_tokens"),  # type: ignore[arg-type]
        )

    def _request(self, kind: str) -> tuple[object, ZnodeTimes | None]:
        if kind not in self.requests:
            return None, None
        line, lines = self.requests[kind]
        bad = line.unreadable()
        entries = lines[1:]
        if bad is not None:
            return bad, line.opt_times()
        if len(entries) != line.req("entry_count"):
            raise line.fail(f"entry_count is {line.req('entry_count')} but {len(entries)} entries follow")
        value: object
        if kind == "reassignment_request":
            value = ReassignmentRequest(
                line.req("version"),
                tuple((e.req("topic"), e.req("partition"), tuple(e.req("replicas"))) for e in entries),
            )
        else:
            value = PreferredElectionRequest(
                line.req("version"), tuple((e.req("topic"), e.req("partition")) for e in entries)
            )
        return value, line.opt_times()


def _raw(line: _Line) -> bytes:
    try:
        return base64.b64decode(line.req("raw_base64"), validate=True)
    except (binascii.Error, ValueError):
        raise line.fail("raw_base64 is not valid base64") from None


def _registration(line: _Line) -> BrokerRegistration:
    endpoints = line.req("endpoints")
    protocols = line.req("endpoint_security_protocols")
    if len(endpoints) != len(protocols):
        raise line.fail("endpoints and endpoint_security_protocols differ in length")
    protocol_map = line.opt("listener_security_protocol_map")
    minimums, maximums = line.opt("feature_min_versions"), line.opt("feature_max_versions")
    features = None
    if maximums is not None:
        if minimums is None or minimums.keys() != maximums.keys():
            raise line.fail("feature_min_versions and feature_max_versions name different features")
        features = tuple((name, minimums[name], high) for name, high in maximums.items())
    return BrokerRegistration(
        broker_id=line.req("broker_id"),
        version=line.req("version"),
        host=line.opt("host"),
        port=line.req("port"),
        jmx_port=line.req("jmx_port"),
        timestamp_ms=line.opt("timestamp_ms"),
        endpoints=tuple(_endpoint(line, text, protocol) for text, protocol in zip(endpoints, protocols, strict=True)),
        rack=line.opt("rack"),
        listener_security_protocol_map=None if protocol_map is None else tuple(protocol_map.items()),
        features=features,
    )


def _endpoint(line: _Line, text: str, protocol: str) -> Endpoint:
    listener, sep, rest = text.partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or not colon or not port.lstrip("-").isdigit():
        raise line.fail(f"endpoint {text!r} is not LISTENER://HOST:PORT")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return Endpoint(listener, protocol, host, int(port))


class _TopicAcc:
    """A topic record and, folded in one by one, its partition records."""

    __slots__ = ("adding", "line", "listed", "name", "removing", "states")

    def __init__(self, line: _Line) -> None:
        self.line = line
        self.name: str = line.req("topic")
        self.listed: list[tuple[int, tuple[int, ...]]] = []
        self.adding: list[tuple[int, tuple[int, ...]]] = []
        self.removing: list[tuple[int, tuple[int, ...]]] = []
        self.states: dict[int, PartitionState | Unreadable | None] = {}

    def add(self, part: _Line) -> None:
        partition = part.req("partition")
        if part.req("topic") != self.name:
            raise part.fail(f"a partition of topic {part.req('topic')} after the record of topic {self.name}")
        if part.req("in_assignment"):
            self.listed.append((partition, tuple(part.req("replicas"))))
            if part.opt("adding"):
                self.adding.append((partition, tuple(part.req("adding"))))
            if part.opt("removing"):
                self.removing.append((partition, tuple(part.req("removing"))))
        present = part.opt("state_present")
        if present is None:
            return  # the snapshot holds no entry for this partition's state
        if not present:
            self.states[partition] = None
            return
        self.states[partition] = part.unreadable() or PartitionState(
            leader=part.req("leader"),
            leader_epoch=part.req("leader_epoch"),
            isr=tuple(part.req("isr")),
            controller_epoch=part.req("controller_epoch"),
            leader_recovery_state=part.req("leader_recovery_state"),
            version=part.req("version"),
        )

    def entry(self, configs: Mapping[str, EntityConfig | Unreadable]) -> TopicEntry:
        line = self.line
        assignment = line.unreadable() or TopicAssignment(
            topic=self.name,
            version=line.req("version"),
            partitions=tuple(sorted(self.listed)),
            adding=tuple(sorted(self.adding)),
            removing=tuple(sorted(self.removing)),
            topic_id=line.opt("topic_id"),
        )
        return TopicEntry(self.name, assignment, line.times(), MappingProxyType(self.states), configs.get(self.name))


def _notification(kind: str, line: _Line) -> object:
    if kind == "isr_change":
        topics, partitions = line.req("entry_topics"), line.req("entry_partitions")
        if len(topics) != len(partitions):
            raise line.fail("entry_topics and entry_partitions differ in length")
        return IsrChangeNotification(line.req("version"), tuple(zip(topics, partitions, strict=True)))
    if kind == "log_dir_event":
        return LogDirEventNotification(line.req("version"), line.req("broker_id"), line.opt("event"))
    return ConfigChangeNotification(
        line.req("version"), line.req("entity_type"), line.req("entity_name"), line.req("entity_path")
    )


def _cluster_id(line: _Line) -> ClusterId:
    return ClusterId(line.req("cluster_id_version"), line.req("cluster_id"))


def _controller(line: _Line) -> ControllerInfo:
    return ControllerInfo(
        line.req("broker_id"), line.opt("timestamp_ms"), line.req("version"), line.opt("kraft_controller_epoch")
    )


def _feature(line: _Line) -> FeatureZNode:
    minimums = line.opt("feature_min_versions") or {}
    maximums = line.req("feature_max_versions")
    return FeatureZNode(
        line.req("version"), line.req("status"), tuple((n, minimums.get(n), high) for n, high in maximums.items())
    )


def _migration(line: _Line) -> MigrationState:
    return MigrationState(
        line.req("version"),
        line.req("kraft_controller_id"),
        line.req("kraft_controller_epoch"),
        line.req("kraft_metadata_offset"),
        line.req("kraft_metadata_epoch"),
    )


def _producer_id_block(line: _Line) -> ProducerIdBlock:
    return ProducerIdBlock(line.req("version"), line.req("broker_id"), line.req("block_start"), line.req("block_end"))


_SINGLE_READERS: dict[str, Callable[[_Line], object]] = {
    "cluster_id": _cluster_id,
    "controller": _controller,
    "feature": _feature,
    "migration": _migration,
    "producer_id_block": _producer_id_block,
}
