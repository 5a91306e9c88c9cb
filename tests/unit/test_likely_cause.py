"""The likely-cause line: the smallest explanation the affected partitions share (one broker missing from
every ISR, one rack, one topic), with ZooKeeper's evidence about the broker, and one offline log dir where
the brokers' log dirs (DescribeLogDirs) explain it; then what the load says (``with_load``)."""

from __future__ import annotations

from dataclasses import replace

from core.brokers.logdirs import KAFKA_STORAGE_ERROR, BrokerLogDirs, LogDir, ReplicaLog
from core.config import PLAINTEXT
from core.kafka.znodes import LogDirEventNotification
from core.snapshot.likely_cause import asks_log_dirs, likely_cause, read_likely_cause, with_load
from core.snapshot.model import Notification
from core.testdata.builder import NOW_MS, broker, snapshot, state, topic
from core.traffic.cause import LoadFinding


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


# ---- log dirs (DescribeLogDirs, core.brokers.logdirs) --------------------------------------------------

ON_DIR_B = snapshot(
    brokers=(1, 2, 3),
    topics=[
        topic("a", {0: (1, 2), 1: (2, 3)}, states={0: state(1, (1,)), 1: state(3, (3,))}),
        topic("b", {0: (2, 1, 3)}, states={0: state(1, (1, 3))}),
        topic("c", {0: (2, 3)}),  # healthy: broker 2's replica is on its online dir
    ],
)


def _dirs(*dirs: LogDir, whole: bool = True) -> dict[int, BrokerLogDirs]:
    return {2: BrokerLogDirs(2, NOW_MS, dirs, whole=whole)}


def test_an_offline_log_dir_holding_every_missing_replica_is_the_cause() -> None:
    dirs = _dirs(LogDir("/data/2a", 0, (ReplicaLog("c", 0, 10, 0, False),)), LogDir("/data/2b", KAFKA_STORAGE_ERROR))
    cause = likely_cause(ON_DIR_B, dirs)
    assert cause is not None and (cause.kind, cause.subject, cause.affected) == ("log_dir", "2:/data/2b", 3)
    assert cause.text.startswith(
        "3 of 3 under-replicated partitions lack broker 2 in their ISR; broker 2 is registered but log dir "
        "/data/2b is offline (KAFKA_STORAGE_ERROR, DescribeLogDirs read "
    )
    assert cause.text.endswith("none of these replicas is in an online log dir of it")


def test_an_offline_dir_that_does_not_explain_the_replicas_is_only_evidence() -> None:
    held = tuple(ReplicaLog(t, p, 1, 0, False) for t, p in (("a", 0), ("a", 1), ("b", 0)))
    dirs = _dirs(LogDir("/data/2a", 0, held), LogDir("/data/2b", KAFKA_STORAGE_ERROR))
    cause = likely_cause(ON_DIR_B, dirs)
    assert cause is not None and cause.kind == "broker"
    assert cause.text.endswith("; log dir /data/2b KAFKA_STORAGE_ERROR")


def test_a_partial_read_never_calls_a_replica_missing() -> None:
    dirs = _dirs(LogDir("/data/2a", 0, ()), LogDir("/data/2b", KAFKA_STORAGE_ERROR), whole=False)
    cause = likely_cause(ON_DIR_B, dirs)
    assert cause is not None and cause.kind == "broker"


def test_online_log_dirs_rule_the_disk_out() -> None:
    cause = likely_cause(ON_DIR_B, _dirs(LogDir("/data/2a", 0, ())))
    assert cause is not None and cause.kind == "broker"
    assert "broker 2 is registered and its log dirs are online (DescribeLogDirs, read" in cause.text
    assert "a paused process, the network" in cause.text


def test_log_dirs_unknown_say_why() -> None:
    unknown = {2: BrokerLogDirs(2, NOW_MS, unknown="broker 2 has no DescribeLogDirs (Kafka 1.0.0+)")}
    cause = likely_cause(ON_DIR_B, unknown)
    assert cause is not None and cause.text.endswith(
        "; its log dirs are unknown (broker 2 has no DescribeLogDirs (Kafka 1.0.0+))"
    )


def test_a_pending_log_dir_failure_notification_is_evidence() -> None:
    failure = Notification("log_dir_event_0000000003", NOW_MS, LogDirEventNotification(version=1, broker=2, event=1))
    cluster = replace(ON_DIR_B, log_dir_event_notifications=(failure,))
    cause = likely_cause(cluster)
    assert (
        cause is not None
        and "1 log dir failure notification(s) of broker 2 in /log_dir_event_notification" in cause.text
    )


def test_the_partial_cause_names_the_offline_dir_of_its_broker() -> None:
    cluster = snapshot(
        brokers=(broker(1, "r1"), broker(2, "r2"), broker(3, "r3")),
        topics=[
            topic("a", {0: (1, 2), 1: (1, 2)}, states={0: state(1, (1,)), 1: state(1, (1,))}),
            topic("b", {0: (2, 3)}, states={0: state(2, (2,))}),
        ],
    )
    dirs = _dirs(LogDir("/d/ok", 0, (ReplicaLog("b", 0, 1, 0, False),)), LogDir("/d/bad", KAFKA_STORAGE_ERROR))
    cause = likely_cause(cluster, dirs)
    assert cause is not None and cause.kind == "partial" and cause.explained == 2
    assert "broker 2 is registered but log dir /d/bad is offline" in cause.text


SKEW = LoadFinding("key_skew", "clicks-0", "key skew: clicks-0 takes 100% of clicks's messages in", {"share": 1.0})
STOPPED = LoadFinding("stopped", "orders", "producers stopped: orders took 30.0 messages/s", {"idle_s": 20.0})
LAGGING = snapshot(brokers=(1, 2, 3), topics=[topic("a", {0: (1, 2)}, states={0: state(1, (1,))})])


def test_health_first_then_the_load_with_its_numbers() -> None:
    health = likely_cause(LAGGING)
    assert health is not None
    cause = with_load(health, [SKEW, STOPPED])
    assert cause is not None and (cause.kind, cause.subject) == (health.kind, health.subject)
    # the load follows health, stopped producers before a skew (data no longer coming in is acted on first)
    assert cause.text == f"{health.text}; load: {STOPPED.text}; {SKEW.text}"
    payload = cause.to_json()
    assert payload["kind"] == "broker" and payload["text"] == cause.text
    assert payload["load"] == [STOPPED.to_json(), SKEW.to_json()] and payload["load"][1]["share"] == 1.0


def test_with_health_fine_the_load_is_the_cause() -> None:
    cause = with_load(None, [SKEW])
    assert cause is not None and (cause.kind, cause.subject, cause.affected, cause.text) == (
        "key_skew", "clicks-0", 0, SKEW.text
    )  # fmt: skip


def test_load_not_measured_stays_unknown_and_nothing_found_says_nothing() -> None:
    health = likely_cause(LAGGING)
    assert health is not None
    unmeasured = with_load(health, None)
    assert unmeasured == health and unmeasured.to_json()["load"] is None  # no window yet: not "no finding"
    assert with_load(None, None) is None
    found_nothing = with_load(health, [])
    assert found_nothing is not None and found_nothing.text == health.text and found_nothing.to_json()["load"] == []
    assert with_load(None, []) is None


def test_a_broker_already_on_kraft_is_not_asked_for_its_log_dirs_zookeeper_does_not_say_where_it_listens() -> None:
    # During a migration broker 2 runs KRaft: alive, but without a registration in /brokers/ids (kzc describe
    # once died of a KeyError here on a live cluster).
    cluster = replace(
        snapshot(brokers=(1, 3), topics=[topic("a", {0: (1, 2)}, states={0: state(1, (1,))})]),
        kraft_brokers=frozenset({2}),
    )
    cause = read_likely_cause(cluster, PLAINTEXT, live=True)
    assert cause is not None and cause.subject == "2"
    assert asks_log_dirs(cluster, cause) is None
