"""Opening the console: the Spark worker (a JVM) starts only once the whole cluster is on screen, so on a small
machine it does not take the CPU the first full read needs."""

from __future__ import annotations

import threading

from core.config import ConnectionSettings, UserConfig
from core.console.checks import CheckEngines
from core.snapshot.model import ClusterSnapshot
from core.testdata.snapshots import synthetic_snapshot
from tests.recorded_backend import RecordedBackend
from tests.tui.helpers import FROZEN_NOW, settle
from tui.app import KzcApp


class CountedWarmUps(CheckEngines):
    """Check engines that count warm-ups instead of starting a Spark worker."""

    def __init__(self) -> None:
        super().__init__()
        self.warm_ups = 0

    def warm_up(self) -> None:
        self.warm_ups += 1


class SlowFirstRead(RecordedBackend):
    """Serves the brokers at once and the whole cluster when ``release`` is set (a live backend's first read)."""

    def __init__(self, whole: ClusterSnapshot) -> None:
        self.release = threading.Event()
        self.engines = CountedWarmUps()

        def read() -> ClusterSnapshot:
            self.release.wait(30)
            return whole

        skeleton = synthetic_snapshot(topics=1, partitions_per_topic=1)
        super().__init__(read, preview=skeleton, now_ms=lambda: int(FROZEN_NOW * 1000))

    @property
    def check_engines(self) -> CheckEngines:
        return self.engines


async def test_the_spark_worker_warms_up_once_the_whole_cluster_is_on_screen() -> None:
    whole = synthetic_snapshot(topics=50, partitions_per_topic=4)
    backend = SlowFirstRead(whole)
    app = KzcApp(ConnectionSettings(), config=UserConfig(), backend=backend, clock=lambda: FROZEN_NOW, warm_spark=True)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert backend.loading() is not None and app.view is not None
        assert backend.engines.warm_ups == 0, "warmed up while the first read was still running"
        backend.release.set()
        await settle(pilot)
        assert app.view is not None and app.view.snapshot.partition_count == 200
        assert backend.engines.warm_ups == 1
