"""The demo traffic (``kzc sandbox up --traffic``) on the real sandbox: it creates the demo topics, produces,
and its consumer groups show up with lag (a live one, an empty one with committed offsets, a ZooKeeper-stored
one); ``stop_traffic`` (which ``kzc sandbox down`` calls) ends the process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.sandbox.traffic import start_traffic, stop_traffic, traffic_pid

pytestmark = pytest.mark.integration


def test_demo_traffic_fills_the_groups_and_stops(
    sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = sandbox.info()
    pid = start_traffic(tmp_path, info.bootstrap_servers, info.zookeeper)
    try:
        assert traffic_pid(tmp_path) == pid

        def groups() -> dict[str, Any] | None:
            main(["groups", "--json", "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers])
            found = {g["group"]: g for g in json.loads(capsys.readouterr().out)["groups"]}
            billing, audit, legacy = (found.get(name) for name in ("demo-billing", "demo-audit", "demo-legacy"))
            ready = (
                billing and billing["members"] == 1 and billing["state"] == "Stable"
                and audit and audit["state"] == "Empty" and (audit["lag"] or 0) > 0
                and legacy and legacy["source"] == "zookeeper" and (legacy["lag"] or 0) > 0
            )  # fmt: skip
            return found if ready else None

        found = wait_until(groups, 120, "the demo groups with lag", interval=1.0)
        assert found["demo-billing"]["topics"] == ["demo.orders"]
    finally:
        stopped = stop_traffic(tmp_path)
    assert stopped == pid
    assert traffic_pid(tmp_path) is None
    assert process_state(pid) in (None, "Z", "X")  # gone, or a zombie waiting for this test process to reap it


def process_state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return None
