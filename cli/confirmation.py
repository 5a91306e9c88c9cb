"""The one typed confirmation before a change: ``--yes``, or the operator types back what the prompt names
(a topic name, a count, a principal); anything else cancels, audited, and changes nothing."""

from __future__ import annotations

import sys
from typing import TextIO

from core.audit import Attempt
from core.errors import GuardError, KzcError


class Cancelled(KzcError):
    """The user did not confirm; nothing was changed."""

    exit_code = 1


def ask(prompt: str, stdin: TextIO, out: TextIO) -> str | None:
    """Print ``prompt`` and read one line; None at end of input."""
    out.write(prompt)
    out.flush()
    line = stdin.readline()
    return None if not line else line.rstrip("\n")


def confirm(attempt: Attempt, yes: bool, expected: str, what: str, verb: str, *, yes_allowed: bool = True) -> None:
    """Let ``verb`` go ahead once the operator typed ``expected`` (``what`` names it: "the topic name"), or
    with ``yes`` (``--yes``). ``yes_allowed=False``: the refusal without a terminal does not suggest ``--yes``.

    Raises:
        GuardError: stdin is not a terminal and no ``--yes``.
        Cancelled: the answer did not match (audited as cancelled).
    """
    if yes:
        return
    if not sys.stdin.isatty():
        hint = (
            "; add --yes to confirm non-interactively (after checking the plan with --dry-run)"
            if yes_allowed
            else " (type it in a terminal)"
        )
        raise GuardError(f"refusing to {verb} without confirmation: stdin is not a terminal{hint}")
    answer = ask(f"Type {what} ({expected}) to {verb}: ", sys.stdin, sys.stderr)
    if answer is None or answer.strip() != expected:
        attempt.cancelled(f"confirmation did not match (expected {expected!r})")
        raise Cancelled(f"confirmation did not match '{expected}': nothing was changed")
