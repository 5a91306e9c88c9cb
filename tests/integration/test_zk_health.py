"""ZooKeeper's own health on a real three-server ensemble (``Sandbox.up(zookeepers=3)``: server N on 127.0.0.N,
AdminServer on): every server through ``kzc zk health --json``, then one and two members stopped, each time
through the command line, its alarms, and the console's line and health screen. The words-disabled fallback
to the AdminServer is in test_zk_health_fallback.py (an ensemble of its own)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Label, Static

from core.config import ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.sandbox_tools import eventually, in_thread
from tests.tui.helpers import settle
from tui.app import KzcApp
from tui.screens.zk_health import ZkHealthScreen
from tui.widgets.virtual_table import VirtualTable

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def ensemble(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """Three ZooKeeper servers and one broker (zookeeper.session.timeout.ms 6000, servers' max 10000)."""
    box = Sandbox.up(Path(tmp_path_factory.mktemp("ensemble")), brokers=1, zookeepers=3, timeout=300)
    try:
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def health_args(box: Sandbox) -> list[str]:
    info = box.info()
    return [
        "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers,
        "--zk-admin-port", str(info.ensemble[0].admin_port), "zk", "health", "--timeout", "15",
    ]  # fmt: skip


def kzc(*args: str) -> tuple[int, str]:
    """Run the real ``kzc`` (a process of its own: the console under test holds this one's stdout)."""
    command = [str(Path(sys.executable).with_name("kzc")), *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    return done.returncode, done.stdout


def probe(box: Sandbox) -> tuple[int, dict[str, Any]]:
    code, out = kzc(*health_args(box), "--json")
    return code, json.loads(out)


def by_address(health: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["server"]: s for s in health["servers"]}


def server_id(box: Sandbox, address: str) -> int:
    return next(z.id for z in box.info().ensemble if z.address == address)


def kinds(health: dict[str, Any]) -> list[str]:
    return [a["kind"] for a in health["alarms"]]


def test_every_server_of_a_healthy_ensemble(ensemble: Sandbox) -> None:
    code, health = probe(ensemble)
    assert code == 0 and health["alarms"] == []
    assert (health["ensemble_size"], health["ensemble_size_from"], health["quorum"]) == (3, "conf", 2)
    servers = by_address(health)
    assert sorted(servers) == [z.address for z in ensemble.info().ensemble]
    assert sorted(s["mode"] for s in servers.values()) == ["follower", "follower", "leader"]
    leader = servers[health["leader"]]
    assert leader["synced_followers"] == 2 and leader["followers"] == 2 and health["serving_voters"] == 3
    for s in servers.values():
        assert s["reachable"] and s["serving"] and s["version"].startswith("3.8.4")
        assert s["sources"] == {"srvr": "4lw", "mntr": "4lw", "conf": "4lw", "fsync": "admin"}
        assert s["fsync_exceeded"] == 0 and s["refused"] == [] and s["problems"] == []
        assert (s["min_session_timeout"], s["max_session_timeout"]) == (1000, 10000)  # tickTime 500
        assert s["znodes"] > 0 and s["max_fds"] > s["open_fds"] > 0 and s["lag"] is not None
    assert health["kafka_session_timeout_ms"] == {"1": 6000}
    code, text = kzc(*health_args(ensemble))
    assert code == 0 and "3 of 3 voting serve (quorum 2)" in text and "Kafka asks 6,000 ms (broker 1)" in text


def console(box: Sandbox) -> KzcApp:
    info = box.info()
    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(info.zookeeper),
        bootstrap_servers=parse_bootstrap(info.bootstrap_servers),
        context="ensemble",
        zk_admin_port=info.ensemble[0].admin_port,
    )
    return KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)


def zk_line(app: KzcApp) -> str:
    labels = app.screen.query("#zk-health-line").results(Label)
    return " ".join(str(label.render()) for label in labels if label.display)


def alarm_texts(app: KzcApp) -> list[str]:
    tables = app.screen.query("#zk-alarms").results(VirtualTable)
    return [row.cells[1] for table in tables for row in table.visible_rows()]


async def test_one_then_two_servers_stopped(ensemble: Sandbox) -> None:
    app = console(ensemble)
    stopped: list[int] = []
    try:
        async with app.run_test(size=(160, 45)) as pilot:
            await eventually(pilot, lambda: "no alarm" in zk_line(app), 90, "the console's ZooKeeper line")

            # One member (the leader) stopped: a new leader, the quorum at risk.
            _, health = await in_thread(lambda: probe(ensemble))
            first = server_id(ensemble, health["leader"])
            await in_thread(lambda: ensemble.kill_zookeeper(first))
            stopped.append(first)
            gone = ensemble.info().zookeeper_server(first).address

            def re_elected() -> Any:
                code, found = probe(ensemble)
                return (code, found) if found["leader"] is not None else None

            code, health = await in_thread(lambda: wait_until(re_elected, 90, "a new ZooKeeper leader"))
            assert code == 1 and kinds(health) == ["quorum-at-risk", "unreachable"]
            assert health["serving_voters"] == 2 and health["leader"] != gone
            assert "2 of 3 voting servers serve, 2 needed; one more loss stops ZooKeeper" in health["alarms"][0]["text"]
            assert by_address(health)[gone]["error"] == "connection refused"
            await eventually(pilot, lambda: f"{gone} unreachable" in zk_line(app), 90, "the console to see it gone")
            assert f"{gone} unreachable: connection refused (last seen leader) (+1 more)" in zk_line(app)
            await pilot.press("Z")
            await settle(pilot)
            assert isinstance(app.screen, ZkHealthScreen)
            assert any(t.startswith("quorum at risk: 2 of 3") for t in alarm_texts(app))
            detail = str(app.screen.query_one("#zk-health-detail", Static).render())
            assert f"{gone} last answered at" in detail and "as leader" in detail

            # A second member stopped: the quorum is lost, the last one answers but does not serve.
            second = server_id(ensemble, health["leader"])
            await in_thread(lambda: ensemble.kill_zookeeper(second))
            stopped.append(second)

            def lost() -> Any:
                code, found = probe(ensemble)
                return (code, found) if "quorum-lost" in kinds(found) else None

            code, health = await in_thread(lambda: wait_until(lost, 60, "the quorum to be lost"))
            assert code == 1
            assert kinds(health) == ["no-leader", "quorum-lost", "not-serving", "unreachable", "unreachable"]
            assert health["alarms"][1]["text"].startswith("quorum lost: 0 of 3 voting servers serve, 2 needed")
            modes = sorted(s["serving"] is False and s["reachable"] for s in health["servers"])
            assert modes == [False, False, True]
            await eventually(pilot, lambda: any(t.startswith("quorum lost") for t in alarm_texts(app)), 90,
                             "the console's health screen to show the quorum lost")  # fmt: skip
            code, text = await in_thread(lambda: kzc(*health_args(ensemble)))
            assert code == 1 and "ERROR   quorum lost: 0 of 3" in text
    finally:
        for n in reversed(stopped):
            await in_thread(lambda n=n: ensemble.start_zookeeper(n))  # type: ignore[misc]

    def whole() -> Any:
        code, found = probe(ensemble)
        return found if code == 0 else None

    health = await in_thread(lambda: wait_until(whole, 90, "the ensemble to be whole again"))
    assert health["serving_voters"] == 3 and health["alarms"] == []
