"""The brokers' ``zookeeper.session.timeout.ms``, which ZooKeeper does not hold, read through the AdminClient
(DescribeCluster, then DescribeConfigs of each broker it names), for the ensemble health's comparison with
the servers' ``minSessionTimeout``/``maxSessionTimeout`` (``core.zookeeper.health``).

The brokers are found through the brokers themselves, not ``/brokers/ids``: the health is asked when
ZooKeeper may have lost its quorum, and the brokers still answer from their metadata cache then.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from core.brokers.admin import KafkaAdmin
from core.config import KafkaSecurity
from core.connect import HostPort
from core.errors import KzcError
from core.zookeeper.health import KafkaSessionTimeouts

SESSION_TIMEOUT_KEY = "zookeeper.session.timeout.ms"
NO_BOOTSTRAP = "Kafka's zookeeper.session.timeout.ms is read from the brokers: give --bootstrap-server to compare it"


def read_kafka_session_timeouts(
    bootstrap: Sequence[HostPort] | None, security: KafkaSecurity, timeout: float = 5.0
) -> KafkaSessionTimeouts:
    """Each broker's ``zookeeper.session.timeout.ms`` as it reports it (its effective value: server.properties
    or Kafka's default); ``reason`` says why some or all are missing. Never raises for a broker's sake."""
    at = int(time.time() * 1000)
    if not bootstrap:
        return KafkaSessionTimeouts(reason=NO_BOOTSTRAP, at_ms=at)
    admin = KafkaAdmin(bootstrap, security=security, timeout=timeout)
    try:
        broker_ids = sorted(admin.served_broker_ids())
    except KzcError as exc:
        return KafkaSessionTimeouts(reason=f"the brokers could not be asked for {SESSION_TIMEOUT_KEY}: {exc}", at_ms=at)
    values: dict[int, int] = {}
    failures: list[str] = []
    for broker_id in broker_ids:
        try:
            text = admin.broker_configs(broker_id, [SESSION_TIMEOUT_KEY]).get(SESSION_TIMEOUT_KEY)
        except KzcError as exc:
            failures.append(f"broker {broker_id}: {exc}")
            continue
        if text is not None and text.strip().isdigit():
            values[broker_id] = int(text)
        else:
            failures.append(f"broker {broker_id} did not report {SESSION_TIMEOUT_KEY}")
    reason = f"{SESSION_TIMEOUT_KEY} not read from " + "; ".join(failures) if failures else None
    return KafkaSessionTimeouts(by_broker=values, reason=reason, at_ms=at)
