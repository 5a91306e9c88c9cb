"""The console's shape: no import cycles in ``tui/``, no ``TYPE_CHECKING`` back-references, and screens
that never reach up into the app (they receive what they use and post messages)."""

from __future__ import annotations

import ast
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "tui"


def _module(path: Path) -> str:
    parts = path.relative_to(TUI.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in TUI.rglob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tui"):
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("tui"))
        graph[_module(path)] = found
    return {name: {i for i in deps if i in graph and i != name} for name, deps in graph.items()}


def test_tui_has_no_import_cycle() -> None:
    graph = _imports()
    state: dict[str, int] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for dep in graph[name]:
            assert state.get(dep) != 1, "import cycle: " + " -> ".join([*trail, name, dep])
            if dep not in state:
                visit(dep, [*trail, name])
        state[name] = 2

    for name in graph:
        if name not in state:
            visit(name, [])


def test_tui_has_no_type_checking_back_reference() -> None:
    offenders = [p.name for p in TUI.rglob("*.py") if "TYPE_CHECKING" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_screens_and_widgets_never_reach_into_the_app() -> None:
    offenders = []
    for path in [*TUI.glob("screens/*.py"), *TUI.glob("widgets/*.py"), *TUI.glob("dialogs/*.py")]:
        text = path.read_text(encoding="utf-8")
        if "tui.app" in text or ".kzc" in text or "self.app.backend" in text or "self.app.view" in text:
            offenders.append(path.name)
    assert offenders == []


def test_the_app_acts_on_every_request_to_open_a_screen() -> None:
    # A screen holds the keys typed after it asks for another screen until the app has acted on the request
    # (KzcScreen.hold): a request the app never handles would hold them for HOLD_AT_MOST_S.
    from tui.app import KzcApp
    from tui.messages import OpenRequested

    handled = {message for message, _ in KzcApp._navigate._textual_on}  # type: ignore[attr-defined]
    assert set(OpenRequested.__subclasses__()) == handled
