"""Decisions with one home: a second definition elsewhere in core, cli or tui fails here, as a Kafka path
literal does (``test_kafka_path_literals``).

- the write-path constants (``VIA_ADMIN``, ``VIA_ZOOKEEPER``, ``VIAS``): ``core/brokers/capabilities.py``,
  the one decision ``write_route`` and the one ``--via`` option (``cli.options.add_via_option``).
- the request header of every Kafka request kzc sends itself (its client id, its correlation id, the header
  bytes): ``core/brokers/wire.py`` (``frame``); bodies and answers go through ``core.brokers.codec``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("core", "cli", "tui")
WRITE_PATH = Path("core/brokers/capabilities.py")
WIRE = Path("core/brokers/wire.py")
VIA_VALUES = {"admin", "zookeeper"}


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8"))


def via_definitions(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) of every assignment of a ``VIA_*`` name, and every tuple or list of the two paths' names."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name) and target.id.startswith("VIA"):
                    yield node.lineno, target.id
        if isinstance(node, ast.Tuple | ast.List):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if values >= VIA_VALUES:
                yield node.lineno, "a literal (admin, zookeeper)"


def test_the_scan_finds_via_definitions() -> None:
    source = 'VIA_ADMIN = "admin"\nx: str = "y"\nVIA_Z: str = "zookeeper"\nf(choices=("admin", "zookeeper"))\n'
    assert [line for line, _ in via_definitions(ast.parse(source))] == [1, 3, 4]


def test_the_write_path_constants_are_defined_once() -> None:
    found = [f"{path}:{line}: {what}" for path, tree in _sources() if path != WRITE_PATH
             for line, what in via_definitions(tree)]  # fmt: skip
    assert found == [], "import VIA_ADMIN / VIA_ZOOKEEPER / VIAS from core.brokers.capabilities"


def header_definitions(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) of every correlation id or kzc client id defined, and every struct format that packs a
    request header (api key, version, correlation id: ``>hhi``)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                if "CORRELATION" in target.id.upper():
                    yield node.lineno, target.id
                kzc = isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.startswith("kzc")
                if kzc and "CLIENT" in target.id.upper():
                    yield node.lineno, target.id
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(">hhi"):
            yield node.lineno, f"a request header format {node.value!r}"


def test_the_scan_finds_header_definitions() -> None:
    source = '_CORRELATION = 7\n_CLIENT_ID = "kzc-x"\nCLIENT_ID = "client-id"\nh = struct.pack(">hhih", 1, 2, 3, 4)\n'
    assert [line for line, _ in header_definitions(ast.parse(source))] == [1, 2, 4]


def test_the_request_header_is_defined_once() -> None:
    found = [f"{path}:{line}: {what}" for path, tree in _sources() if path != WIRE
             for line, what in header_definitions(tree)]  # fmt: skip
    assert found == [], "frame requests with core.brokers.wire.frame (one client id, one correlation id)"
