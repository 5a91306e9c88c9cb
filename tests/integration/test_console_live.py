"""The console against the real sandbox (ZooKeeper + 3 Kafka brokers): live cluster screen, create, delete,
read-only, the live znode pane, and a ZooKeeper restart. Cluster-side conditions are awaited with a
deadline while the app keeps running (``eventually``), never with a bare sleep."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, Label, Static

from core.config import ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.errors import ReadOnlyError
from core.kafka.znodes import TopicAssignment, parse_topic
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.topics.plan import CreateRequest, DeleteRequest, ExpandRequest
from core.zookeeper.session import ConnectionState, ZkSession
from tests.integration.sandbox_tools import eventually, in_thread, restart_zookeeper
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.messages import ZnodeChosen
from tui.screens.cluster import ClusterScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.expand import ExpandScreen
from tui.screens.move_off import MoveOffScreen
from tui.screens.topics import TopicsScreen
from tui.screens.zk_browser import ZkBrowserScreen
from tui.widgets.event_log import EventLog
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration


def settings_for(sandbox: Sandbox, read_only: bool = False, brokers: bool = False) -> ConnectionSettings:
    info = sandbox.info()
    return ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper),
        bootstrap_servers=parse_bootstrap(info.bootstrap_servers) if brokers else None,
        read_only=read_only,
        context="sandbox",
    )


@pytest.fixture
def zk(sandbox: Sandbox) -> Iterator[ZkSession]:
    """A test-side session to look at what the console wrote."""
    session = ZkSession(settings_for(sandbox))
    session.start()
    yield session
    session.stop()


def console(sandbox: Sandbox, read_only: bool = False, brokers: bool = False) -> KzcApp:
    # No Spark warm-up: these tests never run the Spark checks, and a JVM per test would crowd the machine.
    return KzcApp(settings_for(sandbox, read_only, brokers), config=UserConfig(theme="dark"), warm_spark=False)


def event_lines(app: KzcApp) -> list[str]:
    return [line.text for line in app.journal.lines]


def connected_with_brokers(app: KzcApp, count: int) -> bool:
    view = app.view
    return view is not None and sum(1 for b in view.brokers if b.alive) == count


async def test_a_killed_broker_shows_up_as_left_and_its_exact_release_is_asked_again_when_it_returns(
    sandbox: Sandbox,
) -> None:
    app = console(sandbox)
    port = sandbox.info().broker(3).port
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to show 3 live brokers")
        await in_thread(lambda: sandbox.kill_broker(3))
        try:
            # The broker's ZooKeeper session (6 s) must expire before its registration goes.
            await eventually(pilot, lambda: f"broker 3 left (127.0.0.1:{port})" in event_lines(app), 60,
                             "the event log to say broker 3 left")  # fmt: skip
            screen = app.screen
            assert isinstance(screen, ClusterScreen)
            await eventually(pilot, lambda: "3" not in {r.key for r in screen.query_one("#brokers", VirtualTable)
                                                        .visible_rows() if r.cells[-1] == "yes"}, 10,
                             "broker 3 to leave the brokers table")  # fmt: skip
            # If broker 3 still holds replicas it stays listed, with its last endpoint marked gone.
            gone = [r for r in screen.query_one("#brokers", VirtualTable).visible_rows() if r.key == "3"]
            assert all(r.cells[1] == f"127.0.0.1:{port} (gone)" and r.cells[-1] == "NO" for r in gone)
            log = screen.query_one("#events", EventLog).visible_rows()
            assert any(row.cells[2] == f"broker 3 left (127.0.0.1:{port})" and "error" in row.meanings for row in log)
        finally:
            await in_thread(lambda: sandbox.start_broker(3))
        await eventually(pilot, lambda: any(t.startswith("broker 3 registered") for t in event_lines(app)), 60,
                         "the event log to say broker 3 came back")  # fmt: skip
        # It registered before it served requests: its ApiVersions is asked again until it answers.
        release = ".".join(sandbox.info().kafka_version.split(".")[:2])
        table = app.screen.query_one("#brokers", VirtualTable)
        title = f"Brokers · Kafka {release} (from ApiVersions)"
        await eventually(pilot, lambda: str(table.border_title).startswith(title), 60, "broker 3's exact release")


async def test_the_create_flow_lands_exactly_the_previewed_assignment(
    sandbox: Sandbox, zk: ZkSession, unique_name: str
) -> None:
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        await pilot.press("t", "n")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, CreateTopicScreen)
        screen.query_one("#name", Input).value = unique_name
        screen.query_one("#partitions", Input).value = "7"
        await settle(pilot)
        await pilot.press("ctrl+r")  # a new random start: what is applied must still be what is shown
        await settle(pilot)
        grid = screen.query_one("#preview-grid", VirtualTable)
        previewed = {int(row.key): tuple(row.data) for row in grid.visible_rows()}
        assert len(previewed) == 7 and all(len(r) == 3 for r in previewed.values())
        await pilot.press("ctrl+s")
        await eventually(pilot, lambda: "all 7 partitions online" in str(screen.query_one("#phase", Label).render()),
                         60, "the new partitions to come online")  # fmt: skip
        data, _ = await in_thread(lambda: zk.client.get(f"/brokers/topics/{unique_name}"))
        stored = parse_topic(f"/brokers/topics/{unique_name}", data)
        assert isinstance(stored, TopicAssignment)
        assert dict(stored.partitions) == previewed


async def test_the_expand_flow_adds_exactly_the_previewed_partitions_and_keeps_the_rest(
    sandbox: Sandbox, zk: ZkSession, unique_name: str
) -> None:
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        plan = await in_thread(lambda: app.backend.plan_create(CreateRequest(unique_name, 3, 2, seed=7)))
        await in_thread(lambda: app.backend.apply_create(plan))
        path = f"/brokers/topics/{unique_name}"
        # Created through ZooKeeper: the controller adds the topic id, which the expansion must keep.
        await in_thread(lambda: wait_until(lambda: b'"topic_id"' in zk.client.get(path)[0], 60, "a topic id"))
        before = parse_topic(path, (await in_thread(lambda: zk.client.get(path)))[0])
        assert isinstance(before, TopicAssignment)
        await pilot.press("t")
        await settle(pilot)
        table = app.screen.query_one("#topics", VirtualTable)
        await eventually(pilot, lambda: table.move_to_key(unique_name), 30, "the new topic in the topics table")
        await pilot.press("plus")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ExpandScreen)
        screen.query_one("#partitions", Input).value = "6"
        await settle(pilot)
        grid = screen.query_one("#preview-grid", VirtualTable)
        shown = {int(row.key): tuple(row.data) for row in grid.visible_rows()}
        assert set(shown) == set(range(6))  # the existing partitions first (dimmed), then the new ones
        assert {p: shown[p] for p in range(3)} == dict(before.partitions)
        await pilot.press("ctrl+d")
        await settle(pilot)
        assert screen.query_one("#dry-run").has_class("-shown")
        await pilot.press("ctrl+s")
        written = ("written:", "done:")  # the controller may bring them online before a frame shows "written"
        await eventually(pilot, lambda: str(screen.query_one("#phase", Label).render()).startswith(written), 60,
                         "the expansion to be written")  # fmt: skip
        assert not screen.query_one("#dry-run").has_class("-shown")  # a write clears the stale dry run
        await eventually(pilot, lambda: str(screen.query_one("#phase", Label).render())
                         == f"done: {unique_name} has 6 partitions, all online", 90,
                         "the new partitions to come online")  # fmt: skip
        after = parse_topic(path, (await in_thread(lambda: zk.client.get(path)))[0])
        assert isinstance(after, TopicAssignment)
        assert dict(after.partitions) == shown
        assert after.topic_id == before.topic_id and after.topic_id is not None
        added = f"topic {unique_name} assignment changed: partitions 3 -> 6"
        await eventually(pilot, lambda: any(t.startswith(added) for t in event_lines(app)), 30, "the event")


async def test_the_delete_flow_ends_with_the_topic_gone(sandbox: Sandbox, zk: ZkSession, unique_name: str) -> None:
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        plan = await in_thread(lambda: app.backend.plan_create(CreateRequest(unique_name, 3, 2, seed=1)))
        await in_thread(lambda: app.backend.apply_create(plan))
        await pilot.press("t")
        await settle(pilot)
        topics = app.screen
        assert isinstance(topics, TopicsScreen)
        table = topics.query_one("#topics", VirtualTable)
        await eventually(pilot, lambda: table.move_to_key(unique_name), 30, "the new topic in the topics table")
        await pilot.press("d")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DeleteScreen)
        await pilot.press(*unique_name, "enter")
        await eventually(pilot, lambda: str(screen.query_one("#phase", Label).render()).startswith("done:"), 90,
                         "the deletion to finish")  # fmt: skip
        assert await in_thread(lambda: zk.client.exists(f"/brokers/topics/{unique_name}")) is None
        assert await in_thread(lambda: zk.client.exists(f"/admin/delete_topics/{unique_name}")) is None
        rows = screen.query_one("#delete-list", VirtualTable).visible_rows()
        assert [r.cells[2] for r in rows] == ["4/4 znodes gone"]


async def test_read_only_hides_and_refuses_every_mutation(sandbox: Sandbox, zk: ZkSession, unique_name: str) -> None:
    app = console(sandbox, read_only=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        assert app.screen.query_one("#status-ro", Label).display
        await pilot.press("t")
        await settle(pilot)
        topics = app.screen
        await pilot.press("n", "d", "plus", "D")
        await settle(pilot)
        assert app.screen is topics
        backend = app.backend
        plan = await in_thread(lambda: backend.plan_create(CreateRequest(unique_name, 1, 1, seed=1)))
        assert plan.blocked is not None and "read-only" in plan.blocked
        with pytest.raises(ReadOnlyError):
            await in_thread(lambda: backend.apply_create(plan))
        assert await in_thread(lambda: zk.client.exists(f"/brokers/topics/{unique_name}")) is None
        # A topic of the test's own (written as AdminUtils did, behind the read-only console), not whichever sorts
        # first: that may be an internal topic, whose expansion Kafka's own guard refuses first.
        existing = f"{unique_name}-existing"
        assignment = json.dumps({"version": 1, "partitions": {"0": [1]}}).encode()
        await in_thread(lambda: zk.client.create(f"/brokers/topics/{existing}", assignment))
        await eventually(pilot, lambda: app.view is not None and existing in app.view.snapshot.topics, 60, existing)
        expand = await in_thread(lambda: backend.plan_expand(ExpandRequest(existing, 50)))
        with pytest.raises(ReadOnlyError):
            await in_thread(lambda: backend.apply_expand(expand))
        delete = await in_thread(lambda: backend.plan_delete(DeleteRequest(topics=(existing,))))
        with pytest.raises(ReadOnlyError):
            await in_thread(lambda: backend.apply_delete(delete, delete.confirmation))
        assert await in_thread(lambda: zk.client.exists(f"/admin/delete_topics/{existing}")) is None


async def test_the_znode_pane_follows_the_znode_live(sandbox: Sandbox, zk: ZkSession, unique_name: str) -> None:
    path = f"/kzc-test-{unique_name}"
    await in_thread(lambda: zk.client.create(path, b'{"v": 1}'))
    app = console(sandbox)
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await eventually(pilot, lambda: app.view is not None, 60, "the console to connect")
            app.post_message(ZnodeChosen(path))
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, ZkBrowserScreen)
            data = screen.query_one("#zk-data", Static)
            await eventually(pilot, lambda: '"v": 1' in str(data.render()), 10, "the znode's data")
            await in_thread(lambda: zk.client.set(path, b'{"v": 2}'))
            await eventually(pilot, lambda: '"v": 2' in str(data.render()), 10, "the pane to show the new data")
            await in_thread(lambda: zk.client.create(f"{path}/child"))
            await eventually(pilot, lambda: "1 children" in str(screen.query_one("#zk-meta", Static).render()), 10,
                             "the pane to count the new child")  # fmt: skip
    finally:
        await in_thread(lambda: zk.client.delete(path, recursive=True))


async def test_a_zookeeper_restart_shows_suspended_then_connected_without_a_crash(sandbox: Sandbox) -> None:
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        await in_thread(lambda: restart_zookeeper(sandbox))
        await eventually(pilot, lambda: "ZooKeeper connection suspended" in event_lines(app), 30,
                         "the console to see the connection suspended")  # fmt: skip
        await eventually(pilot, lambda: app.status_info.state is ConnectionState.CONNECTED
                         and event_lines(app)[-1:] != ["ZooKeeper connection suspended"], 60,
                         "the console to reconnect")  # fmt: skip
        lines = event_lines(app)
        assert lines.index("ZooKeeper connection suspended") < len(lines) - 1
        assert "ZooKeeper connected" in lines[lines.index("ZooKeeper connection suspended") :]
        assert app.is_running and isinstance(app.screen, ClusterScreen)
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the brokers to be live again")


async def test_the_cluster_screen_shows_the_exact_release_the_brokers_api_versions_date(sandbox: Sandbox) -> None:
    release = ".".join(sandbox.info().kafka_version.split(".")[:2])
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        table = app.screen.query_one("#brokers", VirtualTable)
        title = f"Brokers · Kafka {release} (from ApiVersions)"
        await eventually(pilot, lambda: str(table.border_title).startswith(title), 30, title)
        assert [r.cells[3] for r in table.visible_rows()] == [release] * 3


async def test_the_export_of_the_cluster_screen_holds_brokers_and_events(sandbox: Sandbox) -> None:
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to connect")
        await pilot.press("e")
        await eventually(pilot, lambda: app.last_export is not None, 10, "the export file")
        assert app.last_export is not None
        with open(app.last_export, encoding="utf-8") as handle:
            data = json.load(handle)
        assert data["kzc_export"] == "cluster" and data["context"] == "sandbox"
        # The export's health counters are describe's (one derivation), on the same quiet cluster.
        kzc = str(Path(sys.executable).with_name("kzc"))
        command = [kzc, "describe", "--zookeeper", sandbox.info().zookeeper, "--json"]
        done = await in_thread(lambda: subprocess.run(command, capture_output=True, text=True, timeout=120))
        assert done.returncode == 0, done.stderr
        described = json.loads(done.stdout)["health"]
        exported = data["health"]
        assert (exported["offline"], exported["under_replicated"], exported["under_min_isr"]) == (
            described["offline_partitions"],
            described["under_replicated_partitions"],
            described["under_min_isr_partitions"],
        )
        assert [b["id"] for b in data["brokers"]] == [1, 2, 3]
        assert data["controller"]["broker_id"] in (1, 2, 3)


async def test_m_on_a_broker_row_previews_moving_everything_off_it_without_writing(
    sandbox: Sandbox, zk: ZkSession
) -> None:
    app = console(sandbox)
    async with app.run_test(size=(120, 40)) as pilot:
        await eventually(pilot, lambda: connected_with_brokers(app, 3), 60, "the console to show 3 live brokers")
        await pilot.press("b", "m")
        await eventually(pilot, lambda: isinstance(app.screen, MoveOffScreen), 10, "the move-off preview to open")
        screen = app.screen
        assert isinstance(screen, MoveOffScreen)
        broker = screen.broker_id

        def answered() -> bool:
            preview = str(screen.query_one("#preview", Static).render())
            status = str(screen.query_one("#status", Static).render())
            # The plan, or why there is none (e.g. earlier tests left topics with a replica on every broker).
            return f"off broker(s) {broker}" in preview or status.startswith("Error: ")

        await eventually(pilot, answered, 60, "the plan, or why there is none, to be shown")
        assert zk.client.exists("/admin/reassign_partitions") is None  # a preview writes nothing
