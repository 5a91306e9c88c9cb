"""The cluster screen (the first one): controller and cluster id, brokers with their Kafka release, pending
admin work, health counters, the consumer groups that lag or sit empty with committed offsets, and the live
event log; traffic: messages and bytes in per second over the cluster (``core.traffic.ticker``, sampled every
5 s while the screen is up, no ZooKeeper request), per broker as leader, and what the load says (skews, a disk
full within a day, producers stopped) on the likely-cause line, after the health it explains
(``core.snapshot.likely_cause.with_load``).

Every age on it ticks (``show_clock``: the app's clock, every second, redrawing only what changed, never
re-reading ZooKeeper); while the live link is down each panel says since when its numbers are stale and a
line says why."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.message import Message
from textual.widgets import Label, Static

from core.brokers.capabilities import Capabilities
from core.console.protocols import GroupSource, GroupsView, MetricsSource, SizeSource, TrafficSource
from core.console.view import BrokerRow, ClusterView, PendingItem
from core.errors import KzcError
from core.groups.waiting import WaitingReads
from core.human_size import human_size as size_text
from core.kafka.znodes import BrokerRegistration, ClusterId, Unreadable
from core.metrics.reader import BrokerMetrics, bytes_out_total
from core.snapshot.likely_cause import LikelyCause, cause_broker, likely_cause, with_load
from core.snapshot.model import ClusterSnapshot
from core.snapshot.release import Asked, ReleaseAsks, broker_release, cluster_release
from core.snapshot.sizes import SizesView
from core.traffic.cause import LoadFinding
from core.traffic.rates import Rate, rate_text
from core.traffic.ticker import TrafficView
from core.zookeeper.health import EnsembleHealth, headline
from tui.journal import EventJournal, LogLine
from tui.keymap import MUTATION_IDS
from tui.messages import (
    BrokerChosen,
    ElectionRequested,
    MoveOffRequested,
    PartitionsChosen,
    StopCheckRequested,
    TopicChosen,
    ZnodeChosen,
)
from tui.screens.base import KzcScreen
from tui.size_reads import SizeReads, traffic_reads
from tui.widgets.event_log import EventLog, clock_text
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import STATE_TEXT, StatusBar, StatusInfo, ago
from tui.widgets.text_line import TextLine
from tui.widgets.virtual_table import Column, Row, VirtualTable

# Asks the registered brokers for ApiVersions (``core.brokers.capabilities.read_capabilities``); may block.
ReleaseReader = Callable[[Mapping[int, BrokerRegistration | Unreadable]], Capabilities]

BROKER_COLUMNS = (
    Column("id", "id", align="right"),
    Column("endpoints", "endpoints", max_width=48),
    Column("rack", "rack"),
    Column("kafka", "kafka"),
    Column("registered", "since"),
    Column("replicas", "replicas", align="right"),
    Column("leaders", "leaders", align="right"),
    Column("messages_in", "msg/s", align="right"),  # messages in per second as leader (core.traffic)
    Column("bytes_in", "in/s", align="right"),  # bytes appended per second to the logs it leads
    Column("size", "size", align="right"),  # bytes in its online log dirs (DescribeLogDirs, core.snapshot.sizes)
    Column("alive", "alive"),
)
PENDING_COLUMNS = (
    Column("kind", "work"),
    Column("subject", "what", max_width=40),
    Column("age", "age", align="right"),
    Column("stuck", "why stuck", max_width=200),
)
_COUNTERS = (
    ("offline", "offline"),
    ("under_replicated", "under-replicated"),
    ("under_min_isr", "under min ISR"),
    ("imbalance", "not preferred"),
)
_COUNTER_HEALTH = {  # counter -> the partition health it counts (tui.screens.partitions.HEALTH_FLAGS)
    "offline": "offline",
    "under_replicated": "under-replicated",
    "under_min_isr": "under-min-isr",
    "imbalance": "non-preferred",
}
GROUPS_EVERY_S = 10.0  # the group counts are read again this long after the previous read finished
PANEL_TITLES = {
    "#controller-panel": "Controller",
    "#health-panel": "Health",
    "#brokers": "Brokers",
    "#pending": "Pending admin work",
}


class HealthCounter(Label, can_focus=True):
    """A health counter; Enter (or a click) lists the partitions behind it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("enter", "open", "Partitions", id="open_counter")]

    def __init__(self, key: str, label: str) -> None:
        super().__init__(f"{label} -", id=f"health-{key}", classes="counter")
        self.key, self.label = key, label

    def action_open(self) -> None:
        """List the partitions this counter counts."""
        self.post_message(PartitionsChosen(f"{self.label} partitions", _COUNTER_HEALTH[self.key]))

    def on_click(self) -> None:
        self.action_open()


def age_text(ms: int | None) -> str:
    """A short age: ``45s``, ``12m``, ``3h``, ``2d``."""
    if ms is None or ms < 0:
        return "-"
    seconds = ms // 1000
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


class ClusterScreen(KzcScreen):
    """Controller, brokers, pending work, health and events."""

    VIEW_NAME = "cluster"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "focus_table('brokers')", "Brokers", id="focus_brokers"),
        Binding("w", "focus_table('pending')", "Pending", id="focus_pending"),
        Binding("v", "focus_table('events')", "Events", id="focus_events"),
        Binding("h", "focus_table('health-offline')", "Health", id="focus_health"),
        Binding("m", "move_off", "Move off", id="move_off"),
        Binding("i", "stop_check", "Stop?", id="stop_check"),
        Binding("P", "elect_preferred", "Elect preferred", id="elect_preferred"),
    ]

    def __init__(
        self,
        journal: EventJournal,
        clock_ms: Callable[[], int],
        groups: GroupSource | None = None,
        read_only: bool = False,
        sizes: SizeSource | None = None,
        traffic: TrafficSource | None = None,
        releases: ReleaseReader | None = None,
        metrics: MetricsSource | None = None,
    ) -> None:
        """``journal``: the app's event log and controller moves; ``clock_ms``: now in epoch ms; ``groups``:
        where the consumer group counts come from (none: not shown); ``read_only``: hide the mutations (the
        app refuses them and says why); ``sizes``: the brokers' log dirs (their totals, and the likely
        cause's evidence; none: not shown); ``traffic``: the rates (none: not shown); ``releases``: asks the
        brokers for ApiVersions, for their exact release (in a worker, again when the registrations change or a
        broker did not answer yet; none: the era the registrations give); ``metrics``: the brokers' exporters, for
        the bytes out on the traffic line (none, or no metrics URL: not shown)."""
        super().__init__()
        self.journal = journal
        self.clock_ms = clock_ms
        self.groups = groups
        self.read_only = read_only
        self.metrics = metrics
        self._out: str | None = None  # the bytes out on the traffic line (None: no metrics URL)
        self._groups_text = ""
        self._groups_read_ms: int | None = None  # when the group counts shown were read
        self._groups_error: str | None = None  # why the last read of them failed (the counts are older)
        self._groups_due = False
        self._link: StatusInfo | None = None  # the live link as last drawn
        self._sizes: SizesView | None = None  # the brokers' log dirs as last read
        self._sizes_error: str | None = None  # why the last read of them failed
        # The log dirs the likely cause may cite: read after it first named its broker (None until then).
        self._cause_dirs: SizesView | None = None
        self._cause_broker: int | None = None
        self._cause_since = 0  # when it was first named (epoch ms)
        self._size_reads = SizeReads(self, sizes, self._derive_cause, self._sizes_read) if sizes is not None else None
        self._traffic: TrafficView | None = None  # the latest tick's sums
        self._traffic_error: str | None = None
        self._traffic_text = ""  # the traffic line as drawn
        self._health_cause: LikelyCause | None = None  # health's likely cause as last derived (no load in it)
        self._load: tuple[LoadFinding, ...] | None = None  # what the last tick's load says (None: no window yet)
        self._cause: LikelyCause | None = None  # the likely cause as drawn: health's, then the load's
        self._waiting = WaitingReads()  # groups waiting on stopped topics (read when one stops, then every few ticks)
        self._traffic_reads = (
            traffic_reads(self, traffic, self._traffic_extras, self._traffic_read) if traffic is not None else None
        )
        self._releases = releases
        self._capabilities: Capabilities | None = None  # the brokers' ApiVersions, for their exact release
        self._release_asks = ReleaseAsks()  # when to ask them (again)

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield TextLine(id="cluster-stale")  # shown while the live link is down: since when, and why
        with Horizontal(id="cluster-top"):
            with Vertical(id="controller-panel", classes="panel"):
                yield Static("", id="controller-text")
            with Grid(id="health-panel", classes="panel"):
                for key, label in _COUNTERS:
                    yield HealthCounter(key, label)
        yield Static("", id="migration-panel", classes="panel")  # shown while ZooKeeper shows a migration
        yield Label("", id="health-totals")
        yield Label("", id="traffic-line")  # messages and bytes in per second (core.traffic.ticker)
        # The smallest explanation of what is unhealthy, then what the load says (core.snapshot.likely_cause).
        yield Label("", id="likely-cause")
        yield Label("", id="zk-health-line")  # ZooKeeper's own health (tui.zk_health_poll), hidden until probed
        yield VirtualTable(BROKER_COLUMNS, empty_text="no broker registered", id="brokers", classes="panel")
        yield VirtualTable(PENDING_COLUMNS, empty_text="no pending admin work", id="pending", classes="panel")
        yield EventLog(self.journal, id="events")
        yield KeyBar(hide=MUTATION_IDS if self.read_only else frozenset())

    def on_mount(self) -> None:
        for selector, title in PANEL_TITLES.items():
            self.query_one(selector).border_title = title
        self.query_one("#migration-panel").border_title = "ZooKeeper-to-KRaft migration"
        self.query_one("#events").border_title = "Events"
        self.query_one("#brokers", VirtualTable).focus()
        self.show_events(self.clock_ms())
        if self.groups is not None:
            self._read_groups()
        if self._size_reads is not None:
            self._size_reads.start()
        if self._traffic_reads is not None:
            self._traffic_reads.start()
        else:
            self.query_one("#traffic-line").display = False

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self._size_reads is not None:
            self._size_reads.resume()
        if self._traffic_reads is not None:
            self._traffic_reads.resume()
        self.show_events(self.clock_ms())  # the lines logged while another screen was up
        if self._groups_due:
            self._groups_due = False
            self._read_groups()

    def use_journal(self, journal: EventJournal) -> None:
        """Show another cluster's journal (the console switched context)."""
        self.journal = journal
        for log in self.query("#events").results(EventLog):
            log.use_journal(journal)

    # ---- consumer group counts (a worker that reschedules itself after each read, while shown) -------

    class GroupCountsRead(Message):
        """The consumer group counts, or why they could not be read."""

        def __init__(self, view: GroupsView | None, error: str | None) -> None:
            super().__init__()
            self.view = view
            self.error = error

    @work(thread=True, exclusive=True, exit_on_error=False, group="group-counts")
    def _read_groups(self) -> None:
        assert self.groups is not None
        try:
            view: GroupsView | None = self.groups.group_overview()
            error = None
        except KzcError as exc:
            view, error = None, str(exc)  # the counts shown keep their last value and say since when, and why
        self.post_message(self.GroupCountsRead(view, error))

    @on(GroupCountsRead)
    def _on_group_counts_read(self, message: GroupCountsRead) -> None:
        self._groups_read(message.view, message.error)

    def _groups_read(self, view: GroupsView | None, error: str | None = None) -> None:
        self._groups_error = error
        if view is not None:
            self._groups_read_ms = self.clock_ms()
            self._groups_text = (
                f"{len(view.groups):,} consumer groups: {view.lagging:,} lagging · "
                f"{view.empty_with_offsets:,} empty with committed offsets (g)"
                if view.groups
                else ""
            )
        if self.latest_view is not None and self.is_mounted:
            self._show_health(self.latest_view)
        if self.is_mounted:  # a failed read (e.g. still connecting) is tried again sooner
            self.set_timer(GROUPS_EVERY_S if view is not None else GROUPS_EVERY_S / 5, self._next_groups)

    def _next_groups(self) -> None:
        if self.is_current:
            self._read_groups()
        else:
            self._groups_due = True

    def action_focus_table(self, widget_id: str) -> None:
        """Focus one of the tables."""
        self.query_one(f"#{widget_id}").focus()

    def action_move_off(self) -> None:
        """Preview moving every replica off the highlighted broker."""
        row = self.query_one("#brokers", VirtualTable).current_row
        if row is None:
            self.notify("no broker highlighted: b focuses the brokers", severity="warning")
            return
        self.post_message(MoveOffRequested(int(row.key)))

    def action_stop_check(self) -> None:
        """What stopping the highlighted broker now would do (offline, under min ISR, leaders moved)."""
        row = self.query_one("#brokers", VirtualTable).current_row
        if row is None:
            self.notify("no broker highlighted: b focuses the brokers", severity="warning")
            return
        self.post_message(StopCheckRequested(int(row.key)))

    def action_elect_preferred(self) -> None:
        """Preview a preferred leader election of every topic (the leader imbalance)."""
        self.post_message(ElectionRequested(None))

    # ---- rendering -----------------------------------------------------------------------------------

    def prepare(self, view: ClusterView) -> object:
        """The likely cause, off the UI thread (it reads every partition), only when something is unhealthy."""
        return self._cause_of(view) if _unhealthy(view) else _Cause(None)

    def _cause_of(self, view: ClusterView) -> _Cause:
        dirs = self._cause_dirs
        return _Cause(likely_cause(view.snapshot, dirs.brokers if dirs is not None else None), dirs)

    class CauseDerived(Message):
        """The likely cause derived again with the log dirs read since."""

        def __init__(self, view: ClusterView, cause: _Cause) -> None:
            super().__init__()
            self.view = view
            self.cause = cause

    @work(thread=True, exclusive=True, exit_on_error=False, group="likely-cause")
    def _cause_again(self) -> None:
        """The likely cause with the log dirs read since the shown one was derived (worker thread)."""
        view = self.latest_view
        if view is not None and _unhealthy(view):
            cause = self._cause_of(view)
            self.post_message(self.CauseDerived(view, cause))

    @on(CauseDerived)
    def _on_cause_derived(self, message: CauseDerived) -> None:
        if message.view is self.latest_view:  # derived from an older view: a newer one is drawn (a recorded step)
            self._show_cause(message.view, message.cause)

    # ---- the brokers' log dirs: their totals and the likely cause's evidence (tui.size_reads) ---------

    def _derive_cause(self, sizes: SizesView) -> _Cause | None:
        """Worker thread: the likely cause with the log dirs just read (None: nothing to derive)."""
        view = self.latest_view
        if view is None or not _unhealthy(view) or self._cause_broker is None:
            return None
        return _Cause(likely_cause(view.snapshot, sizes.brokers), sizes)

    def _sizes_read(self, sizes: SizesView | None, cause: _Cause | None, error: str | None) -> None:
        self._sizes_error = error
        if sizes is not None:
            self._sizes = sizes
            if self._cause_broker is not None and sizes.at_ms >= self._cause_since:
                self._cause_dirs = sizes
        fresh = sizes is not None and sizes.at_ms >= self._cause_since
        if fresh and cause is not None and cause_broker(cause.cause) == self._cause_broker and self.latest_view:
            self._show_cause(self.latest_view, cause)
        if self._shown_view is not None:
            self._show_ages(self._shown_view, self.clock_ms())

    # ---- traffic (a PolledReads worker, every TICK_S while this screen is up) ----------------------------

    def _traffic_extras(self, traffic: TrafficView) -> _TrafficExtras:
        """Worker thread: what the load says, one sentence with its numbers per finding (a topic whose producers
        stopped with the consumer groups waiting on it: ``core.groups.waiting``, read when it stops and then every
        few ticks), and the cluster's bytes out from the brokers' metrics, scraped on the tick's cadence."""
        findings = traffic.findings()
        if self.groups is not None:
            source = self.groups
            findings = self._waiting.complete(
                findings, lambda topic: [g for g, _ in source.groups_of_topic(topic)], traffic.at_ms
            )
        brokers = self.metrics.broker_metrics() if self.metrics is not None else None
        load = tuple(findings) if traffic.rated else None  # no window yet: the load is unknown
        return _TrafficExtras(load, None if brokers is None else out_text(brokers))

    def _traffic_read(self, traffic: TrafficView | None, extras: _TrafficExtras | None, error: str | None) -> None:
        self._traffic_error = error
        if traffic is not None:
            self._traffic = traffic.sums()  # the line and the brokers' rows show sums: no partition's rates kept
        if extras is not None:
            self._out = extras.out
            self._load = extras.load
        elif error is not None:
            self._load = None  # the tick failed: what the load says is unknown, not what it said before
        self._draw_cause()
        now = self.clock_ms()
        self._show_traffic(now)
        if self._shown_view is not None:
            self._show_ages(self._shown_view, now)

    def _show_traffic(self, now: int) -> None:
        if self._traffic_reads is None:
            return
        text = traffic_line(self._traffic, self._traffic_error, now, self._out)
        if text != self._traffic_text:  # an idle tick redraws nothing
            self._traffic_text = text
            self.query_one("#traffic-line", Label).update(text)

    def _draw_cause(self) -> None:
        """The likely-cause line: health's cause, then what the load says (the load alone when health is fine)."""
        cause = with_load(self._health_cause, self._load)
        if cause != self._cause:
            self._cause = cause
            line = self.query_one("#likely-cause", Label)
            line.display = cause is not None
            line.update(f"likely cause: {cause.text}" if cause is not None else "")

    def _show_cause(self, view: ClusterView, prepared: object) -> None:
        if isinstance(prepared, _Cause):
            cause = prepared.cause
        elif not _unhealthy(view):
            cause = None
        elif view.health.partitions <= CAUSE_ON_UI_THREAD_MAX:
            prepared = self._cause_of(view)
            cause = prepared.cause
        else:
            return  # caught up on return to the screen: the next refresh (in the worker) brings it
        self._health_cause = cause
        self._draw_cause()
        broker = cause_broker(cause)
        if broker != self._cause_broker:
            # A new broker behind the trouble: its log dirs read from now on are the evidence (a read from
            # before, e.g. with every dir online, would not be).
            self._cause_broker, self._cause_dirs, self._cause_since = broker, None, self.clock_ms()
            if broker is not None and self._size_reads is not None:
                self._size_reads.now()
        elif isinstance(prepared, _Cause) and broker is not None and prepared.dirs is not self._cause_dirs:
            self._cause_again()  # derived before the latest log dirs of its broker came in: derive it again

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Render the controller, health, brokers and pending work of ``view``."""
        now = self.clock_ms()
        self._ask_releases(view)
        self._show_cause(view, prepared)
        self._show_controller(view, now)
        self._show_health(view)
        panel = self.query_one("#migration-panel", Static)
        panel.display = view.migration is not None
        panel.update("\n".join(view.migration.panel_lines()) if view.migration is not None else "")
        self._show_ages(view, now)
        if self._link is None or self._link.live:
            self.query_one("#brokers").border_title = _brokers_title(
                view.snapshot, self._sizes_note(now), self._capabilities
            )

    # ---- the brokers' exact release (ApiVersions, core.snapshot.release) --------------------------------

    def _ask_releases(self, view: ClusterView, again: bool = False) -> None:
        """Ask the brokers for ApiVersions in a worker when their registrations changed (a restart, an upgrade),
        or ``again`` after a broker did not answer (``core.snapshot.release.ReleaseAsks``)."""
        if self._releases is None:
            return
        registrations = {b: entry.registration for b, entry in view.snapshot.brokers.items()}
        asked = self._release_asks.due(registrations, again)
        if asked is None:
            return
        reader = self._releases

        def job() -> None:
            self.post_message(self.ReleasesRead(asked, reader(registrations)))

        self.run_worker(job, thread=True, group="releases", exit_on_error=False)

    class ReleasesRead(Message):
        """The brokers' ApiVersions answers, for the registrations they were asked for."""

        def __init__(self, asked: Asked, capabilities: Capabilities) -> None:
            super().__init__()
            self.asked = asked
            self.capabilities = capabilities

    @on(ReleasesRead)
    def _on_releases_read(self, message: ReleasesRead) -> None:
        asked, capabilities = message.asked, message.capabilities
        if not self._release_asks.current(asked) or not self.is_mounted:
            return  # the registrations changed meanwhile: a newer read follows
        self._capabilities = capabilities
        delay = self._release_asks.answered(asked, capabilities)
        if delay is not None:
            self.set_timer(delay, partial(self._ask_again, asked))
        if self._shown_view is not None:
            self._show_ages(self._shown_view, self.clock_ms())

    def _ask_again(self, asked: Asked) -> None:
        """A broker did not answer ApiVersions for ``asked``: ask again, unless the registrations changed since."""
        if self._release_asks.current(asked) and self._shown_view is not None and self.is_mounted:
            self._ask_releases(self._shown_view, again=True)

    def show_clock(self, now_ms: int, link: StatusInfo) -> None:
        """The ages (controller, brokers, pending work, events) as of ``now_ms``, and whether the live link is
        down; only what changed is redrawn."""
        self._link = link
        if not self.query("#controller-text"):
            return  # composing, or being torn down (the app exits)
        view = self._shown_view
        if view is not None:
            self._show_controller(view, now_ms)
            self._show_ages(view, now_ms)
            if self._groups_error is not None:
                self._show_health(view)
        self.show_events(now_ms)
        self._show_traffic(now_ms)
        self._show_stale(link, now_ms)

    def _show_ages(self, view: ClusterView, now: int) -> None:
        sizes = self._sizes.aged(now) if self._sizes is not None else None
        brokers = self.query_one("#brokers", VirtualTable)
        traffic, caps = self._traffic, self._capabilities
        brokers.update_rows([_broker_row(b, now, view.snapshot, sizes, traffic, caps) for b in view.brokers])
        title = _brokers_title(view.snapshot, self._sizes_note(now), caps)
        if (self._link is None or self._link.live) and brokers.border_title != title:  # else _show_stale titles it
            brokers.border_title = title  # only when it changed: an idle tick redraws nothing
        self.query_one("#pending", VirtualTable).update_rows([_pending_row(p, now) for p in view.pending])

    def _sizes_note(self, now: int) -> str:
        """The brokers' sizes: when read, what is unknown and why (``core.snapshot.sizes.SizesView.footer``)."""
        if self._sizes_error is not None:
            return f"sizes: {self._sizes_error}"
        return self._sizes.aged(now).footer(now) if self._sizes is not None else ""

    def _show_stale(self, link: StatusInfo, now: int) -> None:
        """Say on every panel since when its numbers are stale, and why, while the live link is down."""
        down = link.down_since_ms if not link.live else None
        line = self.query_one("#cluster-stale", TextLine)
        if down is None:
            line.show("")
        else:
            reason = link.note or f"ZooKeeper {STATE_TEXT[link.state]}"
            line.show(f"STALE since {clock_text(down)} ({ago(now, down)} ago): {reason}")
        if line.has_class("-shown") != (down is not None):
            line.set_class(down is not None, "-shown")
            for selector, title in PANEL_TITLES.items():
                panel = self.query_one(selector)
                panel.set_class(down is not None, "-stale")
                if selector == "#brokers" and self._shown_view is not None:
                    title = _brokers_title(self._shown_view.snapshot, self._sizes_note(now), self._capabilities)
                if down is not None:
                    stale = f"{title} · stale since {clock_text(down)}"
                    title = stale if len(stale) + 4 <= panel.size.width else f"{title} · stale"  # the line says since
                panel.border_title = title

    def _show_controller(self, view: ClusterView, now: int) -> None:
        c = view.controller
        moves = self.journal.controller_moves
        if c.broker_id is None:
            lines = [c.problem or "no controller", f"epoch {c.epoch if c.epoch is not None else '-'}"]
        else:
            kraft = " (KRaft, migrating)" if c.kraft else ""
            since = f"{clock_text(c.since_ms)} ({age_text(now - c.since_ms)} ago)" if c.since_ms else "-"
            lines = [f"broker {c.broker_id}{kraft} · epoch {c.epoch if c.epoch is not None else '-'}", f"since {since}"]
        lines[0] += f" · {moves} move{'' if moves == 1 else 's'} seen"  # this session
        lines.append(f"cluster {cluster_id_text(view.snapshot)}")
        text = self.query_one("#controller-text", Static)
        content = "\n".join(lines)
        shown = str(text.content)
        if shown != content:  # an age that ticks redraws the panel's cells only, no layout of the screen
            text.update(content, layout=shown.count("\n") != content.count("\n"))
        self.query_one("#controller-panel").set_class(c.broker_id is None, "-offline")

    def _show_health(self, view: ClusterView) -> None:
        h = view.health
        values = {
            "offline": (h.offline, "offline"),
            "under_replicated": (h.under_replicated, "under-replicated"),
            "under_min_isr": (h.under_min_isr, "under-min-isr"),
            "imbalance": (h.non_preferred_leaders, "non-preferred"),
        }
        for key, label in _COUNTERS:
            count, meaning = values[key]
            widget = self.query_one(f"#health-{key}", HealthCounter)
            widget.update(f"{label} {count:,}")
            widget.set_class(count > 0, f"-{meaning}")
        gone = sum(1 for b in view.brokers if not b.alive)
        alive = f"{len(view.brokers) - gone} brokers" + (f" + {gone} gone" if gone else "")
        totals = f"{h.topics:,} topics · {h.partitions:,} partitions · {alive}"
        totals += f" · leader imbalance {h.leader_imbalance_percent:.1f}%"
        if h.unreadable_znodes:
            totals += f" · {h.unreadable_znodes} unreadable znodes"
        if self._groups_text:
            totals += f"\n{self._groups_text}"
            if self._groups_error is not None and self._groups_read_ms is not None:
                read = self._groups_read_ms
                totals += f" · as of {clock_text(read)} ({ago(self.clock_ms(), read)} ago): {self._groups_error}"
        elif self._groups_error is not None:
            totals += f"\nconsumer groups: not read: {self._groups_error}"
        totals_label = self.query_one("#health-totals", Label)
        if str(totals_label.content) != totals:
            totals_label.update(totals)
        totals_label.set_class(h.unreadable_znodes > 0, "-unreadable")

    def show_zk_health(self, health: EnsembleHealth | None, stale: bool, problem: str | None) -> None:
        """ZooKeeper's own health in one line: the worst alarm (or none), when probed; ``Z`` opens the screen."""
        lines = self.query("#zk-health-line")
        if not lines:
            return  # composing, or being torn down: drawn when it is shown
        line = lines.first(Label)
        head = headline(health) if health is not None else None
        line.display = head is not None
        if health is None or head is None:
            return
        text, severity = head
        when = f"STALE since {clock_text(health.at_ms)}" if stale else clock_text(health.at_ms)
        line.update(f"{text} · {when} (Z)")
        for name in ("ok", "warning", "error"):
            line.set_class(severity == name, f"-{name}")
        line.set_class(stale, "-stale")

    def show_events(self, now_ms: int) -> None:
        """Show the journal's lines (the new ones, and the ages as of ``now_ms``)."""
        # Called while composing or being torn down (app exit) too: then there is no log.
        for log in self.query("#events").results(EventLog):
            log.show(now_ms)

    # ---- jumps ---------------------------------------------------------------------------------------

    @on(VirtualTable.Selected, "#pending, #events")
    def _jump(self, event: VirtualTable.Selected) -> None:
        data = event.row.data
        topic = getattr(data, "topic", None)
        path = getattr(data, "path", None)
        view = self.latest_view
        if topic and view is not None and topic in view.snapshot.topics:
            self.post_message(TopicChosen(topic))
        elif path:
            self.post_message(ZnodeChosen(path))

    @on(VirtualTable.Selected, "#brokers")
    def _broker_selected(self, event: VirtualTable.Selected) -> None:
        self.post_message(BrokerChosen(int(event.row.key)))

    def export_payload(self) -> dict[str, Any] | None:
        """The whole cluster view: controller, health, brokers, pending work and events."""
        view = self.latest_view
        if view is None:
            return None
        h = view.health
        return {
            "cluster_id": cluster_id_text(view.snapshot),
            "kafka": kafka_release_text(view.snapshot),
            "controller": {
                "broker_id": view.controller.broker_id,
                "epoch": view.controller.epoch,
                "since_ms": view.controller.since_ms,
                "moves_seen": self.journal.controller_moves,
            },
            "health": {
                "topics": h.topics,
                "partitions": h.partitions,
                "offline": h.offline,
                "under_replicated": h.under_replicated,
                "under_min_isr": h.under_min_isr,
                "non_preferred_leaders": h.non_preferred_leaders,
                "unreadable_znodes": h.unreadable_znodes,
            },
            "brokers": self.query_one("#brokers", VirtualTable).export_rows(),
            "pending": self.query_one("#pending", VirtualTable).export_rows(),
            "migration": view.migration.to_json() if view.migration is not None else None,
            "likely_cause": self._cause.to_json() if self._cause is not None else None,
            "events": [{"time_ms": line.at_ms, "event": line.text} for line in self.journal.lines],
            "exported_at_ms": int(time.time() * 1000),
        }


@dataclass(frozen=True)
class _Cause:
    """What ``prepare`` derived: the likely cause (None: nothing unhealthy) and the log dirs it cites."""

    cause: LikelyCause | None
    dirs: SizesView | None = None


CAUSE_ON_UI_THREAD_MAX = 20_000  # partitions: below this, a screen catching up derives the cause itself


def _unhealthy(view: ClusterView) -> bool:
    return view.health.offline > 0 or view.health.under_replicated > 0


def cluster_id_text(snapshot: ClusterSnapshot) -> str:
    """``/cluster/id``'s id, or why there is none (0.10.0 and older brokers do not write it)."""
    if isinstance(snapshot.cluster_id, ClusterId):
        return snapshot.cluster_id.id
    return "unreadable" if isinstance(snapshot.cluster_id, Unreadable) else "none"


def kafka_release_text(snapshot: ClusterSnapshot, capabilities: Capabilities | None = None) -> str:
    """The registered brokers' Kafka release (``core.snapshot.release.cluster_release``): once the brokers were
    asked, exact where they answered and saying which (``Kafka 3.9 (from ApiVersions)``, ``Kafka 2.7+ (from
    registration)``, ``Kafka mixed: 3.9 (1, 2), 3.8 (3), from ApiVersions``); before (or on a recording), the
    era the registrations give (``Kafka 2.7+``)."""
    return f"Kafka {cluster_release(snapshot, capabilities, say_source=capabilities is not None)}"


def _brokers_title(snapshot: ClusterSnapshot, sizes: str = "", capabilities: Capabilities | None = None) -> str:
    return f"Brokers · {kafka_release_text(snapshot, capabilities)}" + (f" · {sizes}" if sizes else "")


@dataclass(frozen=True)
class _TrafficExtras:
    """What the traffic worker derives beside the tick: what the load says (None: no window yet) and the bytes
    out."""

    load: tuple[LoadFinding, ...] | None
    out: str | None  # ``out 80.0 KiB/s`` or ``out ? (why)``; None without a metrics URL


def out_text(brokers: tuple[BrokerMetrics, ...]) -> str:
    """``out 80.0 KiB/s`` (the brokers' bytes out per second, summed), or ``out ? (why)``."""
    value, why = bytes_out_total(brokers)
    return f"out {rate_text(Rate(value), 'bytes')}" if value is not None else f"out ? ({why})"


def traffic_line(traffic: TrafficView | None, error: str | None, now: int, out: str | None = None) -> str:
    """``traffic in: 420.0/s · 41.0 KiB/s · out 80.0 KiB/s · traffic over 5s, read 3s ago`` (out: from the
    brokers' metrics, where a metrics URL is set); ``?`` with why when unknown."""
    if error is not None:
        return f"traffic: {error}"
    if traffic is None:
        return "traffic: reading…"
    if not traffic.rated or traffic.note is not None:
        return traffic.footer(now) + (f" · {out}" if out else "")
    messages, bytes_in = traffic.totals()
    text = f"traffic in: {rate_text(messages, 'messages')} · {rate_text(bytes_in, 'bytes')} · "
    text += (f"{out} · " if out else "") + traffic.footer(now)
    why = messages.unknown or bytes_in.unknown
    return text + (f" · ? {why}" if why and traffic.window_s() is not None else "")


def _broker_row(
    b: BrokerRow,
    now: int,
    snapshot: ClusterSnapshot,
    sizes: SizesView | None = None,
    traffic: TrafficView | None = None,
    capabilities: Capabilities | None = None,
) -> Row:
    messages, bytes_in = traffic.broker(b.id) if traffic is not None else (None, None)
    release = broker_release(snapshot, b.id, capabilities).text
    meanings = frozenset() if b.alive else frozenset({"dead"})
    if b.problem:
        meanings = meanings | {"unreadable"}
    since = age_text(now - b.registered_ms) if b.registered_ms else "-"
    endpoints = ", ".join(e.split("://", 1)[-1] for e in b.endpoints) or (b.problem or "-")
    gone = "" if b.alive else " (gone)"  # not registered now: the last endpoint and rack seen, if any
    cells = (
        str(b.id),
        endpoints + (gone if b.endpoints else ""),
        (b.rack + gone) if b.rack else "-",
        release,
        since,
        f"{b.replicas:,}",
        f"{b.leaders:,}",
        rate_text(messages),
        rate_text(bytes_in, "bytes"),
        size_text(total) if (total := sizes.broker_total(b.id) if sizes is not None else None) is not None else "?",
        "yes" if b.alive else "NO",
    )
    rates = tuple(r.per_s if r is not None else None for r in (messages, bytes_in))
    values = (b.id, list(b.endpoints), b.rack, release, b.registered_ms, b.replicas, b.leaders, *rates, total, b.alive)
    return Row(str(b.id), cells, meanings, values, b)


def _pending_row(p: PendingItem, now: int) -> Row:
    meanings = frozenset({"pending-deletion"} if p.kind == "deletion" else set())
    if p.stuck:
        meanings = meanings | {"warning"}
    age = age_text(now - p.since_ms) if p.since_ms else "-"
    cells = (p.kind, p.subject, age, p.stuck or "progressing")
    values = (p.kind, p.subject, p.since_ms, p.stuck)
    return Row(f"{p.kind}:{p.subject}", cells, meanings, values, p)


def log_line_for(line: LogLine) -> str:
    """The event log line as the user reads it."""
    return f"{clock_text(line.at_ms)} {line.text}"
