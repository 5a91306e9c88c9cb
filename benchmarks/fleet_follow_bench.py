"""The fleet screen's idle ZooKeeper load per cluster: following changes (``core.fleet.follow``) against
re-reading every cluster whole each round (the screen's first version), beside one console's live model.

Starts its own ZooKeeper (``snapshot_bench.BareZooKeeper``), writes ``--contexts`` synthetic Kafka 3.9 layouts of
``--partitions`` partitions under chroots of it (``zk_layout.py``; nothing changes them), then counts the
requests ZooKeeper received (``srvr``: ``Received``, the whole server, only this process talks to it) over
``--idle`` seconds of each, in the same run:

- **console**: one console's live model (``core.live.model.LiveCluster``) on one cluster, after its first read;
- **whole**: ``FleetReader.read`` over every context each ``--whole-every`` seconds (the screen until now);
- **follow**: ``FollowingReader.read`` each ``tui.fleet_poll.EVERY_S`` seconds, after its first reads.

Run::

    .venv/bin/python benchmarks/fleet_follow_bench.py [--contexts 5] [--partitions 2000] [--idle 60]
"""

from __future__ import annotations

import argparse
import logging
import re
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import zk_layout  # noqa: E402
from snapshot_bench import BareZooKeeper  # noqa: E402

from core.config import ConnectionSettings  # noqa: E402
from core.connect import parse_zookeeper  # noqa: E402
from core.fleet.follow import FollowingReader  # noqa: E402
from core.fleet.read import FleetReader  # noqa: E402
from core.live.model import LiveCluster  # noqa: E402
from core.polling import wait_until  # noqa: E402
from core.zookeeper.session import ZkSession  # noqa: E402
from tui.fleet_poll import EVERY_S  # noqa: E402


def received(port: int) -> int:
    """Requests the server received so far (``srvr``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"srvr")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    match = re.search(r"Received: (\d+)", data.decode(errors="replace"))
    if match is None:
        raise RuntimeError("no Received: line in srvr output")
    return int(match.group(1))


def window(port: int, seconds: float, every: float = 0.0, work: Callable[[], object] | None = None) -> int:
    """Requests received in ``seconds``, running ``work`` at the start and ``every`` seconds after each run."""
    before = received(port)
    started = time.monotonic()
    pause = threading.Event()
    while work is not None and time.monotonic() - started < seconds:
        work()
        pause.wait(min(every, max(0.0, seconds - (time.monotonic() - started))))
    pause.wait(max(0.0, seconds - (time.monotonic() - started)))
    return received(port) - before


def main() -> None:
    """Populate, measure, print the figures per cluster per minute."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=5)
    parser.add_argument("--partitions", type=int, default=2000)
    parser.add_argument("--idle", type=float, default=60.0)
    parser.add_argument("--whole-every", type=float, default=15.0)
    args = parser.parse_args()
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    zk = BareZooKeeper(heap="1g")
    try:
        names = [f"c{i:02d}" for i in range(args.contexts)]
        for name in names:
            zk_layout.populate(zk.hosts, f"/{name}", args.partitions, brokers=3)
        contexts: dict[str, ConnectionSettings | str] = {
            n: ConnectionSettings(zookeeper=parse_zookeeper(f"{zk.hosts}/{n}")) for n in names
        }
        per_min = 60 / args.idle
        floor = window(zk.port, args.idle)

        first = contexts[names[0]]
        assert isinstance(first, ConnectionSettings)
        session = ZkSession(first)
        session.start()
        live = LiveCluster(session, lambda _e: None, lambda: None)
        live.start()
        wait_until(lambda: live.loading() is None, 600, "the console's first full read")
        console = window(zk.port, args.idle)
        live.stop()
        session.stop()

        whole = FleetReader(contexts, 60.0)
        whole_count = window(zk.port, args.idle, args.whole_every, whole.read)

        follow = FollowingReader(contexts, 60.0)
        wait_until(lambda: follow.read() == [], 120, "every cluster watched")
        reads_before = sum(follow.whole_reads.values())
        follow_count = window(zk.port, args.idle, EVERY_S, follow.read)
        whole_reads = sum(follow.whole_reads.values()) - reads_before
        follow.close()

        n = args.contexts
        print(
            f"{n} clusters x {args.partitions:,} partitions, idle {args.idle:.0f} s; ZooKeeper requests/min: "
            f"nothing connected {floor * per_min:.0f}; one console (live model, 1 cluster) {console * per_min:.0f}; "
            f"fleet re-read whole every {args.whole_every:g} s {whole_count * per_min / n:.0f} per cluster; "
            f"fleet following changes (a round every {EVERY_S:g} s) {follow_count * per_min / n:.0f} per cluster "
            f"({whole_reads} whole reads in the window)"
        )
    finally:
        zk.stop()


if __name__ == "__main__":
    main()
