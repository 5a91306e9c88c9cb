"""What the security commands (``kzc acl``, ``kzc quota``, ``kzc user``) share: the session and audit of a
mutation, the preview-then-confirm step, and reading a password without it ever reaching argv or output."""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cli.confirmation import confirm as typed_confirmation
from core.audit import Attempt, AuditLog
from core.config import ConnectionSettings, cluster_name, read_only_cause
from core.errors import ReadOnlyError, UsageError
from core.zookeeper.kafka_root import open_kafka_session, read_cluster_id
from core.zookeeper.session import ZkSession


@contextmanager
def mutation(
    settings: ConnectionSettings, operation: str, arguments: dict[str, object]
) -> Iterator[tuple[ZkSession, Attempt, AuditLog]]:
    """An audited attempt on a fresh session; read-only mode is refused (and audited) before connecting,
    unless the attempt is a dry run (``arguments["dry_run"]``), which only shows what would be written."""
    audit = AuditLog(cluster_name(settings))
    with audit.attempt(operation, arguments) as attempt:
        cause = read_only_cause(settings)
        if cause is not None and not arguments.get("dry_run"):
            raise ReadOnlyError(f"kzc is read-only ({cause}): refusing every mutation")
        with open_kafka_session(settings) as session:
            audit.cluster_id = read_cluster_id(session)
            yield session, attempt, audit


def confirm(attempt: Attempt, yes: bool, expected: str, what: str) -> None:
    """Typed confirmation of the name ``expected`` before ``what`` (or ``--yes``): ``confirmation.confirm``."""
    typed_confirmation(attempt, yes, expected, "the name", what)


def read_password(password_file: str | None, password_env: str | None) -> tuple[str, str]:
    """The password and where it came from (``file PATH``, ``environment VAR``, ``prompt``), never argv.

    Raises:
        UsageError: an unreadable file, an unset variable, no terminal to prompt on, prompts that differ.
    """
    if password_file is not None:
        try:
            text = Path(password_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read the password file {password_file}: {exc.strerror or exc}") from None
        return text.rstrip("\r\n"), f"file {password_file}"
    if password_env is not None:
        value = os.environ.get(password_env)
        if value is None:
            raise UsageError(f"the environment variable {password_env} is not set")
        return value, f"environment {password_env}"
    if not sys.stdin.isatty():
        raise UsageError("no terminal to prompt for the password: give --password-file FILE or --password-env VAR")
    first = getpass.getpass("New password: ")
    if getpass.getpass("Again: ") != first:
        raise UsageError("the passwords differ: nothing was changed")
    return first, "prompt"
