"""The ZooKeeper health screen (``Z``, or ``zk health`` in the palette): every server of the connect string as
its four-letter words (or AdminServer) said at the last probe, the quorum, the leader's followers, Kafka's
session timeout against the servers' bounds, every alarm with its reason, and what could not be read and why.
The app's poller (``tui.zk_health_poll``) probes in a worker and hands each result here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.widgets import Static

from core.zookeeper.health import COLUMNS, EnsembleHealth, ServerHealth, server_cells, session_line, summary_line
from tui.screens.base import KzcScreen
from tui.widgets.event_log import clock_text
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

SERVER_COLUMNS = tuple(
    Column(key, title, align="left" if key in ("server", "mode", "zxid", "latency", "fds", "followers", "source")
           else "right")
    for key, title in COLUMNS
)  # fmt: skip


def server_row(s: ServerHealth) -> Row:
    """One server as a table row; unreachable and non-serving servers are errors, lagging ones warnings."""
    cells = server_cells(s)
    meanings: frozenset[str] = frozenset()
    if not s.reachable or s.serving is False:
        meanings = frozenset({"error"})
    elif s.mode == "leader":
        meanings = frozenset({"ok"})
    return Row(s.server, tuple(cells[key] for key, _ in COLUMNS), meanings, None, s)


ALARM_COLUMNS = (Column("severity", "severity"), Column("alarm", "alarm", max_width=400))


def alarm_rows(health: EnsembleHealth) -> list[Row]:
    """Every alarm, errors first, styled by severity."""
    ordered = sorted(health.alarms, key=lambda a: a.severity != "error")
    return [
        Row(str(n), (a.severity, a.text), frozenset({a.severity}), (a.severity, a.text), a)
        for n, a in enumerate(ordered)
    ]


def detail_lines(health: EnsembleHealth, stale: bool, problem: str | None, now_ms: int) -> list[str]:
    """The lines under the tables: when it was read, session timeouts, last answers, what could not be read."""
    age = (now_ms - health.at_ms) // 1000
    when = f"probed at {clock_text(health.at_ms)} ({age}s ago)"
    if stale:
        when = f"STALE: last probe at {clock_text(health.at_ms)} ({age}s ago)"
    if problem:
        when += f" · the latest probe failed: {problem}"
    lines = [f"{summary_line(health)} · {when}", session_line(health)]
    for s in health.servers:
        if not s.reachable and s.last_seen is not None:
            seen = s.last_seen
            lines.append(
                f"{s.server} last answered at {clock_text(seen.probed_at_ms)} "
                f"({(now_ms - seen.probed_at_ms) // 1000}s ago) as {seen.mode or 'unknown'}"
            )
        for p in s.problems:
            lines.append(f"{s.server}: {p}")
    lines += [f"note: {n}" for n in health.notes]
    return lines


class ZkHealthScreen(KzcScreen):
    """Every ZooKeeper server, the quorum and the alarms."""

    VIEW_NAME = "zk-health"

    def __init__(
        self, health: EnsembleHealth | None, stale: bool, problem: str | None, now_ms: Callable[[], int]
    ) -> None:
        """``health``: the latest probe (None: none finished yet); ``now_ms``: the app's clock."""
        super().__init__()
        self._health, self._stale, self._problem = health, stale, problem
        self.now_ms = now_ms

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield VirtualTable(
            SERVER_COLUMNS, empty_text="probing the ZooKeeper servers…", id="zk-servers", classes="panel"
        )
        yield VirtualTable(ALARM_COLUMNS, empty_text="no alarm", id="zk-alarms", classes="panel")
        yield Static("", id="zk-health-detail", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#zk-servers").border_title = "ZooKeeper servers"
        self.query_one("#zk-alarms").border_title = "Alarms"
        self.query_one("#zk-health-detail").border_title = "Quorum and sessions"
        self.query_one("#zk-servers", VirtualTable).focus()
        self._draw()

    def show_zk_health(self, health: EnsembleHealth | None, stale: bool, problem: str | None) -> None:
        """Draw a probe's result (UI thread)."""
        self._health, self._stale, self._problem = health, stale, problem
        if self.is_mounted:
            self._draw()

    def _draw(self) -> None:
        health, stale, problem = self._health, self._stale, self._problem
        detail = self.query_one("#zk-health-detail", Static)
        if health is None:
            detail.update(f"no probe finished yet{': ' + problem if problem else ''}")
            return
        self.query_one("#zk-servers", VirtualTable).set_rows([server_row(s) for s in health.servers])
        self.query_one("#zk-alarms", VirtualTable).set_rows(alarm_rows(health))
        detail.update("\n".join(detail_lines(health, stale, problem, self.now_ms())))
        detail.set_class(stale, "-stale")

    def export_payload(self) -> dict[str, Any] | None:
        """The whole health, as ``kzc zk health --json`` prints it."""
        return self._health.to_json() if self._health is not None else None
