"""core.changes.timeline: what the znode stats of a snapshot date, and how bursts read."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from core.changes.timeline import Change, ChangeKind, bursts, dated_changes, select
from core.human_time import parse_duration
from core.snapshot.model import StateStamp, TopicEntry, ZnodeTimes
from core.testdata import builder as b

T0 = b.NOW_MS - 3_600_000


def _near_t0(changes: list[Change]) -> list[Change]:
    """The changes of the scripted moment (the builder dates every other znode a minute before NOW_MS)."""
    return [c for c in select(changes, since_ms=T0 - 1000) if c.at_ms <= T0 + 10_000]


def _stamped(topic: TopicEntry, at_ms: int, version: int = 3, step_ms: int = 10) -> TopicEntry:
    stamps = {p: StateStamp(at_ms + i * step_ms, version) for i, p in enumerate(topic.partition_ids)}
    return replace(topic, state_stamps=MappingProxyType(stamps))


def _failover_snapshot() -> object:
    """Broker 2 died at T0: every partition it hosts lost it from the ISR within a second."""
    lost = b.topic(
        "orders",
        {0: (1, 2), 1: (2, 3), 2: (3, 2)},
        states={0: b.state(1, (1,)), 1: b.state(3, (3,)), 2: b.state(3, (3,))},
    )
    untouched = b.topic("audit", {0: (1, 3)})
    return b.snapshot(
        brokers=(1, 3),
        topics=[_stamped(lost, T0), _stamped(untouched, T0 - 7_200_000, version=0)],
        controller_times=ZnodeTimes(5, 5, T0 - 86_400_000, T0 - 86_400_000, 0),
    )


def test_a_broker_failure_reads_as_one_burst_naming_the_broker_and_the_partition_count() -> None:
    snapshot = _failover_snapshot()
    groups = bursts(_near_t0(dated_changes(snapshot)))  # type: ignore[arg-type]
    assert len(groups) == 1
    burst = groups[0]
    assert burst.shared_out_of_isr == (2,)
    assert len(burst.changes) == 3
    assert "leader/ISR changed on 3 partition(s), all 3 without broker 2 in their ISR now" in burst.text
    assert burst.start_ms == T0 and burst.end_ms == T0 + 20


def test_each_partition_state_is_dated_by_its_mtime_with_its_write_count() -> None:
    changes = [c for c in dated_changes(_failover_snapshot()) if c.kind is ChangeKind.PARTITION_STATE]  # type: ignore[arg-type]
    orders1 = next(c for c in changes if c.topic == "orders" and c.partition == 1)
    assert orders1.at_ms == T0 + 10
    assert orders1.out_of_isr == (2,)
    assert orders1.leader == 3
    assert orders1.writes == 4
    assert orders1.source == "/brokers/topics/orders/partitions/1/state mtime"
    assert "only" in orders1.limit


def test_broker_start_controller_election_and_topic_creation_are_dated_from_ctime() -> None:
    snapshot = _failover_snapshot()
    changes = dated_changes(snapshot)  # type: ignore[arg-type]
    kinds = {c.kind for c in changes}
    assert {ChangeKind.BROKER_REGISTERED, ChangeKind.CONTROLLER_ELECTED, ChangeKind.TOPIC_CREATED} <= kinds
    controller = next(c for c in changes if c.kind is ChangeKind.CONTROLLER_ELECTED)
    assert controller.at_ms == T0 - 86_400_000
    assert "broker 1 became the controller" in controller.text
    assert changes == sorted(changes, key=lambda c: (-c.at_ms, c.text))


def test_select_filters_by_time_topic_and_broker() -> None:
    changes = dated_changes(_failover_snapshot())  # type: ignore[arg-type]
    assert all(c.topic == "audit" for c in select(changes, topic="audit"))
    on_2 = select(changes, broker=2)
    assert on_2 and all(2 in c.brokers for c in on_2)
    assert all(c.at_ms >= T0 for c in select(changes, since_ms=T0))


def test_a_rolling_restart_step_reads_as_full_isr_after_the_broker_registered() -> None:
    back = b.topic("orders", {0: (1, 2), 1: (2, 3)})
    restarted = replace(b.broker(2), times=ZnodeTimes(200, 200, T0, T0, 0))
    snapshot = b.snapshot(brokers=(1, restarted, 3), topics=[_stamped(back, T0 + 1500)])
    (burst,) = bursts(_near_t0(dated_changes(snapshot)))
    assert burst.text.startswith("broker 2 registered")
    assert "all 2 with every replica in the ISR now" in burst.text


def test_changes_far_apart_are_separate_bursts_newest_first() -> None:
    early = _stamped(b.topic("a", {0: (1, 2)}), T0)
    late = _stamped(b.topic("c", {0: (1, 2)}), T0 + 60_000)
    snapshot = b.snapshot(topics=[early, late])
    groups = bursts([c for c in dated_changes(snapshot) if c.kind is ChangeKind.PARTITION_STATE])
    assert [g.start_ms for g in groups] == [T0 + 60_000, T0]


def test_json_carries_the_source_and_the_limit() -> None:
    (burst,) = bursts(_near_t0(dated_changes(_failover_snapshot())))  # type: ignore[arg-type]
    data = burst.to_json()
    assert data["count"] == 3
    first = data["changes"][0]  # type: ignore[index]
    assert {"at_ms", "kind", "text", "source", "limit", "out_of_isr"} <= set(first)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90.0),
        ("90s", 90.0),
        ("15m", 900.0),
        ("1h", 3600.0),
        ("7d", 604_800.0),
        ("1h30m", 5400.0),
        ("2w", 1_209_600.0),
    ],
)
def test_parse_duration_reads_what_people_type(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "h", "1x", "-5", "5h3", "nan", "1..5h"])
def test_parse_duration_refuses_anything_else_with_the_text(text: str) -> None:
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)
