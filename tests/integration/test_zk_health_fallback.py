"""ZooKeeper's health where the four-letter words are off: an ensemble whose servers allow only ``srvr`` (as
ZooKeeper does by default since 3.5.3). ``mntr`` and ``conf`` are refused; the health says which and how to
allow them, and reads them from the AdminServer's ``/commands/monitor`` and ``/commands/configuration``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run

pytestmark = pytest.mark.integration

HINT = "4lw.commands.whitelist=srvr,mntr,conf"
# Per request: the AdminServer's first answers (Jetty warming up in a JVM with small heaps) take seconds on a
# loaded 2-core machine. What is asserted is where each figure came from, not how fast.
TIMEOUT_S = 15


@pytest.fixture(scope="module")
def words_off(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    box = Sandbox.up(Path(tmp_path_factory.mktemp("words-off")), brokers=1, zookeepers=3, zk_words="srvr", timeout=300)
    try:
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def health(box: Sandbox, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, Any]:
    info = box.info()
    code, out, _ = run(
        capsys, "--zookeeper", info.zookeeper, "--zk-admin-port", str(info.ensemble[0].admin_port),
        "zk", "health", "--timeout", str(TIMEOUT_S), *extra,
    )  # fmt: skip
    return code, out


def test_refused_words_are_read_from_the_admin_server(words_off: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = health(words_off, capsys, "--json")
    assert code == 0 and out["alarms"] == [] and out["ensemble_size"] == 3
    for s in out["servers"]:
        assert s["refused"] == ["mntr", "conf"]
        assert s["sources"] == {"srvr": "4lw", "mntr": "admin", "conf": "admin", "fsync": "admin"}, s["problems"]
        assert (s["min_session_timeout"], s["max_session_timeout"]) == (1000, 10000)
        assert s["watches"] is not None and s["max_fds"] is not None
    leader = next(s for s in out["servers"] if s["mode"] == "leader")
    assert leader["synced_followers"] == 2
    assert out["notes"][0].startswith("mntr, conf not whitelisted on ")
    assert "(read from the AdminServer instead); to allow them: " + HINT in out["notes"][0]
    code, text = health(words_off, capsys)
    assert code == 0 and f"note: mntr, conf not whitelisted on {words_off.info().ensemble[0].address}" in text


def test_without_the_admin_server_it_says_what_is_missing(
    words_off: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = health(words_off, capsys, "--json", "--no-admin")
    assert code == 0
    for s in out["servers"]:
        assert s["sources"] == {"srvr": "4lw", "mntr": None, "conf": None}
        assert f"mntr not whitelisted; allow it with {HINT} in zoo.cfg" in " ".join(s["problems"])
        assert s["mode"] in ("leader", "follower") and s["zxid"] is not None  # srvr still answers
        assert s["max_session_timeout"] is None and s["synced_followers"] is None
    assert "the AdminServer did not answer either" in out["notes"][0]
    assert out["ensemble_size_from"] == "connect string"
