"""What the create-topic and add-partitions forms share: a labelled field, and a plan's dry run."""

from __future__ import annotations

from typing import Any, Protocol

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Label, Static

from core.console.protocols import PlannedWrite
from core.kafka.znodes import PartitionState
from core.snapshot.model import TopicEntry


def form_field(label: str, widget: Any) -> ComposeResult:
    """``widget`` on one line after its ``label``."""
    with Horizontal(classes="field"):
        yield Label(label)
        yield widget


def dry_run_text(writes: tuple[PlannedWrite, ...], warnings: tuple[str, ...] = ()) -> str:
    """What a plan would do, one write per paragraph: broker requests (AdminClient) or znode writes."""
    if writes and all(w.op == "admin" for w in writes):
        lines = ["DRY RUN: nothing is sent. This request would go to the brokers (AdminClient):"]
    else:
        lines = ["DRY RUN: nothing is written. These znodes would be written in one ZooKeeper multi-op:"]
    for write in writes:
        version = f" (if version is {write.expected_version})" if write.expected_version is not None else ""
        lines.append(f"{write.path}" if write.op == "admin" else f"{write.op} {write.path}{version}")
        if write.data:
            lines.append(f"    {write.data}")
    lines += warnings
    return "\n".join(lines)


class _Planned(Protocol):
    @property
    def writes(self) -> tuple[PlannedWrite, ...]: ...
    @property
    def warnings(self) -> tuple[str, ...]: ...


def show_dry_run(screen: Screen[Any], plan: _Planned | None) -> None:
    """Show ``plan``'s dry run in the form's ``#dry-run`` pane (or say there is nothing to show)."""
    if plan is None:
        screen.notify("nothing to dry-run: fix the form first", severity="warning")
        return
    dry = screen.query_one("#dry-run", Static)
    dry.update(dry_run_text(plan.writes, plan.warnings))
    dry.add_class("-shown")


def partitions_online(entry: TopicEntry) -> tuple[int, int]:
    """``(online, total)``: partitions with a leader, of all the topic's partitions."""
    online = sum(1 for s in entry.states.values() if isinstance(s, PartitionState) and s.leader >= 0)
    return online, len(entry.partition_ids)


def hide_dry_run(screen: Screen[Any]) -> None:
    """Clear the dry run: after a write it no longer describes anything to come."""
    screen.query_one("#dry-run", Static).remove_class("-shown")
