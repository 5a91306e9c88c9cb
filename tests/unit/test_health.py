"""Every health rule of ``core.snapshot.health`` on hand-built snapshots."""

from __future__ import annotations

import pytest

from cli.describe_cmd import render
from core.console.protocols import DeletionStage
from core.console.view import deletion_status
from core.kafka.znodes import PartitionState, PreferredElectionRequest, ReassignmentRequest, Unreadable
from core.snapshot.deletion import deletion_queue
from core.snapshot.health import (
    MinIsr,
    assess,
    leader_imbalance,
    offline_partitions,
    over_imbalance_threshold,
    partition_health,
    under_min_isr_partitions,
    under_replicated_partitions,
)
from core.snapshot.model import NOT_READ, StaticMinIsr
from core.snapshot.summary import summarize
from core.testdata.builder import NOW_MS, broker, config, snapshot, state, topic

RF3 = {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}


def test_a_healthy_cluster_has_no_findings() -> None:
    report = assess(snapshot(topics=[topic("a", RF3)]))
    assert not (report.offline or report.under_replicated or report.under_min_isr or report.deletions)
    assert report.imbalanced_brokers == ()
    balance = [(b.broker_id, b.preferred, b.not_leading) for b in report.leader_imbalance]
    assert balance == [(1, 1, 0), (2, 1, 0), (3, 1, 0)]


# ---- offline ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("partition_state", "leader", "reason"),
    [
        (state(-1, [3]), -1, "no leader (-1)"),
        (state(-2, [1, 2, 3]), -2, "LeaderDuringDelete"),
        (state(4, [4]), 4, "leader 4 is not a registered broker"),
        (None, None, "no state znode"),
        (Unreadable("/brokers/topics/a/partitions/0/state", b"{", "not JSON"), None, "unreadable, leader unknown"),
    ],
)
def test_a_partition_without_a_reachable_leader_is_offline(
    partition_state: object, leader: int | None, reason: str
) -> None:
    snap = snapshot(topics=[topic("a", {0: [1, 2, 3], 1: [1, 2, 3]}, states={0: partition_state})])  # type: ignore[dict-item]
    [found] = offline_partitions(snap)
    assert (found.topic, found.partition, found.leader, found.queued_for_deletion) == ("a", 0, leader, False)
    assert reason in found.reason


def test_a_dead_leader_broker_makes_its_partitions_offline_and_deleting_topics_are_flagged() -> None:
    snap = snapshot(brokers=[2, 3], topics=[topic("a", RF3), topic("b", {0: [1, 2]})], markers=["b"])
    offline = offline_partitions(snap)
    assert [(o.topic, o.partition, o.queued_for_deletion) for o in offline] == [("a", 0, False), ("b", 0, True)]


def test_states_beyond_the_assignment_and_unreadable_assignments_are_not_counted_as_partitions() -> None:
    leftover = topic("a", {0: [1, 2, 3]}, states={7: state(-1, [1])})
    unreadable = topic("b", {}, assignment=Unreadable("/brokers/topics/b", b"x", "not JSON"))
    assert offline_partitions(snapshot(topics=[leftover, unreadable])) == ()


# ---- under-replicated ---------------------------------------------------------------------------


def test_a_partition_whose_isr_is_smaller_than_its_replicas_is_under_replicated() -> None:
    snap = snapshot(topics=[topic("a", RF3, states={1: state(2, [2, 3])})])
    [found] = under_replicated_partitions(snap)
    assert (found.partition, found.isr, found.replication_factor) == (1, (2, 3), 3)


def test_the_isr_is_counted_as_zookeeper_holds_it_as_kafkas_tool_does() -> None:
    # No controller shrank the ISR yet: broker 3 is gone but still listed, so it is not under-replicated.
    snap = snapshot(brokers=[1, 2], controller=None, topics=[topic("a", {0: [1, 2, 3]})])
    assert under_replicated_partitions(snap) == ()


def test_during_a_reassignment_the_replication_factor_excludes_adding_replicas() -> None:
    moving = {0: [1, 2, 3, 4]}
    in_sync = topic("a", moving, states={0: state(1, [1, 2, 3])}, adding={0: [4]}, removing={0: [3]})
    behind = topic("b", moving, states={0: state(1, [1, 2])}, adding={0: [4]}, removing={0: [3]})
    found = under_replicated_partitions(snapshot(brokers=[1, 2, 3, 4], topics=[in_sync, behind]))
    assert [(f.topic, f.replication_factor) for f in found] == [("b", 3)]
    # Two added, one removed: the original three replicas are the factor (not five minus one).
    growing = topic("c", {0: [1, 2, 3, 4, 5]}, states={0: state(1, [1, 2, 3])}, adding={0: [4, 5]}, removing={0: [3]})
    assert under_replicated_partitions(snapshot(brokers=[1, 2, 3, 4, 5], topics=[growing])) == ()


def test_partitions_without_a_readable_state_are_under_replicated_as_kafkas_tool_lists_them() -> None:
    snap = snapshot(topics=[topic("a", RF3, states={0: None, 1: Unreadable("p", b"", "bad")})])
    assert [(f.partition, f.isr) for f in under_replicated_partitions(snap)] == [(0, ()), (1, ())]


# ---- under min ISR ------------------------------------------------------------------------------


def test_the_topic_override_of_min_insync_replicas_applies_first() -> None:
    override = topic("a", RF3, states={0: state(1, [1])}, topic_config=config(min_insync_replicas="2"))
    snap = snapshot(topics=[override], broker_configs={"<default>": config(min_insync_replicas="1")})
    [found] = under_min_isr_partitions(snap)
    assert (found.partition, found.isr, found.min_isr, found.min_isr_source, found.has_live_leader) == (
        0, (1,), 2, "topic", True,
    )  # fmt: skip


def test_without_any_value_in_zookeeper_or_from_the_brokers_acks_all_is_unknown_with_the_reason() -> None:
    snap = snapshot(topics=[topic("a", RF3, states={0: state(1, [1, 2])})])
    report = assess(snap)
    assert report.under_min_isr == ()
    assert [(t, p) for t, p, _ in report.min_isr_unknown] == [("a", 0), ("a", 1), ("a", 2)]
    assert report.min_isr_unknown[0][2] == NOT_READ.reason


def test_the_brokers_static_value_applies_after_every_dynamic_one_and_before_the_given_one() -> None:
    snap = snapshot(topics=[topic("a", RF3, states={0: state(1, [1, 2])})])
    static = StaticMinIsr(by_broker={1: 3, 2: 1}, given=1)
    [found] = under_min_isr_partitions(snap, static)
    assert (found.partition, found.min_isr, found.min_isr_source) == (0, 3, "broker 1 static")
    [given] = under_min_isr_partitions(snap, StaticMinIsr(given=3))
    assert (given.partition, given.min_isr_source) == (0, "given")
    assert len(under_min_isr_partitions(snap, StaticMinIsr(given=4))) == 3


def test_dynamic_broker_configs_override_the_static_value_leader_first() -> None:
    t = topic("a", RF3, states={0: state(1, [1, 2]), 1: state(2, [2, 3])})
    snap = snapshot(
        topics=[t],
        broker_configs={"<default>": config(min_insync_replicas="3"), "2": config(min_insync_replicas="2")},
    )
    found = under_min_isr_partitions(snap, StaticMinIsr(given=1))
    # p0 is led by 1: cluster default 3 > 2 in sync; p1 by 2 (per-broker 2: fine); p2 has 3 in sync.
    assert [(f.partition, f.min_isr, f.min_isr_source) for f in found] == [(0, 3, "cluster default")]


def test_a_partition_without_a_live_leader_is_under_min_isr_and_refuses_acks_all() -> None:
    snap = snapshot(topics=[topic("a", RF3, states={2: state(-1, [3]), 1: None})])
    found = under_min_isr_partitions(snap)
    assert [(f.partition, f.has_live_leader, f.isr) for f in found] == [(1, False, ()), (2, False, (3,))]


def test_an_override_that_is_not_an_integer_is_ignored() -> None:
    t = topic("a", RF3, states={0: state(1, [1])}, topic_config=config(min_insync_replicas="two"))
    [found] = under_min_isr_partitions(snapshot(topics=[t]), StaticMinIsr(given=2))
    assert found.min_isr_source == "given"


def test_acks_all_is_refused_exactly_when_a_live_leader_has_fewer_in_sync_replicas_than_required() -> None:
    two = MinIsr(2, "topic")
    assert partition_health((1, 2, 3), (), state(1, [1]), {1, 2, 3}, two).acks_all is False
    assert partition_health((1, 2, 3), (), state(1, [1, 2]), {1, 2, 3}, two).acks_all is True
    assert partition_health((1, 2, 3), (), state(4, [4, 1]), {1, 2, 3}, two).acks_all is False
    unknown = partition_health((1, 2, 3), (), state(1, [1]), {1, 2, 3}, MinIsr(None, "why"))
    assert (unknown.acks_all, unknown.acks_all_text) == (None, "? (why)")


# ---- preferred leader imbalance -----------------------------------------------------------------


def test_leader_imbalance_counts_partitions_not_led_by_their_first_replica() -> None:
    partitions = {p: [1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3] for p in range(30)}
    states: dict[int, PartitionState | None] = {p: state(2, partitions[p]) for p in (0, 3)}  # 2 of 10 led by 2
    states[6] = None  # no state: counts only in the denominator, like Kafka's controller
    snap = snapshot(topics=[topic("a", partitions, states=states)])
    by_broker = {b.broker_id: b for b in leader_imbalance(snap)}
    assert (by_broker[1].preferred, by_broker[1].not_leading) == (10, 2)
    assert by_broker[1].ratio == pytest.approx(0.2)
    assert by_broker[1].exceeds(10) and not by_broker[1].exceeds(20)
    assert by_broker[2].not_leading == 0 and not by_broker[2].exceeds()


def test_exactly_the_threshold_does_not_trigger_and_deleting_topics_are_left_out() -> None:
    partitions = {p: [1, 2] for p in range(10)}
    one_off = topic("a", partitions, states={0: state(2, [1, 2])})
    deleting = topic("b", {0: [1, 2]}, states={0: state(2, [2])})
    [broker_1] = leader_imbalance(snapshot(topics=[one_off, deleting], markers=["b"]))
    assert (broker_1.preferred, broker_1.not_leading, broker_1.exceeds(10)) == (10, 1, False)


def test_imbalance_is_reported_for_unregistered_preferred_brokers() -> None:
    snap = snapshot(brokers=[1, 2], topics=[topic("a", {0: [3, 1]}, states={0: state(1, [1])})])
    [b3] = [b for b in leader_imbalance(snap) if b.broker_id == 3]
    assert (b3.registered, b3.not_leading, b3.ratio) == (False, 1, 1.0)


# ---- deletion queue (zk-layout §7.4, §9.8) ------------------------------------------------------


def test_a_marker_for_a_missing_topic_is_stale_and_nothing_else() -> None:
    [queued] = deletion_queue(snapshot(markers=["gone"], controller=None), delete_topic_enable=False)
    assert (queued.topic, queued.topic_exists, queued.codes) == ("gone", False, ("topic_missing",))
    assert queued.queued_since_ms == NOW_MS - 600_000


def test_a_replica_on_a_dead_broker_blocks_deletion() -> None:
    [queued] = deletion_queue(snapshot(brokers=[1, 2], topics=[topic("a", RF3)], markers=["a"]))
    assert queued.codes == ("replica_on_dead_broker",)
    assert "broker(s) 3" in queued.reasons[0].detail


def test_a_reassignment_in_the_topic_znode_or_the_admin_znode_blocks_deletion() -> None:
    moving = topic("a", {0: [1, 2, 3]}, adding={0: [3]}, removing={0: [1]})
    listed = topic("b", {0: [1, 2], 1: [2, 3]})
    request = ReassignmentRequest(1, (("b", 1, (1, 3)),))
    found = deletion_queue(snapshot(topics=[moving, listed], markers=["a", "b"], reassignment=request))
    assert [(q.topic, q.codes) for q in found] == [
        ("a", ("reassignment_in_progress",)),
        ("b", ("reassignment_in_progress",)),
    ]
    assert "partition(s) 1 " in found[1].reasons[0].detail


def test_deletion_disabled_and_no_controller_are_reported_when_known() -> None:
    snap = snapshot(topics=[topic("a", RF3)], markers=["a"], controller=None)
    [unknown] = deletion_queue(snap)
    [disabled] = deletion_queue(snap, delete_topic_enable=False)
    assert unknown.codes == ("no_controller",)
    assert disabled.codes == ("deletion_disabled", "no_controller")


def test_a_preferred_election_blocks_deletion_only_before_kafka_0_11() -> None:
    election = PreferredElectionRequest(1, (("a", 0),))
    old = snapshot(brokers=[broker(b, version=3) for b in (1, 2, 3)], topics=[topic("a", RF3)], markers=["a"],
                   preferred_election=election)  # fmt: skip
    new = snapshot(topics=[topic("a", RF3)], markers=["a"], preferred_election=election)
    assert deletion_queue(old)[0].codes == ("preferred_election_in_progress",)  # v3 registrations: 0.10.0-0.10.1
    assert deletion_queue(new)[0].codes == ("no_visible_cause",)  # v5 registrations: 2.7+
    assert deletion_queue(new, kafka_version=(0, 10))[0].codes == ("preferred_election_in_progress",)
    assert deletion_queue(old, kafka_version=(2, 8))[0].codes == ("no_visible_cause",)


def test_without_a_visible_cause_the_reason_says_what_may_be_happening() -> None:
    [queued] = deletion_queue(snapshot(topics=[topic("a", RF3)], markers=["a"]))
    assert queued.codes == ("no_visible_cause",)
    assert "StopReplica" in queued.reasons[0].detail and "delete.topic.enable" in queued.reasons[0].detail


def test_an_unreadable_topic_znode_is_a_reason() -> None:
    bad = topic("a", {}, assignment=Unreadable("/brokers/topics/a", b"{", "not JSON"))
    [queued] = deletion_queue(snapshot(topics=[bad], markers=["a"]))
    assert queued.codes == ("assignment_unreadable",) and "not JSON" in queued.reasons[0].detail


# ---- deletion through the controller's eyes ---------------------------------------------------------------


def test_replicas_of_a_stuck_deletion_are_held_as_the_controller_holds_them() -> None:
    # Broker 3 is down: the controller stopped the live replicas (out of the ISR, leader -1 with the last
    # member kept) and holds broker 3's as ReplicaDeletionIneligible.
    states = {0: state(-1, [3]), 1: state(-1, [2]), 2: state(-1, [1])}
    snap = snapshot(brokers=[1, 2], topics=[topic("a", RF3, states=states)], markers=["a"])
    [queued] = deletion_queue(snap)
    assert queued.codes == ("replica_on_dead_broker",)
    held = {(r.partition, r.broker): r.state for r in queued.replicas}
    assert {k for k, v in held.items() if v == "ReplicaDeletionIneligible"} == {(0, 3), (1, 3), (2, 3)}
    assert {v for k, v in held.items() if k[1] != 3} == {"ReplicaDeletionStarted/Successful"}
    status = deletion_status(snap, "a", NOW_MS)
    assert status.stage is not DeletionStage.REPLICAS_REMOVED  # not "3/4 replicas removed" with a dead broker
    assert "replicas: 6 ReplicaDeletionStarted/Successful, 3 ReplicaDeletionIneligible (broker 3)" in status.detail
    assert status.stuck is not None and status.stuck.startswith("replicas on broker(s) 3, which are not registered")


def test_every_blocker_is_listed_in_order_with_what_to_do_when_deletion_is_disabled() -> None:
    moving = topic("a", {0: [1, 2, 4]}, adding={0: [4]}, removing={0: [1]})
    snap = snapshot(brokers=[1, 2], controller=None, topics=[moving], markers=["a"])
    [queued] = deletion_queue(snap, delete_topic_enable=False)
    assert queued.codes == ("deletion_disabled", "no_controller", "replica_on_dead_broker", "reassignment_in_progress")
    assert (
        "set delete.topic.enable=true on every broker, restart them one at a time (rolling restart), then send "
        "the delete again" in queued.reasons[0].detail
    )
    assert {r.state for r in queued.replicas} == {"OnlineReplica"}  # deletion has not started
    status = deletion_status(snap, "a", NOW_MS)
    assert status.stuck is not None and status.stuck.count("; ") >= 2  # every blocker, not the first only


def test_a_dead_broker_is_never_over_the_imbalance_threshold_in_describe_or_the_rule() -> None:
    # Broker 3 is down: its partitions are led elsewhere, which the controller's auto rebalance cannot fix.
    snap = snapshot(
        brokers=[1, 2], topics=[topic("a", {0: [3, 1], 1: [3, 2]}, states={0: state(1, [1]), 1: state(2, [2])})]
    )
    [b3] = [b for b in leader_imbalance(snap) if b.broker_id == 3]
    assert b3.ratio == 1.0 and not b3.exceeds(10)
    assert not over_imbalance_threshold(False, 2, 2, 10) and over_imbalance_threshold(True, 2, 2, 10)
    assert assess(snap).imbalanced_brokers == ()
    assert summarize(snap).health.imbalanced_brokers == ()


def test_describe_names_the_brokers_that_hold_replicas_but_are_not_registered() -> None:
    snap = snapshot(brokers=[1, 2], topics=[topic("a", {0: [3, 1], 1: [1, 2]})])
    summary = summarize(snap)
    assert summary.missing_brokers == (3,) and summary.to_json()["missing_brokers"] == [3]
    assert "NOT registered, though they hold replicas: 3" in render(summary)
