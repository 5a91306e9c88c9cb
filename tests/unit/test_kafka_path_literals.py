"""Kafka's ZooKeeper layout has one home (``core/kafka/znodes/paths.py``, as Kafka's ``ZkData.scala``): no
other module of core, cli or tui spells a Kafka path. A string literal (or an f-string's literal part)
that starts with one of Kafka's root znodes is reported with its file and line; build the path with the
layout module instead (``topic_path(t)``, ``CONTROLLER``, ``f"{CONTROLLER} is unreadable"``).
Docstrings are documentation and are not scanned."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

from core.kafka.znodes.paths import KAFKA_ROOTS

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("core", "cli", "tui")
LAYOUT = Path("core/kafka/znodes/paths.py")
EXEMPT: dict[Path, str] = {
    LAYOUT: "the layout itself",
}

# A root followed by the end, a "/" or anything that cannot continue a znode name ("/configs" is not "/config").
_KAFKA_PATH = re.compile("(?:" + "|".join(re.escape(root) for root in KAFKA_ROOTS) + r")(?![\w-])")


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the Constant nodes that are docstrings."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            found.add(id(node.value))  # attribute docstrings after an assignment
    return found


def kafka_path_literals(source: str) -> Iterator[tuple[int, str]]:
    """(line, literal) of every string literal in ``source`` that starts with a Kafka root znode."""
    tree = ast.parse(source)
    docstrings = _docstrings(tree)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and _KAFKA_PATH.match(node.value)
        ):
            yield node.lineno, node.value


def test_the_scan_finds_paths_and_only_paths() -> None:
    source = '''
"""/brokers/ids in a docstring is documentation."""
a = "/brokers/ids"
b = f"/brokers/topics/{t}/partitions/{p}/state"
c = f"{root}/controller"
d = "/controller_epoch is unreadable"
e = "/configs is not Kafka's"
f = "see /brokers/ids"
g = "/kafka-acl-extended"
'''
    assert sorted(line for line, _ in kafka_path_literals(source)) == [3, 4, 5, 6, 9]


def test_no_kafka_path_literal_outside_the_layout_module() -> None:
    found = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if relative in EXEMPT:
                continue
            for line, literal in kafka_path_literals(path.read_text()):
                found.append(f"{relative}:{line}: {literal[:60]!r}")
    assert not found, "Kafka paths spelled outside core/kafka/znodes/paths.py:\n" + "\n".join(found)


def test_every_exemption_exists() -> None:
    assert all((ROOT / path).is_file() for path in EXEMPT)
