"""End to end: the installed ``kzc`` console where it cannot draw (``TERM=dumb``, no ``TERM``, output that is
not a terminal), against the sandbox. The console runs in a real pseudo-terminal and the test reads every
byte it wrote: one line pointing to the commands, exit code 2, not a single escape sequence, no screen."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.sandbox.local_cluster import Sandbox
from tui.terminal import CLI_HINT

KZC = Path(sys.executable).with_name("kzc")
DEADLINE_S = 30.0  # kzc must have exited by then; a console that started drawing never would


def console_env(tmp_path: Path, term: str | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("TERM", "TMUX", "NO_COLOR")}
    env |= {"KZC_CONFIG": str(tmp_path / "config.toml"), "KZC_AUDIT_LOG": str(tmp_path / "audit.jsonl")}
    if term is not None:
        env["TERM"] = term
    return env


def console_args(sandbox: Sandbox) -> list[str]:
    info = sandbox.info()
    return [str(KZC), "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers]


class PtyRun:
    """``args`` running with stdin, stdout and stderr on a new pseudo-terminal; ``output`` is every byte it wrote."""

    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(args, stdin=slave, stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.output = b""

    def read_until(self, done: Callable[[bytes], bool]) -> bool:
        """Read until ``done(output)``, end of output (True), or ``DEADLINE_S`` (False)."""
        deadline = time.monotonic() + DEADLINE_S
        while not done(self.output):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: every writer of the terminal is gone
                return True
            if not chunk:
                return True
            self.output += chunk
        return True

    def finish(self) -> int:
        """Read to the end and return the exit code; kill it (and fail) if it is still running after
        ``DEADLINE_S``: a console that started drawing never exits by itself."""
        if not self.read_until(lambda _: False):
            pytest.fail(f"kzc still running after {DEADLINE_S:.0f} s; it wrote {self.output[-400:]!r}")
        return self.process.wait(timeout=DEADLINE_S)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        os.close(self.master)


@contextmanager
def pty_run(args: list[str], env: dict[str, str]) -> Iterator[PtyRun]:
    run = PtyRun(args, env)
    try:
        yield run
    finally:
        run.close()


def assert_one_plain_line(output: bytes, reason: str) -> None:
    assert b"\x1b" not in output, f"escape sequences written: {output[:200]!r}"
    lines = output.decode().splitlines()
    assert len(lines) == 1, lines
    assert lines[0] == f"kzc: error: {reason}; {CLI_HINT}"
    for part_of_the_screen in ("ZK connected", "Controller", "Brokers", "Quit"):
        assert part_of_the_screen not in lines[0]


@pytest.mark.parametrize(("term", "shown"), [("dumb", "TERM=dumb"), ("unknown", "TERM=unknown"), (None, "no TERM set")])
def test_a_terminal_that_cannot_draw_gets_one_line_and_exit_2(
    sandbox: Sandbox, tmp_path: Path, term: str | None, shown: str
) -> None:
    with pty_run(console_args(sandbox), console_env(tmp_path, term)) as run:
        assert run.finish() == 2
    assert_one_plain_line(run.output, f"this terminal cannot draw the console ({shown})")


def test_output_that_is_not_a_terminal_gets_one_line_and_exit_2(sandbox: Sandbox, tmp_path: Path) -> None:
    done = subprocess.run(console_args(sandbox), env=console_env(tmp_path, "xterm-256color"), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=DEADLINE_S, check=False)  # fmt: skip
    assert done.returncode == 2
    assert done.stdout == b""
    assert_one_plain_line(done.stderr, "the console needs a terminal (output is not one)")


def test_a_real_terminal_type_in_the_same_pty_does_draw(sandbox: Sandbox, tmp_path: Path) -> None:
    """The other side: the same pseudo-terminal with ``TERM=xterm-256color`` gets the full-screen console (so
    the refusals above come from the terminal type, not from the pty)."""
    with pty_run(console_args(sandbox), console_env(tmp_path, "xterm-256color")) as run:
        run.read_until(lambda output: b"ZK connected" in output)
        assert b"\x1b[?1049h" in run.output, "no alternate screen: the console did not start drawing"
        assert b"ZK connected" in run.output
        os.write(run.master, b"q")
        assert run.finish() == 0
