"""``kzc zk ls --json`` over a znode with more children than kzc fetches without ``--all``."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest

import cli.zk_cmd
from cli.main import main
from core.zookeeper.tree import LARGE_CHILD_COUNT, ChildPage


def test_children_not_fetched_are_more_to_come(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    total = LARGE_CHILD_COUNT + 1
    unlisted = ChildPage("/big", total, (), 0, None, False, False, None)

    def pages(*_: Any, **__: Any) -> ChildPage:
        return unlisted

    monkeypatch.setattr(cli.zk_cmd, "_session", lambda settings: SimpleNamespace(stop=lambda: None))
    monkeypatch.setattr(cli.zk_cmd, "list_children", pages)
    assert main(["zk", "ls", "/big", "--json", "--zookeeper", "127.0.0.1:1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["listed"], out["more"], out["num_children"], out["children"]) == (False, True, total, [])
