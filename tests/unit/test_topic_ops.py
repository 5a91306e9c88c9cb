"""``TopicOps`` and the ``kzc topic`` / ``kzc assign`` commands without a cluster: a fake reader and AdminClient
stand in for ZooKeeper and the brokers, so what is sent, refused and audited can be checked exactly.

What needs a real cluster (what lands in ZooKeeper) is in tests/integration/test_topic_ops.py and
test_topic_cli.py.
"""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import cli.assign_cmd
import cli.topic_cmd
from cli.main import main
from core.audit import AuditLog, read_audit_log
from core.brokers.capabilities import BrokerApis, Capabilities
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.errors import KafkaRuleError, KzcError, UsageError
from core.kafka.topic_rules import describe_metrics
from core.kafka.znodes import (
    BrokerRegistration,
    parse_broker,
    parse_controller,
    parse_feature,
    parse_migration,
    parse_topic,
)
from core.kafka.znodes.encode import encode_new_topic
from core.topics.facts import ClusterFacts, LiveTopic, zk_create_format
from core.topics.ops import TopicOps, path_reason
from core.topics.plan import CreateRequest, ExpandRequest
from core.topics.planning import plan_create, plan_expand
from core.topics.write import describe_writes, planned_writes
from tests.cli_runner import run as _run
from tests.unit.fake_broker import RELEASE_APIS

ZK_CONTROLLER = b'{"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1}'
KRAFT_CONTROLLER = b'{"version":2,"brokerid":3000,"timestamp":"1700000000000","kraftControllerEpoch":7}'
MIGRATION = (
    b'{"version":0,"kraft_controller_id":3000,"kraft_controller_epoch":7,'
    b'"kraft_metadata_offset":100,"kraft_metadata_epoch":5}'
)
ZK = ["--zookeeper", "127.0.0.1:1"]


def _broker(broker_id: int, rack: str | None = None, version: int = 5) -> BrokerRegistration:
    data: dict[str, Any] = {
        "version": version,
        "host": "127.0.0.1",
        "port": 9092,
        "jmx_port": -1,
        "timestamp": "1700000000000",
        "endpoints": ["PLAINTEXT://127.0.0.1:9092"],
    }
    if version >= 4:
        data["listener_security_protocol_map"] = {"PLAINTEXT": "PLAINTEXT"}
    if version >= 5:
        data["features"] = {}
    if rack is not None:
        data["rack"] = rack
    value = parse_broker(f"/brokers/ids/{broker_id}", json.dumps(data).encode())
    assert isinstance(value, BrokerRegistration)
    return value


def _facts(
    racks: dict[int, str | None] | None = None,
    topics: Sequence[str] = (),
    controller: bytes | None = ZK_CONTROLLER,
    migration: bytes | None = None,
    registration_version: int = 5,
    feature: bytes | None = None,
    topic_ids: bool | None = None,
) -> ClusterFacts:
    racks = {1: None, 2: None, 3: None} if racks is None else racks
    return ClusterFacts(
        brokers={b: _broker(b, r, registration_version) for b, r in racks.items()},
        topic_names=frozenset(topics),
        topic_order=tuple(topics),
        marked_for_deletion=frozenset(),
        controller=None if controller is None else parse_controller("/controller", controller),
        controller_zk_version=None if controller is None else 0,
        migration=None if migration is None else parse_migration("/migration", migration),
        reassignment=None,
        feature=None if feature is None else parse_feature("/feature", feature),
        topic_ids=topic_ids,
    )


def _live(name: str, partitions: dict[int, list[int]]) -> LiveTopic:
    raw = json.dumps(
        {
            "version": 3,
            "partitions": {str(p): r for p, r in partitions.items()},
            "adding_replicas": {},
            "removing_replicas": {},
            "topic_id": "Mecwe6R0R--ubf0v3yP3iA",
        }
    ).encode()
    return LiveTopic(name, parse_topic(f"/brokers/topics/{name}", raw), raw, 4)


@dataclass
class FakeReader:
    """``TopicStateReader`` over fixed facts and topics."""

    facts_value: ClusterFacts
    live: dict[str, LiveTopic] = field(default_factory=dict)

    def facts(self) -> ClusterFacts:
        return self.facts_value

    def topic(self, name: str) -> LiveTopic | None:
        return self.live.get(name)

    def topics(self, names: Iterable[str]) -> dict[str, LiveTopic]:
        return {n: self.live[n] for n in names if n in self.live}

    def topic_config(self, name: str) -> tuple[bytes, int] | None:
        return None


@dataclass
class FakeAdmin:
    """The brokers: records every request; ``delete_errors`` are the per-topic answers to DeleteTopics."""

    calls: list[tuple[str, Any]] = field(default_factory=list)
    delete_errors: dict[str, KzcError | None] = field(default_factory=dict)
    timeout: float = 1.0

    def create_topic(
        self, topic: str, replicas: Sequence[Sequence[int]], config: dict[str, str], validate_only: bool = False
    ) -> None:
        self.calls.append(("create_topic", (topic, validate_only)))

    def create_partitions(
        self, topic: str, total: int, replicas: Sequence[Sequence[int]], validate_only: bool = False
    ) -> None:
        self.calls.append(("create_partitions", (topic, validate_only)))

    def delete_topics(self, topics: Iterable[str]) -> dict[str, KzcError | None]:
        wanted = list(topics)
        self.calls.append(("delete_topics", wanted))
        return {t: self.delete_errors.get(t) for t in wanted}

    def broker_configs(self, broker_id: int, names: Iterable[str]) -> dict[str, str]:
        return {}  # unknown: the plan warns, the brokers decide


def _ops(
    reader: FakeReader, admin: FakeAdmin | None, audit_file: Path, read_only: bool = False, release: str = "3.9"
) -> TopicOps:
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper("127.0.0.1:1"),
        read_only=read_only,
        read_only_by="--read-only was given" if read_only else None,
    )
    # The brokers' ApiVersions as brokers of ``release`` answer them (no socket in unit tests).
    caps = Capabilities(tuple(BrokerApis(b, RELEASE_APIS[release]) for b in sorted(reader.facts().brokers)))
    audit = AuditLog("test", audit_file)
    ops = TopicOps(SimpleNamespace(client=None), admin, settings, audit, caps)  # type: ignore[arg-type]
    ops.reader = reader  # type: ignore[assignment]
    return ops


@pytest.fixture
def audit_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(path))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return path


@pytest.fixture
def fake_cluster(monkeypatch: pytest.MonkeyPatch, audit_file: Path) -> dict[str, Any]:
    """``kzc topic`` runs against ``state["reader"]`` and ``state["admin"]`` instead of a cluster."""
    state: dict[str, Any] = {"reader": FakeReader(_facts()), "admin": FakeAdmin(), "opened": 0}

    @contextmanager
    def fake_open(
        settings: ConnectionSettings, admin_timeout: float = 15.0, audit: AuditLog | None = None
    ) -> Iterator[TopicOps]:
        state["opened"] += 1
        ops = _ops(state["reader"], state["admin"], audit_file, settings.read_only)
        if audit is not None:
            ops.audit = audit
        yield ops

    monkeypatch.setattr(cli.topic_cmd, "open_topic_ops", fake_open)
    return state


# ---- 1. numbers outside Java's int range ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--start-index", "99999999999"),
        ("--start-partition", "2147483648"),
        ("--partitions", "3000000000"),
        ("--replication-factor", "-2147483649"),
    ],
)
def test_kzc_assign_refuses_numbers_outside_java_int_with_one_json_line(
    capsys: pytest.CaptureFixture[str], option: str, value: str
) -> None:
    argv = {"--brokers": "0,1,2", "--partitions": "3", "--replication-factor": "2", option: value}
    code, out, err = _run(capsys, "assign", *[x for pair in argv.items() for x in pair], "--json")
    assert code == 2, err
    assert out == {"error": f"{option} must be a Java int (-2147483648 to 2147483647), got {value}"}
    assert "Traceback" not in err


def test_kzc_assign_refuses_broker_ids_outside_java_int(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(
        capsys, "assign", "--brokers", "0,1,4294967296", "--partitions", "3", "--replication-factor", "2", "--json"
    )
    assert code == 2 and out == {"error": "--brokers must be a Java int (-2147483648 to 2147483647), got 4294967296"}
    code, out, _ = _run(capsys, "assign", "--brokers", "0,1", "--racks", "0:a,99999999999:b", "--partitions", "3",
                        "--replication-factor", "2", "--json")  # fmt: skip
    assert code == 2 and "--racks must be a Java int" in out["error"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["create", "t", "--partitions", "3000000000", "--replication-factor", "1"],
         "Cannot parse argument '3000000000' of option partitions"),
        (["create", "t", "--partitions", "3", "--replication-factor", "99999999999"],
         "Cannot parse argument '99999999999' of option replication-factor"),
        (["create", "t", "--partitions", "abc", "--replication-factor", "1"],
         "Cannot parse argument 'abc' of option partitions"),
        (["expand", "t", "--partitions", "-2147483649"], "Cannot parse argument '-2147483649' of option partitions"),
    ],
)  # fmt: skip
def test_kzc_topic_refuses_what_kafka_topics_cannot_parse_with_joptsimples_message(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any], audit_file: Path, argv: list[str], message: str
) -> None:
    code, out, err = _run(capsys, "topic", *argv, "--json", *ZK)
    assert code == 2 and out == {"error": message} and "Traceback" not in err
    assert fake_cluster["opened"] == 0  # refused before connecting
    # 5. ...and the refusal is audited, with the arguments as typed.
    [line] = read_audit_log(audit_file)
    assert line["outcome"] == "refused" and line["message"] == message
    assert line["arguments"]["partitions"] == argv[3]


# ---- 2. --disable-rack-aware ------------------------------------------------------------------------------


PARTIAL = {1: "r1", 2: None, 3: "r2"}


def test_partial_racks_refuse_create_and_expand_unless_rack_awareness_is_disabled() -> None:
    facts = _facts(PARTIAL)
    live = _live("t", {0: [2, 3]})
    for plan in (
        lambda rack_aware: plan_create(facts, CreateRequest("n", 6, 2, rack_aware=rack_aware), via="admin"),
        lambda rack_aware: plan_expand(facts, live, ExpandRequest("t", 4, rack_aware=rack_aware), via="admin"),
    ):
        with pytest.raises(KafkaRuleError, match="Add --disable-rack-aware in command line"):
            plan(True)
        assert not plan(False).rack_aware
    created = plan_create(facts, CreateRequest("n", 6, 2, rack_aware=False), via="admin")
    assert created.to_json()["rack_aware"] is False
    assert all(len(set(r)) == 2 for _, r in created.assignment)


def test_the_disable_rack_aware_option_exists_where_kafkas_message_recommends_it(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any]
) -> None:
    fake_cluster["reader"] = FakeReader(_facts(PARTIAL), {"t": _live("t", {0: [2, 3]})})
    code, out, _ = _run(
        capsys, "topic", "create", "n", "--partitions", "3", "--replication-factor", "2", "--dry-run", "--json", *ZK
    )
    assert code == 2 and "Not all brokers have rack information. Add --disable-rack-aware" in out["error"]
    code, out, _ = _run(capsys, "topic", "create", "n", "--partitions", "3", "--replication-factor", "2",
                        "--disable-rack-aware", "--dry-run", "--json", *ZK)  # fmt: skip
    assert code == 0 and out["rack_aware"] is False and len(out["assignment"]) == 3
    code, out, _ = _run(
        capsys, "topic", "expand", "t", "--partitions", "3", "--disable-rack-aware", "--dry-run", "--json", *ZK
    )
    assert code == 0 and out["rack_aware"] is False and list(out["assignment"]) == ["1", "2"]
    code, out, _ = _run(capsys, "topic", "create", "n", "--partitions", "3", "--replication-factor", "2",
                        "--disable-rack-aware", "--dry-run", *ZK)  # fmt: skip
    assert code == 0 and "rack-unaware (--disable-rack-aware)" in out


def test_kzc_assign_takes_disable_rack_aware_offline_and_with_topic(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = _run(capsys, "assign", "--brokers", "1,2,3", "--racks", "1:a,3:b", "--partitions", "3",
                        "--replication-factor", "2", "--start-index", "0", "--disable-rack-aware",
                        "--json")  # fmt: skip
    assert code == 0 and out["assignment"] == {"0": [1, 2], "1": [2, 3], "2": [3, 1]}
    seen: list[ExpandRequest] = []

    class Session:
        def __init__(self, settings: ConnectionSettings) -> None:
            pass

        def start(self) -> None:
            pass

        def stop(self) -> None:
            pass

    def fake_plan_expand(
        facts: ClusterFacts, live: LiveTopic | None, request: ExpandRequest, *, via: str, znode_limit: int
    ) -> Any:
        seen.append(request)
        return plan_expand(_facts(PARTIAL), _live("t", {0: [2, 3]}), request, via=via, znode_limit=znode_limit)

    monkeypatch.setattr(cli.assign_cmd, "open_kafka_session", lambda settings: nullcontext(Session(settings)))
    monkeypatch.setattr(cli.assign_cmd, "TopicStateReader", lambda session: FakeReader(_facts(PARTIAL)))
    monkeypatch.setattr(cli.assign_cmd, "plan_expand", fake_plan_expand)
    code, out, _ = _run(capsys, "assign", "--topic", "t", "--partitions", "3", "--disable-rack-aware", "--json", *ZK)
    assert code == 0 and seen[-1].rack_aware is False and list(out["assignment"]) == ["1", "2"]
    code, out, _ = _run(capsys, "assign", "--replica-assignment", "1:2", "--disable-rack-aware", "--json")
    assert code == 2 and out == {"error": "--disable-rack-aware cannot be combined with --replica-assignment"}


# ---- 3. no broker validation of a blocked create -----------------------------------------------------------


@pytest.mark.parametrize("blocked_by", ["read-only", "migration"])
def test_a_blocked_create_is_not_sent_to_the_brokers_even_as_validate_only(audit_file: Path, blocked_by: str) -> None:
    # Through the brokers a migration blocks only while kzc cannot tell the KRaft controller dual-writes (here:
    # the initial copy, no metadata offset yet); in dual write the create goes to the brokers (docs/migration.md).
    copying = MIGRATION.replace(b'"kraft_metadata_offset":100', b'"kraft_metadata_offset":-1')
    facts = _facts(controller=KRAFT_CONTROLLER, migration=copying) if blocked_by == "migration" else _facts()
    admin = FakeAdmin()
    ops = _ops(FakeReader(facts), admin, audit_file, read_only=blocked_by == "read-only")
    plan = ops.plan_create(CreateRequest("n", 3, 2))
    assert plan.blocked is not None and admin.calls == []
    assert all(c.name != "broker validation" for c in plan.checks)
    # Unblocked, the brokers validate it (validate_only), as before.
    ops = _ops(FakeReader(_facts()), admin, audit_file)
    plan = ops.plan_create(CreateRequest("n", 3, 2))
    assert admin.calls == [("create_topic", ("n", True))] and plan.checks[-1].name == "broker validation"


def test_the_read_only_explanation_is_what_a_blocked_create_reports(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any], audit_file: Path
) -> None:
    code, out, _ = _run(capsys, "--read-only", "topic", "create", "n", "--partitions", "1", "--replication-factor",
                        "1", "--yes", "--json", *ZK)  # fmt: skip
    assert code == 2 and out == {"error": "kzc is read-only (--read-only was given): refusing every mutation"}
    assert fake_cluster["admin"].calls == []
    assert [line["outcome"] for line in read_audit_log(audit_file)] == ["refused"]


# ---- 4. a random start per plan, shown, and exactly that plan applied ------------------------------------------


def test_a_dry_run_shows_the_drawn_start_and_the_real_run_applies_the_plan_it_showed(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cluster["reader"] = FakeReader(_facts({b: None for b in range(1, 7)}))
    code, out, _ = _run(
        capsys, "topic", "create", "n", "--partitions", "6", "--replication-factor", "2", "--dry-run", *ZK
    )
    assert code == 0 and "random start: start index " in out and ", start partition 0" in out
    code, out, _ = _run(
        capsys, "topic", "create", "n", "--partitions", "6", "--replication-factor", "2", "--dry-run", "--json", *ZK
    )
    assert set(out["start"]) == {"start_index", "replica_shift", "start_partition", "random"}
    planned: list[Any] = []
    applied: list[Any] = []
    real_plan = TopicOps.plan_create

    def plan(self: TopicOps, request: CreateRequest, via: str | None = None) -> Any:
        planned.append(real_plan(self, request, via))
        return planned[-1]

    def apply(self: TopicOps, plan: Any, before_write: Any = None) -> Any:
        applied.append(plan)
        return SimpleNamespace(assignment=plan.assignment, to_json=lambda: {"assignment": "as planned"})

    monkeypatch.setattr(TopicOps, "plan_create", plan)
    monkeypatch.setattr(TopicOps, "apply_create", apply)
    monkeypatch.setattr(
        TopicOps, "online_progress", lambda self, t, p: SimpleNamespace(describe=lambda: "", to_json=lambda: {})
    )
    code, out, err = _run(
        capsys, "topic", "create", "n", "--partitions", "6", "--replication-factor", "2", "--yes", "--json", *ZK
    )
    assert code == 0, err
    assert len(planned) == 1 and applied == planned  # planned once, that very plan applied


# ---- 5. the audit log: every attempt, the right outcome ---------------------------------------------------------


def test_a_bad_timeout_is_refused_and_audited(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any], audit_file: Path
) -> None:
    for argv in (
        ["create", "n", "--partitions", "1", "--replication-factor", "1"],
        ["expand", "t", "--partitions", "2"],
        ["delete", "t"],
    ):
        code, out, _ = _run(capsys, "topic", *argv, "--timeout", "soon", "--json", *ZK)
        assert code == 2 and out == {"error": "--timeout must be a number of seconds, got 'soon'"}
    lines = read_audit_log(audit_file)
    assert [(line["operation"], line["outcome"]) for line in lines] == [
        ("topic create", "refused"),
        ("topic expand", "refused"),
        ("topic delete", "refused"),
    ]
    assert all(line["arguments"]["timeout"] == "soon" for line in lines)
    assert fake_cluster["opened"] == 0


def test_a_usage_error_inside_an_attempt_is_refused_not_failed(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any], audit_file: Path
) -> None:
    code, out, _ = _run(capsys, "topic", "create", "n", "--partitions", "1", "--replica-assignment", "1", "--json", *ZK)
    assert code == 2 and "cannot be combined" in out["error"]
    code, _, _ = _run(capsys, "topic", "delete", "--regex", "(", "--json", *ZK)
    assert code == 2
    assert [line["outcome"] for line in read_audit_log(audit_file)] == ["refused", "refused"]


def test_a_deletion_the_brokers_refuse_is_audited_as_refused(
    capsys: pytest.CaptureFixture[str], fake_cluster: dict[str, Any], audit_file: Path
) -> None:
    fake_cluster["reader"] = FakeReader(_facts(topics=["t"]), {"t": _live("t", {0: [1]})})
    disabled = KafkaRuleError("Topic deletion is disabled.", "TopicDeletionDisabledException")
    fake_cluster["admin"].delete_errors = {"t": disabled}
    code, out, _ = _run(capsys, "topic", "delete", "t", "--yes", "--json", *ZK)
    assert code == 2 and out == {"error": "the brokers refused every deletion: t: Topic deletion is disabled."}
    [line] = read_audit_log(audit_file)
    assert line["outcome"] == "refused" and line["details"]["errors"] == {"t": "Topic deletion is disabled."}
    # Not a refusal (an unexpected broker error): failed, exit 1.
    fake_cluster["admin"].delete_errors = {"t": KzcError("DeleteTopics failed: boom (UNKNOWN)")}
    code, out, _ = _run(capsys, "topic", "delete", "t", "--yes", "--json", *ZK)
    assert code == 1 and [line["outcome"] for line in read_audit_log(audit_file)] == ["refused", "failed"]


def test_an_unreachable_cluster_is_audited_as_failed(monkeypatch: pytest.MonkeyPatch, audit_file: Path) -> None:
    @contextmanager
    def unreachable(settings: ConnectionSettings, admin_timeout: float = 15.0, audit: AuditLog | None = None) -> Any:
        from core.errors import ConnectError

        raise ConnectError("cannot connect to ZooKeeper 127.0.0.1:1")
        yield

    monkeypatch.setattr(cli.topic_cmd, "open_topic_ops", unreachable)
    assert main(["topic", "delete", "t", "--yes", *ZK]) == 1
    assert [line["outcome"] for line in read_audit_log(audit_file)] == ["failed"]


# ---- 6. expand: the replica assignment string is parsed first -----------------------------------------------


@pytest.mark.parametrize(
    ("live", "partitions", "text"),
    [
        ({0: [1, 2], 1: [2, 3]}, 2, "1:2,2:x"),  # not an increase
        ({0: [1, 2], 1: [2, 3]}, 1, "1:2,x"),  # a decrease
        (None, 3, "1:2,2:3,3:a"),  # the topic does not exist
    ],
)
def test_a_malformed_assignment_string_is_reported_before_the_topic_is_looked_at(
    live: dict[int, list[int]] | None, partitions: int, text: str
) -> None:
    topic = None if live is None else _live("t", live)
    with pytest.raises(KafkaRuleError) as caught:
        plan_expand(_facts(), topic, ExpandRequest("t", partitions, text), via="admin")
    assert caught.value.kafka_exception == "NumberFormatException" and str(caught.value).startswith(
        "For input string: "
    )


def test_the_whole_string_is_parsed_before_the_internal_topic_guard_and_the_rack_check() -> None:
    for facts, topic in ((_facts(), "__consumer_offsets"), (_facts(PARTIAL), "t")):
        with pytest.raises(KafkaRuleError, match="Partition replica lists may not contain duplicate entries: 1"):
            plan_expand(facts, _live(topic, {0: [1, 2]}), ExpandRequest(topic, 2, "1:2,1:1"), via="admin")
    # A well-formed string on a non-increase gets the broker's count check, as before.
    with pytest.raises(KafkaRuleError, match="Topic already has 2 partitions."):
        plan_expand(_facts(), _live("t", {0: [1, 2], 1: [2, 3]}), ExpandRequest("t", 2, "1:2,2:3"), via="admin")


# ---- 7. plurals ----------------------------------------------------------------------------------------------


def test_metrics_lines_pluralise_partitions() -> None:
    one = describe_metrics({"broker_pair_overlap": {"pair": [1, 2], "shared_partitions": 1}, "rack_violations": [4]})
    assert one == [
        "1 partition misses racks Kafka's rack-aware placement would use: 4",
        "most shared broker pair: 1 and 2 (1 partition)",
    ]
    two = describe_metrics({"broker_pair_overlap": {"pair": [1, 2], "shared_partitions": 2}, "rack_violations": [4, 5]})
    assert two == [
        "2 partitions miss racks Kafka's rack-aware placement would use: 4, 5",
        "most shared broker pair: 1 and 2 (2 partitions)",
    ]


# ---- 8. what a ZooKeeper-only create writes, by what the znodes prove -----------------------------------------


FEATURE_V2 = b'{"features":{"metadata.version":{"max_version_level":21}},"version":2,"status":1}'
FEATURE_V1 = b'{"features":{},"version":1,"status":0}'


@pytest.mark.parametrize(
    ("facts", "version", "needs_controller"),
    [
        # The sandbox (3.9.1): /controller v2, /feature v2, v5 registrations.
        (_facts(feature=FEATURE_V2), 3, True),
        (_facts(controller=None, feature=FEATURE_V2), 3, True),
        (_facts(controller=b'{"version":1,"brokerid":1,"timestamp":"1"}', topic_ids=True), 3, True),
        # 2.7+ (v5 registrations, /controller v1, no topic ids yet): what 2.7 writes.
        (_facts(controller=b'{"version":1,"brokerid":1,"timestamp":"1"}', feature=FEATURE_V1), 2, True),
        # 0.10.2 to 2.6 (v4 registrations, no /feature): v1, and no controller needed (older than 3.7.1).
        (_facts(controller=None, registration_version=4), 1, False),
        (_facts(controller=b'{"version":1,"brokerid":1,"timestamp":"1"}', registration_version=4), 1, False),
        # v4 registrations with /feature: 2.7+ with an old IBP: may be 3.7.1+.
        (_facts(controller=None, registration_version=4, feature=FEATURE_V1), 1, True),
    ],
)
def test_the_zookeeper_create_format_follows_the_kafka_version_the_znodes_prove(
    facts: ClusterFacts, version: int, needs_controller: bool
) -> None:
    chosen = zk_create_format(facts)
    assert (chosen.topic_version, chosen.needs_controller) == (version, needs_controller)
    plan = plan_create(facts, CreateRequest("n", replica_assignment="1:2"), via="zookeeper")
    assert plan.topic_znode_version == version and plan.to_json()["topic_znode_version"] == version
    assert any(c.name == "topic znode" and c.detail.startswith(f"written as v{version}: ") for c in plan.checks)
    assert (
        plan_create(facts, CreateRequest("n", replica_assignment="1:2"), via="admin").to_json()["topic_znode_version"]
        is None
    )


def test_topic_znodes_are_encoded_as_each_kafka_version_writes_them() -> None:
    assignment = ((0, (1, 2)), (1, (2, 3)))
    assert encode_new_topic(assignment, 1) == b'{"version":1,"partitions":{"0":[1,2],"1":[2,3]}}'
    assert encode_new_topic(assignment, 2) == (
        b'{"version":2,"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{}}'
    )
    assert (
        encode_new_topic(assignment, 3)
        == encode_new_topic(assignment)
        == (b'{"partitions":{"0":[1,2],"1":[2,3]},"adding_replicas":{},"removing_replicas":{},"version":3}')
    )
    for version in (1, 2, 3):
        parsed = parse_topic("/brokers/topics/n", encode_new_topic(assignment, version))
        assert not isinstance(parsed, Exception) and getattr(parsed, "version", None) == version


@dataclass
class FakeTransaction:
    ops: list[tuple[str, str, Any]]

    def check(self, path: str, version: int) -> None:
        self.ops.append(("check", path, version))

    def create(self, path: str, data: bytes, acl: Any = None) -> None:
        self.ops.append(("create", path, data))

    def set_data(self, path: str, data: bytes, version: int) -> None:
        self.ops.append(("set", path, data))

    def commit(self) -> list[bool]:
        return [True for _ in self.ops]


@dataclass
class FakeClient:
    ops: list[tuple[str, str, Any]] = field(default_factory=list)

    def ensure_path(self, path: str) -> None:
        pass

    def transaction(self) -> FakeTransaction:
        return FakeTransaction(self.ops)

    def get_acls(self, path: str) -> tuple[list[Any], Any]:
        return [], None


def test_without_a_controller_only_a_cluster_that_may_run_3_7_1_refuses_the_zookeeper_create() -> None:
    from core.topics.write import create_via_zookeeper

    def write(facts: ClusterFacts) -> list[tuple[str, str, Any]]:
        client = FakeClient()
        session = SimpleNamespace(client=client, retry=lambda call, *args: call(*args))
        plan = plan_create(facts, CreateRequest("n", replica_assignment="1:2"), via="zookeeper")
        create_via_zookeeper(session, plan, facts)  # type: ignore[arg-type]
        return client.ops

    # A Kafka 2.6 cluster (v4 registrations, no /feature): written unfenced, as v1, as that Kafka does.
    assert write(_facts(controller=None, registration_version=4)) == [
        ("create", "/config/topics/n", b'{"version":1,"config":{}}'),
        ("create", "/brokers/topics/n", b'{"version":1,"partitions":{"0":[1,2]}}'),
    ]
    # A 2.7+ cluster may run 3.7.1+, whose AdminZkClient refuses: nothing is written.
    with pytest.raises(KafkaRuleError, match="Cannot set entity configs for topics n when there is no controller."):
        write(_facts(controller=None))
    # With a controller the write is fenced on its version, whatever the version.
    assert write(_facts(registration_version=4))[0] == ("check", "/controller", 0)


# ---- 7. the write path follows what the brokers serve (ApiVersions) -------------------------------------------


@pytest.mark.parametrize(("release", "via"), [("0.10.2", "zookeeper"), ("1.1", "admin"), ("3.9", "admin")])
def test_an_expand_goes_through_zookeeper_where_the_brokers_lack_create_partitions(
    audit_file: Path, release: str, via: str
) -> None:
    admin = FakeAdmin()
    reader = FakeReader(_facts(topics=["t"], registration_version=4), {"t": _live("t", {0: [1, 2]})})
    ops = _ops(reader, admin, audit_file, release=release)
    plan = ops.plan_expand(ExpandRequest("t", 2))
    assert plan.via == via
    reason = path_reason(plan)
    assert reason is not None
    writes = planned_writes(plan)
    if via == "zookeeper":
        assert reason.startswith("broker 1 has no CreatePartitions (Kafka 1.0.0+")
        assert "as kafka-topics --alter --zookeeper did before 1.0" in reason
        assert admin.calls == []  # nothing is sent to brokers that cannot parse it, not even validate_only
        assert [(w.op, w.path) for w in writes] == [("set", "/brokers/topics/t")]
    else:
        assert reason == "every broker serves CreatePartitions: sent through the AdminClient"
        assert admin.calls == [("create_partitions", ("t", True))]
        assert [w.path for w in writes] == ["CreatePartitions"]
    assert f"Path: {reason}" in describe_writes(writes, reason)


def test_without_a_bootstrap_server_the_plan_says_why_it_writes_through_zookeeper(audit_file: Path) -> None:
    reader = FakeReader(_facts(topics=["t"]), {"t": _live("t", {0: [1, 2]})})
    plan = _ops(reader, None, audit_file).plan_expand(ExpandRequest("t", 2))
    assert (plan.via, path_reason(plan)) == (
        "zookeeper",
        "no --bootstrap-server: written through ZooKeeper, as kafka-topics --zookeeper wrote (deprecated in 2.2, "
        "removed in 3.0)",
    )


@pytest.mark.parametrize(
    ("release", "bootstrap", "via", "outcome"),
    [
        ("3.9", True, "zookeeper", "zookeeper: --via zookeeper: written through ZooKeeper, as kafka-topics"),
        ("3.9", True, "admin", "admin: every broker serves CreatePartitions: sent through the AdminClient"),
        ("0.10.2", True, "admin", "--via admin cannot be taken: broker 1 has no CreatePartitions (Kafka 1.0.0+"),
        ("3.9", False, "admin", "--via admin needs --bootstrap-server"),
    ],
)
def test_via_forces_a_topic_writes_path_or_says_why_it_cannot(
    audit_file: Path, release: str, bootstrap: bool, via: str, outcome: str
) -> None:
    """Topic writes take the one ``--via`` decision (``write_route``); ``--via zookeeper`` sends nothing to the
    brokers, not even ``validate_only``."""
    admin = FakeAdmin() if bootstrap else None
    reader = FakeReader(_facts(topics=["t"], registration_version=4), {"t": _live("t", {0: [1, 2]})})
    ops = _ops(reader, admin, audit_file, release=release)
    if outcome.startswith("--via admin"):
        with pytest.raises(UsageError) as refused:
            ops.plan_expand(ExpandRequest("t", 2), via)
        assert str(refused.value).startswith(outcome)
        return
    plan = ops.plan_expand(ExpandRequest("t", 2), via)
    assert f"{plan.via}: {path_reason(plan)}".startswith(outcome)
    assert admin is not None and (admin.calls == []) == (via == "zookeeper")
