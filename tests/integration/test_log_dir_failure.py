"""A failed log dir, named: a 2-broker sandbox of its own (Kafka 3.9) whose brokers each have two log dirs
(``--log-dirs 2``: JBOD, KIP-112, so a broker outlives one failed dir). One dir of broker 2 that holds
replicas is replaced by a plain file, as Kafka's own ``LogDirFailureTest`` does (tests run as root, so a
chmod would not stop the writes); the broker's next high-watermark checkpoint into it fails and it marks the
dir offline. Then, each waited on with a deadline:

- ``kzc broker 2 --json`` names the dir offline (KAFKA_STORAGE_ERROR) and the replicas that were on it as in
  no online dir, and the other dir with its size;
- ``kzc describe --json`` names the offline dir as the likely cause of the under-replication;
- the console's cluster screen says the same on its likely-cause line, and the broker screen names the dir.

First (before the failure), the sizes ``kzc describe --sizes --json`` prints equal what Kafka's own
``kafka-log-dirs.sh --describe`` (``org.apache.kafka.tools.LogDirsCommand`` 3.9.1) reports.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from kazoo.client import KazooClient
from textual.widgets import Label, Static

from core.brokers.admin import KafkaAdmin
from core.config import PLAINTEXT, ConnectionSettings, UserConfig
from core.connect import parse_bootstrap, parse_zookeeper
from core.polling import wait_until
from core.sandbox.jars import ensure_jars, ensure_tools_jars, java_executable
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.sandbox_tools import eventually
from tests.integration.zk_server import zk_client
from tui.app import KzcApp
from tui.messages import BrokerChosen
from tui.screens.broker import BrokerScreen
from tui.screens.cluster import ClusterScreen

pytestmark = pytest.mark.integration

TOPIC = "ldf.orders"
ASSIGNMENT = [[1, 2], [2, 1], [1, 2], [2, 1], [1, 2], [2, 1]]
FAILING = 2


@pytest.fixture(scope="module")
def jbod(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    box = Sandbox.up(
        Path(tmp_path_factory.mktemp("log-dirs")),
        brokers=2,
        log_dirs=2,
        timeout=300,
        broker_config={"auto.leader.rebalance.enable": "false", "replica.lag.time.max.ms": "5000"},
    )
    try:
        KafkaAdmin(parse_bootstrap(box.info().bootstrap_servers), security=PLAINTEXT).create_topic(
            TOPIC, ASSIGNMENT, {}
        )
        producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "acks": "all", "linger.ms": 5})
        for n in range(600):
            producer.produce(TOPIC, value=b"x" * (100 + n), partition=n % len(ASSIGNMENT))
        assert producer.flush(60) == 0
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def states(zk: KazooClient) -> dict[int, dict[str, Any]]:
    return {
        p: json.loads(zk.get(f"/brokers/topics/{TOPIC}/partitions/{p}/state")[0])
        for p in range(len(ASSIGNMENT))
        if zk.exists(f"/brokers/topics/{TOPIC}/partitions/{p}/state")
    }


def in_sync(zk: KazooClient) -> bool:
    now = states(zk)
    return len(now) == len(ASSIGNMENT) and all(len(s["isr"]) == 2 for s in now.values())


def kafka_log_dirs(bootstrap: str) -> dict[int, list[dict[str, Any]]]:
    """Broker id -> its log dirs as Kafka's own ``kafka-log-dirs.sh --describe`` prints them (JSON)."""
    classpath = f"{ensure_jars()}/*:{ensure_tools_jars()}/*"
    command = [java_executable(), "-cp", classpath, "org.apache.kafka.tools.LogDirsCommand",
               "--bootstrap-server", bootstrap, "--describe"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    payload = json.loads(next(line for line in done.stdout.splitlines() if line.startswith("{")))
    return {b["broker"]: b["logDirs"] for b in payload["brokers"]}


def holding(box: Sandbox, broker: int) -> dict[Path, set[str]]:
    """Each log dir of the broker and the replicas of TOPIC it holds (their directories, TOPIC-P)."""
    return {
        d: {c.name for c in d.iterdir() if c.is_dir() and c.name.startswith(f"{TOPIC}-")} if d.is_dir() else set()
        for d in box.info().log_dir_paths(broker)
    }


def fail_a_log_dir(box: Sandbox) -> tuple[Path, set[str]]:
    """Replace broker 2's first dir holding replicas by a plain file; (the dir, the replicas it held)."""

    def created() -> dict[Path, set[str]] | None:
        found = holding(box, FAILING)
        return found if sum(map(len, found.values())) == len(ASSIGNMENT) else None

    dirs = wait_until(created, 60, f"broker {FAILING} to create the logs of its replicas")
    victim, held = next((d, held) for d, held in dirs.items() if held)
    shutil.rmtree(victim)
    victim.touch()  # a file where the dir was: every write into the dir now fails (ENOTDIR)
    return victim, held


def test_sizes_equal_what_kafkas_own_tool_reports(jbod: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    info = jbod.info()
    with zk_client(info.zookeeper) as zk:
        wait_until(lambda: in_sync(zk), 120, "every ISR to be full")
        leaders = {p: s["leader"] for p, s in states(zk).items()}

    def same() -> Any:
        # Followers fetch what the leaders took: compare once two readings of Kafka's tool agree (no write left).
        before = kafka_log_dirs(info.bootstrap_servers)
        code, described, err = run(capsys, "--zookeeper", info.zookeeper, "describe", "--sizes", "--json")
        assert code == 0, err
        return (before, described["sizes"]) if kafka_log_dirs(info.bootstrap_servers) == before else None

    reported, sizes = wait_until(same, 120, "the brokers' log sizes to settle")
    replica = {
        (broker, p["partition"]): p["size"]
        for broker, dirs in reported.items()
        for d in dirs
        if d["error"] is None
        for p in d["partitions"]
        if not p["isFuture"]
    }
    for broker in (1, 2):
        assert sizes["brokers"][str(broker)]["bytes"] == sum(v for (b, _), v in replica.items() if b == broker)
    topic = sizes["topics"][TOPIC]
    assert topic["size_bytes"] == sum(replica[(leaders[p], f"{TOPIC}-{p}")] for p in leaders) > 0
    assert topic["on_disk_bytes"] == sum(v for (_, name), v in replica.items() if name.startswith(f"{TOPIC}-"))


def test_a_failed_log_dir_is_named_by_kzc_broker_and_describe(
    jbod: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    info = jbod.info()
    zkargs = ("--zookeeper", info.zookeeper)
    with zk_client(info.zookeeper) as zk:
        wait_until(lambda: in_sync(zk), 120, "every ISR to be full")
    victim, held = fail_a_log_dir(jbod)

    def offline() -> Any:
        code, view, err = run(capsys, *zkargs, "broker", str(FAILING), "--json")
        assert code == 0, err
        return view if view["offline_log_dirs"] == [str(victim)] else None

    view = wait_until(offline, 120, f"broker {FAILING} to report {victim} offline")
    assert set(view["missing_replicas"]) == held
    by_path = {d["path"]: d for d in view["log_dirs"]}
    assert by_path[str(victim)]["error"] == "KAFKA_STORAGE_ERROR" and by_path[str(victim)]["size_bytes"] is None
    (other,) = (p for p in by_path if p != str(victim))
    assert by_path[other]["error"] is None and by_path[other]["replicas"] == len(ASSIGNMENT) - len(held)

    def named() -> Any:
        code, described, err = run(capsys, *zkargs, "describe", "--json")
        assert code == 0, err
        cause = described["likely_cause"]
        return cause if cause is not None and cause["kind"] == "log_dir" and cause["affected"] == len(held) else None

    cause = wait_until(named, 120, "kzc describe to name the offline log dir as the likely cause")
    assert cause["subject"] == f"{FAILING}:{victim}"
    assert cause["text"].startswith(f"{len(held)} of {len(held)} under-replicated partitions lack broker {FAILING}")
    assert f"broker {FAILING} is registered but log dir {victim} is offline (KAFKA_STORAGE_ERROR" in cause["text"]

    # The text form is a new read, so its "DescribeLogDirs read HH:MM:SS" may be a second later.
    code, text, err = run(capsys, *zkargs, "describe")
    head, tail = re.split(r"DescribeLogDirs read \d\d:\d\d:\d\d", cause["text"])
    shown = f"Likely cause {re.escape(head)}DescribeLogDirs read [0-9:]{{8}}{re.escape(tail)}"
    assert code == 0 and re.search(shown, text), err
    code, text, err = run(capsys, *zkargs, "broker", str(FAILING))
    assert code == 0 and f"{victim}  OFFLINE (KAFKA_STORAGE_ERROR" in text, err


async def test_the_console_names_the_failed_log_dir(jbod: Sandbox) -> None:
    """After the CLI test: the dir is offline; the cluster screen's line and the broker screen say so."""
    info = jbod.info()
    victim = next(p for p in info.log_dir_paths(FAILING) if p.is_file())
    settings = ConnectionSettings(zookeeper=parse_zookeeper(info.zookeeper), context="sandbox")
    app = KzcApp(settings, config=UserConfig(theme="dark"), warm_spark=False)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.screen
        assert isinstance(screen, ClusterScreen)
        line = screen.query_one("#likely-cause", Label)
        await eventually(pilot, lambda: f"log dir {victim} is offline" in str(line.render()), 90,
                         "the likely-cause line to name the offline log dir")  # fmt: skip
        assert str(line.render()).startswith("likely cause: ")
        app.post_message(BrokerChosen(FAILING))
        await eventually(pilot, lambda: isinstance(app.screen, BrokerScreen), 10, "the broker screen")
        header = app.screen.query_one("#broker-header", Static)
        await eventually(
            pilot, lambda: f"{victim} OFFLINE" in str(header.render()), 60, "the broker screen to name the offline dir"
        )
