"""What the create-topic and add-partitions forms share: a labelled field, and a plan's dry run."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Label, Static

from core.errors import KzcError
from core.topics.plan import CreatePlan, ExpandPlan
from core.topics.write import describe_writes, planned_writes


def form_field(label: str, widget: Any) -> ComposeResult:
    """``widget`` on one line after its ``label``."""
    with Horizontal(classes="field"):
        yield Label(label)
        yield widget


def show_dry_run(screen: Screen[Any], plan: CreatePlan | ExpandPlan | None) -> None:
    """Show what applying ``plan`` would write or send (``core.topics.write.planned_writes``, the list the
    writers execute) in the form's ``#dry-run`` pane, or say there is nothing to show."""
    if plan is None:
        screen.notify("nothing to dry-run: fix the form first", severity="warning")
        return
    try:
        lines = describe_writes(planned_writes(plan))
    except KzcError as exc:
        lines = [f"DRY RUN: {exc}"]
    dry = screen.query_one("#dry-run", Static)
    dry.update("\n".join([*lines, *plan.warnings]))
    dry.add_class("-shown")


def hide_dry_run(screen: Screen[Any]) -> None:
    """Clear the dry run: after a write it no longer describes anything to come."""
    screen.query_one("#dry-run", Static).remove_class("-shown")
