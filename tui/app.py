"""The kzc console: wires a ``ClusterBackend`` to the screens, themes, key map and command palette.

Attributes down, messages up: each screen gets the protocol it uses when it is built here (the only
module that knows every screen) and posts ``tui.messages`` for navigation and results. Backend callbacks
only post messages; slow work runs in workers (``tui.live_link``, ``tui.checks_run``, ``tui.export``) that
end in one message; one ``Worker.StateChanged`` handler turns any worker failure into a visible message.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from contextlib import suppress
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar, TypeVar, cast

from textual import on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import Worker, WorkerState

from core.config import ConnectionSettings, UserConfig, resolve_settings
from core.console.fixes import FixActions
from core.console.protocols import ClusterBackend
from core.console.view import ClusterView, ViewBuilder
from core.errors import KzcError, UsageError
from core.topics.plan import DeleteRequest
from core.zookeeper.session import ConnectionState
from tui import messages as m
from tui.checks_run import QUIT_WAIT_S, ChecksFinished, ChecksProgressed, ChecksRun, HasCheckEngines, checks_job
from tui.commands import KzcCommands, KzcPalette
from tui.export import export_job
from tui.journal import EventJournal
from tui.keymap import BindingInfo, catalog
from tui.live_link import LiveMessage, RefreshGate, build_view_job, connect_job, live_outcome
from tui.navigation import go_back, pop_to_root, show_screen
from tui.screens import SCREEN_CLASSES
from tui.screens.base import KzcScreen
from tui.screens.checks import ChecksScreen
from tui.screens.cluster import ClusterScreen
from tui.screens.config_edit import ConfigEditScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.elect_preferred import ElectPreferredScreen
from tui.screens.expand import ExpandScreen
from tui.screens.groups import GroupDetailScreen, GroupsScreen
from tui.screens.help import HelpScreen
from tui.screens.move_off import MoveOffScreen
from tui.screens.partitions import PartitionSelection, PartitionsScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.screens.topics import TopicsScreen
from tui.screens.zk_browser import ZkBrowserScreen
from tui.setup import apply_config, read_config
from tui.terminal import terminal_problem
from tui.widgets.status_bar import StatusBar, StatusInfo

S = TypeVar("S", bound=KzcScreen)


class KzcApp(App[None]):
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
        Binding("g", "open('groups')", "Groups", show=False, id="show_groups"),
    ]

    def __init__(self, settings: ConnectionSettings, *, config: UserConfig | None = None,
                 backend: ClusterBackend | None = None, clock: Callable[[], float] = time.time,
                 warm_spark: bool | None = None) -> None:  # fmt: skip
        super().__init__()
        # The console of the CLI starts the Spark worker as it opens (tests that pass a backend do not).
        self.warm_spark = backend is None if warm_spark is None else warm_spark
        # Over SSH every animation frame is bytes on the wire (a smooth scroll sent ~120 KB per key): none.
        self.animation_level = "none"
        self.settings = settings
        self.user_config, self.theme_set, self.config_problems = read_config(config)
        self.backend = backend if backend is not None else _real_backend(settings)
        self.clock = clock
        self.checks = ChecksRun()
        self._checks_redraw_due = False
        self.last_export: str | None = None
        self._generation = -1
        self._reset_cluster_state()

    def run(self, *args: Any, **kwargs: Any) -> None:
        """Run the console; raises ``UsageError`` (one line, pointing to the CLI) where it cannot be drawn."""
        problem = terminal_problem(os.environ, sys.__stdout__ is not None and sys.__stdout__.isatty())
        if problem:
            raise UsageError(problem)
        super().run(*args, **kwargs)

    def _reset_cluster_state(self) -> None:
        self.view: ClusterView | None = None
        self.journal = EventJournal()
        self.status_info = StatusInfo(self.backend.name, ConnectionState.CONNECTING, read_only=self.read_only)
        self._builder = ViewBuilder()
        self._gate = RefreshGate(self._start_refresh)
        self._generation += 1

    @property
    def read_only(self) -> bool:
        """Whether every mutation is hidden and refused."""
        return self.backend.read_only

    def now_ms(self) -> int:
        """Now, from the app's clock (frozen in snapshot tests)."""
        return int(self.clock() * 1000)

    def on_mount(self) -> None:
        ids = {b.id for b in self.all_bindings()}
        self.config_problems.extend(apply_config(self, self.user_config, self.theme_set, ids))
        for problem in self.config_problems:
            self.notify(problem, severity="error", timeout=15)
        self.push_screen(self._cluster_screen())
        self.connect_backend()
        self._warm_up_checks()

    def _warm_up_checks(self) -> None:
        """Start the Spark worker off the UI thread, so the first run rarely waits on a JVM."""
        if self.warm_spark and isinstance(self.backend, HasCheckEngines):
            engines = self.backend.check_engines

            def warm() -> None:
                with suppress(KzcError):  # e.g. no Java: said when the user runs the Spark checks, not at start
                    engines.warm_up()

            self.run_worker(warm, thread=True, exit_on_error=False, group="warm")

    def on_screen_resume(self) -> None:
        for bar in self.screen.query(StatusBar):
            bar.show(self.status_info)

    def action_command_palette(self) -> None:
        """The palette, with a plain ``:`` for its icon."""
        if self.use_command_palette and not KzcPalette.is_open(cast(App[object], self)):
            self.push_screen(KzcPalette(id="--command-palette"))

    # ---- what the palette asks (tui.commands.PaletteTarget) ------------------------------------------

    def all_bindings(self) -> list[BindingInfo]:
        """Every binding of the console, with the user's remaps applied (for ``?``)."""
        return catalog([("everywhere", type(self)), *SCREEN_CLASSES], dict(self.user_config.keys))

    def action_help(self) -> None:
        """Every binding, with remaps."""
        self.push_screen(HelpScreen(self.all_bindings(), self.read_only))

    def topic_names(self) -> list[str]:
        """Every topic of the latest view, sorted."""
        return sorted(self.view.snapshot.topics) if self.view is not None else []

    def context_names(self) -> list[str]:
        """The config file's contexts."""
        return sorted(self.user_config.contexts)

    def theme_names(self) -> list[str]:
        """Every theme (built in and the user's)."""
        return sorted(self.theme_set.themes)

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
        old, self.settings, self.backend = self.backend, settings, _real_backend(settings)
        self._reset_cluster_state()
        pop_to_root(self)
        self.set_status()
        self.run_worker(old.close, thread=True, exit_on_error=False, group="close")
        self.connect_backend()
        self._warm_up_checks()

    # ---- live: connection, events, view refresh ------------------------------------------------------

    def connect_backend(self) -> None:
        """Connect and take the first snapshot in a worker."""
        job = partial(connect_job, self.backend, self._generation, self.post_message)
        self.run_worker(job, thread=True, exclusive=True, exit_on_error=False, group="connect")

    @on(m.BackendConnected)
    @on(m.SnapshotUpdated)
    @on(m.ConnectFailed)
    @on(m.ConnectionChanged)
    @on(m.ClusterEventSeen)
    def _live(self, message: LiveMessage) -> None:
        if message.generation != self._generation:
            return  # from the cluster of before a context switch
        outcome = live_outcome(message, self.now_ms(), self.view is not None)
        self.journal.controller_moves += outcome.controller_moved
        if outcome.status:
            self.set_status(**outcome.status)
        if outcome.log:
            self.append_event(*outcome.log)
        if outcome.notice:
            self.notify(outcome.notice, severity="error", timeout=30)
        if outcome.refresh:
            self._gate.request()

    def append_event(self, at_ms: int, text: str, severity: str, topic: str | None = None,
                     path: str | None = None) -> None:  # fmt: skip
        """Add a line to the event log (shown at once if the cluster screen is up)."""
        self.journal.append(at_ms, text, severity, topic, path)
        if self.screen_stack and isinstance(self.screen, ClusterScreen):
            self.screen.show_events()

    def _start_refresh(self) -> None:
        backend, now, generation = self.backend, self.now_ms(), self._generation

        def job() -> None:
            try:
                build_view_job(backend, self._builder, now, lambda: self.screen, generation, self.post_message)
            finally:
                self.call_from_thread(self._gate.done)

        self.run_worker(job, thread=True, exit_on_error=False, group="view")

    @on(m.ViewRefreshed)
    def _view_refreshed(self, message: m.ViewRefreshed) -> None:
        if message.generation != self._generation or not self.screen_stack:
            return  # from before a context switch, or the app is closing (a slow worker finished late)
        view = self.view = message.view
        changes: dict[str, Any] = {"controller": view.controller.broker_id, "epoch": view.controller.epoch}
        changes["full_read_ms"] = view.snapshot.full_read_ms
        if self.status_info.state is ConnectionState.CONNECTED:
            changes["note"] = f"{message.loading}…" if message.loading else None
        self.set_status(**changes)
        for screen in self.screen_stack:
            if isinstance(screen, KzcScreen):
                screen.latest_view = view  # drawn when it comes back
        screen = self.screen
        if isinstance(screen, KzcScreen):
            try:
                screen.refresh_view(view, message.prepared if message.screen is screen else None)
            except Exception as exc:  # a drawing bug must not take the console down in the middle of an incident
                self.notify(f"could not draw {screen.view_name}: {type(exc).__name__}: {exc}", severity="error")

    def set_status(self, **changes: Any) -> None:
        """Change fields of the status line."""
        self.status_info = replace(self.status_info, **changes)
        if not self.screen_stack:
            return  # closing: nothing to draw on
        for bar in self.screen.query(StatusBar):
            bar.show(self.status_info)

    # ---- screens: built here with what they use; navigation arrives as messages ----------------------

    def _cluster_screen(self) -> ClusterScreen:
        return self._with_view(ClusterScreen(self.journal, self.now_ms, self.backend, self.read_only))

    def _with_view(self, screen: S) -> S:
        """``screen`` with the latest view, to draw as soon as it is mounted."""
        screen.latest_view = self.view
        return screen

    def _push(self, screen: KzcScreen) -> None:
        self.push_screen(self._with_view(screen))

    def action_open(self, what: str, focus: str | None = None) -> None:
        """Open a main screen by name (``cluster``, ``topics``, ``zk``, ``checks``, ``groups``)."""
        self.post_message(m.ZnodeChosen("/") if what == "zk" else m.ScreenChosen(what, focus))

    def _fixes(self, what: str) -> FixActions | None:
        """The fix actions, or None after saying why ``what`` is not available here."""
        if self._refused(what):
            return None
        fixes = self.backend.fix_actions()
        if fixes is None:
            self.notify(f"{what}: not available here (a recording, or not connected yet)", severity="warning")
        return fixes

    def _refused(self, what: str) -> bool:
        if self.read_only:
            self.notify(f"read-only mode: {what} is not available (started with --read-only)", severity="warning")
        return self.read_only

    @on(m.ScreenChosen)
    @on(m.PartitionsChosen)
    @on(m.TopicChosen)
    @on(m.ZnodeChosen)
    @on(m.GroupChosen)
    @on(m.CreateTopicRequested)
    @on(m.ExpandTopicRequested)
    @on(m.DeleteTopicsRequested)
    @on(m.MoveOffRequested)
    @on(m.ElectionRequested)
    @on(m.ConfigEditRequested)
    def _navigate(self, message: Message) -> None:
        """Open what a screen or the palette asked for; read-only refuses the mutations and says so."""
        backend, read_only, push = self.backend, self.read_only, self._push
        match message:
            case m.ScreenChosen("topics"):
                show_screen(self, TopicsScreen, lambda: self._with_view(TopicsScreen(read_only)))
            case m.ScreenChosen("checks"):
                show_screen(self, ChecksScreen, lambda: self._with_view(ChecksScreen(self.checks)))
            case m.ScreenChosen("groups"):
                show_screen(self, GroupsScreen, lambda: self._with_view(GroupsScreen(backend)))
            case m.GroupChosen(group):
                push(GroupDetailScreen(group, backend))
            case m.ScreenChosen(_, focus):
                screen = show_screen(self, ClusterScreen, self._cluster_screen)
                if focus:
                    self.call_after_refresh(lambda: screen.query_one(f"#{focus}").focus())
            case m.PartitionsChosen(title, health, broker):
                push(PartitionsScreen(PartitionSelection(title, health, broker)))
            case m.TopicChosen(topic):
                push(TopicDetailScreen(topic, backend, read_only))
            case m.ZnodeChosen(path):
                show_screen(self, ZkBrowserScreen, lambda: self._with_view(ZkBrowserScreen(backend, path))).jump(path)
            case m.CreateTopicRequested() if not self._refused("creating topics"):
                push(CreateTopicScreen(backend, read_only))
            case m.ExpandTopicRequested(topic) if not self._refused("adding partitions"):
                push(ExpandScreen(topic, backend, read_only))
            case m.DeleteTopicsRequested(topics, regex, hidden) if not self._refused("deleting topics"):
                push(DeleteScreen(DeleteRequest(topics=topics, regex=regex), backend, self.now_ms, hidden))
            case m.MoveOffRequested(broker) if (fixes := self._fixes("moving replicas")) is not None:
                self.push_screen(MoveOffScreen(broker, fixes.move_off))
            case m.ElectionRequested(topic) if (fixes := self._fixes("leader elections")) is not None:
                self.push_screen(ElectPreferredScreen(topic, fixes.elections))
            case m.ConfigEditRequested(topic) if (fixes := self._fixes("config changes")) is not None:
                self.push_screen(ConfigEditScreen(topic, fixes.configs))

    async def action_back(self) -> None:
        """Esc: back to the previous screen (the cluster screen is the root)."""
        go_back(self)

    # ---- tasks for any screen: checks and exports ----------------------------------------------------

    @on(m.ChecksRequested)
    def run_checks(self, message: m.ChecksRequested) -> None:
        """Start a check run unless one is running (the run belongs to the app: it survives the screen)."""
        if self.checks.running:
            self.notify("the checks are already running")
            return
        self.checks = ChecksRun(running=True, engine=message.engine, started_at=time.monotonic())
        self._checks_advanced(ChecksProgressed(None))
        job = partial(checks_job, self.backend, message.engine, self.post_message)
        self.run_worker(job, thread=True, exclusive=True, exit_on_error=False, group="checks")

    @on(ChecksProgressed)
    @on(ChecksFinished)
    def _checks_advanced(self, message: ChecksProgressed | ChecksFinished) -> None:
        self.checks.advance(message)
        # Progress comes in bursts (one step per check): draw at most every 0.2 s, keys stay answered.
        if isinstance(message, ChecksFinished) or not self._checks_redraw_due:
            self._checks_redraw_due = True
            if isinstance(message, ChecksFinished):
                self.call_later(self._show_checks)
            else:
                self.set_timer(0.2, self._show_checks)
        if isinstance(message, ChecksFinished) and not isinstance(self.screen, ChecksScreen):
            done = "consistency checks finished (x shows them)"
            self.notify(done if message.report else f"checks failed: {message.error}")

    def _show_checks(self) -> None:
        self._checks_redraw_due = False
        for screen in self.screen_stack:
            if isinstance(screen, ChecksScreen):
                screen.show_run(self.checks)

    async def action_quit(self) -> None:
        """Quit; a Spark worker gets at most ``QUIT_WAIT_S`` to stop (then it and its JVM are killed)."""
        if isinstance(self.backend, HasCheckEngines) and self.backend.check_engines.spark_started:
            what = "the check run and " if self.checks.running else ""
            self.notify(f"quitting: stopping {what}the Spark worker (at most {QUIT_WAIT_S:.0f} s)…", timeout=10)
            engines = self.backend.check_engines
            worker = self.run_worker(partial(engines.close, QUIT_WAIT_S), thread=True, exit_on_error=False)
            await worker.wait()
        self.exit()

    @on(m.ExportRequested)
    def _export(self, message: m.ExportRequested) -> None:
        now = self.now_ms()
        payload = {"kzc_export": message.view, "context": self.backend.name, "exported_at_ms": now, **message.payload}
        self.run_worker(partial(export_job, message.view, payload, now, self.post_message), thread=True,
                        exit_on_error=False, group="export")  # fmt: skip

    @on(m.ExportWritten)
    def _export_written(self, message: m.ExportWritten) -> None:
        if message.error:
            self.notify(f"export failed: {message.path}: {message.error}", severity="error", timeout=10)
        else:
            self.last_export = message.path
            self.notify(f"exported to {message.path}", timeout=10)

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
