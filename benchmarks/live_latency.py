"""Live latency of the live model (``core.live.model.LiveCluster`` as ``kzc watch`` builds it, over its one
``ClusterWatcher``): znode change to delivered event, beside bare kazoo watches.

On a synthetic Kafka layout of ``--partitions`` partitions (``benchmarks/zk_layout.py``), the script
measures, in one run:

- partition state changes: ``--changes`` writes to one followed partition's ``state`` znode, each timed
  from just before the write to the ``PartitionStateChanged`` event, beside a bare kazoo ``DataWatch``
  on the same znode (its own client and session);
- topic creations: a child added to ``/brokers/topics`` to ``TopicCreated``, beside a bare kazoo
  ``ChildrenWatch`` (both re-read the whole topic list);
- what the live model costs: start time (its small first read, then the first full read, which sets a watch
  on every topic and partition state znode as it reads them) and ZooKeeper watches held (``mntr``), after
  that read and after following one topic, and optionally (``--treecache``) kazoo's ``TreeCache`` of the
  same tree as the alternative it avoids.

Each change waits for both watchers before the next one, so no change is coalesced. Without
``--zookeeper`` a one-broker sandbox is started in a temporary directory and stopped at the end.

    .venv/bin/python benchmarks/live_latency.py [--zookeeper 127.0.0.1:2181] [--partitions 50000]
"""

from __future__ import annotations

import argparse
import json
import logging
import socket
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from kazoo.client import KazooClient
from kazoo.recipe.cache import TreeCache, TreeEvent

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.zk_layout import populate, topic_name
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.live.events import PartitionStateChanged, TopicCreated
from core.live.live_event import LiveEvent
from core.live.model import LiveCluster
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.zookeeper.session import ZkSession

GOAL_P95_MS = 250.0  # the goal for change -> event
WAIT_S = 10.0  # one change must arrive within this, or the run stops with an error


class Arrivals:
    """Times (``time.perf_counter``) at which a watcher saw each expected key."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._seen: dict[object, float] = {}

    def mark(self, key: object) -> None:
        now = time.perf_counter()
        with self._cond:
            self._seen.setdefault(key, now)
            self._cond.notify_all()

    def wait(self, key: object) -> float:
        with self._cond:
            if not self._cond.wait_for(lambda: key in self._seen, WAIT_S):
                raise TimeoutError(f"no event for {key!r} within {WAIT_S:g} s")
            return self._seen[key]


def _state(epoch: int) -> bytes:
    isr = [1, 2, 3] if epoch % 2 else [1, 2]
    doc = {"controller_epoch": 7, "leader": 1, "version": 1, "leader_epoch": epoch, "isr": isr}
    return json.dumps(doc).encode()


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")
    return {"p50": cuts[49] * 1000, "p95": cuts[94] * 1000, "p99": cuts[98] * 1000, "max": ordered[-1] * 1000}


def _row(name: str, samples: list[float]) -> str:
    p = _percentiles(samples)
    return f"  {name:<34} {p['p50']:8.2f} {p['p95']:8.2f} {p['p99']:8.2f} {p['max']:8.2f}"


def _watch_count(port: int) -> int | None:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"mntr")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
    except OSError:
        return None
    for line in data.decode(errors="replace").splitlines():
        key, _, value = line.partition("\t")
        if key == "zk_watch_count":
            return int(value)
    return None  # mntr not allowed by this server's 4lw.commands.whitelist


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextmanager
def _zookeeper(given: str | None) -> Iterator[str]:
    if given:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="kzc-bench-") as directory:
        print("starting a one-broker sandbox for its ZooKeeper ...", file=sys.stderr)
        box = Sandbox.up(directory, brokers=1)
        try:
            yield f"127.0.0.1:{box.info().zookeeper_port}"
        finally:
            box.down()


def _client(connect: str) -> KazooClient:
    client = KazooClient(hosts=connect, timeout=10)
    client.start(timeout=30)
    return client


def _measure(
    keys: range, write: Callable[[int], None], ours: Arrivals, bare: Arrivals
) -> tuple[list[float], list[float]]:
    """For each key: write it, then wait until both watchers saw it; seconds from before the write."""
    ours_s: list[float] = []
    bare_s: list[float] = []
    for key in keys:
        started = time.perf_counter()
        write(key)
        ours_s.append(ours.wait(key) - started)
        bare_s.append(bare.wait(key) - started)
    return ours_s, bare_s


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zookeeper", metavar="HOST:PORT", help="a ZooKeeper to use (default: start a sandbox)")
    parser.add_argument("--partitions", type=int, default=50_000, help="size of the synthetic layout")
    parser.add_argument("--changes", type=int, default=1000, help="partition state changes to time")
    parser.add_argument("--topic-changes", type=int, default=200, help="topic creations to time")
    parser.add_argument("--treecache", action="store_true", help="also time kazoo's TreeCache of the same tree")
    args = parser.parse_args()
    # kazoo logs its connection attempts (e.g. while the sandbox starts); the figures are the output.
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False

    with _zookeeper(args.zookeeper) as hosts:
        port = int(hosts.rsplit(":", 1)[1])
        chroot = f"/kzc-bench-{uuid.uuid4().hex[:8]}"
        layout = populate(hosts, chroot, args.partitions)
        print(
            f"layout: {layout.znodes} znodes, {layout.topics} topics, {layout.partitions} partitions "
            f"under {hosts}{chroot} (written in {layout.seconds:.1f} s)"
        )
        connect = hosts + chroot
        followed = topic_name(0)
        state_path = f"/brokers/topics/{followed}/partitions/0/state"

        ours_state, ours_topics = Arrivals(), Arrivals()

        def on_event(event: LiveEvent) -> None:  # the watcher's thread (on_raw, as kzc watch): note the time
            if isinstance(event, PartitionStateChanged) and event.partition == 0:
                new = event.new
                if new is not None and hasattr(new, "leader_epoch"):
                    ours_state.mark(new.leader_epoch)
            elif isinstance(event, TopicCreated) and event.name.startswith("bench-new-"):
                ours_topics.mark(int(event.name.rsplit("-", 1)[1]))

        watches_before = _watch_count(port)
        session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(connect)))
        session.start()
        live = LiveCluster(session, on_event=lambda _e: None, on_snapshot=lambda: None, on_raw=on_event)
        started = time.perf_counter()
        live.start()
        start_s = time.perf_counter() - started
        wait_until(lambda: live.loading() is None, 3600, "the first full read", interval=0.01)
        read_s = time.perf_counter() - started
        watches_read = _watch_count(port)
        started = time.perf_counter()
        live.watcher.follow_topic(followed)
        follow_s = time.perf_counter() - started
        watches_followed = _watch_count(port)

        bare_client, writer = _client(connect), _client(connect)
        bare_state, bare_topics = Arrivals(), Arrivals()

        def on_data(data: bytes | None, stat: object) -> None:
            if data:
                bare_state.mark(json.loads(data)["leader_epoch"])

        known_topics: set[str] = set()

        def on_children(children: list[str]) -> None:
            for name in set(children) - known_topics:
                if name.startswith("bench-new-"):
                    bare_topics.mark(int(name.rsplit("-", 1)[1]))
            known_topics.update(children)

        bare_client.DataWatch(state_path, on_data)
        bare_client.ChildrenWatch("/brokers/topics", on_children)

        try:
            # Leader epochs above any the layout holds, so every write is a change both watchers report.
            epochs = range(1001, 1001 + args.changes)
            state_ours, state_bare = _measure(
                epochs, lambda epoch: writer.set(state_path, _state(epoch)), ours_state, bare_state
            )
            topic_ours, topic_bare = _measure(
                range(1, args.topic_changes + 1),
                lambda i: writer.create(f"/brokers/topics/bench-new-{i}", b"{}"),
                ours_topics,
                bare_topics,
            )
        finally:
            live.stop()
            session.stop()
            bare_client.stop()
            bare_client.close()

        print()
        print(f"latency, change written -> event delivered (ms)    {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8}")
        print(f" partition state, {args.changes} changes:")
        print(_row("kzc live model (followed topic)", state_ours))
        print(_row("baseline: bare kazoo DataWatch", state_bare))
        print(f" topic created, {args.topic_changes} creations among {layout.topics}+ topics:")
        print(_row("kzc live model (TopicCreated)", topic_ours))
        print(_row("baseline: bare kazoo ChildrenWatch", topic_bare))
        p95 = _percentiles(state_ours)["p95"]
        verdict = "ok" if p95 < GOAL_P95_MS else "MISSED"
        print(f" goal: partition state p95 < {GOAL_P95_MS:g} ms: {p95:.2f} ms {verdict}")
        print()
        print("cost of watching")
        print(f"  {'LiveCluster.start() (structural znodes, topic names)':<52} {start_s * 1000:8.1f} ms")
        print(f"  {f'... to its first full read of {layout.partitions} partitions':<52} {read_s * 1000:8.1f} ms")
        print(f"  {'follow_topic() of a 100-partition topic':<52} {follow_s * 1000:8.1f} ms")
        if watches_before is not None and watches_read is not None and watches_followed is not None:
            print(
                f"  ZooKeeper watches held: {watches_read - watches_before} after the full read "
                f"({layout.topics} topics, {layout.partitions} partitions), "
                f"{watches_followed - watches_before} after following one topic"
            )
        else:
            print("  ZooKeeper watches held: unknown (mntr is not allowed on this server)")

        if args.treecache:
            rss_before = _rss_mib()
            ready = threading.Event()
            cache_client = _client(connect)
            cache = TreeCache(cache_client, "/")

            def on_tree(event: TreeEvent) -> None:
                if event.event_type == TreeEvent.INITIALIZED:
                    ready.set()

            cache.listen(on_tree)
            started = time.perf_counter()
            cache.start()
            ready.wait(3600)
            cache_s = time.perf_counter() - started
            cache_watches = _watch_count(port)
            held = f", {cache_watches - watches_before} watches" if cache_watches and watches_before else ""
            print(
                f"  baseline: kazoo TreeCache of the same tree: ready in {cache_s:.1f} s, "
                f"+{_rss_mib() - rss_before:.0f} MiB RSS{held}"
            )
            cache.close()
            cache_client.stop()
            cache_client.close()

        if args.zookeeper:
            print(f"\nremoving {chroot} ...", file=sys.stderr)
            writer.delete(chroot, recursive=True)
        writer.stop()
        writer.close()


if __name__ == "__main__":
    main()
