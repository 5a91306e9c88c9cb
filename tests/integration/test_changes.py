"""``kzc changes`` on a real cluster: a scripted sequence (create, a config change, a broker killed and
restarted, a preferred election, a reassignment, a delete), each step dated from ZooKeeper's own stats to
within a second of when the test saw it happen, and the timeline screen showing the same.

The module kills a broker on the shared sandbox and starts it again before the test ends; the leaders it
leaves unpreferred stay so (the sandbox has no automatic rebalance), which the election test relies on.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kazoo.client import KazooClient

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.console.zk import ZkBackend
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import partitions, state
from tests.integration.sandbox_tools import eventually, in_thread
from tests.integration.zk_server import zk_client
from tui.app import KzcApp
from tui.screens.timeline import TimelineScreen
from tui.widgets.virtual_table import VirtualTable

TOPIC = "changes-orders"
PARTITIONS = 6
SECOND_MS = 1000  # how close a date must be to what the test saw
CLUSTER_TIMEOUT = 90.0  # the controller reacting to a dead broker (its session timing out) or a restart


@pytest.fixture(scope="module")
def cluster(sandbox: Sandbox) -> Sandbox:
    """The shared sandbox: the broker a test kills is started again before the test ends."""
    return sandbox


@pytest.fixture(scope="module")
def zk(cluster: Sandbox) -> Iterator[KazooClient]:
    with zk_client(cluster.info().zookeeper) as client:
        yield client


def _now_ms() -> int:
    return int(time.time() * 1000)


def _changes(capsys: pytest.CaptureFixture[str], cluster: Sandbox, *extra: str) -> dict[str, Any]:
    code, out, err = run(capsys, "changes", "--zookeeper", cluster.info().zookeeper, "--since", "1h", "--json", *extra)
    assert code == 0, err
    assert isinstance(out, dict), out
    return out


def _all(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for burst in out["bursts"] for c in burst["changes"]]


def _close(at_ms: int, seen_ms: int) -> bool:
    return abs(at_ms - seen_ms) <= SECOND_MS


@pytest.fixture(scope="module")
def created(cluster: Sandbox, zk: KazooClient) -> int:
    """The topic, created through kzc; returns when the test created it (epoch ms)."""
    from cli.main import main

    before = _now_ms()
    shape = ("--partitions", str(PARTITIONS), "--replication-factor", "3")
    assert main(["topic", "create", TOPIC, *shape, "--yes", "--zookeeper", cluster.info().zookeeper]) == 0
    wait_until(
        lambda: all(zk.exists(f"/brokers/topics/{TOPIC}/partitions/{p}/state") for p in range(PARTITIONS)),
        CLUSTER_TIMEOUT,
        "every partition to get a leader",
    )
    return before


def _cli(capsys: pytest.CaptureFixture[str], cluster: Sandbox, *argv: str) -> int:
    code, _, err = run(capsys, *argv, "--zookeeper", cluster.info().zookeeper)
    assert code == 0, err
    return code


def test_creation_and_a_config_change_are_dated_within_a_second(
    capsys: pytest.CaptureFixture[str], cluster: Sandbox, created: int
) -> None:
    changed_at = _now_ms()
    code, _, err = run(
        capsys, "config", "set", TOPIC, "retention.ms=3600000", "--zookeeper", cluster.info().zookeeper, "--yes"
    )
    assert code == 0, err
    out = _changes(capsys, cluster, "--topic", TOPIC)
    changes = _all(out)
    created_line = next(c for c in changes if c["kind"] == "topic_created")
    assert _close(created_line["at_ms"], created), created_line
    config = next(c for c in changes if c["kind"] == "topic_config")
    assert _close(config["at_ms"], changed_at), config
    assert config["source"] == f"/config/topics/{TOPIC} mtime"
    notified = [c for c in changes if c["kind"] == "config_notification"]
    assert notified and _close(notified[0]["at_ms"], changed_at)
    assert "15 minutes" in out["limits"]["config_notification"]


def test_a_dead_broker_is_one_burst_and_its_return_is_dated(
    capsys: pytest.CaptureFixture[str], cluster: Sandbox, zk: KazooClient, created: int
) -> None:
    controller = json.loads(zk.get("/controller")[0])["brokerid"]
    victim = next(b for b in (1, 2, 3) if b != controller)
    hosted = {p for p, replicas in partitions(zk, TOPIC).items() if victim in replicas}
    cluster.kill_broker(victim)
    try:
        wait_until(lambda: not zk.exists(f"/brokers/ids/{victim}"), CLUSTER_TIMEOUT, f"broker {victim} to deregister")
        gone_ms = _now_ms()
        wait_until(
            lambda: all(victim not in state(zk, TOPIC, p)["isr"] for p in hosted),
            CLUSTER_TIMEOUT,
            f"broker {victim} to leave every ISR",
        )
        out = _changes(capsys, cluster, "--topic", TOPIC)
        burst = out["bursts"][0]  # newest first: the failure
        assert burst["shared_out_of_isr"] == [victim]
        dated = {c["partition"] for c in burst["changes"] if c["kind"] == "partition_state"}
        assert dated == hosted
        assert f"all {len(hosted)} without broker {victim} in their ISR now" in burst["text"]
        assert _close(burst["start_ms"], gone_ms), (burst["start_ms"], gone_ms)
    finally:
        cluster.start_broker(victim)
    registered_ms = _now_ms()
    wait_until(
        lambda: all(victim in state(zk, TOPIC, p)["isr"] for p in hosted),
        CLUSTER_TIMEOUT,
        f"broker {victim} to rejoin every ISR",
    )
    back_ms = _now_ms()
    out = _changes(capsys, cluster, "--broker", str(victim))
    changes = _all(out)
    registration = next(c for c in changes if c["kind"] == "broker_registered")
    ctime = zk.exists(f"/brokers/ids/{victim}").ctime
    assert registration["at_ms"] == ctime
    assert registered_ms - 120_000 <= ctime <= registered_ms  # start_broker returns once the broker serves
    rejoined = [c for c in changes if c["kind"] == "partition_state" and c["topic"] == TOPIC]
    assert {c["partition"] for c in rejoined} == hosted
    assert all(c["out_of_isr"] == [] for c in rejoined)
    assert all(ctime <= c["at_ms"] <= back_ms + SECOND_MS for c in rejoined)


def test_a_preferred_election_dates_the_partitions_it_moved(
    capsys: pytest.CaptureFixture[str], cluster: Sandbox, zk: KazooClient, created: int
) -> None:
    replicas = partitions(zk, TOPIC)
    moved = {p for p in replicas if state(zk, TOPIC, p)["leader"] != replicas[p][0]}
    assert moved, "after the restart some leaders are not preferred"  # the previous test left them so
    elected_ms = _now_ms()
    assert _cli(capsys, cluster, "elect", "preferred", "--topic", TOPIC, "--yes", "--wait") == 0
    wait_until(
        lambda: all(state(zk, TOPIC, p)["leader"] == replicas[p][0] for p in replicas),
        CLUSTER_TIMEOUT,
        "every leader to be the preferred one",
    )
    done_ms = _now_ms()
    changes = _all(_changes(capsys, cluster, "--topic", TOPIC))
    states = {c["partition"]: c for c in changes if c["kind"] == "partition_state"}
    for p in moved:
        assert elected_ms - SECOND_MS <= states[p]["at_ms"] <= done_ms + SECOND_MS, states[p]
        assert states[p]["leader"] == replicas[p][0]


def test_a_reassignment_end_and_a_deletion_are_dated(
    capsys: pytest.CaptureFixture[str], cluster: Sandbox, zk: KazooClient, tmp_path: Path
) -> None:
    topic = "changes-moved"
    assert (
        _cli(capsys, cluster, "topic", "create", topic, "--partitions", "2", "--replication-factor", "1", "--yes") == 0
    )
    wait_until(lambda: zk.exists(f"/brokers/topics/{topic}/partitions/1/state"), CLUSTER_TIMEOUT, "the topic's states")
    before = partitions(zk, topic)
    source = before[0][0]
    assert _cli(capsys, cluster, "reassign", "apply", "--move-off", str(source), "--topic", topic, "--yes") == 0
    wait_until(
        lambda: (
            all(source not in r for r in partitions(zk, topic).values()) and not zk.exists("/admin/reassign_partitions")
        ),
        CLUSTER_TIMEOUT,
        "the reassignment to complete",
    )
    done_ms = _now_ms()
    changes = _all(_changes(capsys, cluster, "--topic", topic))
    rewrite = next(c for c in changes if c["kind"] == "assignment_changed")
    assert rewrite["at_ms"] <= done_ms and done_ms - rewrite["at_ms"] < CLUSTER_TIMEOUT * 1000
    assert rewrite["at_ms"] == zk.exists(f"/brokers/topics/{topic}").mtime

    deleted_ms = _now_ms()
    assert _cli(capsys, cluster, "topic", "delete", topic, "--yes", "--wait") == 0
    wait_until(lambda: not zk.exists(f"/brokers/topics/{topic}"), CLUSTER_TIMEOUT, "the deletion to finish")
    out = _changes(capsys, cluster, "--topic", topic)
    assert out["count"] == 0  # a deleted topic leaves nothing, and kzc says so
    assert "deleted topic" in out["not_dated"]
    assert deleted_ms > rewrite["at_ms"]


async def test_the_timeline_screen_shows_the_burst_and_a_live_change_at_its_top(
    cluster: Sandbox, zk: KazooClient, created: int
) -> None:
    settings = ConnectionSettings(zookeeper=parse_zookeeper(cluster.info().zookeeper))
    app = KzcApp(settings, backend=ZkBackend(settings), warm_spark=False)
    async with app.run_test(size=(160, 48)) as pilot:
        await eventually(pilot, lambda: app.view is not None, 60, "the first view")
        await pilot.press("W")
        screen = await eventually(
            pilot, lambda: app.screen if isinstance(app.screen, TimelineScreen) else None, 10, "the timeline"
        )
        table = screen.query_one("#timeline", VirtualTable)
        await eventually(pilot, lambda: table.row_count > 0, 30, "dated changes")
        assert any(TOPIC in " ".join(r.cells) for r in table.visible_rows())
        # A topic created as kafka-topics --zookeeper did: the console sees it live.
        live_topic = "changes-live"
        assignment = json.dumps({"version": 1, "partitions": {"0": [1]}}).encode()
        await in_thread(lambda: zk.create(f"/brokers/topics/{live_topic}", assignment))

        def on_top() -> bool:
            return table.row_count > 0 and live_topic in " ".join(table.row_at(0).cells)

        await eventually(pilot, on_top, 30, "the live change at the top of the timeline")
        assert table.row_at(0).meanings == frozenset({"-live"}) or "live" in " ".join(table.row_at(0).cells)
