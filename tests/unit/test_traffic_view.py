"""core.traffic.view: rates by partition, topic, broker and log dir from two samples, each with its window,
read time and source; unknown with the reason (a broker down, a release without DescribeLogDirs, a leader
that moved, a log that went back), never a zero that means unknown."""

from __future__ import annotations

from core.brokers.logdirs import BrokerLogDirs, LogDir, ReplicaLog
from core.brokers.offsets import BrokerOffsets
from core.traffic.sample import Layout, Sample
from core.traffic.view import METRICS_UNKNOWN, Traffic

ENDPOINTS = {1: ("h", 1), 2: ("h", 2)}
LEADERS = {("a", 0): 1, ("a", 1): 2, ("b", 0): 1, ("c", 0): None}
LAYOUT = Layout(LEADERS, ENDPOINTS, {("c", 0): "no live leader (offline partition)"})


def _dirs(broker: int, at: int, sizes: dict[tuple[str, int], int], usable: int | None = None) -> BrokerLogDirs:
    replicas = tuple(ReplicaLog(t, p, s, 0, False) for (t, p), s in sizes.items())
    return BrokerLogDirs(broker, at, (LogDir(f"/d{broker}", 0, replicas, 10_000, usable),))


def _sample(
    at: int, hw: dict[tuple[str, int], int], size: dict[tuple[str, int], int], layout: Layout = LAYOUT
) -> Sample:
    offsets = {b: BrokerOffsets(b, at, {k: v for k, v in hw.items() if layout.leaders[k] == b}) for b in (1, 2)}
    dirs = {b: _dirs(b, at, {k: v for k, v in size.items() if layout.leaders.get(k) == b}, 3_600) for b in (1, 2)}
    return Sample.of(layout, offsets, dirs)


BEFORE = _sample(0, {("a", 0): 100, ("a", 1): 0, ("b", 0): 7}, {("a", 0): 1000, ("a", 1): 0, ("b", 0): 50})
AFTER = _sample(10_000, {("a", 0): 200, ("a", 1): 50, ("b", 0): 7}, {("a", 0): 3000, ("a", 1): 500, ("b", 0): 50})


def test_topics_sum_their_partitions_with_window_read_time_and_source() -> None:
    rows = {r["topic"]: r for r in (row.to_json() for row in Traffic(BEFORE, AFTER).topics())}
    assert rows["a"]["messages_in_per_s"] == 15.0 and rows["a"]["bytes_in_per_s"] == 250.0
    assert rows["a"]["window_s"] == 10.0 and rows["a"]["read_ms"] == 10_000
    assert rows["a"]["source"] == ["offsets", "log dirs"] and not rows["a"]["idle"]
    assert rows["b"]["messages_in_per_s"] == 0.0 and rows["b"]["idle"]
    # an offline partition: unknown with why, not zero
    assert rows["c"]["messages_in_per_s"] is None and not rows["c"]["idle"]
    assert rows["c"]["unknown"]["messages_in_per_s"] == "no live leader (offline partition)"
    for name in ("bytes_out_per_s", "produce_p99_ms", "fetch_p99_ms"):
        assert rows["a"][name] is None and rows["a"]["unknown"][name] == METRICS_UNKNOWN


def test_brokers_sum_what_they_lead_and_a_broker_down_is_unknown_with_why() -> None:
    down = BrokerOffsets(2, 10_000, unknown="broker 2: ListOffsets to h:2 failed: refused")
    after = Sample.of(LAYOUT, {**AFTER.offsets, 2: down}, AFTER.log_dirs)
    rows = {r.broker: r.to_json() for r in Traffic(BEFORE, after).brokers()}
    assert rows[1]["messages_in_per_s"] == 10.0 and rows[1]["leads"] == 2
    assert rows[2]["messages_in_per_s"] is None
    assert rows[2]["unknown"]["messages_in_per_s"] == "broker 2: ListOffsets to h:2 failed: refused"
    assert rows[2]["bytes_in_per_s"] == 50.0  # its log dirs still answered


def test_a_high_watermark_that_falls_restarts_the_partition_and_its_topic() -> None:
    after = _sample(10_000, {("a", 0): 5, ("a", 1): 50, ("b", 0): 7}, {("a", 0): 3000, ("a", 1): 500, ("b", 0): 50})
    part = {(r.topic, r.partition): r.to_json() for r in Traffic(BEFORE, after).partitions()}
    assert part[("a", 0)]["messages_in_per_s"] is None
    assert "went back from 100 to 5; the rate restarts" in part[("a", 0)]["unknown"]["messages_in_per_s"]
    assert part[("a", 1)]["messages_in_per_s"] == 5.0
    topic = {r.topic: r for r in Traffic(BEFORE, after).topics()}["a"]
    assert topic.messages_in is not None and topic.messages_in.per_s is None


def test_a_leader_that_moved_keeps_messages_but_not_bytes() -> None:
    moved = Layout({**LEADERS, ("a", 0): 2}, ENDPOINTS, LAYOUT.leaderless)
    after = _sample(
        10_000, {("a", 0): 200, ("a", 1): 50, ("b", 0): 7}, {("a", 0): 3000, ("a", 1): 500, ("b", 0): 50}, moved
    )
    row = {(r.topic, r.partition): r for r in Traffic(BEFORE, after).partitions()}[("a", 0)]
    assert row.broker == 2 and row.messages_in is not None and row.messages_in.per_s == 10.0
    assert row.bytes_in is not None and row.bytes_in.unknown == (
        "its leader moved from 1 to 2 in the window; the rate restarts"
    )


def test_log_dirs_show_used_growth_and_time_until_full() -> None:
    rows = {r.broker: r.to_json() for r in Traffic(BEFORE, AFTER).log_dirs()}
    one = rows[1]
    assert one["log_dir"] == "/d1" and one["used_bytes"] == 3050 and one["usable_bytes"] == 3_600
    assert one["bytes_in_per_s"] == 200.0 and one["growth_bytes_per_hour"] == 720_000.0
    assert one["full_in_s"] == 18.0 and one["full_in_unknown"] is None


def test_a_broker_without_describe_log_dirs_is_unknown_never_zero() -> None:
    why = "broker 2 has no DescribeLogDirs (Kafka 1.0.0+; its ApiVersions lacks api key 35)"
    dirs = {**AFTER.log_dirs, 2: BrokerLogDirs(2, 10_000, unknown=why)}
    traffic = Traffic(BEFORE, Sample.of(LAYOUT, AFTER.offsets, dirs))
    part = {(r.topic, r.partition): r.to_json() for r in traffic.partitions()}[("a", 1)]
    assert part["messages_in_per_s"] == 5.0 and part["bytes_in_per_s"] is None
    assert part["unknown"]["bytes_in_per_s"] == why
    row = {r.broker: r.to_json() for r in traffic.log_dirs()}[2]
    assert row["bytes_in_per_s"] is None and row["growth_bytes_per_hour"] is None and row["full_in_s"] is None
