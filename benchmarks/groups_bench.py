"""``kzc groups`` on 1,000 consumer groups against Kafka's own ``kafka-consumer-groups.sh --describe
--all-groups``, on the same sandbox cluster, side by side.

Setup: a sandbox (``--dir`` of a running one, else a fresh 3-broker sandbox in a temporary directory,
stopped at the end), topic ``bench.groups`` with 12 partitions of 100 messages each, and ``--groups``
groups (default 1,000) whose offsets are committed through the AdminClient (3 partitions each, offsets
varying), so every group is ``Empty`` with a known lag.

Measured, fastest and median of ``--rounds`` alternating rounds (default 3), every round printed:

- ``kzc groups --json`` as a process (interpreter start included), and ``GroupOps.overview()`` in this
  process (the reads alone);
- the committed offsets alone: kzc's FindCoordinator and pipelined OffsetFetch (``core.brokers.offset_fetch``)
  against librdkafka's ListConsumerGroupOffsets with every group in flight (what kzc used before; the same offsets);
- Kafka 3.9's ``org.apache.kafka.tools.consumer.group.ConsumerGroupCommand --describe --all-groups`` (the
  class ``kafka-consumer-groups.sh`` runs in 3.9, in the ``kafka-tools`` jar, fetched once through Maven
  beside kzc's jars) on a JVM with the sandbox's Kafka jars.

Both must report the same total lag (the script stops otherwise). Run::

    .venv/bin/python benchmarks/groups_bench.py [--groups 1000] [--rounds 3] [--dir SANDBOX_DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.brokers.offset_fetch import committed_offsets  # noqa: E402
from core.config import PLAINTEXT, ConnectionSettings  # noqa: E402
from core.connect import parse_bootstrap, parse_zookeeper  # noqa: E402
from core.groups.ops import open_group_ops  # noqa: E402
from core.sandbox.jars import ensure_jars, ensure_tools_jars, java_executable  # noqa: E402
from core.sandbox.local_cluster import Sandbox  # noqa: E402

TOPIC = "bench.groups"
PARTITIONS = 12
MESSAGES = 100
TOOL_CLASS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand"
KZC = str(ROOT / ".venv" / "bin" / "kzc")


@contextmanager
def cluster(directory: str | None) -> Iterator[Sandbox]:
    if directory:
        yield Sandbox(directory)
        return
    tmp = Path(tempfile.mkdtemp(prefix="kzc-groups-bench-"))
    box = Sandbox.up(tmp, brokers=3, timeout=240, log=lambda line: print(line, file=sys.stderr))
    try:
        yield box
    finally:
        box.down()
        shutil.rmtree(tmp, ignore_errors=True)


def populate(bootstrap: str, groups: int) -> int:
    """The topic, its messages and ``groups`` groups with committed offsets; returns the total lag."""
    from confluent_kafka import ConsumerGroupTopicPartitions, Producer, TopicPartition
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    if TOPIC not in admin.list_topics(timeout=30).topics:
        admin.create_topics([NewTopic(TOPIC, PARTITIONS, 1)])[TOPIC].result(timeout=60)
        producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
        for p in range(PARTITIONS):
            for i in range(MESSAGES):
                producer.produce(TOPIC, f"m{i}".encode(), partition=p)
        assert producer.flush(60) == 0
    lag = 0
    pending = []
    for g in range(groups):
        offsets = [TopicPartition(TOPIC, (g + k) % PARTITIONS, (g * 7 + k) % MESSAGES) for k in range(3)]
        lag += sum(MESSAGES - tp.offset for tp in offsets)
        request = ConsumerGroupTopicPartitions(f"bench-group-{g:05d}", offsets)
        pending.append(admin.alter_consumer_group_offsets([request], request_timeout=60)[request.group_id])
        if len(pending) >= 100:
            for future in pending:
                future.result(timeout=120)
            pending.clear()
    for future in pending:
        future.result(timeout=120)
    return lag


def timed(run: Callable[[], int]) -> tuple[float, int]:
    start = time.perf_counter()
    lag = run()
    return time.perf_counter() - start, lag


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--dir", help="a running sandbox to use (default: start one)")
    args = parser.parse_args()
    java = java_executable()
    classpath = f"{ensure_jars()}/*:{ensure_tools_jars()}/*"
    with cluster(args.dir) as box:
        info = box.info()
        print(f"populating {args.groups:,} groups on {TOPIC} ({PARTITIONS} partitions)...", file=sys.stderr)
        expected = populate(info.bootstrap_servers, args.groups)
        settings = ConnectionSettings(
            zookeeper=parse_zookeeper(info.zookeeper), bootstrap_servers=parse_bootstrap(info.bootstrap_servers)
        )
        cli = [KZC, "groups", "--json", "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers]
        tool = [java, "-cp", classpath, TOOL_CLASS, "--bootstrap-server", info.bootstrap_servers, "--describe",
                "--all-groups", "--timeout", "60000"]  # fmt: skip

        def kzc_process() -> int:
            out = subprocess.run(cli, capture_output=True, text=True, check=True).stdout
            return sum(g["lag"] or 0 for g in json.loads(out)["groups"] if g["group"].startswith("bench-group-"))

        def kzc_in_process() -> int:
            with open_group_ops(settings) as ops:
                overview = ops.overview()
            return sum(g.lag or 0 for g in overview.groups if g.group.startswith("bench-group-"))

        def kafka_tool() -> int:
            out = subprocess.run(tool, capture_output=True, text=True, check=True).stdout
            total = 0
            for line in out.splitlines():
                cells = line.split()
                if len(cells) >= 6 and cells[0].startswith("bench-group-") and cells[5].isdigit():
                    total += int(cells[5])
            return total

        ids = [f"bench-group-{g:05d}" for g in range(args.groups)]
        servers = parse_bootstrap(info.bootstrap_servers)

        def committed_by_kzc() -> dict[str, object]:
            return dict(committed_offsets(servers, PLAINTEXT, 120, ids))

        def committed_by_librdkafka() -> dict[str, object]:
            from confluent_kafka import ConsumerGroupTopicPartitions
            from confluent_kafka.admin import AdminClient

            admin = AdminClient({"bootstrap.servers": info.bootstrap_servers})
            futures = {
                g: admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(g)], request_timeout=120)[g]
                for g in ids
            }
            return {
                g: {(tp.topic, tp.partition): tp.offset for tp in f.result(timeout=120).topic_partitions or []}
                for g, f in futures.items()
            }

        if committed_by_kzc() != committed_by_librdkafka():
            print("kzc's OffsetFetch and librdkafka's disagree", file=sys.stderr)
            return 1

        def offsets(read: Callable[[], dict[str, object]]) -> Callable[[], int]:
            return lambda: expected if len(read()) == len(ids) else -1

        runs: dict[str, list[float]] = {"kzc groups --json": [], "GroupOps.overview()": [], "kafka tool": []}
        measures = {"kzc groups --json": kzc_process, "GroupOps.overview()": kzc_in_process, "kafka tool": kafka_tool}
        # The committed offsets alone: kzc's FindCoordinator + pipelined OffsetFetch (core.brokers.offset_fetch)
        # against librdkafka's ListConsumerGroupOffsets with every group in flight (the baseline; it dies of SIGSEGV
        # when a coordinator moves, librdkafka#5040, which a cluster at rest does not do).
        for name, read in (("offsets: kzc", committed_by_kzc), ("offsets: librdkafka", committed_by_librdkafka)):
            runs[name] = []
            measures[name] = offsets(read)
        for round_no in range(1, args.rounds + 1):
            for name, measure in measures.items():
                seconds, lag = timed(measure)
                if lag != expected:
                    print(f"{name}: total lag {lag:,}, expected {expected:,}: the figures disagree", file=sys.stderr)
                    return 1
                runs[name].append(seconds)
                print(f"round {round_no}: {name:22} {seconds:7.2f} s  (total lag {lag:,})")
        print(f"\n{args.groups:,} groups, {3 * args.groups:,} partition rows, total lag {expected:,} (same in all)")
        print(f"{'':24}{'fastest':>10}{'median':>10}")
        for name, values in runs.items():
            print(f"{name:24}{min(values):9.2f}s{statistics.median(values):9.2f}s")
        ratio = statistics.median(runs["kafka tool"]) / statistics.median(runs["kzc groups --json"])
        print(f"kafka-consumer-groups --describe --all-groups / kzc groups (median): {ratio:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
