"""The sandbox JVMs' class data archives (``core.sandbox.class_data``): one per JVM, class path and main class, none
under a java agent; a JVM writes a missing one under a name of its own; a killed JVM's part of one is deleted.
(Writing and mapping a real archive is ``tests/integration/test_sandbox.py``.)"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from core.sandbox import class_data


@pytest.fixture
def cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("KZC_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "jars-a").mkdir()
    (tmp_path / "jars-b").mkdir()
    return tmp_path


def test_an_archive_is_one_per_java_class_path_and_main_class(cache: Path) -> None:
    java = str(cache / "java")
    a, b = f"{cache / 'jars-a'}/*", f"{cache / 'jars-b'}/*"
    path = class_data.archive_path(java, a, "kafka.Kafka")
    assert path.parent == cache / "cache" / "cds" and path.name.startswith("Kafka-") and path.suffix == ".jsa"
    others = {
        "class path": class_data.archive_path(java, b, "kafka.Kafka"),
        "main class": class_data.archive_path(java, a, "kafka.tools.StorageTool"),
        "java": class_data.archive_path(java + "2", a, "kafka.Kafka"),
    }
    assert all(other != path for other in others.values()), others
    os.utime(cache / "jars-a", ns=(1, 1))  # jars fetched again: the old archive no longer matches them
    assert class_data.archive_path(java, a, "kafka.Kafka") != path


def test_a_missing_archive_is_written_at_exit_under_a_name_of_its_own_then_used_once_in_place(cache: Path) -> None:
    jvm = ("java", f"{cache / 'jars-a'}/*", "kafka.Kafka")
    path = class_data.archive_path(*jvm)
    first, second = class_data.options(*jvm, ["-Xmx384m"]), class_data.options(*jvm, ["-Xmx384m"])
    assert first != second and all(o[0].startswith(f"-XX:ArchiveClassesAtExit={path}.") for o in (first, second))
    path.write_bytes(b"archive")
    assert class_data.options(*jvm, ["-Xmx384m"]) == [f"-XX:SharedArchiveFile={path}", "-Xshare:auto"]


def test_no_archive_under_a_java_agent_or_with_class_data_off(cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jvm = ("java", f"{cache / 'jars-a'}/*", "kafka.Kafka")
    assert class_data.options(*jvm, ["-Xmx384m", "-javaagent:exporter.jar=127.0.0.1:9404:rules.yml"]) == []
    monkeypatch.setenv("KZC_CLASS_DATA", "off")
    assert class_data.options(*jvm, ["-Xmx384m"]) == []


def test_what_a_killed_jvm_wrote_of_an_archive_is_deleted_and_a_day_old_one_left_behind_too(cache: Path) -> None:
    jvm = ("java", f"{cache / 'jars-a'}/*", "kafka.Kafka")
    path = class_data.archive_path(*jvm)
    cmdline = ["java", *class_data.options(*jvm, []), "-cp", "x/*", "kafka.Kafka"]
    written = Path(cmdline[1].split("=", 1)[1])
    written.write_bytes(b"half")
    class_data.discard(cmdline)
    assert not written.exists()
    left = path.with_name(f"{path.name}.0.tmp")
    left.write_bytes(b"never stopped by a sandbox")
    class_data.options(*jvm, [])
    assert left.exists(), "a JVM may still be running and write it"
    os.utime(left, (0, 0))
    class_data.options(*jvm, [])
    assert not left.exists()
