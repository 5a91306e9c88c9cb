"""Audit lines for mutation attempts that end before their command runs.

A ``kzc topic create|expand|delete`` whose options argparse rejects, or whose connect string, context or
credentials are refused, never reaches the command's own audit attempt; it is recorded here as
``refused`` with the command line as typed (secrets masked), so every attempt leaves a line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from core.audit import Attempt, AuditLog
from core.errors import KzcError

MUTATIONS = {"topic": ("create", "expand", "delete")}
# Options whose value is a secret: the audit line shows that they were given, not their value.
SECRET_OPTIONS = ("--zk-auth", "--zk-sasl-password", "--kafka-sasl-password")


def mutation_of(arguments: Sequence[str]) -> str | None:
    """``"topic create"`` (etc.) when ``arguments`` ask for a mutation, else None."""
    for i, token in enumerate(arguments[:-1]):
        if token in MUTATIONS and arguments[i + 1] in MUTATIONS[token]:
            return f"{token} {arguments[i + 1]}"
    return None


def masked(arguments: Sequence[str]) -> list[str]:
    """``arguments`` with the values of secret options replaced by ``***``."""
    shown: list[str] = []
    hide_next = False
    for token in arguments:
        if hide_next:
            shown.append("***")
            hide_next = False
        elif token in SECRET_OPTIONS:
            shown.append(token)
            hide_next = True
        elif any(token.startswith(f"{option}=") for option in SECRET_OPTIONS):
            shown.append(token.split("=", 1)[0] + "=***")
        else:
            shown.append(token)
    return shown


def audit_rejected(arguments: Sequence[str], message: str, args: argparse.Namespace | None = None) -> None:
    """Record a mutation attempt refused before its command ran; anything else is not a mutation.

    A failure to write the line is reported on stderr: the command is refused anyway.
    """
    operation = mutation_of(arguments)
    if operation is None:
        return
    cluster = _cluster(arguments, args)
    attempt = Attempt(operation, {"command_line": masked(arguments)})
    attempt.refused(message)
    try:
        AuditLog(cluster).record(attempt)
    except KzcError as exc:
        print(f"kzc: warning: {exc}", file=sys.stderr)


def _cluster(arguments: Sequence[str], args: argparse.Namespace | None) -> str:
    """The cluster as typed: ``--zookeeper`` or ``--context``, whatever parses or not."""
    named: dict[str, str] = {}
    for i, token in enumerate(arguments):
        for option in ("--zookeeper", "--context"):
            if token == option and i + 1 < len(arguments):
                named[option] = arguments[i + 1]
            elif token.startswith(f"{option}="):
                named[option] = token.split("=", 1)[1]
    if args is not None:
        named.setdefault("--zookeeper", getattr(args, "zookeeper", None) or "")
        named.setdefault("--context", getattr(args, "context", None) or "")
    zookeeper = named.get("--zookeeper") or "no ZooKeeper"
    context = named.get("--context")
    return f"{context} ({zookeeper})" if context else zookeeper
