"""Ctrl-C on the command line: SIGINT to a running kzc ends it with exit 130 and "interrupted", closes its
ZooKeeper session (no session left for the server to expire) and leaves no partial output file.

A standalone ZooKeeper of the test's own holds a 50k-partition layout (written by
``benchmarks/zk_layout.py``), and its ``dump`` lists every open session, including one whose client
died without closing it.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.zk_layout import populate
from core.polling import wait_until
from tests.integration.zk_server import four_letter, standalone_zookeeper

pytestmark = pytest.mark.integration

CHROOT = "/kafka"
PARTITIONS = 50_000


@pytest.fixture(scope="module")
def layout_zk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """A ZooKeeper of its own holding a 50k-partition Kafka layout under /kafka; yields its port."""
    workdir = tmp_path_factory.mktemp("zk-interrupts")
    with standalone_zookeeper(workdir, jvm_flags=["-Xmx512m"]) as port:
        populate(f"127.0.0.1:{port}", CHROOT, PARTITIONS)
        yield port


def _sessions(port: int) -> set[str]:
    """The ids of every session the server holds (``dump``), connected or not."""
    return set(re.findall(r"0x[0-9a-f]+", four_letter(port, "dump").split("ephemeral", 1)[0]))


def _busy_connections(port: int, at_least: int) -> set[str]:
    """Session ids of connections that received at least ``at_least`` requests (``cons``)."""
    busy = set()
    for line in four_letter(port, "cons").splitlines():
        received = re.search(r"recved=(\d+)", line)
        sid = re.search(r"sid=(0x[0-9a-f]+)", line)
        if received and sid and int(received.group(1)) >= at_least:
            busy.add(sid.group(1))
    return busy


def _interrupt_mid_read(port: int, command: list[str], cwd: Path) -> tuple[int, str, float, str]:
    """Start ``kzc COMMAND``, SIGINT it once it has read 5,000 znodes; (exit code, stderr, seconds, session)."""
    env = {**os.environ, "KZC_CONFIG": str(cwd / "none.toml"), "KZC_AUDIT_LOG": str(cwd / "audit.jsonl")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--zookeeper", f"127.0.0.1:{port}{CHROOT}", "--session-timeout", "30",
         *command],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        busy: set[str] = set()

        def reading() -> bool:
            assert proc.poll() is None, f"kzc ended before it could be interrupted: {proc.communicate()}"
            busy.update(_busy_connections(port, 5_000))
            return bool(busy)

        wait_until(reading, 60, "kzc to be reading ZooKeeper")
        assert busy <= _sessions(port)  # dump lists kzc's session while it runs
        proc.send_signal(signal.SIGINT)
        sent = time.monotonic()
        _, err = proc.communicate(timeout=30)
        return proc.returncode, err, time.monotonic() - sent, busy.pop()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ctrl_c_during_a_snapshot_ends_kzc_at_once_closes_its_session_and_leaves_no_file(
    layout_zk: int, tmp_path: Path
) -> None:
    code, err, seconds, session = _interrupt_mid_read(layout_zk, ["snapshot", "-o", "snap.jsonl"], tmp_path)
    assert code == 130
    assert "kzc: interrupted" in err
    assert "Traceback" not in err
    assert seconds < 2.0
    # The session was closed, not abandoned: with a 30 s session timeout an abandoned one would stay listed.
    wait_until(lambda: session not in _sessions(layout_zk), 5, f"session {session} to be closed")
    assert not list(tmp_path.glob("*snap*"))  # neither the file nor its temporary twin


def test_ctrl_c_during_a_local_check_ends_kzc_at_once_and_closes_its_session(layout_zk: int, tmp_path: Path) -> None:
    code, err, seconds, session = _interrupt_mid_read(layout_zk, ["check", "--engine", "local"], tmp_path)
    assert code == 130
    assert "kzc: interrupted" in err
    assert seconds < 2.0
    wait_until(lambda: session not in _sessions(layout_zk), 5, f"session {session} to be closed")
