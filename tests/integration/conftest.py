"""Fixtures of the integration tests: the session-wide sandbox cluster (3 brokers on racks r1..r3) and a
plain ZooKeeper client under its chroot.

Every test under this folder needs real servers and is marked ``integration`` here, so
``pytest -m "not integration"`` runs nothing that needs a cluster. The tests never skip: if the sandbox
cannot start, the fixture raises and they fail.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from core.sandbox.cluster import Sandbox
from tests.integration.zk_server import zk_client

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of this folder ``integration``."""
    for item in items:
        if _HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(autouse=True)
def audit_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """kzc's audit log in the test's own directory (never the user's), and an empty stdin: a prompt reads
    end-of-file, so nothing is confirmed by accident (a test that types an answer sets its own stdin)."""
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(path))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return path


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """One real cluster for the whole run: ZooKeeper + 3 Kafka brokers (ids 1-3, racks r1-r3)."""
    directory = Path(os.environ.get("KZC_TEST_SANDBOX_DIR") or tmp_path_factory.mktemp("sandbox"))
    box = Sandbox.up(directory, brokers=3, racks=["r1", "r2", "r3"], timeout=240)
    try:
        yield box
    finally:
        box.down()


@pytest.fixture(scope="module")
def zk(sandbox: Sandbox) -> Iterator[KazooClient]:
    """A plain ZooKeeper client under the sandbox's Kafka chroot, for setting up and inspecting state."""
    with zk_client(sandbox.info().zookeeper) as client:
        yield client
