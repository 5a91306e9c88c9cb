"""The audit log: intent before the write, outcome after, Ctrl-C recorded, rejected command lines recorded."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import main
from core import interrupt
from core.audit import AuditLog, read_audit, read_audit_log


@pytest.fixture
def audit_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(path))
    yield path
    interrupt.reset()


def test_an_attempt_that_writes_leaves_its_intent_before_and_its_outcome_after(audit_file: Path) -> None:
    log = AuditLog("zk:2181", audit_file)
    with log.attempt("topic expand", {"topic": "t"}) as attempt:
        attempt.intent("sending the expand", before={"t": {"topic_id": "abc"}})
        # A run killed here leaves exactly its intent.
        [intent] = read_audit_log(audit_file, intents=True)
        assert intent["outcome"] == "intent" and intent["details"]["before"] == {"t": {"topic_id": "abc"}}
        attempt.applied("expanded t")
    intent_line, outcome = read_audit_log(audit_file, intents=True)
    assert outcome["outcome"] == "applied" and outcome["id"] == intent_line["id"]
    assert read_audit_log(audit_file) == [outcome]


def test_ctrl_c_records_the_attempt_in_progress_as_interrupted_once(audit_file: Path) -> None:
    log = AuditLog("zk:2181", audit_file)
    with pytest.raises(RuntimeError), log.attempt("topic delete", {"topics": ["t"]}) as attempt:
        attempt.intent("sending the delete")
        interrupt.interrupt()  # what the main thread does on Ctrl-C
        [line] = read_audit_log(audit_file)
        assert line["outcome"] == "interrupted"
        raise RuntimeError("the closed session fails the worker's write")
    assert [line["outcome"] for line in read_audit_log(audit_file, intents=True)] == ["intent", "interrupted"]


@pytest.mark.parametrize(
    ("argv", "cluster"),
    [
        (["topic", "create", "t", "--partitions", "1", "--no-such-option", "--zookeeper", "zk:2181"], "zk:2181"),
        (["topic", "delete", "t", "--zookeeper", "bad host:2181"], "bad host:2181"),
        (
            ["topic", "expand", "t", "--zookeeper", "zk:2181", "--zk-auth", "digest:u:pw", "--partitions", "3"],
            "zk:2181",
        ),
    ],
)
def test_a_mutation_whose_command_line_is_rejected_is_audited_as_refused_with_secrets_masked(
    audit_file: Path, argv: list[str], cluster: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    [line] = read_audit_log(audit_file)
    assert line["outcome"] == "refused" and line["cluster"] == cluster
    assert line["operation"] == f"topic {argv[1]}"
    assert "pw" not in str(line["arguments"])


def test_commands_that_change_nothing_are_not_audited(audit_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["describe", "--zookeeper", "bad host:2181"]) == 2
    assert read_audit_log(audit_file) == []


def test_a_torn_last_line_is_skipped_and_counted(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"outcome": "applied", "operation": "topic create"}\n{"time": "2026-11-28T03:2', encoding="utf-8")
    read = read_audit(path)
    assert [line["operation"] for line in read.lines] == ["topic create"] and read.torn == 1
    assert read_audit_log(path) == [{"outcome": "applied", "operation": "topic create"}]
    assert read_audit(tmp_path / "none.jsonl").missing
