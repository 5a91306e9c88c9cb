"""``kzc traffic``'s and ``kzc describe --traffic``'s bad input (one line, nothing read) and its text form (``?``
with the reason, ``idle``, time until full or why not); its JSON is checked on a real cluster in
tests/integration/test_traffic.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.main import main
from cli.traffic_cmd import render_traffic
from core.brokers.logdirs import BrokerLogDirs, LogDir, ReplicaLog
from core.brokers.offsets import BrokerOffsets
from core.traffic.sample import Layout, Sample
from core.traffic.view import Traffic

NOWHERE = ["--zookeeper", "127.0.0.1:1", "--session-timeout", "1"]


@pytest.fixture(autouse=True)
def _no_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("KZC_CONFIG", str(tmp_path / "none.toml"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["traffic", "--window", "0"], "--window must be from 1s to 1h, got '0'"),
        (["traffic", "--window", "2h"], "--window must be from 1s to 1h, got '2h'"),
        (["traffic", "--window", "soon"], "--window: 'soon' is not a duration"),
        (["traffic", "--by", "logdir", "--topic", "t"], "--topic does not apply to --by logdir"),
        (["traffic", "--by", "rack"], "argument --by: invalid choice: 'rack'"),
        (["describe", "--traffic", "0"], "--traffic must be from 1s to 1h, got '0'"),
        (["describe", "--traffic", "soon"], "--traffic: 'soon' is not a duration"),
        (["describe", "--traffic", "5s", "--snapshot", "x.jsonl"], "--traffic asks the brokers: it needs a live"),
    ],
)
def test_bad_input_is_one_json_line_before_any_connection(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*argv, "--json", *NOWHERE])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert message in json.loads(out)["error"] and len(err.splitlines()) == 1


def _traffic() -> Traffic:
    layout = Layout({("a", 0): 1, ("a", 1): 2}, {1: ("h", 1), 2: ("h", 2)})
    before = Sample.of(
        layout,
        {1: BrokerOffsets(1, 0, {("a", 0): 0}), 2: BrokerOffsets(2, 0, {("a", 1): 5})},
        {
            1: BrokerLogDirs(1, 0, (LogDir("/d", 0, (ReplicaLog("a", 0, 0, 0, False),), 10_000, 9_000),)),
            2: BrokerLogDirs(2, 0, unknown="broker 2 has no DescribeLogDirs (Kafka 1.0.0+)"),
        },
    )
    after = Sample.of(
        layout,
        {1: BrokerOffsets(1, 10_000, {("a", 0): 100}), 2: BrokerOffsets(2, 10_000, {("a", 1): 5})},
        {
            1: BrokerLogDirs(1, 10_000, (LogDir("/d", 0, (ReplicaLog("a", 0, 20_480, 0, False),), 10_000, 9_000),)),
            2: BrokerLogDirs(2, 10_000, unknown="broker 2 has no DescribeLogDirs (Kafka 1.0.0+)"),
        },
    )
    return Traffic(before, after)


def test_text_by_partition_says_idle_and_why_a_figure_is_unknown() -> None:
    lines = render_traffic("partition", 10.0, _traffic().partitions()).splitlines()
    assert lines[0].startswith("traffic by partition over 10s, read ")
    assert lines[1].split() == ["TOPIC", "PARTITION", "LEADER", "MSG/S", "IN", "BYTES/S", "IN"]
    assert lines[2].split() == ["a", "0", "1", "10.0", "2.0", "KiB/s"]
    assert lines[3].split() == ["a", "1", "2", "idle", "?"]
    assert "? a-1: bytes in: broker 2 has no DescribeLogDirs (Kafka 1.0.0+)" in lines
    assert lines[-1].startswith("bytes out and request times: from broker metrics")


def test_text_by_log_dir_gives_growth_free_space_and_time_until_full() -> None:
    lines = render_traffic("logdir", 10.0, _traffic().log_dirs()).splitlines()
    # 20 KiB used, 2 KiB/s in (7 MiB an hour), 9,000 bytes free: full in 4 s
    assert lines[2].split() == ["1", "/d", "20.0", "KiB", "2.0", "KiB/s", "7.0", "MiB/h", "8.8", "KiB", "4s"]
    assert lines[3].split() == ["2", "?", "?", "?", "?", "?", "-"]
    assert "? broker 2: bytes in: broker 2 has no DescribeLogDirs (Kafka 1.0.0+)" in lines
    assert "FULL IN: free space at the current growth ('-': broker 2 has no DescribeLogDirs (Kafka 1.0.0+))" in lines
