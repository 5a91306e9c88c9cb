"""Moving between screens, k9s-like: a main screen that is already open is returned to (the screens above
it close), details open on top, Esc goes back down to the root (the cluster screen); and the screens that
change the cluster, refused with the reason when they are not available."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual.app import App
from textual.screen import Screen

from core.console.fixes import FixActions
from core.console.moment import MomentBackend
from core.console.protocols import ClusterBackend
from core.console.security_actions import SecurityActions

ROOT_DEPTH = 2  # Textual's default screen + the cluster screen
S = TypeVar("S", bound=Screen[Any])


def show_screen(app: App[Any], screen_type: type[S], factory: Callable[[], S]) -> S:
    """Go back to an open screen of ``screen_type``, else push a new one from ``factory``."""
    stack = app.screen_stack
    for index in range(len(stack) - 1, -1, -1):
        found = stack[index]
        if isinstance(found, screen_type):
            for _ in range(len(stack) - 1 - index):
                app.pop_screen()
            return found
    screen = factory()
    app.push_screen(screen)
    return screen


def go_back(app: App[Any]) -> None:
    """One screen down, never below the root."""
    if len(app.screen_stack) > ROOT_DEPTH:
        app.pop_screen()


def pop_to_root(app: App[Any]) -> None:
    """Close every screen above the root."""
    while len(app.screen_stack) > ROOT_DEPTH:
        app.pop_screen()


def read_only_why(backend: ClusterBackend) -> str:
    """Why ``backend`` refuses every mutation: a recorded moment (``kzc --at``), else ``--read-only``."""
    return "a recorded moment" if isinstance(backend, MomentBackend) else "started with --read-only"


def refused(app: App[Any], read_only: bool, what: str, why: str = "started with --read-only") -> bool:
    """Whether read-only mode refuses ``what`` (a mutation); says so, and ``why``, when it does."""
    if read_only:
        app.notify(f"read-only mode: {what} is not available ({why})", severity="warning")
    return read_only


def fix_actions(app: App[Any], backend: ClusterBackend, what: str) -> FixActions | None:
    """The backend's fix actions, or None after saying why ``what`` is not available here."""
    if refused(app, backend.read_only, what, read_only_why(backend)):
        return None
    fixes = backend.fix_actions()
    if fixes is None:
        app.notify(f"{what}: not available here (a recording, or not connected yet)", severity="warning")
    return fixes


def security_actions(app: App[Any], backend: ClusterBackend, what: str) -> SecurityActions | None:
    """The backend's ACL and SCRAM changes, or None after saying why ``what`` is not available. Read-only mode
    opens the forms: their preview is the CLI's ``--dry-run``, and applying refuses with the CLI's message."""
    actions = backend.security_actions()
    if actions is None:
        app.notify(f"{what}: not available here (a recording, or not connected yet)", severity="warning")
    return actions
