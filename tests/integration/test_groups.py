"""Consumer groups on the real sandbox: messages produced and offsets committed with confluent-kafka show the
exact lag in ``kzc group --json``, ``kzc groups --json`` and the console's backend; resets follow Kafka's
rules (an empty group is reset and its new lag shown, an active one is refused with Kafka's message); a
ZooKeeper-stored group written under ``/consumers`` shows its lag."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from cli.main import main
from core.audit import read_audit_log
from core.brokers.offset_fetch import Coordinator, committed_offsets, fetch_offsets, find_coordinators
from core.config import PLAINTEXT, ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.console.zk import ZkBackend
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.sandbox_tools import eventually
from tui.app import KzcApp
from tui.screens.groups import GroupsScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration

PER_PARTITION = (10, 20, 30)  # messages produced to partitions 0, 1, 2
COMMITTED = {0: 4, 1: 20}  # partition 2: nothing committed


def cluster(sandbox: Sandbox) -> list[str]:
    info = sandbox.info()
    return ["--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    try:
        out: Any = json.loads(captured.out)
    except json.JSONDecodeError:
        out = captured.out
    return code, out, captured.err


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def topic(sandbox: Sandbox) -> str:
    """A 3-partition topic holding PER_PARTITION messages per partition."""
    name = unique("lag")
    servers = sandbox.info().bootstrap_servers
    admin = AdminClient({"bootstrap.servers": servers})  # kept alive until the topic exists
    admin.create_topics([NewTopic(name, 3, 2)])[name].result(timeout=60)
    producer = Producer({"bootstrap.servers": servers, "acks": "all"})
    for partition, count in enumerate(PER_PARTITION):
        for i in range(count):
            producer.produce(name, f"m{i}".encode(), partition=partition)
    assert producer.flush(60) == 0
    return name


def commit(sandbox: Sandbox, group: str, offsets: dict[tuple[str, int], int]) -> None:
    """Commit ``offsets`` for ``group`` as a consumer that then leaves (the group stays Empty)."""
    consumer = Consumer(
        {"bootstrap.servers": sandbox.info().bootstrap_servers, "group.id": group, "enable.auto.commit": False}
    )
    try:
        consumer.commit(offsets=[TopicPartition(t, p, o) for (t, p), o in offsets.items()], asynchronous=False)
    finally:
        consumer.close()


@pytest.fixture
def empty_group(sandbox: Sandbox, topic: str) -> str:
    group = unique("empty")
    commit(sandbox, group, {(topic, p): o for p, o in COMMITTED.items()})
    return group


@pytest.fixture
def active_group(sandbox: Sandbox, topic: str) -> Iterator[str]:
    """A group with one live member that consumed every message and committed it."""
    group = unique("active")
    consumer = Consumer({"bootstrap.servers": sandbox.info().bootstrap_servers, "group.id": group,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})  # fmt: skip
    consumer.subscribe([topic])
    seen = 0

    def consumed_all() -> bool:
        nonlocal seen
        for message in consumer.consume(100, timeout=0.5):
            if message.error() is None:
                seen += 1
        return seen >= sum(PER_PARTITION)

    wait_until(consumed_all, 90, "the consumer to read every message")
    consumer.commit(asynchronous=False)
    try:
        yield group
    finally:
        consumer.close()


def expected_lag() -> dict[int, int | None]:
    return {p: (PER_PARTITION[p] - COMMITTED[p] if p in COMMITTED else None) for p in range(3)}


def test_group_json_shows_the_exact_lag_of_committed_offsets(
    sandbox: Sandbox, topic: str, empty_group: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "group", empty_group, "--json", *cluster(sandbox))
    assert code == 0, err
    assert (out["state"], out["source"], out["members"]) == ("Empty", "kafka", 0)
    rows = {r["partition"]: r for r in out["partitions"] if r["topic"] == topic}
    assert {p: r["lag"] for p, r in rows.items()} == {0: 6, 1: 0}  # partition 2 has no committed offset
    assert {p: (r["committed"], r["end"]) for p, r in rows.items()} == {0: (4, 10), 1: (20, 20)}
    assert out["lag"] == 6
    assert out["max_lag"] == 6


def test_groups_json_lists_the_group_with_its_total_lag(
    sandbox: Sandbox, topic: str, empty_group: str, active_group: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "groups", "--json", *cluster(sandbox))
    assert code == 0, err
    rows = {g["group"]: g for g in out["groups"]}
    assert {k: rows[empty_group][k] for k in ("state", "members", "topics", "lag", "max_lag", "source")} == {
        "state": "Empty", "members": 0, "topics": [topic], "lag": 6, "max_lag": 6, "source": "kafka",
    }  # fmt: skip
    assert {k: rows[active_group][k] for k in ("state", "members", "lag")} == {"state": "Stable", "members": 1,
                                                                               "lag": 0}  # fmt: skip


def test_the_console_backend_shows_the_same_lag(sandbox: Sandbox, topic: str, empty_group: str) -> None:
    info = sandbox.info()
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper), bootstrap_servers=parse_bootstrap(info.bootstrap_servers)
    )
    backend = ZkBackend(settings)
    backend.connect()
    try:
        overview = backend.group_overview()
        group = next(g for g in overview.groups if g.group == empty_group)
        assert (group.lag, group.max_lag) == (6, 6)
        detail = backend.group_detail(empty_group)
        assert {r.partition: r.lag for r in detail.group.partitions} == {0: 6, 1: 0}
        consuming = {g.group: lag.lag for g, lag in backend.groups_of_topic(topic)}
        assert consuming[empty_group] == 6
    finally:
        backend.close()


def test_reset_of_an_empty_group_to_earliest_shows_and_commits_the_new_lag(
    sandbox: Sandbox, topic: str, empty_group: str, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    args = ["group", "reset", empty_group, "--topic", topic, "--to-earliest", *cluster(sandbox)]
    code, out, err = run(capsys, *args, "--dry-run", "--json")
    assert code == 0, err
    assert (out["lag_before"], out["lag_after"]) == (6, 60)
    assert [(r["old"], r["new"], r["new_lag"]) for r in out["partitions"]] == [(4, 0, 10), (20, 0, 20), (None, 0, 30)]

    code, out, err = run(capsys, *args, "--yes", "--json")
    assert code == 0, err
    assert out["applied"] is True
    code, described, err = run(capsys, "group", empty_group, "--json", *cluster(sandbox))
    assert described["lag"] == sum(PER_PARTITION)
    outcomes = [line["outcome"] for line in read_audit_log(audit_file, intents=True)]
    assert outcomes == ["dry-run", "intent", "applied"]


def test_reset_of_an_active_group_is_refused_with_kafkas_message(
    sandbox: Sandbox, topic: str, active_group: str, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    code, _, err = run(
        capsys, "group", "reset", active_group, "--topic", topic, "--to-earliest", "--yes", *cluster(sandbox)
    )
    assert code == 2
    assert err.strip() == (
        f"kzc: error: Assignments can only be reset if the group '{active_group}' is inactive, "
        "but the current state is Stable."
    )
    assert [line["outcome"] for line in read_audit_log(audit_file, intents=True)] == ["refused"]


def test_reset_in_read_only_mode_is_refused(
    sandbox: Sandbox, topic: str, empty_group: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        capsys, "group", "reset", empty_group, "--topic", f"{topic}:0", "--to-latest", "--yes", "--read-only",
        *cluster(sandbox),
    )  # fmt: skip
    assert code == 2
    assert "kzc is read-only (--read-only was given): resetting offsets is refused" in err
    code, described, _ = run(capsys, "group", empty_group, "--json", *cluster(sandbox))
    assert described["lag"] == 6  # unchanged


def test_bad_reset_input_exits_2_with_kafkas_message(
    sandbox: Sandbox, topic: str, empty_group: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "group", "reset", empty_group, "--topic", f"{topic}:x", "--to-latest", *cluster(sandbox))
    assert code == 2
    assert f"Invalid partition 'x' specified in topic arg '{topic}:x''" in err


def test_a_zookeeper_stored_group_shows_its_lag(
    sandbox: Sandbox, topic: str, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    group = unique("zkgroup")
    consumer_id = f"{group}_host-1700000000000-abcd1234"
    zk.create(f"/consumers/{group}/ids/{consumer_id}", b'{"version":1,"subscription":{"%s":1},"pattern":"static",'
              b'"timestamp":"1700000000000"}' % topic.encode(), makepath=True)  # fmt: skip
    zk.create(f"/consumers/{group}/owners/{topic}/0", f"{consumer_id}-0".encode(), makepath=True)
    zk.create(f"/consumers/{group}/offsets/{topic}/0", b"7", makepath=True)
    zk.create(f"/consumers/{group}/offsets/{topic}/2", b"25", makepath=True)

    code, out, err = run(capsys, "group", group, "--json", *cluster(sandbox))
    assert code == 0, err
    assert (out["source"], out["state"], out["lag"]) == ("zookeeper", "Active", 3 + 5)
    rows = {r["partition"]: (r["committed"], r["end"], r["lag"], r["member"]) for r in out["partitions"]}
    assert rows == {0: (7, 10, 3, consumer_id), 2: (25, 30, 5, None)}

    code, listed, err = run(capsys, "groups", "--json", "--zookeeper", sandbox.info().zookeeper)
    assert code == 0, err
    row = next(g for g in listed["groups"] if g["group"] == group)
    assert (row["source"], row["lag"], row["unknown_partitions"]) == ("zookeeper", None, 2)  # no brokers: unknown
    assert any("--bootstrap-server" in note for note in listed["notes"])


def test_reset_without_a_terminal_and_without_yes_is_refused(
    sandbox: Sandbox, topic: str, empty_group: str, capsys: pytest.CaptureFixture[str], audit_file: Path
) -> None:
    code, _, err = run(capsys, "group", "reset", empty_group, "--topic", topic, "--to-latest", *cluster(sandbox))
    assert code == 2
    assert "refusing to reset offsets without confirmation" in err
    assert [line["outcome"] for line in read_audit_log(audit_file, intents=True)] == ["refused"]


def test_an_unknown_group_exits_2_with_kafkas_message(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    group = unique("nobody")
    code, _, err = run(capsys, "group", group, *cluster(sandbox))
    assert code == 2
    assert err.strip() == f"kzc: error: Consumer group '{group}' does not exist."


async def test_the_console_groups_screen_shows_the_exact_lag(sandbox: Sandbox, topic: str, empty_group: str) -> None:
    info = sandbox.info()
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper), bootstrap_servers=parse_bootstrap(info.bootstrap_servers)
    )
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    async with app.run_test(size=(160, 40)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the console to connect")
        await pilot.press("g")
        await eventually(pilot, lambda: isinstance(app.screen, GroupsScreen), 10, "the groups screen")

        def row() -> tuple[str, ...] | None:
            table = app.screen.query_one("#groups", VirtualTable)
            return next((r.cells for r in table.visible_rows() if r.key == empty_group), None)

        cells = await eventually(pilot, row, 60, f"{empty_group} on the groups screen")
        assert (cells[1], cells[2], cells[3], cells[4], cells[5]) == ("Empty", "0", topic, "6", "6")


def test_a_broker_that_is_not_the_coordinator_says_so_and_the_offsets_come_from_the_one_that_is(
    sandbox: Sandbox, topic: str, empty_group: str
) -> None:
    # What a broker outage does to a group's coordinator, on purpose: OffsetFetch sent to another broker is
    # answered NOT_COORDINATOR at the request level (where librdkafka's admin client died of SIGSEGV); kzc finds
    # the coordinator again and reads the offsets there.
    info = sandbox.info()
    servers = parse_bootstrap(info.bootstrap_servers)
    (coordinator,) = find_coordinators(servers, PLAINTEXT, time.monotonic() + 30, [empty_group])[0].values()
    other = next(b for b in info.brokers if b.id != coordinator.node and b.pid is not None)
    done, again = fetch_offsets(
        Coordinator(other.id, "127.0.0.1", other.port), [empty_group], PLAINTEXT, time.monotonic() + 30
    )
    assert (done, again) == ({}, [empty_group])
    found = committed_offsets(servers, PLAINTEXT, 30, [empty_group, unique("never-committed")])
    assert found[empty_group] == {(topic, p): o for p, o in COMMITTED.items()}
    assert list(found.values())[1] == {}  # a group that never committed: no offsets, no error
