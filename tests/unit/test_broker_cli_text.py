"""The text forms of ``kzc broker stop-check`` and ``kzc broker ID`` (their JSON is checked against a real
cluster in tests/integration/test_stop_check.py)."""

from __future__ import annotations

from itertools import pairwise

import pytest

from cli import traffic_cmd
from cli.broker_cmd import render_broker, render_stop_check
from core.brokers.logdirs import KAFKA_STORAGE_ERROR, BrokerLogDirs, LogDir, ReplicaLog
from core.brokers.offsets import BrokerOffsets
from core.config import PLAINTEXT
from core.snapshot.broker_view import broker_live, broker_view
from core.snapshot.model import StaticMinIsr
from core.snapshot.stop_check import stop_check
from core.testdata.builder import NOW_MS, config, snapshot, state, topic
from core.traffic.cause import broker_load
from core.traffic.sample import Layout, Sample
from core.traffic.view import Traffic

CLUSTER = snapshot(
    brokers=(1, 2, 3),
    topics=[
        topic("single", {0: (2,)}),
        topic("pairs", {0: (2, 3)}, topic_config=config(**{"min.insync.replicas": "2"})),
        topic("lagging", {0: (1, 2)}, states={0: state(1, (1,))}),
    ],
)


def test_stop_check_text_says_not_safe_and_lists_each_section() -> None:
    text = render_stop_check(stop_check(CLUSTER, [2], StaticMinIsr(by_broker={1: 1, 3: 1}, reason="")))
    assert text.splitlines()[:2] == [
        "Stopping broker 2 now:",
        "  NOT SAFE: 1 partition(s) go offline, 1 fall under min.insync.replicas (acks=all fails)",
    ]
    assert "  single-0  replicas [2] ISR [2]; alive out of sync: none" in text
    assert "  pairs-0  ISR [2,3] -> [3], min.insync.replicas 2 (topic)" in text
    assert "leaders move (the first live in-sync replica in assignment order) (1):\n  pairs-0  2 -> 3" in text


def test_stop_check_text_of_a_safe_stop() -> None:
    triples = snapshot(brokers=(1, 2, 3), topics=[topic("t", {0: (3, 1, 2)})])
    text = render_stop_check(stop_check(triples, [3], StaticMinIsr(by_broker={1: 2, 2: 2}, reason="")))
    assert text.splitlines()[1] == "  SAFE: no partition goes offline or under min.insync.replicas"


def test_the_offline_section_names_the_replicas_an_unclean_election_would_pick_from() -> None:
    text = render_stop_check(stop_check(CLUSTER, [1], StaticMinIsr(by_broker={2: 1, 3: 1}, reason="")))
    assert "  lagging-0  replicas [1,2] ISR [1]; alive out of sync: [2]" in text


def _dirs(*dirs: LogDir) -> BrokerLogDirs:
    return BrokerLogDirs(2, NOW_MS, dirs)


def test_broker_text() -> None:
    sizes = _dirs(LogDir("/d/a", 0, (ReplicaLog("single", 0, 10, 0, False), ReplicaLog("pairs", 0, 20, 0, False),
                                     ReplicaLog("lagging", 0, 5, 0, False))))  # fmt: skip
    view = broker_view(CLUSTER, 2)
    text = render_broker(view, broker_live(view, 0x10000AB, None, sizes), NOW_MS)
    assert "  ZK session    0x10000ab (ephemeralOwner of /brokers/ids/2)" in text
    assert "  log size      35 bytes" in text
    assert "    /d/a  35 bytes, 3 replicas" in text
    assert "  replicas in no online log dir (were on an offline dir): none" in text
    assert "  hosts 3 partitions, leads 2" in text
    assert "    lagging-0  leader 1, ISR [1]" in text


def test_broker_text_names_an_offline_dir_and_the_replicas_it_held() -> None:
    dirs = _dirs(LogDir("/d/a", 0, (ReplicaLog("single", 0, 10, 0, False),)), LogDir("/d/b", KAFKA_STORAGE_ERROR))
    view = broker_view(CLUSTER, 2)
    live = broker_live(view, None, "n/a", dirs)
    assert live.missing == ("lagging-0", "pairs-0") and live.offline_dirs == ("/d/b",)
    text = render_broker(view, live, NOW_MS)
    assert "log dir offline: /d/b (KAFKA_STORAGE_ERROR); 2 of its replicas in no online log dir" in text
    assert "    /d/b  OFFLINE (KAFKA_STORAGE_ERROR: the broker stopped using it)" in text
    assert "  replicas in no online log dir (were on an offline dir) (2):\n    lagging-0\n    pairs-0" in text
    payload = live.to_json()
    assert payload["offline_log_dirs"] == ["/d/b"] and payload["missing_replicas"] == ["lagging-0", "pairs-0"]
    assert payload["log_dirs"][1] == {
        "path": "/d/b",
        "error": "KAFKA_STORAGE_ERROR",
        "error_code": 56,
        "offline": True,
        "size_bytes": None,
        "replicas": 0,
        "future_replicas": [],
    }


def test_broker_text_of_a_broker_without_describe_log_dirs() -> None:
    unknown = BrokerLogDirs(2, NOW_MS, unknown="broker 2 has no DescribeLogDirs (Kafka 1.0.0+; ...)")
    view = broker_view(CLUSTER, 2)
    text = render_broker(view, broker_live(view, None, "n/a", unknown), NOW_MS)
    assert "  log size      unknown (broker 2 has no DescribeLogDirs (Kafka 1.0.0+; ...))" in text
    assert "log dirs (" not in text


LOADED = Layout({("a", 0): 1, ("a", 1): 1, ("b", 0): 2}, {1: ("h", 1), 2: ("h", 2)})


def sample(at: int, hw: int) -> Sample:
    """Brokers 1 (leads a-0, a-1) and 2 (leads b-0) at ``at`` ms, a-0's high watermark ``hw`` (100 bytes each)."""
    offsets = {1: BrokerOffsets(1, at, {("a", 0): hw, ("a", 1): 0}), 2: BrokerOffsets(2, at, {("b", 0): 0})}
    replicas = (
        ReplicaLog("a", 0, hw * 100, 0, False),
        ReplicaLog("a", 1, 0, 0, False),
        ReplicaLog("b", 0, 0, 0, False),
    )
    dirs = {b: BrokerLogDirs(b, at, (LogDir(f"/d{b}", 0, replicas, 10**9, 7200),)) for b in (1, 2)}
    return Sample.of(LOADED, offsets, dirs)


def test_broker_text_with_its_load_over_a_window() -> None:
    load = broker_load(Traffic(sample(0, 0), sample(10_000, 100)), 1)
    view = broker_view(CLUSTER, 1)
    text = render_broker(view, broker_live(view, None, None, BrokerLogDirs(1, 0, ())), NOW_MS, load=load)
    assert (
        "  load (10s)  messages in 10.0/s, bytes in 1000 B/s as leader of 2 partitions (100% of the cluster's "
        "bytes in)" in text
    )
    assert "    /d1  growth 3.4 MiB/h, free 7.0 KiB, full in 7s" in text
    assert (
        "  load: disk full within a day: broker 1's log dir /d1 is full in 7s at 3,600,000 bytes/hour (7,200 "
        "bytes free)" in text
    )
    assert "  load: key skew: a-0 takes 100% of a's messages in (10.0 of 10.0/s over 2 partitions)" in text


def test_broker_traffic_measures_two_windows_and_names_the_stopped_topics_it_leads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # topic a took 10 messages/s in the window before and none in the measured one: its producers stopped
    samples = [sample(0, 0), sample(10_000, 100), sample(20_000, 100)]
    monkeypatch.setattr(traffic_cmd, "windows", lambda *_: pairwise(samples))
    traffic, stopped = traffic_cmd.measure(CLUSTER, 10.0, PLAINTEXT, count=2)
    assert traffic.after is samples[2] and [(f.kind, f.subject) for f in stopped] == [("stopped", "a")]
    assert traffic_cmd.measure(CLUSTER, 10.0, PLAINTEXT)[1] == []  # one window cannot tell stopped from idle
    over = "two windows of 10s, the one before the measured one and it"
    leader, other = broker_load(traffic, 1, stopped, over), broker_load(traffic, 2, stopped, over)
    assert [f.kind for f in leader.findings] == ["stopped"] and other.findings == ()  # broker 2 leads no a
    view = broker_view(CLUSTER, 1)
    text = render_broker(view, broker_live(view, None, None, BrokerLogDirs(1, 0, ())), NOW_MS, load=leader)
    assert "  load: producers stopped: a took 10.0 messages/s until " in text
    assert f"  (producers stopped: looked for over {over}; a stop before them is not seen)" in text
    assert leader.to_json()["stopped_from"] == over and leader.to_json()["load"][0]["messages_in_per_s_before"] == 10
