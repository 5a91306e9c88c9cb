"""core.snapshot.sizes: partition size = its leader's replica, on disk = over all replicas, topic sums, broker
totals; unknown with the reason where a broker cannot say; the last good read kept, marked stale."""

from __future__ import annotations

from core.brokers.logdirs import KAFKA_STORAGE_ERROR, BrokerLogDirs, LogDir, ReplicaLog
from core.snapshot.sizes import Size, SizeBook, SizesView, partition_size
from core.testdata.builder import NOW_MS, snapshot, state, topic

CLUSTER = snapshot(
    brokers=(1, 2, 3),
    topics=[
        topic("t", {0: (1, 2), 1: (2, 3)}, states={0: state(1, (1, 2)), 1: state(2, (2, 3))}),
        topic("u", {0: (3,)}),
    ],
)


def _read(broker: int, *replicas: tuple[str, int, int], future: tuple[str, int, int] | None = None) -> BrokerLogDirs:
    logs = [ReplicaLog(t, p, size, 0, False) for t, p, size in replicas]
    if future is not None:
        logs.append(ReplicaLog(future[0], future[1], future[2], 0, True))
    return BrokerLogDirs(broker, NOW_MS, (LogDir(f"/d/{broker}", 0, tuple(logs)),))


READS = {
    1: _read(1, ("t", 0, 100)),
    2: _read(2, ("t", 0, 90), ("t", 1, 50), future=("u", 0, 999)),  # the future replica is not counted
    3: _read(3, ("t", 1, 40), ("u", 0, 7)),
}


def test_a_partition_is_its_leaders_replica_and_on_disk_is_every_replica() -> None:
    view = SizesView.of(READS, NOW_MS)
    assert partition_size(CLUSTER, view, CLUSTER.topics["t"], 0) == Size(100, 190)
    assert partition_size(CLUSTER, view, CLUSTER.topics["t"], 1) == Size(50, 90)


def test_a_topic_sums_its_partitions_and_brokers_total_their_online_dirs() -> None:
    view = SizesView.of(READS, NOW_MS)
    assert view.topics(CLUSTER) == {"t": Size(150, 280), "u": Size(7, 7)}
    assert [view.broker_total(b) for b in (1, 2, 3, 4)] == [100, 140, 47, None]


def test_a_broker_that_cannot_say_makes_what_it_holds_unknown_with_its_reason() -> None:
    why = "broker 3 has no DescribeLogDirs (Kafka 1.0.0+; its ApiVersions lacks api key 35)"
    view = SizesView.of({**READS, 3: BrokerLogDirs(3, NOW_MS, unknown=why)}, NOW_MS)
    assert view.topic(CLUSTER, CLUSTER.topics["t"]) == Size(150, None, f"partition 1: {why}")
    assert view.topic(CLUSTER, CLUSTER.topics["u"]) == Size(None, None, f"partition 0: {why}")
    assert view.broker_total(3) is None
    assert view.problems() == [why]


def test_no_leader_no_size_but_the_replicas_on_disk() -> None:
    dead = snapshot(brokers=(1, 2), topics=[topic("t", {0: (3, 1)}, states={0: state(3, (3,))})])
    view = SizesView.of({1: _read(1, ("t", 0, 5)), 2: _read(2)}, NOW_MS)
    unknown = Size(None, None, "broker 3 was not asked (not registered)")
    assert partition_size(dead, view, dead.topics["t"], 0) == unknown


def test_a_replica_on_an_offline_dir_holds_nothing_there() -> None:
    offline = BrokerLogDirs(2, NOW_MS, (LogDir("/d/2a", 0, ()), LogDir("/d/2b", KAFKA_STORAGE_ERROR)))
    view = SizesView.of({**READS, 2: offline}, NOW_MS)
    assert partition_size(CLUSTER, view, CLUSTER.topics["t"], 0) == Size(100, 100)


def test_the_book_keeps_the_last_good_read_marked_stale_with_the_reason() -> None:
    book = SizeBook()
    book.merge(READS, NOW_MS)
    failed = BrokerLogDirs(2, NOW_MS + 30_000, unknown="broker 2: DescribeLogDirs to 127.0.0.1:9093 failed: timed out")
    view = book.merge({1: READS[1], 2: failed}, NOW_MS + 30_000)
    assert view.brokers[2].stale == failed.unknown and view.brokers[2].read_ms == NOW_MS
    assert view.broker_total(2) == 140  # its last good numbers
    assert view.brokers[3].stale == "broker 3 is not registered"
    assert view.problems()[0].startswith("broker 2: stale since ")


def test_sizes_age_into_stale_once_no_read_finishes() -> None:
    view = SizesView.of(READS, NOW_MS)
    assert view.aged(NOW_MS + 60_000, 90) is view
    old = view.aged(NOW_MS + 120_000, 90)
    assert all(r.stale == "no read has finished for 2m 0s" for r in old.brokers.values())
    assert old.footer(NOW_MS + 120_000).startswith("sizes ") and "stale since" in old.footer(NOW_MS + 120_000)


def test_a_view_never_read_says_so() -> None:
    assert SizesView().footer(NOW_MS) == "sizes: reading…"
    assert SizesView(notes=("a recording has no brokers",)).footer(NOW_MS) == "sizes: a recording has no brokers"


def test_a_topic_is_exactly_the_sum_of_its_partitions() -> None:
    from core.testdata.log_dirs import synthetic_log_dirs
    from core.testdata.snapshots import synthetic_snapshot

    cluster = synthetic_snapshot(topics=200, partitions_per_topic=4, dead_brokers=(6,))
    reads = synthetic_log_dirs(cluster, NOW_MS, offline={2: (1,)}, unknown={3: "broker 3: timed out"})
    view = SizesView.of(reads, NOW_MS)
    for name, entry in cluster.topics.items():
        parts = [partition_size(cluster, view, entry, p) for p in entry.partition_ids]
        sizes = [p.size for p in parts]
        disks = [p.on_disk for p in parts]
        one = view.topic(cluster, entry)
        assert one.size == (None if None in sizes else sum(s for s in sizes if s is not None)), name
        assert one.on_disk == (None if None in disks else sum(d for d in disks if d is not None)), name
        assert (one.unknown is None) == all(p.unknown is None for p in parts), name
