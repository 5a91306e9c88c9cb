"""The snapshot file: exact round trip, one schema for every line, version check, clear errors."""

from __future__ import annotations

import base64
import gzip
import io
import json
import re
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from core.consistency.synthetic import FaultMix, write_synthetic
from core.errors import KzcError, UsageError
from core.kafka.znodes import (
    BrokerRegistration,
    ConfigChangeNotification,
    Endpoint,
    FeatureZNode,
    IsrChangeNotification,
    LogDirEventNotification,
    MigrationState,
    PartitionState,
    PreferredElectionRequest,
    ProducerIdBlock,
    ReassignmentRequest,
    Unreadable,
)
from core.kafka.znodes.paths import state_path
from core.snapshot.jsonl.read import read_snapshot_file
from core.snapshot.jsonl.schema import FIELD_TYPES, KIND_FIELDS, SPARK_SCHEMA_DDL
from core.snapshot.jsonl.write import RecordWriter, iter_records, write_snapshot_file
from core.snapshot.model import ClusterSnapshot, Notification
from core.testdata.builder import broker, config, snapshot, state, topic


def _bad(path: str, raw: bytes = b"{oops", reason: str = "not JSON") -> Unreadable:
    return Unreadable(path, raw, reason)


def rich_snapshot() -> ClusterSnapshot:
    """A snapshot with every kind of record, unreadable values included."""
    ipv6 = BrokerRegistration(
        broker_id=4, version=4, host=None, port=-1, jmx_port=9999, timestamp_ms=None,
        endpoints=(Endpoint("CLIENT", "SSL", "::1", 9093), Endpoint("INTERNAL", "PLAINTEXT", "", 9094)),
        rack=None, listener_security_protocol_map=(("CLIENT", "SSL"), ("INTERNAL", "PLAINTEXT")), features=None,
    )  # fmt: skip
    featured = replace(broker(1, "r1"), registration=replace(broker(1, "r1").registration, features=(("mv", 1, 21),)))  # type: ignore[arg-type]
    topics = [
        topic("plain", {0: [1, 2, 3], 1: [2, 3, 1]}, topic_config=config(retention_ms="1000")),
        topic(
            "moving",
            {0: [1, 2, 3, 4], 1: [2, 3]},
            states={0: state(1, [1, 2, 3], leader_epoch=9), 1: None, 5: state(-1, [2])},
            adding={0: [4]},
            removing={0: [3]},
            topic_config=config(),
        ),
        topic("broken-state", {0: [1]}, states={0: _bad("/brokers/topics/broken-state/partitions/0/state", b"\xff")}),
        topic("unreadable", {}, states={3: state(2, [2])}, assignment=_bad("/brokers/topics/unreadable")),
        replace(topic("hand-built", {0: [1], 1: [2]}), states=MappingProxyType({1: state(2, [2])})),
    ]
    unreadable_config = _bad("/config/topics/unreadable", b"[]", "the data is an array")
    topics[3] = replace(topics[3], config=unreadable_config)
    notes = {
        "isr_change": (Notification("isr_change_0000000001", 111, IsrChangeNotification(1, (("plain", 0), ("x", 2)))),),
        "log_dir_event": (
            Notification("log_dir_event_0000000003", 222, LogDirEventNotification(1, 2, 1)),
            Notification("log_dir_event_0000000004", 0, _bad("/log_dir_event_notification/log_dir_event_0000000004")),
        ),
        "config_change": (
            Notification("config_change_0000000007", 333, ConfigChangeNotification(2, "topics", "a", "topics/a")),
            Notification("config_change_0000000008", 334, ConfigChangeNotification(0, "topics", "b", "topics/b")),
        ),
    }
    base = snapshot(
        brokers=[featured, broker(2, "r2", version=3), broker(3, "r3"), replace(broker(4), registration=ipv6)],
        topics=topics,
        markers=["plain", "gone"],
        reassignment=ReassignmentRequest(1, (("moving", 0, (1, 2, 4)), ("gone", 3, ()))),
        preferred_election=PreferredElectionRequest(1, (("plain", 1), ("moving", 0))),
        broker_configs={"<default>": config(min_insync_replicas="2"), "7": _bad("/config/brokers/7")},
        notifications=notes,
        feature=FeatureZNode(1, 1, (("metadata.version", 1, 21), ("group.version", 1, 1))),
        migration=MigrationState(0, 3000, 7, 123456789012, 5),
        producer_id_block=ProducerIdBlock(1, 2, 1000, 1999),
        unreadable=(
            _bad("/brokers/ids/x", b"", "'x' under /brokers/ids is not a broker id"),
            _bad("/brokers/topics/unreadable"),
        ),
    )
    configs = dict(base.topic_configs)
    configs["orphan"] = config(cleanup_policy="compact")
    return replace(
        base,
        topic_configs=MappingProxyType(configs),
        broker_configs=base.broker_configs,
        kraft_brokers=frozenset({5, 6}),  # rolled to KRaft during a migration: alive, not in /brokers/ids
        delegation_tokens=3,
    )


def _lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


@pytest.mark.parametrize("name", ["snap.jsonl", "snap.jsonl.gz"])
def test_a_snapshot_with_every_kind_of_record_reads_back_equal(tmp_path: Path, name: str) -> None:
    original = rich_snapshot()
    count = write_snapshot_file(original, tmp_path / name)
    back = read_snapshot_file(tmp_path / name)
    assert back == original
    assert back.unreadable == original.unreadable and back.topics["hand-built"].states == {1: state(2, [2])}
    assert count == len(list(iter_records(original)))
    if name.endswith(".gz"):
        assert gzip.decompress((tmp_path / name).read_bytes()).count(b"\n") == count


def test_unreadable_cluster_wide_znodes_and_requests_read_back_equal(tmp_path: Path) -> None:
    original = replace(
        rich_snapshot(),
        cluster_id=_bad("/cluster/id", b'{"version":1}', '"version" must be a string here'),
        controller=_bad("/controller", b"garbage"),
        controller_epoch=_bad("/controller_epoch", b"x", "the controller epoch 'x' is not a decimal number"),
        preferred_election=_bad("/admin/preferred_replica_election", b"", "empty data where Kafka writes JSON"),
        reassignment=_bad("/admin/reassign_partitions", b"{}", 'required field "version" is missing'),
        feature=_bad("/feature"),
        migration=_bad("/migration"),
        producer_id_block=_bad("/latest_producer_id_block"),
        delegation_tokens=_bad("/delegation_token/tokens", b"", "kzc may not read it (NoAuth)"),
    )
    write_snapshot_file(original, tmp_path / "s.jsonl")
    assert read_snapshot_file(tmp_path / "s.jsonl") == original


def test_the_header_is_line_one_and_the_end_record_counts_the_lines_before_it(tmp_path: Path) -> None:
    write_snapshot_file(rich_snapshot(), tmp_path / "s.jsonl")
    lines = [json.loads(line) for line in _lines(tmp_path / "s.jsonl")]
    assert lines[0]["kind"] == "header" and lines[0]["format"] == "kzc-snapshot" and lines[0]["version"] == 2
    assert (lines[0]["broker_count"], lines[0]["topic_count"], lines[0]["partition_count"]) == (4, 5, 7)
    assert lines[-1] == {"kind": "end", "record_count": len(lines) - 1}
    kinds = {line["kind"] for line in lines}
    assert kinds == set(KIND_FIELDS), "the rich snapshot covers every kind"


def test_every_line_has_exactly_its_kinds_fields_typed_as_the_one_schema_says() -> None:
    checks = {
        "STRING": lambda v: isinstance(v, str),
        "BOOLEAN": lambda v: isinstance(v, bool),
        "INT": lambda v: type(v) is int and -(2**31) <= v < 2**31,
        "BIGINT": lambda v: type(v) is int and -(2**63) <= v < 2**63,
        "ARRAY<INT>": lambda v: isinstance(v, list) and all(type(i) is int for i in v),
        "ARRAY<STRING>": lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v),
        "MAP<STRING,STRING>": lambda v: isinstance(v, dict) and all(isinstance(i, str) for i in v.values()),
        "MAP<STRING,INT>": lambda v: isinstance(v, dict) and all(type(i) is int for i in v.values()),
    }
    for record in iter_records(rich_snapshot()):
        line = json.loads(json.dumps(record))  # what a reader sees
        assert list(line) == ["kind", *KIND_FIELDS[line["kind"]]]
        for name, value in line.items():
            assert value is None or checks[FIELD_TYPES[name]](value), (line["kind"], name, value)


def test_the_spark_schema_names_every_field_once_with_its_type() -> None:
    columns = [column.split(" ", 1) for column in SPARK_SCHEMA_DDL.split(", ")]
    assert [name for name, _ in columns] == list(FIELD_TYPES)
    assert dict(columns) == FIELD_TYPES
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name, _ in columns)
    every_field = {f for fields in KIND_FIELDS.values() for f in fields} | {"kind"}
    assert every_field == set(FIELD_TYPES)


def test_a_partition_line_is_flat_and_carries_assignment_and_state() -> None:
    lines = [r for r in iter_records(rich_snapshot()) if r["kind"] == "partition" and r["topic"] == "moving"]
    by_partition = {r["partition"]: r for r in lines}
    assert by_partition[0] | {} == {
        "kind": "partition", "topic": "moving", "partition": 0, "in_assignment": True, "replicas": [1, 2, 3, 4],
        "adding": [4], "removing": [3], "state_present": True, "path": "/brokers/topics/moving/partitions/0/state",
        "readable": True, "problem": None, "raw_base64": None, "leader": 1, "leader_epoch": 9, "isr": [1, 2, 3],
        "controller_epoch": 5, "leader_recovery_state": 0, "version": 1,
    }  # fmt: skip
    assert (by_partition[1]["state_present"], by_partition[1]["readable"], by_partition[1]["leader"]) == (
        False,
        None,
        None,
    )
    assert (by_partition[5]["in_assignment"], by_partition[5]["replicas"]) == (False, None)  # left-over state


def test_unreadable_values_keep_their_reason_and_raw_bytes() -> None:
    [line] = [r for r in iter_records(rich_snapshot()) if r["kind"] == "partition" and r["topic"] == "broken-state"]
    assert (line["readable"], line["problem"], base64.b64decode(line["raw_base64"])) == (False, "not JSON", b"\xff")
    assert line["leader"] is None


def test_a_version_1_file_is_still_read_without_the_records_version_2_added(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_snapshot_file(rich_snapshot(), path)
    lines = [
        line
        for line in _lines(path)
        if '"kind":"kraft_broker"' not in line and '"kind":"delegation_tokens"' not in line
    ]
    lines[0] = lines[0].replace('"version":2', '"version":1')
    lines[-1] = json.dumps({"kind": "end", "record_count": len(lines) - 1}, separators=(",", ":"))
    path.write_text("\n".join(lines) + "\n")
    assert read_snapshot_file(path).topics == rich_snapshot().topics


def test_another_format_version_is_refused_with_both_versions_named(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_snapshot_file(rich_snapshot(), path)
    lines = _lines(path)
    lines[0] = lines[0].replace('"version":2', '"version":3')
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(UsageError, match="format version 3; this kzc reads versions 1 and 2"):
        read_snapshot_file(path)


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda lines: [], "is empty"),
        (lambda lines: ["not json", *lines[1:]], "not a kzc snapshot"),
        (lambda lines: ['{"kind":"broker"}', *lines[1:]], "not a kzc snapshot"),
        (lambda lines: lines[:-1], "truncated"),
        (lambda lines: lines[:5] + lines[6:], "the end record counts"),
        (lambda lines: [*lines[:-1], lines[-1], '{"kind":"topic"}'], "data after the end record"),
        (lambda lines: [lines[0], '{"kind":"meteor"}', *lines[1:]], "line 2: unknown record kind 'meteor'"),
        (lambda lines: [lines[0], "[1,2]", *lines[1:]], "line 2: expected a JSON object"),
        (lambda lines: [lines[0], "{", *lines[1:]], "line 2: not JSON"),
        (
            lambda lines: [lines[0], '{"kind":"partition","topic":"a","partition":0}', *lines[1:]],
            "must follow its topic",
        ),
        (lambda lines: [lines[0], '{"kind":"broker","port":"9092"}', *lines[1:]], "field 'port' must be INT"),
        (lambda lines: [lines[0], '{"kind":"broker","readable":true}', *lines[1:]], "needs field 'broker_id'"),
    ],
)
def test_a_malformed_file_is_refused_with_a_clear_message(tmp_path: Path, mangle: object, message: str) -> None:
    path = tmp_path / "s.jsonl"
    write_snapshot_file(rich_snapshot(), path)
    path.write_text("\n".join(mangle(_lines(path))) + "\n")  # type: ignore[operator]
    with pytest.raises(UsageError, match=re.escape(message)):
        read_snapshot_file(path)


def test_a_missing_or_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no snapshot file"):
        read_snapshot_file(tmp_path / "none.jsonl")
    (tmp_path / "bad.jsonl.gz").write_bytes(b"not gzip at all")
    with pytest.raises(UsageError, match="cannot read snapshot file"):
        read_snapshot_file(tmp_path / "bad.jsonl.gz")


def test_a_failed_write_leaves_the_previous_file_and_no_temporary_file(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    write_snapshot_file(snapshot(), path)
    before = path.read_bytes()
    odd = Notification("isr_change_0000000001", 1, object())
    with pytest.raises(KzcError, match="unexpected value"):
        write_snapshot_file(snapshot(notifications={"isr_change": (odd,)}), path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.jsonl"]


def test_an_unwritable_place_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(KzcError, match=r"cannot write the snapshot to .*no-such-dir"):
        write_snapshot_file(snapshot(), tmp_path / "no-such-dir" / "s.jsonl")


def test_the_fast_partition_line_is_the_record_line(tmp_path: Path) -> None:
    fast, plain = io.StringIO(), io.StringIO()
    readable = PartitionState(2, 7, (2, 1), 5, 1, 1)
    cases = [((2, [2, 1], 5), None), (readable, None), ("not JSON", "eyJsZWFkZXIiOg=="), (None, None)]
    for value, raw in cases:
        RecordWriter(fast).partition('t "q"', 3, [2, 1], [1], [], value, raw)
    for value, raw in cases:
        values: dict[str, object] = {"topic": 't "q"', "partition": 3, "in_assignment": True, "replicas": [2, 1],
                                     "adding": [1], "removing": [], "state_present": value is not None}  # fmt: skip
        if value is not None:
            values["path"] = state_path('t "q"', 3)
            values.update(readable=not isinstance(value, str), problem=value if isinstance(value, str) else None)
            values["raw_base64"] = raw
        if isinstance(value, tuple):
            values.update(leader=2, leader_epoch=0, isr=[2, 1], controller_epoch=5, leader_recovery_state=0, version=1)
        if isinstance(value, PartitionState):
            values.update(leader=2, leader_epoch=7, isr=[2, 1], controller_epoch=5, leader_recovery_state=1, version=1)
        if value is None:
            values["path"] = state_path('t "q"', 3)
        RecordWriter(plain).record("partition", **values)
    assert fast.getvalue() == plain.getvalue()
    # The synthetic writer streams through it, and its files read back.
    info = write_synthetic(tmp_path / "s.jsonl", 2_000, faults=FaultMix.every_fault(), seed=1)
    assert read_snapshot_file(tmp_path / "s.jsonl").partition_count == info.partitions
