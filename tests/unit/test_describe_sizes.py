"""The text and JSON forms of ``kzc describe --sizes`` and of its likely-cause line (their real-cluster
counterparts: tests/integration/test_log_dir_failure.py)."""

from __future__ import annotations

from cli.describe_cmd import render_sizes, sizes_json
from core.config import PLAINTEXT
from core.snapshot.likely_cause import read_likely_cause
from core.snapshot.sizes import SizesView
from core.testdata.builder import NOW_MS, snapshot, state, topic
from core.testdata.log_dirs import replica_bytes, synthetic_log_dirs

CLUSTER = snapshot(brokers=(1, 2), topics=[topic("big", {0: (1, 2), 1: (2, 1)}), topic("small", {0: (1,)})])


def test_every_topic_and_broker_in_json_with_unknown_and_why() -> None:
    why = "broker 2 has no DescribeLogDirs (Kafka 1.0.0+; its ApiVersions lacks api key 35)"
    dirs = synthetic_log_dirs(CLUSTER, NOW_MS, unknown={2: why})
    payload = sizes_json(CLUSTER, SizesView.of(dirs, NOW_MS))
    assert payload["brokers"]["2"] == {"bytes": None, "unknown": why, "log_dirs": None}
    assert payload["brokers"]["1"]["bytes"] == replica_bytes("big", 0) + replica_bytes("big", 1) + replica_bytes(
        "small", 0
    )
    assert payload["topics"]["small"] == {"size_bytes": replica_bytes("small", 0),
                                          "on_disk_bytes": replica_bytes("small", 0), "unknown": None}  # fmt: skip
    big = payload["topics"]["big"]
    assert big["size_bytes"] is None and big["on_disk_bytes"] is None and why in big["unknown"]


def test_text_lists_brokers_then_topics_largest_first() -> None:
    dirs = synthetic_log_dirs(CLUSTER, NOW_MS, offline={2: (2,)})
    lines = render_sizes(CLUSTER, SizesView.of(dirs, NOW_MS))
    assert lines[0].startswith("Sizes        (DescribeLogDirs; a topic's size is its partitions' leader replicas")
    assert "OFFLINE: /data/2/d2" in lines[2]
    topics = [line.split()[0] for line in lines[3:]]
    sizes = {"big": replica_bytes("big", 0) + replica_bytes("big", 1), "small": replica_bytes("small", 0)}
    assert topics == sorted(sizes, key=lambda t: -sizes[t])


def test_the_likely_cause_of_a_snapshot_file_asks_no_broker() -> None:
    lagging = snapshot(brokers=(1, 2), topics=[topic("t", {0: (1, 2)}, states={0: state(1, (1,))})])
    cause = read_likely_cause(lagging, PLAINTEXT, live=False)
    assert cause is not None and cause.kind == "broker" and "broker 2 is registered" in cause.text
