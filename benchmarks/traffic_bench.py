"""What one traffic tick costs at scale (``core.traffic``): 100,000 partitions led by 30 brokers, each broker
a loopback stand-in in a separate process answering ListOffsets and DescribeLogDirs as a 3.9 broker would;
beside a baseline measured in the same run: ApiVersions alone to the same 30 brokers (the connections'
floor every kzc request pays).

Measured: one tick (``read_sample``: one ListOffsets and one DescribeLogDirs per broker, every broker at once),
its wall time and the CPU seconds of the kzc process; the bytes on the wire; the rows and load findings
between two ticks (``Traffic``, ``load_findings``); and the ZooKeeper requests a tick makes (none: the layout
is read once, before the first tick).

Run::

    .venv/bin/python benchmarks/traffic_bench.py [--topics 25000] [--partitions-per-topic 4] [--brokers 30]
"""

from __future__ import annotations

import argparse
import multiprocessing
import socket
import statistics
import struct
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from core.brokers.apiversions import open_broker  # noqa: E402
from core.brokers.offsets import encode_list_offsets  # noqa: E402
from core.config import KafkaSecurity  # noqa: E402
from core.testdata.log_dirs import synthetic_log_dirs  # noqa: E402
from core.testdata.snapshots import synthetic_snapshot  # noqa: E402
from core.traffic.cause import load_findings  # noqa: E402
from core.traffic.sample import Layout, read_sample  # noqa: E402
from core.traffic.view import Traffic  # noqa: E402
from tests.unit.fake_broker import (  # noqa: E402
    RELEASE_APIS,
    api_versions_body,
    list_offsets_answer,
    log_dirs_answer,
    read_frame,
)

LIST_OFFSETS_V, LOG_DIRS_V = 7, 4


def _snapshot(args: argparse.Namespace) -> object:
    return synthetic_snapshot(topics=args.topics, partitions_per_topic=args.partitions_per_topic, brokers=args.brokers)


def serve(args: argparse.Namespace, ports: multiprocessing.Queue[dict[int, int]]) -> None:
    """The stand-in brokers (a child process): every answer built once, then served per request."""
    snapshot = _snapshot(args)
    layout = Layout.of(snapshot, KafkaSecurity())  # type: ignore[arg-type]
    dirs = synthetic_log_dirs(snapshot, 0)  # type: ignore[arg-type]
    led = layout.led()
    answers: dict[int, dict[int, bytes]] = {}
    for broker in dirs:
        offsets = {(t, p): 1000 for t, ps in led.get(broker, {}).items() for p in ps}
        answers[broker] = {
            2: list_offsets_answer(LIST_OFFSETS_V, offsets, {}),
            35: log_dirs_answer(LOG_DIRS_V, dirs[broker].dirs or ()),
            18: api_versions_body(RELEASE_APIS["3.9"]),
        }

    def one(conn: socket.socket, broker: int) -> None:
        with conn:
            while (raw := read_frame(conn)) is not None:
                api_key, _, correlation = struct.unpack_from(">hhi", raw)
                reply = struct.pack(">i", correlation) + answers[broker][api_key]
                conn.sendall(struct.pack(">i", len(reply)) + reply)

    def listen(broker: int, server: socket.socket) -> None:
        while True:
            conn, _ = server.accept()
            threading.Thread(target=one, args=(conn, broker), daemon=True).start()

    found = {}
    for broker in answers:
        server = socket.create_server(("127.0.0.1", 0), backlog=64)
        found[broker] = server.getsockname()[1]
        threading.Thread(target=listen, args=(broker, server), daemon=True).start()
    ports.put(found)
    threading.Event().wait()


def timed(rounds: int, run: Callable[[], object]) -> tuple[float, float]:
    """Median (wall seconds, CPU seconds of this process) over ``rounds`` runs."""
    walls, cpus = [], []
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=25_000)
    parser.add_argument("--partitions-per-topic", type=int, default=4)
    parser.add_argument("--brokers", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    ports: multiprocessing.Queue[dict[int, int]] = multiprocessing.Queue()
    child = multiprocessing.Process(target=serve, args=(args, ports), daemon=True)
    child.start()
    try:
        snapshot = _snapshot(args)
        layout = Layout.of(snapshot, KafkaSecurity())  # type: ignore[arg-type]
        found = ports.get(timeout=600)
        layout = replace(layout, endpoints=MappingProxyType({b: ("127.0.0.1", p) for b, p in found.items()}))
        partitions = len(layout.leaders)
        print(
            f"{partitions:,} partitions led by {len(found)} brokers (stand-ins in another process), median of "
            f"{args.rounds}"
        )
        request_bytes = sum(len(encode_list_offsets(topics, LIST_OFFSETS_V)) for topics in layout.led().values())
        sample = read_sample(layout, 30.0, 0)
        answer_bytes = sum(len(d.replicas) * 22 for r in sample.log_dirs.values() for d in r.dirs or ())
        assert all(r.offsets is not None for r in sample.offsets.values()), "a stand-in did not answer"
        wall, cpu = timed(args.rounds, lambda: read_sample(layout, 30.0, 0))
        print(f"one tick (ListOffsets + DescribeLogDirs x {len(found)})  {wall:.2f} s wall, {cpu:.2f} s CPU")
        print(
            f"  requests out: {request_bytes / 1e6:.1f} MB of ListOffsets; DescribeLogDirs answers in: "
            f"~{answer_bytes / 1e6:.1f} MB"
        )

        def floor() -> None:
            def one(port: int) -> None:
                with open_broker("127.0.0.1", port, 30.0):
                    pass

            with ThreadPoolExecutor(max_workers=8) as pool:
                list(pool.map(one, found.values()))

        base_wall, base_cpu = timed(args.rounds, floor)
        print(f"baseline: ApiVersions alone x {len(found)}        {base_wall:.2f} s wall, {base_cpu:.2f} s CPU")
        later = read_sample(layout, 30.0, 30_000)
        traffic = Traffic(sample, later)
        for by in ("topic", "broker", "partition", "logdir"):
            rows_wall, _ = timed(args.rounds, lambda by=by: Traffic(sample, later).rows(by))
            print(f"rows by {by:<10} (two ticks to rows)   {rows_wall:.2f} s")
        print(f"load findings                        {timed(args.rounds, lambda: load_findings(traffic))[0]:.2f} s")
        print("ZooKeeper requests per tick: 0 (the layout is read once, before the first tick)")
    finally:
        child.terminate()
        child.join(10)


if __name__ == "__main__":
    main()
