"""The brokers' static ``min.insync.replicas``, which ZooKeeper does not hold, read through the AdminClient
(DescribeConfigs).

Only what the health rules need: each live broker's static ``min.insync.replicas`` (server.properties or
Kafka's default), the last step of ``core.snapshot.health.resolve_min_isr``. DescribeConfigs answers a
broker's effective value; the health rules consult it only where no dynamic value exists in ZooKeeper,
so there it is the static one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from core.config import KafkaSecurity
from core.connect import HostPort
from core.errors import KzcError
from core.snapshot.health import MIN_ISR_KEY
from core.snapshot.model import NOT_READ, StaticMinIsr

STATIC_MIN_ISR_UNREAD = "the static min.insync.replicas could not be read through --bootstrap-server"


def read_static_min_isr(
    bootstrap: Sequence[HostPort] | None, security: KafkaSecurity, broker_ids: Iterable[int], timeout: float = 10.0
) -> StaticMinIsr:
    """Each broker's ``min.insync.replicas`` as it reports it; brokers that cannot be asked are left out,
    and ``reason`` says why for them. Without ``bootstrap`` nothing is read (``NOT_READ``)."""
    if not bootstrap:
        return NOT_READ
    from core.brokers.admin import KafkaAdmin  # here: confluent_kafka only when brokers are asked

    admin = KafkaAdmin(bootstrap, security=security, timeout=timeout)
    values: dict[int, int] = {}
    failures: list[str] = []
    for broker_id in sorted(broker_ids):
        try:
            text = admin.broker_configs(broker_id, [MIN_ISR_KEY]).get(MIN_ISR_KEY)
        except KzcError as exc:
            failures.append(f"broker {broker_id}: {exc}")
            continue
        if text is not None and text.strip().isdigit() and int(text) >= 1:
            values[broker_id] = int(text)
        else:
            failures.append(f"broker {broker_id} did not report min.insync.replicas")
    reason = f"{STATIC_MIN_ISR_UNREAD}: " + ("; ".join(failures) if failures else "no broker is registered")
    return StaticMinIsr(by_broker=values, reason=reason)
