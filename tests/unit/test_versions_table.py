"""The docs table of ``make test-versions`` is written from the records, release by release, never by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.versions_record import main, record, reported_path


def test_the_path_is_what_kzc_reported() -> None:
    assert reported_path({"via": "admin", "path": "why"}) == ("admin", "why")
    checks = [{"name": "write path", "status": "ok", "detail": "through ZooKeeper"}]
    assert reported_path({"via": "zookeeper", "checks": checks}) == ("zookeeper", "through ZooKeeper")
    assert reported_path({"path": "znode", "writes": [{"path": "/admin/reassign_partitions"}]}) == (
        "zookeeper",
        "znode",
    )


def test_records_become_a_table_release_by_release(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    records = tmp_path / "record.jsonl"
    monkeypatch.setenv("KZC_VERSIONS_RECORD", str(records))
    record("1.1.1", "topic expand --bootstrap-server", "ok", "admin", "every broker serves CreatePartitions")
    record("0.10.2.2", "topic expand --bootstrap-server", "ok", "zookeeper", "no CreatePartitions | before 1.0")
    record("0.10.2.2", "reassign cancel", "refused", None, "Kafka before 2.4 cannot cancel")
    assert len(records.read_text().splitlines()) == 3
    out = tmp_path / "versions.md"
    assert main([str(records), str(out)]) == 0
    text = out.read_text()
    assert "| command | 0.10.2.2 | 1.1.1 |" in text  # releases in numeric order
    assert "| topic expand --bootstrap-server | ok (zookeeper) | ok (admin) |" in text
    assert "| reassign cancel | refused | not run |" in text
    assert "no CreatePartitions \\| before 1.0" in text  # a | in kzc's words does not break the table
    assert text.index("## Kafka 0.10.2.2") < text.index("## Kafka 1.1.1")


def test_an_unknown_command_is_refused_and_nothing_recorded_without_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(KeyError):
        record("3.9.1", "no such command", "ok")
    monkeypatch.delenv("KZC_VERSIONS_RECORD", raising=False)
    record("3.9.1", "describe", "ok")  # no file anywhere
    assert not list(tmp_path.iterdir())
