"""What opening the timeline costs on a 100k-partition cluster: ZooKeeper requests and time, beside the snapshot
read the console makes anyway and a bare kazoo pipeline over the same znodes.

Starts its own ZooKeeper (``snapshot_bench.BareZooKeeper``), writes the synthetic layout (``zk_layout.py``), then
measures in one run:

- **bare get_async pipeline**: the exact requests kzc's reader makes, no parsing (the ceiling);
- **kzc snapshot read**: what the console's first read does (now also keeping each state znode's mtime/version);
- **timeline**: ``dated_changes`` + ``bursts`` over that snapshot, and the packets ZooKeeper received meanwhile
  (its ``srvr`` counter, read before and after: the goal is no request at all).

Run::

    .venv/bin/python benchmarks/changes_bench.py [--partitions 100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
import uuid
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import zk_layout  # noqa: E402
from snapshot_bench import BareZooKeeper, bare_pipeline, request_list, timed  # noqa: E402

from core.changes.timeline import bursts, dated_changes  # noqa: E402
from core.config import ConnectionSettings  # noqa: E402
from core.connect import parse_zookeeper  # noqa: E402
from core.snapshot.reader import SnapshotReader  # noqa: E402
from core.zookeeper.session import ZkSession  # noqa: E402


def packets_received(port: int) -> int:
    """ZooKeeper's count of packets received (``srvr``)."""
    with closing(socket.create_connection(("127.0.0.1", port), timeout=5)) as s:
        s.sendall(b"srvr")
        text = b""
        while chunk := s.recv(4096):
            text += chunk
    for line in text.decode().splitlines():
        if line.startswith("Received:"):
            return int(line.split(":")[1])
    raise RuntimeError(f"no Received: line in srvr: {text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description="the timeline's cost beside the snapshot read")
    parser.add_argument("--partitions", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    zk = BareZooKeeper()
    try:
        chroot = f"/bench-changes-{uuid.uuid4().hex[:6]}"
        layout = zk_layout.populate(zk.hosts, chroot, args.partitions)
        print(f"{args.partitions:,} partitions: {layout.znodes:,} znodes written in {layout.seconds:.1f} s", flush=True)
        session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(zk.hosts + chroot), session_timeout=30.0))
        session.start()
        try:
            reader = SnapshotReader(session)
            snapshot = reader.read()
            requests = request_list(snapshot)
            idle = -packets_received(zk.port) + packets_received(zk.port)  # what one srvr adds by itself
            bare, read, timeline, packets = [], [], [], []
            for _ in range(args.rounds):
                bare.append(timed(lambda: bare_pipeline(session.client, requests)))
                before = packets_received(zk.port)
                read.append(timed(reader.read))
                read_packets = packets_received(zk.port) - before - idle
                before = packets_received(zk.port)
                started = time.perf_counter()
                changes = dated_changes(snapshot)
                grouped = bursts(changes)
                timeline.append(time.perf_counter() - started)
                packets.append(packets_received(zk.port) - before - idle)  # a session ping may land here
            print(f"  snapshot read: {reader.stats.requests:,} requests ({read_packets:,} packets at the server)")
            print(f"  bare get_async pipeline (baseline): {min(bare):.2f} s")
            print(f"  kzc snapshot read:                   {min(read):.2f} s  (ratio {min(read) / min(bare):.2f})")
            print(
                f"  timeline (dated_changes + bursts):   {min(timeline):.2f} s for {len(changes):,} changes in "
                f"{len(grouped):,} bursts; ZooKeeper packets meanwhile: {max(packets)} (goal 0)"
            )
        finally:
            session.stop()
    finally:
        zk.stop()


if __name__ == "__main__":
    main()
