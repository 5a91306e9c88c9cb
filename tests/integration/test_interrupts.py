"""Ctrl-C on the command line: SIGINT to a running kzc ends it with exit 130 and "interrupted", closes its
ZooKeeper session (no session left for the server to expire) and leaves no partial output file.

A standalone ZooKeeper of the test's own holds a 50k-partition layout (written by
``benchmarks/zk_layout.py``), and its ``dump`` lists every open session, including one whose client
died without closing it.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from benchmarks.zk_layout import populate
from core.audit import read_audit_log
from core.polling import wait_until
from tests.integration.processes import alive, children, descendants
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
    """The ids of every session the server holds (``dump``), connected or not. A busy session can be missing
    from one ``dump``: ZooKeeper's ``ExpiryQueue.dump`` lists the expiry buckets it saw when it started, and each
    request moves the session to a newer bucket (every tick, 500 ms here); an idle or abandoned one stays put."""
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


def _kzc(port: int, command: list[str], cwd: Path, **popen: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "KZC_CONFIG": str(cwd / "none.toml"), "KZC_AUDIT_LOG": str(cwd / "audit.jsonl")}
    return subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--zookeeper", f"127.0.0.1:{port}{CHROOT}", "--session-timeout", "30",
         *command],
        cwd=cwd, env=env, text=True, **popen,
    )  # fmt: skip


def _interrupt_mid_read(port: int, command: list[str], cwd: Path, requests: int = 5_000) -> tuple[int, str, str]:
    """Start ``kzc COMMAND``, SIGINT it once it sent ``requests`` requests; (exit code, stderr, session)."""
    proc = _kzc(port, command, cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        busy: set[str] = set()

        def reading() -> bool:
            assert proc.poll() is None, f"kzc ended before it could be interrupted: {proc.communicate()}"
            busy.update(_busy_connections(port, requests))
            return bool(busy)

        wait_until(reading, 60, "kzc to be at work on ZooKeeper")
        wait_until(lambda: busy <= _sessions(port), 10, "dump to list kzc's session while it runs")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        return proc.returncode, err, busy.pop()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ctrl_c_during_a_snapshot_ends_kzc_with_130_closes_its_session_and_leaves_no_file(
    layout_zk: int, tmp_path: Path
) -> None:
    code, err, session = _interrupt_mid_read(layout_zk, ["snapshot", "-o", "snap.jsonl"], tmp_path)
    assert code == 130
    assert "kzc: interrupted" in err
    assert "Traceback" not in err
    # The session was closed, not abandoned: with a 30 s session timeout an abandoned one would stay listed.
    wait_until(lambda: session not in _sessions(layout_zk), 5, f"session {session} to be closed")
    assert not list(tmp_path.glob("*snap*"))  # neither the file nor its temporary twin


def test_ctrl_c_during_a_local_check_ends_kzc_with_130_and_closes_its_session(layout_zk: int, tmp_path: Path) -> None:
    code, err, session = _interrupt_mid_read(layout_zk, ["check", "--engine", "local"], tmp_path)
    assert code == 130
    assert "kzc: interrupted" in err
    wait_until(lambda: session not in _sessions(layout_zk), 5, f"session {session} to be closed")


def test_ctrl_c_ends_a_watch_with_130_and_closes_its_session(layout_zk: int, tmp_path: Path) -> None:
    code, err, session = _interrupt_mid_read(layout_zk, ["watch"], tmp_path, requests=10)
    assert code == 130 and "kzc: interrupted" in err
    wait_until(lambda: session not in _sessions(layout_zk), 5, f"session {session} to be closed")


def test_ctrl_c_during_wait_ends_kzc_after_the_applied_change_was_recorded(layout_zk: int, tmp_path: Path) -> None:
    # The layout's brokers are registrations only: no controller ever gives the new partition a leader.
    command = ["topic", "create", "waited", "--partitions", "1", "--replication-factor", "1", "--yes", "--wait"]
    proc = _kzc(layout_zk, command, tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: (tmp_path / "audit.jsonl").exists() and read_audit_log(tmp_path / "audit.jsonl"), 60,
                   "the create to be applied")  # fmt: skip
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "kzc: interrupted" in err
    [line] = read_audit_log(tmp_path / "audit.jsonl")
    assert line["outcome"] == "applied"  # the write happened; only the waiting was interrupted


def test_ctrl_c_at_the_confirmation_prompt_is_audited_as_interrupted(layout_zk: int, tmp_path: Path) -> None:
    controller, terminal = pty.openpty()
    command = ["topic", "create", "asked", "--partitions", "1", "--replication-factor", "1"]
    proc = _kzc(layout_zk, command, tmp_path, stdin=terminal, stdout=subprocess.PIPE, stderr=terminal)
    os.close(terminal)
    try:
        seen = b""

        def prompted() -> bool:
            nonlocal seen
            ready, _, _ = select.select([controller], [], [], 0.2)
            if ready:
                seen += os.read(controller, 4096)
            return b"Type the topic name" in seen

        wait_until(prompted, 60, "the confirmation prompt")
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(controller)
    assert proc.returncode == 130
    [line] = read_audit_log(tmp_path / "audit.jsonl")
    assert line["outcome"] == "interrupted" and line["operation"] == "topic create"


def test_ctrl_c_during_a_spark_check_stops_the_spark_worker_and_its_jvm(layout_zk: int, tmp_path: Path) -> None:
    proc = _kzc(layout_zk, ["check", "--engine", "spark"], tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        worker: list[int] = []

        def spark_started() -> bool:
            assert proc.poll() is None, f"kzc ended before it could be interrupted: {proc.communicate()}"
            worker[:] = children(proc.pid)
            return bool(worker) and bool(children(worker[0]))  # the worker has launched its JVM

        wait_until(spark_started, 120, "kzc's Spark worker to start its JVM")
        group = descendants(worker[0])
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "kzc: interrupted" in err
    wait_until(lambda: not any(alive(pid) for pid in group), 10, "the Spark worker and its JVM to be gone")


def test_ctrl_c_during_sandbox_up_stops_the_processes_it_started(tmp_path: Path) -> None:
    env = {**os.environ, "KZC_CONFIG": str(tmp_path / "none.toml")}
    directory = tmp_path / "sbx"
    proc = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "sandbox", "up", "--dir", str(directory), "--brokers", "2"],
        cwd=tmp_path, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:

        def zookeeper_started() -> bool:
            assert proc.poll() is None, f"the sandbox came up before it could be interrupted: {proc.communicate()}"
            return bool(_sandbox_processes(directory))

        wait_until(zookeeper_started, 60, "kzc to start the sandbox's ZooKeeper")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130 and "kzc: interrupted" in err
    wait_until(lambda: not _sandbox_processes(directory), 10, "the sandbox's processes to be gone")


def _sandbox_processes(directory: Path) -> list[int]:
    """The live processes started for the sandbox in ``directory`` (its path is on their command line)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if f"kzc.sandbox={directory}" in command and alive(int(entry.name)):
                found.append(int(entry.name))
    return found
