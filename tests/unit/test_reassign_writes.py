"""What a reassignment writes (Kafka's znode formats, throttles as the tool merges them) and how its
progress reads, without a cluster."""

from __future__ import annotations

import json

from core.brokers.wire import CLIENT_ID
from core.configs.zk import StoredConfig, change_writes, encode_change_notification
from core.kafka.znodes import ControllerInfo, PartitionState, TopicAssignment
from core.reassign.ops import encode_reassignment, throttle_configs
from core.reassign.plan import Move
from core.reassign.progress import ADDING, DONE, QUEUED, REMOVING, partition_progress
from core.topics.facts import ClusterFacts


def facts(brokers: tuple[int, ...] = (1, 2, 3, 4), controller: bool = True) -> ClusterFacts:
    return ClusterFacts(
        brokers=dict.fromkeys(brokers),  # type: ignore[arg-type]  # only the ids matter here
        topic_names=frozenset({"t"}),
        topic_order=("t",),
        marked_for_deletion=frozenset(),
        # Only whether there is a controller matters to progress.
        controller=ControllerInfo(broker_id=1, timestamp_ms=None, version=1, kraft_controller_epoch=None)
        if controller
        else None,
        controller_zk_version=None,
        migration=None,
        reassignment=None,
    )


def test_reassignment_znode_is_kafkas_encoding() -> None:
    data = encode_reassignment([Move("t", 0, (1, 2), (3, 2)), Move("u", 5, (1,), (4,))])
    assert data == (
        b'{"version":1,"partitions":[{"topic":"t","partition":0,"replicas":[3,2]},'
        b'{"topic":"u","partition":5,"replicas":[4]}]}'
    )


def test_config_change_is_the_config_at_its_version_then_a_sequential_notification() -> None:
    stored = StoredConfig("topics", "t", (("retention.ms", "1000"),), 3)
    config, notification = change_writes(stored, {"retention.ms": "2000"})
    assert (config.op, config.path, config.expected_version) == ("set", "/config/topics/t", 3)
    assert json.loads(config.data) == {"version": 1, "config": {"retention.ms": "2000"}}
    assert (notification.op, notification.path) == ("sequential", "/config/changes/config_change_")
    assert notification.data == b'{"version":2,"entity_path":"topics/t"}'
    created, _ = change_writes(StoredConfig("brokers", "2", (), None), {"a": "b"})
    assert (created.op, created.path) == ("create", "/config/brokers/2")
    assert encode_change_notification("brokers", "2") == b'{"version":2,"entity_path":"brokers/2"}'


def test_throttles_merge_into_existing_overrides() -> None:
    moves = [Move("t", 0, (1, 2), (1, 3))]
    topics, brokers = throttle_configs(
        moves,
        1000,
        {"t": StoredConfig("topics", "t", (("retention.ms", "5"),), 0)},
        {b: StoredConfig("brokers", str(b), (), None) for b in (1, 2, 3)},
    )
    assert topics == {
        "t": {
            "retention.ms": "5",
            "leader.replication.throttled.replicas": "0:1,0:2",
            "follower.replication.throttled.replicas": "0:3",
        }
    }
    assert sorted(brokers) == [1, 2, 3]
    assert brokers[2] == {"leader.replication.throttled.rate": "1000", "follower.replication.throttled.rate": "1000"}


def assignment(
    replicas: tuple[int, ...], adding: tuple[int, ...] = (), removing: tuple[int, ...] = ()
) -> TopicAssignment:
    return TopicAssignment(
        topic="t",
        version=2,
        partitions=((0, replicas),),
        adding=((0, adding),) if adding else (),
        removing=((0, removing),) if removing else (),
        topic_id=None,
    )


def isr(*brokers: int) -> PartitionState:
    return PartitionState(
        leader=brokers[0], leader_epoch=1, isr=brokers, controller_epoch=1, leader_recovery_state=0, version=1
    )


def test_progress_phases_follow_the_controller() -> None:
    key, target = ("t", 0), (1, 3)
    queued = partition_progress(key, target, assignment((1, 2)), isr(1, 2), True, facts())
    assert queued.phase == QUEUED and not queued.reasons
    adding = partition_progress(key, target, assignment((1, 3, 2), (3,), (2,)), isr(1, 2), True, facts())
    assert adding.phase == ADDING
    assert "catching up: 3 not in ISR" in adding.describe()
    removing = partition_progress(key, target, assignment((1, 3, 2), (3,), (2,)), isr(1, 2, 3), True, facts())
    assert removing.phase == REMOVING
    done = partition_progress(key, target, assignment((1, 3)), isr(1, 3), False, facts())
    assert done.phase == DONE


def test_progress_says_why_a_partition_is_stuck() -> None:
    leaderless = facts(controller=False)
    stuck = partition_progress(("t", 0), (1, 7), assignment((1, 7, 2), (7,), (2,)), isr(1, 2), True, leaderless)
    assert stuck.phase == ADDING
    assert "broker 7 is not registered" in stuck.reasons
    assert "no active controller" in stuck.reasons
    orphan = partition_progress(("t", 0), (1, 3), assignment((1, 2)), isr(1, 2), False, facts())
    assert any("nothing moves it" in r for r in orphan.reasons)


def test_cancel_request_is_alter_partition_reassignments_v0_with_null_replicas() -> None:
    from core.brokers.reassignments import decode_cancel_response, encode_cancel

    frame = encode_cancel([("t", 3)], timeout_ms=1000)
    body = frame[4:]
    assert int.from_bytes(frame[:4], "big") == len(body)
    # header v2: api key 45, version 0, correlation 1, client id, no tags
    assert body[:8] == bytes.fromhex("002d000000000001")
    rest = body[8 + 2 + len(CLIENT_ID) + 1 :]
    # timeout, 1 topic, "t", 1 partition, index 3, null replicas, tags x3
    assert (
        rest
        == bytes.fromhex("000003e8") + b"\x02" + b"\x02t" + b"\x02" + bytes.fromhex("00000003") + b"\x00\x00\x00\x00"
    )
    response = (
        bytes.fromhex("00000001") + b"\x00"  # correlation, header tags
        + bytes.fromhex("00000000") + bytes.fromhex("0000") + b"\x00"  # throttle, error, null message
        + b"\x02" + b"\x02t" + b"\x02" + bytes.fromhex("00000003") + bytes.fromhex("0055") + b"\x03no" + b"\x00"
        + b"\x00" + b"\x00"
    )  # fmt: skip
    result = decode_cancel_response(response)
    assert result.error == (0, None)
    assert result.partitions == {("t", 3): (85, "no")}


def test_log_sizes_request_and_answer_are_describe_log_dirs_v1() -> None:
    import struct

    from core.brokers.logdirs import decode_describe_log_dirs, encode_describe_log_dirs

    frame = encode_describe_log_dirs({"t": [0, 2]}, 1)
    body = frame[4:]
    assert body[:8] == bytes.fromhex("0023000100000001")  # api key 35, version 1, correlation 1
    assert body.endswith(struct.pack(">i", 1) + b"\x00\x01t" + struct.pack(">iii", 2, 0, 2))

    def log_dir(error: int, entries: list[tuple[int, int, int]]) -> bytes:
        partitions = b"".join(struct.pack(">iqqb", p, size, 0, future) for p, size, future in entries)
        return (
            struct.pack(">h", error)
            + b"\x00\x04/log"
            + struct.pack(">i", 1)
            + b"\x00\x01t"
            + (struct.pack(">i", len(entries)) + partitions)
        )

    answer = struct.pack(">ii", 1, 0) + struct.pack(">i", 3)
    answer += log_dir(0, [(0, 500, 0), (2, 70, 1)])  # partition 2 here is a future replica: not counted
    answer += log_dir(0, [(2, 90, 0)])
    answer += log_dir(56, [(0, 9999, 0)])  # a failed log dir (KAFKA_STORAGE_ERROR): not counted
    assert decode_describe_log_dirs(answer) == {("t", 0): 500, ("t", 2): 90}
