"""A sandbox's JVMs: started with its Java, jars and flags, each tagged ``-Dkzc.sandbox=<dir>`` so that a PID is
only ever signalled while it is still one of this sandbox's processes (never one recycled by another program)."""

from __future__ import annotations

import os
import signal
import subprocess
from contextlib import suppress
from pathlib import Path

from core.polling import DeadlineExceeded, wait_until
from core.sandbox import class_data
from core.sandbox.state import SandboxState

ARCHIVE_WRITE_S = 60.0
_JVM_COMMON = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.awt.headless=true", "-Xss512k"]


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


class SandboxJvms:
    """Starting, checking and stopping the JVMs of the sandbox in ``directory`` (Java and jars: ``state``)."""

    def __init__(self, directory: Path, state: SandboxState) -> None:
        self.dir = directory
        self.state = state
        self._children: dict[int, subprocess.Popen[bytes]] = {}
        self._cmdlines: dict[int, list[str]] = {}

    def command(
        self,
        workdir: Path,
        heap: list[str],
        main: str,
        *args: str | Path,
        log: str = "server.log",
        jars: str | None = None,
        extra_jars: str | None = None,
    ) -> list[str]:
        """The command line of a JVM of this sandbox logging to ``workdir/log`` (``jars``: a release's own
        jar directory instead of the default one; ``extra_jars``: one more directory on the class path)."""
        raw = self.state.read()
        classpath = f"{jars or raw['jars']}/*" + (f":{extra_jars}/*" if extra_jars else "")
        return [
            raw["java"], *heap, *_JVM_COMMON,
            f"-Dkzc.sandbox={self.dir}",
            f"-Dlog4j.configuration=file:{self.dir / 'log4j.properties'}",
            f"-Dkzc.log.file={workdir / log}",
            "-cp", classpath, main, *map(str, args),
        ]  # fmt: skip

    def spawn(
        self,
        workdir: Path,
        heap: list[str],
        main: str,
        *args: str | Path,
        jars: str | None = None,
        extra_jars: str | None = None,
    ) -> int:
        """Start a JVM in the background (its output in ``workdir/stdout.log``), with its class data archive
        (``core.sandbox.class_data``); its PID."""
        cmd = self.command(workdir, heap, main, *args, jars=jars, extra_jars=extra_jars)
        classpath = cmd[cmd.index("-cp") + 1]
        cmd[1:1] = class_data.options(cmd[0], classpath, main, heap)
        with open(workdir / "stdout.log", "ab") as out:
            # A new session: the processes outlive the `kzc sandbox up` that started them.
            proc = subprocess.Popen(
                cmd, cwd=workdir, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._children[proc.pid] = proc
        self._cmdlines[proc.pid] = cmd
        return proc.pid

    def alive(self, pid: int) -> bool:
        """True iff ``pid`` is a live (non-zombie) JVM of *this* sandbox."""
        child = self._children.get(pid)
        if child is not None:
            # Spawned by this process: poll() is the truth (its cmdline may not show the exec yet).
            return child.poll() is None
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return False
        return pid_alive(pid) and f"-Dkzc.sandbox={self.dir}".encode() in cmdline

    def kill(self, pid: int) -> None:
        """SIGKILL ``pid`` and wait for it to exit."""
        cmdline = self._cmdline(pid)
        self._signal(pid, signal.SIGKILL)
        self._wait_dead([pid], 30.0)
        class_data.discard(cmdline)

    def stop(self, pids: list[int], timeout: float, clean: bool = True) -> list[int]:
        """SIGTERM ``pids``, SIGKILL those still alive after ``timeout``; return them. The class data archive a
        JVM wrote as it exited is put in place (``core.sandbox.class_data``); a JVM that writes one gets SIGTERM
        and at least ``ARCHIVE_WRITE_S`` to write it (5-7 s on a loaded 2-core machine; once per kind). Not
        ``clean``: SIGKILL at once (for processes whose data is thrown away), except such a JVM."""
        cmdlines = {pid: self._cmdline(pid) for pid in pids}
        writers = [pid for pid in pids if class_data.writes_archive(cmdlines[pid])]
        for pid in pids:
            self._signal(pid, signal.SIGTERM if clean or pid in writers else signal.SIGKILL)
        left = self._wait_dead(pids, max(timeout, ARCHIVE_WRITE_S) if writers else timeout)
        for pid in left:
            self._signal(pid, signal.SIGKILL)
        self._wait_dead(left, 30.0)
        for pid, cmdline in cmdlines.items():
            if pid in left:  # killed: what it wrote of an archive is not one
                class_data.discard(cmdline)
            else:
                class_data.promote(cmdline)
        return pids

    def _cmdline(self, pid: int) -> list[str]:
        """The command line ``pid`` was started with (nothing if it is not one of this sandbox's JVMs)."""
        if pid in self._cmdlines:
            return self._cmdlines[pid]
        if not self.alive(pid):
            return []
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")[:-1]
        except OSError:
            return []

    def _signal(self, pid: int, sig: signal.Signals) -> None:
        if self.alive(pid):
            with suppress(ProcessLookupError):
                os.kill(pid, sig)

    def _wait_dead(self, pids: list[int], timeout: float) -> list[int]:
        """Wait for ``pids`` to exit; return those still alive at the deadline."""
        with suppress(DeadlineExceeded):  # the caller escalates to SIGKILL
            wait_until(lambda: not any(self.alive(p) for p in pids), timeout, "processes to exit")
        return [p for p in pids if self.alive(p)]


def log_tail(path: Path, lines: int = 20) -> str:
    """The last ``lines`` of a process's log, to say why it exited at start-up."""
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return f"(no log at {path})"
