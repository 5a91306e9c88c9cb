"""Topic operations at scale: what planning and following cost on big clusters, beside baselines.

Starts its own ZooKeeper (``snapshot_bench.BareZooKeeper``, no broker) and writes two synthetic Kafka
layouts (``zk_layout.py``): 100,000 partitions in 1,000 topics, and 20,000 partitions in 2 topics of
10,000. Then measures, in the same run, on the same znodes:

- **delete progress, 1,000 topics** (the first look after ``kzc topic delete --regex '.*'``, and each
  poll of ``--wait`` while the topics are unchanged): ``TopicOps.deletion_progress`` (pipelined reads,
  strict parsing, reused while a znode's bytes do not change) against the same znodes read one by one;
- **delete plan, 1,000 topics**: ``TopicOps.plan_delete(regex='.*')`` against the one-by-one reads
  of the znodes it needs;
- **online progress, 10,000 partitions** (one poll of ``--wait`` after a create or expand):
  ``TopicOps.online_progress`` against the state znodes read one by one;
- **expand rewrite, 10,000 → 11,000 partitions**: ``add_partitions_to_raw`` (byte-exact insertion)
  against a plain ``json.loads`` + ``json.dumps`` round trip, which would not keep the bytes;
- **create plan, 10,000 partitions x 3 on 6 brokers**: ``plan_create`` (Kafka's checks, the
  assignment, metrics) against ``assign_replicas_to_brokers`` alone.

Reads are also compared with a bare ``get_async`` pipeline over the same znodes (kzc's window, nothing
parsed). Each figure is the fastest of ``--rounds`` runs (other work on a shared machine only adds
time). Run::

    .venv/bin/python benchmarks/topic_ops_bench.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import zk_layout  # noqa: E402
from kazoo.client import KazooClient  # noqa: E402
from kazoo.exceptions import NoNodeError  # noqa: E402
from snapshot_bench import BareZooKeeper  # noqa: E402

from core.config import ConnectionSettings  # noqa: E402
from core.connect import parse_zookeeper  # noqa: E402
from core.kafka.assignment import BrokerMeta, assign_replicas_to_brokers  # noqa: E402
from core.kafka.znodes import BrokerRegistration, Unreadable, parse_broker, parse_controller  # noqa: E402
from core.kafka.znodes.encode import add_partitions_to_raw  # noqa: E402
from core.topics.facts import MAX_IN_FLIGHT, ClusterFacts, TopicStateReader  # noqa: E402
from core.topics.ops import TopicOps, open_topic_ops  # noqa: E402
from core.topics.plan import CreateRequest, DeleteRequest  # noqa: E402
from core.topics.planning import plan_create  # noqa: E402


def fastest(action: Callable[[], object], rounds: int) -> float:
    """The best wall time of ``rounds`` runs of ``action``, in seconds."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def pipelined(client: KazooClient, gets: Iterable[str], listings: Iterable[str] = ()) -> None:
    """The other baseline: the same reads through kazoo's async API with kzc's window, nothing parsed."""
    in_flight: deque[Any] = deque()
    calls = [(client.get_children_async, p) for p in listings] + [(client.get_async, p) for p in gets]
    for call, path in calls:
        in_flight.append(call(path))
        if len(in_flight) >= MAX_IN_FLIGHT:
            with suppress(NoNodeError):
                in_flight.popleft().get()
    while in_flight:
        with suppress(NoNodeError):
            in_flight.popleft().get()


def one_by_one(client: KazooClient, gets: Iterable[str], listings: Iterable[str] = ()) -> None:
    """The baseline: synchronous reads, one after the other."""
    for path in listings:
        with suppress(NoNodeError):
            client.get_children(path)
    for path in gets:
        with suppress(NoNodeError):
            client.get(path)


FACTS_GETS = ("/controller", "/migration", "/admin/reassign_partitions")
FACTS_LISTINGS = ("/brokers/ids", "/brokers/topics", "/admin/delete_topics")


Row = tuple[str, float, float | None, float | None]  # operation, kzc, one by one, bare pipeline


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rounds = args.rounds
    server = BareZooKeeper(heap="1g")
    rows: list[Row] = []
    try:
        many = zk_layout.populate(server.hosts, f"/kzc-bench-{uuid.uuid4().hex[:8]}", 100_000, topics=1_000)
        big = zk_layout.populate(server.hosts, f"/kzc-bench-{uuid.uuid4().hex[:8]}", 20_000, topics=2)
        print(f"layouts written: {many.znodes} znodes in {many.seconds:.1f} s, {big.znodes} in {big.seconds:.1f} s")

        many_topics = [name for name, _ in zk_layout.topic_sizes(many.topics, many.partitions)]
        with _session(server.hosts + many.chroot) as (ops, client):
            gets = [
                *FACTS_GETS,
                *(f"/brokers/ids/{b}" for b in range(1, many.brokers + 1)),
                *(f"/brokers/topics/{t}" for t in many_topics),
            ]
            sync = fastest(lambda: one_by_one(client, gets, FACTS_LISTINGS), rounds)
            bare = fastest(lambda: pipelined(client, gets, FACTS_LISTINGS), rounds)
            # Cold: a new TopicOps has parsed nothing yet (a plan, the first look after a delete).
            cold = fastest(lambda: _fresh(ops).deletion_progress(many_topics), rounds)
            rows.append(("delete progress, 1,000 topics, first look", cold, sync, bare))
            ops.deletion_progress(many_topics)
            warm = fastest(lambda: ops.deletion_progress(many_topics), rounds)
            rows.append(("delete progress, 1,000 topics, each --wait poll", warm, sync, bare))
            plan = fastest(lambda: _fresh(ops).plan_delete(DeleteRequest(regex=".*")), rounds)
            rows.append(("delete plan (--regex '.*'), 1,000 topics", plan, sync, bare))

        big_topic, big_count = next(iter(zk_layout.topic_sizes(big.topics, big.partitions)))
        with _session(server.hosts + big.chroot) as (ops, client):
            partitions = list(range(big_count))
            states = [f"/brokers/topics/{big_topic}/partitions/{p}/state" for p in partitions]
            sync = fastest(lambda: one_by_one(client, states), rounds)
            bare = fastest(lambda: pipelined(client, states), rounds)
            kzc = fastest(lambda: _fresh(ops).online_progress(big_topic, partitions), rounds)
            rows.append((f"online progress, {big_count:,} partitions", kzc, sync, bare))
            live = TopicStateReader(ops.session).topic(big_topic)
            assert live is not None
            raw = live.raw
    finally:
        server.stop()

    new = tuple((big_count + i, (1 + i % 6, 1 + (i + 1) % 6, 1 + (i + 2) % 6)) for i in range(1_000))

    def round_trip() -> bytes:
        obj = json.loads(raw)
        obj["partitions"].update({str(p): list(r) for p, r in new})
        return json.dumps(obj, separators=(",", ":")).encode()

    kzc = fastest(lambda: add_partitions_to_raw(raw, new), rounds * 3)
    base = fastest(round_trip, rounds * 3)
    rows.append((f"expand rewrite, {big_count:,} -> {big_count + 1000:,} partitions", kzc, base, None))
    facts = _facts_for_create()
    metas = [BrokerMeta(b, f"r{(b - 1) % 3 + 1}") for b in range(1, 7)]
    request = CreateRequest("bench-new", 10_000, 3, seed=1)
    kzc = fastest(lambda: plan_create(facts, request, via="zookeeper"), rounds)
    base = fastest(lambda: assign_replicas_to_brokers(metas, 10_000, 3, rng=random.Random(1)), rounds)
    rows.append(("create plan, 10,000 partitions x 3", kzc, base, None))

    width = max(len(r[0]) for r in rows)
    print(f"\n{'operation':<{width}}  {'kzc':>9}  {'baseline':>9}  {'ratio':>5}  {'pipeline':>9}  {'ratio':>5}")
    for name, kzc_s, base_s, pipe_s in rows:
        line = f"{name:<{width}}  {_ms(kzc_s)}  {_ms(base_s)}  {_ratio(kzc_s, base_s)}"
        if pipe_s is not None:
            line += f"  {_ms(pipe_s)}  {_ratio(kzc_s, pipe_s)}"
        print(line)
    print(
        "\nbaseline: the same znodes read one by one (reads), a json round trip (expand rewrite), "
        "assign_replicas_to_brokers alone (create plan); pipeline: the same reads through get_async, "
        f"{MAX_IN_FLIGHT} in flight, nothing parsed. kzc also parses and checks what it reads."
    )


@contextmanager
def _session(connect: str) -> Iterator[tuple[TopicOps, KazooClient]]:
    settings = ConnectionSettings(zookeeper=parse_zookeeper(connect), session_timeout=30)
    client = KazooClient(hosts=connect, timeout=30)
    client.start(timeout=30)
    try:
        with open_topic_ops(settings) as ops:
            yield ops, client
    finally:
        client.stop()
        client.close()


def _fresh(ops: TopicOps) -> TopicOps:
    """A TopicOps on the same session with nothing parsed yet."""
    return TopicOps(ops.session, None, ops.settings, ops.audit)


def _ms(seconds: float | None) -> str:
    return f"{'-':>9}" if seconds is None else f"{seconds * 1000:>7.1f}ms"


def _ratio(kzc: float, base: float | None) -> str:
    return f"{'-':>5}" if not base else f"{kzc / base:>5.2f}"


def _facts_for_create() -> ClusterFacts:
    """``ClusterFacts`` of six brokers on three racks and 1,000 existing topics (no ZooKeeper needed)."""
    brokers: dict[int, BrokerRegistration | Unreadable] = {}
    for b in range(1, 7):
        data = json.dumps({
            "version": 5, "host": "h", "port": 9092, "jmx_port": -1, "timestamp": "1",
            "endpoints": ["PLAINTEXT://h:9092"], "rack": f"r{(b - 1) % 3 + 1}",
        }).encode()  # fmt: skip
        brokers[b] = parse_broker(f"/brokers/ids/{b}", data)
    names = tuple(f"topic-{i}" for i in range(1_000))
    return ClusterFacts(
        brokers=brokers,
        topic_names=frozenset(names),
        topic_order=names,
        marked_for_deletion=frozenset(),
        controller=parse_controller("/controller", b'{"version":1,"brokerid":1,"timestamp":"1"}'),
        controller_zk_version=0,
        migration=None,
        reassignment=None,
    )


if __name__ == "__main__":
    main()
