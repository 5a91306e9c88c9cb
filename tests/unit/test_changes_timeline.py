"""core.changes.timeline: what the znode stats of a snapshot date, and how bursts read."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest

from core.changes.live import FactKind, HealthFact, LiveFact, event_fact
from core.changes.timeline import Change, ChangeKind, LiveLine, bursts, dated_changes, select, with_live
from core.human_time import parse_duration, parse_moment
from core.live.live_event import EventKind
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


# ---- live events: summarised by what they state, and each change once -------------------------------------


def _health(urp: int, lacking: tuple[int, ...] = (), offline: int = 0) -> LiveFact:
    return LiveFact(FactKind.HEALTH, health=HealthFact(offline, urp, 0, lacking))


def test_an_outage_seen_live_reads_as_the_broker_that_left_and_the_health_it_left() -> None:
    live = [
        LiveLine(T0, "broker 2 left (kafka-2:9092)", fact=LiveFact(FactKind.BROKER_LEFT, 2)),
        LiveLine(T0 + 40, "orders-1: leader 2 -> 3", topic="orders"),
        LiveLine(T0 + 80, "health: 0 offline, 9 under-replicated, 0 under min ISR", fact=_health(9, (2,))),
        LiveLine(T0 + 900, "health: 0 offline, 15 under-replicated, 0 under min ISR", fact=_health(15, (2,))),
    ]
    (burst,) = bursts(with_live([], live))
    assert burst.text == (
        "broker 2 left (kafka-2:9092); 15 partitions under-replicated, all without broker 2; orders-1: leader 2 -> 3"
    )


def test_many_other_live_events_are_counted_and_a_healthy_end_is_said() -> None:
    live = [LiveLine(T0 + n, f"orders-{n}: leader 2 -> 3") for n in range(5)]
    live.append(LiveLine(T0 + 10, "broker 2 registered (kafka-2:9092)", fact=LiveFact(FactKind.BROKER_REGISTERED, 2)))
    live.append(LiveLine(T0 + 20, "health: 0 offline, 0 under-replicated, 0 under min ISR", fact=_health(0)))
    (burst,) = bursts(with_live([], live))
    assert burst.text == (
        "broker 2 registered (kafka-2:9092); no partition under-replicated or offline; 5 other live event(s)"
    )
    assert "live event(s)" not in bursts(with_live([], live[:1]))[0].text


def test_a_restarted_brokers_registration_seen_live_is_listed_once() -> None:
    # The live model dates a registration it saw live when it laid it over (just after the event).
    restarted = replace(b.broker(2), times=ZnodeTimes(200, 200, T0 + 60, T0 + 60, 0))
    dated = dated_changes(b.snapshot(brokers=(1, restarted, 3)))
    live = [LiveLine(T0, "broker 2 registered (kafka-2:9092)", fact=LiveFact(FactKind.BROKER_REGISTERED, 2))]
    merged = with_live(dated, live)
    about_2 = [c for c in merged if c.at_ms >= T0 - 1000 and "broker 2 registered" in c.text]
    assert [c.kind for c in about_2] == [ChangeKind.LIVE]
    assert any(c.kind is ChangeKind.BROKER_REGISTERED and c.brokers == (1,) for c in merged)


def test_a_registration_dated_after_the_one_seen_live_is_another_and_kept() -> None:
    # Seen live at T0, then the broker restarted while the console was away: ZooKeeper dates the new one.
    restarted = replace(b.broker(2), times=ZnodeTimes(200, 200, T0 + 600_000, T0 + 600_000, 0))
    dated = dated_changes(b.snapshot(brokers=(1, restarted, 3)))
    live = [LiveLine(T0, "broker 2 registered (kafka-2:9092)", fact=LiveFact(FactKind.BROKER_REGISTERED, 2))]
    kinds = [c.kind for c in with_live(dated, live) if "broker 2 registered" in c.text]
    assert sorted(k.value for k in kinds) == ["broker_registered", "live"]


def test_a_controller_move_seen_live_replaces_the_dated_election() -> None:
    snapshot = b.snapshot(controller_times=ZnodeTimes(5, 5, T0 - 86_400_000, T0 - 86_400_000, 0))
    live = [LiveLine(T0, "controller moved 2 -> 1 (epoch 8)", fact=LiveFact(FactKind.CONTROLLER, 1))]
    merged = with_live(dated_changes(snapshot), live)
    assert not [c for c in merged if c.kind is ChangeKind.CONTROLLER_ELECTED]


def test_event_facts_name_the_broker_of_broker_and_controller_events_only() -> None:
    assert event_fact(EventKind.BROKER_LEFT, 2) == LiveFact(FactKind.BROKER_LEFT, 2)
    assert event_fact(EventKind.CONTROLLER_GONE, None) == LiveFact(FactKind.CONTROLLER)
    assert event_fact(EventKind.TOPIC_CREATED, None) is None
    assert event_fact(None, None) is None


@pytest.mark.parametrize(
    ("text", "expected_ms"),
    [
        ("45m", T0 - 2_700_000),
        ("-45m", T0 - 2_700_000),
        ("2023-11-14 21:13", 1_699_996_380_000),
        ("2023-11-14T21:13:00+01:00", 1_699_992_780_000),
        (str(T0), T0),
    ],
)
def test_parse_moment_reads_what_people_type(text: str, expected_ms: int) -> None:
    assert parse_moment(text, T0) == expected_ms


def test_parse_moment_refuses_anything_else_with_the_text() -> None:
    with pytest.raises(ValueError, match="'soonish' is not a moment"):
        parse_moment("soonish", T0)
