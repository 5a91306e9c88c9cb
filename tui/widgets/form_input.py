"""``FormInput``: an ``Input`` whose editing keys (backspace, delete, arrows, home, end, enter...) act in the
order they were typed.

Textual runs a focused widget's (non-priority) bindings only once the key has bubbled up to the app, while
an input inserts a printable key as soon as it reads it. In a burst of keys (a fast typist, a paste over
SSH), ``backspace 2`` in a field holding ``3`` inserted the 2 first and then deleted it, leaving the field
empty. A ``FormInput`` runs its editing bindings as it reads the key, so every key acts in turn.
"""

from __future__ import annotations

from textual import events
from textual.binding import Binding
from textual.widgets import Input

# Textual's own editing keys of Input (they have no ids, so a user's [keys] cannot remap them).
EDITING_ACTIONS: dict[str, str] = {binding.key: binding.action for binding in Binding.make_bindings(Input.BINDINGS)}


class FormInput(Input):
    """A form field: Textual's ``Input`` with its editing keys applied in the order typed."""

    async def on_key(self, event: events.Key) -> None:
        """Run an editing key now, in turn with the characters around it (not after it bubbled up)."""
        action = EDITING_ACTIONS.get(event.key)
        if action is not None:
            event.stop()
            event.prevent_default()
            await self.run_action(action)
