"""Every history question gives identical answers on the local engine (the reference) and on Spark, over a
synthetic history with churn, a broker restart, a gap and an offline partition, and across a fleet of clusters
in one store (``--cluster all``), and a moment of the store as ``kzc diff`` reads it, in-process and through the
command (one Spark session for the module: slow)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from cli.main import main
from core.history import observations
from core.history.diff import diff, state_at
from core.history.flapping import flapping, fleet_flapping
from core.history.isr import isr_history
from core.history.observations import Window, spark_fleet_observations
from core.history.schema import BROKER_LEFT, CONTROLLER, EVENTS, PARTITION, PARTITION_REMOVED, TRAFFIC
from core.history.store import Gap, HistoryStore
from core.history.traffic import history_traffic
from core.history.urp import fleet_urp, urp
from core.spark.session import LOCAL_DEFAULTS, start_session
from core.testdata.history import traffic_tick_rows, write_history


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    session = start_session("local[2]", dict(LOCAL_DEFAULTS))
    yield session
    session.stop()


@pytest.fixture(scope="module")
def window(tmp_path_factory: pytest.TempPathFactory) -> Window:
    root = tmp_path_factory.mktemp("history") / "store"
    info = write_history(root, partitions=200, days=1, snapshot_every_s=6 * 3600, seed=3)
    store = HistoryStore.open(root)
    middle = info.start_ms + 12 * 3_600_000
    store.record_gap(info.cluster, Gap(middle, middle + 600_000, "test gap"))
    # An offline spell: no leader, then back.
    offline = [
        {"ts_ms": middle + 1000, "seq": 1, "kind": PARTITION, "topic": "t00001", "partition": 0, "leader": -1,
         "leader_epoch": 9, "isr": [2], "replicas": [1, 2, 3]},
        {"ts_ms": middle + 61_000, "seq": 2, "kind": PARTITION, "topic": "t00001", "partition": 0, "leader": 2,
         "leader_epoch": 10, "isr": [2, 3, 1], "replicas": [1, 2, 3]},
    ]  # fmt: skip
    store.append(EVENTS, info.cluster, offline)
    return Window.of(store, info.cluster, info.start_ms + 3_600_000, info.end_ms)


def test_isr_is_identical_on_both_engines(window: Window, spark: Any) -> None:
    for topic in ("t00001", "t00007"):
        local = isr_history(window, topic)
        assert local.outages or local.leader_changes
        assert isr_history(window, topic, spark=spark).to_json() == local.to_json()


def test_flapping_is_identical_on_both_engines(window: Window, spark: Any) -> None:
    local = flapping(window, top=10)
    assert local.partitions and local.brokers
    assert flapping(window, top=10, spark=spark).to_json() == local.to_json()


@pytest.mark.parametrize("by", ["broker", "topic", "rack"])
def test_urp_is_identical_on_both_engines(window: Window, spark: Any, by: str) -> None:
    local = urp(window, by)
    assert local.rows
    assert urp(window, by, spark=spark).to_json() == local.to_json()


@pytest.fixture(scope="module")
def edges(tmp_path_factory: pytest.TempPathFactory) -> tuple[HistoryStore, str, int]:
    """A topic ``edge`` whose rows hit every rule's corner: a replica out at the partition's first row, every
    outage end (back, reassigned away, partition removed, open), several rows in one millisecond, a
    partition removed while a replica is out and then created again, an offline spell."""
    root = tmp_path_factory.mktemp("edges") / "store"
    info = write_history(root, partitions=20, days=1, snapshot_every_s=6 * 3600, seed=7)
    store = HistoryStore.open(root)
    t = info.start_ms + 3_600_000

    def row(at: int, partition: int, leader: int, epoch: int, isr: list[int], replicas: list[int]) -> dict[str, Any]:
        return {"ts_ms": t + at, "kind": PARTITION, "topic": "edge", "partition": partition, "leader": leader,
                "leader_epoch": epoch, "isr": isr, "replicas": replicas}  # fmt: skip

    rows = [
        row(0, 0, 1, 0, [1, 2], [1, 2, 3]), row(1000, 0, 1, 0, [1, 2, 3], [1, 2, 3]),
        row(2000, 0, 1, 0, [1], [1, 2, 3]), row(3000, 0, 1, 1, [1], [1, 4]), row(3000, 0, 1, 1, [1, 4], [1, 4]),
        row(4000, 0, -1, 2, [4], [1, 4]), row(5000, 0, 4, 3, [4, 1], [1, 4]),
        row(0, 1, 2, 0, [2, 3], [2, 3]), row(1000, 1, 2, 0, [2], [2, 3]),
        {"ts_ms": t + 2000, "kind": PARTITION_REMOVED, "topic": "edge", "partition": 1},
        row(3000, 1, 3, 0, [3], [3, 1]),
        row(1000, 2, 1, 0, [1, 2], [1, 2]), row(1000, 2, 1, 0, [1], [1, 2]), row(1000, 2, 1, 0, [1, 2], [1, 2]),
        row(4000, 2, 2, 1, [2], [1, 2]),
    ]  # fmt: skip
    rows.sort(key=lambda r: r["ts_ms"])
    store.append(EVENTS, info.cluster, [{**r, "seq": i + 1} for i, r in enumerate(rows)])
    return store, info.cluster, t


@pytest.mark.parametrize("since", [0, 1500], ids=["from the first row", "from between rows"])
def test_every_corner_of_the_rules_is_identical_on_both_engines(
    edges: tuple[HistoryStore, str, int], spark: Any, since: int
) -> None:
    store, cluster, t = edges
    window = Window.of(store, cluster, t + since, t + 3_600_000)
    local = isr_history(window, "edge")
    assert {o.end for o in local.outages} == {"back", "removed", "partition removed", "open"}
    assert any(c.new_leader == -1 for c in local.leader_changes)
    # The outage seen at the first row (its start unknown) ended before the later window's start.
    assert any(not o.left_known for o in local.outages) == (since == 0)
    assert isr_history(window, "edge", spark=spark).to_json() == local.to_json()
    assert flapping(window, top=1000, spark=spark).to_json() == flapping(window, top=1000).to_json()
    for by in ("broker", "topic", "rack"):
        assert urp(window, by, spark=spark).to_json() == urp(window, by).to_json(), by


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> list[Window]:
    """Three clusters in one store, each its own churn (seed); one has a gap."""
    root = tmp_path_factory.mktemp("fleet") / "store"
    infos = [
        write_history(root, partitions=100, days=1, snapshot_every_s=6 * 3600, cluster=f"c{i}", seed=10 + i)
        for i in range(3)
    ]
    store = HistoryStore.open(root)
    middle = infos[1].start_ms + 12 * 3_600_000
    store.record_gap("c1", Gap(middle, middle + 600_000, "test gap"))
    return [Window.of(store, info.cluster, info.start_ms + 3_600_000, info.end_ms) for info in infos]


def test_fleet_flapping_is_identical_on_both_engines(fleet: list[Window], spark: Any) -> None:
    local = fleet_flapping(fleet, top=1000)
    assert {r.key[0] for r in local.partitions} == {"c0", "c1", "c2"}
    assert fleet_flapping(fleet, top=1000, spark=spark).to_json() == local.to_json()


def test_fleet_flapping_ranks_each_clusters_own_counts(fleet: list[Window]) -> None:
    ranked = fleet_flapping(fleet, top=10_000)
    for window in fleet:
        alone = flapping(window, top=10_000)
        assert [(r.key[1:], r.counts) for r in ranked.partitions if r.key[0] == window.cluster] == [
            (r.key, r.counts) for r in alone.partitions
        ]
        assert [(r.key[1:], r.counts) for r in ranked.brokers if r.key[0] == window.cluster] == [
            (r.key, r.counts) for r in alone.brokers
        ]


@pytest.mark.parametrize("by", ["broker", "topic", "rack"])
def test_fleet_urp_is_identical_on_both_engines(fleet: list[Window], spark: Any, by: str) -> None:
    local = fleet_urp(fleet, by)
    assert {c for c, _ in local.rows} == {"c0", "c1", "c2"}
    assert fleet_urp(fleet, by, spark=spark).to_json() == local.to_json()


@pytest.mark.parametrize("by", ["broker", "topic", "rack"])
def test_fleet_urp_holds_each_clusters_own_rows(fleet: list[Window], by: str) -> None:
    ranked = fleet_urp(fleet, by)
    for window in fleet:
        assert [r for c, r in ranked.rows if c == window.cluster] == list(urp(window, by).rows)


@pytest.fixture(scope="module")
def moments(tmp_path_factory: pytest.TempPathFactory) -> tuple[HistoryStore, str, dict[str, int]]:
    """A store with every kind of row after its base snapshot (a partition and a broker gone, a new
    controller) and a gap; the moments a diff side can fall on."""
    root = tmp_path_factory.mktemp("moments") / "store"
    info = write_history(root, partitions=200, days=1, snapshot_every_s=6 * 3600, seed=5)
    store = HistoryStore.open(root)
    late = info.start_ms + 20 * 3_600_000
    store.append(EVENTS, info.cluster, [
        {"ts_ms": late, "seq": 1, "kind": PARTITION_REMOVED, "topic": "t00002", "partition": 3},
        {"ts_ms": late, "seq": 2, "kind": BROKER_LEFT, "broker": 4},
        {"ts_ms": late + 1000, "seq": 3, "kind": CONTROLLER, "broker": 2, "controller_epoch": 6},
    ])  # fmt: skip
    gap_from = info.start_ms + 21 * 3_600_000
    store.record_gap(info.cluster, Gap(gap_from, gap_from + 600_000, "test gap"))
    return store, info.cluster, {
        "base": info.start_ms, "churn": info.start_ms + 9 * 3_600_000 + 123_456, "after removals": late + 5000,
        "in the gap": gap_from + 60_000, "after the data": info.end_ms + 3_600_000,
    }  # fmt: skip


def test_a_moment_of_the_store_is_the_same_state_on_both_engines(
    moments: tuple[HistoryStore, str, dict[str, int]], spark: Any
) -> None:
    store, cluster, at = moments
    for what, moment in at.items():
        local = state_at(store, cluster, moment)
        assert state_at(store, cluster, moment, spark=spark) == local, what
    removed = state_at(store, cluster, at["after removals"])
    assert ("t00002", 3) not in removed.partitions and 4 not in removed.brokers and removed.controller == 2
    before = state_at(store, cluster, at["churn"])
    assert ("t00002", 3) in before.partitions and 4 in before.brokers and before.controller == 1
    assert diff(before, removed)


def test_a_moment_in_a_gap_or_after_the_data_says_so(moments: tuple[HistoryStore, str, dict[str, int]]) -> None:
    store, cluster, at = moments
    assert "in a recorded gap" in state_at(store, cluster, at["in the gap"]).name
    assert "test gap" in state_at(store, cluster, at["in the gap"]).name
    assert "after the store's data ends" in state_at(store, cluster, at["after the data"]).name
    assert "(" not in state_at(store, cluster, at["churn"]).name


def test_a_large_store_is_spread_over_more_spark_partitions_with_the_same_answers(
    fleet: list[Window], spark: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    size = sum(p.stat().st_size for w in fleet for p in w.event_files)
    monkeypatch.setattr(observations, "SPARK_PARTITION_BYTES", size // 20 + 1)
    assert spark_fleet_observations(spark, fleet).rdd.getNumPartitions() == 20
    assert fleet_flapping(fleet, top=1000, spark=spark).to_json() == fleet_flapping(fleet, top=1000).to_json()
    assert fleet_urp(fleet, "broker", spark=spark).to_json() == fleet_urp(fleet, "broker").to_json()


@pytest.fixture(scope="module")
def traffic_store(tmp_path_factory: pytest.TempPathFactory) -> tuple[HistoryStore, int]:
    """Two hours of ticks every 30 s over 40 partitions of 4 topics on 3 leaders, a few parts unknown."""
    store = HistoryStore.create(tmp_path_factory.mktemp("traffic") / "store")
    start = 1_800_000_000_000 - 1_800_000_000_000 % 3_600_000
    rows: list[dict[str, object]] = []
    for tick in range(240):
        rates: dict[tuple[str, int, int], float | None] = {
            (f"t{p % 4}", p, p % 3 + 1): (tick * 7 + p * 13) % 101 / 3 for p in range(40)
        }
        if tick % 17 == 0:
            rates[("t1", 1, 2)] = None
        rows += traffic_tick_rows(start + tick * 30_000, rates)
    store.append(TRAFFIC, "c1", rows)
    return store, start


@pytest.mark.parametrize("scope", [{}, {"topic": "t1"}, {"broker": 2}, {"topic": "nothing"}])
def test_traffic_is_identical_on_both_engines(
    traffic_store: tuple[HistoryStore, int], spark: Any, scope: dict[str, Any]
) -> None:
    store, start = traffic_store
    local = history_traffic(store, "c1", start, start + 2 * 3_600_000, **scope)
    assert len(local.hours) == (0 if scope.get("topic") == "nothing" else 2)
    assert history_traffic(store, "c1", start, start + 2 * 3_600_000, spark=spark, **scope).to_json() == local.to_json()


def test_kzc_diff_of_two_moments_is_the_same_on_both_engines(
    spark: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # kzc diff builds its session with getOrCreate, which hands it the module's warm one: it must not stop it.
    monkeypatch.setattr(spark, "stop", lambda: None)
    store = tmp_path / "store"
    for i in range(2):
        write_history(store, partitions=400, days=1, snapshot_every_s=6 * 3600, cluster=f"c{i}", seed=20 + i)
    start = Window.of(HistoryStore.open(store), "c0", 0, 2**62).start_ms
    early, late = start + 3_600_000, start + 20 * 3_600_000
    HistoryStore.open(store).append(EVENTS, "c0", [
        {"ts_ms": late - 1000, "seq": 1, "kind": PARTITION, "topic": "t00001", "partition": 0, "leader": 2,
         "leader_epoch": 99, "isr": [2], "replicas": [1, 2, 3]},
    ])  # fmt: skip
    answers = []
    for engine in ("local", "spark"):
        assert main(["diff", f"@{early}", f"@{late}", "--store", str(store), "--cluster", "c0", "--engine", engine,
                     "--spark-master", "local[1]", "--json"]) == 0  # fmt: skip
        answers.append(json.loads(capsys.readouterr().out))
    changed = {(d["kind"], d["subject"]): d["after"] for d in answers[0]["differences"]}
    assert changed[("isr", "t00001-0")] == "[2]" and changed[("leader", "t00001-0")] == "2"
    assert answers[1] == answers[0]
    assert answers[0]["a"].startswith("c0 at ") and answers[0]["configs_compared"] is False
