"""The fix commands refuse bad input with exit 2 before connecting anywhere (no cluster here: the
ZooKeeper address is unreachable, so reaching it would fail differently)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main

NOWHERE = ["--zookeeper", "127.0.0.1:1"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["reassign", "plan", "--move-off", "x"], "--move-off takes integers, got 'x'"),
        (["reassign", "plan", "--move-off", "2", "--seed", "1"], "--seed applies to --onto only"),
        (["reassign", "apply", "--throttle", "-5", "--move-off", "2"], "--throttle must be at least 0"),
        (["reassign", "apply"], "give a reassignment FILE, or --move-off / --onto"),
        (["reassign", "apply", "missing.json", "--move-off", "2"], "give a FILE or --move-off/--onto, not both"),
        (["elect", "preferred", "--topic", "t", "--partition", "x"], "--partition takes an integer, got 'x'"),
        (["config", "set", "t"], "give KEY=VALUE to set or --delete KEY"),
        (["config", "set", "t", "a=1", "--delete", "a"], "a both set and deleted"),
    ],
)
def test_bad_input_exits_2_before_connecting(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    assert main([*argv, *NOWHERE, "--json"]) == 2
    assert message in json.loads(capsys.readouterr().out)["error"]
