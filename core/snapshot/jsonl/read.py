"""Reading a snapshot file back: each line checked against ``core.snapshot.jsonl.schema``, then built into
the exact ``ClusterSnapshot`` that was written, with an error naming the line and field when one is wrong.
"""

from __future__ import annotations

import base64
import binascii
import gzip
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

from core.errors import UsageError
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
from core.snapshot.jsonl.schema import FIELD_TYPES, FORMAT_NAME, KIND_FIELDS, NOTIFICATION_TYPES
from core.snapshot.model import (
    READABLE_FORMAT_VERSIONS,
    BrokerEntry,
    ClusterSnapshot,
    Notification,
    TopicEntry,
    ZnodeTimes,
)


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
        raw = _raw(self)
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
        self.notes: dict[str, list[Notification]] = {kind: [] for kind in NOTIFICATION_TYPES}
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
