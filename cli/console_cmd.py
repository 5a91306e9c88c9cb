"""``kzc`` without a command: open the console (Textual is imported only here).

The console always runs on the main thread (Textual installs signal handlers there): ``kzc`` without a
command calls ``open_console`` directly, and a command that ends by opening it (``kzc sandbox up --open``)
returns an ``OpenConsole`` that ``cli.main`` opens through the same function once the command's worker
thread is done.

While the console runs, Python's ``faulthandler`` writes the traceback of every thread to
``crash_log_path()`` if the process dies of a fatal signal (SIGSEGV, SIGABRT, SIGBUS...), so a crash of a
C extension leaves evidence, up to the process's very end (a fault as it exits, after the console closed, too);
kzc prints the path after a run that left such a trace.
"""

from __future__ import annotations

import faulthandler
import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import ConnectionSettings
from core.config_file import load_config
from core.errors import UsageError

if TYPE_CHECKING:
    from core.console.moment import MomentBackend

CRASH_LOG_ENV = "KZC_CRASH_LOG"


@dataclass(frozen=True)
class OpenConsole:
    """What a command returns to have the console opened on ``settings`` after it (on the main thread)."""

    settings: ConnectionSettings


def crash_log_path() -> Path:
    """``$KZC_CRASH_LOG``, else ``$XDG_STATE_HOME/kzc/console-crash.log`` (``~/.local/state/kzc/...``)."""
    explicit = os.environ.get(CRASH_LOG_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kzc" / "console-crash.log"


def open_fleet(config_path: str | None) -> int:
    """Run the console on the fleet screen: every context of the config file (``kzc --fleet``; main thread).

    Raises:
        UsageError: the config file has no context.
    """
    config = load_config(Path(config_path).expanduser() if config_path else None, per_context=True)
    contexts: dict[str, ConnectionSettings | str] = {**config.contexts, **config.broken}
    if not contexts:
        raise UsageError(f"no context in the config file {config.path}: kzc --fleet reads its [contexts.NAME] tables")
    from tui.app import KzcApp

    with _fault_trace():
        KzcApp(ConnectionSettings(), config=config, fleet=contexts).run()
    return 0


def open_console(settings: ConnectionSettings) -> int:
    """Run the Textual console until the user quits; return the exit code (main thread only).

    Raises:
        UsageError: no cluster was named (no --zookeeper, no context).
    """
    if settings.zookeeper is None:
        raise UsageError(
            "no cluster to open: give --zookeeper HOST:PORT[/chroot] or --context NAME "
            "(start a local one with: kzc sandbox up)"
        )
    from tui.app import KzcApp

    with _fault_trace():
        KzcApp(settings).run()
    return 0


def moment_backend(settings: ConnectionSettings, at: str, store_flag: str | None, now_ms: int) -> MomentBackend:
    """The backend of ``kzc --at TIME``: the store ``core.history.location`` names, the context's cluster in
    it (else its only one), checked to hold ``at`` (nothing is opened when it does not).

    Raises:
        UsageError: ``at`` does not parse or is in the future; no store, not a store, an empty one, one
            without the context's cluster; ``at`` before the recording begins.
    """
    from cli.options import past_moment_option
    from core.console.moment import MomentBackend, locate
    from core.history.location import history_place
    from core.history.schema import cluster_key
    from core.history.store import HistoryStore

    at_ms = past_moment_option(at, "--at", now_ms)
    place = history_place(settings, store_flag)
    store = HistoryStore.open(place.require())
    known = store.clusters()
    if not known:
        raise UsageError(f"the history store {store.root} holds no cluster: record one with kzc record")
    if settings.context or settings.zookeeper:
        cluster = place.cluster
        if cluster_key(cluster) not in known:
            raise UsageError(
                f"the history store {store.root} holds no recording of cluster {cluster} (it holds: {', '.join(known)})"
            )
    elif len(known) == 1:
        cluster = known[0]
    else:
        raise UsageError(f"give --context NAME: the history store {store.root} holds {', '.join(known)}")
    locate(store, cluster, at_ms)  # before the recording begins, or nothing of it: refused here
    return MomentBackend(store, cluster, at_ms)


def open_moment(settings: ConnectionSettings, at: str, store_flag: str | None) -> int:
    """Run the console on the cluster as the history store knows it at ``at`` (``kzc --at TIME``; main thread).

    Raises:
        UsageError: as ``moment_backend``.
    """
    backend = moment_backend(settings, at, store_flag, int(time.time() * 1000))
    from tui.app import KzcApp

    with _fault_trace():
        KzcApp(replace(settings, record=False), backend=backend).run()  # a moment is read, never recorded
    return 0


@contextmanager
def _fault_trace() -> Iterator[None]:
    """faulthandler on for the console's run, into the crash log (truncated at each start)."""
    path = crash_log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        trace = path.open("w", encoding="utf-8")
    except OSError:
        yield  # no writable state dir: the console runs without the trace
        return
    was_enabled = faulthandler.is_enabled()  # e.g. pytest's own handler, when a test runs the console in-process
    faulthandler.enable(file=trace, all_threads=True)
    try:
        yield
    finally:
        if was_enabled:  # in-process: the handler it had back, so a later fault still shows its stack
            faulthandler.disable()
            trace.close()
            if sys.__stderr__ is not None:
                faulthandler.enable(file=sys.__stderr__, all_threads=True)
        # Else the handler stays on the trace until the process ends: a fault while it exits (a client library's
        # thread still running as the interpreter shuts down) leaves its trace too.
    if path.stat().st_size:
        print(f"kzc: the console left a fault trace in {path}", file=sys.stderr)
