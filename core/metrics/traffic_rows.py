"""Broker metrics in ``kzc traffic``'s rows (``core.traffic.view.Row``): bytes out per second and the produce
and fetch p99 times, source ``metrics``, where the brokers' meters say them.

- a broker row: its own meters, and its idle percents, ISR shrinks and expands and under-replicated count;
- a topic row: bytes out summed over the brokers' per-topic meters (a broker that never served the topic has
  no meter: nothing out), unknown when a broker's metrics are; request times are per broker only;
- partitions and log dirs: the exporter has no such meters.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from core.metrics.rates import NO_TOPIC_METER
from core.metrics.reader import BrokerMetrics
from core.traffic.view import Row

_NOT_PER_TOPIC = "per broker only (Kafka's request metrics have no topic)"
_NOT_HERE = "per broker and topic only (the brokers' meters)"


def with_metrics(by: str, rows: Sequence[Row], brokers: Sequence[BrokerMetrics]) -> list[Row]:
    """``rows`` of ``kzc traffic --by by`` with the brokers' metrics filled in."""
    known = {b.broker: b for b in brokers}
    if by == "broker":
        return [_broker_row(row, known.get(row.broker)) if row.broker is not None else row for row in rows]
    if by == "topic":
        return [_topic_row(row, brokers) for row in rows]
    return [
        replace(row, metrics=dict.fromkeys(("bytes_out_per_s", "produce_p99_ms", "fetch_p99_ms"), _NOT_HERE))
        for row in rows
    ]


def _broker_row(row: Row, b: BrokerMetrics | None) -> Row:
    f = b.figures if b is not None else None
    if b is None or f is None:
        why = f"broker metrics: {b.failure if b is not None else 'not read'}"
        return replace(row, metrics=dict.fromkeys(("bytes_out_per_s", "produce_p99_ms", "fetch_p99_ms"), why))
    unknown = "not in the exporter's answer"
    out = f.rates["bytes_out"]
    metrics: dict[str, float | str] = {
        "bytes_out_per_s": out.value if out.value is not None else out.why or unknown,
        "produce_p99_ms": f.p99_ms["produce"] if f.p99_ms["produce"] is not None else unknown,
        "fetch_p99_ms": f.p99_ms["fetch"] if f.p99_ms["fetch"] is not None else unknown,
    }
    extra: dict[str, Any] = {
        "request_handler_idle_pct": f.request_idle_pct.value,
        "network_processor_idle_pct": f.network_idle_pct,
        "isr_shrinks_per_s": f.rates["isr_shrinks"].value,
        "isr_expands_per_s": f.rates["isr_expands"].value,
        "under_replicated": f.under_replicated,
        "metrics_source": out.source,
    }
    return replace(row, metrics=metrics, extra={**row.extra, **extra})


def _topic_row(row: Row, brokers: Sequence[BrokerMetrics]) -> Row:
    total = 0.0
    why: str | None = None
    for b in brokers:
        if b.figures is None:
            why = why or f"broker {b.broker}'s metrics: {b.failure}"
            continue
        rate = b.figures.topics.get(row.topic or "", {}).get("bytes_out")
        if rate is None or (rate.value is None and rate.why == NO_TOPIC_METER):
            continue  # it never served the topic: nothing out of it
        if rate.value is None:
            why = why or f"broker {b.broker}: {rate.why}"
            continue
        total += rate.value
    metrics: dict[str, float | str] = {
        "bytes_out_per_s": why if why is not None else total,
        "produce_p99_ms": _NOT_PER_TOPIC,
        "fetch_p99_ms": _NOT_PER_TOPIC,
    }
    return replace(row, metrics=metrics)
