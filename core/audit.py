"""The local audit log: one JSON line per mutation attempt, and an intent line before every write.

The file is ``$KZC_AUDIT_LOG`` if set, else ``<config dir>/audit.jsonl`` (``core.config_file.config_dir``,
normally ``~/.config/kzc/audit.jsonl``). Each line is a JSON object::

    {"time": "2024-05-01T12:00:00.123Z", "user": "alice", "host": "bastion-1", "cluster": "zk1:2181/kafka",
     "cluster_id": "MkU3OEVBNTcwNTJENDM2Qg",
     "operation": "topic delete", "arguments": {...}, "outcome": "applied", "message": "...", "details": {...}}

``outcome`` is one of ``applied``, ``dry-run``, ``refused`` (bad arguments, a guard, Kafka's rules, the
brokers' refusal or a lost race said no; nothing was written), ``cancelled`` (the user did not confirm),
``failed`` (the cluster could not be reached, or the write itself failed) and ``interrupted``.
``sudo_user`` is added when kzc runs under sudo. Lines are appended under an exclusive ``flock``, so
concurrent kzc processes never interleave them.

``AuditLog.attempt`` is the one way mutations are recorded: the file is opened *before* anything is
attempted (a log that cannot be written stops the mutation with a clear error) and exactly one outcome
line is written when the attempt ends, whatever the outcome. An attempt that reaches the cluster first
writes an ``intent`` line (``Attempt.intent``: what is about to be sent, and the before-state of what it
changes) and then its outcome line, both with the same ``id``: a run killed while writing leaves its intent.
Ctrl-C (``core.interrupt``) records the attempt in progress as ``interrupted``.
"""

from __future__ import annotations

import fcntl
import getpass
import json
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core.config_file import config_dir
from core.errors import ConcurrentChangeError, GuardError, KafkaRuleError, KzcError, UsageError
from core.interrupt import interrupted, on_interrupt

AUDIT_ENV = "KZC_AUDIT_LOG"
OUTCOMES = ("applied", "dry-run", "refused", "cancelled", "failed", "interrupted")
INTENT = "intent"  # the outcome field of an intent line: the write is about to be sent


def audit_log_path() -> Path:
    """Where audit lines go: ``$KZC_AUDIT_LOG``, else ``<config dir>/audit.jsonl``."""
    if env := os.environ.get(AUDIT_ENV):
        return Path(env).expanduser()
    return config_dir() / "audit.jsonl"


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry and no LOGNAME/USER: a container with an arbitrary uid
        return f"uid {os.getuid()}"


@dataclass
class Attempt:
    """One mutation attempt in progress; the code doing it sets the outcome before the block ends.

    If the block ends without an outcome, the attempt is recorded as ``failed`` (an error the code did
    not expect) or ``interrupted`` (Ctrl-C).
    """

    operation: str
    arguments: Mapping[str, Any]
    outcome: str | None = None
    message: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    _emit: Callable[[Attempt, str, str, Mapping[str, Any]], None] | None = field(default=None, repr=False)

    def intent(self, message: str, **details: Any) -> None:
        """Write the intent line now, before the write is sent (``details``: plan, before-state).

        Raises:
            KzcError: the line cannot be written (then nothing must be sent).
        """
        if self._emit is not None:
            self._emit(self, INTENT, message, details)

    def applied(self, message: str, **details: Any) -> None:
        """The mutation was sent to the cluster."""
        self._set("applied", message, details)

    def dry_run(self, message: str, **details: Any) -> None:
        """Only a preview was shown; nothing was written."""
        self._set("dry-run", message, details)

    def cancelled(self, message: str) -> None:
        """The user did not confirm; nothing was written."""
        self._set("cancelled", message, {})

    def refused(self, message: str, **details: Any) -> None:
        """Something said no (the brokers, a guard); nothing was written."""
        self._set("refused", message, details)

    def describe(self, arguments: Mapping[str, Any]) -> None:
        """Replace the recorded arguments (the raw ones first, the parsed ones once they parse)."""
        self.arguments = dict(arguments)

    def _settle(self, outcome: str, message: str) -> None:
        """Set the outcome for an exception, unless the code already recorded one (e.g. ``cancelled``)."""
        if self.outcome is None:
            self._set(outcome, message, {})

    def _set(self, outcome: str, message: str, details: Mapping[str, Any]) -> None:
        self.outcome = outcome
        self.message = message
        self.details.update(details)


class AuditLog:
    """Appends audit lines for one cluster to the audit file.

    Args:
        cluster: how the cluster is named in every line (connect string, context).
        path: the file; ``audit_log_path()`` by default.
    """

    def __init__(self, cluster: str, path: Path | None = None) -> None:
        self.cluster = cluster
        self.path = path or audit_log_path()
        # /cluster/id, set once the command has connected (``core.zookeeper.kafka_root``): every line after
        # that names the cluster by id as well as by connect string.
        self.cluster_id: str | None = None

    @contextmanager
    def attempt(self, operation: str, arguments: Mapping[str, Any]) -> Iterator[Attempt]:
        """Record exactly one line for the mutation attempted inside the ``with`` block.

        A ``UsageError``, ``GuardError``, ``KafkaRuleError`` or ``ConcurrentChangeError`` escaping the block
        is recorded as ``refused``, any other ``KzcError`` as ``failed``, ``KeyboardInterrupt`` as
        ``interrupted``; the exception propagates.

        Raises:
            KzcError: the audit file cannot be opened for appending (checked before the block runs, so
                nothing is attempted without a record).
        """
        handle = self._open()
        attempt = Attempt(operation, dict(arguments))
        lock = threading.Lock()
        done = False

        def emit(which: Attempt, outcome: str, message: str, details: Mapping[str, Any]) -> None:
            with lock:
                if not done:
                    self._write(handle, which, outcome, message, details)

        def finish() -> None:
            nonlocal done
            with lock:
                if done:
                    return
                done = True
                try:
                    attempt._settle("failed", "the attempt ended without an outcome")
                    self._write(handle, attempt)
                finally:
                    handle.close()

        def on_ctrl_c() -> None:
            attempt._settle("interrupted", "interrupted by the user (Ctrl-C)")
            finish()

        attempt._emit = emit
        unregister = on_interrupt(on_ctrl_c)
        try:
            yield attempt
        except (UsageError, GuardError, KafkaRuleError, ConcurrentChangeError) as exc:
            attempt._settle("refused", str(exc))
            raise
        except KzcError as exc:
            attempt._settle("failed", str(exc))
            raise
        except KeyboardInterrupt:
            attempt._settle("interrupted", "interrupted by the user (Ctrl-C)")
            raise
        except BaseException as exc:
            attempt._settle("failed", f"{type(exc).__name__}: {exc}")
            raise
        finally:
            unregister()
            if interrupted() and attempt.outcome != "applied":
                attempt.outcome = None  # the worker's error after Ctrl-C is a consequence of it
                attempt._settle("interrupted", "interrupted by the user (Ctrl-C)")
            finish()

    def record(self, attempt: Attempt) -> None:
        """Append one line for an attempt that was handled outside ``attempt()``."""
        handle = self._open()
        try:
            self._write(handle, attempt)
        finally:
            handle.close()

    def _open(self) -> Any:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return self.path.open("a", encoding="utf-8")
        except OSError as exc:
            raise KzcError(
                f"cannot write the audit log {self.path}: {exc.strerror or exc}; nothing was changed "
                f"(set {AUDIT_ENV} to a writable file)"
            ) from exc

    def _write(
        self,
        handle: Any,
        attempt: Attempt,
        outcome: str | None = None,
        message: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        """One line: the attempt's outcome, or (``outcome`` given) an intent line with its own details."""
        line: dict[str, Any] = {
            "time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "id": attempt.id,
            "user": _user(),
            "host": socket.gethostname(),
            "cluster": self.cluster,
            **({"cluster_id": self.cluster_id} if self.cluster_id else {}),
            "operation": attempt.operation,
            "arguments": attempt.arguments,
            "outcome": outcome or attempt.outcome,
            "message": message if outcome else attempt.message,
        }
        if sudo_user := os.environ.get("SUDO_USER"):
            line["sudo_user"] = sudo_user
        shown = details if outcome else attempt.details
        if shown:
            line["details"] = dict(shown)
        text = json.dumps(line, separators=(",", ":"), default=str) + "\n"
        # One write under an exclusive lock: concurrent kzc processes append whole lines.
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                handle.write(text)
                handle.flush()
            finally:
                fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
        except OSError as exc:
            raise KzcError(
                f"cannot append to the audit log {self.path}: {exc.strerror or exc} "
                f"(the {attempt.operation} attempt: {outcome or attempt.outcome})"
            ) from exc


@dataclass(frozen=True)
class AuditRead:
    """The audit file's lines as read: ``missing`` when there is no file, ``torn`` the lines that are not JSON
    (a writer killed mid-line leaves its last line torn): skipped, and counted so a reader can say so."""

    path: Path
    lines: tuple[dict[str, Any], ...]
    missing: bool = False
    torn: int = 0


def read_audit(path: Path | None = None) -> AuditRead:
    """Every line of the audit file (intents included) that parses; see ``AuditRead``."""
    target = path or audit_log_path()
    try:
        text = target.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return AuditRead(target, (), missing=True)
    lines: list[dict[str, Any]] = []
    torn = 0
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            torn += 1
            continue
        if isinstance(line, dict):
            lines.append(line)
        else:
            torn += 1
    return AuditRead(target, tuple(lines), torn=torn)


def read_audit_log(path: Path | None = None, intents: bool = False) -> list[dict[str, Any]]:
    """The outcome lines of the audit file as dicts (a missing file is empty, a torn line skipped); ``intents``:
    every line."""
    lines = list(read_audit(path).lines)
    return lines if intents else [line for line in lines if line.get("outcome") != INTENT]
