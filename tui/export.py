"""Exports of what a view shows, as one JSON file per export (the ``e`` key on every screen).

Files go to ``$KZC_EXPORT_DIR``, else ``$XDG_STATE_HOME/kzc/exports`` (``~/.local/state/kzc/exports``),
named ``kzc-<view>-<YYYYmmdd-HHMMSS>.json``; the console shows the full path.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from textual.app import App
from textual.message import Message

from tui.messages import ExportRequested, ExportWritten


def export_dir() -> Path:
    """Where exports are written."""
    if env := os.environ.get("KZC_EXPORT_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kzc" / "exports"


def export_path(view: str, now: float, suffix: str = "json") -> Path:
    """The file an export of ``view`` at ``now`` goes to (unique within the directory)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    safe = "".join(c if c.isalnum() or c in "-_." else "-" for c in view)[:60]
    path = export_dir() / f"kzc-{safe}-{stamp}.{suffix}"
    counter = 1
    while path.exists():
        counter += 1
        path = export_dir() / f"kzc-{safe}-{stamp}-{counter}.{suffix}"
    return path


def write_export(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` as indented JSON (blocking: call it from a worker).

    Raises:
        OSError: the directory or file cannot be written.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(payload, indent=2, default=_default, ensure_ascii=False)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)


def _default(value: object) -> object:
    if isinstance(value, frozenset | set | tuple):
        return sorted(value, key=str) if isinstance(value, frozenset | set) else list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def export_job(view: str, payload: dict[str, Any], now_ms: int, post: Callable[[Message], object]) -> None:
    """Write one export of ``view`` (worker thread); ends in one ``ExportWritten``."""
    path = export_path(view, now_ms / 1000)
    rows = payload.get("rows")
    count = len(rows) if isinstance(rows, list) else 0
    try:
        write_export(path, payload)
    except OSError as exc:
        post(ExportWritten(str(path), count, f"{exc.strerror or exc}"))
        return
    post(ExportWritten(str(path), count))


def run_export(app: App[Any], request: ExportRequested, context: str, now_ms: int) -> None:
    """Export what ``request`` carries, stamped with the ``context`` and the time, in a worker of ``app``."""
    payload = {"kzc_export": request.view, "context": context, "exported_at_ms": now_ms, **request.payload}
    job = partial(export_job, request.view, payload, now_ms, app.post_message)
    app.run_worker(job, thread=True, exit_on_error=False, group="export")
