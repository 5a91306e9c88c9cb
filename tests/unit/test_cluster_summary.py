"""What ``kzc describe`` shows, computed from hand-built snapshots (JSON and text)."""

from __future__ import annotations

from dataclasses import replace

from cli.describe_cmd import render
from core.kafka.znodes import ControllerInfo, PreferredElectionRequest, ReassignmentRequest, Unreadable
from core.snapshot.model import NOT_READ
from core.snapshot.summary import summarize
from core.testdata.builder import NOW_MS, broker, snapshot, state, topic


def test_the_json_has_the_documented_shape_and_counts() -> None:
    snap = snapshot(topics=[topic("a", {0: [1, 2, 3], 1: [2, 3, 1]}), topic("b", {0: [3, 1, 2]})])
    summary = summarize(snap).to_json()
    assert summary["controller"] | {} == {
        "broker_id": 1, "epoch": 5, "since_ms": NOW_MS - 30_000, "since": "2023-11-14 22:12:50 UTC",
        "kraft": False, "registered": True, "problem": None,
    }  # fmt: skip
    assert [(b["id"], b["endpoints"], b["rack"]) for b in summary["brokers"]] == [
        (1, ["PLAINTEXT://h1:9092"], None),
        (2, ["PLAINTEXT://h2:9092"], None),
        (3, ["PLAINTEXT://h3:9092"], None),
    ]
    assert (summary["topics"], summary["partitions"], summary["cluster_id"]) == (2, 3, "AAAAAAAAAAAAAAAAAAAAAg")
    assert summary["health"] == {
        "offline_partitions": 0, "under_replicated_partitions": 0, "under_min_isr_partitions": 0,
        "imbalanced_brokers": [], "unreadable_znodes": 0, "acks_all_refused": [],
        "acks_all_unknown_partitions": 3, "acks_all_unknown_reason": NOT_READ.reason,
    }  # fmt: skip


def test_pending_work_counts_each_reassigning_partition_once() -> None:
    moving = topic("a", {0: [1, 2, 3], 1: [1, 2, 3]}, adding={0: [3]}, removing={0: [1]})
    snap = snapshot(
        topics=[moving],
        markers=["a", "gone"],
        reassignment=ReassignmentRequest(1, (("a", 0, (2, 3)), ("a", 1, (2, 3)))),
        preferred_election=PreferredElectionRequest(1, (("a", 0),)),
    )
    pending = summarize(snap).to_json()["pending"]
    deletions = pending.pop("deletions")
    assert [(d["topic"], [r["code"] for r in d["reasons"]]) for d in deletions] == [
        ("a", ["reassignment_in_progress"]),
        ("gone", ["topic_missing"]),
    ]
    assert deletions[0]["replica_states"] == {"OnlineReplica": 6}  # a reassignment keeps deletion from starting
    assert pending == {
        "topic_deletions": 2, "queued_deletions": ["a", "gone"], "reassigning_partitions": 2,
        "preferred_elections": 1, "isr_change_notifications": 0, "log_dir_event_notifications": 0,
        "config_change_notifications": 0,
    }  # fmt: skip


def test_controller_and_broker_problems_are_named() -> None:
    absent = summarize(snapshot(controller=None)).controller
    assert absent.broker_id is None and absent.problem == "no active controller (/controller is missing)"
    stale = summarize(snapshot(controller=9)).controller
    assert (stale.broker_id, stale.registered, stale.problem) == (9, False, "controller 9 is not a registered broker")
    migrating = summarize(replace(snapshot(), controller=ControllerInfo(3000, 1, 2, 7))).controller
    assert (migrating.broker_id, migrating.kraft, migrating.problem) == (3000, True, None)
    bad = replace(broker(2), registration=Unreadable("/brokers/ids/2", b"{", "not JSON"))
    [_, second, _] = summarize(snapshot(brokers=[1, bad, 3])).brokers
    assert (second.id, second.endpoints, second.problem) == (2, (), "not JSON")


def test_the_text_form_shows_every_part() -> None:
    snap = snapshot(
        brokers=[broker(1, "r1"), broker(2, "r2")],
        topics=[topic("a", {0: [1, 2], 1: [2, 3]}, states={1: state(-1, [3])})],
        markers=["a"],
    )
    text = render(summarize(snap))
    assert "Controller   broker 1, epoch 5, since 2023-11-14 22:12:50 UTC (30s ago)" in text
    assert "Brokers      2 registered" in text
    assert "r1        PLAINTEXT://h1:9092  2023-11-14 22:12:20 UTC (1m 0s ago)" in text
    assert "Partitions   2" in text and "deletion of a, queued 2023-11-14" in text
    assert "- replicas on broker(s) 3, which are not registered: the controller marks them" in text
    states = "replicas: 1 ReplicaDeletionStarted/Successful, 1 ReplicaDeletionIneligible (broker 3), 2 OnlineReplica"
    assert states in text
    assert "Health       1 offline, 1 under-replicated, 1 under min ISR" in text
