"""The partitions behind a number: every partition of the cluster with one health problem (Enter on a health
counter of the cluster screen), or every partition a broker leads or hosts (Enter on a broker row). Enter
opens the partition's topic; ``z`` on a broker's list opens its registration znode; ``h`` shows the selected
partition's ISR history from the history store ``$KZC_HISTORY`` names (read in a worker)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Label

from core.console.view import ClusterView, PartitionRow, partition_rows
from core.history.isr import partition_history_lines
from core.kafka.znodes.paths import broker_path
from tui.dialogs.history import HistoryDialog
from tui.messages import TopicChosen, ZnodeChosen
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = (
    Column("topic", "topic", max_width=80),
    Column("partition", "p", align="right"),
    Column("role", "role"),
    Column("leader", "leader", align="right"),
    Column("replicas", "replicas"),
    Column("isr", "isr"),
    Column("health", "health"),
    Column("note", "note", max_width=200),
)
HISTORY_WINDOW_MS = 7 * 86_400_000  # how far back ``h`` looks
# The partition flags behind each health counter (offline counts partitions without a state too).
HEALTH_FLAGS = {
    "offline": frozenset({"offline", "no-state"}),
    "under-replicated": frozenset({"under-replicated"}),
    "under-min-isr": frozenset({"under-min-isr"}),
    "non-preferred": frozenset({"non-preferred"}),
}


@dataclass(frozen=True)
class PartitionSelection:
    """Which partitions: those with one of ``HEALTH_FLAGS[health]``, or those on ``broker``."""

    title: str
    health: str | None = None
    broker: int | None = None

    def role(self, row: PartitionRow) -> str | None:
        """``leader``/``follower`` on the broker, ``""`` for a health list, ``None`` when not selected."""
        if self.broker is not None:
            if self.broker not in row.replicas and row.leader != self.broker:
                return None
            return "leader" if row.leader == self.broker else "follower"
        return "" if self.health is not None and row.flags & HEALTH_FLAGS[self.health] else None


def selected_rows(view: ClusterView, selection: PartitionSelection) -> list[Row]:
    """The table rows of every selected partition, by topic then partition (pure; any thread)."""
    rows: list[Row] = []
    snapshot = view.snapshot
    for name in sorted(snapshot.topics):
        for p in partition_rows(snapshot, snapshot.topics[name]):
            role = selection.role(p)
            if role is None:
                continue
            leader = "-" if p.leader is None else str(p.leader)
            replicas, isr = ",".join(map(str, p.replicas)), ",".join(map(str, p.isr))
            cells = (name, str(p.partition), role, leader, replicas, isr, p.health, p.note)
            values = (name, p.partition, role, p.leader, list(p.replicas), list(p.isr), p.health, p.note)
            rows.append(Row(f"{name}:{p.partition}", cells, p.flags, values, name))
    return rows


class PartitionsScreen(KzcScreen):
    """The partitions behind a health counter or on a broker, live."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("z", "registration", "Broker znode", id="open_broker_znode"),
        Binding("h", "history", "ISR history", id="partition_history"),
    ]

    def __init__(self, selection: PartitionSelection) -> None:
        """``selection``: which partitions to list."""
        super().__init__()
        self.selection = selection

    @property
    def view_name(self) -> str:
        """Exports are named after the selection."""
        return f"partitions-{self.selection.health or f'broker-{self.selection.broker}'}"

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label(self.selection.title, id="partitions-title")
        yield VirtualTable(COLUMNS, empty_text="no such partition now", id="selected-partitions")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#selected-partitions", VirtualTable).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``z`` only on a broker's list."""
        return self.selection.broker is not None if action == "registration" else True

    def prepare(self, view: ClusterView) -> list[Row]:
        """The rows, derived in the view worker."""
        return selected_rows(view, self.selection)

    def show_view(self, view: ClusterView, prepared: object = None) -> None:
        """Show the selected partitions of ``view``."""
        rows = prepared if isinstance(prepared, list) else selected_rows(view, self.selection)
        self.query_one("#selected-partitions", VirtualTable).set_rows(rows)
        text = f"{self.selection.title}: {len(rows):,} partitions"
        if self.selection.broker is not None:
            leads = sum(1 for r in rows if r.cells[2] == "leader")
            text += f" · leads {leads:,}, follows {len(rows) - leads:,}"
        self.query_one("#partitions-title", Label).update(text)

    @on(VirtualTable.Selected, "#selected-partitions")
    def _open(self, event: VirtualTable.Selected) -> None:
        self.post_message(TopicChosen(str(event.row.data)))

    def action_registration(self) -> None:
        """Open the broker's registration znode."""
        if self.selection.broker is not None:
            self.post_message(ZnodeChosen(broker_path(self.selection.broker)))

    def action_history(self) -> None:
        """The selected partition's ISR history from the history store (a worker reads it)."""
        row = self.query_one("#selected-partitions", VirtualTable).current_row
        if row is not None:
            self._read_history(str(row.cells[0]), int(row.cells[1]))

    @work(thread=True, exclusive=True, exit_on_error=False, group="partition-history")
    def _read_history(self, topic: str, partition: int) -> None:
        lines = partition_history_lines(topic, partition, int(time.time() * 1000) - HISTORY_WINDOW_MS)
        self.app.call_from_thread(self.app.push_screen, HistoryDialog(f"ISR history of {topic}-{partition}", lines))
