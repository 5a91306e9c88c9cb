"""The kzc console: wires a ``ClusterBackend`` to the screens, themes, key map and command palette.

``KzcApp`` is assembled from three parts: ``tui.app_live`` (connection, events, view refresh),
``tui.app_navigation`` (moving between screens) and ``tui.app_tasks`` (checks, exports). Backend
callbacks only post messages; slow work runs in workers that end in one message; one
``Worker.StateChanged`` handler turns any worker failure into a visible message, never a crash.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable
from typing import ClassVar

from textual import on, work
from textual.binding import Binding, BindingType
from textual.worker import Worker, WorkerState

from core.config import ConnectionSettings, UserConfig, config_dir, load_config, resolve_settings
from core.console.protocols import ClusterBackend
from core.console.view import ClusterView, ViewBuilder
from core.errors import KzcError
from core.zookeeper.session import ConnectionState
from themes import choose_theme, load_themes
from tui.app_live import LiveUpdates
from tui.app_navigation import Navigation
from tui.app_tasks import Tasks
from tui.checks_run import ChecksFinished, ChecksRun
from tui.commands import KzcCommands
from tui.keymap import BindingInfo, catalog, check_keymap
from tui.screens import SCREEN_CLASSES
from tui.screens.cluster import ClusterScreen
from tui.screens.help import HelpScreen
from tui.widgets.event_log import LogLine
from tui.widgets.status_bar import StatusBar, StatusInfo

MAX_EVENTS = 2000


class KzcApp(LiveUpdates, Navigation, Tasks):
    """The console for one cluster (``context NAME`` switches to another).

    Args:
        settings: the connection (from flags and the config file).
        config: the parsed config file (themes, ``[keys]``, contexts); read from the default place if None.
        backend: what to show; a ``ZkBackend`` for ``settings`` if None (tests pass a recorded one).
        clock: seconds since the epoch (tests freeze it).
    """

    TITLE = "kzc"
    CSS_PATH = "app.tcss"
    COMMANDS = {KzcCommands}
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("colon", "command_palette", "Command", id="command_palette"),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("escape", "back", "Back", id="back"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("c", "open('cluster')", "Cluster", show=False, id="show_cluster"),
        Binding("t", "open('topics')", "Topics", show=False, id="show_topics"),
        Binding("z", "open('zk')", "ZooKeeper", show=False, id="show_zookeeper"),
        Binding("x", "open('checks')", "Checks", show=False, id="show_checks"),
    ]

    def __init__(
        self,
        settings: ConnectionSettings,
        *,
        config: UserConfig | None = None,
        backend: ClusterBackend | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__()
        # Over SSH every animation frame is bytes on the wire (a smooth scroll sent ~120 KB per key): none.
        self.animation_level = "none"
        self.settings = settings
        self.config_problems: list[str] = []
        if config is None:
            try:
                config = load_config()
            except KzcError as exc:
                self.config_problems.append(str(exc))
                config = UserConfig()
        self.user_config = config
        self.backend = backend if backend is not None else _real_backend(settings)
        self.clock = clock
        self.theme_set = load_themes(config_dir() / "themes")
        self.checks = ChecksRun()
        self.last_export = None
        self._reset_cluster_state()

    def _reset_cluster_state(self) -> None:
        self.view: ClusterView | None = None
        self.event_lines: deque[LogLine] = deque(maxlen=MAX_EVENTS)
        self.controller_moves = 0
        self.status_info = StatusInfo(self.backend.name, ConnectionState.CONNECTING, read_only=self.read_only)
        self._builder = ViewBuilder()
        self._refresh_pending = self._refreshing = False
        self._seq = 0
        self._generation = getattr(self, "_generation", -1) + 1

    @property
    def read_only(self) -> bool:
        """Whether every mutation is hidden and refused."""
        return self.backend.read_only

    def now_ms(self) -> int:
        """Now, from the app's clock (frozen in snapshot tests)."""
        return int(self.clock() * 1000)

    def on_mount(self) -> None:
        self.config_problems.extend(self.theme_set.problems)
        for theme in self.theme_set.themes.values():
            self.register_theme(theme)
        requested = self.user_config.theme
        if requested is not None and requested not in self.theme_set.themes:
            self.config_problems.append(
                f"theme '{requested}' not found (built in: dark, light, high-contrast, "
                "monochrome; add yours as themes/<name>.toml in the config directory)"
            )
        colours = {"truecolor": 2**24, "256": 256}.get(self.console.color_system or "", 16)
        self.theme = choose_theme(requested, self.theme_set.themes, "NO_COLOR" in os.environ or self.no_color, colours)
        keys = dict(self.user_config.keys)
        self.config_problems.extend(check_keymap(keys, {b.id for b in self.all_bindings()}))
        self.set_keymap(keys)
        for problem in self.config_problems:
            self.notify(problem, severity="error", timeout=15)
        self.push_screen(ClusterScreen())
        self.connect_backend()

    def on_screen_resume(self) -> None:
        for bar in self.screen.query(StatusBar):
            bar.show(self.status_info)

    def all_bindings(self) -> list[BindingInfo]:
        """Every binding of the console, with the user's remaps applied (for ``?``)."""
        return catalog([("everywhere", type(self)), *SCREEN_CLASSES], dict(self.user_config.keys))

    def action_help(self) -> None:
        """Every binding, with remaps."""
        self.push_screen(HelpScreen(self.all_bindings()))

    def use_theme(self, name: str) -> None:
        """Switch theme."""
        self.theme = name

    def switch_context(self, name: str) -> None:
        """Close this cluster and open context ``name`` of the config file."""
        try:
            settings = resolve_settings(self.user_config, context=name)
        except KzcError as exc:
            self.notify(str(exc), severity="error")
            return
        old = self.backend
        self.settings = settings
        self.backend = _real_backend(settings)
        self._reset_cluster_state()
        self.pop_to_root()
        self.set_status()
        self.close_backend(old)
        self.connect_backend()

    @work(thread=True, exit_on_error=False, group="close")
    def close_backend(self, backend: ClusterBackend) -> None:
        """Close a backend off the UI thread."""
        backend.close()

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        """The one place worker failures become visible messages, never a crash."""
        if event.state is WorkerState.ERROR and event.worker.error is not None:
            error = event.worker.error
            text = str(error) if isinstance(error, KzcError) else f"{type(error).__name__}: {error}"
            self.notify(text, severity="error", timeout=10)
            if event.worker.group == "checks":
                self.post_message(ChecksFinished(None, text))  # else the run would stay "running" for good

    def on_unmount(self) -> None:
        self.backend.close()


def _real_backend(settings: ConnectionSettings) -> ClusterBackend:
    from core.console.zk import ZkBackend

    return ZkBackend(settings)
