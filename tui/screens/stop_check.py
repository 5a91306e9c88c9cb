"""The stop-check screen (``i`` on a broker row): what stopping that broker now would do, from the latest
snapshot (``core.snapshot.stop_check``, computed in a worker): partitions that go offline, fall under
``min.insync.replicas`` (``acks=all`` fails), are left with one in-sync copy, and where leaders move."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Label

from core.snapshot.model import ClusterSnapshot
from core.snapshot.stop_check import PartitionChange, StopCheck, stop_check
from tui.screens.base import KzcScreen
from tui.widgets.filter_bar import FilterBar
from tui.widgets.key_bar import KeyBar
from tui.widgets.status_bar import StatusBar
from tui.widgets.virtual_table import Column, Row, VirtualTable

COLUMNS = (
    Column("impact", "impact"),
    Column("partition", "partition", max_width=60),
    Column("leader", "leader now -> after"),
    Column("isr", "ISR now -> after"),
    Column("acks_all", "acks=all after", max_width=80),
)


def _ids(values: tuple[int, ...]) -> str:
    return ",".join(map(str, values)) or "-"


def impact_rows(result: StopCheck) -> list[Row]:
    """One row per touched partition, worst first: offline, under min ISR, min ISR unknown, one copy, moves."""

    def impact(c: PartitionChange) -> tuple[int, str, str]:
        if c.goes_offline:
            return 0, "offline", "offline"
        if c.falls_under_min_isr:
            return 1, "under min ISR", "under-min-isr"
        if c.falls_under_min_isr is None:
            return 2, "min ISR unknown", "warning"
        if c.single_in_sync_copy:
            return 3, "one in-sync copy", "under-replicated"
        if c.leader_moves:
            return 4, "leader moves", "non-preferred"
        return 5, "ISR shrinks", "muted"

    rows = []
    for c in sorted(result.changes, key=lambda c: (impact(c)[0], c.topic, c.partition)):
        _, label, meaning = impact(c)
        before = "-" if c.leader_before is None else str(c.leader_before)
        after = "none" if c.leader_after is None else str(c.leader_after)
        cells = (label, f"{c.topic}-{c.partition}", f"{before} -> {after}",
                 f"{_ids(c.isr_before)} -> {_ids(c.isr_after)}", c.after.acks_all_text)  # fmt: skip
        rows.append(Row(f"{c.topic}-{c.partition}", cells, frozenset({meaning}), cells, c))
    return rows


def summary_text(result: StopCheck) -> str:
    """The verdict and the counts."""
    who = ", ".join(map(str, result.brokers))
    verdict = "SAFE" if result.safe else "NOT SAFE"
    text = (
        f"Stopping broker {who} now: {verdict} · {len(result.offline):,} offline · "
        f"{len(result.under_min_isr):,} under min.insync.replicas · {len(result.min_isr_unknown):,} min ISR unknown · "
        f"{len(result.single_copy):,} left with one in-sync copy · {len(result.leader_moves):,} leaders move"
    )
    if result.unknown_brokers:
        text += f" · not registered now: {', '.join(map(str, result.unknown_brokers))}"
    return text


class StopCheckScreen(KzcScreen):
    """What stopping a broker now would do to every partition it holds."""

    VIEW_NAME = "stop-check"

    def __init__(self, broker: int, snapshot: ClusterSnapshot | None) -> None:
        super().__init__()
        self.broker = broker
        self.snapshot = snapshot
        self.result: StopCheck | None = None

    def compose(self) -> ComposeResult:
        yield StatusBar()
        yield FilterBar()
        yield Label(f"working out what stopping broker {self.broker} would do…", id="stop-check-summary")
        yield VirtualTable(COLUMNS, empty_text="no partition changes", id="stop-check", classes="panel")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#stop-check").border_title = f"If broker {self.broker} stopped now"
        self.query_one("#stop-check", VirtualTable).focus()
        if self.snapshot is None:
            self.query_one("#stop-check-summary", Label).update("no snapshot of the cluster yet")
            return
        self._compute(self.snapshot)

    class Computed(Message):
        """The stop check's result."""

        def __init__(self, result: StopCheck) -> None:
            super().__init__()
            self.result = result

    @work(thread=True, exclusive=True, exit_on_error=False, group="stop-check")
    def _compute(self, snapshot: ClusterSnapshot) -> None:
        result = stop_check(snapshot, [self.broker])
        self.post_message(self.Computed(result))

    @on(Computed)
    def _on_computed(self, message: Computed) -> None:
        self._show(message.result)

    def _show(self, result: StopCheck) -> None:
        self.result = result
        summary = self.query_one("#stop-check-summary", Label)
        summary.update(summary_text(result))
        summary.set_class(not result.safe, "-unsafe")
        self.query_one("#stop-check", VirtualTable).set_rows(impact_rows(result))

    def export_payload(self) -> dict[str, Any] | None:
        """The prediction, as ``kzc broker stop-check --json`` prints it."""
        return self.result.to_json() if self.result is not None else None
