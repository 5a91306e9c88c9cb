"""Whether this terminal can draw the console: a dumb terminal (``TERM=dumb``, no ``TERM``) or an output that
is not a terminal gets one clear line pointing to the commands instead of escape codes; a terminal that goes
away while the console runs (``TerminalGone``) makes it quit, not hang."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TextIO, cast

from textual.app import App
from textual.driver import Driver
from textual.message import Message

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


class TerminalGone(Message):
    """The terminal the console draws on is gone: a write to it failed (the SSH session dropped, the window
    closed). The console quits as on ``q``."""


class TerminalOutput:
    """The console's output file. The first failed write means the terminal is gone: it says so once, then
    drops every write. Textual's writer thread would die on the error instead, and the app would then wait
    for good on its full queue, holding the ZooKeeper session and the history store's lock."""

    def __init__(self, file: TextIO, gone: Callable[[], object]) -> None:
        self._file = file
        self._gone = gone
        self.is_gone = False

    def write(self, text: str) -> int:
        if not self.is_gone:
            with self._failing():
                return self._file.write(text)
        return len(text)

    def flush(self) -> None:
        if not self.is_gone:
            with self._failing():
                self._file.flush()

    @contextmanager
    def _failing(self) -> Iterator[None]:
        try:
            yield
        except BlockingIOError:
            raise
        except OSError:  # EIO: the terminal hung up
            self.is_gone = True
            self._gone()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()


def hangup_safe_driver(app: App[Any]) -> type[Driver] | None:
    """The driver ``app`` runs on: textual's own, its output through ``TerminalOutput`` (``None``: not textual's
    Linux driver, e.g. ``TEXTUAL_DRIVER`` names another)."""
    from textual.drivers.linux_driver import LinuxDriver

    if app.driver_class is not LinuxDriver:
        return None

    class HangupSafeDriver(LinuxDriver):
        def __init__(self, app: App[Any], **kwargs: Any) -> None:
            super().__init__(app, **kwargs)
            output = TerminalOutput(cast(TextIO, self._file), lambda: app.post_message(TerminalGone()))
            self._file = cast(Any, output)  # file-like: the writer thread uses write, flush and fileno

    return HangupSafeDriver
