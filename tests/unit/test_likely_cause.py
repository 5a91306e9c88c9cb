"""The likely-cause line: the smallest explanation the affected partitions share (one broker missing from
every ISR, one rack, one topic), with ZooKeeper's evidence about the broker."""

from __future__ import annotations

from core.snapshot.likely_cause import likely_cause
from core.testdata.builder import broker, snapshot, state, topic


def test_nothing_affected_no_cause() -> None:
    assert likely_cause(snapshot(topics=[topic("t", {0: (1, 2)})])) is None


def test_one_registered_broker_missing_from_every_isr() -> None:
    cluster = snapshot(
        brokers=(1, 2, 3),
        topics=[
            topic("a", {0: (1, 2), 1: (2, 3)}, states={0: state(1, (1,)), 1: state(3, (3,))}),
            topic("b", {0: (2, 1, 3)}, states={0: state(1, (1, 3))}),
            topic("c", {0: (1, 3)}),  # healthy
        ],
    )
    cause = likely_cause(cluster)
    assert cause is not None and (cause.kind, cause.subject, cause.affected) == ("broker", "2", 3)
    assert cause.text.startswith(
        "3 of 3 under-replicated partitions lack broker 2 in their ISR; broker 2 is registered"
    )


def test_an_unregistered_broker_is_named_as_such() -> None:
    cluster = snapshot(brokers=(1, 3), topics=[topic("a", {0: (1, 2)}, states={0: state(1, (1,))})])
    cause = likely_cause(cluster)
    assert cause is not None and "broker 2 is not registered" in cause.text


def test_one_rack_when_no_single_broker_explains_it() -> None:
    cluster = snapshot(
        brokers=(broker(1, "r1"), broker(2, "r2"), broker(3, "r2"), broker(4, "r1")),
        topics=[topic("a", {0: (1, 2), 1: (4, 3)}, states={0: state(1, (1,)), 1: state(4, (4,))})],
    )
    cause = likely_cause(cluster)
    assert cause is not None and (cause.kind, cause.subject) == ("rack", "r2")
    assert "on rack r2 (brokers 2, 3)" in cause.text


def test_one_topic_when_neither_broker_nor_rack_does() -> None:
    cluster = snapshot(
        brokers=(broker(1, "r1"), broker(2, "r2"), broker(3, "r3")),
        topics=[topic("a", {0: (1, 2), 1: (2, 3)}, states={0: state(1, (1,)), 1: state(2, (2,))})],
    )
    cause = likely_cause(cluster)
    assert cause is not None and (cause.kind, cause.subject) == ("topic", "a")


def test_otherwise_the_broker_missing_most_often() -> None:
    cluster = snapshot(
        brokers=(broker(1, "r1"), broker(2, "r2"), broker(3, "r3")),
        topics=[
            topic("a", {0: (1, 2), 1: (1, 2)}, states={0: state(1, (1,)), 1: state(1, (1,))}),
            topic("b", {0: (2, 3)}, states={0: state(2, (2,))}),
        ],
    )
    cause = likely_cause(cluster)
    assert cause is not None and cause.kind == "partial" and cause.subject == "2" and cause.explained == 2
    assert cause.text.startswith("broker 2 is missing from the ISR of 2 of 3 under-replicated partitions")
