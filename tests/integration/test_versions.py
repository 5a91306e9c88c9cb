"""Every command path of kzc on real brokers of each Kafka release still on ZooKeeper.

Per release (``$KZC_TEST_KAFKA_VERSIONS``, comma-separated; default ``DEFAULT_VERSIONS``, what ``make test``
runs), the 3-broker sandbox of the release (``kzc sandbox up --kafka-version V``, shared with ``test_release_paths.py``
(``tests/integration/clusters.py``)), then: describe counts, topic
create/expand/delete on both paths, configs, a reassignment planned (with the bytes to copy where the release
can report them), applied, followed and cancelled (or the refusal), preferred and unclean elections (or the
refusal), a consumer group's lag (and a ZooKeeper-stored group on releases that had them), ``kzc check`` on
the healthy cluster and after a broker is killed, migration readiness, the console showing the counts, and no
broker log holding a request of kzc's it could not parse.

Each test records, per release and command, what kzc did and the path it reported itself
(``tests/integration/versions_record.py``); ``make test-versions`` writes docs/versions.md from the records.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer
from kazoo.client import KazooClient

from cli.main import main
from core.config import ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.polling import DeadlineExceeded, wait_until
from core.sandbox.local_cluster import Sandbox
from core.sandbox.releases import TESTED_VERSIONS, KafkaRelease
from tests.integration.clusters import Clusters, release_key
from tests.integration.sandbox_tools import eventually
from tests.integration.versions_record import record, reported_path
from tests.integration.zk_server import zk_client
from tui.app import KzcApp

pytestmark = pytest.mark.integration

KZC = str(Path(sys.executable).with_name("kzc"))
# CI: the two releases whose paths differ most from 3.9 and from each other (docs/development.md says why);
# 3.9 itself is what the rest of the suite runs on.
DEFAULT_VERSIONS = ("0.10.2.2", "1.1.1")
_CHOSEN = os.environ.get("KZC_TEST_KAFKA_VERSIONS") or ",".join(DEFAULT_VERSIONS)
VERSIONS = TESTED_VERSIONS if _CHOSEN.strip() == "all" else tuple(v.strip() for v in _CHOSEN.split(",") if v.strip())
SURFACES = ("--zookeeper", "--bootstrap-server")
# What a broker logs when it cannot parse a request (kafka.network.Processor / RequestChannel, by release).
UNPARSEABLE = (
    "Invalid version for API key",
    "Error parsing request",
    "due to invalid request",
    "InvalidRequestException",
)


@dataclass(frozen=True)
class Cluster:
    """One release's sandbox and the connect options of each surface."""

    version: str
    box: Sandbox

    @property
    def release(self) -> KafkaRelease:
        return KafkaRelease.parse(self.version)

    @property
    def zk(self) -> list[str]:
        return ["--zookeeper", self.box.info().zookeeper]

    @property
    def admin(self) -> list[str]:
        return [*self.zk, "--bootstrap-server", self.box.info().bootstrap_servers]

    def args(self, surface: str) -> list[str]:
        return self.admin if surface == "--bootstrap-server" else self.zk

    @contextmanager
    def zookeeper(self) -> Iterator[KazooClient]:
        with zk_client(self.box.info().zookeeper) as client:
            yield client


# First of the modules that share these clusters: ``kzc check`` must find nothing on a cluster only this module used.
@pytest.fixture(
    scope="module", params=[pytest.param(v, marks=pytest.mark.cluster(release_key(v), first=True)) for v in VERSIONS]
)
def cluster(request: pytest.FixtureRequest, clusters: Clusters) -> Cluster:
    """The 3-broker sandbox of the release (no racks), shared with ``test_release_paths.py``, which runs after."""
    return Cluster(request.param, clusters.get(release_key(request.param)))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    """Run kzc in-process; (exit code, stdout as JSON when it is JSON, stderr)."""
    code = main(list(argv))
    captured = capsys.readouterr()
    try:
        out: Any = json.loads(captured.out)
    except json.JSONDecodeError:
        out = captured.out
    return code, out, captured.err


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:6]}"


class Observation:
    """What one command did on one release, recorded when the block ends (as failed if it raised)."""

    def __init__(self) -> None:
        self.outcome: str | None = None
        self.via: str | None = None
        self.why: str | None = None

    def set(self, outcome: str, via: str | None = None, why: str | None = None) -> None:
        self.outcome, self.via, self.why = outcome, via, why


@contextmanager
def observing(cluster: Cluster, command: str) -> Iterator[Observation]:
    seen = Observation()
    try:
        yield seen
    except BaseException as exc:
        record(cluster.version, command, "FAILED", seen.via, f"{type(exc).__name__}: {str(exc)[:300]}")
        raise
    record(cluster.version, command, seen.outcome or "ok", seen.via, seen.why)


def topic_assignment(zk: KazooClient, topic: str) -> dict[int, list[int]]:
    data, _ = zk.get(f"/brokers/topics/{topic}")
    return {int(p): r for p, r in json.loads(data)["partitions"].items()}


def partition_state(zk: KazooClient, topic: str, partition: int) -> dict[str, Any] | None:
    path = f"/brokers/topics/{topic}/partitions/{partition}/state"
    if not zk.exists(path):
        return None
    state: dict[str, Any] = json.loads(zk.get(path)[0])
    return state


def all_led(zk: KazooClient, topic: str) -> bool:
    """Every partition of ``topic`` has a leader and a full ISR."""
    if not zk.exists(f"/brokers/topics/{topic}"):
        return False
    for partition, replicas in topic_assignment(zk, topic).items():
        state = partition_state(zk, topic, partition)
        if state is None or state["leader"] < 0 or sorted(state["isr"]) != sorted(replicas):
            return False
    return True


def create(capsys: pytest.CaptureFixture[str], cluster: Cluster, name: str, *how: str) -> None:
    """A topic created through ZooKeeper, led with a full ISR before returning."""
    code, _, err = run(capsys, "topic", "create", name, *how, "--yes", "--json", *cluster.zk)
    assert code == 0, err
    with cluster.zookeeper() as zk:
        wait_until(lambda: all_led(zk, name), 60, f"every partition of {name} to be led with a full ISR")


def produce(cluster: Cluster, topic: str, per_partition: dict[int, int], size: int = 100) -> None:
    producer = Producer({"bootstrap.servers": cluster.box.info().bootstrap_servers, "acks": "all"})
    for partition, count in per_partition.items():
        for i in range(count):
            producer.produce(topic, (b"x" * size) + str(i).encode(), partition=partition)
    assert producer.flush(60) == 0


# ---- describe ---------------------------------------------------------------------------------------


def test_describe_counts_what_zookeeper_holds(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    create(capsys, cluster, unique("counted"), "--partitions", "3", "--replication-factor", "2")
    with observing(cluster, "describe") as seen:
        code, out, err = run(capsys, "describe", *cluster.zk, "--json")
        assert code == 0, err
        with cluster.zookeeper() as zk:
            topics = zk.get_children("/brokers/topics")
            partitions = sum(len(topic_assignment(zk, t)) for t in topics)
        assert (out["topics"], out["partitions"]) == (len(topics), partitions)
        assert sorted(b["id"] for b in out["brokers"]) == [1, 2, 3]
        seen.set("ok", "zookeeper", f"{len(topics)} topics, {partitions} partitions, 3 brokers: as ZooKeeper holds")


# ---- topics -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("surface", SURFACES)
def test_topic_create_expand_delete(cluster: Cluster, capsys: pytest.CaptureFixture[str], surface: str) -> None:
    args, name = cluster.args(surface), unique("life")
    admin = surface == "--bootstrap-server"
    with observing(cluster, f"topic create {surface}") as seen:
        code, plan, err = run(capsys, "topic", "create", name, "--partitions", "2", "--replication-factor", "2",
                              "--dry-run", "--json", *args)  # fmt: skip
        assert code == 0, err
        via, why = reported_path(plan)
        seen.set("ok", via, why)
        assert via == ("admin" if admin else "zookeeper")  # CreateTopics: every release here (0.10.1+)
        code, _, err = run(capsys, "topic", "create", name, "--partitions", "2", "--replication-factor", "2",
                           "--yes", "--wait", "--json", *args)  # fmt: skip
        assert code == 0, err
        with cluster.zookeeper() as zk:
            wait_until(lambda: all_led(zk, name), 60, f"{name} led")
            assert len(topic_assignment(zk, name)) == 2

    with observing(cluster, f"topic expand {surface}") as seen:
        code, plan, err = run(capsys, "topic", "expand", name, "--partitions", "3", "--dry-run", "--json", *args)
        assert code == 0, err
        via, why = reported_path(plan)
        seen.set("ok", via, why)
        # CreatePartitions came with 1.0 (KIP-195): before it, kafka-topics --alter --zookeeper's path.
        assert via == ("admin" if admin and cluster.release.at_least(1, 0) else "zookeeper")
        code, _, err = run(capsys, "topic", "expand", name, "--partitions", "3", "--yes", "--wait", "--json", *args)
        assert code == 0, err
        with cluster.zookeeper() as zk:
            wait_until(lambda: all_led(zk, name) and len(topic_assignment(zk, name)) == 3, 60, f"{name} at 3, led")

    with observing(cluster, f"topic delete {surface}") as seen:
        code, plan, err = run(capsys, "topic", "delete", name, "--dry-run", "--json", *args)
        assert code == 0, err
        via, why = reported_path(plan)
        seen.set("ok", via, why)
        assert via == ("admin" if admin else "zookeeper")
        code, _, err = run(capsys, "topic", "delete", name, "--yes", "--wait", "--json", *args)
        assert code == 0, err
        with cluster.zookeeper() as zk:
            wait_until(lambda: not zk.exists(f"/brokers/topics/{name}"), 90, f"{name} deleted")


# ---- configs ----------------------------------------------------------------------------------------


def stored_config(zk: KazooClient, topic: str) -> dict[str, str]:
    path = f"/config/topics/{topic}"
    if not zk.exists(path):
        return {}
    config: dict[str, str] = json.loads(zk.get(path)[0]).get("config", {})
    return config


@pytest.mark.parametrize("surface", SURFACES)
def test_config_set_show_delete(cluster: Cluster, capsys: pytest.CaptureFixture[str], surface: str) -> None:
    name = unique("cfg")
    create(capsys, cluster, name, "--partitions", "1", "--replication-factor", "2")
    args = cluster.args(surface)
    admin = surface == "--bootstrap-server"
    with observing(cluster, f"config set {surface}") as seen:
        code, plan, err = run(capsys, "config", "set", name, "retention.ms=86400000", "--dry-run", "--json", *args)
        assert code == 0, err
        via, why = reported_path(plan)
        seen.set("ok", via, why)
        # IncrementalAlterConfigs came with 2.3 (KIP-339): before it, kafka-configs --zookeeper's path.
        assert via == ("admin" if admin and cluster.release.at_least(2, 3) else "zookeeper")
        code, _, err = run(capsys, "config", "set", name, "retention.ms=86400000", "--yes", "--json", *args)
        assert code == 0, err
        with cluster.zookeeper() as zk:
            assert stored_config(zk, name).get("retention.ms") == "86400000"

    if admin:
        with observing(cluster, "config show") as seen:
            code, shown, err = run(capsys, "config", "show", name, "--json", *args)
            assert code == 0, err
            assert "86400000" in json.dumps(shown), shown
            seen.set("ok", None, shown.get("described_unknown") if isinstance(shown, dict) else None)

    with observing(cluster, f"config delete {surface}") as seen:
        code, plan, err = run(capsys, "config", "delete", name, "retention.ms", "--dry-run", "--json", *args)
        assert code == 0, err
        via, why = reported_path(plan)
        seen.set("ok", via, why)
        code, _, err = run(capsys, "config", "delete", name, "retention.ms", "--yes", "--json", *args)
        assert code == 0, err
        with cluster.zookeeper() as zk:
            assert "retention.ms" not in stored_config(zk, name)


# ---- reassignments ----------------------------------------------------------------------------------


def test_reassign_plan_apply_status(cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    name = unique("move")
    create(capsys, cluster, name, "--replica-assignment", "3:1,2:3")
    produce(cluster, name, {0: 200, 1: 200}, size=1000)
    plan_file = tmp_path / "plan.json"
    with observing(cluster, "reassign plan") as seen:
        code, plan, err = run(capsys, "reassign", "plan", "--move-off", "3", "--topic", name, *cluster.admin,
                              "--json", "-o", str(plan_file))  # fmt: skip
        assert code == 0, err
        metrics = plan["kzc"]["metrics"]
        assert {(e["topic"], e["partition"]) for e in plan["partitions"]} == {(name, 0), (name, 1)}
        if cluster.release.at_least(1, 0):  # DescribeLogDirs (KIP-113)
            assert metrics["bytes_to_move"] is not None and metrics["bytes_to_move"] >= 400_000, metrics
            seen.set(f"ok, {metrics['bytes_to_move']:,} bytes to copy", "admin", "DescribeLogDirs")
        else:
            assert metrics["bytes_to_move"] is None and metrics["bytes_to_move_unknown"], metrics
            seen.set("ok, bytes unknown", None, metrics["bytes_to_move_unknown"])

    with observing(cluster, "reassign apply") as seen:
        code, dry, err = run(capsys, "reassign", "apply", str(plan_file), "--dry-run", "--json", *cluster.admin)
        assert code == 0, err
        via, why = reported_path(dry)
        seen.set("ok", via, why)
        code, out, err = run(
            capsys, "reassign", "apply", str(plan_file), "--yes", "--wait", "--timeout", "120", *cluster.admin, "--json"
        )
        assert code == 0, err
        assert out["progress"]["done"] is True
        with cluster.zookeeper() as zk:
            moved = topic_assignment(zk, name)
            assert moved == {e["partition"]: e["replicas"] for e in plan["partitions"]}
            assert all(3 not in r for r in moved.values())
            assert not zk.exists("/admin/reassign_partitions")

    with observing(cluster, "reassign status") as seen:
        code, status, err = run(capsys, "reassign", "status", *cluster.admin, "--json")
        assert code == 0, err
        assert "moving" not in status or not status["moving"], status
        seen.set("ok, nothing moving")


def test_reassign_cancel_or_the_refusal(cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    with observing(cluster, "reassign cancel") as seen:
        if not cluster.release.at_least(2, 4):
            code, out, _ = run(capsys, "reassign", "cancel", "--yes", *cluster.admin, "--json")
            assert code == 2, out
            assert "before 2.4" in out["error"], out
            seen.set("refused", None, out["error"])
            return
        name = unique("cancel")
        create(capsys, cluster, name, "--replica-assignment", "1:2")
        produce(cluster, name, {0: 3000}, size=1000)
        slow = tmp_path / "slow.json"
        slow.write_text(json.dumps({"version": 1, "partitions": [{"topic": name, "partition": 0, "replicas": [3, 1]}]}))
        code, _, err = run(capsys, "reassign", "apply", str(slow), "--throttle", "1", "--yes", *cluster.zk, "--json")
        assert code == 0, err
        code, out, err = run(capsys, "reassign", "cancel", "--yes", *cluster.admin, "--json")
        assert code == 0, err
        assert out["cancelled"] == [f"{name}-0"]
        seen.set("ok", "admin", "AlterPartitionReassignments")
        with cluster.zookeeper() as zk:
            wait_until(lambda: topic_assignment(zk, name)[0] == [1, 2], 60, "the original replicas back")
            wait_until(lambda: not zk.exists("/admin/reassign_partitions"), 60, "the request gone")


# ---- elections --------------------------------------------------------------------------------------


def test_elect_preferred(cluster: Cluster, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    name = unique("elect")
    create(capsys, cluster, name, "--replica-assignment", "1:2:3")
    # The same replicas in another order: the leader (1) stays, the preferred leader becomes 2.
    order = tmp_path / "order.json"
    order.write_text(json.dumps({"version": 1, "partitions": [{"topic": name, "partition": 0, "replicas": [2, 1, 3]}]}))
    code, _, err = run(
        capsys, "reassign", "apply", str(order), "--yes", "--wait", "--timeout", "60", *cluster.zk, "--json"
    )
    assert code == 0, err
    with cluster.zookeeper() as zk:
        wait_until(lambda: topic_assignment(zk, name)[0] == [2, 1, 3], 30, "the new replica order")
        state = partition_state(zk, name, 0)
        assert state is not None and state["leader"] == 1

    with observing(cluster, "elect preferred") as seen:
        code, plan, err = run(capsys, "elect", "preferred", "--topic", name, "--dry-run", "--json", *cluster.admin)
        assert code == 0, err
        via, why = reported_path(plan)
        seen.set("ok", via, why)
        # ElectLeaders with the election type (v1) came with 2.4; before it, the /admin/preferred_replica_election path.
        assert via == ("admin" if cluster.release.at_least(2, 4) else "zookeeper")
        code, _, err = run(capsys, "elect", "preferred", "--topic", name, "--yes", "--wait", "--timeout", "60",
                           *cluster.admin, "--json")  # fmt: skip
        assert code == 0, err
        with cluster.zookeeper() as zk:
            wait_until(lambda: (partition_state(zk, name, 0) or {}).get("leader") == 2, 60, "broker 2 to lead")


def in_terminal(argv: list[str], answer: str, audit: Path) -> tuple[int, str]:
    """Run kzc with a pseudo-terminal as stdin and type ``answer`` (a typed confirmation); (exit code, stderr)."""
    master, slave = pty.openpty()
    try:
        process = subprocess.Popen([KZC, *argv], stdin=slave, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env={**os.environ, "KZC_AUDIT_LOG": str(audit)}, text=True)  # fmt: skip
        os.write(master, (answer + "\n").encode())  # the terminal buffers the line until kzc reads it
        _, err = process.communicate(timeout=120)
    finally:
        os.close(slave)
        os.close(master)
    return process.returncode, err


def test_elect_unclean_or_the_refusal(cluster: Cluster, capsys: pytest.CaptureFixture[str], audit_file: Path) -> None:
    name = unique("unclean")
    create(capsys, cluster, name, "--replica-assignment", "3:2")
    argv = ["elect", "unclean", "--topic", name, "--partition", "0", *cluster.admin]
    with observing(cluster, "elect unclean") as seen:
        if not cluster.release.at_least(2, 4):
            code, out, err = run(capsys, *argv, "--dry-run", "--json")
            assert code == 2, (out, err)
            assert "before 2.4" in out["error"] and "unclean.leader.election.enable" in out["error"], out
            seen.set("refused", None, out["error"])
            return
        # The follower goes, then the leader: no leader, last ISR [3]; broker 2 comes back outside the ISR.
        with cluster.zookeeper() as zk:
            try:
                cluster.box.kill_broker(2)
                wait_until(lambda: (partition_state(zk, name, 0) or {}).get("isr") == [3], 60, "the ISR shrunk to 3")
                cluster.box.kill_broker(3)
                wait_until(lambda: (partition_state(zk, name, 0) or {}).get("leader") == -1, 60, "no leader")
                cluster.box.start_broker(2)
                code, plan, err = run(capsys, *argv, "--dry-run", "--json")
                assert code == 0, err
                assert (plan["new_leader"], plan["last_isr"], plan["loses_data"]) == (2, [3], True), plan
                via, why = reported_path(plan)
                seen.set("ok", via or "admin", why or "ElectLeaders (UNCLEAN)")
                code, err = in_terminal(argv, f"{name}-0", audit_file)
                assert code == 0, err
                wait_until(lambda: (partition_state(zk, name, 0) or {}).get("leader") == 2, 60, "broker 2 to lead")
            finally:
                for broker in (2, 3):
                    if cluster.box.info().broker(broker).pid is None:
                        cluster.box.start_broker(broker)
            # Back to a healthy cluster for the next tests: full ISRs, then the preferred leaders.
            wait_until(lambda: all(all_led(zk, t) for t in zk.get_children("/brokers/topics")), 120, "full ISRs")
            code, out, err = run(capsys, "elect", "preferred", "--all", "--yes", "--wait", *cluster.admin, "--json")
            assert code == 0 or "no partition needs a preferred leader election" in json.dumps(out), (out, err)


# ---- consumer groups --------------------------------------------------------------------------------


def test_group_lag(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    name, group = unique("lag"), unique("group")
    create(capsys, cluster, name, "--partitions", "2", "--replication-factor", "2")
    produce(cluster, name, {0: 10, 1: 20})
    # A member of the group reads everything and commits; 7 more messages arrive after it left: lag 7.
    consumer = Consumer({"bootstrap.servers": cluster.box.info().bootstrap_servers, "group.id": group,
                         "auto.offset.reset": "earliest", "enable.auto.commit": False})  # fmt: skip
    seen_messages = 0

    def consumed_all() -> bool:
        nonlocal seen_messages
        seen_messages += sum(1 for m in consumer.consume(100, timeout=0.5) if m.error() is None)
        return seen_messages >= 30

    try:
        consumer.subscribe([name])
        wait_until(consumed_all, 90, "the consumer to read the 30 messages")
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    produce(cluster, name, {0: 7})
    with observing(cluster, "group lag") as seen:
        code, out, err = run(capsys, "group", group, "--json", *cluster.admin)
        assert code == 0, err
        rows = {r["partition"]: (r["committed"], r["end"], r["lag"]) for r in out["partitions"] if r["topic"] == name}
        assert rows == {0: (10, 17, 7), 1: (20, 20, 0)}
        assert (out["source"], out["state"], out["lag"]) == ("kafka", "Empty", 7)
        detail = "Kafka-stored group, consumed and committed, then 7 more produced: lag 7"
        if not cluster.release.at_least(2, 0):
            # The old (Scala) consumer of these releases stored offsets in ZooKeeper, as it writes them.
            zk_group = unique("zkgroup")
            with cluster.zookeeper() as zk:
                zk.create(f"/consumers/{zk_group}/offsets/{name}/1", b"15", makepath=True)
            code, out, err = run(capsys, "group", zk_group, "--json", *cluster.admin)
            assert code == 0, err
            assert (out["source"], out["lag"]) == ("zookeeper", 5), out  # end of partition 1: 20
            detail += "; ZooKeeper-stored group (/consumers): lag 5"
        seen.set("ok", None, detail)


# ---- checks, migration, console ---------------------------------------------------------------------


def findings(capsys: pytest.CaptureFixture[str], cluster: Cluster) -> list[dict[str, Any]]:
    code, out, err = run(capsys, "check", "--engine", "local", "--json", *cluster.admin)
    assert code in (0, 1), err
    found: list[dict[str, Any]] = out["findings"]
    return found


def test_migration_readiness(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    with observing(cluster, "migration") as seen:
        code, out, err = run(capsys, "migration", "--json", *cluster.admin)
        assert code == 0, err
        assert out["phase"] == "not_started"
        if cluster.release.at_least(3, 4):
            assert out["ready"] is True, out["blockers"]
            seen.set("ready", None, out["next"])
        else:
            assert not out["ready"]
            assert {b["check"] for b in out["blockers"]} == {"migration_protocol_too_old"}, out["blockers"]
            assert out["next"].startswith("upgrade first") and "Kafka 3.9" in out["next"], out["next"]
            seen.set("not ready: upgrade first", None, out["next"])


async def test_the_console_opens_and_shows_the_counts(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    with observing(cluster, "console") as seen:
        code, described, err = run(capsys, "describe", *cluster.zk, "--json")
        assert code == 0, err
        expected = f"{described['topics']:,} topics · {described['partitions']:,} partitions · 3 brokers"
        info = cluster.box.info()
        settings = ConnectionSettings(
            zookeeper=parse_zookeeper(info.zookeeper),
            bootstrap_servers=parse_bootstrap(info.bootstrap_servers),
            context=f"kafka {cluster.version}",
        )
        app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
        async with app.run_test(size=(160, 50)) as pilot:
            await eventually(pilot, lambda: expected in str(app.screen.query_one("#health-totals").render()), 60,
                             f"the console to show '{expected}'")  # fmt: skip
        seen.set("ok", None, expected)


def test_check_finds_nothing_on_a_healthy_cluster_and_the_loss_of_a_broker(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    create(capsys, cluster, unique("checked"), "--partitions", "3", "--replication-factor", "3")
    with cluster.zookeeper() as zk:  # healthy: every partition led with its full ISR (brokers restarted above)
        wait_until(lambda: all(all_led(zk, t) for t in zk.get_children("/brokers/topics")), 120, "a healthy cluster")
    with observing(cluster, "check healthy") as seen:
        # The controller tells the brokers after it writes ZooKeeper: until they serve the same leaders and ISRs,
        # kzc rightly says metadata_mismatch (seen on 2.4.1 for a topic an earlier test created). Healthy is both.
        bad: list[dict[str, Any]] = []

        def nothing_found() -> bool:
            bad[:] = [f for f in findings(capsys, cluster) if f["severity"] in ("error", "warning")]
            return not bad

        try:
            wait_until(nothing_found, 60, "kzc check to find no warning or error")
        except DeadlineExceeded as exc:
            raise AssertionError(f"{exc}: {bad}") from exc
        seen.set("ok: no warning or error")
    with observing(cluster, "check broker killed") as seen:
        cluster.box.kill_broker(3)
        try:
            with cluster.zookeeper() as zk:
                wait_until(lambda: not zk.exists("/brokers/ids/3"), 60, "broker 3's registration to expire")
                # The controller shrinks the ISRs of broker 3's partitions once it sees it gone.
                wait_until(
                    lambda: all(3 not in (partition_state(zk, t, p) or {}).get("isr", [])
                                for t in zk.get_children("/brokers/topics") for p in topic_assignment(zk, t)),
                    60, "the ISRs without broker 3",
                )  # fmt: skip
            found = findings(capsys, cluster)
            checks = {f["check"] for f in found if f["severity"] in ("error", "warning")}
            assert "under_replicated" in checks, found
            # Every finding is about what broker 3's loss did, nothing else.
            unrelated = [f for f in found if f["severity"] in ("error", "warning") and f["broker"] not in (3, None)]
            assert unrelated == [], unrelated
            seen.set("ok: " + ", ".join(sorted(checks)), None, "; ".join(f["detail"] for f in found)[:600])
        finally:
            cluster.box.start_broker(3)


def test_no_broker_logged_a_request_it_could_not_parse(cluster: Cluster) -> None:
    with observing(cluster, "broker logs") as seen:
        hits = []
        for broker in cluster.box.info().brokers:
            for log in ("server.log", "stdout.log"):
                path = cluster.box.dir / f"broker-{broker.id}" / log
                text = path.read_text(errors="replace") if path.exists() else ""
                hits += [
                    f"broker {broker.id}: {line}" for line in text.splitlines() if any(p in line for p in UNPARSEABLE)
                ]
        assert hits == [], "\n".join(hits[:20])
        seen.set("ok: none")


# ---- a rolling upgrade half done ---------------------------------------------------------------------


def test_a_half_upgraded_cluster_runs_both_releases_and_kzc_takes_the_oldest_brokers_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``kzc sandbox up --kafka-version 0.10.2.2 --broker-version 3=1.1.1``: broker 3 upgraded, the others not.
    A request may land on any broker, so the oldest decides: expand goes through ZooKeeper."""
    directory = tmp_path / "mixed"
    code, up, err = run(capsys, "sandbox", "up", "--dir", str(directory), "--kafka-version", "0.10.2.2",
                        "--broker-version", "3=1.1.1", "--timeout", "300", "--json")  # fmt: skip
    try:
        assert code == 0, err
        assert {b["id"]: b["kafka_version"] for b in up["brokers"]} == {1: "0.10.2.2", 2: "0.10.2.2", 3: "1.1.1"}
        properties = (directory / "broker-3" / "server.properties").read_text().splitlines()
        assert "inter.broker.protocol.version=0.10.2" in properties
        code, status, err = run(capsys, "sandbox", "status", "--dir", str(directory), "--json")
        assert code == 0, err
        assert status["registered"] == [1, 2, 3]
        assert [b["kafka_version"] for b in status["brokers"]] == ["0.10.2.2", "0.10.2.2", "1.1.1"]
        admin = ["--zookeeper", up["zookeeper"], "--bootstrap-server", up["bootstrap_servers"]]
        name = unique("mixed")
        code, _, err = run(capsys, "topic", "create", name, "--partitions", "1", "--replication-factor", "3",
                           "--yes", "--wait", "--json", *admin)  # fmt: skip
        assert code == 0, err
        code, plan, err = run(capsys, "topic", "expand", name, "--partitions", "2", "--dry-run", "--json", *admin)
        assert code == 0, err
        via, why = reported_path(plan)
        assert via == "zookeeper" and why is not None and "CreatePartitions" in why, (via, why)
    finally:
        Sandbox(directory).down(clean=False)  # thrown away: no controlled shutdown
