"""What the console's cluster tests need from the sandbox beyond ``core.sandbox.local_cluster``: a ZooKeeper restart,
async waiting on a condition with a deadline (the Pilot's event loop keeps running while we wait), and a poller
that watches ZooKeeper on its own thread while a test acts.

``restart_zookeeper`` relaunches the exact command line of the running ZooKeeper (same port and data, so
sessions survive) and records the new PID in the documented ``sandbox.json`` so ``Sandbox.down`` stops it.
``core.sandbox.local_cluster`` has no such operation yet; this is the test-side adapter.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Self, TypeVar

from textual.pilot import Pilot

from core.polling import DeadlineExceeded, wait_until
from core.sandbox.local_cluster import STATE_FILE, Sandbox
from tests.integration.processes import alive

T = TypeVar("T")


async def eventually(pilot: Pilot[None], condition: Callable[[], T], timeout: float, what: str) -> T:
    """Let the app run until ``condition()`` is truthy; fail after ``timeout`` seconds naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise DeadlineExceeded(f"timed out after {timeout:g} s waiting for {what}")
        await pilot.pause(0.05)


async def in_thread(func: Callable[[], T]) -> T:
    """Run a blocking call (sandbox, kazoo) without stopping the app's event loop."""
    return await asyncio.to_thread(func)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def restart_zookeeper(box: Sandbox, down_for: float = 1.0) -> int:
    """Stop the sandbox's ZooKeeper (SIGTERM), keep it down ``down_for`` seconds, start it again; new PID."""
    info = box.info()
    pid = info.zookeeper_pid
    assert pid is not None and alive(pid), "the sandbox's ZooKeeper is not running"
    command = [part.decode() for part in Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0") if part]
    cwd = os.readlink(f"/proc/{pid}/cwd")
    os.kill(pid, signal.SIGTERM)
    wait_until(lambda: not alive(pid), 30, "ZooKeeper to stop")
    deadline = time.monotonic() + down_for
    wait_until(lambda: time.monotonic() >= deadline, down_for + 1, "the outage to last")
    with open(Path(cwd) / "stdout.log", "ab") as out:
        process = subprocess.Popen(
            command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    state_path = box.dir / STATE_FILE
    state = json.loads(state_path.read_text())
    state["zookeeper_pid"] = process.pid
    state_path.write_text(json.dumps(state, indent=2))
    try:
        wait_until(lambda: _listening(info.zookeeper_port), 60, "ZooKeeper to listen again")
    except DeadlineExceeded:
        process.kill()
        raise
    return process.pid


class Poller:
    """Calls ``poll(now_ms)`` every 20 ms on its own thread while the ``with`` block runs (a subclass keeps what
    it saw: the truth a recorded answer is compared with)."""

    def __init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)

    def poll(self, now_ms: int) -> None:
        """One look at ZooKeeper."""
        raise NotImplementedError

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.poll(int(time.time() * 1000))
