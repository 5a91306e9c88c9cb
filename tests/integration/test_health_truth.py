"""One derivation of health, checked against Kafka itself on a cluster whose brokers run with a static
``min.insync.replicas=2`` (``kzc sandbox up --broker-config``), with broker 3 killed.

- ``acks=all`` is refused by the console and ``describe --json`` exactly where a real confluent-kafka
  ``acks=all`` producer gets NOT_ENOUGH_REPLICAS;
- ``describe --json``, the console's counters and ``core.snapshot.health.assess`` agree with one another
  and with Kafka's TopicCommand rules applied to the raw znodes, with planted faults (a missing state
  znode, a topic override above the ISR).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import KafkaError, Producer
from confluent_kafka.admin import AdminClient
from confluent_kafka.cimpl import NewTopic
from kazoo.client import KazooClient

from cli.main import main
from core.config import ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.console.view import ViewBuilder, partition_rows
from core.console.zk import ZkBackend
from core.polling import wait_until
from core.sandbox.jars import ensure_jars, ensure_tools_jars, java_executable
from core.sandbox.local_cluster import Sandbox
from core.snapshot.health import assess
from core.snapshot.model import StaticMinIsr
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration

# p0..p5: replicas with and without broker 3, which the tests kill.
ASSIGNMENT = [[1, 3], [3, 1], [1, 2], [2, 3], [2, 1], [3, 2]]
ON_BROKER_3 = {0, 1, 3, 5}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    """A 3-broker cluster of this module's own, brokers started with min.insync.replicas=2."""
    box = Sandbox.up(
        tmp_path_factory.mktemp("min-isr-sandbox"), brokers=3, timeout=240, broker_config={"min.insync.replicas": "2"}
    )
    try:
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


@pytest.fixture(scope="module")
def zk(cluster: Sandbox) -> Iterator[KazooClient]:
    with zk_client(cluster.info().zookeeper) as client:
        yield client


def _isr(zk: KazooClient, topic: str, partition: int) -> list[int]:
    data, _ = zk.get(f"/brokers/topics/{topic}/partitions/{partition}/state")
    return list(json.loads(data)["isr"])


@pytest.fixture(scope="module")
def broker_3_down(cluster: Sandbox, zk: KazooClient) -> str:
    """Topic ``acks`` created with ASSIGNMENT, then broker 3 killed and the ISRs shrunk in ZooKeeper."""
    admin = AdminClient({"bootstrap.servers": cluster.info().bootstrap_servers})
    admin.create_topics([NewTopic("acks", num_partitions=len(ASSIGNMENT), replica_assignment=ASSIGNMENT)])[
        "acks"
    ].result(timeout=60)
    admin.create_topics([NewTopic("planted", num_partitions=2, replica_assignment=[[1, 2], [2, 1]])])["planted"].result(
        timeout=60
    )
    wait_until(lambda: all(len(_isr(zk, "acks", p)) == 2 for p in range(6)), 60, "acks fully in sync")
    wait_until(lambda: all(len(_isr(zk, "planted", p)) == 2 for p in range(2)), 60, "planted fully in sync")
    cluster.kill_broker(3)
    wait_until(lambda: all(3 not in _isr(zk, "acks", p) for p in range(6)), 90, "broker 3 out of every ISR")
    return cluster.info().bootstrap_servers


def _producer_refusals(bootstrap: str) -> set[int]:
    """The partitions of ``acks`` where an acks=all write fails with NOT_ENOUGH_REPLICAS."""
    errors: dict[int, KafkaError | None] = {}

    def delivered(error: KafkaError | None, message: Any) -> None:
        errors[message.partition()] = error

    producer = Producer(
        {
            "bootstrap.servers": bootstrap,
            "acks": "all",
            "message.send.max.retries": 0,
            "message.timeout.ms": 20000,
            "enable.idempotence": False,
        }
    )
    for partition in range(len(ASSIGNMENT)):
        producer.produce("acks", b"x", partition=partition, on_delivery=delivered)
    producer.flush(30)
    assert len(errors) == len(ASSIGNMENT)
    refused = {p for p, e in errors.items() if e is not None and e.code() == KafkaError.NOT_ENOUGH_REPLICAS}
    other = {p: e for p, e in errors.items() if e is not None and p not in refused}
    assert not other, other
    return refused


def test_acks_all_is_refused_exactly_where_a_real_producer_gets_not_enough_replicas(
    cluster: Sandbox, broker_3_down: str, capsys: pytest.CaptureFixture[str]
) -> None:
    refused_by_kafka = _producer_refusals(broker_3_down)
    assert refused_by_kafka == ON_BROKER_3

    zookeeper = cluster.info().zookeeper
    code = main(["describe", "--zookeeper", zookeeper, "--bootstrap-server", broker_3_down, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    health = json.loads(out)["health"]
    described = {r["partition"] for r in health["acks_all_refused"] if r["topic"] == "acks"}
    assert described == refused_by_kafka
    assert {r["min_isr_source"] for r in health["acks_all_refused"]} == {"broker 1 static", "broker 2 static"}

    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(zookeeper), bootstrap_servers=parse_bootstrap(broker_3_down)
    )
    backend = ZkBackend(settings)
    backend.connect()
    try:
        snapshot = wait_until(
            lambda: (s := backend.snapshot()).static_min_isr.by_broker and "acks" in s.topics and s,
            60,
            "the console to read the brokers' static min.insync.replicas and the topics",
        )
        rows = partition_rows(snapshot, snapshot.topics["acks"])
        assert {r.partition for r in rows if r.accepts_acks_all is False} == refused_by_kafka
        assert all(r.accepts_acks_all is True for r in rows if r.partition not in refused_by_kafka)
    finally:
        backend.close()


def _kafka_topics(bootstrap: str, flag: str) -> set[tuple[str, int]]:
    """The partitions Kafka's own ``kafka-topics.sh --bootstrap-server ... --describe FLAG`` lists
    (``org.apache.kafka.tools.TopicCommand`` 3.9.1, from the jars ``kzc sandbox fetch`` fetched)."""
    classpath = f"{ensure_jars()}/*:{ensure_tools_jars()}/*"
    command = [java_executable(), "-cp", classpath, "org.apache.kafka.tools.TopicCommand",
               "--bootstrap-server", bootstrap, "--describe", flag]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    listed = set()
    for line in done.stdout.splitlines():
        fields = dict(f.split(": ", 1) for f in line.strip().split("\t") if ": " in f)
        if "Partition" in fields:
            listed.add((fields["Topic"], int(fields["Partition"])))
    return listed


def test_describe_and_check_list_what_kafkas_own_tool_lists(
    cluster: Sandbox, broker_3_down: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Broker 3 is down and the controller has updated ZooKeeper and the brokers alike.
    under_replicated = _kafka_topics(broker_3_down, "--under-replicated-partitions")
    unavailable = _kafka_topics(broker_3_down, "--unavailable-partitions")
    under_min_isr = _kafka_topics(broker_3_down, "--under-min-isr-partitions")
    assert {("acks", p) for p in ON_BROKER_3} <= under_replicated

    zookeeper = cluster.info().zookeeper
    code = main(["describe", "--zookeeper", zookeeper, "--bootstrap-server", broker_3_down, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    described = json.loads(out)["health"]
    assert described["under_replicated_partitions"] == len(under_replicated)
    assert described["offline_partitions"] == len(unavailable)
    assert described["under_min_isr_partitions"] == len(under_min_isr)

    code = main(["check", "--zookeeper", zookeeper, "--bootstrap-server", broker_3_down, "--engine", "local", "--json"])
    out, err = capsys.readouterr()
    findings = json.loads(out)["findings"]

    def checked(check: str) -> set[tuple[str, int]]:
        return {(f["topic"], f["partition"]) for f in findings if f["check"] == check}

    assert checked("under_replicated") == under_replicated
    assert checked("offline_partition") == unavailable
    assert checked("under_min_isr") == under_min_isr


def test_describe_the_console_and_kafkas_rules_count_the_same_partitions(
    cluster: Sandbox, zk: KazooClient, broker_3_down: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Planted: a missing state znode (no leader, empty ISR for Kafka's tool), and an override above the ISR.
    zk.delete("/brokers/topics/planted/partitions/1/state")
    zk.set("/config/topics/planted", json.dumps({"version": 1, "config": {"min.insync.replicas": "3"}}).encode())

    # Kafka's TopicCommand rules on the raw znodes: unavailable = no leader or a leader that is not
    # registered; under-replicated = ISR (empty without a state) smaller than the replicas minus the adding
    # ones; under min ISR = no live leader or ISR smaller than min.insync.replicas (the topic override, else
    # the brokers' static 2).
    live = {int(b) for b in zk.get_children("/brokers/ids")}
    unavailable, under_replicated, under_min_isr = set(), set(), set()
    for topic in zk.get_children("/brokers/topics"):
        topic_znode = json.loads(zk.get(f"/brokers/topics/{topic}")[0])
        adding = topic_znode.get("adding_replicas") or {}
        config_path = f"/config/topics/{topic}"
        config = json.loads(zk.get(config_path)[0])["config"] if zk.exists(config_path) else {}
        min_isr = int(config.get("min.insync.replicas", 2))
        for p, replicas in topic_znode["partitions"].items():
            path = f"/brokers/topics/{topic}/partitions/{p}/state"
            state = json.loads(zk.get(path)[0]) if zk.exists(path) else None
            leader = state["leader"] if state else None
            isr = state["isr"] if state else []
            has_leader = leader is not None and leader in live
            if not has_leader:
                unavailable.add((topic, int(p)))
            if len(isr) < len([r for r in replicas if r not in adding.get(p, [])]):
                under_replicated.add((topic, int(p)))
            if not has_leader or len(isr) < min_isr:
                under_min_isr.add((topic, int(p)))
    assert ("planted", 1) in unavailable and ("planted", 1) in under_replicated

    zookeeper = cluster.info().zookeeper
    code = main(["describe", "--zookeeper", zookeeper, "--bootstrap-server", broker_3_down, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    described = json.loads(out)["health"]
    assert described["offline_partitions"] == len(unavailable)
    assert described["under_replicated_partitions"] == len(under_replicated)
    assert described["under_min_isr_partitions"] == len(under_min_isr)

    # kzc check counts the same partitions: it calls the same derivation.
    code = main(["check", "--zookeeper", zookeeper, "--bootstrap-server", broker_3_down, "--engine", "local", "--json"])
    out, err = capsys.readouterr()
    assert code == 1, err  # offline partitions are errors
    findings = json.loads(out)["findings"]

    def checked(check: str) -> set[tuple[str, int]]:
        return {(f["topic"], f["partition"]) for f in findings if f["check"] == check}

    assert checked("offline_partition") == unavailable
    assert checked("under_replicated") == under_replicated
    assert checked("under_min_isr") == under_min_isr

    settings = ConnectionSettings(
        zookeeper=parse_zookeeper(zookeeper), bootstrap_servers=parse_bootstrap(broker_3_down)
    )
    backend = ZkBackend(settings)
    backend.connect()
    try:
        snapshot = wait_until(
            lambda: (s := backend.snapshot()).static_min_isr.by_broker and "planted" in s.topics and s,
            60,
            "the console's first full read with the brokers' static min.insync.replicas",
        )
        counters = ViewBuilder().build(snapshot, snapshot.taken_at_ms).health
        report = assess(snapshot)
    finally:
        backend.close()
    assert (counters.offline, counters.under_replicated, counters.under_min_isr) == (
        described["offline_partitions"],
        described["under_replicated_partitions"],
        described["under_min_isr_partitions"],
    )
    assert {(o.topic, o.partition) for o in report.offline} == unavailable
    assert {(u.topic, u.partition) for u in report.under_replicated} == under_replicated
    assert {(u.topic, u.partition) for u in report.under_min_isr} == under_min_isr
    # planted-0 has ISR 2 < its override 3; planted-1 has no leader: both under min ISR, as Kafka's tool says.
    assert {("planted", 0), ("planted", 1)} <= {(u.topic, u.partition) for u in report.under_min_isr}
    assert counters.acks_all_unknown == 0


def _zookeeper_counts(zookeeper: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, int, int]:
    """Offline, under-replicated and under-min-ISR partitions in a fresh full read of ZooKeeper."""
    code = main(["describe", "--zookeeper", zookeeper, "--min-insync-replicas", "2", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    h = json.loads(out)["health"]
    return h["offline_partitions"], h["under_replicated_partitions"], h["under_min_isr_partitions"]


def test_the_consoles_counters_follow_every_partition_when_a_broker_returns_and_dies_again(
    cluster: Sandbox, zk: KazooClient, broker_3_down: str, capsys: pytest.CaptureFixture[str]
) -> None:
    zookeeper = cluster.info().zookeeper
    backend = ZkBackend(ConnectionSettings(zookeeper=parse_zookeeper(zookeeper)))
    backend.connect()
    builder = ViewBuilder()

    def console_counts() -> tuple[int, int, int]:
        snapshot = backend.snapshot()
        with_given = replace(snapshot, static_min_isr=StaticMinIsr(given=2))
        h = builder.build(with_given, snapshot.taken_at_ms).health
        return h.offline, h.under_replicated, h.under_min_isr

    try:
        wait_until(lambda: backend.loading() is None, 60, "the console's first full read")
        cluster.start_broker(3)
        wait_until(lambda: all(len(_isr(zk, "acks", p)) == 2 for p in range(6)), 90, "broker 3 back in every ISR")
        truth = _zookeeper_counts(zookeeper, capsys)
        wait_until(lambda: console_counts() == truth, 3, f"the console's counters to reach ZooKeeper's {truth}")

        cluster.kill_broker(3)
        wait_until(lambda: all(3 not in _isr(zk, "acks", p) for p in range(6)), 90, "broker 3 out of every ISR")
        truth = _zookeeper_counts(zookeeper, capsys)
        wait_until(lambda: console_counts() == truth, 3, f"the console's counters to reach ZooKeeper's {truth}")
        assert truth[1] >= len(ON_BROKER_3)  # the change was seen through the partitions' watches, not a re-read
    finally:
        backend.close()
