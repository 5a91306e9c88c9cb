"""The kzc console: wires a ``ClusterBackend`` to the screens, themes, key map and command palette.

Attributes down, messages up: each screen gets the protocol it uses when it is built here (the only
module that knows every screen) and posts ``tui.messages`` for navigation and results. What the app holds
lives in modules named for it, and the handlers here hand each message to them: the link to the cluster
(``tui.live_link``: view, events, status line), check runs (``tui.checks_run``), exports (``tui.export``).
Backend callbacks only post messages; slow work runs in workers that end in one message; one
``Worker.StateChanged`` handler turns any worker failure into a visible message.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from typing import Any, ClassVar, TypeVar, cast

from textual import events, on
from textual.app import App
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.worker import Worker, WorkerState

from core.brokers.capabilities import read_capabilities
from core.config import ConnectionSettings, UserConfig, resolve_settings
from core.console.moment import MomentBackend
from core.console.protocols import ClusterBackend, MetricsSource
from core.console.view import ClusterView
from core.errors import KzcError
from core.history.location import HistoryPlace, history_place
from core.human_time import parse_moment
from core.topics.plan import DeleteRequest
from tui import messages as m
from tui.checks_run import WORKER_GROUP as CHECKS_GROUP
from tui.checks_run import CheckRuns, ChecksFinished, ChecksProgressed, ChecksRun
from tui.commands import KzcCommands, KzcPalette
from tui.export import run_export
from tui.fleet_poll import FleetPoll, FleetRoundEnded, FleetRowRead, RowReader, reader_for
from tui.journal import EventJournal
from tui.keymap import MOMENT_IDS, BindingInfo, catalog
from tui.live_link import LiveLink, LiveMessage
from tui.navigation import fix_actions, go_back, pop_to_root, read_only_why, refused, security_actions, show_screen
from tui.recording import RecordingLink, RecordingRefused, RecordingStarted, RecordingStopped, close_cluster
from tui.screens import SCREEN_CLASSES
from tui.screens.base import KzcScreen
from tui.screens.broker import BrokerScreen
from tui.screens.checks import ChecksScreen
from tui.screens.cluster import ClusterScreen
from tui.screens.config_edit import BrokerConfigEditScreen, ConfigEditScreen
from tui.screens.create_topic import CreateTopicScreen
from tui.screens.delete import DeleteScreen
from tui.screens.elect_preferred import ElectPreferredScreen
from tui.screens.expand import ExpandScreen
from tui.screens.fleet import FleetScreen
from tui.screens.groups import GroupDetailScreen, GroupsScreen
from tui.screens.help import HelpScreen
from tui.screens.messages import MessagesScreen
from tui.screens.move_off import MoveOffScreen
from tui.screens.partitions import PartitionSelection, PartitionsScreen
from tui.screens.security import SecurityScreen
from tui.screens.security_forms import AclFormScreen, QuotaFormScreen, UserFormScreen
from tui.screens.stop_check import StopCheckScreen
from tui.screens.timeline import TimelineScreen
from tui.screens.topic_detail import TopicDetailScreen
from tui.screens.topics import TopicsScreen
from tui.screens.zk_browser import ZkBrowserScreen
from tui.screens.zk_health import ZkHealthScreen
from tui.setup import apply_config, read_config
from tui.terminal import TerminalGone, check_terminal, hangup_safe_driver
from tui.widgets.status_bar import StatusBar, StatusInfo
from tui.zk_health_poll import ZkHealthPoll, ZkHealthRead

S = TypeVar("S", bound=KzcScreen)
# kill, and a closed terminal or a dropped SSH session: each quits as q does (``_quit_on_signals``).
QUIT_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
RELEASE_TIMEOUT_S = 5.0  # each broker's ApiVersions, for the cluster screen's exact release


class KzcApp(App[None]):
    """The console for one cluster (``context NAME`` switches to another).

    Args:
        settings: the connection (from flags and the config file).
        config: the parsed config file (themes, ``[keys]``, contexts); read from the default place if None.
        backend: what to show; a ``ZkBackend`` for ``settings`` if None (tests pass a recorded one).
        clock: seconds since the epoch (tests freeze it).
        fleet: open on the fleet screen over these contexts (``kzc --fleet``; a str is why one is unusable);
            ``settings`` is then unused until a row is opened.
        fleet_reader: reads the fleet (tests give scripted rows); ``kzc fleet``'s reader if None.
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
        Binding("W", "open('timeline')", "What changed", show=False, id="show_timeline"),
        Binding("Z", "open('zk-health')", "ZooKeeper health", show=False, id="show_zk_health"),
        Binding("A", "open('security')", "ACLs, quotas, users", show=False, id="show_security"),
        Binding("F", "fleet", "Fleet", show=False, id="show_fleet"),
        Binding("left_square_bracket", "step_moment(-1)", "Previous change", show=False, id="moment_previous"),
        Binding("right_square_bracket", "step_moment(1)", "Next change", show=False, id="moment_next"),
        Binding("left_curly_bracket", "shift_moment(-1)", "A minute back", show=False, id="moment_back"),
        Binding("right_curly_bracket", "shift_moment(1)", "A minute on", show=False, id="moment_on"),
    ]

    def __init__(self, settings: ConnectionSettings, *, config: UserConfig | None = None,
                 backend: ClusterBackend | None = None, clock: Callable[[], float] = time.time,
                 warm_spark: bool | None = None, fleet: Mapping[str, ConnectionSettings | str] | None = None,
                 fleet_reader: RowReader | None = None) -> None:  # fmt: skip
        super().__init__()
        # The console of the CLI starts the Spark worker as it opens (tests that pass a backend do not).
        self.warm_spark = backend is None if warm_spark is None else warm_spark
        # Over SSH every animation frame is bytes on the wire (a smooth scroll sent ~120 KB per key): none.
        self.animation_level = "none"
        self.settings = settings
        self.user_config, self.theme_set, self.config_problems = read_config(config)
        self.backend = backend if backend is not None else _real_backend(settings)
        self._asks_brokers = backend is None  # the cluster screen asks the brokers for their exact release
        self.clock = clock
        self.check_runs = CheckRuns(self)
        self.last_export: str | None = None
        self.live = self._link(0)
        self.recording = RecordingLink(self.backend, settings, 0)
        self._closing_cluster: threading.Thread | None = None  # the recording's final flush, then the close
        self._quits_on_signals = False  # ``run`` (a real terminal), not a test's ``run_test``
        self._spark_waits_for_view = False  # warm the Spark worker up once the first whole view is drawn
        self.zk_health = ZkHealthPoll(self, self.backend, 0, self.now_ms)
        self._fleet_contexts = dict(fleet) if fleet is not None else None
        self._fleet_reader = fleet_reader
        self.fleet_poll: FleetPoll | None = None
        self.fleet_root = fleet is not None  # the fleet screen is the root: Esc from a cluster comes back to it
        self.cluster_open = fleet is None  # False until a fleet row is opened: no cluster to show yet

    def run(self, *args: Any, **kwargs: Any) -> None:
        """Run the console; raises ``UsageError`` (one line, pointing to the CLI) where it cannot be drawn."""
        check_terminal()
        self._quits_on_signals = True
        self.driver_class = hangup_safe_driver(self) or self.driver_class
        before = {signum: signal.getsignal(signum) for signum in QUIT_SIGNALS}
        try:
            super().run(*args, **kwargs)
        finally:
            for signum, handler in before.items():  # the loop's handlers leave with it: the command's come back
                signal.signal(signum, handler)
        if self._closing_cluster is not None:
            self._closing_cluster.join()  # the recording's final flush (the UI is gone: nothing waits on it)
            if self.recording.failure:
                with contextlib.suppress(OSError):  # the terminal may be gone
                    print(f"kzc: recording stopped: {self.recording.failure}", file=sys.stderr)

    def _link(self, generation: int) -> LiveLink:
        return LiveLink(self, self.backend, generation, self.now_ms)

    @property
    def view(self) -> ClusterView | None:
        """The latest view of the cluster."""
        return self.live.view

    @property
    def journal(self) -> EventJournal:
        """The cluster's event log."""
        return self.live.journal

    @property
    def status_info(self) -> StatusInfo:
        """What the status line shows."""
        return self.live.status_info

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
        if self.fleet_root:
            self._open_fleet()
        else:
            self.push_screen(self._cluster_screen())
        # Ages tick from this one clock, on the current screen only; a screen that comes back is drawn at once.
        self.set_interval(1.0, lambda: self.live.draw_screen())
        self.screen_change_signal.subscribe(self, lambda _screen: self._screen_changed())
        if self.cluster_open:
            self.live.connect()
            self.zk_health.start()
            self._spark_waits_for_view = self.warm_spark
        if self._quits_on_signals:
            self._quit_on_signals()

    def _quit_on_signals(self) -> None:
        """``kill`` (SIGTERM) and a closed terminal or dropped SSH session (SIGHUP) quit as ``q`` does: the
        recording's final flush, the Spark worker stopped, the terminal restored. Python's default for both
        is to die on the spot."""
        loop = asyncio.get_running_loop()
        for signum in QUIT_SIGNALS:
            loop.add_signal_handler(signum, self.call_later, self.action_quit)

    def _screen_changed(self) -> None:
        """A screen came up: draw what it shows of the live link and of ZooKeeper's health as of now."""
        self.live.draw_screen()
        self.zk_health.draw()
        if self.fleet_poll is not None:
            self.fleet_poll.draw()

    @on(StatusBar.Mounted)
    def _status_bar_mounted(self, message: StatusBar.Mounted) -> None:
        message.bar.show(self.status_info, self.now_ms())
        if message.bar.screen is self.screen:
            self.live.draw_screen()

    @on(m.ChangeFinished)
    def _change_finished(self, message: m.ChangeFinished) -> None:
        self.live.append_event(self.now_ms(), message.text, message.severity, message.topic)

    def action_command_palette(self) -> None:
        """The palette, with a plain ``:`` for its icon."""
        if self.use_command_palette and not KzcPalette.is_open(cast(App[object], self)):
            self.push_screen(KzcPalette(id="--command-palette"))

    # ---- what the palette asks (tui.commands.PaletteTarget) ------------------------------------------

    def all_bindings(self) -> list[BindingInfo]:
        """Every binding of the console, with the user's remaps applied (for ``?``)."""
        return catalog([("everywhere", type(self)), *SCREEN_CLASSES], dict(self.user_config.keys))

    def action_help(self) -> None:
        """Every binding, with remaps (the moment's keys only at a recorded moment, where they work)."""
        shown = [b for b in self.all_bindings() if self.at_moment or b.id not in MOMENT_IDS]
        self.push_screen(HelpScreen(shown, self.read_only))

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
        self._use_cluster(settings)

    def _use_cluster(self, settings: ConnectionSettings) -> None:
        """Close the cluster shown (if any) and open ``settings``' (on the fleet: above the fleet screen)."""
        old, self.settings, self.backend = self.backend, settings, _real_backend(settings)
        self._asks_brokers = True
        self.live = self._link(self.live.generation + 1)
        old_recording, self.recording = self.recording, RecordingLink(self.backend, settings, self.live.generation)
        self.zk_health.stop()
        self.zk_health = ZkHealthPoll(self, self.backend, self.live.generation, self.now_ms)
        pop_to_root(self)
        for screen in self.screen_stack:
            if isinstance(screen, ClusterScreen):
                screen.use_journal(self.journal)
        self.live.set_status()
        self.run_worker(partial(close_cluster, old_recording, old), thread=True, exit_on_error=False, group="close")
        self.live.connect()
        self.zk_health.start()
        self._spark_waits_for_view = self.warm_spark
        self.cluster_open = True
        if self.fleet_root:
            self.push_screen(self._cluster_screen())

    # ---- fleet: every context's row (tui.fleet_poll), the fleet screen, a row opened -------------------------

    def action_fleet(self) -> None:
        """``F``: the fleet screen, which becomes the root (Esc from a cluster comes back to it)."""
        if self._fleet_contexts is None:
            contexts = self.user_config.contexts
            if not contexts:
                self.notify(
                    "no context in the config file: the fleet reads its [contexts.NAME] tables", severity="warning"
                )
                return
            self._fleet_contexts = dict(contexts)
        if self.fleet_root:
            show_screen(self, FleetScreen, self._fleet_screen)
            return
        self.fleet_root = True
        while len(self.screen_stack) > 1:  # the fleet below the cluster's screens, as with kzc --fleet
            self.pop_screen()
        self._open_fleet()  # the cluster stays connected: Enter on its row shows it again

    def _open_fleet(self) -> None:
        assert self._fleet_contexts is not None
        if self.fleet_poll is None:
            self.fleet_poll = FleetPoll(self, self._fleet_reader or reader_for(self._fleet_contexts))
            self.fleet_poll.start()
        self.push_screen(self._fleet_screen())

    def _fleet_screen(self) -> FleetScreen:
        assert self.fleet_poll is not None and self._fleet_contexts is not None
        return FleetScreen(self.fleet_poll.board, len(self._fleet_contexts), self.fleet_poll.read_now)

    @on(FleetRowRead)
    @on(FleetRoundEnded)
    def _fleet_read(self, message: FleetRowRead | FleetRoundEnded) -> None:
        if self.fleet_poll is not None:
            self.fleet_poll.take(message)

    def _open_of_fleet(self, context: str) -> None:
        """Enter on a fleet row: that context's console above the fleet (the one open already, if it is)."""
        if self.cluster_open and self.settings.context == context:
            self.push_screen(self._cluster_screen())
            return
        chosen = (self._fleet_contexts or {}).get(context)
        if isinstance(chosen, str) or chosen is None:
            self.notify(f"context '{context}' cannot be opened: {chosen or 'not in the config file'}", severity="error")
            return
        try:  # the context as --context would open it (the config file's default read_only and all)
            settings = (
                resolve_settings(self.user_config, context=context) if context in self.user_config.contexts else chosen
            )
        except KzcError as exc:
            self.notify(str(exc), severity="error")
            return
        self._use_cluster(settings)

    # ---- live: connection, events, view refresh (tui.live_link) ------------------------------------

    @on(m.BackendConnected)
    @on(m.SnapshotUpdated)
    @on(m.ConnectFailed)
    @on(m.ConnectionChanged)
    @on(m.ClusterEventSeen)
    def _live(self, message: LiveMessage) -> None:
        self.live.take(message)
        link = self.recording
        if isinstance(message, m.BackendConnected) and message.generation == link.generation and link.wanted:
            job = partial(link.start_job, self.post_message)
            self.run_worker(job, thread=True, exit_on_error=False, group="record")

    @on(RecordingStarted)
    @on(RecordingRefused)
    @on(RecordingStopped)
    def _recording(self, message: RecordingStarted | RecordingRefused | RecordingStopped) -> None:
        if message.generation != self.recording.generation:
            return  # an older cluster's (its link closed it, or closes it)
        if isinstance(message, RecordingStarted):
            self.live.set_status(recording=message.root, recording_stopped=False)
        elif isinstance(message, RecordingStopped):
            self.live.set_status(recording_stopped=True)
            self.notify(f"recording stopped: {message.reason}; changes from now on are not recorded",
                        severity="error", timeout=60)  # fmt: skip
        else:
            self.notify(message.reason, severity="warning", timeout=30)

    @on(ZkHealthRead)
    def _zk_health_read(self, message: ZkHealthRead) -> None:
        self.zk_health.take(message)

    @on(m.ViewRefreshed)
    def _view_refreshed(self, message: m.ViewRefreshed) -> None:
        self.live.take_view(message)
        if isinstance(self.backend, MomentBackend) and message.generation == self.live.generation:
            self.live.set_status(as_of=self.backend.moment_of(message.view.snapshot).marker())
            # Once drawn, the state a step back across its base snapshot lands on is replayed ahead.
            self.run_worker(self.backend.prefetch, thread=True, exit_on_error=False, group="moment-prefetch")
        if self._spark_waits_for_view and message.loading is None and message.generation == self.live.generation:
            # The Spark worker (a JVM) starts once the whole cluster is on screen: on a small machine it would
            # otherwise take the CPU the first full read needs.
            self._spark_waits_for_view = False
            self.check_runs.warm_up(self.backend)

    # ---- a recorded moment (kzc --at): step through the recording -------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The moment's keys exist only at a recorded moment."""
        if action in ("step_moment", "shift_moment"):
            return self.at_moment
        return True

    @property
    def at_moment(self) -> bool:
        """Whether the console shows a recorded moment (``kzc --at``)."""
        return isinstance(self.backend, MomentBackend)

    def jump_moment(self, text: str) -> None:
        """The palette's ``at TIME``: the cluster at that moment (as ``kzc --at`` parses it)."""
        try:
            at_ms = parse_moment(text, self.now_ms())
        except ValueError as exc:
            self.notify(str(exc), severity="error")
            return
        self._move_moment(lambda backend: backend.move_to(at_ms))

    def action_step_moment(self, direction: int) -> None:
        """``[`` / ``]``: the previous / next recorded change."""
        self._move_moment(lambda backend: backend.step(direction))

    def action_shift_moment(self, minutes: int) -> None:
        """``{`` / ``}``: a minute back / on."""
        self._move_moment(lambda backend: backend.shift(minutes))

    def _move_moment(self, move: Callable[[MomentBackend], object]) -> None:
        backend = self.backend
        if isinstance(backend, MomentBackend):  # the store is read in a worker; its failure is notified
            self.run_worker(partial(move, backend), thread=True, exclusive=True, exit_on_error=False, group="moment")

    # ---- screens: built here with what they use; navigation arrives as messages ----------------------

    def _cluster_screen(self) -> ClusterScreen:
        releases = None
        if self._asks_brokers:  # a live cluster (a recording has no broker to ask)
            releases = partial(read_capabilities, timeout=RELEASE_TIMEOUT_S, security=self.settings.kafka_security)
        screen = ClusterScreen(self.journal, self.now_ms, self.backend, self.read_only, self.backend, self.backend,
                               releases, self._metrics())  # fmt: skip
        return self._with_view(screen)

    def _metrics(self) -> MetricsSource | None:
        """The backend's broker metrics, where it reads them (a live cluster; a recording has no exporters)."""
        return self.backend if isinstance(self.backend, MetricsSource) else None

    def _with_view(self, screen: S) -> S:
        """``screen`` with the latest view, to draw as soon as it is mounted."""
        screen.latest_view = self.view
        return screen

    def _push(self, screen: KzcScreen) -> None:
        self.push_screen(self._with_view(screen))

    def action_open(self, what: str, focus: str | None = None) -> None:
        """Open a main screen by name (``cluster``, ``topics``, ``zk``, ``zk-health``, ``checks``, ``groups``,
        ``timeline``, ``security``)."""
        self.post_message(m.ZnodeChosen("/") if what == "zk" else m.ScreenChosen(what, focus))

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
    @on(m.StopCheckRequested)
    @on(m.BrokerChosen)
    @on(m.ConfigEditRequested)
    @on(m.MessagesChosen)
    @on(m.BrokerConfigEditRequested)
    @on(m.AclChangeRequested)
    @on(m.UserChangeRequested)
    @on(m.QuotaChangeRequested)
    @on(m.ClusterOfFleetChosen)
    def _navigate(self, message: Message) -> None:
        """Open what a screen or the palette asked for; read-only refuses the mutations and says so."""
        origin = self.screen
        try:
            if isinstance(message, m.ClusterOfFleetChosen):
                self._open_of_fleet(message.context)
            elif not self.cluster_open:
                self.notify("no cluster open yet: Enter on a fleet row opens one", severity="warning")
            else:
                self._open(message)
        finally:
            if isinstance(origin, KzcScreen):
                origin.release_keys()

    async def on_event(self, event: events.Event) -> None:
        # A key that went through the focused widget comes back here for the bindings; while the screen it
        # was typed on waits for the app to open another, it is held for that screen (KzcScreen.hold).
        if isinstance(event, events.Key) and event.is_forwarded and _holds(self.screen, event):
            return
        await super().on_event(event)

    def _open(self, message: Message) -> None:
        backend, read_only, push = self.backend, self.read_only, self._push
        refuses = partial(refused, self, read_only, why=read_only_why(backend))
        fixes_for = partial(fix_actions, self, backend)
        security_for = partial(security_actions, self, backend)
        match message:
            case m.ScreenChosen("topics"):
                topics = partial(TopicsScreen, read_only, backend, self.now_ms, backend)
                show_screen(self, TopicsScreen, lambda: self._with_view(topics()))
            case m.ScreenChosen("checks"):
                show_screen(self, ChecksScreen, lambda: self._with_view(ChecksScreen(self.checks)))
            case m.ScreenChosen("groups"):
                show_screen(self, GroupsScreen, lambda: self._with_view(GroupsScreen(backend, self.now_ms)))
            case m.ScreenChosen("timeline"):
                history: Callable[[], HistoryPlace] = partial(history_place, self.settings)
                recorded = None
                if isinstance(backend, MomentBackend):  # its report reads the moment's store
                    history, recorded = backend.history_place, backend.changes_around
                show_screen(self, TimelineScreen, lambda: self._with_view(TimelineScreen(self.journal, self.now_ms,
                            history, recorded)))  # fmt: skip
            case m.ScreenChosen("security"):
                show_screen(self, SecurityScreen, lambda: self._with_view(SecurityScreen(backend, self.now_ms)))
            case m.ScreenChosen("zk-health"):
                poll = self.zk_health
                show_screen(
                    self, ZkHealthScreen, lambda: ZkHealthScreen(poll.latest, poll.stale(), poll.problem, self.now_ms)
                )
            case m.GroupChosen(group):
                push(GroupDetailScreen(group, backend, self.now_ms))
            case m.ScreenChosen(_, focus):
                screen = show_screen(self, ClusterScreen, self._cluster_screen)
                if focus:
                    self.call_after_refresh(lambda: screen.query_one(f"#{focus}").focus())
            case m.PartitionsChosen(title, health, broker):
                selection = PartitionSelection(title, health, broker)
                push(PartitionsScreen(selection, backend, self.now_ms, partial(history_place, self.settings), backend))
            case m.MessagesChosen(topic, partition):
                push(MessagesScreen(topic, partition, backend))
            case m.TopicChosen(topic):
                push(TopicDetailScreen(topic, backend, read_only, self.now_ms))
            case m.ZnodeChosen(path):
                show_screen(self, ZkBrowserScreen, lambda: self._with_view(ZkBrowserScreen(backend, path))).jump(path)
            case m.CreateTopicRequested() if not refuses("creating topics"):
                push(CreateTopicScreen(backend, read_only))
            case m.ExpandTopicRequested(topic) if not refuses("adding partitions"):
                push(ExpandScreen(topic, backend, read_only))
            case m.DeleteTopicsRequested(topics, regex, hidden) if not refuses("deleting topics"):
                push(DeleteScreen(DeleteRequest(topics=topics, regex=regex), backend, self.now_ms, hidden))
            case m.MoveOffRequested(broker) if (fixes := fixes_for("moving replicas")) is not None:
                self.push_screen(MoveOffScreen(broker, fixes.move_off))
            case m.BrokerChosen(broker):
                push(BrokerScreen(broker, backend, self.now_ms, backend, self._metrics()))
            case m.StopCheckRequested(broker):
                push(StopCheckScreen(broker, self.view.snapshot if self.view is not None else None))
            case m.ElectionRequested(topic) if (fixes := fixes_for("leader elections")) is not None:
                self.push_screen(ElectPreferredScreen(topic, fixes.elections))
            case m.ConfigEditRequested(topic) if (fixes := fixes_for("config changes")) is not None:
                self.push_screen(ConfigEditScreen(topic, fixes.configs))
            case m.AclChangeRequested(action, binding) if (security := security_for("ACL changes")) is not None:
                self.push_screen(AclFormScreen(action, security, binding))
            case m.UserChangeRequested(action, user, mech) if (security := security_for("SCRAM changes")) is not None:
                self.push_screen(UserFormScreen(action, security, user, mech))
            case m.QuotaChangeRequested(entity) if (security := security_for("quota changes")) is not None:
                self.push_screen(QuotaFormScreen(security, entity))
            case m.BrokerConfigEditRequested(entity) if (fixes := fixes_for("config changes")) is not None:
                if fixes.broker_configs is not None:
                    self.push_screen(BrokerConfigEditScreen(entity, fixes.broker_configs))

    async def action_back(self) -> None:
        """Esc: back to the previous screen (the cluster screen is the root)."""
        go_back(self)

    # ---- tasks for any screen: checks and exports ----------------------------------------------------

    @property
    def checks(self) -> ChecksRun:
        """The latest check run (it survives the checks screen)."""
        return self.check_runs.run

    @checks.setter
    def checks(self, run: ChecksRun) -> None:
        self.check_runs.run = run

    @on(m.ChecksRequested)
    def _run_checks(self, message: m.ChecksRequested) -> None:
        self.check_runs.start(self.backend, message.engine)

    @on(ChecksProgressed)
    @on(ChecksFinished)
    def _checks_advanced(self, message: ChecksProgressed | ChecksFinished) -> None:
        self.check_runs.advance(message)

    @on(TerminalGone)
    async def _terminal_gone(self) -> None:
        await self.action_quit()

    async def action_quit(self) -> None:
        """Quit; a Spark worker running a check gets at most ``QUIT_WAIT_S`` to stop (then it and its JVM are
        killed), an idle one stops by itself."""
        self._spark_waits_for_view = False  # a view drawn from now on starts no Spark worker
        await self.check_runs.stop_spark(self.backend)
        self.exit()

    @on(m.ExportRequested)
    def _export(self, message: m.ExportRequested) -> None:
        run_export(self, message, self.backend.name, self.now_ms())

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
            if event.worker.group == CHECKS_GROUP:
                self.post_message(ChecksFinished(None, text))  # else the run would stay "running" for good

    def on_unmount(self) -> None:
        if self.fleet_poll is not None:
            self.fleet_poll.close()
        if not self.recording.wanted:
            self.backend.close()
            return
        # The final flush is disk work: on a thread of its own, which ``run`` waits for once the UI is gone.
        args = (self.recording, self.backend)
        self._closing_cluster = threading.Thread(target=close_cluster, args=args, name="kzc-console-close")
        self._closing_cluster.start()


def _real_backend(settings: ConnectionSettings) -> ClusterBackend:
    from core.console.zk import ZkBackend

    return ZkBackend(settings)


def _holds(screen: object, key: events.Key) -> bool:
    """``screen`` keeps ``key`` while it waits for the app to open another screen."""
    return isinstance(screen, KzcScreen) and screen.hold(key)
