"""``AssignmentPreviewView``: the preview of an assignment before it is written.

A partitions x brokers grid (``L`` leader, ``r`` follower; existing partitions dimmed when expanding),
racks per partition, replicas and leaders per broker as bars, and the skew metrics (before and after
when expanding).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from core.console.assignment_preview import AssignmentPreview, BrokerSlot
from core.kafka.assignment_metrics import AssignmentMetrics
from tui.widgets.virtual_table import Column, Row, VirtualTable

BAR_WIDTH = 12


def grid_columns(brokers: tuple[BrokerSlot, ...]) -> list[Column]:
    """``p``, one column per broker, then racks."""
    columns = [Column("partition", "p", align="right")]
    columns += [Column(f"broker_{b.id}", f"b{b.id}" if b.alive else f"b{b.id}!", align="right") for b in brokers]
    columns.append(Column("racks", "racks", max_width=40))
    return columns


def grid_rows(preview: AssignmentPreview) -> list[Row]:
    """One row per partition: existing ones (dimmed) first, then the new ones, marked ``+`` when there are
    existing ones (meaning never rests on the shade alone)."""
    racks = {b.id: b.rack for b in preview.brokers}
    rows: list[Row] = []
    for partitions, meaning in ((preview.existing, "existing"), (preview.assignment, None)):
        for partition, replicas in partitions:
            new = meaning is None and bool(preview.existing)
            cells = [f"+{partition}" if new else str(partition)]
            for broker in preview.brokers:
                if replicas and broker.id == replicas[0]:
                    cells.append("L")
                elif broker.id in replicas:
                    cells.append("r")
                else:
                    cells.append("·")
            used = [racks.get(r) or "-" for r in replicas]
            cells.append(f"{len(set(used))}: {','.join(used)}" if any(racks.values()) else "-")
            meanings = frozenset({meaning}) if meaning else frozenset()
            if any(not b.alive and b.id in replicas for b in preview.brokers):
                meanings = meanings | {"offline"}
            values = (partition, *(("L" if c == "L" else "r" if c == "r" else None) for c in cells[1:-1]), used)
            rows.append(Row(str(partition), tuple(cells), meanings, values, replicas))
    return rows


def bars_text(preview: AssignmentPreview) -> str:
    """Replicas and leaders per broker, as bars scaled to the busiest broker of each."""
    metrics = preview.metrics
    if metrics is None:
        return ""
    most = max([*metrics.replicas_per_broker.values(), 1])
    lines = []
    for broker in preview.brokers:
        replicas = metrics.replicas_per_broker.get(broker.id, 0)
        leaders = metrics.leaders_per_broker.get(broker.id, 0)
        bar = "█" * round(BAR_WIDTH * replicas / most)
        # One scale for both bars (the busiest broker's replicas): 2 leaders never draw as long as 6 replicas.
        lead = "█" * round(BAR_WIDTH * leaders / most)
        rack = broker.rack or "-"
        dead = " not registered" if not broker.alive else ""
        lines.append(
            f"b{broker.id:<4} {rack:<8} {bar:<{BAR_WIDTH}} {replicas:>5,} replicas  {lead:<{BAR_WIDTH}} "
            f"{leaders:>5,} leaders{dead}"
        )
    return "\n".join(lines)


def metrics_text(metrics: AssignmentMetrics | None, label: str = "") -> str:
    """The skew metrics on one line."""
    if metrics is None:
        return ""
    racks = list(metrics.racks_per_partition.values())
    rack_text = f"racks per partition {min(racks)}-{max(racks)}" if racks else "no racks"
    prefix = f"{label}: " if label else ""
    return (
        f"{prefix}skew: replicas {metrics.replica_skew}, leaders {metrics.leader_skew} · {rack_text} · "
        f"rack violations {len(metrics.rack_violations)}"
    )


class AssignmentPreviewView(Vertical):
    """Metrics, bars and grid of one preview."""

    def compose(self) -> ComposeResult:
        yield Static("", id="preview-metrics", markup=False)
        yield Static("", id="preview-bars", markup=False)
        yield VirtualTable([], empty_text="no preview yet", id="preview-grid")

    def on_mount(self) -> None:
        self.query_one("#preview-grid").border_title = "Preview (L leader, r replica)"

    def show(self, preview: AssignmentPreview | None, note: str = "") -> None:
        """Render ``preview`` (``None``: clear it)."""
        grid = self.query_one("#preview-grid", VirtualTable)
        if preview is None:
            self.query_one("#preview-metrics", Static).update(note)
            self.query_one("#preview-bars", Static).update("")
            grid.set_rows([])
            return
        lines = []
        if preview.metrics_before is not None:
            lines.append(metrics_text(preview.metrics_before, "before"))
            lines.append(metrics_text(preview.metrics, "after"))
        else:
            lines.append(metrics_text(preview.metrics))
        origin = (
            "manual assignment"
            if preview.manual
            else (
                f"Kafka's algorithm, seed {preview.seed}"
                if preview.seed is not None
                else "Kafka's algorithm (fixed start)"
            )
        )
        lines.append(f"{len(preview.assignment):,} new partition(s) · {origin}" + (f" · {note}" if note else ""))
        self.query_one("#preview-metrics", Static).update("\n".join(lines))
        self.query_one("#preview-bars", Static).update(bars_text(preview))
        grid.set_columns(grid_columns(preview.brokers))
        grid.set_rows(grid_rows(preview))
        legend = "L leader, r replica" + (", +N new partition" if preview.existing else "")
        grid.border_title = f"Preview ({legend})"
