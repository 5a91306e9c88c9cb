"""``core.console.view``: the rows, counters, pending work and deletion stages the console shows, from
snapshots built by ``core.testdata.builder`` (no terminal, no cluster)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.console.protocols import DeletionStage
from core.console.view import (
    STALLED_DELETION_MS,
    ViewBuilder,
    deletion_status,
    names_matching,
    partition_row,
    partition_rows,
)
from core.kafka.znodes import ReassignmentRequest, Unreadable
from core.snapshot.health import MinIsr
from core.testdata.builder import NOW_MS, broker, config, snapshot, state, topic

KNOWN_MIN_ISR = MinIsr(1, "test")


@pytest.mark.parametrize(
    ("state_value", "live", "health", "note"),
    [
        (state(1, [1, 2, 3]), {1, 2, 3}, "ok", ""),
        (state(2, [1, 2, 3]), {1, 2, 3}, "non-preferred", ""),
        (state(1, [1]), {1, 2, 3}, "under-replicated", ""),
        (state(-1, [1]), {2, 3}, "offline", "no leader"),
        (state(1, [1, 2, 3]), {2, 3}, "offline", "leader 1 is not registered"),
        (None, {1, 2, 3}, "no-state", "no state znode: the controller has not processed this partition"),
        (Unreadable("/s", b"x", "not JSON"), {1, 2, 3}, "unreadable", "not JSON"),
    ],
)
def test_a_partition_row_says_its_health_and_why(state_value: object, live: set[int], health: str, note: str) -> None:
    row = partition_row(0, (1, 2, 3), state_value, frozenset(live), KNOWN_MIN_ISR)  # type: ignore[arg-type]
    assert (row.health, row.note) == (health, note)
    assert row.preferred_leader == 1


def test_partition_rows_list_the_assignment_then_left_over_states() -> None:
    entry = topic("t", {0: [1, 2], 1: [2, 1]}, states={7: state(1, [1])})
    rows = partition_rows(snapshot(topics=[entry]), entry)
    assert [r.partition for r in rows] == [0, 1, 7]
    assert rows[2].note == "state znode without an assignment entry (left over)"
    assert "unreadable" in rows[2].flags and rows[2].replicas == ()


def test_the_view_counts_health_per_topic_and_for_the_cluster() -> None:
    healthy = topic("a", {0: [1, 2], 1: [2, 1]})
    sick = topic("b", {0: [1, 2], 1: [2, 3], 2: [3, 1]}, states={0: state(-1, [1]), 1: state(3, [3])})
    view = ViewBuilder().build(snapshot(topics=[healthy, sick]), NOW_MS)
    assert [t.name for t in view.topics] == ["a", "b"]
    b = view.topics[1]
    assert (b.partitions, b.offline, b.under_replicated, b.non_preferred) == (3, 1, 2, 1)
    h = view.health
    assert (h.topics, h.partitions, h.offline, h.under_replicated, h.non_preferred_leaders) == (2, 5, 1, 2, 1)
    assert {row.id: row.leaders for row in view.brokers} == {1: 1, 2: 1, 3: 2}


def test_the_view_names_the_brokers_missing_from_every_under_replicated_isr_as_topics_change() -> None:
    lost = topic("a", {0: [1, 2], 1: [2, 3]}, states={0: state(1, [1]), 1: state(3, [3])})
    also = topic("b", {0: [2, 3, 1]}, states={0: state(3, [3, 1])})
    builder = ViewBuilder()
    assert builder.build(snapshot(topics=[lost, also]), NOW_MS).health.lacking_everywhere == (2,)
    mixed = topic("b", {0: [2, 3, 1]}, states={0: state(2, [2, 1])})
    assert builder.build(snapshot(topics=[lost, mixed]), NOW_MS).health.lacking_everywhere == ()
    healthy = topic("a", {0: [1, 2], 1: [2, 3]})
    assert builder.build(snapshot(topics=[healthy]), NOW_MS).health.lacking_everywhere == ()


def test_an_unreadable_assignment_is_a_topic_row_with_its_reason() -> None:
    broken = topic("x", {}, assignment=Unreadable("/brokers/topics/x", b"{", "not JSON"))
    view = ViewBuilder().build(snapshot(topics=[broken]), NOW_MS)
    assert view.topics[0].problem == "not JSON" and "unreadable" in view.topics[0].flags


def test_the_builder_recomputes_only_changed_topics_and_drops_removed_ones() -> None:
    a, b = topic("a", {0: [1, 2]}), topic("b", {0: [2, 1]})
    builder = ViewBuilder()
    first = builder.build(snapshot(topics=[a, b]), NOW_MS)
    same = builder.build(snapshot(topics=[a, b]), NOW_MS)
    assert same.topics[0] is first.topics[0]  # unchanged entry: its summary is reused
    offline_b = replace(b, states={0: state(-1, [2])})
    changed = builder.build(snapshot(topics=[a, offline_b]), NOW_MS)
    assert changed.topics[0] is first.topics[0]
    assert (changed.health.offline, changed.topics[1].offline) == (1, 1)
    gone = builder.build(snapshot(topics=[a]), NOW_MS)
    assert [t.name for t in gone.topics] == ["a"]
    assert (gone.health.partitions, gone.health.offline) == (1, 0)


def test_a_broker_that_left_keeps_its_last_endpoint_marked_gone() -> None:
    t = topic("t", {0: [1, 2]})
    builder = ViewBuilder()
    builder.build(snapshot(brokers=[broker(1, rack="r1"), broker(2)], topics=[t]), NOW_MS)
    view = builder.build(snapshot(brokers=[broker(2)], topics=[t]), NOW_MS)
    left = next(row for row in view.brokers if row.id == 1)
    assert not left.alive and left.rack == "r1" and left.endpoints
    assert left.replicas == 1


def test_pending_work_lists_deletions_and_stuck_admin_requests() -> None:
    t = topic("doomed", {0: [1, 2]})
    request = Unreadable("/admin/reassign_partitions", b"{", "not JSON")
    view = ViewBuilder().build(snapshot(topics=[t], markers=["doomed"], reassignment=request), NOW_MS)
    kinds = {item.kind: item for item in view.pending}
    assert kinds["deletion"].topic == "doomed"
    assert kinds["reassignment"].stuck == "unreadable: not JSON"
    waiting = ReassignmentRequest(1, (("doomed", 0, (2, 1), None),))  # type: ignore[arg-type]
    without_controller = snapshot(topics=[t], reassignment=waiting, controller=None)
    [item] = [i for i in ViewBuilder().build(without_controller, NOW_MS).pending if i.kind == "reassignment"]
    assert item.stuck == "no controller to process it"


def test_deletion_status_by_stage() -> None:
    t = topic("t", {0: [1, 2]})
    assert deletion_status(snapshot(topics=[t]), "t", NOW_MS).stage is DeletionStage.NOT_QUEUED
    assert deletion_status(snapshot(), "t", NOW_MS).stage is DeletionStage.GONE
    orphan = deletion_status(snapshot(markers=["t"]), "t", NOW_MS)
    assert orphan.stage is DeletionStage.QUEUED and orphan.detail == "marker queued for a topic that does not exist"
    queued = deletion_status(snapshot(topics=[t], markers=["t"]), "t", NOW_MS)
    assert queued.stage is DeletionStage.QUEUED and queued.age_ms == 600_000
    offline = replace(t, states={0: state(-1, [1])})
    assert deletion_status(snapshot(topics=[offline], markers=["t"]), "t", NOW_MS).stage in (
        DeletionStage.PARTITIONS_OFFLINE,
        DeletionStage.REPLICAS_REMOVED,
    )
    later = deletion_status(snapshot(topics=[t], markers=["t"]), "t", NOW_MS + STALLED_DELETION_MS)
    assert later.stuck is not None and "queued for" in later.stuck


def test_topic_config_overrides_count_on_the_row() -> None:
    t = topic("t", {0: [1, 2]}, topic_config=config(retention_ms="1000", cleanup_policy="compact"))
    assert ViewBuilder().build(snapshot(topics=[t]), NOW_MS).topics[0].config_overrides == 2


def test_names_matching_ignores_case() -> None:
    assert names_matching(["Orders", "payments", "orders-dlq"], "ORD") == ["Orders", "orders-dlq"]
