"""ZooKeeper load of a console left open at rest, with the traffic ticker on and off (issue 32's cost goal: traffic
keeps the idle load where it is, about 25 requests a minute at 50k partitions).

On a synthetic layout (``benchmarks/zk_layout.py``) in a standalone ZooKeeper (``BareZooKeeper``), the console's
backend (``core.console.zk.ZkBackend``: its live model, watches and session) after its first full read; the
requests its connection sends over ``--idle`` seconds, from ZooKeeper's own per-connection counter (``cons``:
``recved``, pings included), in alternating windows on the same connection: off (the live model alone), on (a
tick every ``TICK_S``, or ``PACE`` times the last tick's length when longer, as the screens poll it), off again.
The layout registers its brokers at hosts that do not resolve, so every tick's broker requests fail: the case
in which ``kzc traffic --follow`` would read ZooKeeper again, the console's worst case here.

    .venv/bin/python benchmarks/console_idle_traffic_bench.py [--partitions 50000] [--idle 60]
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.live_model_bench import _received
from benchmarks.snapshot_bench import BareZooKeeper
from benchmarks.zk_layout import populate
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.polling import wait_until
from core.traffic.ticker import PACE, TICK_S


def _window(backend: ZkBackend, port: int, session: int, idle_s: float, ticking: bool) -> tuple[float, int, float]:
    """Requests per minute over ``idle_s`` (with traffic ticks when ``ticking``), the ticks and their median s."""
    stop = threading.Event()
    took: list[float] = []

    def ticks() -> None:
        while not stop.is_set():
            started = time.monotonic()
            backend.traffic()
            took.append(time.monotonic() - started)
            stop.wait(max(TICK_S, PACE * took[-1]))

    thread = threading.Thread(target=ticks, daemon=True) if ticking else None
    before = _received(port, session)
    if thread is not None:
        thread.start()
    time.sleep(idle_s)
    stop.set()
    after = _received(port, session)
    if thread is not None:
        thread.join(60)
    took.sort()
    return (after - before) * 60 / idle_s, len(took), took[len(took) // 2] if took else 0.0


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=50_000)
    parser.add_argument("--idle", type=float, default=60.0, help="each window, seconds")
    args = parser.parse_args()
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    server = BareZooKeeper(heap="1g")
    try:
        chroot = f"/kzc-bench-{uuid.uuid4().hex[:8]}"
        layout = populate(server.hosts, chroot, args.partitions)
        print(f"layout: {layout.partitions} partitions in {layout.topics} topics (written in {layout.seconds:.0f} s)")
        settings = ConnectionSettings(zookeeper=parse_zookeeper(server.hosts + chroot))
        pings = 60 / (settings.session_timeout / 3)
        backend = ZkBackend(settings)
        started = time.monotonic()
        backend.connect()
        wait_until(lambda: backend.loading() is None, 600, "the first full read")
        print(
            f"first full read {time.monotonic() - started:.1f} s; idle windows of {args.idle:.0f} s, requests/min "
            f"(pings ~{pings:.0f}/min included)"
        )
        session = backend._session.session_id if backend._session else None  # the console's one connection
        assert session is not None
        for name, ticking in (("traffic off", False), ("traffic on", True), ("traffic off", False)):
            per_min, count, median = _window(backend, server.port, session, args.idle, ticking)
            ticked = f" ({count} ticks, median {median:.2f} s each)" if ticking else ""
            print(f"  {name:<12} {per_min:6.1f}{ticked}")
        backend.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
