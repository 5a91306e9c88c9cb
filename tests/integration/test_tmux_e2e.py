"""End to end: the installed ``kzc`` in a real terminal (tmux, 120x40) against the sandbox; the test reads
the screen as a user would (``tmux capture-pane``) and types keys (``tmux send-keys``)."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.processes import alive, children, command_line, descendants
from tests.integration.terminal_tools import KZC, Tmux, new_tmux

pytestmark = pytest.mark.integration


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed for the end-to-end test"
    assert KZC.exists(), f"the kzc entry point is not installed next to {sys.executable}"
    session = new_tmux(tmp_path)
    yield session
    session.kill()


def test_the_installed_kzc_shows_the_cluster_and_topics_and_quits(sandbox: Sandbox, tmux: Tmux) -> None:
    info = sandbox.info()
    tmux.start([str(KZC), "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers])
    screen = tmux.wait_for("ZK connected")
    screen = tmux.wait_for(f"127.0.0.1:{info.broker(1).port}")
    assert "Controller" in screen and "Brokers" in screen and "Events" in screen
    for broker in info.brokers:
        assert f"127.0.0.1:{broker.port}" in screen
    tmux.keys("t")
    screen = tmux.wait_for("parts")
    assert "parts" in screen and "rf" in screen
    tmux.keys("?")
    screen = tmux.wait_for("command_palette")
    tmux.keys("Escape")
    # A key sent right after Escape would reach the app as one escape sequence (alt+:): wait for the effect.
    tmux.wait_gone("command_palette")
    tmux.keys(":")
    tmux.wait_for("Search")
    tmux.keys("zk /brokers/ids/1")
    tmux.wait_for("open this znode")
    tmux.keys("Enter")
    screen = tmux.wait_for("broker registration")
    assert "/brokers/ids/1" in screen
    # The console starts its Spark worker (for the checks) once the cluster is shown; quitting does not wait for
    # it, and it must not outlive the console (nor its JVM, if it got that far).
    console = tmux.command_pid()
    worker: list[int] = []

    def spark_worker_started() -> bool:
        worker[:] = [pid for pid in children(console) if "core.consistency.spark_worker" in command_line(pid)]
        return bool(worker)

    wait_until(spark_worker_started, 60, "the console to start its Spark worker")
    tmux.keys("q")
    wait_until(tmux.dead, 20, "kzc to exit on q")
    assert tmux.exit_status() == "0"
    group = descendants(worker[0])
    wait_until(lambda: not any(alive(pid) for pid in group), 60, "the Spark worker (and its JVM) to end")
