"""Decisions with one home: a second definition elsewhere in core, cli or tui fails here, as a Kafka path
literal does (``test_kafka_path_literals``).

- the write-path constants (``VIA_ADMIN``, ``VIA_ZOOKEEPER``, ``VIAS``): ``core/brokers/capabilities.py``,
  the one decision ``write_route`` and the one ``--via`` option (``cli.options.add_via_option``).
- the request header of every Kafka request kzc sends itself (its client id, its correlation id, the header
  bytes): ``core/brokers/wire.py`` (``frame``); bodies and answers go through ``core.brokers.codec``, so only
  those two modules of core pack or unpack bytes with ``struct``.
- the byte formatter: ``core/human_size.py`` (``human_size``).
- ``TopicPartition``, the one spelling of ``(topic, partition)``: ``core/kafka/topic_partition.py``.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core.human_size import human_size

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("core", "cli", "tui")
WRITE_PATH = Path("core/brokers/capabilities.py")
WIRE = Path("core/brokers/wire.py")
CODEC = Path("core/brokers/codec.py")
HUMAN_SIZE = Path("core/human_size.py")
TOPIC_PARTITION = Path("core/kafka/topic_partition.py")
# Aliases left in modules another change is splitting (core/brokers/admin.py): converted after that merge.
SIZE_UNITS = {"KiB", "MiB", "GiB", "TiB"}
VIA_VALUES = {"admin", "zookeeper"}


def _sources() -> Iterator[tuple[Path, ast.Module]]:
    for folder in SCANNED:
        for path in sorted((ROOT / folder).rglob("*.py")):
            yield path.relative_to(ROOT), ast.parse(path.read_text(encoding="utf-8"))


def _assignments(tree: ast.AST) -> Iterator[tuple[int, str, ast.expr | None]]:
    """(line, name, value) of every assignment to a plain name."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            yield from ((node.lineno, t.id, node.value) for t in targets if isinstance(t, ast.Name))


def _found(scan: Callable[[ast.AST], Iterator[tuple[int, str]]], home: Path) -> list[str]:
    """Every place ``scan`` reports outside ``home``, as ``path:line: what``."""
    return [f"{path}:{line}: {what}" for path, tree in _sources() if path != home for line, what in scan(tree)]


def via_definitions(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) of every assignment of a ``VIA_*`` name, and every tuple or list of the two paths' names."""
    yield from ((line, name) for line, name, _ in _assignments(tree) if name.startswith("VIA"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple | ast.List):
            values = {e.value for e in node.elts if isinstance(e, ast.Constant)}
            if values >= VIA_VALUES:
                yield node.lineno, "a literal (admin, zookeeper)"


def test_the_scan_finds_via_definitions() -> None:
    source = 'VIA_ADMIN = "admin"\nx: str = "y"\nVIA_Z: str = "zookeeper"\nf(choices=("admin", "zookeeper"))\n'
    assert [line for line, _ in via_definitions(ast.parse(source))] == [1, 3, 4]


def test_the_write_path_constants_are_defined_once() -> None:
    assert _found(via_definitions, WRITE_PATH) == [], (
        "import VIA_ADMIN / VIA_ZOOKEEPER / VIAS from core.brokers.capabilities"
    )


def header_definitions(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) of every correlation id or kzc client id defined, and every struct format that packs a
    request header (api key, version, correlation id: ``>hhi``)."""
    for line, name, value in _assignments(tree):
        kzc = isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.startswith("kzc")
        if "CORRELATION" in name.upper() or (kzc and "CLIENT" in name.upper()):
            yield line, name
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.startswith(">hhi"):
            yield node.lineno, f"a request header format {node.value!r}"


def test_the_scan_finds_header_definitions() -> None:
    source = '_CORRELATION = 7\n_CLIENT_ID = "kzc-x"\nCLIENT_ID = "client-id"\nh = struct.pack(">hhih", 1, 2, 3, 4)\n'
    assert [line for line, _ in header_definitions(ast.parse(source))] == [1, 2, 4]


def test_the_request_header_is_defined_once() -> None:
    assert _found(header_definitions, WIRE) == [], (
        "frame requests with core.brokers.wire.frame (one client id, one correlation id)"
    )


def struct_imports(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, what) of every import of ``struct`` (or of a name from it): bytes packed by hand."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, f"import {a.name}") for a in node.names if a.name == "struct")
        elif isinstance(node, ast.ImportFrom) and node.module == "struct":
            yield node.lineno, "from struct import ..."


def test_the_scan_finds_struct_imports() -> None:
    source = "import os, struct\nfrom struct import Struct\nimport structlog\nfrom core import struct_x\n"
    assert [line for line, _ in struct_imports(ast.parse(source))] == [1, 2]


def test_only_the_codec_and_the_wire_pack_bytes() -> None:
    found = [
        f"{path}:{line}: {what}"
        for path, tree in _sources()
        if path.parts[0] == "core" and path not in (CODEC, WIRE)
        for line, what in struct_imports(tree)
    ]
    assert found == [], "read and write Kafka's fields with core.brokers.codec (Decoder.rows for fixed rows)"


def _is_str_int_tuple(node: ast.expr | None) -> bool:
    """``tuple[str, int]``."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.value, ast.Name)
        and node.value.id == "tuple"
        and isinstance(node.slice, ast.Tuple)
        and [e.id if isinstance(e, ast.Name) else None for e in node.slice.elts] == ["str", "int"]
    )


def topic_partition_definitions(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, name) of every alias of ``tuple[str, int]`` (an assignment or a ``type`` statement) and every class
    named ``TopicPartition``: a second spelling of a topic-partition."""
    for line, name, value in _assignments(tree):
        if _is_str_int_tuple(value):
            yield line, name
    type_alias = getattr(ast, "TypeAlias", None)  # the ``type X = ...`` statement (Python 3.12+)
    for node in ast.walk(tree):
        if type_alias is not None and isinstance(node, type_alias) and _is_str_int_tuple(node.value):
            yield node.lineno, node.name.id
        if isinstance(node, ast.ClassDef) and node.name == "TopicPartition":
            yield node.lineno, f"class {node.name}"


def test_the_scan_finds_topic_partition_definitions() -> None:
    source = (
        "Key = tuple[str, int]\nX: TypeAlias = tuple[str, int]\nEndpoint = tuple[str, str]\n"
        "class TopicPartition(NamedTuple):\n    topic: str\nTopicPartitionKey = tuple[str, int]\n"
    )
    assert list(topic_partition_definitions(ast.parse(source))) == [
        (1, "Key"), (2, "X"), (6, "TopicPartitionKey"), (4, "class TopicPartition")
    ]  # fmt: skip


def test_topic_partition_is_defined_once() -> None:
    assert _found(topic_partition_definitions, TOPIC_PARTITION) == [], (
        "(topic, partition) is core.kafka.topic_partition.TopicPartition"
    )


def size_units(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """(line, unit) of every string that is a byte unit alone (``"MiB"``, or ``" KiB"`` in an f-string): what a
    byte formatter writes."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.strip() in SIZE_UNITS:
            yield node.lineno, node.value.strip()


def test_the_scan_finds_byte_formatters() -> None:
    source = 'a = ("B", "KiB")\nb = f"{x / 1024:.1f} MiB"\nc = f"over {n} MiB: no more"\n'
    assert list(size_units(ast.parse(source))) == [(1, "KiB"), (2, "MiB")]


def test_there_is_one_byte_formatter() -> None:
    assert _found(size_units, HUMAN_SIZE) == [], "write sizes with core.human_size.human_size"


@pytest.mark.parametrize(
    ("size", "text"),
    [(None, "?"), (0, "0 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (12_700, "12.4 KiB"), (3 << 20, "3.0 MiB"),
     (5 << 30, "5.0 GiB"), (2 << 40, "2.0 TiB"), (3 << 50, "3072.0 TiB"), (-2048, "-2.0 KiB")],
)  # fmt: skip
def test_human_size_is_short_in_powers_of_1024_up_to_tib(size: int | None, text: str) -> None:
    assert human_size(size) == text


def test_production_code_imports_no_test_data() -> None:
    """``core/testdata/`` (builders for tests, demos and benchmarks) is never imported by core, cli or tui."""
    found = []
    for path, tree in _sources():
        if path.parts[:2] == ("core", "testdata"):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                found += [f"{path}:{node.lineno}: {n}" for n in names if n.startswith("core.testdata")]
    assert found == []
