"""What the brokers serve: topic, partition, leader, replicas and ISR from a Metadata request.

``metadata_mismatch`` compares this with ZooKeeper. It is fetched with confluent-kafka's AdminClient
when ``--bootstrap-server`` is given, and written beside the snapshot as JSON Lines for the Spark job
(``{"kind": "served_broker", "broker"}``, ``{"kind": "served_topic", "topic"}`` and
``{"kind": "served_partition", "topic", "partition", "leader", "replicas", "isr"}``): the snapshot file
format describes ZooKeeper only, so broker-side data travels in this small file of its own.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from core.brokers.client_config import REFUSAL_FINAL_S, BrokersDown, kafka_client_config
from core.config import KafkaSecurity
from core.connect import HostPort, bootstrap_string
from core.errors import ConnectError

_LOG = logging.getLogger("kzc.kafka")
_LOG.addHandler(logging.NullHandler())
_LOG.propagate = False


@dataclass(frozen=True, slots=True)
class ServedPartition:
    """One partition as a broker's metadata cache has it (leader -1 when it has none)."""

    leader: int
    replicas: tuple[int, ...]
    isr: tuple[int, ...]


@dataclass(frozen=True)
class ServedMetadata:
    """The cluster as the brokers describe it: live broker ids and every topic's partitions."""

    brokers: frozenset[int]
    topics: Mapping[str, Mapping[int, ServedPartition]]


def fetch_served_metadata(
    bootstrap_servers: Sequence[HostPort], *, security: KafkaSecurity, timeout: float = 15.0
) -> ServedMetadata:
    """Ask the brokers for the metadata of every topic.

    Raises:
        ConnectError: no broker answered within ``timeout``, or every one refused the connection for
            ``REFUSAL_FINAL_S`` (nothing listens there: librdkafka would only retry until ``timeout``).
    """
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    bootstrap = bootstrap_string(tuple(bootstrap_servers))
    down = BrokersDown()
    config = kafka_client_config(
        bootstrap_servers,
        security,
        {
            "logger": _LOG,
            "error_cb": down,
            "socket.connection.setup.timeout.ms": int(min(max(timeout, 1.0), 30.0) * 1000),
        },
    )
    # Destroyed here, on this thread, once the call returned: never left to the garbage collector, which may
    # run on a librdkafka thread (core.brokers.admin explains the crash).
    with AdminClient(config) as client:
        start = time.monotonic()
        # First for REFUSAL_FINAL_S: refused all that time (the error callback, served by poll, says so), the
        # brokers are not there and the rest of the timeout would only retry; otherwise the rest of it.
        first = True
        while True:
            left = start + timeout - time.monotonic()
            try:
                metadata = client.list_topics(timeout=max(0.0, min(REFUSAL_FINAL_S, left) if first else left))
                break
            except KafkaException as exc:
                client.poll(0)
                if first and not down.seen and left > REFUSAL_FINAL_S:
                    first = False
                    continue
                why = "no broker accepted the connection" if down.seen else (exc.args[0] if exc.args else exc)
                raise ConnectError(
                    f"cannot read metadata from Kafka brokers {bootstrap}: {why} "
                    "(check --bootstrap-server and that the brokers are up)"
                ) from exc
    topics: dict[str, dict[int, ServedPartition]] = {}
    for name, topic in metadata.topics.items():
        topics[name] = {
            pid: ServedPartition(int(part.leader), tuple(part.replicas), tuple(part.isrs))
            for pid, part in topic.partitions.items()
        }
    return ServedMetadata(brokers=frozenset(int(b) for b in metadata.brokers), topics=topics)


def write_served_file(served: ServedMetadata, path: Path) -> None:
    """Write ``served`` as the JSON Lines the Spark job reads."""
    with path.open("w", encoding="utf-8") as out:
        for broker in sorted(served.brokers):
            out.write(json.dumps({"kind": "served_broker", "broker": broker}) + "\n")
        for name in sorted(served.topics):
            out.write(json.dumps({"kind": "served_topic", "topic": name}) + "\n")
            for pid, part in sorted(served.topics[name].items()):
                record = {
                    "kind": "served_partition",
                    "topic": name,
                    "partition": pid,
                    "leader": part.leader,
                    "replicas": list(part.replicas),
                    "isr": list(part.isr),
                }
                out.write(json.dumps(record, separators=(",", ":")) + "\n")
