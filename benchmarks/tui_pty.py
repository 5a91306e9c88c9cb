"""Driving a terminal app through a real pseudo-terminal, as an SSH session would: the console's benchmarks
use it to measure what a user sees (time to a frame, bytes on the wire), without Textual's Pilot.

The driver answers Textual's synchronized-output query (DECRQM 2026), so every frame Textual draws ends
with ``ESC[?2026l``: a key's latency is the time from writing it to the end of the frame that answers it.
"""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import termios
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

SYNC_END = b"\x1b[?2026l"
_QUERIES = {
    b"\x1b[?2026$p": b"\x1b[?2026;2$y",  # synchronized output: supported
}


@dataclass
class Chunk:
    """Bytes read from the terminal at ``at`` (``time.monotonic``)."""

    at: float
    data: bytes


@dataclass
class Terminal:
    """A child process on a pty of ``columns`` x ``rows``; everything it writes is kept with timestamps."""

    command: Sequence[str]
    columns: int = 160
    rows: int = 48
    env: dict[str, str] = field(default_factory=dict)
    started: float = 0.0
    chunks: list[Chunk] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._new = threading.Condition(self._lock)
        self._closed = False

    def start(self) -> None:
        """Spawn the command on a new pty."""
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.rows, self.columns, 0, 0))
        env = {**os.environ, "TERM": "xterm-256color", "COLORTERM": "truecolor", **self.env}
        self.started = time.monotonic()
        self.process = subprocess.Popen(
            list(self.command), stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
            close_fds=True,
        )  # fmt: skip
        os.close(slave)
        self.master = master
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.5)
                if not ready:
                    if self.process.poll() is not None:
                        break
                    continue
                data = os.read(self.master, 65536)
            except OSError:
                break
            if not data:
                break
            now = time.monotonic()
            for query, answer in _QUERIES.items():
                if query in data:
                    os.write(self.master, answer)
            with self._new:
                self.chunks.append(Chunk(now, data))
                self._new.notify_all()
        with self._new:
            self._closed = True
            self._new.notify_all()

    def mark(self) -> int:
        """A position in the output, to wait or measure from."""
        with self._lock:
            return len(self.chunks)

    def output(self, since: int = 0) -> bytes:
        """Everything written since ``since``."""
        with self._lock:
            return b"".join(c.data for c in self.chunks[since:])

    def wait_for(self, needle: bytes, since: int = 0, timeout: float = 30.0) -> float:
        """Wait until ``needle`` appears after ``since``; return when the chunk holding it arrived."""
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                joined = b""
                for chunk in self.chunks[since:]:
                    joined += chunk.data
                    if needle in joined:
                        return chunk.at
                if self._closed or time.monotonic() > deadline:
                    raise TimeoutError(f"{needle!r} did not appear within {timeout} s")
                self._new.wait(timeout=0.2)

    def wait_frame_end(self, since: int, timeout: float = 10.0) -> tuple[float, int]:
        """Wait for the end of the next frame after ``since`` and a short quiet period (no more output);
        return (time the frame ended, bytes written since ``since``)."""
        ended = self.wait_for(SYNC_END, since, timeout)
        # A key may be answered in several frames (the input line, then the table): collect them all and
        # measure to the last one; 150 ms without output ends the answer.
        quiet_until = time.monotonic() + 0.15
        while time.monotonic() < quiet_until:
            mark = self.mark()
            time.sleep(0.01)  # the benchmark's own pacing: not a test
            if self.mark() != mark:
                quiet_until = time.monotonic() + 0.15
        data = self.output(since)
        last_end = data.rfind(SYNC_END)
        with self._lock:
            ends = [c.at for c in self.chunks[since:] if SYNC_END in c.data]
        return (ends[-1] if ends else ended), len(data[: last_end + len(SYNC_END)] if last_end >= 0 else data)

    def press(self, key: bytes) -> tuple[float, int]:
        """Write ``key`` and wait for the frame that answers it: (latency in seconds, bytes written)."""
        since = self.mark()
        sent = time.monotonic()
        os.write(self.master, key)
        ended, size = self.wait_frame_end(since)
        return ended - sent, size

    def rss_kib(self) -> tuple[int, int]:
        """(current, peak) resident memory of the child in KiB."""
        with open(f"/proc/{self.process.pid}/status") as handle:
            status = handle.read()
        values = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith("Vm")}
        return values.get("VmRSS", 0), values.get("VmHWM", 0)

    def stop(self) -> None:
        """End the child (SIGTERM, then SIGKILL)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        os.close(self.master)


KEYS = {
    "down": b"\x1b[B",
    "up": b"\x1b[A",
    "pagedown": b"\x1b[6~",
    "pageup": b"\x1b[5~",
    "home": b"\x1b[H",
    "end": b"\x1b[F",
    "enter": b"\r",
    "escape": b"\x1b",
    "backspace": b"\x7f",
}


def percentile(values: Sequence[float], fraction: float) -> float:
    """The ``fraction`` percentile (nearest rank) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))
    return ordered[index]
