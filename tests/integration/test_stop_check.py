"""The stop check against what really happens: a 4-broker sandbox of its own with replication factors 1 to 4 and
min.insync.replicas 1 to 3; for every broker in turn, ``kzc broker stop-check ID --json`` predicts, the broker
is killed (SIGKILL), and what ZooKeeper then holds must equal the prediction exactly: every touched
partition's leader (or no leader) and ISR, every other partition unchanged, and the offline and
under-min-ISR sets. Then the broker is restarted and the test waits until every ISR is full again. On the same
cluster: ``kzc broker ID`` (live and killed), and a paused (SIGSTOP) follower named as the likely cause."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from cli.snapshot_cmd import take_snapshot
from core.brokers.admin import KafkaAdmin
from core.config import PLAINTEXT, ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.snapshot.health import HealthReport, assess
from core.snapshot.likely_cause import LikelyCause, likely_cause
from core.snapshot.static_min_isr import read_static_min_isr
from tests.cli_runner import run
from tests.integration.zk_server import zk_client

pytestmark = pytest.mark.integration

# name -> (assignment, topic config): replica orders vary so that the assignment order, not the ISR's, decides.
TOPICS: dict[str, tuple[list[list[int]], dict[str, str]]] = {
    "sc.rf1": ([[1], [2], [3], [4]], {}),
    "sc.rf2.min2": ([[1, 2], [2, 3], [3, 4], [4, 1]], {"min.insync.replicas": "2"}),
    "sc.rf3.min2": ([[1, 2, 3], [3, 1, 4], [4, 2, 1], [2, 4, 3]], {"min.insync.replicas": "2"}),
    "sc.rf3.min1": ([[2, 3, 4], [3, 4, 1]], {}),
    "sc.rf4.min3": ([[1, 2, 3, 4], [4, 3, 2, 1]], {"min.insync.replicas": "3"}),
}


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Sandbox]:
    box = Sandbox.up(
        Path(tmp_path_factory.mktemp("stop-check")),
        brokers=4,
        timeout=300,
        # Leaders stay where the test finds them; a follower's ISR exit after a controller's death comes soon.
        broker_config={"auto.leader.rebalance.enable": "false", "replica.lag.time.max.ms": "5000"},
    )
    try:
        admin = KafkaAdmin(parse_bootstrap(box.info().bootstrap_servers), security=PLAINTEXT)
        for name, (assignment, config) in TOPICS.items():
            admin.create_topic(name, assignment, config)
        yield box
    finally:
        box.down(clean=False)  # thrown away: no controlled shutdown


def states(zk: KazooClient) -> dict[str, tuple[int, list[int]]]:
    """``TOPIC-PARTITION`` -> (leader, ISR) as ZooKeeper holds them now, for the test's topics."""
    found = {}
    for name, (assignment, _) in TOPICS.items():
        for p in range(len(assignment)):
            try:
                raw = zk.get(f"/brokers/topics/{name}/partitions/{p}/state")[0]
            except NoNodeError:
                continue  # a topic just created: the controller has not written its states yet
            data = json.loads(raw)
            found[f"{name}-{p}"] = (int(data["leader"]), [int(b) for b in data["isr"]])
    return found


def all_in_sync(zk: KazooClient) -> bool:
    now = states(zk)
    return all(
        f"{name}-{p}" in now and sorted(now[f"{name}-{p}"][1]) == sorted(replicas) and now[f"{name}-{p}"][0] >= 0
        for name, (assignment, _) in TOPICS.items()
        for p, replicas in enumerate(assignment)
    )


def health_now(box: Sandbox) -> HealthReport:
    info = box.info()
    settings = ConnectionSettings(zookeeper=parse_zookeeper(info.zookeeper))
    snapshot, _ = take_snapshot(settings, 100)
    static = read_static_min_isr(parse_bootstrap(info.bootstrap_servers), PLAINTEXT, snapshot.brokers)
    return assess(snapshot, static)


def expected(before: dict[str, tuple[int, list[int]]], prediction: dict[str, Any]) -> dict[str, Any]:
    """What ZooKeeper must hold: unchanged partitions as before; touched ones as predicted (an offline one has
    no leader: -1, or the dead broker when the controller died with it, which is the same to Kafka)."""
    want: dict[str, Any] = {k: (leader, isr) for k, (leader, isr) in before.items()}
    for change in prediction["changes"]:
        key = f"{change['topic']}-{change['partition']}"
        if key not in want:
            continue
        leader = change["leader_after"]
        want[key] = ("offline" if leader is None else leader, change["isr_after"])
    return want


def observed(now: dict[str, tuple[int, list[int]]], killed: int) -> dict[str, Any]:
    return {k: ("offline" if leader in (-1, killed) else leader, isr) for k, (leader, isr) in now.items()}


def test_the_broker_view_of_a_live_broker(four: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    info = four.info()
    with zk_client(info.zookeeper) as zk:
        wait_until(lambda: all_in_sync(zk), 180, "every ISR to be full")
        hosted = {f"{n}-{p}" for n, (a, _) in TOPICS.items() for p, r in enumerate(a) if 2 in r}

        def logs_created() -> Any:
            # The controller writes full ISRs as it creates a topic; the broker creates the logs right after.
            code, view, err = run(capsys, "--zookeeper", info.zookeeper, "broker", "2", "--json")
            assert code == 0 and isinstance(view, dict), err
            return view if set(view["log_sizes"] or ()) == hosted else None

        view = wait_until(logs_created, 60, "broker 2 to have created the logs of its replicas")
        now = states(zk)
        assert set(view["leads"]) == {k for k, (leader, _) in now.items() if leader == 2}
        assert view["hosts"] == len(hosted) and view["out_of_isr"] == [] and view["offline"] == []
        assert view["registered"] and view["endpoints"] == [f"PLAINTEXT://127.0.0.1:{info.broker(2).port}"]
        assert view["session_id"] == hex(zk.exists("/brokers/ids/2").ephemeralOwner)
        assert set(view["log_sizes"]) == hosted and view["log_size_bytes"] == sum(view["log_sizes"].values())


def test_every_prediction_equals_what_the_controller_does(four: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    info = four.info()
    with zk_client(info.zookeeper) as zk:
        for broker in (1, 2, 3, 4):
            wait_until(lambda: all_in_sync(zk), 180, "every ISR to be full")
            before = states(zk)
            code, prediction, err = run(
                capsys, "--zookeeper", info.zookeeper, "--bootstrap-server", info.bootstrap_servers,
                "broker", "stop-check", str(broker), "--json",
            )  # fmt: skip
            assert isinstance(prediction, dict), err
            # Broker `broker` alone holds sc.rf1-(broker-1): it goes offline, so it is never safe.
            assert code == 1 and not prediction["safe"]
            assert f"sc.rf1-{broker - 1}" in prediction["offline"]
            assert prediction["min_isr_unknown"] == []  # the brokers reported their static value
            want = expected(before, prediction)
            four.kill_broker(broker)

            def converged(killed: int = broker, want: dict[str, Any] = want) -> bool:
                return observed(states(zk), killed) == want

            try:
                wait_until(converged, 120, f"ZooKeeper to hold what the stop check predicted for broker {broker}")
            except Exception:
                assert observed(states(zk), broker) == want  # the difference, shown by pytest
                raise
            # The sets, as every surface derives them (core.snapshot.health) from what ZooKeeper holds now.
            report = health_now(four)
            assert {f"{o.topic}-{o.partition}" for o in report.offline} == set(prediction["offline"])
            under = {f"{u.topic}-{u.partition}" for u in report.under_min_isr}
            assert under == set(prediction["under_min_isr"]) | set(prediction["offline"])
            # The killed broker's view: not registered, its replicas out of the ISR and the offline ones named.
            code, gone, _ = run(capsys, "--zookeeper", info.zookeeper, "broker", str(broker), "--json")
            assert code == 0 and not gone["registered"] and gone["session_id"] is None
            held = states(zk)
            hosted = {f"{n}-{p}" for n, (a, _) in TOPICS.items() for p, r in enumerate(a) if broker in r}
            assert {r["partition"] for r in gone["out_of_isr"]} == {k for k in hosted if broker not in held[k][1]}
            assert {r["partition"] for r in gone["offline"]} == set(prediction["offline"])
            four.start_broker(broker)


def test_a_paused_follower_is_named_as_the_likely_cause(four: Sandbox) -> None:
    """SIGSTOP one broker: the partitions it follows lose it from their ISR, and the likely-cause line names it."""
    info = four.info()
    with zk_client(info.zookeeper) as zk:
        wait_until(lambda: all_in_sync(zk), 180, "every ISR to be full")
        paused = 3
        pid = info.broker(paused).pid
        assert pid is not None and four.jvm.alive(pid)
        settings = ConnectionSettings(zookeeper=parse_zookeeper(info.zookeeper))

        def named() -> LikelyCause | None:
            cause = likely_cause(take_snapshot(settings, 100)[0])
            return cause if cause is not None and cause.kind == "broker" and cause.subject == str(paused) else None

        os.kill(pid, signal.SIGSTOP)
        try:
            cause = wait_until(named, 120, f"the likely cause to name the paused broker {paused}")
            assert cause is not None and cause.affected == cause.explained > 0  # every affected ISR lacks it
            assert cause.text.startswith(f"{cause.affected} of {cause.affected} ")
            assert f"lack broker {paused} in their ISR; broker {paused} is" in cause.text
        finally:
            os.kill(pid, signal.SIGCONT)
        wait_until(lambda: all_in_sync(zk), 180, "the resumed broker to catch up")
