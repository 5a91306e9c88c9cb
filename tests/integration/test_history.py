"""The history recorder on the sandbox: while it records, a broker is killed and restarted and a topic is
reassigned; ``kzc history isr`` then gives each replica's time out of the ISR within 1 s of what this test saw by
polling ZooKeeper itself, identically on both engines. A kill -9 of the recorder leaves a store that reads back
whole, and the next run records the gap; SIGTERM stops it with a final flush. ``kzc diff`` of two snapshot
files lists exactly the changes made between them.

Out-of-ISR spells shorter than a second (a reassignment's new replica catching up) may be seen by one observer
and not the other (the test polls every 20 ms, the live model coalesces 50 ms): only spells longer than 1 s are
matched both ways.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from kazoo.client import KazooClient

from cli.main import main
from core.history.recorder import CONNECTION_GAP
from core.history.schema import SNAPSHOTS, TABLES
from core.history.store import HistoryStore
from core.kafka.znodes.paths import state_path
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import admin_args, partitions, state, zk_args
from tests.integration.sandbox_tools import Poller, restart_zookeeper

TOPIC = "history-isr"
TOLERANCE_MS = 1000


class IsrPoller(Poller):
    """Polls the topic's assignment and partition states every 20 ms and keeps each replica's out-of-ISR spells
    (the first poll that saw it out, the first that saw it back)."""

    def __init__(self, zk: KazooClient, topic: str) -> None:
        super().__init__()
        self.zk, self.topic = zk, topic
        self.open: dict[tuple[int, int], int] = {}
        self.spells: list[tuple[int, int, int, int]] = []  # partition, replica, left, back
        self.isr: dict[int, list[int]] = {}

    def poll(self, now_ms: int) -> None:
        for partition, replicas in partitions(self.zk, self.topic).items():
            isr = state(self.zk, self.topic, partition)["isr"]
            self.isr[partition] = isr
            for replica in set(replicas) | {r for p, r in self.open if p == partition}:
                key = (partition, replica)
                out = replica in replicas and replica not in isr
                if out and key not in self.open:
                    self.open[key] = now_ms
                elif not out and key in self.open:
                    self.spells.append((partition, replica, self.open.pop(key), now_ms))


def recorder(box: Sandbox, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "cli.main", "record", "--out", str(out), "--flush-every", "1s", *zk_args(box)]
    return subprocess.Popen([*command, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.fixture(scope="module")
def recorded(sandbox: Sandbox, zk: KazooClient, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Record while broker 2 is killed and restarted and the topic moves off broker 3; kill -9 the recorder, run
    it again, stop it with SIGTERM. What the poller saw, the store and the recorders' fates."""
    out = tmp_path_factory.mktemp("history") / "store"
    assert main(["topic", "create", TOPIC, "--replica-assignment", "1:2,2:3,3:1", "--yes", *zk_args(sandbox)]) == 0
    first = recorder(sandbox, out)
    try:
        wait_until(lambda: (out / SNAPSHOTS).exists() and HistoryStore(out).clusters(), 60, "the first snapshot")
        cluster = HistoryStore(out).clusters()[0]
        with IsrPoller(zk, TOPIC) as poller:
            wait_until(lambda: len(poller.isr) == 3, 10, "the poller's first read")
            sandbox.kill_broker(2)
            wait_until(lambda: all(2 not in poller.isr[p] for p in (0, 1)), 120, "broker 2 to leave the ISRs")
            sandbox.start_broker(2)
            wait_until(lambda: all(2 in poller.isr[p] for p in (0, 1)), 120, "broker 2 to rejoin the ISRs")
            assert main(["reassign", "apply", "--move-off", "3", "--topic", TOPIC, "--yes", *admin_args(sandbox)]) == 0
            wait_until(
                lambda: all(
                    3 not in r and sorted(poller.isr[p]) == sorted(r) for p, r in partitions(zk, TOPIC).items()
                ),
                120,
                "the reassignment to finish",
            )
            wait_until(lambda: not poller.open, 30, "every replica back in its ISR")
        # Let a flush cover the last change, then kill -9 while a burst of changes is being recorded.
        flushed_before = HistoryStore(out).flushed_ms(cluster) or 0
        wait_until(lambda: (HistoryStore(out).flushed_ms(cluster) or 0) > poller.spells[-1][3] + 500, 30, "a flush")
        assert main(["topic", "create", f"{TOPIC}-burst", "--partitions", "20", "--replication-factor", "2", "--yes",
                     *zk_args(sandbox)]) == 0  # fmt: skip
        first.send_signal(signal.SIGKILL)
        first.wait(30)
        killed_flush = HistoryStore(out).flushed_ms(cluster)
        readable = all(pq.read_table(p) is not None for t in TABLES for p in HistoryStore(out).files(t, cluster))
        second = recorder(sandbox, out)
        wait_until(lambda: HistoryStore(out).gaps(cluster), 60, "the restart's gap")
        second.send_signal(signal.SIGTERM)
        code = second.wait(30)
        yield {
            "out": out, "cluster": cluster, "spells": poller.spells, "killed_flush": killed_flush,
            "flushed_before": flushed_before, "readable": readable, "second_code": code,
            "second_err": second.stderr.read().decode() if second.stderr else "",
        }  # fmt: skip
    finally:
        for process in (first,):
            if process.poll() is None:
                process.kill()


def _isr(capsys: pytest.CaptureFixture[str], recorded: dict[str, Any], engine: str) -> dict[str, Any]:
    code, out, err = run(
        capsys, "history", "isr", "--topic", TOPIC, "--since", "1h", "--store", str(recorded["out"]),
        "--cluster", recorded["cluster"], "--engine", engine, "--json",
    )  # fmt: skip
    assert code == 0, err
    assert isinstance(out, dict)
    return {k: v for k, v in out.items() if k not in ("since_ms", "until_ms")}  # "now" differs between the runs


def test_each_replica_out_of_the_isr_is_given_within_a_second_of_what_zookeeper_showed_on_both_engines(
    recorded: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    local = _isr(capsys, recorded, "local")
    assert _isr(capsys, recorded, "spark") == local
    outages = local["outages"]
    seen = [s for s in recorded["spells"] if s[3] - s[2] > TOLERANCE_MS]
    assert any(r == 2 for _, r, _, _ in seen), recorded["spells"]
    for partition, replica, left, back in seen:
        match = [
            o for o in outages if (o["partition"], o["replica"]) == (partition, replica)
            and abs(o["left_ms"] - left) <= TOLERANCE_MS and o["back_ms"] is not None
            and abs(o["back_ms"] - back) <= TOLERANCE_MS
        ]  # fmt: skip
        assert len(match) == 1, (partition, replica, left, back, outages)
    for o in outages:
        if o["back_ms"] is not None and o["back_ms"] - o["left_ms"] > TOLERANCE_MS + 500:
            assert any((p, r) == (o["partition"], o["replica"]) for p, r, _, _ in seen), o
    assert any(c["old_leader"] == 2 for c in local["leader_changes"]) or any(
        c["new_leader"] == 2 for c in local["leader_changes"]
    ), local["leader_changes"]


def test_a_kill_9_leaves_a_whole_store_and_the_next_run_records_the_gap(recorded: dict[str, Any]) -> None:
    assert recorded["readable"]
    store = HistoryStore.open(recorded["out"])
    [gap] = store.gaps(recorded["cluster"])
    assert gap.from_ms == recorded["killed_flush"]
    assert "recorder not running" in gap.reason
    for table in TABLES:
        for path in store.files(table, recorded["cluster"]):
            assert not path.name.startswith(".")
            pq.read_table(path)
    assert not [p for p in Path(recorded["out"]).rglob(".*.tmp")], "temporary files left after the restart"


def test_sigterm_stops_the_recorder_with_a_final_flush(recorded: dict[str, Any]) -> None:
    assert recorded["second_code"] == 130, recorded["second_err"]
    store = HistoryStore.open(recorded["out"])
    [gap] = store.gaps(recorded["cluster"])
    assert (store.flushed_ms(recorded["cluster"]) or 0) >= gap.to_ms


def test_diff_of_two_snapshot_files_lists_exactly_the_changes_made(
    sandbox: Sandbox, zk: KazooClient, tmp_path: Path, unique_name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    moved, added = f"{unique_name}-m", f"{unique_name}-a"
    assert main(["topic", "create", moved, "--replica-assignment", "1:2", "--yes", *zk_args(sandbox)]) == 0
    # The controller writes the state znode after the create returns: until then there is none to read.
    wait_until(lambda: zk.exists(state_path(moved, 0)) and sorted(state(zk, moved, 0)["isr"]) == [1, 2], 60, "in sync")
    before, after = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    leader = state(zk, moved, 0)["leader"]
    assert main(["snapshot", "-o", str(before), *zk_args(sandbox)]) == 0
    assert (
        main(["topic", "create", added, "--partitions", "2", "--replication-factor", "1", "--yes", *zk_args(sandbox)])
        == 0
    )
    assert main(["config", "set", moved, "retention.ms=3600000", "--yes", *admin_args(sandbox)]) == 0
    assert main(["reassign", "apply", "--move-off", "2", "--topic", moved, "--yes", *admin_args(sandbox)]) == 0
    wait_until(
        lambda: (
            2 not in partitions(zk, moved)[0] and sorted(state(zk, moved, 0)["isr"]) == sorted(partitions(zk, moved)[0])
        ),
        120,
        "the reassignment to finish",
    )
    assert main(["snapshot", "-o", str(after), *zk_args(sandbox)]) == 0
    capsys.readouterr()
    code, out, err = run(capsys, "diff", str(before), str(after), "--json")
    assert code == 0, err
    got = [(d["kind"], d["subject"]) for d in out["differences"]]
    expected = [("topic_added", added), ("replicas", f"{moved}-0"), ("isr", f"{moved}-0"),
                ("config", f"{moved} retention.ms")]  # fmt: skip
    if state(zk, moved, 0)["leader"] != leader:
        expected.insert(2, ("leader", f"{moved}-0"))
    assert got == expected, out["differences"]
    assert out["configs_compared"] is True


def test_a_zookeeper_outage_is_a_recorded_gap_followed_by_a_full_snapshot(sandbox: Sandbox, tmp_path: Path) -> None:
    out = tmp_path / "store"
    process = recorder(sandbox, out)
    try:
        wait_until(lambda: HistoryStore(out).clusters(), 60, "the first snapshot")
        store = HistoryStore(out)
        cluster = store.clusters()[0]
        restart_zookeeper(sandbox, down_for=2.0)
        gaps = wait_until(lambda: store.gaps(cluster), 90, "the outage's gap")
        [gap] = gaps
        assert gap.reason == CONNECTION_GAP
        assert gap.to_ms - gap.from_ms >= 2000
        moments = {row["ts_ms"] for row in store.read(SNAPSHOTS, cluster).to_pylist()}
        assert gap.to_ms in moments, "no full snapshot right after the gap"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 130
