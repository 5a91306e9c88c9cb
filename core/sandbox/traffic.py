"""Demo traffic for a sandbox: a few topics, a background producer and consumer groups whose lag moves.

``start_traffic`` runs this module as its own process (``python -m core.sandbox.traffic``), detached, its
PID in ``<sandbox dir>/traffic.pid`` and its output in ``traffic.log``; ``stop_traffic`` ends it (``kzc
sandbox down`` does). The process creates, if missing:

- topics ``demo.orders`` (6 partitions), ``demo.payments`` (3) and ``demo.clicks`` (3), and keeps
  producing to them (about 60, 20 and 30 messages per second);
- group ``demo-billing`` consuming ``demo.orders`` in cycles: slower than the producer for a while (it
  falls behind), then faster (it catches up);
- group ``demo-payments`` consuming ``demo.payments`` as fast as it comes (no lag);
- group ``demo-audit``: offsets committed once on ``demo.clicks``, then left: empty, with a growing lag;
- a ZooKeeper-stored group ``demo-legacy`` (``/consumers/demo-legacy``) with offsets on ``demo.clicks``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from core.brokers.client_config import kafka_client_config
from core.config import PLAINTEXT
from core.connect import parse_bootstrap
from core.kafka.znodes.paths import consumer_offset_path
from core.sandbox.processes import pid_alive

PID_FILE = "traffic.pid"
LOG_FILE = "traffic.log"
TOPICS = {"demo.orders": 6, "demo.payments": 3, "demo.clicks": 3}
RATES = {"demo.orders": 60, "demo.payments": 20, "demo.clicks": 30}  # messages per second
SLOW_S, FAST_S = 60.0, 45.0  # demo-billing: falls behind for SLOW_S, then catches up for FAST_S
SLOW_RATE, FAST_RATE = 35, 200  # messages per second demo-billing consumes in each phase


def start_traffic(directory: Path, bootstrap: str, zookeeper: str) -> int:
    """Start the traffic process for the sandbox in ``directory``; return its PID (one already running is kept)."""
    running = traffic_pid(directory)
    if running is not None:
        return running
    log = (directory / LOG_FILE).open("ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "core.sandbox.traffic", "--dir", str(directory), "--bootstrap", bootstrap,
         "--zookeeper", zookeeper],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
    )  # fmt: skip
    log.close()
    (directory / PID_FILE).write_text(f"{process.pid}\n")
    return process.pid


def traffic_pid(directory: Path) -> int | None:
    """The PID of this sandbox's traffic process if it runs (checked against its command line)."""
    try:
        pid = int((directory / PID_FILE).read_text().strip())
        cmdline = _command_line(pid)
    except (OSError, ValueError):
        return None
    mine = b"core.sandbox.traffic" in cmdline and str(directory).encode() in cmdline
    return pid if mine else None


def _command_line(pid: int) -> bytes:
    """``pid``'s command line. Right after its exec the kernel shows an empty one for a moment (seen in 15 of
    200 starts): read it again, for up to a second, while the process is alive and still shows none."""
    deadline = time.monotonic() + 1.0
    while True:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        if cmdline or time.monotonic() > deadline or not pid_alive(pid):
            return cmdline
        time.sleep(0.01)


def stop_traffic(directory: Path, timeout: float = 10.0) -> int | None:
    """Stop the traffic process of the sandbox in ``directory``; return its PID, None if none ran."""
    pid = traffic_pid(directory)
    with contextlib.suppress(FileNotFoundError):
        (directory / PID_FILE).unlink()
    if pid is None:
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and pid_alive(pid):
        time.sleep(0.1)
    if pid_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return pid


# ---- the traffic process ---------------------------------------------------------------------------------


def _config(bootstrap: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """A client of the sandbox's PLAINTEXT listeners (through the one maker of librdkafka settings)."""
    return kafka_client_config(parse_bootstrap(bootstrap), PLAINTEXT, extra)


def _create_topics(bootstrap: str) -> None:
    from confluent_kafka.admin import AdminClient
    from confluent_kafka.cimpl import NewTopic

    admin = AdminClient(_config(bootstrap))
    existing = set(admin.list_topics(timeout=30).topics)
    wanted = [NewTopic(t, n, min(3, _brokers(admin))) for t, n in TOPICS.items() if t not in existing]
    for future in admin.create_topics(wanted).values() if wanted else []:
        with contextlib.suppress(Exception):  # created meanwhile: fine
            future.result(timeout=60)


def _brokers(admin: object) -> int:
    return max(1, len(admin.list_topics(timeout=30).brokers))  # type: ignore[attr-defined]


def _produce(bootstrap: str, stop: threading.Event) -> None:
    from confluent_kafka import Producer

    producer = Producer(_config(bootstrap, {"linger.ms": 50}))
    n = 0
    while not stop.is_set():
        for topic, rate in RATES.items():
            for _ in range(rate // 10):
                producer.produce(topic, f"{topic} message {n}".encode())
                n += 1
        producer.poll(0)
        stop.wait(0.1)
    producer.flush(5)


def _consume(bootstrap: str, group: str, topic: str, stop: threading.Event, paced: bool) -> None:
    from confluent_kafka import Consumer

    consumer = Consumer(_config(bootstrap, {"group.id": group, "auto.offset.reset": "earliest",
                                            "enable.auto.commit": True, "auto.commit.interval.ms": 1000}))  # fmt: skip
    consumer.subscribe([topic])
    started = time.monotonic()
    try:
        while not stop.is_set():
            rate = FAST_RATE
            if paced:
                phase = (time.monotonic() - started) % (SLOW_S + FAST_S)
                rate = SLOW_RATE if phase < SLOW_S else FAST_RATE
            consumer.consume(max(1, rate // 10), timeout=0.1)
            stop.wait(0.1)
    finally:
        consumer.close()


def _audit_group(bootstrap: str) -> None:
    """``demo-audit``: commit offset 0 on every partition of demo.clicks once, then leave."""
    from confluent_kafka import Consumer, TopicPartition

    consumer = Consumer(_config(bootstrap, {"group.id": "demo-audit", "enable.auto.commit": False}))
    try:
        offsets = [TopicPartition("demo.clicks", p, 0) for p in range(TOPICS["demo.clicks"])]
        consumer.commit(offsets=offsets, asynchronous=False)
    finally:
        consumer.close()


def _legacy_group(zookeeper: str) -> None:
    """``demo-legacy``: an old-consumer group under /consumers with offsets on demo.clicks."""
    from kazoo.client import KazooClient

    zk = KazooClient(hosts=zookeeper)
    zk.start(timeout=30)
    try:
        for p in range(TOPICS["demo.clicks"]):
            path = consumer_offset_path("demo-legacy", "demo.clicks", p)
            if not zk.exists(path):
                zk.create(path, b"0", makepath=True)
    finally:
        zk.stop()
        zk.close()


def main(argv: list[str] | None = None) -> int:
    """The traffic process: set up, then produce and consume until SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m core.sandbox.traffic")
    parser.add_argument("--dir", required=True)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--zookeeper", required=True)
    args = parser.parse_args(argv)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    _create_topics(args.bootstrap)
    _audit_group(args.bootstrap)
    _legacy_group(args.zookeeper)
    jobs: list[tuple[Callable[..., None], tuple[object, ...]]] = [
        (_produce, (args.bootstrap, stop)),
        (_consume, (args.bootstrap, "demo-billing", "demo.orders", stop, True)),
        (_consume, (args.bootstrap, "demo-payments", "demo.payments", stop, False)),
    ]
    workers = [threading.Thread(target=target, args=a, daemon=True) for target, a in jobs]
    for worker in workers:
        worker.start()
    while not stop.is_set():
        stop.wait(1.0)
    for worker in workers:
        worker.join(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
