"""Broker metrics in kzc traffic's rows (core.metrics.traffic_rows) and its text form's columns."""

from __future__ import annotations

from pathlib import Path

from cli.traffic_cmd import render_traffic
from core.metrics.exposition import parse_exposition
from core.metrics.rates import figures
from core.metrics.reader import BrokerMetrics
from core.metrics.traffic_rows import with_metrics
from core.traffic.rates import Rate
from core.traffic.view import Row

FIXTURES = Path(__file__).parent / "fixtures" / "metrics"
BEFORE = parse_exposition((FIXTURES / "kafka-3.9.1-a.prom").read_text())
AFTER = parse_exposition((FIXTURES / "kafka-3.9.1-b.prom").read_text())
LIVE = BrokerMetrics(1, "http://h1/metrics", 1, figures(BEFORE, AFTER, (0, 10_000)))
DOWN = BrokerMetrics(2, "http://h2/metrics", 1, None, "connection refused (no exporter listening there?)")
IN = Rate(5.0, 10.0, 1)


def test_a_broker_row_has_its_own_meters_and_a_failing_one_says_why() -> None:
    rows = with_metrics(
        "broker", [Row(broker=1, messages_in=IN, bytes_in=IN), Row(broker=2, messages_in=IN)], [LIVE, DOWN]
    )
    one, two = (r.to_json() for r in rows)
    assert one["bytes_out_per_s"] == 0.0 and one["produce_p99_ms"] == 28.28 and one["fetch_p99_ms"] == 527.0
    assert one["source"] == ["offsets", "log dirs", "metrics"] and one["under_replicated"] == 0
    assert two["bytes_out_per_s"] is None and "connection refused" in two["unknown"]["bytes_out_per_s"]
    text = render_traffic("broker", 10.0, rows)
    assert "BYTES/S OUT  P99 PRODUCE  P99 FETCH" in text and "28.3 ms" in text
    assert "broker 2: bytes out: broker metrics: connection refused" in text
    assert "bytes out and request times: from broker metrics" not in text


def test_a_topic_row_sums_the_brokers_and_a_never_served_topic_is_nothing_out() -> None:
    rows = with_metrics("topic", [Row(topic="orders"), Row(topic="clicks")], [LIVE])
    orders, clicks = (r.to_json() for r in rows)
    assert orders["bytes_out_per_s"] == 0.0 and clicks["bytes_out_per_s"] == 0.0  # clicks: never fetched
    assert orders["produce_p99_ms"] is None and "per broker only" in orders["unknown"]["produce_p99_ms"]
    [down] = with_metrics("topic", [Row(topic="orders")], [LIVE, DOWN])
    assert down.to_json()["bytes_out_per_s"] is None


def test_partitions_have_no_meters() -> None:
    [row] = with_metrics("partition", [Row(topic="orders", partition=0, messages_in=IN)], [LIVE])
    assert (
        row.to_json()["bytes_out_per_s"] is None
        and "per broker and topic only" in row.to_json()["unknown"]["bytes_out_per_s"]
    )
