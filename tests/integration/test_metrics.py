"""The brokers' own metrics for real: a 2-broker `kzc sandbox up --metrics` (each broker with the Prometheus JMX
exporter agent), read by `kzc metrics` and `core.metrics` while a producer and a consumer move known amounts."""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.request import urlopen

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from cli.main import main
from cli.snapshot_cmd import take_snapshot
from core.config import ConnectionSettings, parse_metrics_urls
from core.connect import parse_zookeeper
from core.metrics.rates import COUNT_DELTA, ONE_MINUTE
from core.metrics.reader import BrokerMetrics, MetricsReader
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox, free_ports
from core.snapshot.model import ClusterSnapshot

TOPIC = "metrics.orders"
SIZE = 200  # bytes of each message's value


@pytest.fixture(scope="module")
def box(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """This module's own 2-broker sandbox with the exporter agent, and a topic led by each broker."""
    sandbox = Sandbox.up(tmp_path_factory.mktemp("metrics-sandbox"), brokers=2, metrics=True, timeout=240)
    try:
        admin = AdminClient({"bootstrap.servers": sandbox.info().bootstrap_servers})
        # Partition 0 led by broker 1, partition 1 by broker 2; one replica each: no replication traffic.
        admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=-1, replica_assignment=[[1], [2]])])[
            TOPIC
        ].result(60)
        yield sandbox
    finally:
        sandbox.down(clean=False)  # thrown away: no controlled shutdown


def _settings(box: Sandbox) -> ConnectionSettings:
    return ConnectionSettings(zookeeper=parse_zookeeper(box.info().zookeeper))


def _urls(box: Sandbox) -> list[str]:
    return [f"{b.id}={b.metrics_url}" for b in box.info().brokers]


def _snapshot(box: Sandbox) -> ClusterSnapshot:
    def led() -> ClusterSnapshot | None:
        snap = take_snapshot(_settings(box), 10)[0]
        return snap if TOPIC in snap.topics and len(snap.live_broker_ids()) == 2 else None

    snap = wait_until(led, 60, f"{TOPIC} and both brokers in ZooKeeper")
    assert snap is not None
    return snap


def _produce(box: Sandbox, partition: int, count: int) -> None:
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "linger.ms": 5})
    for _ in range(count):
        producer.produce(TOPIC, value=b"m" * SIZE, partition=partition)
    assert producer.flush(60) == 0


def _by_broker(metrics: tuple[BrokerMetrics, ...]) -> dict[int, BrokerMetrics]:
    return {m.broker: m for m in metrics}


def test_status_json_lists_each_brokers_metrics_url_and_each_answers(
    box: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["sandbox", "status", "--dir", str(box.dir), "--json"]) == 0
    brokers = json.loads(capsys.readouterr().out)["brokers"]
    urls = [b["metrics_url"] for b in brokers]
    assert len(urls) == 2 and all(u.startswith("http://127.0.0.1:") and u.endswith("/metrics") for u in urls)
    for url in urls:
        with urlopen(url, timeout=10) as answer:
            assert "kafka_server_brokertopicmetrics_bytesin_total" in answer.read().decode()


def test_a_producer_shows_in_messages_and_bytes_in_per_broker_and_produce_p99(box: Sandbox) -> None:
    snap = _snapshot(box)
    reader = MetricsReader(parse_metrics_urls(_urls(box)), timeout=10.0)
    first = _by_broker(reader.read(snap))
    assert all(m.failure is None for m in first.values()), first
    _produce(box, partition=0, count=300)  # broker 1 leads partition 0
    _produce(box, partition=1, count=100)  # broker 2 leads partition 1
    second = _by_broker(reader.read(snap))
    for broker, count in ((1, 300), (2, 100)):
        f = second[broker].figures
        assert f is not None
        messages, bytes_in = f.rates["messages_in"], f.rates["bytes_in"]
        assert messages.source == COUNT_DELTA and messages.window_s
        # The window's count delta is exactly what was produced to the partition the broker leads.
        assert (messages.value or 0) * messages.window_s == pytest.approx(count)
        topic = f.topics[TOPIC]["messages_in"]
        assert (topic.value or 0) * (topic.window_s or 0) == pytest.approx(count)
        # Bytes in: the values plus the record format's overhead (batch headers and per-record framing).
        appended = (bytes_in.value or 0) * (bytes_in.window_s or 0)
        assert count * SIZE <= appended <= count * (SIZE + 80) + 2000
        assert f.p99_ms["produce"] is not None and f.p99_ms["produce"] > 0
        assert f.request_idle_pct.value is not None and 0 <= f.request_idle_pct.value <= 100
        assert f.network_idle_pct is not None
        assert f.under_replicated == 0 and second[broker].zookeeper_under_replicated == 0
        assert second[broker].disagreement is None


def test_out_bytes_show_after_a_consumer_reads(box: Sandbox) -> None:
    _produce(box, partition=0, count=50)
    snap = _snapshot(box)
    reader = MetricsReader(parse_metrics_urls(_urls(box)), timeout=10.0)
    reader.read(snap, only=1)
    consumer = Consumer(
        {"bootstrap.servers": box.info().bootstrap_servers, "group.id": "metrics-reader", "enable.auto.commit": False}
    )
    try:
        consumer.assign([TopicPartition(TOPIC, 0, 0)])
        read = 0

        def consumed_50() -> bool:
            nonlocal read
            message = consumer.poll(0.5)
            if message is not None and message.error() is None:
                read += 1
            return read >= 50

        wait_until(consumed_50, 60, "the consumer to read 50 messages")
    finally:
        consumer.close()
    [m] = reader.read(snap, only=1)
    assert m.figures is not None
    out = m.figures.rates["bytes_out"]
    assert out.source == COUNT_DELTA and (out.value or 0) * (out.window_s or 0) >= 50 * SIZE
    assert (m.figures.topics[TOPIC]["bytes_out"].value or 0) > 0
    assert m.figures.p99_ms["fetch"] is not None


def test_kzc_metrics_json_shows_the_live_broker_and_why_the_other_fails(
    box: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    [closed] = free_ports(1)  # nothing listens there
    url1 = box.info().broker(1).metrics_url
    argv = ["--zookeeper", box.info().zookeeper, "metrics", "--metrics-url", f"1={url1}",
            "--metrics-url", f"2=http://127.0.0.1:{closed}/metrics", "--window", "1s", "--json"]  # fmt: skip
    assert main(argv) == 0
    brokers = {b["broker"]: b for b in json.loads(capsys.readouterr().out)["brokers"]}
    assert brokers[1]["failure"] is None and brokers[1]["bytes_in_per_s"]["source"] == COUNT_DELTA
    assert brokers[1]["produce_p99_ms"] is not None and brokers[1]["under_replicated"] == 0
    assert brokers[2]["failure"] == "connection refused (no exporter listening there?)"
    assert brokers[2]["bytes_in_per_s"] is None
    # The text form, one scrape: the live broker's figures and the other's reason, each in its block.
    assert main([*argv[:-3], "--window", "0"]) == 0
    text = capsys.readouterr().out
    assert f"Broker 1 metrics ({url1})" in text and "one-minute rate" in text
    assert "Broker 2 metrics" in text and "unavailable: connection refused" in text


def test_kzc_broker_shows_its_metrics(box: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    urls = [arg for url in _urls(box) for arg in ("--metrics-url", url)]
    argv = ["--zookeeper", box.info().zookeeper, "broker", "2", *urls]
    assert main([*argv, "--json"]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    assert metrics["broker"] == 2 and metrics["failure"] is None and metrics["messages_in_per_s"]["value"] is not None


def test_kzc_traffic_fills_bytes_out_and_request_times_from_metrics(
    box: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    [closed] = free_ports(1)
    url1 = box.info().broker(1).metrics_url
    base = ["--zookeeper", box.info().zookeeper, "--bootstrap-server", box.info().bootstrap_servers, "traffic",
            "--window", "1s", "--json", "--metrics-url", f"1={url1}"]  # fmt: skip
    assert main([*base, "--by", "broker", "--metrics-url", f"2=http://127.0.0.1:{closed}/metrics"]) == 0
    rows = {r["broker"]: r for r in json.loads(capsys.readouterr().out)["rows"]}
    one, two = rows[1], rows[2]
    assert "metrics" in one["source"] and one["bytes_out_per_s"] is not None and one["bytes_out_per_s"] >= 0
    assert one["produce_p99_ms"] > 0 and one["fetch_p99_ms"] is not None  # earlier tests produced and consumed
    assert one["under_replicated"] == 0 and one["request_handler_idle_pct"] is not None
    assert two["bytes_out_per_s"] is None and "connection refused" in two["unknown"]["bytes_out_per_s"]
    assert "metrics" not in two["source"]
    # By topic: bytes out summed over the brokers' per-topic meters; request times are per broker only.
    assert main([*base, "--by", "topic", "--metrics-url", f"2={box.info().broker(2).metrics_url}"]) == 0
    topic = {r["topic"]: r for r in json.loads(capsys.readouterr().out)["rows"]}[TOPIC]
    assert topic["bytes_out_per_s"] is not None and "metrics" in topic["source"]
    assert topic["produce_p99_ms"] is None and "per broker only" in topic["unknown"]["produce_p99_ms"]


def test_a_broker_restart_reads_as_restarted_never_a_negative_rate(box: Sandbox) -> None:
    """Last in the module: it restarts broker 2, whose counts begin again."""
    _produce(box, partition=1, count=20)
    snap = _snapshot(box)
    reader = MetricsReader(parse_metrics_urls(_urls(box)), timeout=10.0)
    [before] = reader.read(snap, only=2)
    assert before.figures is not None
    box.kill_broker(2)
    box.start_broker(2)

    def answered() -> BrokerMetrics | None:
        [m] = reader.read(snap, only=2)
        return m if m.figures is not None else None

    after = wait_until(answered, 120, "broker 2's exporter to answer with Kafka's metrics again")
    assert after is not None and after.figures is not None and after.figures.restarted
    messages = after.figures.rates["messages_in"]
    assert messages.source == ONE_MINUTE and messages.value is not None and messages.value >= 0
    assert "restarted" in (messages.why or "")
