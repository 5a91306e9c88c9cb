"""The local (plain Python) check engine: each check fires on a hand-built snapshot and stays quiet on a
healthy one; findings carry the right location, severity and evidence.

Snapshots are built from Kafka's own JSON through kzc's parsers, as the snapshot reader does. ``CASES``
(name -> builder, expected check ids) is shared with the Spark engine test, which asserts that Spark
returns exactly the local engine's findings on every one of them.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import replace
from types import MappingProxyType
from typing import Any

import pytest

from core.brokers.metadata import ServedMetadata, ServedPartition
from core.consistency.catalog import BY_ID, CHECK_IDS, Severity, parse_only
from core.consistency.findings import CheckReport, Finding
from core.consistency.local_engine import run_local
from core.consistency.params import CheckParams
from core.consistency.topic_rules import name_problem
from core.errors import UsageError
from core.kafka.znodes import (
    Unreadable,
    parse_broker,
    parse_config_change,
    parse_controller,
    parse_entity_config,
    parse_isr_change,
    parse_log_dir_event,
    parse_partition_state,
    parse_reassignment,
    parse_topic,
)
from core.snapshot.model import BrokerEntry, ClusterSnapshot, Notification, TopicEntry, ZnodeTimes

NOW = 1_700_000_000_000
MINUTE = 60_000


def times(ctime: int = NOW - 60 * MINUTE, version: int = 0) -> ZnodeTimes:
    return ZnodeTimes(czxid=1, mzxid=1, ctime_ms=ctime, mtime_ms=ctime, version=version)


def broker_json(broker_id: int, rack: str | None = "auto", version: int = 5, **extra: Any) -> bytes:
    data: dict[str, Any] = {
        "listener_security_protocol_map": {"PLAINTEXT": "PLAINTEXT"},
        "endpoints": [f"PLAINTEXT://127.0.0.1:{9090 + broker_id}"],
        "jmx_port": -1,
        "features": {},
        "host": "127.0.0.1",
        "timestamp": str(NOW),
        "port": 9090 + broker_id,
        "version": version,
    }
    if rack == "auto":
        data["rack"] = f"r{broker_id}"
    elif rack is not None:
        data["rack"] = rack
    data.update(extra)
    return json.dumps(data).encode()


def state_json(leader: int, isr: list[int], epoch: int = 5, leader_epoch: int = 0) -> bytes:
    return json.dumps(
        {"controller_epoch": epoch, "leader": leader, "version": 1, "leader_epoch": leader_epoch, "isr": isr}
    ).encode()


def topic_json(partitions: Mapping[int, list[int]], **extra: Any) -> bytes:
    data: dict[str, Any] = {
        "version": 3,
        "partitions": {str(p): r for p, r in partitions.items()},
        "adding_replicas": {},
        "removing_replicas": {},
        "topic_id": "AAAAAAAAAAAAAAAAAAAAAQ",
    }
    data.update(extra)
    return json.dumps(data).encode()


StateSpec = bytes | None


def build(
    *,
    brokers: Mapping[int, bytes] | None = None,
    topics: Mapping[str, bytes] | None = None,
    states: Mapping[tuple[str, int], StateSpec] | None = None,
    topic_configs: Mapping[str, bytes] | None = None,
    broker_configs: Mapping[str, bytes] | None = None,
    controller: bytes | None = b'{"version":2,"brokerid":1,"timestamp":"1700000000000","kraftControllerEpoch":-1}',
    controller_epoch: int | None = 5,
    markers: Mapping[str, int] | None = None,
    reassignment: bytes | None = None,
    isr_changes: Mapping[str, int] | None = None,
    log_dir_events: Mapping[str, int] | None = None,
    config_changes: Mapping[str, int] | None = None,
    extra_unreadable: tuple[Unreadable, ...] = (),
) -> ClusterSnapshot:
    """A snapshot as the reader would build it from these znodes (data as Kafka writes it)."""
    unreadable: list[Unreadable] = list(extra_unreadable)

    def track(value: Any) -> Any:
        if isinstance(value, Unreadable):
            unreadable.append(value)
        return value

    broker_data = brokers if brokers is not None else {b: broker_json(b) for b in (1, 2, 3)}
    broker_entries = {
        b: BrokerEntry(b, track(parse_broker(f"/brokers/ids/{b}", data)), times()) for b, data in broker_data.items()
    }
    configs = {
        name: track(parse_entity_config(f"/config/topics/{name}", data)) for name, data in (topic_configs or {}).items()
    }
    topic_entries = {}
    for name, data in (topics or {}).items():
        assignment = track(parse_topic(f"/brokers/topics/{name}", data))
        listed = () if isinstance(assignment, Unreadable) else assignment.partition_ids
        topic_states: dict[int, Any] = {}
        for p in listed:
            spec = (states or {}).get((name, p), b"auto")
            if spec == b"auto":
                replicas = assignment.replicas(p)
                spec = state_json(replicas[0], list(replicas)) if replicas else None
            topic_states[p] = spec
        for (t, p), spec in (states or {}).items():
            if t == name and p not in listed:
                topic_states[p] = spec
        parsed = {
            p: None
            if spec is None
            else track(parse_partition_state(f"/brokers/topics/{name}/partitions/{p}/state", spec))
            for p, spec in sorted(topic_states.items())
        }
        topic_entries[name] = TopicEntry(name, assignment, times(), MappingProxyType(parsed), configs.get(name))

    def notes(parent: str, prefix: str, parse: Callable[[str, bytes], Any], items: Mapping[str, int] | None) -> Any:
        out = []
        for seq, (data, ctime) in enumerate((items or {}).items()):
            name = f"{prefix}{seq:010d}"
            out.append(Notification(name, ctime, track(parse(f"{parent}/{name}", data.encode()))))
        return tuple(out)

    return ClusterSnapshot(
        taken_at_ms=NOW,
        zookeeper="127.0.0.1:2181/kafka",
        zxid=100,
        session_id=1,
        cluster_id=None,
        controller=None if controller is None else track(parse_controller("/controller", controller)),
        controller_epoch=controller_epoch,
        controller_epoch_zk_version=controller_epoch,
        brokers=MappingProxyType(broker_entries),
        topics=MappingProxyType(topic_entries),
        deletion_markers=MappingProxyType({t: times(c) for t, c in (markers or {}).items()}),
        reassignment=None
        if reassignment is None
        else track(parse_reassignment("/admin/reassign_partitions", reassignment)),
        reassignment_times=None if reassignment is None else times(),
        preferred_election=None,
        preferred_election_times=None,
        topic_configs=MappingProxyType(configs),
        broker_configs=MappingProxyType(
            {n: track(parse_entity_config(f"/config/brokers/{n}", d)) for n, d in (broker_configs or {}).items()}
        ),
        isr_change_notifications=notes("/isr_change_notification", "isr_change_", parse_isr_change, isr_changes),
        log_dir_event_notifications=notes(
            "/log_dir_event_notification", "log_dir_event_", parse_log_dir_event, log_dir_events
        ),
        config_change_notifications=notes("/config/changes", "config_change_", parse_config_change, config_changes),
        feature=None,
        migration=None,
        producer_id_block=None,
        unreadable=tuple(sorted(unreadable, key=lambda u: u.path)),
    )


RF3 = {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}


def healthy(**overrides: Any) -> ClusterSnapshot:
    """Three brokers on three racks, controller 1, topic 'orders' with 3 partitions in sync at their
    preferred leaders, plus whatever ``overrides`` changes."""
    args: dict[str, Any] = {
        "topics": {"orders": topic_json(RF3)},
        "topic_configs": {"orders": b'{"version":1,"config":{}}'},
    }
    args.update(overrides)
    return build(**args)


def with_states(**states: StateSpec) -> dict[tuple[str, int], StateSpec]:
    """``{"orders-1": data}`` keyword style for the states of 'orders'."""
    return {("orders", int(k.rsplit("_", 1)[1])): v for k, v in states.items()}


# name -> (builder, checks that must fire)
CASES: dict[str, tuple[Callable[[], ClusterSnapshot], set[str]]] = {
    "healthy": (healthy, set()),
    "no_controller": (lambda: healthy(controller=None), {"no_controller"}),
    "controller_not_registered": (
        lambda: healthy(controller=b'{"version":1,"brokerid":7,"timestamp":"1"}'),
        {"controller_not_registered"},
    ),
    "kraft_controller_is_fine": (
        lambda: healthy(controller=b'{"version":2,"brokerid":3000,"timestamp":"1","kraftControllerEpoch":4}'),
        set(),
    ),
    "broker_registration_unreadable": (
        lambda: healthy(brokers={1: broker_json(1), 2: broker_json(2), 3: b'{"version":4,"jmx_port":-1}'}),
        {"broker_registration_invalid"},
    ),
    "broker_registration_version_mismatch": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2), 3: broker_json(3, version=4)},
        ),
        {"broker_registration_invalid"},
    ),
    "broker_duplicate_endpoint": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2), 3: broker_json(3, endpoints=["PLAINTEXT://127.0.0.1:9091"])}
        ),
        {"broker_registration_invalid"},
    ),
    "partial_racks": (
        lambda: healthy(brokers={1: broker_json(1), 2: broker_json(2), 3: broker_json(3, rack=None)}),
        {"rack_violation"},
    ),
    "replicas_share_a_rack": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2, rack="r1"), 3: broker_json(3)},
            topics={"orders": topic_json({0: [1, 2], 1: [2, 3], 2: [3, 1]})},
        ),
        {"rack_violation"},
    ),
    "unreadable_state": (
        lambda: healthy(states=with_states(p_1=b'{"leader":1}')),
        {"unreadable_znode"},
    ),
    "unreadable_topic": (lambda: healthy(topics={"orders": b"not json"}), {"unreadable_znode"}),
    "topic_name_invalid": (
        lambda: healthy(topics={"orders": topic_json(RF3), "bad name!": topic_json({0: [1, 2, 3]})}),
        {"topic_name_invalid"},
    ),
    "topic_name_collision": (
        lambda: healthy(
            topics={"orders": topic_json(RF3), "a.b": topic_json({0: [1, 2, 3]}), "a_b": topic_json({0: [2, 3, 1]})}
        ),
        {"topic_name_collision"},
    ),
    "non_contiguous_partitions": (
        lambda: healthy(topics={"orders": topic_json({0: [1, 2, 3], 2: [3, 1, 2], 5: [2, 3, 1]})}),
        {"non_contiguous_partitions"},
    ),
    "inconsistent_replication_factor": (
        lambda: healthy(topics={"orders": topic_json({0: [1, 2, 3], 1: [2, 3], 2: [3, 1, 2]})}),
        {"inconsistent_replication_factor"},
    ),
    "duplicate_replica": (
        lambda: healthy(
            topics={"orders": topic_json({0: [1, 2, 1], 1: [2, 3, 1], 2: [3, 1, 2]})},
            states=with_states(p_0=state_json(1, [1, 2])),
        ),
        {"duplicate_replica", "inconsistent_replication_factor"},
    ),
    "partition_state_missing": (lambda: healthy(states=with_states(p_2=None)), {"partition_state_missing"}),
    "orphan_partition_state": (
        lambda: healthy(states=with_states(p_7=state_json(1, [1, 2, 3]))),
        {"orphan_partition_state"},
    ),
    "empty_isr": (lambda: healthy(states=with_states(p_1=state_json(-1, []))), {"empty_isr"}),
    "leader_not_in_isr": (
        lambda: healthy(states=with_states(p_0=state_json(1, [2, 3]))),
        {"leader_not_in_isr", "under_replicated"},
    ),
    "isr_not_subset_of_replicas": (
        lambda: healthy(states=with_states(p_0=state_json(1, [1, 2, 3, 9]))),
        {"isr_not_subset_of_replicas"},
    ),
    "controller_epoch_ahead": (
        lambda: healthy(states=with_states(p_0=state_json(1, [1, 2, 3], epoch=9))),
        {"controller_epoch_ahead"},
    ),
    "offline_no_leader": (lambda: healthy(states=with_states(p_0=state_json(-1, [1]))), {"offline_partition"}),
    "offline_dead_leader": (
        # The controller is gone too (no ISR shrink): broker 3 is still in the ISRs of partitions 0 and 1.
        lambda: healthy(brokers={1: broker_json(1), 2: broker_json(2)}, states=with_states(p_2=state_json(3, [3]))),
        {"offline_partition", "replica_on_unknown_broker"},
    ),
    "under_replicated": (lambda: healthy(states=with_states(p_1=state_json(2, [2, 3]))), {"under_replicated"}),
    "under_min_isr_topic_override": (
        lambda: healthy(
            topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"3"}}'},
            states=with_states(p_1=state_json(2, [2, 3])),
        ),
        {"under_min_isr"},
    ),
    "under_min_isr_cluster_default": (
        lambda: healthy(
            broker_configs={"<default>": b'{"version":1,"config":{"min.insync.replicas":"3"}}'},
            states=with_states(p_1=state_json(2, [2, 3])),
        ),
        {"under_min_isr"},
    ),
    "replica_on_unknown_broker": (
        lambda: healthy(
            topics={"orders": topic_json({0: [1, 2, 9], 1: [2, 3, 1], 2: [3, 1, 2]})},
            states=with_states(p_0=state_json(1, [1, 2, 9])),
        ),
        {"replica_on_unknown_broker"},
    ),
    "leader_imbalance": (
        lambda: healthy(states=with_states(p_0=state_json(2, [1, 2, 3]))),
        {"leader_imbalance", "preferred_leader_not_leader"},
    ),
    "deletion_pending": (lambda: healthy(markers={"orders": NOW - MINUTE}), {"deletion_pending"}),
    "deletion_stuck_offline_replica": (
        lambda: healthy(
            brokers={1: broker_json(1), 2: broker_json(2)},
            markers={"orders": NOW - MINUTE},
            states=with_states(p_0=state_json(-1, [1]), p_1=state_json(-1, [2]), p_2=state_json(-1, [3])),
        ),
        {"deletion_stuck"},
    ),
    "deletion_stuck_old_marker": (lambda: healthy(markers={"orders": NOW - 20 * MINUTE}), {"deletion_stuck"}),
    "stale_deletion_marker": (lambda: healthy(markers={"gone": NOW - MINUTE}), {"stale_deletion_marker"}),
    "orphan_topic_config": (
        lambda: healthy(topic_configs={"orders": b'{"version":1,"config":{}}', "gone": b'{"version":1,"config":{}}'}),
        {"orphan_topic_config"},
    ),
    "reassignment_in_progress": (
        lambda: healthy(
            # Partition 0 moves from [1,2] to [2,3]; every partition keeps replication factor 2.
            topics={
                "orders": topic_json(
                    {0: [1, 2, 3], 1: [2, 3], 2: [3, 1]}, adding_replicas={"0": [3]}, removing_replicas={"0": [1]}
                )
            },
            states=with_states(p_0=state_json(1, [1, 2])),
        ),
        {"reassignment_in_progress"},
    ),
    "reassignment_requested": (
        lambda: healthy(
            reassignment=b'{"version":1,"partitions":[{"topic":"orders","partition":1,"replicas":[3,2,1]}]}'
        ),
        {"reassignment_in_progress"},
    ),
    "invalid_reassignment_missing_topic": (
        lambda: healthy(reassignment=b'{"version":1,"partitions":[{"topic":"nope","partition":0,"replicas":[1]}]}'),
        {"invalid_reassignment_request"},
    ),
    "invalid_reassignment_bad_replicas": (
        lambda: healthy(
            reassignment=b'{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,1,9]}]}'
        ),
        {"invalid_reassignment_request", "reassignment_in_progress"},
    ),
    "invalid_reassignment_in_topic_znode": (
        lambda: healthy(topics={"orders": topic_json(RF3, adding_replicas={"1": [4]}, removing_replicas={"1": [4]})}),
        {"invalid_reassignment_request", "reassignment_in_progress"},
    ),
    "notification_backlog": (
        lambda: healthy(
            isr_changes={'{"version":1,"partitions":[{"topic":"orders","partition":0}]}': NOW - 30 * MINUTE},
            log_dir_events={'{"version":1,"broker":2,"event":1}': NOW - 16 * MINUTE},
            config_changes={
                '{"version":2,"entity_path":"topics/orders"}': NOW - 40 * MINUTE,
                '{"version":2,"entity_path":"topics/a"}': NOW - 2 * MINUTE,
            },
        ),
        {"notification_backlog"},
    ),
    "recent_notifications_are_fine": (
        lambda: healthy(
            isr_changes={'{"version":1,"partitions":[{"topic":"orders","partition":0}]}': NOW - MINUTE},
            config_changes={'{"version":2,"entity_path":"topics/orders"}': NOW - 300 * MINUTE},
        ),
        set(),
    ),
    "unreadable_notification": (lambda: healthy(isr_changes={"{": NOW}), {"unreadable_znode"}),
}


def run(snapshot: ClusterSnapshot, **kwargs: Any) -> list[Finding]:
    return run_local(snapshot, **kwargs)


def checks_of(findings: list[Finding]) -> set[str]:
    return {f.check for f in findings}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_case_fires_exactly_its_checks(case: str) -> None:
    builder, expected = CASES[case]
    findings = run(builder())
    assert checks_of(findings) == expected, [f.detail for f in findings]
    for f in findings:
        assert f.severity is BY_ID[f.check].severity
        assert f.detail.endswith(".") and "None" not in f.detail, f.detail
        assert f.path.startswith("/")


def test_every_check_in_the_catalog_has_a_case_that_fires_it() -> None:
    fired = set().union(*(expected for _, expected in CASES.values()))
    assert fired | {"metadata_mismatch"} == set(CHECK_IDS)


def test_a_healthy_cluster_has_no_findings_at_all() -> None:
    assert run(healthy()) == []


def test_offline_partition_names_the_partition_the_state_and_why() -> None:
    findings = run(healthy(states=with_states(p_0=state_json(-1, [1]))))
    (offline,) = findings
    assert (offline.check, offline.severity, offline.topic, offline.partition, offline.broker) == (
        "offline_partition", Severity.ERROR, "orders", 0, None
    )  # fmt: skip
    assert offline.path == "/brokers/topics/orders/partitions/0/state"
    assert offline.evidence_dict == {"leader": -1, "isr": (1,), "replicas": (1, 2, 3), "offline_replicas": ()}
    assert offline.detail == "Partition orders-0 is offline: it has no leader (leader -1); ISR [1]."


def test_an_offline_partition_is_not_also_under_replicated_or_under_min_isr() -> None:
    snapshot = healthy(
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"2"}}'},
        states=with_states(p_0=state_json(-1, [1])),
    )
    assert checks_of(run(snapshot)) == {"offline_partition"}


def test_under_min_isr_wins_over_under_replicated_and_names_the_source() -> None:
    snapshot = healthy(
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"3"}}'},
        states=with_states(p_1=state_json(2, [2, 3])),
    )
    (finding,) = run(snapshot)
    assert finding.check == "under_min_isr" and finding.partition == 1
    assert finding.evidence_dict["min_insync_replicas"] == 3
    assert finding.evidence_dict["min_isr_source"] == "topic config"


def test_min_isr_falls_back_to_the_given_broker_default() -> None:
    snapshot = healthy(states=with_states(p_1=state_json(2, [2, 3])))
    assert checks_of(run(snapshot, params=CheckParams(min_isr_default=3))) == {"under_min_isr"}
    invalid = healthy(
        topic_configs={"orders": b'{"version":1,"config":{"min.insync.replicas":"two"}}'},
        states=with_states(p_1=state_json(2, [2, 3])),
    )
    assert checks_of(run(invalid)) == {"under_replicated"}


def test_a_killed_broker_shows_as_under_replication_not_as_unknown_replicas() -> None:
    # Broker 3 is gone and the controller has shrunk the ISRs: under_replicated says it all.
    snapshot = healthy(
        brokers={1: broker_json(1), 2: broker_json(2)},
        states=with_states(p_0=state_json(1, [1, 2]), p_1=state_json(2, [2, 1]), p_2=state_json(1, [1, 2])),
    )
    findings = run(snapshot)
    assert checks_of(findings) == {"under_replicated", "preferred_leader_not_leader"}
    under = [f for f in findings if f.check == "under_replicated"]
    assert {f.partition for f in under} == {0, 1, 2}
    assert all(f.evidence_dict["offline_replicas"] == (3,) for f in under)
    assert "replicas on unregistered brokers: [3]" in under[0].detail


def test_under_replication_ignores_replicas_being_added() -> None:
    snapshot = healthy(
        topics={
            "orders": topic_json(
                {0: [1, 2, 3], 1: [2, 3, 1], 2: [3, 1, 2]}, adding_replicas={"0": [3]}, removing_replicas={}
            )
        },
        states=with_states(p_0=state_json(1, [1, 2])),
    )
    assert checks_of(run(snapshot)) == {"reassignment_in_progress"}


def test_leader_imbalance_follows_kafkas_ratio_and_threshold() -> None:
    topics = {"orders": topic_json({p: [1 + p % 3, 1 + (p + 1) % 3, 1 + (p + 2) % 3] for p in range(30)})}
    # Broker 1 prefers partitions 0, 3, ..., 27 (10 of them); broker 2 leads one of them: 10% is not > 10%.
    one = healthy(topics=topics, states={("orders", 0): state_json(2, [1, 2, 3])})
    assert "leader_imbalance" not in checks_of(run(one))
    two = healthy(
        topics=topics, states={("orders", 0): state_json(2, [1, 2, 3]), ("orders", 3): state_json(2, [1, 2, 3])}
    )
    (imbalance,) = [f for f in run(two) if f.check == "leader_imbalance"]
    assert imbalance.broker == 1 and imbalance.topic is None
    assert imbalance.evidence_dict == {"preferred_partitions": 10, "led_elsewhere": 2, "threshold_percent": 10}
    assert "leader_imbalance" not in checks_of(run(two, params=CheckParams(imbalance_percent=20)))


def test_a_topic_being_deleted_reports_its_deletion_not_its_availability() -> None:
    snapshot = healthy(
        brokers={1: broker_json(1), 2: broker_json(2)},
        markers={"orders": NOW - MINUTE},
        states=with_states(p_0=state_json(-1, [1]), p_1=state_json(-1, [2]), p_2=state_json(-1, [3])),
    )
    (stuck,) = run(snapshot)
    assert stuck.check == "deletion_stuck" and stuck.path == "/admin/delete_topics/orders"
    assert stuck.evidence_dict["reasons"] == ("offline_replicas",)
    assert stuck.evidence_dict["offline_replicas"] == (3,)


def test_deletion_stuck_names_every_reason() -> None:
    snapshot = healthy(
        controller=None,
        markers={"orders": NOW - 20 * MINUTE},
        topics={"orders": topic_json(RF3, adding_replicas={"0": [3]}, removing_replicas={})},
    )
    stuck = [f for f in run(snapshot) if f.check == "deletion_stuck"]
    assert stuck[0].evidence_dict["reasons"] == ("no_controller", "reassignment", "old_marker")
    assert "there is no controller" in stuck[0].detail


def test_invalid_reassignment_request_lists_each_problem() -> None:
    snapshot = healthy(
        reassignment=b'{"version":1,"partitions":[{"topic":"orders","partition":0,"replicas":[1,1,9,-1]},'
        b'{"topic":"orders","partition":8,"replicas":[]}]}'
    )
    invalid = sorted((f for f in run(snapshot) if f.check == "invalid_reassignment_request"), key=Finding.sort_key)
    assert [(f.partition, f.evidence_dict["problems"]) for f in invalid] == [
        (0, ("duplicates", "negative_ids", "unknown_brokers")),
        (8, ("missing_partition", "empty")),
    ]
    assert invalid[0].evidence_dict["unknown_brokers"] == (9,)
    assert invalid[0].path == "/admin/reassign_partitions"


def test_topic_name_messages_are_kafkas() -> None:
    assert name_problem("") == "Topic name is invalid: the empty string is not allowed"
    assert name_problem("..") == "Topic name is invalid: '..' is not allowed"
    assert name_problem("a" * 250) == (
        f"Topic name is invalid: the length of '{'a' * 250}' is longer than the max allowed length 249"
    )
    assert name_problem("a" * 249) is None and name_problem("...") is None
    assert name_problem("a b") == (
        "Topic name is invalid: 'a b' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
    )
    # Java counts UTF-16 units: 248 letters and one emoji are 250, so the length rule fires first.
    assert "length" in str(name_problem("a" * 248 + "\U0001f600"))


def test_topic_name_collision_names_the_other_topics() -> None:
    findings = run(
        healthy(
            topics={"a.b": topic_json({0: [1, 2, 3]}), "a_b": topic_json({0: [2, 3, 1]}), "orders": topic_json(RF3)}
        )
    )
    by_topic = {f.topic: f.evidence_dict["colliding_with"] for f in findings if f.check == "topic_name_collision"}
    assert by_topic == {"a.b": ("a_b",), "a_b": ("a.b",)}


def test_metadata_mismatch_compares_what_brokers_serve() -> None:
    snapshot = healthy()
    same = ServedMetadata(
        frozenset({1, 2, 3}),
        {"orders": {p: ServedPartition(r[0], tuple(r), tuple(r)) for p, r in RF3.items()}},
    )
    assert run(snapshot, served=same) == []
    different = ServedMetadata(
        frozenset({1, 2}),
        {
            "orders": {0: ServedPartition(2, (1, 2, 3), (2, 1)), 1: ServedPartition(2, (2, 3, 1), (2, 3, 1))},
            "ghost": {0: ServedPartition(1, (1,), (1,))},
        },
    )
    found = {(f.topic, f.partition, f.evidence_dict.get("differs")) for f in run(snapshot, served=different)}
    assert found == {
        (None, None, ("brokers",)),
        ("ghost", None, ("topic",)),
        ("orders", 0, ("leader", "isr")),
        ("orders", 2, ("partition",)),
    }


def test_metadata_mismatch_runs_only_with_broker_metadata() -> None:
    assert "metadata_mismatch" not in {f.check for f in run(healthy(controller=None))}


def test_only_restricts_the_checks_and_rejects_unknown_ids() -> None:
    snapshot = healthy(controller=None, states=with_states(p_1=state_json(2, [2, 3])))
    assert checks_of(run(snapshot)) == {"no_controller", "under_replicated"}
    assert checks_of(run(snapshot, only=parse_only("under_replicated"))) == {"under_replicated"}
    with pytest.raises(UsageError, match="unknown check id"):
        parse_only("under_replicated,nope")


def test_unreadable_znodes_are_reported_once_with_their_location() -> None:
    extra = (Unreadable("/brokers/topics/orders/partitions/x", b"", "'x' is not a partition number"),)
    snapshot = healthy(states=with_states(p_1=b"{"), extra_unreadable=extra)
    found = sorted((f.path, f.topic, f.partition) for f in run(snapshot) if f.check == "unreadable_znode")
    assert found == [
        ("/brokers/topics/orders/partitions/1/state", "orders", 1),
        ("/brokers/topics/orders/partitions/x", None, None),
    ]


def test_report_json_has_findings_summary_and_timings() -> None:
    findings = run(healthy(controller=None, states=with_states(p_1=state_json(2, [2, 3]))))
    report = CheckReport.build(findings, partitions=3, checks_run=CHECK_IDS, engine="local", timings={"checks": 0.01})
    data = json.loads(json.dumps(report.to_json()))
    assert [f["check"] for f in data["findings"]] == ["no_controller", "under_replicated"]
    assert data["findings"][1]["evidence"]["isr"] == [2, 3]
    assert data["summary"]["partitions"] == 3 and data["summary"]["by_check"]["under_replicated"] == 1
    assert data["summary"]["by_check"]["offline_partition"] == 0 and data["timings"] == {"checks": 0.01}
    assert report.has_errors


def test_findings_are_frozen_and_compare_by_value() -> None:
    a = run(healthy(controller=None))
    b = run(healthy(controller=None))
    assert a == b and hash(a[0]) == hash(b[0])
    with pytest.raises(AttributeError):
        a[0].check = "x"  # type: ignore[misc]
    assert replace(a[0], detail="x") != a[0]
