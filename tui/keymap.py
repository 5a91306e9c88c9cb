"""Every binding of the console by id, and the user's ``[keys]`` remaps checked against them.

Bindings are declared where they act (app, screens, widgets); this module lists them all for the help
screen and for ``docs/console.md``, and validates the config file's ``[keys]`` so that a typo in an id is
reported rather than silently ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from textual.binding import Binding
from textual.dom import DOMNode

# Bindings that change the cluster: read-only mode hides them from the key line, help and palette (the keys
# still answer, with why they are refused).
MUTATION_IDS = frozenset({"create_topic", "expand_topic", "delete_topic", "delete_matching", "reshuffle", "dry_run",
                          "submit", "move_off", "elect_preferred", "edit_config"})  # fmt: skip
# The keys that move a recorded moment (kzc --at): listed by ? only there.
MOMENT_IDS = frozenset({"moment_previous", "moment_next", "moment_back", "moment_on"})


@dataclass(frozen=True, slots=True)
class BindingInfo:
    """One binding as the help screen lists it."""

    id: str
    keys: str
    description: str
    where: str


def _bindings_of(node_class: type[DOMNode]) -> list[Binding]:
    found: list[Binding] = []
    for item in getattr(node_class, "BINDINGS", []):
        if isinstance(item, Binding):
            found.append(item)
    return found


def catalog(owners: Iterable[tuple[str, type[DOMNode]]], keymap: Mapping[str, str]) -> list[BindingInfo]:
    """Every binding with an id of ``owners`` (``(where, class)``), with ``keymap`` applied."""
    seen: set[tuple[str, str]] = set()
    result: list[BindingInfo] = []
    for where, owner in owners:
        for binding in _bindings_of(owner):
            if binding.id is None or (binding.id, where) in seen:
                continue
            seen.add((binding.id, where))
            keys = keymap.get(binding.id, binding.key)
            result.append(BindingInfo(binding.id, display_keys(keys), binding.description or binding.action, where))
    return result


_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "colon": ":",
    "plus": "+",
    "minus": "-",
    "space": "space",
    "escape": "esc",
    "pageup": "PgUp",
    "pagedown": "PgDn",
}


def display_keys(keys: str) -> str:
    """``question_mark,f1`` as ``? f1``."""
    return " ".join(_NAMES.get(k.strip(), k.strip()) for k in keys.split(","))


def check_keymap(keys: Mapping[str, str], known_ids: Iterable[str]) -> list[str]:
    """Problems with the config file's ``[keys]``: unknown ids and empty keys."""
    known = set(known_ids)
    problems = []
    for binding_id, key in sorted(keys.items()):
        if binding_id not in known:
            problems.append(f"[keys] {binding_id}: no binding has this id (see ? for the list)")
        elif not key.strip():
            problems.append(f"[keys] {binding_id}: the key is empty")
    return problems
