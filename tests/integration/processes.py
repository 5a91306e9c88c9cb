"""Processes as ``/proc`` shows them, for tests that check what kzc started has ended."""

from __future__ import annotations

from pathlib import Path

from core.sandbox.processes import pid_alive as alive

__all__ = ["alive", "children", "command_line", "descendants"]


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (started from any of its threads)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    result = [pid]
    for child in children(pid):
        result += descendants(child)
    return result


def command_line(pid: int) -> str:
    """``pid``'s command line, its arguments joined by spaces ("" once it has ended)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""
