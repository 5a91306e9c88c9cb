"""Fixtures of the console tests: a small recorded cluster, a frozen clock and time zone, an app factory, and
the sandbox with retries.

``sandbox`` overrides the suite-wide fixture for these tests only: on this shared 2-core machine ZooKeeper
sometimes takes longer to start than ``Sandbox.up`` waits for (its kazoo client times out and the error
escapes as ``KazooTimeoutError``), so a failed start is retried in a fresh directory, up to 3 times. The
tests still never skip: three failed starts fail them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from kazoo.handlers.threading import KazooTimeoutError

from core.backend_recorded import RecordedBackend, synthetic_snapshot
from core.cluster_snapshot import ClusterSnapshot
from core.config import ConnectionSettings, UserConfig
from core.errors import SandboxError
from core.sandbox import Sandbox
from tests.tui.helpers import FROZEN_NOW, recorded_events
from tui.app import KzcApp


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """One real cluster for the console tests: ZooKeeper + 3 Kafka brokers (ids 1-3, racks r1-r3)."""
    failures: list[str] = []
    for _attempt in range(3):
        directory = tmp_path_factory.mktemp("console-sandbox")
        try:
            box = Sandbox.up(directory, brokers=3, racks=["r1", "r2", "r3"], timeout=240)
        except (SandboxError, KazooTimeoutError) as exc:
            failures.append(f"{type(exc).__name__}: {exc}")
            continue
        try:
            yield box
        finally:
            box.down()
        return
    raise SandboxError("the sandbox did not start in 3 attempts: " + " | ".join(failures))


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Times on screen are local: pin the zone so screens are the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(autouse=True)
def _exports(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Exports go to the test's directory."""
    monkeypatch.setenv("KZC_EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("KZC_AUDIT_LOG", str(tmp_path / "audit.jsonl"))


@pytest.fixture(scope="session")
def small_snapshot() -> ClusterSnapshot:
    """200 topics x 4 partitions on 6 brokers, broker 6 down."""
    return synthetic_snapshot(topics=200, partitions_per_topic=4, dead_brokers=(6,))


@pytest.fixture
def make_app(small_snapshot: ClusterSnapshot) -> Callable[..., KzcApp]:
    """Build a console on the recorded cluster (``config``, ``snapshot`` and ``read_only`` may be given)."""

    def make(
        config: UserConfig | None = None, snapshot: ClusterSnapshot | None = None, read_only: bool = True
    ) -> KzcApp:
        backend = RecordedBackend(snapshot or small_snapshot, recorded_events(), name="recorded",
                                  now_ms=lambda: int(FROZEN_NOW * 1000), read_only=read_only)  # fmt: skip
        return KzcApp(ConnectionSettings(), config=config or UserConfig(), backend=backend, clock=lambda: FROZEN_NOW)

    return make
