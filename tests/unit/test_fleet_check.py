"""The fleet's own findings (``core.fleet.check.fleet_findings``) on built snapshots: mirrors that differ, a
release left behind, broker ids in two clusters, one cluster listed twice."""

from __future__ import annotations

from core.fleet.check import BROKER_ID_SHARED, LISTED_TWICE, MIRROR_DIFFERS, RELEASE_BEHIND, fleet_findings
from core.kafka.znodes.brokers import releases_of_registration
from core.kafka.znodes.cluster_wide import ClusterId
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.testdata.builder import broker, config, snapshot, topic

RF1 = {0: [1]}
RF1X3 = {0: [1], 1: [1], 2: [1]}


def cluster(
    n: int, brokers: tuple[int, ...] = (1,), version: int = 5, topics: tuple[TopicEntry, ...] = ()
) -> ClusterSnapshot:
    return snapshot(
        brokers=[broker(b, version=version) for b in brokers], cluster_id=ClusterId("1", f"cluster-{n}"), topics=topics
    )


def test_a_topic_in_two_clusters_with_other_partition_counts_or_configs_is_a_mirror_that_differs() -> None:
    a = cluster(
        1, topics=(topic("orders", RF1), topic("same", RF1), topic("conf", RF1, topic_config=config(retention_ms="1")))
    )
    b = cluster(2, brokers=(4,), topics=(topic("orders", RF1X3), topic("same", RF1), topic("conf", RF1)))
    found = {(f.check, f.topic): f for f in fleet_findings({"a": a, "b": b})}
    assert set(found) == {(MIRROR_DIFFERS, "orders"), (MIRROR_DIFFERS, "conf")}
    orders = found[(MIRROR_DIFFERS, "orders")]
    assert orders.contexts == ("a", "b") and dict(orders.evidence)["partitions"] == (1, 3)
    assert "partition counts 1 in a, 3 in b" in orders.detail
    assert dict(found[(MIRROR_DIFFERS, "conf")].evidence)["config_keys"] == ("retention.ms",)


def test_the_one_cluster_on_an_older_registration_than_every_other_is_left_behind() -> None:
    found = fleet_findings({"old": cluster(1, (1,), 4), "new": cluster(2, (2,), 5), "newer": cluster(3, (3,), 5)})
    (behind,) = [f for f in found if f.check == RELEASE_BEHIND]
    assert behind.contexts == ("old",) and dict(behind.evidence) == {"registration_version": 4, "others": (5,)}
    assert f"register as Kafka {releases_of_registration(4)} (registration v4)" in behind.detail
    same = fleet_findings({"a": cluster(1, (1,)), "b": cluster(2, (2,))})
    assert not [f for f in same if f.check == RELEASE_BEHIND]


def test_broker_ids_in_two_clusters_name_them_and_a_cluster_listed_twice_is_compared_once() -> None:
    a, b = cluster(1, (1, 2)), cluster(2, (2, 3))
    found = fleet_findings({"a": a, "a-again": a, "b": b})
    assert [(f.check, f.contexts, f.broker) for f in found] == [
        (LISTED_TWICE, ("a", "a-again"), None),
        (BROKER_ID_SHARED, ("a", "b"), 2),
    ]
