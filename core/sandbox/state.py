"""A sandbox's state file, ``sandbox.json``: its ports, versions and the PIDs of its processes, rewritten whole
(to a temporary file, then renamed) at every change so a reader never sees half of it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core.errors import SandboxError

STATE_FILE = "sandbox.json"


class SandboxState:
    """``sandbox.json`` of the sandbox in ``directory``."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.path = directory / STATE_FILE

    def exists(self) -> bool:
        """Whether a sandbox was ever started in the directory."""
        return self.path.exists()

    def read(self) -> dict[str, Any]:
        """The whole state.

        Raises:
            SandboxError: there is no sandbox in the directory, or its state is unreadable.
        """
        try:
            data: dict[str, Any] = json.loads(self.path.read_text())
        except FileNotFoundError:
            raise SandboxError(f"no sandbox in {self.dir} (start one with: kzc sandbox up --dir {self.dir})") from None
        except (OSError, ValueError) as exc:
            raise SandboxError(f"unreadable {self.path}: {exc}") from exc
        return data

    def save(self, raw: dict[str, Any]) -> None:
        """Replace the whole state."""
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(raw, indent=2) + "\n")
        tmp.replace(self.path)

    def update(self, **changes: Any) -> None:
        """Replace some top-level keys."""
        self.save({**self.read(), **changes})

    def section(self, key: str) -> dict[str, Any]:
        """A section kept by another part of the sandbox (e.g. ``migration``); empty when there is none."""
        return dict(self.read().get(key, {}))

    def set_broker_pid(self, broker_id: int, pid: int | None) -> None:
        """Record (or clear, with None) a broker's PID."""
        self._set_pid("brokers", broker_id, pid)

    def set_zookeeper_pid(self, server_id: int, pid: int | None) -> None:
        """Record (or clear) the PID of a server of the ZooKeeper ensemble."""
        self._set_pid("ensemble", server_id, pid)

    def processes(self) -> dict[str, int | None]:
        """The processes beyond ZooKeeper and the brokers (a KRaft controller), by name, with their PID or None."""
        return dict(self.read().get("processes", {}))

    def set_process(self, name: str, pid: int | None) -> None:
        """Record (or clear, with None) the PID of a named extra process, so ``Sandbox.down`` stops it."""
        raw = self.read()
        raw["processes"] = {**raw.get("processes", {}), name: pid}
        self.save(raw)

    def _set_pid(self, key: str, member: int, pid: int | None) -> None:
        raw = self.read()
        for entry in raw.get(key, []):
            if entry["id"] == member:
                entry["pid"] = pid
        self.save(raw)
