"""Whether this terminal can draw the console: a dumb terminal (``TERM=dumb``, no ``TERM``) or an output that
is not a terminal gets one clear line pointing to the commands instead of escape codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from core.errors import UsageError

CLI_HINT = "use the commands instead: kzc describe, kzc topic, kzc zk, kzc watch, kzc check (kzc --help)"


def terminal_problem(env: Mapping[str, str], is_tty: bool) -> str | None:
    """Why the console cannot be drawn here, or ``None``."""
    term = env.get("TERM", "")
    if term in ("", "dumb", "unknown"):
        shown = f"TERM={term}" if term else "no TERM set"
        return f"this terminal cannot draw the console ({shown}); {CLI_HINT}"
    if not is_tty:
        return f"the console needs a terminal (output is not one); {CLI_HINT}"
    return None


def check_terminal() -> None:
    """Raise ``UsageError`` (one line, pointing to the commands) where the console cannot be drawn."""
    problem = terminal_problem(os.environ, sys.__stdout__ is not None and sys.__stdout__.isatty())
    if problem:
        raise UsageError(problem)
