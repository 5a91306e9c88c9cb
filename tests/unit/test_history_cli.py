"""``kzc history flapping|urp --cluster all`` answers for every cluster of the store (local engine), and
``isr --cluster all`` refuses (it reads one cluster). ``kzc diff`` on both engines starts Spark: it is in
``tests/integration/test_history_engines.py``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from core.history.flapping import fleet_flapping
from core.history.observations import Window
from core.history.store import HistoryStore
from core.history.urp import fleet_urp
from core.testdata.history import write_history

SINCE = ["--since", "10000d"]  # the synthetic history is from 2023


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))
    root = tmp_path / "store"
    for i in range(2):
        write_history(root, partitions=400, days=1, snapshot_every_s=6 * 3600, cluster=f"c{i}", seed=20 + i)
    return root


def _windows(root: Path, since_ms: int, until_ms: int) -> list[Window]:
    store = HistoryStore.open(root)
    return [Window.of(store, c, since_ms, until_ms) for c in store.clusters()]


def test_flapping_across_the_fleet(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["history", "flapping", "--store", str(store), "--cluster", "all", "--top", "500", *SINCE, "--json"]) == 0
    )
    answer = json.loads(capsys.readouterr().out)
    assert [c["cluster"] for c in answer["clusters"]] == ["c0", "c1"]
    expected = fleet_flapping(_windows(store, answer["since_ms"], answer["until_ms"]), top=500).to_json()
    assert answer == json.loads(json.dumps(expected))
    assert {r["cluster"] for r in answer["partitions"]} == {"c0", "c1"}


def test_urp_across_the_fleet(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "urp", "--by", "topic", "--store", str(store), "--cluster", "all", *SINCE]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Under-replicated time by cluster and topic in 2 clusters")
    assert "  c0 topic t0000" in text and "  c1 topic t0000" in text
    answer = fleet_urp(_windows(store, 0, 2**62), "topic")
    assert len(answer.rows) == len(
        [line for line in text.splitlines() if line.startswith(("  c0 topic", "  c1 topic"))]
    )


def test_isr_refuses_the_whole_fleet(store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["history", "isr", "--topic", "t00001", "--store", str(store), "--cluster", "all", *SINCE]) == 2
    assert "--cluster all is for flapping and urp" in capsys.readouterr().err
