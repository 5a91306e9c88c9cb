"""``kzc tail`` memory and speed on large messages, beside a plain confluent-kafka consumer with librdkafka's
default prefetch, both in their own process reading the same topic from the same broker.

A topic of ``--big`` 5 MiB messages and ``--small`` 1 KiB ones is written once; then each reader reads it all
(``kzc tail --from-end N --json``, values cut at 64 KiB as printed; and ``--max-bytes 0``, whole) and the
peak resident memory (``ru_maxrss`` of the child) and the time are printed. Goal: kzc's peak bounded by its
prefetch settings (``core.messages.reader``), not by the topic.

Run: ``.venv/bin/python benchmarks/tail_bench.py --zookeeper Z --bootstrap-server B`` (a cluster of yours),
or without them on a 1-broker sandbox it starts and stops in a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from core.sandbox.local_cluster import Sandbox

KZC = Path(sys.executable).with_name("kzc")
BIG = 5 * 1024 * 1024

PLAIN_CONSUMER = """
import sys
from confluent_kafka import Consumer, TopicPartition
bootstrap, topic, end = sys.argv[1], sys.argv[2], int(sys.argv[3])
c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-plain", "enable.auto.commit": False,
              "receive.message.max.bytes": 100_000_000})
c.assign([TopicPartition(topic, 0, 0)])
seen = 0
while seen < end:
    for m in c.consume(100, 1.0):
        if m.error() is None:
            seen += 1
c.close()
"""


def child(command: list[str]) -> tuple[float, float]:
    """Run ``command``; (seconds, peak resident MiB of that child alone: ``wait4``'s rusage)."""
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, command
    return time.monotonic() - start, usage.ru_maxrss / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zookeeper")
    parser.add_argument("--bootstrap-server")
    parser.add_argument("--big", type=int, default=40, help="5 MiB messages")
    parser.add_argument("--small", type=int, default=20_000, help="1 KiB messages")
    args = parser.parse_args()
    box = None
    if args.zookeeper is None:
        box = Sandbox.up(Path(tempfile.mkdtemp(prefix="kzc-tail-bench-")), brokers=1, timeout=240)
        zookeeper, bootstrap = box.info().zookeeper, box.info().bootstrap_servers
    else:
        zookeeper, bootstrap = args.zookeeper, args.bootstrap_server
    try:
        topic = f"tail-bench-{uuid.uuid4().hex[:6]}"
        admin = AdminClient({"bootstrap.servers": bootstrap})
        new = NewTopic(topic, 1, 1, config={"max.message.bytes": str(BIG + 1024 * 1024)})
        admin.create_topics([new])[topic].result(30)
        producer = Producer({"bootstrap.servers": bootstrap, "message.max.bytes": BIG + 2 * 1024 * 1024,
                             "linger.ms": 50, "compression.type": "lz4"})  # fmt: skip
        for i in range(args.small):
            producer.produce(topic, value=b"%08d" % i * 128, partition=0)
            producer.poll(0)
        big = bytes(range(256)) * (BIG // 256)
        for _ in range(args.big):
            producer.produce(topic, value=big, partition=0)
            producer.flush(60)
        producer.flush(60)
        total = args.small + args.big
        written = args.small * 1024 + args.big * BIG
        print(f"topic {topic}: {args.small:,} x 1 KiB + {args.big} x 5 MiB ({written / 2**20:,.0f} MiB)")
        tail = [str(KZC), "tail", topic, "--from-end", str(total), "--json", "--zookeeper", zookeeper]
        cut = child(tail)
        plain = child([sys.executable, "-c", PLAIN_CONSUMER, bootstrap, topic, str(total)])
        whole = child([*tail, "--max-bytes", "0"])
        print("| reader | time | peak RSS |")
        print("|---|---|---|")
        print(f"| kzc tail --json (values cut at 64 KiB) | {cut[0]:.1f} s | {cut[1]:.0f} MiB |")
        plain_row = "plain confluent-kafka consumer (librdkafka's defaults, consume(100))"
        print(f"| {plain_row} | {plain[0]:.1f} s | {plain[1]:.0f} MiB |")
        print(f"| kzc tail --json --max-bytes 0 (values whole) | {whole[0]:.1f} s | {whole[1]:.0f} MiB |")
    finally:
        if box is not None:
            box.down()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
