"""Shared fixtures: the session-wide sandbox cluster (3 brokers on racks r1..r3) and unique names.

The integration tests never skip: if the sandbox cannot start, the fixture raises and they fail.
"""

from __future__ import annotations

import itertools
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from core.sandbox.cluster import Sandbox
from tests.integration.zk_server import zk_client

_counter = itertools.count()


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


@pytest.fixture
def unique_name(request: pytest.FixtureRequest) -> str:
    """A topic name / chroot segment unique to this test."""
    base = "".join(c if c.isalnum() else "-" for c in request.node.name)[:40].strip("-")
    return f"t-{base}-{next(_counter)}-{uuid.uuid4().hex[:6]}"


@pytest.fixture(autouse=True)
def _no_user_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Tests never read the developer's own ~/.config/kzc/config.toml."""
    monkeypatch.setenv("KZC_CONFIG", str(tmp_path / "kzc-config.toml"))
