"""The Cluster screen (the first one): controller, brokers, pending admin work, health counters, the
consumer groups that lag or sit empty with committed offsets, and the live event log."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.widgets import Label, Static

from core.console.protocols import GroupSource, GroupsView
from core.console.view import BrokerRow, ClusterView, PendingItem
from core.errors import KzcError
from core.snapshot.likely_cause import LikelyCause, likely_cause
from core.zookeeper.health import EnsembleHealth, headline
from tui.journal import EventJournal
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
from tui.widgets.event_log import EventLog, LogLine, clock_text
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

BROKER_COLUMNS = (
    Column("id", "id", align="right"),
    Column("endpoints", "endpoints", max_width=48),
    Column("rack", "rack"),
    Column("registered", "since"),
    Column("replicas", "replicas", align="right"),
    Column("leaders", "leaders", align="right"),
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
        Binding("m", "move_off", "Move off broker", id="move_off"),
        Binding("i", "stop_check", "Stop impact", id="stop_check"),
        Binding("P", "elect_preferred", "Elect preferred", id="elect_preferred"),
    ]

    def __init__(
        self,
        journal: EventJournal,
        clock_ms: Callable[[], int],
        groups: GroupSource | None = None,
        read_only: bool = False,
    ) -> None:
        """``journal``: the app's event log and controller moves; ``clock_ms``: now in epoch ms; ``groups``:
        where the consumer group counts come from (none: not shown); ``read_only``: hide the mutations (the
        app refuses them and says why)."""
        super().__init__()
        self.journal = journal
        self.clock_ms = clock_ms
        self.groups = groups
        self.read_only = read_only
        self._groups_text = ""
        self._groups_due = False

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        with Horizontal(id="cluster-top"):
            with Vertical(id="controller-panel", classes="panel"):
                yield Static("", id="controller-text")
            with Grid(id="health-panel", classes="panel"):
                for key, label in _COUNTERS:
                    yield HealthCounter(key, label)
        yield Static("", id="migration-panel", classes="panel")  # shown while ZooKeeper shows a migration
        yield Label("", id="health-totals")
        yield Label("", id="likely-cause")  # the smallest explanation of what is unhealthy (core.snapshot.likely_cause)
        yield Label("", id="zk-health-line")  # ZooKeeper's own health (tui.zk_health_poll), hidden until probed
        yield VirtualTable(BROKER_COLUMNS, empty_text="no broker registered", id="brokers", classes="panel")
        yield VirtualTable(PENDING_COLUMNS, empty_text="no pending admin work", id="pending", classes="panel")
        yield EventLog(id="events")
        yield KeyBar(hide=MUTATION_IDS if self.read_only else frozenset())

    def on_mount(self) -> None:
        self.query_one("#controller-panel").border_title = "Controller"
        self.query_one("#health-panel").border_title = "Health"
        self.query_one("#brokers").border_title = "Brokers"
        self.query_one("#pending").border_title = "Pending admin work"
        self.query_one("#migration-panel").border_title = "ZooKeeper-to-KRaft migration"
        self.query_one("#events").border_title = "Events"
        self.query_one("#brokers", VirtualTable).focus()
        self.show_events()
        if self.groups is not None:
            self._read_groups()

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self._groups_due:
            self._groups_due = False
            self._read_groups()

    # ---- consumer group counts (a worker that reschedules itself after each read, while shown) -------

    @work(thread=True, exclusive=True, exit_on_error=False, group="group-counts")
    def _read_groups(self) -> None:
        assert self.groups is not None
        try:
            view: GroupsView | None = self.groups.group_overview()
        except KzcError:
            view = None  # the groups screen says why; here the counts just keep their last value
        self.app.call_from_thread(self._groups_read, view)

    def _groups_read(self, view: GroupsView | None) -> None:
        if view is not None and view.groups:
            text = (
                f"{len(view.groups):,} consumer groups: {view.lagging:,} lagging · "
                f"{view.empty_with_offsets:,} empty with committed offsets (g)"
            )
            if text != self._groups_text:
                self._groups_text = text
                if self.latest_view is not None:
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
        return _Cause(likely_cause(view.snapshot) if _unhealthy(view) else None)

    def _show_cause(self, view: ClusterView, prepared: object) -> None:
        line = self.query_one("#likely-cause", Label)
        if isinstance(prepared, _Cause):
            cause = prepared.cause
        elif not _unhealthy(view):
            cause = None
        elif view.health.partitions <= CAUSE_ON_UI_THREAD_MAX:
            cause = likely_cause(view.snapshot)
        else:
            return  # caught up on return to the screen: the next refresh (in the worker) brings it
        line.display = cause is not None
        line.update(f"likely cause: {cause.text}" if cause is not None else "")

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Render the controller, health, brokers and pending work of ``view``."""
        now = self.clock_ms()
        self._show_cause(view, prepared)
        self._show_controller(view, now)
        self._show_health(view)
        panel = self.query_one("#migration-panel", Static)
        panel.display = view.migration is not None
        panel.update("\n".join(view.migration.panel_lines()) if view.migration is not None else "")
        self.query_one("#brokers", VirtualTable).set_rows([_broker_row(b, now) for b in view.brokers])
        self.query_one("#pending", VirtualTable).set_rows([_pending_row(p, now) for p in view.pending])

    def _show_controller(self, view: ClusterView, now: int) -> None:
        c = view.controller
        moves = self.journal.controller_moves
        if c.broker_id is None:
            lines = [c.problem or "no controller", f"epoch {c.epoch if c.epoch is not None else '-'}"]
        else:
            kraft = " (KRaft, migrating)" if c.kraft else ""
            since = f"{clock_text(c.since_ms)} ({age_text(now - c.since_ms)} ago)" if c.since_ms else "-"
            lines = [f"broker {c.broker_id}{kraft} · epoch {c.epoch if c.epoch is not None else '-'}", f"since {since}"]
        lines.append(f"moves seen this session: {moves}")
        text = self.query_one("#controller-text", Static)
        text.update("\n".join(lines))
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
        totals_label = self.query_one("#health-totals", Label)
        totals_label.update(totals)
        totals_label.set_class(h.unreadable_znodes > 0, "-unreadable")

    def show_zk_health(self, health: EnsembleHealth | None, stale: bool, problem: str | None) -> None:
        """ZooKeeper's own health in one line: the worst alarm (or none), when probed; ``Z`` opens the screen."""
        line = self.query_one("#zk-health-line", Label)
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

    def show_events(self) -> None:
        """Show the app's event log (called when events arrive while this screen is active)."""
        # Events also arrive while the screen is composing or being torn down (app exit): then there is no log.
        for log in self.query("#events").results(EventLog):
            log.show_lines(self.journal.lines)

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
            "events": [{"time_ms": line.at_ms, "event": line.text} for line in self.journal.lines],
            "exported_at_ms": int(time.time() * 1000),
        }


@dataclass(frozen=True)
class _Cause:
    """What ``prepare`` derived: the likely cause (None: nothing unhealthy)."""

    cause: LikelyCause | None


CAUSE_ON_UI_THREAD_MAX = 20_000  # partitions: below this, a screen catching up derives the cause itself


def _unhealthy(view: ClusterView) -> bool:
    return view.health.offline > 0 or view.health.under_replicated > 0


def _broker_row(b: BrokerRow, now: int) -> Row:
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
        since,
        f"{b.replicas:,}",
        f"{b.leaders:,}",
        "yes" if b.alive else "NO",
    )
    values = (b.id, list(b.endpoints), b.rack, b.registered_ms, b.replicas, b.leaders, b.alive)
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
