"""End to end: the installed ``kzc`` in a real terminal (tmux, 120x40) against the sandbox; the test reads
the screen as a user would (``tmux capture-pane``) and types keys (``tmux send-keys``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.polling import wait_until
from core.sandbox.cluster import Sandbox

pytestmark = pytest.mark.integration

KZC = Path(sys.executable).with_name("kzc")


class Tmux:
    """One detached tmux session on its own server socket."""

    def __init__(self, socket: str, env: dict[str, str]) -> None:
        self.socket = socket
        self.env = env
        self.name = "kzc-e2e"

    def run(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=self.env,
                              check=True, timeout=20)  # fmt: skip
        return done.stdout

    def start(self, command: list[str]) -> None:
        self.run("new-session", "-d", "-s", self.name, "-x", "120", "-y", "40", *command)
        self.run("set-option", "-t", self.name, "remain-on-exit", "on")

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def dead(self) -> bool:
        return self.run("display-message", "-p", "-t", self.name, "#{pane_dead}").strip() == "1"

    def wait_for(self, text: str, timeout: float = 60) -> str:
        return wait_until(lambda: self.screen() if text in self.screen() else "", timeout, f"'{text}' on screen")

    def wait_gone(self, text: str, timeout: float = 60) -> str:
        return wait_until(lambda: "" if text in (s := self.screen()) else s, timeout, f"'{text}' to leave the screen")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env, timeout=20)


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed for the end-to-end test"
    assert KZC.exists(), f"the kzc entry point is not installed next to {sys.executable}"
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "KZC_CONFIG": str(tmp_path / "config.toml"),
        "KZC_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "KZC_EXPORT_DIR": str(tmp_path / "exports"),
    }
    env.pop("TMUX", None)
    session = Tmux(f"kzc-e2e-{uuid.uuid4().hex[:8]}", env)
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
    tmux.keys("q")
    wait_until(tmux.dead, 20, "kzc to exit on q")
