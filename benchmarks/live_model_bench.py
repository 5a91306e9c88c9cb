"""The console's live model (``core.live.model.LiveCluster``): ZooKeeper load while idle, and how fast a
partition state change anywhere in the cluster reaches its snapshot.

On a synthetic layout (``benchmarks/zk_layout.py``) in a standalone ZooKeeper (``BareZooKeeper``):

- idle load: requests the console's connection sends in ``--idle`` seconds after its first full read,
  from ZooKeeper's own per-connection counter (``cons``: ``recved``), pings included and counted apart
  (one per third of the session timeout); the baseline is today's model, a full read every 30 s, on
  its own connection over the same window;
- change latency: ``--changes`` writes to random partitions' ``state`` znodes (none followed), each
  timed from just before the write until ``snapshot()`` holds it; then a burst of ``--burst`` states
  rewritten at once (a broker failover), timed until all are held.

    .venv/bin/python benchmarks/live_model_bench.py [--partitions 100000] [--idle 60]
"""

from __future__ import annotations

import argparse
import json
import logging
import random
import re
import socket
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from kazoo.client import KazooClient

from benchmarks.snapshot_bench import BareZooKeeper
from benchmarks.zk_layout import populate
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.kafka.znodes import PartitionState
from core.live.model import LiveCluster
from core.polling import wait_until
from core.snapshot.health import assess
from core.snapshot.reader import SnapshotReader
from core.zookeeper.session import ZkSession


def _received(port: int, session_id: int) -> int:
    """Requests ZooKeeper received on the connection of ``session_id`` (``cons``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"cons")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    for line in data.decode(errors="replace").splitlines():
        if f"sid=0x{session_id:x}" in line:
            match = re.search(r"recved=(\d+)", line)
            if match:
                return int(match.group(1))
    raise RuntimeError(f"session 0x{session_id:x} not in cons output")


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--idle", type=float, default=60.0, help="idle window, seconds")
    parser.add_argument("--changes", type=int, default=200)
    parser.add_argument("--burst", type=int, default=1000)
    args = parser.parse_args()
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    if True:
        server = BareZooKeeper(heap="1g")
        try:
            port = server.port
            hosts = server.hosts
            chroot = f"/kzc-bench-{uuid.uuid4().hex[:8]}"
            layout = populate(hosts, chroot, args.partitions)
            print(
                f"layout: {layout.partitions} partitions in {layout.topics} topics (written in {layout.seconds:.0f} s)"
            )
            settings = ConnectionSettings(zookeeper=parse_zookeeper(hosts + chroot))
            timeout_s = settings.session_timeout
            pings = args.idle / (timeout_s / 3)

            # Today's model: a full read every 30 s (no other change).
            base_session = ZkSession(settings)
            base_session.start()
            reader = SnapshotReader(base_session)
            reader.read()
            before = _received(port, base_session.session_id or 0)
            started = time.monotonic()
            while (elapsed := time.monotonic() - started) < args.idle:  # a read at 0, 30, 60 s ... of the window
                reader.read()
                time.sleep(max(0.0, min(30.0 - (time.monotonic() - started - elapsed), args.idle - elapsed)))
            baseline = _received(port, base_session.session_id or 0) - before
            base_session.stop()

            session = ZkSession(settings)
            session.start()
            refreshed = threading.Event()
            live = LiveCluster(session, lambda _e: None, refreshed.set)
            t = time.monotonic()
            live.start()
            wait_until(lambda: live.loading() is None, 600, "the first full read")
            first_read_s = time.monotonic() - t
            before = _received(port, session.session_id or 0)
            time.sleep(args.idle)
            ours = _received(port, session.session_id or 0) - before
            per_min = 60 / args.idle
            print(
                f"idle {args.idle:.0f} s, requests/min (pings ~{pings * per_min:.0f}/min included): "
                f"kzc {ours * per_min:.0f}, today's 30 s full read {baseline * per_min:.0f}"
            )

            zk = KazooClient(hosts=hosts, timeout=10)
            zk.start(timeout=30)
            if True:
                snap = live.snapshot()
                targets = random.sample([(t, p) for t, p, _, _ in snap.iter_partitions()], args.changes + args.burst)

                def bump(topic: str, partition: int, epoch: int) -> None:
                    path = f"{chroot}/brokers/topics/{topic}/partitions/{partition}/state"
                    data = json.loads(zk.get(path)[0])
                    data["leader_epoch"] = epoch
                    zk.set(path, json.dumps(data).encode())

                def held(topic: str, partition: int, epoch: int) -> bool:
                    state = live.snapshot().topics[topic].states.get(partition)
                    return isinstance(state, PartitionState) and state.leader_epoch == epoch

                latencies = []
                for n, (topic, partition) in enumerate(targets[: args.changes]):
                    epoch = 1_000_000 + n
                    t = time.perf_counter()
                    bump(topic, partition, epoch)
                    wait_until(lambda t=topic, p=partition, e=epoch: held(t, p, e), 10, "the change", interval=0.001)  # type: ignore[misc]
                    latencies.append((time.perf_counter() - t) * 1000)
                burst = targets[args.changes :]
                t = time.perf_counter()
                for topic, partition in burst:
                    bump(topic, partition, 2_000_000)
                written = time.perf_counter() - t
                wait_until(lambda: all(held(tp, pp, 2_000_000) for tp, pp in burst), 60, "the burst", interval=0.01)
                burst_s = time.perf_counter() - t
            q = statistics.quantiles(latencies, n=20)
            p50 = statistics.median(latencies)
            print(
                f"first full read {first_read_s:.1f} s; change -> snapshot p50 {p50:.1f} ms, "
                f"p95 {q[18]:.1f} ms over {args.changes} changes; burst of {args.burst} states held "
                f"{burst_s:.2f} s after the first write ({written:.2f} s to write them); "
                f"targeted reads {live.targeted_reads}"
            )
            t = time.perf_counter()
            report = assess(live.snapshot())
            took_ms = (time.perf_counter() - t) * 1000
            print(
                f"health pass over the model (kzc watch's HealthChanged, the console's counters): "
                f"{took_ms:.0f} ms ({len(report.under_replicated)} under-replicated)"
            )
            zk.stop()
            live.stop()
            session.stop()
        finally:
            server.stop()


if __name__ == "__main__":
    main()
