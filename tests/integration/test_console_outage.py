"""The console through an incident, on a cluster of its own started the way the README does: ``make demo``'s
``kzc sandbox up --racks r1,r2,r3 --traffic --open`` in a real terminal (tmux) opens the console on the cluster
screen. Then a broker (the coordinator of a group) is killed and restarted while messages keep arriving, and the
groups screen, the group's detail and its topic's groups pane must show what ``kzc groups --json`` shows within
one refresh, or say "stale since ... (reason)": never a number older than ``STALE_AFTER_S`` without that mark.
Meanwhile the README's console shows the groups and is resized to 220 columns (where it once died of SIGSEGV).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from textual.widgets import Label, Static

from core.brokers.admin import KafkaAdmin
from core.config import PLAINTEXT, ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.groups.lag import GroupLag
from core.kafka.znodes.paths import broker_path
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.sandbox_tools import eventually, in_thread
from tests.integration.terminal_tools import KZC, Tmux, new_tmux
from tests.integration.zk_server import zk_client
from tui.app import KzcApp
from tui.messages import BrokerChosen, GroupChosen, TopicChosen
from tui.screens.broker import BrokerScreen
from tui.screens.groups import STALE_AFTER_S, GroupDetailScreen, GroupsScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.widgets.virtual_table import Row, VirtualTable

pytestmark = pytest.mark.integration

TOPIC, GROUP = "outage.static", "outage-static"
PARTITIONS, COMMITTED = 3, 40  # the group's committed offset on every partition; nobody consumes


@dataclass
class Demo:
    tmux: Tmux
    sandbox: Sandbox
    crash_log: Path


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Demo]:
    """``make demo``'s command in tmux: a 3-broker sandbox of this module's own, demo traffic, the console."""
    assert shutil.which("tmux"), "tmux is needed for the end-to-end test"
    directory = tmp_path_factory.mktemp("demo")
    tmux = new_tmux(directory)
    command = [str(KZC), "sandbox", "up", "--dir", str(directory / "sandbox"), "--racks", "r1,r2,r3", "--traffic"]
    tmux.start([*command, "--open"])
    try:
        tmux.wait_for("ZK connected", timeout=300)
        yield Demo(tmux, Sandbox(directory / "sandbox"), directory / "console-crash.log")
    finally:
        if not tmux.dead():
            tmux.keys("q")
            wait_until(tmux.dead, 20, "the console to exit on q")
        tmux.kill()
        Sandbox(directory / "sandbox").down(clean=False)  # thrown away: no controlled shutdown


def test_the_readme_command_opens_the_console_on_the_cluster_screen(demo: Demo) -> None:
    info = demo.sandbox.info()
    screen = demo.tmux.wait_for(f"127.0.0.1:{info.broker(3).port}")
    assert "ZK connected" in screen and "controller" in screen
    for broker in info.brokers:  # the cluster screen's broker table
        assert f"127.0.0.1:{broker.port}" in screen
    assert "signal only works in main thread" not in screen
    assert not demo.tmux.dead()


# ---- the outage ----------------------------------------------------------------------------------------------


def produce(bootstrap: str, per_partition: int) -> None:
    """``per_partition`` more messages on every partition of TOPIC, acknowledged by every in-sync replica."""
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all", "message.timeout.ms": 120_000})
    for partition in range(PARTITIONS):
        for i in range(per_partition):
            producer.produce(TOPIC, f"m{i}".encode(), partition=partition)
    assert producer.flush(150) == 0


def set_up_group(bootstrap: str) -> None:
    """TOPIC with 100 messages per partition (replicated on all 3 brokers) and GROUP committed at COMMITTED."""
    admin = KafkaAdmin(parse_bootstrap(bootstrap), security=PLAINTEXT, timeout=60)
    admin.create_topic(TOPIC, [[1, 2, 3], [2, 3, 1], [3, 1, 2]], {})
    produce(bootstrap, 100)
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": GROUP, "enable.auto.commit": False})
    try:
        offsets = [TopicPartition(TOPIC, p, COMMITTED) for p in range(PARTITIONS)]
        consumer.commit(offsets=offsets, asynchronous=False)
    finally:
        consumer.close()
    admin.close()


def cli_lag(sandbox: Sandbox) -> int | None:
    """GROUP's lag as ``kzc groups --json`` says (None: the CLI did not answer, or the lag is unknown)."""
    info = sandbox.info()
    done = subprocess.run(
        [str(KZC), "groups", "--json", "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers],
        capture_output=True,
        text=True,
        timeout=90,
    )
    if done.returncode != 0:
        return None
    found = [g for g in json.loads(done.stdout)["groups"] if g["group"] == GROUP]
    return found[0]["lag"] if found else None


def freshness(row: Row) -> dict[str, Any]:
    """The row's ``as of`` values: ``as_of_ms``, ``stale_since_ms``, ``stale_reason``."""
    values = row.values
    assert values is not None
    stale: dict[str, Any] = values[-1]
    return stale


class Truth:
    """The lags GROUP had over time: ``now(values)`` from this moment on (a set while messages arrive)."""

    def __init__(self, lag: int) -> None:
        self.states: list[tuple[float, set[int]]] = [(0.0, {lag})]

    def now(self, values: set[int]) -> None:
        self.states.append((time.time() * 1000, values))

    def since(self, at_ms: float) -> set[int]:
        """Every lag GROUP had from ``at_ms`` until now (a read starting then may have seen any of them)."""
        starts = [start for start, _ in self.states]
        first = max((i for i, start in enumerate(starts) if start <= at_ms), default=0)
        return set().union(*(values for _, values in self.states[first:]))

    def honest(self, lag_text: str, as_of: dict[str, Any]) -> bool:
        """A number the truth had since it was read, read less than STALE_AFTER_S ago; or a stale mark with a
        reason."""
        if as_of["stale_since_ms"] is not None:
            return bool(as_of["stale_reason"])
        read_at = as_of["as_of_ms"]
        assert read_at is not None, "a number without the time it was read"
        assert time.time() * 1000 - read_at <= (STALE_AFTER_S + 2) * 1000, f"frozen: {as_of}"
        value = int(lag_text.replace(",", "")) if lag_text.replace(",", "").isdigit() else None
        possible = self.since(read_at)
        assert value in possible, f"lag {lag_text} shown, read at {read_at}, truth since then {sorted(possible)}"
        return True


def groups_row(app: KzcApp) -> Row | None:
    if not isinstance(app.screen, GroupsScreen):
        return None
    return next((r for r in app.screen.query_one("#groups", VirtualTable).visible_rows() if r.key == GROUP), None)


async def groups_screen_shows(app: KzcApp, pilot: Any, truth: Truth, lag: int, timeout: float) -> GroupLag:
    """Wait until the groups screen shows ``lag`` fresh; every row seen meanwhile must be honest."""

    def shows() -> GroupLag | None:
        row = groups_row(app)
        if row is None:
            return None
        as_of = freshness(row)
        truth.honest(row.cells[4], as_of)
        fresh = as_of["stale_since_ms"] is None and row.cells[4] == f"{lag:,}"
        return row.data if fresh and isinstance(row.data, GroupLag) else None

    found: GroupLag | None = await eventually(pilot, shows, timeout, f"{GROUP} with lag {lag} read afresh")
    assert found is not None
    return found


async def test_a_broker_killed_and_restarted_never_freezes_a_group_number(demo: Demo) -> None:
    sandbox = demo.sandbox
    info = sandbox.info()
    await in_thread(lambda: set_up_group(info.bootstrap_servers))
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper), bootstrap_servers=parse_bootstrap(info.bootstrap_servers)
    )
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    truth = Truth(PARTITIONS * (100 - COMMITTED))
    async with app.run_test(size=(200, 40)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the console to connect")
        await pilot.press("g")
        group = await groups_screen_shows(app, pilot, truth, 180, 60)
        assert await in_thread(lambda: cli_lag(sandbox)) == 180
        victim = group.coordinator or 1
        demo.tmux.keys("g")  # the README's console shows the groups through the outage too
        demo.tmux.wait_for("demo-")

        # The coordinator dies; messages keep coming (they wait for the new leaders).
        await in_thread(lambda: sandbox.kill_broker(victim))
        demo.tmux.resize(220, 50)
        truth.now(set(range(180, 180 + PARTITIONS * 50 + 1)))
        await in_thread(lambda: produce(info.bootstrap_servers, 50))
        truth.now({330})
        await groups_screen_shows(app, pilot, truth, 330, 120)
        assert await in_thread(lambda: cli_lag(sandbox)) == 330

        # The group's detail and its topic's groups pane, still during the outage.
        app.post_message(GroupChosen(GROUP))
        await eventually(pilot, lambda: isinstance(app.screen, GroupDetailScreen), 10, "the group detail")
        summary = app.screen.query_one("#group-summary", Label)

        def detail_fresh() -> bool:
            text = str(summary.render())
            if "stale since" in text:
                return False
            return "lag 330" in text and " · read " in text

        await eventually(pilot, detail_fresh, 60, "the group detail with lag 330, read afresh")
        app.post_message(TopicChosen(TOPIC))
        await eventually(pilot, lambda: isinstance(app.screen, TopicDetailScreen), 10, "the topic detail")
        pane = app.screen.query_one("#topic-groups", VirtualTable)

        def pane_fresh() -> bool:
            row = next((r for r in pane.visible_rows() if r.key == GROUP), None)
            if row is None:
                return False
            as_of = freshness(row)
            truth.honest(row.cells[2], as_of)
            return as_of["stale_since_ms"] is None and row.cells[2] == "330"

        await eventually(pilot, pane_fresh, 60, "the topic's groups pane with lag 330, read afresh")
        assert pane.display
        partitions = app.screen.query_one("#partitions", VirtualTable)

        def high_watermarks() -> list[str]:
            return [r.cells[9] for r in partitions.visible_rows()]

        # Its offsets come through the console's read client too, from the new leaders.
        await eventually(pilot, lambda: high_watermarks() == ["150"] * PARTITIONS, 60, "the high watermarks")

        # The broker comes back; more messages; the groups screen follows.
        await in_thread(lambda: sandbox.start_broker(victim))
        demo.tmux.resize(120, 40)
        await pilot.press("g")
        truth.now(set(range(330, 330 + PARTITIONS * 20 + 1)))
        await in_thread(lambda: produce(info.bootstrap_servers, 20))
        truth.now({390})
        await groups_screen_shows(app, pilot, truth, 390, 60)
        assert await in_thread(lambda: cli_lag(sandbox)) == 390

    assert not demo.tmux.dead(), f"the README's console died: exit {demo.tmux.exit_status()}"
    assert not demo.crash_log.exists() or not demo.crash_log.read_text(), demo.crash_log.read_text()


async def test_the_broker_screen_follows_its_broker_through_a_restart(demo: Demo) -> None:
    # The session and log dirs shown are the broker's current ones: gone while it is down, the new session
    # (and its dirs read again) once it is back, never the dead session's.
    sandbox, victim = demo.sandbox, 2
    info = sandbox.info()
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper), bootstrap_servers=parse_bootstrap(info.bootstrap_servers)
    )
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    with zk_client(info.zookeeper) as zk:

        def owner() -> int | None:
            stat = zk.exists(broker_path(victim))
            return stat.ephemeralOwner if stat is not None else None

        async with app.run_test(size=(160, 40)) as pilot:
            await eventually(pilot, lambda: app.view is not None, 60, "the console to connect")
            app.post_message(BrokerChosen(victim))
            screen = await eventually(
                pilot, lambda: app.screen if isinstance(app.screen, BrokerScreen) else None, 10, "the broker screen"
            )
            header = screen.query_one("#broker-header", Static)

            def shows_session(session: int | None) -> bool:
                text = str(header.render())
                return f"ZooKeeper session {hex(session or 0)}" in text and "log dirs:" in text

            before = owner()
            await eventually(pilot, lambda: shows_session(before), 60, "the broker's session and log dirs")
            await in_thread(lambda: sandbox.kill_broker(victim))

            def shows_gone() -> bool:
                text = str(header.render())
                return "not registered" in text and hex(before or 0) not in text

            await eventually(pilot, shows_gone, 60, "the broker gone, and its dead session no more")
            await in_thread(lambda: sandbox.start_broker(victim))
            after = await in_thread(lambda: wait_until(owner, 120, "the broker to register again"))
            assert after != before
            await eventually(pilot, lambda: shows_session(after), 60, "the new session and its log dirs")
