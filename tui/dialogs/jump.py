"""``JumpDialog``: ask for a znode path; dismisses with the path, or ``None`` when cancelled."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class JumpDialog(ModalScreen[str | None]):
    """One input line for an absolute znode path (relative to the Kafka chroot)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="cancel_dialog")]
    DEFAULT_CSS = """
    JumpDialog { align: center middle; }
    JumpDialog > Vertical { width: 90%; max-width: 100; height: auto; border: round $primary;
                            background: $surface; padding: 0 1; }
    JumpDialog Label { width: 1fr; height: auto; }
    JumpDialog Input, JumpDialog Input:focus { height: 3; }
    JumpDialog #jump-problem { color: $error; }
    """

    def __init__(self, current: str) -> None:
        super().__init__()
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(
                "Jump to znode: a path under the Kafka chroot, e.g. /brokers/topics/orders (Enter jumps, Esc cancels)"
            )
            yield Input(self._current, id="jump-path")
            yield Label("", id="jump-problem")

    def on_mount(self) -> None:
        self.query_one(Input).cursor_blink = False  # no frame every half second over SSH

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        path = event.value.strip()
        problem = path_problem(path)
        if problem:
            self.query_one("#jump-problem", Label).update(problem)
            return
        self.dismiss(normalize_path(path))

    def action_cancel(self) -> None:
        """Close without jumping."""
        self.dismiss(None)


def path_problem(path: str) -> str | None:
    """Why ``path`` is not a znode path, or ``None``."""
    if not path.startswith("/"):
        return "a znode path starts with /"
    if "//" in path.rstrip("/") or any(part in (".", "..") for part in path.split("/")):
        return "empty, '.' or '..' path segments are not allowed"
    return None


def normalize_path(path: str) -> str:
    """``/a/b/`` as ``/a/b``; ``/`` stays."""
    stripped = path.rstrip("/")
    return stripped or "/"
