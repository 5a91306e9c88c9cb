"""``kzc tail`` on the sandbox: exactly what a producer wrote (keys, headers, compressed batches, binary
values, a 5 MB message), following new messages, and no trace left (no consumer group)."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient

from cli.main import main
from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.messages.reader import GROUP_PREFIX, TailRequest
from core.messages.stream import open_stream
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from tests.cli_runner import run
from tests.integration.cluster_reads import zk_args
from tests.integration.terminal_tools import KZC, terminal_env

FIVE_MB = 5 * 1024 * 1024


def _topic(box: Sandbox, prefix: str, capsys: pytest.CaptureFixture[str], partitions: int = 1, **config: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    code = main(
        ["topic", "create", name, "--partitions", str(partitions), "--replication-factor", "1", "--yes"]
        + [x for k, v in config.items() for x in ("--config", f"{k}={v}")]
        + zk_args(box)
    )
    assert code == 0
    capsys.readouterr()
    return name


def _produce(box: Sandbox, topic: str, records: list[dict[str, Any]], **config: Any) -> None:
    producer = Producer({"bootstrap.servers": box.info().bootstrap_servers, "linger.ms": 20, **config})
    for record in records:
        producer.produce(topic, partition=0, **record)
    assert producer.flush(30) == 0


def _groups(box: Sandbox) -> list[str]:
    admin = AdminClient({"bootstrap.servers": box.info().bootstrap_servers})
    listed = admin.list_consumer_groups(request_timeout=15).result()
    return [g.group_id for g in listed.valid]


def test_tail_shows_exactly_what_was_written_in_compressed_batches_with_headers_and_binary_values(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = _topic(sandbox, "tail-exact", capsys)
    written: list[dict[str, Any]] = []
    for codec in ("gzip", "lz4", "zstd", "none"):
        batch = [
            {"key": f"{codec}-{i}".encode(), "value": json.dumps({"codec": codec, "i": i}).encode(),
             "headers": [("trace", f"t{i}".encode()), ("raw", b"\x00\xff")]}
            for i in range(3)
        ]  # fmt: skip
        batch.append({"key": None, "value": bytes(range(256))})  # binary, not UTF-8
        batch.append({"key": b"ctl", "value": b"red \x1b[31m alert"})  # an escape sequence
        _produce(sandbox, topic, batch, **{"compression.type": codec})
        written += batch
    code, out, err = run(capsys, "tail", topic, "--from-end", "100", "--json", *zk_args(sandbox))
    assert code == 0, err
    records = [json.loads(line) for line in capsys_lines(out)]
    assert [r["offset"] for r in records] == list(range(len(written)))
    for record, sent in zip(records, written, strict=True):
        value: bytes = sent["value"]
        assert record["tstype"] == "create" and record["broker"] in (1, 2, 3)
        assert record["key"] == (None if sent["key"] is None else sent["key"].decode())
        expected_payload = value.decode() if record["payload_encoding"] == "text" else value.hex()
        assert record["payload"] == expected_payload and record["payload_size"] == len(value)
        headers = sent.get("headers", [])
        assert record.get("headers", []) == [
            x for n, v in headers for x in (n, v.decode() if v != b"\x00\xff" else "00ff")
        ]
    assert {r["payload_kind"] for r in records} == {"json", "hex"}  # the escape sequence is shown as hex too
    code, text, err = run(capsys, "tail", topic, "--from-end", "100", *zk_args(sandbox))
    assert code == 0, err
    assert "\x1b" not in text and "\x00" not in text
    assert "headers: trace=t0, raw=<hex 00ff>" in text and f"{len(written)} messages" in err


def capsys_lines(out: Any) -> list[str]:
    """The JSON lines of a tail's stdout (``run`` parses a single line as JSON already)."""
    if isinstance(out, dict):
        return [json.dumps(out)]
    return [line for line in str(out).splitlines() if line.strip()]


def test_a_5_mb_message_is_cut_in_the_list_with_its_size_and_whole_with_max_bytes_0(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = _topic(sandbox, "tail-big", capsys, **{"max.message.bytes": str(FIVE_MB + 1024 * 1024)})
    big = (b"0123456789abcdef" * (FIVE_MB // 16))[:FIVE_MB]
    _produce(sandbox, topic, [{"key": b"big", "value": big}], **{"message.max.bytes": FIVE_MB + 2 * 1024 * 1024})
    code, text, err = run(capsys, "tail", topic, *zk_args(sandbox))
    assert code == 0, err
    assert "value: text, 5.0 MiB (5,242,880 bytes)" in text
    assert "cut at 64.0 KiB of 5,242,880 bytes" in text and len(text) < 200_000
    code, out, err = run(capsys, "tail", topic, "--json", "--max-bytes", "0", *zk_args(sandbox))
    assert code == 0, err
    assert out["payload"].encode() == big and out["payload_truncated"] is False and out["payload_size"] == FIVE_MB


def test_follow_prints_a_new_message_within_a_second_and_ctrl_c_ends_it_cleanly(
    sandbox: Sandbox, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = _topic(sandbox, "tail-follow", capsys, partitions=2)
    process = subprocess.Popen(
        [str(KZC), "tail", topic, "--follow", "--json", *zk_args(sandbox)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=terminal_env(tmp_path),
    )
    lines: queue.SimpleQueue[tuple[float, str]] = queue.SimpleQueue()
    errors: list[str] = []

    def pump() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put((time.monotonic(), line))

    def pump_err() -> None:
        assert process.stderr is not None
        errors.extend(process.stderr)

    threading.Thread(target=pump, daemon=True).start()
    threading.Thread(target=pump_err, daemon=True).start()
    try:
        wait_until(lambda: any("partition 1:" in e for e in errors), 60, "tail to start")
        producer = Producer({"bootstrap.servers": sandbox.info().bootstrap_servers, "linger.ms": 0})
        latencies = []
        for i in range(5):
            sent = time.monotonic()
            producer.produce(topic, key=f"k{i}".encode(), value=f"v{i}".encode(), partition=i % 2)
            producer.flush(10)
            seen, line = lines.get(timeout=30)  # a generous deadline, not a timing assertion
            record = json.loads(line)
            assert (record["key"], record["payload"], record["partition"]) == (f"k{i}", f"v{i}", i % 2)
            latencies.append(seen - sent)
        print(f"tail --follow: produce to line read {', '.join(f'{x * 1000:.0f} ms' for x in latencies)}")
        process.send_signal(signal.SIGINT)
        assert process.wait(15) == 130
    finally:
        if process.poll() is None:
            process.kill()
    assert not any("Traceback" in e for e in errors), errors
    assert not [g for g in _groups(sandbox) if g.startswith(GROUP_PREFIX)]  # no group was created


def test_tail_leaves_no_consumer_group_and_commits_nothing(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = _topic(sandbox, "tail-trace", capsys)
    _produce(sandbox, topic, [{"key": b"k", "value": b"v"}])
    before = set(_groups(sandbox))
    code, out, err = run(capsys, "tail", topic, "--json", "--offset", "0", *zk_args(sandbox))
    assert code == 0 and out["payload"] == "v", err
    assert set(_groups(sandbox)) == before
    assert not [g for g in before if g.startswith(GROUP_PREFIX)]


def test_tail_of_a_missing_topic_says_so_as_kafka_does(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _err = run(capsys, "tail", "no-such-topic-here", "--json", *zk_args(sandbox))
    assert code == 2
    assert out == {"error": "Topic 'no-such-topic-here' does not exist."}


def test_tail_from_a_timestamp_starts_at_the_first_message_at_or_after_it(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = _topic(sandbox, "tail-time", capsys)
    _produce(sandbox, topic, [{"value": b"old", "timestamp": 1_000_000}, {"value": b"new", "timestamp": 2_000_000}])
    code, out, err = run(capsys, "tail", topic, "--json", "--timestamp", "1500000", *zk_args(sandbox))
    assert code == 0, err
    assert (out["payload"], out["ts"], out["offset"]) == ("new", 2_000_000, 1)


def test_the_consoles_stream_reads_the_same_messages_and_follows(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    topic = _topic(sandbox, "tail-console", capsys, partitions=2)
    _produce(sandbox, topic, [{"key": b"a", "value": b"1"}])
    settings = ConnectionSettings(zookeeper=parse_zookeeper(sandbox.info().zookeeper))
    stream = open_stream(settings, TailRequest(topic, from_end=0, follow=True))
    try:
        assert stream.poll(0.5) == []  # from the end: nothing old
        _produce(sandbox, topic, [{"key": b"b", "value": b"2"}])
        got = wait_until(lambda: stream.poll(0.2), 30, "the new message")
        assert [(m.key, m.value, m.offset) for m in got] == [(b"b", b"2", 1)]
        assert not stream.finished  # following never ends by itself
    finally:
        stream.close()
