"""A command imports only what it runs: ``kzc --help`` imports no command module, and neither it nor ``kzc describe``
loads Spark, pyarrow, the check rules, the console or the security plans (a ``watch -n1 kzc describe`` would pay
for them every second). The command table (``cli.commands.COMMANDS``) names every command's module."""

from __future__ import annotations

import argparse
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli.commands import COMMANDS
from core.snapshot.jsonl.write import write_snapshot_file
from core.testdata.builder import snapshot, topic

ROOT = Path(__file__).resolve().parents[2]
# What only some commands need: each costs from a tenth of a second to a second to import.
HEAVY = ("pyspark", "pyarrow", "numpy", "textual", "rich", "tui", "core.consistency.checks", "core.security")
# Run kzc in a fresh interpreter, then name every module it loaded (on stderr: stdout holds kzc's output).
_RUN = (
    "import sys\n"
    "from cli.main import main\n"
    "try:\n"
    "    main(sys.argv[1:])\n"
    "except SystemExit:\n"
    "    pass\n"
    "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
)


def _run(*argv: str) -> tuple[str, set[str]]:
    """kzc's output and the modules it loaded."""
    run = subprocess.run([sys.executable, "-c", _RUN, *argv], cwd=ROOT, capture_output=True, text=True, check=True)
    return run.stdout, set(run.stderr.split())


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(f"{h}.") for h in HEAVY))


def test_kzc_help_imports_no_command_module_and_nothing_heavy() -> None:
    out, loaded = _run("--help")
    assert "describe" in out
    assert "cli.main" in loaded and "cli.commands" in loaded
    assert sorted(m for m in loaded if re.fullmatch(r"cli\.\w+_cmd", m) and m != "cli.console_cmd") == []
    assert _heavy(loaded) == []
    assert sorted(m for m in loaded if m.split(".")[0] in ("kazoo", "confluent_kafka")) == []


def test_kzc_describe_help_imports_describe_and_nothing_heavy() -> None:
    out, loaded = _run("describe", "--help")
    assert out.startswith("usage: kzc describe")
    assert "cli.describe_cmd" in loaded
    assert _heavy(loaded) == []


def test_kzc_describe_itself_loads_nothing_heavy(tmp_path: Path) -> None:
    path = tmp_path / "cluster.jsonl"
    write_snapshot_file(snapshot(topics=[topic("orders", {0: [1, 2], 1: [2, 3]})]), path)
    out, loaded = _run("describe", "--snapshot", str(path))
    assert re.search(r"^Partitions +2$", out, re.MULTILINE)
    assert _heavy(loaded) == []


@pytest.mark.parametrize("module", sorted({command.module for command in COMMANDS}))
def test_each_module_of_the_table_declares_exactly_its_commands(module: str) -> None:
    declared: argparse._SubParsersAction[argparse.ArgumentParser] = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module).register(declared)
    assert sorted(declared.choices) == sorted(c.name for c in COMMANDS if c.module == module)


def test_every_command_module_is_in_the_table() -> None:
    registering = {
        f"cli.{source.stem}"
        for source in (ROOT / "cli").glob("*.py")
        if re.search(r"^def register\(", source.read_text(encoding="utf-8"), re.MULTILINE)
    }
    assert registering == {command.module for command in COMMANDS}


def test_the_console_opens_without_spark_pyarrow_or_numpy() -> None:
    # What ``kzc`` imports to show a cluster: Parquet (an incident report, a history) and Spark (a check run) are
    # imported when asked for, not on the way to the first paint.
    code = "import sys, cli.console_cmd, tui.app, core.console.zk; print(' '.join(sorted(sys.modules)))"
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded = set(run.stdout.split())
    assert "tui.screens.timeline" in loaded
    assert sorted(m for m in loaded if m.split(".")[0] in ("pyspark", "pyarrow", "numpy")) == []
