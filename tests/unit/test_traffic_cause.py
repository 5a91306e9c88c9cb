"""core.traffic.cause: leader skew, key skew, a disk full within a day and producers that stopped, each with
its numbers; an unknown figure never makes a finding."""

from __future__ import annotations

from core.brokers.logdirs import BrokerLogDirs, LogDir, ReplicaLog
from core.brokers.offsets import BrokerOffsets
from core.human_time import clock_text
from core.traffic.cause import StoppedProducers, load_findings
from core.traffic.sample import Layout, Sample
from core.traffic.view import Traffic

LAYOUT = Layout({("hot", 0): 1, ("hot", 1): 2, ("hot", 2): 2}, {1: ("h", 1), 2: ("h", 2)})


def _sample(at: int, hw: dict[int, int], size: dict[int, int], usable: int = 10**12, layout: Layout = LAYOUT) -> Sample:
    leaders = layout.leaders
    offsets = {b: BrokerOffsets(b, at, {k: hw[k[1]] for k, lb in leaders.items() if lb == b}) for b in (1, 2)}
    dirs = {
        b: BrokerLogDirs(
            b,
            at,
            (
                LogDir(
                    "/d",
                    0,
                    tuple(ReplicaLog(k[0], k[1], size[k[1]], 0, False) for k, lb in leaders.items() if lb == b),
                    10**13,
                    usable,
                ),
            ),
        )
        for b in (1, 2)
    }
    return Sample.of(layout, offsets, dirs)


def test_one_partition_taking_most_of_its_topic_and_one_leader_most_bytes_are_named_with_numbers() -> None:
    before = _sample(0, {0: 0, 1: 0, 2: 0}, {0: 0, 1: 0, 2: 0})
    after = _sample(10_000, {0: 900, 1: 50, 2: 50}, {0: 90_000, 1: 5_000, 2: 5_000})
    found = {f.kind: f for f in load_findings(Traffic(before, after))}
    assert found["key_skew"].subject == "hot-0"
    assert (
        found["key_skew"].text == "key skew: hot-0 takes 90% of hot's messages in (90.0 of 100.0/s over 3 partitions)"
    )
    assert found["leader_skew"].subject == "1" and found["leader_skew"].numbers["share"] == 0.9
    assert "disk_full" not in found


def test_the_group_offsets_topic_on_one_partition_is_kafka_s_design_not_key_skew() -> None:
    # One consumer group commits to the one __consumer_offsets partition its id hashes to (seen on make demo).
    layout = Layout({("__consumer_offsets", p): 1 + p % 2 for p in range(3)}, LAYOUT.endpoints)
    before = _sample(0, {0: 0, 1: 0, 2: 0}, {0: 0, 1: 0, 2: 0}, layout=layout)
    after = _sample(10_000, {0: 0, 1: 0, 2: 500}, {0: 0, 1: 0, 2: 50_000}, layout=layout)
    assert not [f for f in load_findings(Traffic(before, after)) if f.kind == "key_skew"]


def test_a_disk_full_within_a_day_and_producers_that_stopped() -> None:
    first = _sample(0, {0: 0, 1: 0, 2: 0}, {0: 0, 1: 0, 2: 0}, usable=3_600_000)
    second = _sample(10_000, {0: 100, 1: 100, 2: 100}, {0: 10_000, 1: 10_000, 2: 10_000}, usable=3_600_000)
    third = _sample(20_000, {0: 100, 1: 100, 2: 100}, {0: 10_000, 1: 10_000, 2: 10_000}, usable=3_600_000)
    full = [f for f in load_findings(Traffic(first, second)) if f.kind == "disk_full"]
    assert [f.subject for f in full] == ["1:/d", "2:/d"]
    assert full[0].text.startswith(
        "disk full within a day: broker 1's log dir /d is full in 1h 0m at 3,600,000 bytes/hour"
    )
    producers = StoppedProducers()
    assert producers.update(Traffic(first, second)) == []
    fourth = _sample(30_000, {0: 100, 1: 100, 2: 100}, {0: 10_000, 1: 10_000, 2: 10_000})
    assert producers.update(Traffic(second, third))[0].numbers["idle_s"] == 10.0
    (stopped,) = producers.update(Traffic(third, fourth))  # still idle: it holds
    assert (
        stopped.text == f"producers stopped: hot took 30.0 messages/s until {clock_text(10_000)} and none since (20s)"
    )
    assert stopped.numbers == {"messages_in_per_s_before": 30.0, "stopped_at_ms": 10_000, "idle_s": 20.0}
    gone = Sample.of(Layout({}, LAYOUT.endpoints), {}, {})
    assert producers.update(Traffic(fourth, gone)) == []  # deleted: forgotten


def test_an_unknown_figure_makes_no_finding() -> None:
    before = _sample(0, {0: 0, 1: 0, 2: 0}, {0: 0, 1: 0, 2: 0})
    after = _sample(10_000, {0: 900, 1: 50, 2: 50}, {0: 90_000, 1: 5_000, 2: 5_000})
    down = BrokerOffsets(2, 10_000, unknown="broker 2: ListOffsets to h:2 failed: timed out")
    broken = Sample.of(LAYOUT, {**after.offsets, 2: down}, after.log_dirs)
    kinds = {f.kind for f in load_findings(Traffic(before, broken))}
    assert "key_skew" not in kinds  # hot-1 and hot-2 are unknown: 90% of what is known is not 90% of the topic
