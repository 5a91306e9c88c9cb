"""Fixtures of the console tests: a small recorded cluster, a frozen clock and time zone, and an app factory.

The console tests against the real sandbox are in ``tests/integration`` (``test_console_live.py``,
``test_tmux_e2e.py``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping, Sequence

import pytest

from core.brokers.logdirs import BrokerLogDirs
from core.config import ConnectionSettings, MetricsUrls, UserConfig
from core.groups.lag import GroupLag
from core.snapshot.model import ClusterSnapshot
from core.testdata.snapshots import synthetic_snapshot
from core.testdata.traffic import SyntheticTraffic
from core.zookeeper.health import EnsembleHealth
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, recorded_events, recorded_messages
from tui.app import KzcApp
from tui.fleet_poll import RowReader


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Times on screen are local: pin the zone so screens are the same everywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="session")
def small_snapshot() -> ClusterSnapshot:
    """200 topics x 4 partitions on 6 brokers, broker 6 down."""
    return synthetic_snapshot(topics=200, partitions_per_topic=4, dead_brokers=(6,))


@pytest.fixture
def make_app(small_snapshot: ClusterSnapshot) -> Callable[..., KzcApp]:
    """Build a console on the recorded cluster (``config``, ``snapshot``, ``read_only``, the ZooKeeper
    ensemble's ``zk_health``, the brokers' ``log_dirs``, their ``traffic``, the console's ``settings``, and ``fleet``
    contexts to open on with their ``fleet_reader``, the consumer ``groups`` and the brokers' ``metrics_url`` may
    be given)."""

    def make(
        config: UserConfig | None = None,
        snapshot: ClusterSnapshot | None = None,
        read_only: bool = True,
        zk_health: EnsembleHealth | None = None,
        log_dirs: Mapping[int, BrokerLogDirs] | None = None,
        settings: ConnectionSettings | None = None,
        traffic: SyntheticTraffic | None = None,
        fleet: Mapping[str, ConnectionSettings | str] | None = None,
        fleet_reader: RowReader | None = None,
        groups: Sequence[GroupLag] = (),
        metrics_url: MetricsUrls | None = None,
    ) -> KzcApp:
        backend = RecordedBackend(snapshot or small_snapshot, recorded_events(), name="recorded",
                                  now_ms=lambda: int(FROZEN_NOW * 1000), read_only=read_only,
                                  zk_health=zk_health, log_dirs=log_dirs,
                                  messages=recorded_messages(), traffic=traffic, groups=groups,
                                  metrics_url=metrics_url)  # fmt: skip
        settings = settings or ConnectionSettings()
        return KzcApp(settings, config=config or UserConfig(), backend=backend, clock=lambda: FROZEN_NOW,
                      fleet=fleet, fleet_reader=fleet_reader)  # fmt: skip

    return make
