"""Snapshot read speed and memory against a bare kazoo pipeline, on 100k and 200k synthetic partitions.

Starts its own ZooKeeper (the sandbox's jars, no broker: ``BareZooKeeper`` below), writes a synthetic
Kafka layout (``zk_layout.py``) under a fresh chroot per size, then measures in the same run, on the
same znodes:

- **bare get_async pipeline**: kazoo ``get_async``/``get_children_async`` over the exact request list
  kzc's reader issues (known in advance, so no discovery, no parsing), at most 2,000 in flight: the
  ceiling for kazoo's Python client.
- **kzc snapshot**: ``core.snapshot.reader.read_snapshot`` (discovery, parsing, the snapshot model).
- **one-by-one sync gets**: ``client.get`` / ``client.get_children`` in a loop, the naive way.
- **snapshot memory**: with ``tracemalloc``, what the finished snapshot retains and the peak while
  reading (a separate run, as tracing slows allocation).

Bare and kzc runs alternate (``--rounds``) after a warm-up; the fastest of each is compared, since
other work on a shared machine only ever adds time. Run::

    .venv/bin/python benchmarks/snapshot_bench.py [--sizes 100000,200000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tracemalloc
import uuid
from collections import deque
from collections.abc import Callable
from contextlib import closing, suppress
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import zk_layout  # noqa: E402
from kazoo.client import KazooClient  # noqa: E402
from kazoo.exceptions import NoNodeError  # noqa: E402

from core.config import ConnectionSettings  # noqa: E402
from core.connect import parse_zookeeper  # noqa: E402
from core.polling import wait_until  # noqa: E402
from core.sandbox.jars import ensure_jars, java_executable  # noqa: E402
from core.snapshot.model import ClusterSnapshot  # noqa: E402
from core.snapshot.reader import DEFAULT_MAX_IN_FLIGHT, SnapshotReader  # noqa: E402
from core.zookeeper.session import ZkSession  # noqa: E402

WINDOW = DEFAULT_MAX_IN_FLIGHT
LIMIT_RATIO = 1.25
LIMIT_MEMORY_MIB = 150
LIMIT_SCALING = 2.0


class BareZooKeeper:
    """A standalone ZooKeeper on 127.0.0.1 for benchmarks: no brokers, its own temp directory and heap.

    The JVM carries ``-Dkzc.bench=<dir>``; ``stop`` signals only the process this object started.
    ``forceSync=no`` keeps the layout writes from waiting on the disk: reads, which are measured, are
    served from memory either way.
    """

    def __init__(self, heap: str = "2g") -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="kzc-bench-zk-"))
        with closing(socket.socket()) as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        (self.dir / "data").mkdir()
        config = self.dir / "zoo.cfg"
        config.write_text(
            f"tickTime=500\ndataDir={self.dir / 'data'}\nclientPort={self.port}\nclientPortAddress=127.0.0.1\n"
            "admin.enableServer=false\nmaxClientCnxns=0\nforceSync=no\n4lw.commands.whitelist=srvr,cons\n"
        )
        command = [
            java_executable(), f"-Xms{heap}", f"-Xmx{heap}", "-XX:+UseParallelGC", f"-Dkzc.bench={self.dir}",
            "-cp", f"{ensure_jars()}/*", "org.apache.zookeeper.server.ZooKeeperServerMain", str(config),
        ]  # fmt: skip
        with open(self.dir / "zookeeper.log", "wb") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(self._serving, 60.0, f"ZooKeeper on port {self.port}")

    @property
    def hosts(self) -> str:
        """The connect string without chroot."""
        return f"127.0.0.1:{self.port}"

    def _serving(self) -> bool:
        # The port opens before the server serves; "srvr" answers with its zxid only once it does.
        if self.process.poll() is not None:
            raise RuntimeError(f"ZooKeeper exited; see {self.dir / 'zookeeper.log'}")
        with closing(socket.socket()) as s:
            s.settimeout(2.0)
            try:
                s.connect(("127.0.0.1", self.port))
                s.sendall(b"srvr")
                return b"Zxid" in s.recv(4096)
            except OSError:
                return False

    def stop(self) -> None:
        """Stop the JVM (SIGTERM, then SIGKILL) and remove its directory."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=20)
        shutil.rmtree(self.dir, ignore_errors=True)


Request = tuple[bool, str]  # (is a children listing, path)


def request_list(snapshot: ClusterSnapshot) -> list[Request]:
    """The requests kzc's reader made for ``snapshot``, in its order, for the baseline to repeat."""
    requests: list[Request] = [
        (False, p)
        for p in (
            "/controller_epoch", "/controller", "/cluster/id", "/admin/reassign_partitions",
            "/admin/preferred_replica_election", "/feature", "/migration", "/latest_producer_id_block",
        )
    ]  # fmt: skip
    requests += [
        (True, p)
        for p in (
            "/brokers/ids", "/brokers/topics", "/admin/delete_topics", "/config/topics", "/config/brokers",
            "/isr_change_notification", "/log_dir_event_notification", "/config/changes",
        )
    ]  # fmt: skip
    requests.append((False, "/delegation_token/tokens"))  # the reader asks exists (the stat's child count)
    requests += [(False, f"/brokers/ids/{b}") for b in snapshot.brokers]
    for name in snapshot.topics:
        requests += [(False, f"/brokers/topics/{name}"), (True, f"/brokers/topics/{name}/partitions")]
    requests += [(False, f"/config/topics/{name}") for name in snapshot.topic_configs]
    for topic in snapshot.topics.values():
        requests += [(False, f"/brokers/topics/{topic.name}/partitions/{p}/state") for p in topic.states]
    requests.append((False, "/controller_epoch"))
    return requests


def bare_pipeline(client: KazooClient, requests: list[Request]) -> None:
    """The baseline: every request through kazoo's async API, FIFO, at most ``WINDOW`` outstanding."""
    get, children = client.get_async, client.get_children_async
    in_flight: deque[object] = deque()
    for listing, path in requests:
        in_flight.append(children(path) if listing else get(path))
        if len(in_flight) >= WINDOW:
            _answer(in_flight.popleft())
    while in_flight:
        _answer(in_flight.popleft())


def _answer(result: object) -> object:
    try:
        return result.get()  # type: ignore[attr-defined]
    except NoNodeError:  # absent optional znodes (/migration, /admin/reassign_partitions...)
        return None


def one_by_one(client: KazooClient, requests: list[Request]) -> None:
    """The naive way: one synchronous request after the other."""
    for listing, path in requests:
        with suppress(NoNodeError):
            client.get_children(path) if listing else client.get(path)


def timed(action: Callable[[], object]) -> float:
    """Wall seconds of ``action``."""
    gc.collect()
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


@dataclass
class Result:
    """Figures for one layout size."""

    partitions: int
    requests: int
    populate_s: float
    bare_s: list[float]
    snapshot_s: list[float]
    sync_s: float
    retained_mib: float
    peak_mib: float
    max_in_flight: int
    zxid: int
    controller_epoch: object

    @property
    def bare(self) -> float:
        return min(self.bare_s)

    @property
    def snapshot(self) -> float:
        return min(self.snapshot_s)


def measure(zk: BareZooKeeper, partitions: int, rounds: int) -> Result:
    chroot = f"/bench-{partitions}-{uuid.uuid4().hex[:6]}"
    print(f"\n{partitions:,} partitions: writing the layout under {chroot} ...", flush=True)
    layout = zk_layout.populate(zk.hosts, chroot, partitions)
    print(f"  {layout.znodes:,} znodes in {layout.seconds:.1f} s", flush=True)
    session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(zk.hosts + chroot), session_timeout=30.0))
    session.start()
    try:
        reader = SnapshotReader(session)
        snapshot = reader.read()  # warm-up, and the request list for the baselines
        requests = request_list(snapshot)
        assert len(requests) == reader.stats.requests, (len(requests), reader.stats.requests)
        assert snapshot.partition_count == partitions
        client = session.client
        bare_pipeline(client, requests)  # warm-up
        bare_s, snapshot_s, peak_window = [], [], 0
        for round_number in range(1, rounds + 1):
            bare_s.append(timed(lambda: bare_pipeline(client, requests)))
            snapshot_s.append(timed(reader.read))
            peak_window = max(peak_window, reader.stats.max_in_flight)
            print(
                f"  round {round_number}: bare {bare_s[-1]:.2f} s, kzc snapshot {snapshot_s[-1]:.2f} s "
                f"(ratio {snapshot_s[-1] / bare_s[-1]:.2f})",
                flush=True,
            )
        sync_s = timed(lambda: one_by_one(client, requests))
        print(f"  one-by-one sync gets: {sync_s:.1f} s", flush=True)
        del snapshot
        gc.collect()
        tracemalloc.start()
        traced = reader.read()
        gc.collect()
        retained, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result = Result(
            partitions=partitions,
            requests=len(requests),
            populate_s=layout.seconds,
            bare_s=bare_s,
            snapshot_s=snapshot_s,
            sync_s=sync_s,
            retained_mib=retained / 2**20,
            peak_mib=peak / 2**20,
            max_in_flight=peak_window,
            zxid=traced.zxid,
            controller_epoch=traced.controller_epoch,
        )
        del traced
        gc.collect()
        return result
    finally:
        session.stop()


def report(results: list[Result]) -> None:
    def rate(n: int, s: float) -> str:
        return f"{s:6.2f} s ({n / s / 1000:4.1f}k/s)"

    print("\nSnapshot read, same znodes, same run (fastest of the rounds; all rounds above)\n")
    header = (
        f"{'partitions':>10}  {'requests':>8}  {'bare get_async':>18}  {'kzc snapshot':>18}  {'ratio':>5}  "
        f"{'one-by-one sync':>18}  {'retained':>9}  {'peak':>9}  {'in flight':>9}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.partitions:>10,}  {r.requests:>8,}  {rate(r.requests, r.bare):>18}  "
            f"{rate(r.requests, r.snapshot):>18}  "
            f"{r.snapshot / r.bare:>5.2f}  {rate(r.requests, r.sync_s):>18}  {r.retained_mib:>5.1f} MiB  "
            f"{r.peak_mib:>5.1f} MiB  {r.max_in_flight:>9,}"
        )
    print("\nChecks against the targets:")
    for r in results:
        ratio = r.snapshot / r.bare
        print(f"  {r.partitions:,}: snapshot/bare {ratio:.2f}x (target <= {LIMIT_RATIO}x) {_ok(ratio <= LIMIT_RATIO)}")
        memory_ok = r.retained_mib <= LIMIT_MEMORY_MIB * r.partitions / 100_000
        print(
            f"  {r.partitions:,}: snapshot retains {r.retained_mib:.1f} MiB, peak {r.peak_mib:.1f} MiB while reading "
            f"(target <= {LIMIT_MEMORY_MIB} MiB per 100k) {_ok(memory_ok)}"
        )
        print(
            f"  {r.partitions:,}: at most {r.max_in_flight:,} requests in flight (target <= {WINDOW:,}) "
            f"{_ok(r.max_in_flight <= WINDOW)}; zxid {hex(r.zxid)}, controller epoch {r.controller_epoch}"
        )
    sizes = {r.partitions: r for r in results}
    if 100_000 in sizes and 200_000 in sizes:
        scale = sizes[200_000].snapshot / sizes[100_000].snapshot
        print(f"  200k/100k snapshot time: {scale:.2f}x (target <= {LIMIT_SCALING}x) {_ok(scale <= LIMIT_SCALING)}")


def _ok(passed: bool) -> str:
    return "ok" if passed else "MISSED"


def main() -> None:
    parser = argparse.ArgumentParser(description="kzc snapshot read speed and memory vs bare kazoo")
    parser.add_argument("--sizes", default="100000,200000", help="partition counts, comma-separated")
    parser.add_argument("--rounds", type=int, default=3, help="alternating bare/kzc rounds per size")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    zk = BareZooKeeper()
    print(f"ZooKeeper on {zk.hosts} (pid {zk.process.pid}); Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    try:
        results = [measure(zk, size, args.rounds) for size in sizes]
    finally:
        zk.stop()
    report(results)


if __name__ == "__main__":
    main()
