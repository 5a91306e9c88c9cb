"""The installed ``kzc`` in a real terminal for end-to-end tests: a detached tmux session on its own server
socket, read as a user would (``capture-pane``) and typed into (``send-keys``)."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

from core.polling import wait_until

KZC = Path(sys.executable).with_name("kzc")


class Tmux:
    """One detached tmux session on its own server socket."""

    def __init__(self, socket: str, env: dict[str, str], status_file: Path) -> None:
        self.socket = socket
        self.env = env
        self.name = "kzc-e2e"
        self.status_file = status_file

    def run(self, *args: str) -> str:
        done = subprocess.run(
            ["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=self.env, check=True, timeout=20
        )
        return done.stdout

    def start(self, command: list[str], width: int = 120, height: int = 40) -> None:
        # The command's exit status goes to a file through a shell: tmux 3.3's #{pane_dead_status} is sometimes
        # empty for a process that exited 0 (the pane is dead, the status never shows).
        wrapped = ["/bin/sh", "-c", '"$@"; echo "$?" > "$0"', str(self.status_file), *command]
        self.run("new-session", "-d", "-s", self.name, "-x", str(width), "-y", str(height), *wrapped)
        self.run("set-option", "-t", self.name, "remain-on-exit", "on")

    def resize(self, width: int, height: int) -> None:
        """Resize the window, as a user resizing the terminal (the program gets SIGWINCH)."""
        self.run("resize-window", "-t", self.name, "-x", str(width), "-y", str(height))

    def screen(self) -> str:
        return self.run("capture-pane", "-p", "-t", self.name)

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", self.name, *keys)

    def dead(self) -> bool:
        return self.run("display-message", "-p", "-t", self.name, "#{pane_dead}").strip() == "1"

    def command_pid(self) -> int:
        """The started command's process id (the pane's process is the shell that notes its exit status)."""
        shell = self.run("display-message", "-p", "-t", self.name, "#{pane_pid}").strip()
        return int(Path(f"/proc/{shell}/task/{shell}/children").read_text().split()[0])

    def exit_status(self, timeout: float = 20) -> str:
        """The command's exit status once it has exited (128 + N for a death by signal N)."""

        def written() -> str:
            return self.status_file.read_text().strip() if self.status_file.exists() else ""

        return wait_until(written, timeout, "the command's exit status")

    def wait_for(self, text: str, timeout: float = 60) -> str:
        return wait_until(lambda: self.screen() if text in self.screen() else "", timeout, f"'{text}' on screen")

    def wait_gone(self, text: str, timeout: float = 60) -> str:
        return wait_until(lambda: "" if text in (s := self.screen()) else s, timeout, f"'{text}' to leave the screen")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env, timeout=20)


def terminal_env(directory: Path) -> dict[str, str]:
    """The environment of a kzc run in tmux: its config, audit log, exports and crash trace in ``directory``."""
    env = {
        **os.environ,
        "TERM": "xterm-256color",
        "KZC_CONFIG": str(directory / "config.toml"),
        "KZC_AUDIT_LOG": str(directory / "audit.jsonl"),
        "KZC_EXPORT_DIR": str(directory / "exports"),
        "KZC_CRASH_LOG": str(directory / "console-crash.log"),
    }
    env.pop("TMUX", None)
    return env


def new_tmux(directory: Path) -> Tmux:
    """A tmux session (not started yet) with ``terminal_env(directory)``."""
    name = f"kzc-e2e-{uuid.uuid4().hex[:8]}"
    return Tmux(name, terminal_env(directory), directory / f"{name}.status")
