"""A real ZooKeeper-to-KRaft migration (Kafka 3.9) walked phase by phase on one cluster of this module, with what
kzc shows at each: ``kzc migration --json``, the console's view and panel, the watch events, the readiness
blockers planted for real, the refused ZooKeeper write, ``kzc check`` (both engines) and ``kzc describe``
counting brokers moved to KRaft alive, a console opened after they moved, and nothing written to ZooKeeper
by kzc.

The tests run in file order on one module-scoped sandbox (3 brokers, one KRaft controller); each moves the
migration one phase on. Slow by nature (about two and a half minutes): every phase is real processes.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka.admin import AdminClient, NewTopic
from kazoo.client import KazooClient

from cli.main import main
from core.config import PLAINTEXT, ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.console.view import ViewBuilder
from core.live.events import MigrationPhaseChanged
from core.live.live_event import LiveEvent
from core.live.model import LiveCluster
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.sandbox.migration import CONTROLLER_ID, SandboxMigration
from core.snapshot.kraft import served_broker_ids
from core.snapshot.reader import SnapshotReader
from core.zookeeper.session import ZkSession
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration


class Cluster:
    """The module's sandbox, its migration driver, a ZooKeeper client and a live model (as ``kzc watch`` and the
    console run it) collecting its events."""

    def __init__(self, box: Sandbox, zk: KazooClient) -> None:
        self.box = box
        self.zk = zk
        self.info = box.info()
        self.migration = SandboxMigration(box)
        self.events: list[LiveEvent] = []
        self.settings = ConnectionSettings(
            zookeeper=parse_zookeeper(self.info.zookeeper),
            bootstrap_servers=parse_bootstrap(self.info.bootstrap_servers),
        )
        self.admin = AdminClient({"bootstrap.servers": self.info.bootstrap_servers})
        self.live: LiveCluster | None = None

    def phases_seen(self) -> list[str]:
        return [e.new for e in list(self.events) if isinstance(e, MigrationPhaseChanged)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    box = Sandbox.up(tmp_path_factory.mktemp("migration"), brokers=3, timeout=240)
    session = None
    try:
        with zk_client(box.info().zookeeper) as zk:
            c = Cluster(box, zk)
            create(c, NewTopic("premig", num_partitions=3, replication_factor=3))
            session = ZkSession(c.settings)
            session.start()
            # A short re-arm period so that "finalized" (a /migration that stopped moving) shows within seconds.
            c.live = live_model(c, session, c.events.append)
            try:
                yield c
            finally:
                c.live.stop()
    finally:
        if session is not None:
            session.stop()
        box.down(clean=False)  # thrown away: no controlled shutdown


TOKENS = "/delegation_token/tokens"
TOKEN = json.dumps(
    {"version": 3, "owner": "User:alice", "tokenRequester": "User:alice", "renewers": [], "issueTimestamp": 1,
     "maxTimestamp": 4102444800000, "expiryTimestamp": 4102444800000, "tokenId": "kzc-test-token"}
).encode()  # fmt: skip


def live_model(c: Cluster, session: ZkSession, on_raw: Any) -> LiveCluster:
    """A started live model, as ``kzc watch --bootstrap-server`` builds it."""
    servers = c.settings.bootstrap_servers
    live = LiveCluster(
        session,
        on_event=lambda _e: None,
        on_snapshot=lambda: None,
        on_raw=on_raw,
        served_brokers=lambda: served_broker_ids(servers, PLAINTEXT),
        migration_rearm_s=3.0,
    )
    live.start()
    return live


def live_view(c: Cluster) -> Any:
    """The console's view of the module's live model (its snapshot, once its first full read is done)."""
    assert c.live is not None
    live = c.live
    wait_until(lambda: live.loading() is None, 60, "the live model's first full read")
    snapshot = live.snapshot()
    return ViewBuilder().build(snapshot, snapshot.taken_at_ms)


def create(c: Cluster, *topics: NewTopic) -> None:
    for future in c.admin.create_topics(list(topics), operation_timeout=30).values():
        future.result()


def kzc(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def migration_json(c: Cluster, capsys: pytest.CaptureFixture[str], brokers: bool = True) -> dict[str, Any]:
    args = ["--zookeeper", c.info.zookeeper, "migration", "--json"]
    if brokers:
        args += ["--bootstrap-server", c.info.bootstrap_servers]
    code, out, err = kzc(capsys, *args)
    assert code == 0, err
    data: dict[str, Any] = json.loads(out)
    return data


def modes(data: dict[str, Any]) -> dict[int, str]:
    return {b["id"]: b["mode"] for b in data["brokers"]}


def tree(zk: KazooClient) -> dict[str, tuple[int, int, str]]:
    """Every znode's (version, child version, data digest), except /migration (the KRaft controller rewrites it
    twice a second)."""
    found: dict[str, tuple[int, int, str]] = {}

    def walk(node: str) -> None:
        if node == "/migration":
            return
        data, stat = zk.get(node)
        found[node] = (stat.version, stat.cversion, hashlib.sha256(data or b"").hexdigest()[:16])
        for child in sorted(zk.get_children(node)):
            walk(f"{node.rstrip('/')}/{child}")

    walk("/")
    return found


def quiet_tree(zk: KazooClient) -> dict[str, tuple[int, int, str]]:
    """The tree once it stayed the same for 3 s (the controller done with what the last step started)."""
    seen: dict[str, Any] = {}

    def quiet() -> dict[str, tuple[int, int, str]] | None:
        now, current = time.monotonic(), tree(zk)
        if current != seen.get("tree"):
            seen.update(tree=current, since=now)
            return None
        return current if now - seen["since"] >= 3.0 else None

    result: dict[str, tuple[int, int, str]] = wait_until(quiet, 90, "ZooKeeper to be quiet", interval=0.5)
    return result


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return sorted(p for p in before.keys() | after.keys() if before.get(p) != after.get(p))


def assert_kzc_writes_nothing(c: Cluster, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """Run kzc's reading commands (migration, describe, check, snapshot) once ZooKeeper is quiet; ZooKeeper must
    be exactly as before. Returns the migration JSON."""
    before = quiet_tree(c.zk)
    data = migration_json(c, capsys)
    code, _, err = kzc(
        capsys, "--zookeeper", c.info.zookeeper, "--bootstrap-server", c.info.bootstrap_servers, "describe"
    )
    assert code == 0, err
    code, _, err = kzc(
        capsys, "--zookeeper", c.info.zookeeper, "--bootstrap-server", c.info.bootstrap_servers, "check",
        "--engine", "local", "--json",
    )  # fmt: skip
    assert code in (0, 1), err
    snapshot = Path(c.info.dir) / "kzc-writes-nothing.jsonl"
    code, _, err = kzc(capsys, "--zookeeper", c.info.zookeeper, "snapshot", "-o", str(snapshot))
    assert code == 0, err
    assert changed(before, tree(c.zk)) == []
    return data


def console_view(c: Cluster) -> Any:
    session = ZkSession(c.settings)
    session.start()
    try:
        snapshot = SnapshotReader(session).read()
    finally:
        session.stop()
    return ViewBuilder().build(snapshot, snapshot.taken_at_ms)


# ---- not started: readiness ------------------------------------------------------------------------


def test_readiness_blockers_planted_in_the_cluster_are_each_reported_with_their_check_id(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    c = cluster
    create(
        c,
        NewTopic("stuck", num_partitions=1, replication_factor=-1, replica_assignment=[[1]]),
        NewTopic("doomed", num_partitions=1, replication_factor=-1, replica_assignment=[[3]]),
    )
    wait_until(lambda: c.zk.exists("/brokers/topics/doomed/partitions/0/state"), 30, "doomed to be online")
    c.box.kill_broker(3)
    wait_until(lambda: not c.zk.exists("/brokers/ids/3"), 30, "broker 3 to leave /brokers/ids")
    # A reassignment that waits for the stopped broker 3, and a deletion held by its replica on broker 3.
    request = {"version": 1, "partitions": [{"topic": "stuck", "partition": 0, "replicas": [1, 3]}]}
    c.zk.create("/admin/reassign_partitions", json.dumps(request).encode())
    wait_until(lambda: b'"0":[3]' in c.zk.get("/brokers/topics/stuck")[0], 30, "the reassignment to start")
    c.zk.create("/admin/delete_topics/doomed", b"")
    # An old protocol version on broker 2 (a v4 registration, and the config says so).
    c.box.stop_broker(2)
    props = Path(c.info.dir) / "broker-2" / "server.properties"
    original = props.read_text()
    props.write_text(original + "inter.broker.protocol.version=2.6\n")
    c.box.start_broker(2)
    # A delegation token, as a broker with token auth writes it (by hand: test setup).
    c.zk.ensure_path(TOKENS)
    c.zk.create(f"{TOKENS}/kzc-test-token", TOKEN)

    data = migration_json(c, capsys)
    assert data["phase"] == "not_started" and data["kraft_controller"] is None
    assert data["ready"] is False
    found = {(b["check"], b["path"]) for b in data["blockers"]}
    assert ("migration_reassignment_pending", "/admin/reassign_partitions") in found
    assert ("migration_deletion_pending", "/admin/delete_topics/doomed") in found
    assert ("migration_leaderless_partition", "/brokers/topics/doomed/partitions/0/state") in found
    # Broker 2's IBP 2.6 cannot migrate tokens: a blocker (kzc counted the znode's children, read no token).
    assert ("migration_delegation_tokens", TOKENS) in found
    token = next(b for b in data["blockers"] if b["check"] == "migration_delegation_tokens")
    assert "holds 1 delegation token(s)" in token["detail"] and "3.6-IV2" in token["detail"]
    old = [b["detail"] for b in data["blockers"] if b["check"] == "migration_protocol_too_old"]
    assert any("v4 registration" in d for d in old) and any("inter.broker.protocol.version=2.6" in d for d in old)
    assert modes(data) == {1: "zookeeper", 2: "zookeeper", 3: "gone"}
    # The same findings through kzc check, when asked for them.
    code, out, _ = kzc(
        capsys,
        "--zookeeper",
        c.info.zookeeper,
        "check",
        "--engine",
        "local",
        "--only",
        "migration_deletion_pending",
        "--json",
    )
    assert code == 1 and "migration_deletion_pending" in out
    code, out, _ = kzc(
        capsys, "--zookeeper", c.info.zookeeper, "check", "--engine", "local", "--only",
        "migration_delegation_tokens", "--json",
    )  # fmt: skip
    (finding,) = json.loads(out)["findings"]
    assert code == 0 and finding["severity"] == "warning"  # a warning: on 3.6-IV2+ the tokens migrate
    assert finding["check"] == "migration_delegation_tokens" and finding["evidence"] == {"tokens": 1}

    # Clear them: broker 3 back (the reassignment completes, the deletion proceeds), broker 2 at the default IBP.
    c.box.start_broker(3)
    c.box.stop_broker(2)
    props.write_text(original)
    c.box.start_broker(2)
    ready = wait_until(lambda: (d := migration_json(c, capsys))["ready"] and d, 90, "no blocker left")
    assert ready["blockers"] == [] and ready["phase"] == "not_started"
    # Every broker now reports IBP 3.9 (3.6-IV2 or higher): the token migrates, a note instead of a blocker.
    assert any("delegation tokens" in n and "3.9" in n for n in ready["notes"]), ready["notes"]
    c.zk.delete(f"{TOKENS}/kzc-test-token")  # test setup undone: the migration would copy the token
    assert ready["rollback_possible"] is None and "format KRaft controllers" in ready["next"]


# ---- the phases ----------------------------------------------------------------------------------


def test_a_kraft_controller_waiting_for_brokers(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    c = cluster
    c.migration.to("controller")
    data = assert_kzc_writes_nothing(c, capsys)
    assert data["phase"] == "waiting_for_brokers"
    assert data["kraft_controller"] is None  # /migration holds -1 everywhere, /controller a ZooKeeper broker
    assert modes(data) == {1: "zookeeper", 2: "zookeeper", 3: "zookeeper"}  # their configs say so
    assert data["rollback_possible"] is True
    wait_until(lambda: "waiting_for_brokers" in c.phases_seen(), 30, "the watch event")
    view = console_view(c)
    assert view.migration is not None and view.migration.phase.value == "waiting_for_brokers"


def test_dual_write_and_a_zookeeper_write_refused_with_the_reason(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    c = cluster
    c.migration.to("dual-write")
    data = assert_kzc_writes_nothing(c, capsys)
    assert data["phase"] == "dual_write"
    k = data["kraft_controller"]
    assert k["id"] == CONTROLLER_ID and k["epoch"] >= 1 and k["metadata_offset"] >= 0 and k["holds_controller_znode"]
    assert modes(data) == {1: "migration", 2: "migration", 3: "migration"}
    assert "roll the brokers to KRaft" in data["next"] and data["rollback_possible"] is True

    before = tree(c.zk)
    code, _, err = kzc(
        capsys, "--zookeeper", c.info.zookeeper, "topic", "create", "viazk", "--partitions", "1",
        "--replication-factor", "1", "--yes",
    )  # fmt: skip
    assert code == 2
    assert "KRaft controller 3000" in err and "read-only on this cluster through ZooKeeper" in err
    assert "Give --bootstrap-server" in err
    assert changed(before, tree(c.zk)) == []
    # Through the brokers Kafka forwards it to the KRaft controller, which dual-writes it into ZooKeeper.
    code, _, err = kzc(
        capsys, "--zookeeper", c.info.zookeeper, "--bootstrap-server", c.info.bootstrap_servers, "topic", "create",
        "viabrokers", "--partitions", "2", "--replication-factor", "2", "--yes",
    )  # fmt: skip
    assert code == 0, err
    assert c.zk.exists("/brokers/topics/viabrokers")

    wait_until(lambda: "dual_write" in c.phases_seen(), 30, "the watch event")
    view = console_view(c)
    assert view.migration is not None and view.migration.phase.value == "dual_write"
    assert any("through the brokers" in line for line in view.migration.panel_lines())


@pytest.mark.usefixtures("lent_spark")  # kzc check --engine spark on the run's warm worker
def test_a_broker_moved_to_kraft_is_alive_not_dead(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    c = cluster
    c.migration.to("kraft", brokers=[3])
    data = assert_kzc_writes_nothing(c, capsys)
    assert data["phase"] == "brokers_to_kraft"
    assert modes(data) == {1: "migration", 2: "migration", 3: "kraft"}
    assert {b["id"]: b["source"] for b in data["brokers"]}[3] == "brokers"
    # Without the brokers, the ISR the KRaft controller keeps (dual-written) tells it apart from a dead broker.
    wait_until(lambda: modes(migration_json(c, capsys, brokers=False)).get(3) == "kraft", 60, "broker 3 back in an ISR")
    # kzc describe counts broker 3 alive: once it caught up, nothing is under-replicated (it would stay so if
    # its replicas counted as offline).
    zk, servers = c.info.zookeeper, c.info.bootstrap_servers

    def described() -> dict[str, Any] | None:
        code, out, err = kzc(capsys, "--zookeeper", zk, "--bootstrap-server", servers, "describe", "--json")
        assert code == 0, err
        health: dict[str, Any] = json.loads(out)["health"]
        return health if health["under_replicated_partitions"] == 0 else None

    health = wait_until(described, 90, "broker 3's replicas back in sync")
    assert health["offline_partitions"] == 0
    code, out, _ = kzc(capsys, "--zookeeper", zk, "describe")
    assert "Brokers      2 registered, 1 on KRaft (3: serving, not in /brokers/ids)" in out, out
    assert "Health       0 offline, 0 under-replicated, 0 under min ISR" in out, out
    wait_until(lambda: "brokers_to_kraft" in c.phases_seen(), 30, "the watch event")

    # kzc check, both engines: no finding calls broker 3 dead, live or from a snapshot file.
    dead = {"under_replicated", "replica_on_unknown_broker", "offline_partition", "under_min_isr"}

    def check(*argv: str) -> list[dict[str, Any]]:
        _, out, err = kzc(capsys, "--zookeeper", zk, *argv, "--json")
        findings: list[dict[str, Any]] = json.loads(out)["findings"]
        # (Findings about broker 3 as a live broker, e.g. leader_imbalance while it leads none of its preferred
        # partitions yet, are right: Kafka's controller rebalances later.)
        wrong = [f for f in findings if f["check"] in dead or "not registered" in f["detail"]]
        assert not wrong, (argv, wrong, err)
        return findings

    check("check", "--engine", "local")  # without the brokers: the ISR tells
    check("--bootstrap-server", servers, "check", "--engine", "spark")  # DescribeCluster tells
    snapshot = Path(c.info.dir) / "brokers-to-kraft.jsonl"
    code, _, err = kzc(capsys, "--zookeeper", zk, "--bootstrap-server", servers, "snapshot", "-o", str(snapshot))
    assert code == 0, err
    assert {"kind": "kraft_broker", "broker_id": 3} in [json.loads(line) for line in snapshot.read_text().splitlines()]
    local = check("check", "--snapshot", str(snapshot), "--engine", "local")
    spark = check("check", "--snapshot", str(snapshot), "--engine", "spark")
    assert spark == local

    # The console: a plain snapshot (the ISR tells), and the live model (DescribeCluster tells).
    for view in (console_view(c), live_view(c)):
        assert view.health.offline == 0 and view.health.under_replicated == 0
        assert {b.id: b.alive for b in view.brokers}[3] is True
        assert (
            view.migration is not None and "brokers: 1 migration, 2 migration, 3 kraft" in view.migration.panel_lines()
        )


def test_a_console_opened_after_a_broker_moved_shows_it_on_kraft(cluster: Cluster) -> None:
    # It never saw broker 3 leave /brokers/ids: the ISR of its first full read tells (no --bootstrap-server).
    c = cluster
    events: list[LiveEvent] = []
    session = ZkSession(ConnectionSettings(zookeeper=c.settings.zookeeper))
    session.start()
    live = LiveCluster(session, on_event=lambda _e: None, on_snapshot=lambda: None, on_raw=events.append)
    try:
        live.start()
        first = wait_until(
            lambda: next((e for e in list(events) if isinstance(e, MigrationPhaseChanged)), None), 60, "a phase"
        )
        assert (first.old, first.new) == (None, "brokers_to_kraft"), first
        snapshot = live.snapshot()
        assert snapshot.kraft_brokers == frozenset({3}) and 3 in snapshot.live_broker_ids()
        assert snapshot.served_brokers is None  # not asked: the ISR told
        view = ViewBuilder().build(snapshot, snapshot.taken_at_ms)
        assert (
            view.migration is not None and "brokers: 1 migration, 2 migration, 3 kraft" in view.migration.panel_lines()
        )
        assert view.health.under_replicated == 0
    finally:
        live.stop()
        session.stop()
    assert [e.new for e in events if isinstance(e, MigrationPhaseChanged)] == ["brokers_to_kraft"]


def test_every_broker_on_kraft_while_the_controller_still_dual_writes(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    c = cluster
    c.migration.to("kraft", brokers=[1, 2])
    data = assert_kzc_writes_nothing(c, capsys)
    assert data["phase"] == "brokers_to_kraft" and data["kraft_controller"]["migration_advancing"] is True
    assert set(modes(data).values()) == {"kraft"} and data["rollback_possible"] is True
    # ZooKeeper shows no broker, as when finalized: only /migration still advancing tells them apart.
    dual = "phase: every broker runs KRaft; the controller still dual-writes (/migration advancing)"

    def panel() -> list[str] | None:
        view = live_view(c)
        lines = view.migration.panel_lines() if view.migration is not None else []
        return lines if lines and lines[0] == dual else None

    lines: list[str] = wait_until(panel, 30, "the panel to say the controller still dual-writes")
    assert "/migration advancing: the KRaft controller dual-writes to ZooKeeper" in lines
    assert "brokers: 1 kraft, 2 kraft, 3 kraft" in lines


def test_finalized_as_far_as_zookeeper_can_tell(cluster: Cluster, capsys: pytest.CaptureFixture[str]) -> None:
    c = cluster
    c.migration.to("finalized")
    data = assert_kzc_writes_nothing(c, capsys)
    assert data["phase"] == "finalized"
    assert data["kraft_controller"]["migration_advancing"] is False
    assert data["rollback_possible"] is False
    assert set(modes(data).values()) == {"kraft"}
    code, out, err = kzc(capsys, "sandbox", "status", "--dir", c.info.dir, "--json")
    assert code == 0, err
    recorded = json.loads(out)["migration"]
    assert recorded["phase"] == "finalized" and recorded["controller"]["pid"] is not None
    assert {b["mode"] for b in recorded["brokers"]} == {"kraft"}
    wait_until(lambda: "finalized" in c.phases_seen(), 60, "the watch event")
    view = live_view(c)
    assert view.migration is not None
    assert view.migration.panel_lines()[0].startswith("phase: finalized as far as ZooKeeper can tell")
    assert "/migration frozen: nothing dual-writes (finalized, or the KRaft controller is down)" in (
        view.migration.panel_lines()
    )
    seen = c.phases_seen()
    order = ["waiting_for_brokers", "dual_write", "brokers_to_kraft", "finalized"]
    assert [p for p in seen if p in order] == order, seen
    code, _, err = kzc(
        capsys, "--zookeeper", c.info.zookeeper, "--bootstrap-server", c.info.bootstrap_servers, "topic", "delete",
        "premig", "--yes",
    )  # fmt: skip
    assert code == 2 and "cannot tell that it still dual-writes" in err, err


def test_the_live_watch_does_not_turn_migration_writes_into_events(cluster: Cluster) -> None:
    kinds = {type(e).__name__ for e in cluster.events}
    assert "MigrationPhaseChanged" in kinds
    phase_events = [e for e in cluster.events if isinstance(e, MigrationPhaseChanged)]
    assert len(phase_events) <= 6  # one per phase, never one per /migration write (hundreds meanwhile)
