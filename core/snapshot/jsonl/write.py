"""Writing a snapshot file (``core.snapshot.jsonl.schema``'s lines): the whole snapshot, or record by record.

Writing goes to a temporary file renamed into place, so a half-written snapshot never carries the final name;
a name ending in ``.gz`` is gzip-compressed.
"""

from __future__ import annotations

import base64
import gzip
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import suppress
from pathlib import Path
from typing import IO, Any

from core import __version__
from core.errors import KzcError
from core.interrupt import on_interrupt
from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ConfigChangeNotification,
    ControllerInfo,
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
from core.snapshot.jsonl.schema import FORMAT_NAME, KIND_FIELDS, NOTIFICATION_TYPES
from core.snapshot.model import (
    SNAPSHOT_FORMAT_VERSION,
    BrokerEntry,
    ClusterSnapshot,
    Notification,
    TopicEntry,
    ZnodeTimes,
)


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
    that stream records without a ``ClusterSnapshot`` in memory (``core.consistency.synthetic``) share it, so the
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
        NOTIFICATION_TYPES,
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
