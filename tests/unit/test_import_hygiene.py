"""The import rules: core stays headless (never loads textual, rich or tui); tui talks to clusters only through core."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
from pathlib import Path

import core

ROOT = Path(__file__).resolve().parents[2]


def _core_modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(core.__path__, "core.") if "pyspark" not in m.name)


_UI_LOADED = (
    "import importlib, sys\n"
    "for name in sys.argv[1:]:\n"
    "    importlib.import_module(name)\n"
    "    bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich', 'tui'))\n"
    "    if bad:\n"
    "        print(name + ':' + ','.join(bad))\n"
    "        break\n"
)


def _ui_loaded_by(*modules: str) -> str:
    """What textual/rich/tui modules importing `modules` in order loads, named after the first that loaded one."""
    out = subprocess.run(
        [sys.executable, "-c", _UI_LOADED, *modules], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return out.stdout.strip()


def test_every_core_module_imports_without_textual_rich_or_tui() -> None:
    modules = _core_modules()
    assert "core.sandbox.local_cluster" in modules and "core.zookeeper.session" in modules
    # What one interpreter holds after importing every core module is the union of what each module loads, so
    # one interpreter finds whether any of them loads the UI; only then is each module tried in a fresh one, to
    # name the ones that do (a module must not rely on another having loaded the UI first).
    if not _ui_loaded_by(*modules):
        return
    offenders = {name: found for name in modules if (found := _ui_loaded_by(name))}
    assert offenders == {}


def test_the_console_reaches_zookeeper_kafka_and_spark_only_through_core() -> None:
    """No module under tui/ imports kazoo, confluent_kafka or pyspark itself (read from the source)."""
    clients = {"kazoo", "confluent_kafka", "pyspark"}
    offenders = {}
    for source in sorted((ROOT / "tui").rglob("*.py")):
        tree = ast.parse(source.read_text(encoding="utf-8"), filename=str(source))
        imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        bad = sorted(name for name in imported if name.split(".")[0] in clients)
        if bad:
            offenders[str(source.relative_to(ROOT))] = bad
    assert offenders == {}
