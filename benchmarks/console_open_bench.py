"""What opening the console costs, beside a bare kazoo read of the same znodes, in the same run.

On a synthetic layout (``benchmarks/zk_layout.py``) in a standalone ZooKeeper (``BareZooKeeper``), alternating
rounds of:

- **bare**: a new kazoo client connects and reads, through ``get_async``/``get_children_async`` pipelined
  (2,000 in flight), exactly the requests kzc's full read makes (``snapshot_bench.request_list``), without
  parsing anything;
- **console**: what the console does from ``connect`` to its first cluster view: ``ZkBackend.connect`` (a
  session, the Kafka-cluster check, the live model's watcher start and its full read, which sets a watch on
  every topic and partition state znode), waiting until ``loading()`` is done, then ``ViewBuilder.build`` of
  the snapshot (the counters and rows the cluster screen shows).

The figure is the best round of each and their ratio (goal: at most 1.3x). ``--profile`` runs one more
console open under cProfile and prints where its time went.

    .venv/bin/python benchmarks/console_open_bench.py [--partitions 50000] [--rounds 3] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import logging
import pstats
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kazoo.client import KazooClient

from benchmarks import zk_layout
from benchmarks.snapshot_bench import BareZooKeeper, bare_pipeline, request_list
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.view import ViewBuilder
from core.console.zk import ZkBackend
from core.polling import wait_until
from core.snapshot.reader import SnapshotReader
from core.zookeeper.session import ZkSession

LIMIT_RATIO = 1.3


def bare_open(hosts: str, requests: list[tuple[bool, str]]) -> tuple[float, float]:
    """Wall and CPU seconds (this process, every thread) for a new kazoo client to connect and read
    ``requests`` pipelined."""
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    client = KazooClient(hosts=hosts, timeout=30)
    client.start(timeout=30)
    bare_pipeline(client, requests)
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    client.stop()
    client.close()
    return took, cpu


def console_open(settings: ConnectionSettings) -> tuple[float, float, float, int]:
    """Wall seconds from ``ZkBackend.connect`` to the first cluster view, CPU seconds (this process, every
    thread; the wait polls every 20 ms), wall seconds until ``loading()`` ended, and the partitions shown."""
    gc.collect()
    started, cpu = time.perf_counter(), time.process_time()
    backend = ZkBackend(settings)
    try:
        backend.connect()
        wait_until(lambda: backend.loading() is None, 600, "the first full read", interval=0.02)
        loaded = time.perf_counter() - started
        view = ViewBuilder().build(backend.snapshot(), int(time.time() * 1000))
        took, cpu = time.perf_counter() - started, time.process_time() - cpu
        return took, cpu, loaded, view.snapshot.partition_count
    finally:
        backend.close()


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="profile one more console open")
    args = parser.parse_args()
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    server = BareZooKeeper(heap="1g")
    try:
        chroot = f"/kzc-open-{uuid.uuid4().hex[:8]}"
        layout = zk_layout.populate(server.hosts, chroot, args.partitions)
        print(f"layout: {layout.partitions:,} partitions in {layout.topics:,} topics, {layout.znodes:,} znodes")
        settings = ConnectionSettings(zookeeper=parse_zookeeper(server.hosts + chroot), session_timeout=30.0)
        session = ZkSession(settings)
        session.start()
        try:
            requests = request_list(SnapshotReader(session).read())
        finally:
            session.stop()
        hosts = server.hosts + chroot
        bare_open(hosts, requests)  # warm-up (the server's caches, the JIT)
        bare_s: list[float] = []
        open_s: list[float] = []
        bare_cpu: list[float] = []
        open_cpu: list[float] = []
        for n in range(1, args.rounds + 1):
            took, cpu = bare_open(hosts, requests)
            bare_s.append(took)
            bare_cpu.append(cpu)
            took, cpu, loaded, partitions = console_open(settings)
            open_s.append(took)
            open_cpu.append(cpu)
            print(
                f"  round {n}: bare {bare_s[-1]:.2f} s (cpu {bare_cpu[-1]:.2f} s); console {took:.2f} s (cpu "
                f"{cpu:.2f} s; read done at {loaded:.2f} s, {partitions:,} partitions in the view); "
                f"ratio {took / bare_s[-1]:.2f}",
                flush=True,
            )
        bare, console = min(bare_s), min(open_s)
        verdict = "ok" if console / bare <= LIMIT_RATIO else "OVER"
        print(
            f"{args.partitions:,} partitions, {len(requests):,} requests: bare get_async {bare:.2f} s "
            f"(cpu {min(bare_cpu):.2f} s), console open {console:.2f} s (cpu {min(open_cpu):.2f} s), "
            f"ratio {console / bare:.2f} (goal <= {LIMIT_RATIO}): {verdict}"
        )
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            console_open(settings)
            profile.disable()
            pstats.Stats(profile).sort_stats("cumulative").print_stats(30)
            pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
