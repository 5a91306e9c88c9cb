"""``kzc report`` of a real outage: ``kzc record`` records the sandbox while broker 2 is killed and restarted and
a preferred election is made with kzc; the report lists the broker's down interval within 2 s of what this test
saw by polling its registration, the election from the audit log, and the partitions' out-of-ISR spells. On the
same recording, ``kzc --at`` (tmux) a moment inside the outage shows the under-replicated count ZooKeeper held
then, with the broker gone, and ``]`` steps on through the recorded changes to the broker's return, where the count
drops; the HTML report opened in headless Chromium shows the timeline."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from cli.main import main
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.history.schema import SNAPSHOTS
from core.history.store import HistoryStore
from core.kafka.znodes import PartitionState
from core.kafka.znodes.paths import broker_path
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.snapshot.health import assess
from core.snapshot.reader import read_snapshot
from core.zookeeper.session import ZkSession
from tests.integration.cluster_reads import admin_args, state, zk_args
from tests.integration.sandbox_tools import Poller
from tests.integration.terminal_tools import KZC, Tmux, new_tmux

TOPIC = "report-outage"
TOLERANCE_MS = 2000


class RegistrationPoller(Poller):
    """A broker's registration: the first poll that saw it gone, the first that saw it back."""

    def __init__(self, zk: KazooClient, broker: int) -> None:
        super().__init__()
        self.zk, self.path = zk, broker_path(broker)
        self.left_ms: int | None = None
        self.back_ms: int | None = None

    def poll(self, now_ms: int) -> None:
        there = self.zk.exists(self.path) is not None
        if not there and self.left_ms is None:
            self.left_ms = now_ms
        elif there and self.left_ms is not None and self.back_ms is None:
            self.back_ms = now_ms


def _outage_held(sandbox: Sandbox) -> tuple[int, int]:
    """Once every replicated partition of broker 2 (the shared sandbox's, not only this test's) has it out of its
    ISR: the under-replicated count ZooKeeper holds (kzc's one health rule on a live read) and a moment inside."""
    session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(sandbox.info().zookeeper)))
    session.start()
    try:

        def stranded() -> int | None:
            snapshot = read_snapshot(session)
            out = all(2 not in s.isr for _, _, r, s in snapshot.iter_partitions()
                      if r and len(r) > 1 and 2 in r and isinstance(s, PartitionState))  # fmt: skip
            return len(assess(snapshot).under_replicated) if out else None

        held = wait_until(stranded, 60, "every ISR without broker 2")
        assert held is not None
    finally:
        session.stop()
    return held, int(time.time() * 1000)


def test_the_report_of_a_recorded_outage_dates_the_broker_lists_the_election_and_the_isr_spells(
    sandbox: Sandbox, zk: KazooClient, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "store"
    assert main(["topic", "create", TOPIC, "--replica-assignment", "1:2,2:3,3:1", "--yes", *zk_args(sandbox)]) == 0
    command = [sys.executable, "-m", "cli.main", "record", "--out", str(out), "--flush-every", "1s", *zk_args(sandbox)]
    recorder = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: (out / SNAPSHOTS).exists() and HistoryStore(out).clusters(), 60, "the first snapshot")
        cluster = HistoryStore(out).clusters()[0]
        with RegistrationPoller(zk, 2) as poller:
            sandbox.kill_broker(2)
            try:
                wait_until(lambda: all(2 not in state(zk, TOPIC, p)["isr"] for p in (0, 1)), 120, "broker 2 out")
                held, seen_ms = _outage_held(sandbox)
                # The recorder dates each change when it sees it, a moment after ZooKeeper holds it: the moment
                # looked at is later than that, and broker 2 stays down until the store is flushed past it.
                inside_ms = seen_ms + 2000
                wait_until(lambda: (HistoryStore(out).flushed_ms(cluster) or 0) > inside_ms, 30, "a flush past it")
            finally:
                sandbox.start_broker(2)  # restored whatever happens: the session's sandbox is shared
            wait_until(lambda: all(2 in state(zk, TOPIC, p)["isr"] for p in (0, 1)), 120, "broker 2 back in the ISRs")
        assert poller.left_ms is not None and poller.back_ms is not None
        assert main(["elect", "preferred", "--topic", TOPIC, "--yes", "--wait", *admin_args(sandbox)]) == 0
        elected = int(time.time() * 1000)
        wait_until(lambda: state(zk, TOPIC, 1)["leader"] == 2, 60, "broker 2 to lead partition 1 again")
        wait_until(lambda: (HistoryStore(out).flushed_ms(cluster) or 0) > elected + 500, 30, "a flush after it")
    finally:
        recorder.send_signal(signal.SIGTERM)
        recorder.wait(30)
    capsys.readouterr()
    assert main(["report", "--store", str(out), "--cluster", cluster, "--since", "1h", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)

    [down] = [d for d in report["brokers_down"] if d["broker"] == 2]
    assert abs(down["left_ms"] - poller.left_ms) <= TOLERANCE_MS, (down, poller.left_ms)
    assert abs(down["back_ms"] - poller.back_ms) <= TOLERANCE_MS, (down, poller.back_ms)
    audit = Path(os.environ["KZC_AUDIT_LOG"]).read_text()
    elections = [a for a in report["actions"] if a["operation"] == "elect preferred"]
    assert len(elections) == 1, (cluster, audit, report["actions"], report["audit_notes"])
    [election] = elections
    assert election["outcome"] == "applied" and election["details"]["before"]
    spells = {(o["partition"], o["replica"]) for o in report["out_of_isr"] if o["topic"] == TOPIC}
    assert {(0, 2), (1, 2)} <= spells
    left = [b["text"] for b in report["timeline"] if "broker 2 left" in b["text"]]
    assert left, report["timeline"]  # with the controller's move in the same burst when broker 2 was the controller
    assert report["at_end"]["brokers_down"] == []

    html = tmp_path / "incident.html"
    assert main(["report", "--store", str(out), "--cluster", cluster, "--since", "1h", "--out", str(html)]) == 0
    page = html.read_text(encoding="utf-8")
    assert "broker 2 left" in page and "elect preferred" in page and "<script" not in page
    assert "broker 2 left" in _timeline_in_a_browser(html, tmp_path)

    _the_console_at_a_moment_inside_the_outage(sandbox, out, tmp_path, held, inside_ms)


def _timeline_in_a_browser(html: Path, tmp_path: Path) -> str:
    """The text of the report's Timeline section as headless Chromium (Debian's package) renders the file: the
    DOM it built, so a page it could not parse shows no timeline."""
    done = subprocess.run(
        ["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path / 'chromium'}",
         "--dump-dom", html.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    dom = done.stdout
    assert "<h2>Timeline" in dom, dom[:2000]
    return dom.split("<h2>Timeline", 1)[1].split("<h2>", 1)[0]


def _the_console_at_a_moment_inside_the_outage(
    sandbox: Sandbox, store: Path, tmp_path: Path, held: int, inside_ms: int
) -> None:
    """``kzc --at`` inside the outage: the count ZooKeeper held, broker 2 gone; ``]`` steps on until broker 2 is
    back and the count has dropped (each step waits for the moment shown to change)."""
    assert held > 0
    tmux = new_tmux(tmp_path)
    tmux.start([str(KZC), "--at", str(inside_ms), "--store", str(store), *zk_args(sandbox)], width=160)
    try:
        # The moment's header and its health counts are drawn a frame apart: wait for both, then check them.
        screen = wait_until(lambda: s if "(recorded)" in (s := tmux.screen()) and _drawn(s) else "", 120, "the moment")
        assert "RECORDED" in screen and f"under-replicated {held}" in screen and "+ 1 gone" in screen, screen
        assert "ZK connected" not in screen
        for _ in range(60):
            moment = _as_of(screen)
            tmux.keys("]")
            screen = wait_until(partial(_moved, tmux, moment), 30, "the next change")
            if "+ 1 gone" not in screen and _count(screen) < held:
                break
        else:
            pytest.fail(f"broker 2 never came back with fewer than {held} under-replicated:\n{screen}")
        assert "3 brokers" in screen, screen
        tmux.keys("q")
        wait_until(tmux.dead, 60, "the console to quit")
    finally:
        tmux.kill()


def _moved(tmux: Tmux, moment: str) -> str:
    """The screen once it shows another moment than ``moment``, its health counts drawn (else "")."""
    screen = tmux.screen()
    return screen if _as_of(screen) != moment and _drawn(screen) else ""


def _drawn(screen: str) -> bool:
    """Whether the health panel shows its under-replicated count yet."""
    after = screen.split("under-replicated ", 1)
    return len(after) == 2 and after[1].split()[0].replace(",", "").isdigit()


def _count(screen: str) -> int:
    return int(screen.split("under-replicated ", 1)[1].split()[0].replace(",", ""))


def _as_of(screen: str) -> str:
    return screen.split("as of ", 1)[1].split(")", 1)[0] if "as of " in screen else ""
