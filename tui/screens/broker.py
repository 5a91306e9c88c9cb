"""The broker screen (Enter on a broker row): what the broker leads and hosts, its replicas out of the ISR and
who leads them, the offline partitions it hosts, its registration (endpoints, rack, since, JSON version,
broker epoch), the ZooKeeper session owning the registration and its log dirs (path and size, offline dirs
named, the replicas in no online dir) with each replica's size and dir (``core.snapshot.broker_view``;
the live part read in a worker, ``r`` again), its configs (dynamic ones from ZooKeeper, and every non-default
one with its source where the brokers report it; ``C`` edits its dynamic configs, ``D`` the cluster default).
``p`` lists its partitions, ``i`` the stop check. Its traffic (``tui.widgets.traffic_panel``): messages and
bytes in per second as leader, a sparkline of the last minutes, each log dir's used bytes, growth per hour and
time until full (or why not)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.widgets import Static

from core.configs.broker import BrokerConfigsView
from core.console.protocols import BrokerSource, MetricsSource, TrafficSource
from core.console.view import ClusterView
from core.human_size import human_size as size_text
from core.metrics.text import broker_metric_lines
from core.snapshot.broker_view import BrokerLive, BrokerView, HostedReplica, broker_view
from core.traffic.ticker import TrafficView
from tui.messages import BrokerConfigEditRequested, PartitionsChosen, StopCheckRequested
from tui.screens.base import KzcScreen
from tui.widgets.event_log import clock_text
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.traffic_panel import PanelContent, TrafficPanel, dir_text, history_caption, rates_line
from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = (
    Column("partition", "partition", max_width=60),
    Column("role", "role"),
    Column("leader", "leader", align="right"),
    Column("isr", "ISR"),
    Column("size", "size", align="right"),
    Column("dir", "log dir", max_width=40),
    Column("problem", "problem", max_width=120),
)


CONFIG_COLUMNS = (
    Column("name", "config", max_width=60),
    Column("value", "value", max_width=60),
    Column("source", "source"),
)


def config_rows(configs: BrokerConfigsView) -> list[Row]:
    """Dynamic ones first (the broker's own, then the cluster default), then the static ones."""
    order = {"DYNAMIC_BROKER_CONFIG": 0, "DYNAMIC_DEFAULT_BROKER_CONFIG": 1}
    ranked = sorted(configs.rows, key=lambda r: (order.get(r.source, 2), r.name))
    return [Row(f"{r.source}:{r.name}", (r.name, "-" if r.value is None else r.value, r.source)) for r in ranked]


def hosted_rows(view: BrokerView, live: BrokerLive | None) -> list[Row]:
    """Offline partitions first, then its replicas out of the ISR, then the rest."""

    def rank(r: HostedReplica) -> int:
        return 0 if r.offline is not None else 1 if not r.in_isr else 2

    rows = []
    dirs = live.log_dirs if live is not None and live.log_dirs is not None and live.log_dirs.dirs is not None else None
    sizes = dirs.sizes() if dirs is not None else None
    missing = set(live.missing) if live is not None else set()
    for r in sorted(view.hosted, key=lambda r: (rank(r), r.topic, r.partition)):
        role = "leader" if r.leader == view.broker_id else "follower" if r.in_isr else "out of ISR"
        meaning = {0: "offline", 1: "under-replicated", 2: ""}[rank(r)]
        size = sizes.get((r.topic, r.partition)) if sizes is not None else None
        where = (dirs.dir_of((r.topic, r.partition)) or "-") if dirs is not None else "?"
        problem = r.offline or ("in no online log dir" if r.name in missing else "")
        cells = (r.name, role, "-" if r.leader is None else str(r.leader), ",".join(map(str, r.isr)) or "-",
                 size_text(size) if size is not None else "?", where, problem)  # fmt: skip
        values = (*cells[:4], size, where, problem)
        rows.append(Row(r.name, cells, frozenset({meaning}) if meaning else frozenset(), values, r))
    return rows


def log_dir_text(live: BrokerLive) -> list[str]:
    """Its log dirs on one line (path and size, or OFFLINE / the error), and its replicas in no online dir."""
    dirs = live.log_dirs.dirs if live.log_dirs is not None else None
    if not dirs:
        return []
    parts = [f"{d.path} " + ("OFFLINE" if d.offline else d.error_name or size_text(d.size)) for d in dirs]
    lines = ["log dirs: " + " · ".join(parts)]
    if live.missing:
        shown = ", ".join(live.missing[:5]) + (f" … (+{len(live.missing) - 5:,})" if len(live.missing) > 5 else "")
        lines.append(f"{len(live.missing):,} replicas in no online log dir (were on an offline dir): {shown}")
    return lines


def header_lines(view: BrokerView, live: BrokerLive | None, now_ms: int) -> list[str]:
    """Registration, session, log size and dirs, and the counts."""
    if not view.registered or view.problem:
        head = f"broker {view.broker_id}: {view.problem}"
    else:
        since = f"{clock_text(view.registered_ms)}" if view.registered_ms else "-"
        where = f"{', '.join(view.endpoints) or '-'} · rack {view.rack or '-'}"
        version = f"JSON v{view.registration_version}, broker epoch {view.broker_epoch}"
        head = f"broker {view.broker_id} · {where} · registered {since} ({version})"
    lines = [head]
    if live is None:
        lines.append("ZooKeeper session and log dirs: reading…")
    else:
        owner = f"ZooKeeper session {hex(live.session_id)}" if live.session_id is not None else "unknown"
        owner += f" ({live.session_note})" if live.session_note else ""
        size = size_text(live.total_bytes) if live.total_bytes is not None else "unknown"
        read = f", read {clock_text(live.log_dirs.read_ms)}" if live.log_dirs is not None else ""
        lines.append(f"registration owned by: {owner} · log size {size}{read}")
        dirs = log_dir_text(live)
        lines += dirs
        if live.log_note and not (dirs and live.log_dirs is not None and live.log_dirs.dirs is not None):
            lines.append(live.log_note)  # why the log dirs are unknown
    lines.append(
        f"hosts {len(view.hosted):,} · leads {len(view.leads):,} · out of ISR {len(view.out_of_isr):,} · "
        f"offline {len(view.offline):,}"
    )
    return lines


LIVE_EVERY_S = 30.0  # how often the shown broker's session and log dirs are read again


def _registration(view: BrokerView) -> tuple[object, ...]:
    """What identifies one registration of the broker (a restart makes a new one)."""
    return view.registered, view.registered_ms, view.broker_epoch, view.plaintext


class BrokerScreen(KzcScreen):
    """One broker."""

    VIEW_NAME = "broker"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("p", "partitions", "Partitions", id="broker_partitions"),
        Binding("i", "stop_check", "Stop impact", id="broker_stop_check"),
        Binding("r", "reload", "Reload", id="reload_broker"),
        Binding("C", "edit_config", "Config", id="edit_broker_config"),
        Binding("D", "edit_default", "Default config", show=False, id="edit_broker_default"),
    ]

    def __init__(
        self,
        broker: int,
        source: BrokerSource,
        now_ms: Callable[[], int],
        traffic: TrafficSource | None = None,
        metrics: MetricsSource | None = None,
    ) -> None:
        """``traffic``: its rates and log dirs' growth (none: not shown); ``metrics``: its exporter's figures,
        scraped on the traffic's cadence (none, or no metrics URL: not shown)."""
        super().__init__()
        self.broker = broker
        self.source = source
        self.traffic = traffic
        self.metrics = metrics
        self.now_ms = now_ms
        self.view: BrokerView | None = None
        self.live: BrokerLive | None = None
        self.configs: BrokerConfigsView | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Static("", id="broker-header", classes="panel")
        if self.traffic is not None:
            yield TrafficPanel(self._derive_traffic, id="broker-traffic", classes="panel")
        yield VirtualTable(COLUMNS, empty_text="no replica on this broker", id="broker-replicas", classes="panel")
        yield VirtualTable(CONFIG_COLUMNS, empty_text="reading…", id="broker-configs", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#broker-header").border_title = f"Broker {self.broker}"
        self.query_one("#broker-replicas").border_title = "Its replicas"
        self.query_one("#broker-configs").border_title = "Its configs (dynamic, and non-default as it reports them)"
        self.query_one("#broker-replicas", VirtualTable).focus()
        if self.traffic is not None:
            panel = self.query_one("#broker-traffic", TrafficPanel)
            panel.border_title = "Traffic"
            panel.start(self, self.traffic)

    def on_screen_resume(self) -> None:
        super().on_screen_resume()
        if self.traffic is not None:
            self.query_one("#broker-traffic", TrafficPanel).resume()

    def _derive_traffic(self, traffic: TrafficView) -> PanelContent:
        """Worker thread: its rates as leader, its log dirs' growth, the last minutes for the sparkline, and its
        metrics where a metrics URL is set."""
        lines = [rates_line("in as leader", traffic.broker(self.broker), traffic)]
        if traffic.traffic is not None:
            lines += [dir_text(r) for r in traffic.traffic.log_dirs() if r.broker == self.broker]
        history = traffic.broker_history(self.broker)
        lines.append(history_caption(history))
        found = self.metrics.broker_metrics(self.broker) if self.metrics is not None else None
        for b in found or ():  # its metrics, or why its endpoint failed
            lines += broker_metric_lines(b)
        return PanelContent(lines, [v for v in history if v is not None])

    def prepare(self, view: ClusterView) -> object:
        return broker_view(view.snapshot, self.broker)

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        before = self.view
        self.view = prepared if isinstance(prepared, BrokerView) else broker_view(view.snapshot, self.broker)
        self._draw()
        if before is None:
            self._read_live(self.view)
            self._read_configs()
            self.set_interval(LIVE_EVERY_S, self._refresh_live)
        elif _registration(before) != _registration(self.view):
            self._read_live(self.view)  # it left, came back or restarted: the session and log dirs shown are gone

    def _refresh_live(self) -> None:
        # Log sizes grow and dirs fail: read them again while the screen is shown (one DescribeLogDirs to one
        # broker and one ZooKeeper read), never behind another screen.
        if self.view is not None and self.is_current:
            self._read_live(self.view)

    class ConfigsRead(Message):
        """The broker's configs."""

        def __init__(self, configs: BrokerConfigsView) -> None:
            super().__init__()
            self.configs = configs

    @work(thread=True, exclusive=True, exit_on_error=False, group="broker-configs")
    def _read_configs(self) -> None:
        configs = self.source.broker_configs(self.broker)
        self.post_message(self.ConfigsRead(configs))

    @on(ConfigsRead)
    def _on_configs_read(self, message: ConfigsRead) -> None:
        self._configs_read(message.configs)

    def _configs_read(self, configs: BrokerConfigsView) -> None:
        self.configs = configs
        table = self.query_one("#broker-configs", VirtualTable)
        table.empty_text = configs.note or "no non-default config"
        table.set_rows(config_rows(configs))
        table.border_subtitle = configs.note if configs.rows and configs.note else ""

    class LiveRead(Message):
        """What only live sources say of the broker."""

        def __init__(self, live: BrokerLive) -> None:
            super().__init__()
            self.live = live

    @work(thread=True, exclusive=True, exit_on_error=False, group="broker-live")
    def _read_live(self, view: BrokerView) -> None:
        live = self.source.broker_live(view)
        self.post_message(self.LiveRead(live))

    @on(LiveRead)
    def _on_live_read(self, message: LiveRead) -> None:
        self._live_read(message.live)

    def _live_read(self, live: BrokerLive) -> None:
        self.live = live
        self._draw()

    def _draw(self) -> None:
        if self.view is None or not self.is_mounted:
            return
        self.query_one("#broker-header", Static).update("\n".join(header_lines(self.view, self.live, self.now_ms())))
        self.query_one("#broker-replicas", VirtualTable).set_rows(hosted_rows(self.view, self.live))

    def action_partitions(self) -> None:
        """The partitions it leads and hosts, with their health."""
        self.post_message(PartitionsChosen(f"partitions on broker {self.broker}", None, self.broker))

    def action_stop_check(self) -> None:
        """What stopping it now would do."""
        self.post_message(StopCheckRequested(self.broker))

    def action_reload(self) -> None:
        """Read the session and the log dirs again."""
        if self.view is not None:
            self.live = None
            self._draw()
            self._read_live(self.view)
            self._read_configs()

    def action_edit_config(self) -> None:
        """Change this broker's dynamic configs, with the diff previewed."""
        self.post_message(BrokerConfigEditRequested(str(self.broker)))

    def action_edit_default(self) -> None:
        """Change the cluster-wide default broker configs."""
        self.post_message(BrokerConfigEditRequested("<default>"))

    def export_payload(self) -> dict[str, Any] | None:
        """The view, as ``kzc broker ID --json`` prints it."""
        if self.view is None:
            return None
        return {**self.view.to_json(), **(self.live.to_json() if self.live is not None else {})}
