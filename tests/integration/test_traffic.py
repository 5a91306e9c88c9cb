"""``kzc traffic`` on the real sandbox: producers at known rates (one topic spread evenly, one skewed onto a
single partition, one idle), read back from the brokers' high watermarks and log dirs; the skewed partition
named by what the load says and by the likely cause (``kzc describe --traffic``); a producer that stops reads
idle within one window, and ``kzc traffic --follow`` names the consumer group that waits on its topic; log dirs
show their growth and, on this release (DescribeLogDirs v4), the time until full; the console (in tmux) shows
the load on its traffic line, names the skewed partition on its likely-cause line and sorts the hot topic
first. ``kzc record`` stores the rates and ``kzc history traffic`` gives them back."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from confluent_kafka import Consumer, Message, Producer
from kazoo.client import KazooClient

from cli.main import main
from core.history.schema import GROUP_LAG, PARTITION, TRAFFIC
from core.history.store import HistoryStore
from core.kafka.znodes.paths import state_path
from core.polling import DeadlineExceeded, wait_until
from core.sandbox.local_cluster import Sandbox
from tests.integration.terminal_tools import KZC, Tmux, new_tmux

pytestmark = pytest.mark.integration

WINDOW = "6s"
VALUE = 200  # bytes of every message's value (no key, no headers)
PARTITIONS = 3


def kzc_json(capsys: pytest.CaptureFixture[str], box: Sandbox, *argv: str) -> Any:
    code = main([*argv, "--json", "--zookeeper", box.info().zookeeper])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def kzc_json_at_once(box: Sandbox, *commands: tuple[str, ...]) -> list[Any]:
    """Each command's ``--json`` output, the commands run at once as ``kzc`` processes: each measures its own
    window against what was produced in it, so their windows may overlap and the test waits out one of them."""
    zookeeper = ["--json", "--zookeeper", box.info().zookeeper]
    runs = [
        subprocess.Popen([str(KZC), *argv, *zookeeper], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for argv in commands
    ]
    outputs = []
    for argv, run in zip(commands, runs, strict=True):
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, (argv, err)
        outputs.append(json.loads(out))
    return outputs


def create(capsys: pytest.CaptureFixture[str], box: Sandbox, topic: str) -> None:
    argv = ["topic", "create", topic, "--partitions", str(PARTITIONS), "--replication-factor", "3", "--yes", "--wait"]
    code = main([*argv, "--json", "--zookeeper", box.info().zookeeper])
    _, err = capsys.readouterr()
    assert code == 0, err


class Load:
    """A producer thread: ``rate`` messages a second to ``topic``, round robin over ``partitions``, bounded by
    ``limit_s`` (the test stops it sooner). With acks=all a message is acknowledged once every in-sync replica
    has it, i.e. once the high watermark passed it: the time its acknowledgement arrived is when it counts."""

    def __init__(
        self, bootstrap: str, topic: str, rate: int, partitions: tuple[int, ...], limit_s: float = 300
    ) -> None:
        self.topic, self.rate, self.partitions, self.limit_s = topic, rate, partitions, limit_s
        self.producer = Producer(
            {"bootstrap.servers": bootstrap, "linger.ms": 20, "acks": "all", "compression.type": "none"}
        )
        self.delivered: list[tuple[int, int]] = []  # (acknowledged at, ms; partition)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"load-{topic}", daemon=True)

    def _delivered(self, err: object, msg: Message) -> None:
        if err is None:
            self.delivered.append((int(time.time() * 1000), msg.partition()))

    def _run(self) -> None:
        start = time.monotonic()
        sent = 0
        # The schedule is absolute, so a thread held back by a busy machine catches up and the mean rate holds;
        # the stop event's wait paces it (a rate limiter, not a wait on the system under test).
        while not self.stop.is_set() and time.monotonic() - start < self.limit_s:
            due = int((time.monotonic() - start) * self.rate)
            for _ in range(due - sent):
                partition = self.partitions[sent % len(self.partitions)]
                self.producer.produce(self.topic, b"v" * VALUE, partition=partition, on_delivery=self._delivered)
                sent += 1
            self.producer.poll(0)
            self.stop.wait(0.02)
        assert self.producer.flush(60) == 0

    def in_window(self, end_ms: int, window_s: float, partitions: set[int] | None = None) -> float:
        """Messages per second acknowledged in the window ending at ``end_ms`` (to these partitions)."""
        start_ms = end_ms - window_s * 1000
        count = sum(
            1 for at, p in list(self.delivered) if start_ms < at <= end_ms and (partitions is None or p in partitions)
        )
        return count / window_s


@contextmanager
def running(*loads: Load) -> Iterator[None]:
    for load in loads:
        load.thread.start()
    try:
        yield
    finally:
        for load in loads:
            load.stop.set()
        for load in loads:
            load.thread.join(90)


@contextmanager
def consuming(bootstrap: str, group: str, topic: str) -> Iterator[None]:
    """A consumer of ``topic`` in ``group``, polling (and committing every 500 ms) until the block ends."""
    stop = threading.Event()

    def run() -> None:
        consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                             "enable.auto.commit": True, "auto.commit.interval.ms": 500})  # fmt: skip
        consumer.subscribe([topic])
        try:
            while not stop.is_set():
                consumer.poll(0.2)
        finally:
            consumer.close()

    thread = threading.Thread(target=run, name=f"consume-{topic}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join(30)


def stopped_while_consumers_wait(box: Sandbox, topic: str, load: Load) -> Any:
    """``kzc traffic --follow --json`` on ``topic`` (only ``--zookeeper``: the groups are read from the brokers the
    registrations list); ``load`` stops a second into the window after the first, and the first window that says
    the producers stopped is returned with the window after it."""
    command = [sys.executable, "-m", "cli.main", "traffic", "--follow", "--json", "--window", "2s", "--topic", topic]
    follow = subprocess.Popen([*command, "--zookeeper", box.info().zookeeper], stdout=subprocess.PIPE, text=True)
    lines: list[Any] = []
    reader = threading.Thread(target=lambda: lines.extend(json.loads(line) for line in follow.stdout or ()))
    reader.start()
    try:
        first = wait_until(lambda: lines[0] if lines else None, 60, "the first window of kzc traffic --follow")
        read_ms = max(r["read_ms"] for r in first["rows"])
        wait_until(lambda: any(at > read_ms + 1000 for at, _ in list(load.delivered)), 30, "a second into the window")
        load.stop.set()
        load.thread.join(60)

        def found() -> Any:
            return next((i for i, w in enumerate(lines) if i and any(f["kind"] == "stopped" for f in w["load"])), None)

        at = wait_until(found, 60, "a window saying the producers stopped")
        wait_until(lambda: len(lines) > at + 1, 60, "the window after it")
        return lines[at], lines[at + 1]
    finally:
        follow.terminate()
        follow.wait(30)
        reader.join(30)


def leaders(zk: KazooClient, topic: str) -> dict[int, int]:
    return {p: json.loads(zk.get(state_path(topic, p))[0])["leader"] for p in range(PARTITIONS)}


def near(measured: float | None, expected: float, tolerance: float = 0.15) -> bool:
    return measured is not None and abs(measured - expected) <= tolerance * expected


def test_rates_per_topic_broker_and_partition_then_idle_when_the_producer_stops(
    sandbox: Sandbox, zk: KazooClient, capsys: pytest.CaptureFixture[str]
) -> None:
    steady, skewed, idle = "traffic-steady", "traffic-skewed", "traffic-idle"
    for topic in (steady, skewed, idle):
        create(capsys, sandbox, topic)
    bootstrap = sandbox.info().bootstrap_servers
    even = Load(bootstrap, steady, 150, tuple(range(PARTITIONS)))
    hot = Load(bootstrap, skewed, 60, (0,))
    group = f"traffic-waits-{uuid.uuid4().hex[:8]}"
    with running(even, hot), consuming(bootstrap, group, steady):
        wait_until(lambda: len(even.delivered) > 150 and len(hot.delivered) > 60, 60, "both loads delivering")
        hot_leader = leaders(zk, skewed)[0]
        everything, by_broker, parts, disks, broker, described = kzc_json_at_once(
            sandbox,
            ("traffic", "--window", WINDOW),
            ("traffic", "--by", "broker", "--topic", steady, "--window", WINDOW),
            ("traffic", "--by", "partition", "--topic", skewed, "--window", WINDOW),
            ("traffic", "--by", "logdir", "--window", WINDOW),
            ("broker", str(hot_leader), "--traffic", "2s"),
            ("describe", "--traffic", "2s"),
        )
        topics = {r["topic"]: r for r in everything["rows"]}
        broker, cause = broker["traffic"], described["likely_cause"]
        stopped, still = stopped_while_consumers_wait(sandbox, steady, even)

    # messages in per topic: within 15% of what was produced in the same window
    for topic, load in ((steady, even), (skewed, hot)):
        row = topics[topic]
        assert row["source"] == ["offsets", "log dirs"] and row["window_s"] >= 5.5
        expected = load.in_window(row["read_ms"], row["window_s"])
        assert near(row["messages_in_per_s"], expected), (topic, row, expected)
        assert not row["idle"] and row["bytes_in_per_s"] > 0
    assert topics[idle]["messages_in_per_s"] == 0.0 and topics[idle]["idle"]
    assert topics[idle]["bytes_in_per_s"] == 0.0
    for name in ("bytes_out_per_s", "produce_p99_ms", "fetch_p99_ms"):
        assert topics[steady][name] is None and topics[steady]["unknown"][name]

    # bytes in per broker (as leader of the steady topic's partitions): the values produced, plus no more than
    # the record format's overhead (v2: a 61-byte batch header per batch, at most ~20 bytes per record)
    led = leaders(zk, steady)
    for row in by_broker["rows"]:
        mine = {p for p, b in led.items() if b == row["broker"]}
        rate = even.in_window(row["read_ms"], row["window_s"], mine)
        batches_per_s = len(mine) * (1000 / 20 + 1)  # linger.ms 20: at most one batch per partition each 20 ms
        low, high = rate * VALUE * 0.85, rate * (VALUE + 20) * 1.15 + 61 * batches_per_s
        if not mine:
            assert row["bytes_in_per_s"] == 0.0 and row["leads"] == 0
        else:
            assert low <= row["bytes_in_per_s"] <= high, (row, rate)

    # the skewed topic: every message on partition 0
    rows = {r["partition"]: r for r in parts["rows"]}
    assert rows[0]["messages_in_per_s"] > 0 and rows[1]["idle"] and rows[2]["idle"]
    assert near(rows[0]["messages_in_per_s"], hot.in_window(rows[0]["read_ms"], rows[0]["window_s"]))

    # the skewed partition is named by what the load says, with its share; the even topic is not
    for payload in (everything, parts):
        skews = {f["subject"]: f for f in payload["load"] if f["kind"] == "key_skew"}
        assert skews[f"{skewed}-0"]["share"] == 1.0 and skews[f"{skewed}-0"]["messages_in_per_s"] > 0
        assert not any(s.startswith(steady) for s in skews)

    # the likely cause names it too, with its numbers (after the health it explains, if any)
    (skew,) = [f for f in cause["load"] if f["kind"] == "key_skew" and f["subject"] == f"{skewed}-0"]
    assert skew["share"] == 1.0 and skew["messages_in_per_s"] > 0
    assert f"key skew: {skewed}-0 takes 100% of {skewed}'s messages in" in cause["text"]

    # kzc broker ID --traffic: the leader of the skewed partition, its load and what the load says about it
    assert broker["broker"] == hot_leader and broker["messages_in_per_s"] > 0 and broker["window_s"] >= 1.5
    assert broker["stopped_from"].startswith("two windows of 2s")  # both loads ran throughout: none stopped
    assert not any(f["kind"] == "stopped" for f in broker["load"])
    assert 0 < broker["share_of_bytes_in"] <= 1 and broker["log_dirs"]
    assert any(f["kind"] == "key_skew" and f["subject"] == f"{skewed}-0" for f in broker["load"])

    # log dirs: used bytes, growth, and (Kafka 3.3+) the free space and the time until full
    dirs = [r for r in disks["rows"] if r["used_bytes"]]
    assert dirs and all(r["usable_bytes"] and r["total_bytes"] for r in dirs)
    growing = [r for r in dirs if r["growth_bytes_per_hour"]]
    assert growing and all(r["full_in_s"] and r["full_in_s"] > 0 for r in growing)

    # the steady topic's producer stopped a second into a window of --follow: that window took messages, the next
    # none, and the group (caught up, its member still polling) waits on it
    row = next(r for r in stopped["rows"] if r["topic"] == steady)
    assert row["idle"] and row["messages_in_per_s"] == 0.0
    (finding,) = [f for f in stopped["load"] if f["kind"] == "stopped"]
    assert finding["subject"] == steady and finding["messages_in_per_s_before"] >= 1
    assert {"group": group, "members": 1, "partitions": PARTITIONS, "lag": 0} in finding["waiting"], finding
    assert f"consumer group waits on it, caught up (lag 0): {group} (1 member, 3 partitions)" in finding["text"]
    # still idle the window after: the finding holds, since the same moment, its groups not read again yet
    (held,) = [f for f in still["load"] if f["kind"] == "stopped"]
    assert held["stopped_at_ms"] == finding["stopped_at_ms"] and held["idle_s"] > finding["idle_s"]
    assert held["waiting_read_at_ms"] == finding["waiting_read_at_ms"] and held["waiting"] == finding["waiting"]

    # the producers stopped and flushed: the next window reads idle
    after = {r["topic"]: r for r in kzc_json(capsys, sandbox, "traffic", "--window", "3s")["rows"]}
    assert after[steady]["idle"] and after[steady]["messages_in_per_s"] == 0.0
    assert after[skewed]["idle"]


def test_the_recorder_stores_the_rates_and_history_traffic_gives_the_produced_rate(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    topic, out = "traffic-history", tmp_path / "store"
    create(capsys, sandbox, topic)
    load = Load(sandbox.info().bootstrap_servers, topic, 100, tuple(range(PARTITIONS)))
    zk = ["--zookeeper", sandbox.info().zookeeper]
    command = [sys.executable, "-m", "cli.main", "record", "--out", str(out), "--flush-every", "1s"]
    group = f"traffic-history-{uuid.uuid4().hex[:8]}"
    with running(load), consuming(sandbox.info().bootstrap_servers, group, topic):
        wait_until(lambda: len(load.delivered) > 100, 60, "the load delivering")
        recorder = subprocess.Popen([*command, "--traffic-every", "2s", *zk], stderr=subprocess.PIPE)
        try:
            wait_until(lambda: len(_ticks(out, topic)) >= 5, 90, "five ticks of the topic's rates recorded")
            lag = wait_until(lambda: _lag_tick(out, group), 60, "a tick with the group's committed partitions")
        finally:
            recorder.send_signal(signal.SIGTERM)
            recorder.wait(30)
    answer = kzc_json(capsys, sandbox, "history", "traffic", "--topic", topic, "--since", "1h", "--store", str(out))
    hours = [h["messages_in_per_s"] for h in answer["hours"]]
    known = sum(h["ticks_known"] for h in hours)
    mean = sum(h["mean"] * h["ticks_known"] for h in hours if h["mean"] is not None) / known
    ticks = _ticks(out, topic)
    start = min(read - window * 1000 for read, window in ticks.values())
    end = max(read for read, _ in ticks.values())
    # every recorded tick after the first snapshot is known (the load ran throughout) and within 15%
    assert known == len(ticks) and all(h["ticks_unknown"] == 0 for h in hours)
    assert near(mean, load.in_window(int(end), (end - start) / 1000)), (answer, ticks)
    # the group's lag at a tick: its committed offsets against that tick's high watermarks, every partition known
    assert sorted(r["partition"] for r in lag) == list(range(PARTITIONS))
    assert all(r["source"] == "kafka" and r["unknown"] is None for r in lag), lag
    assert all(0 <= r["committed"] <= r["end_offset"] and r["lag"] == r["end_offset"] - r["committed"] for r in lag)


def _lag_tick(out: Path, group: str) -> list[dict[str, Any]] | None:
    """The ``group_lag`` rows of ``group`` at the last tick that holds a committed offset for every partition."""
    if not (out / GROUP_LAG).exists():
        return None
    store = HistoryStore(out)
    rows = [r for c in store.clusters() for r in store.read(GROUP_LAG, c).to_pylist() if r["group"] == group]
    ticks: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        if row["topic"] is not None:
            ticks.setdefault(row["ts_ms"], []).append(row)
    whole = [ts for ts, parts in ticks.items() if len(parts) == PARTITIONS]
    return ticks[max(whole)] if whole else None


def _ticks(out: Path, topic: str) -> dict[int, tuple[int, float]]:
    """Each recorded tick of ``topic`` whose every partition's rate is known: (read time, window)."""
    if not (out / TRAFFIC).exists():
        return {}
    store = HistoryStore(out)
    rows = [r for c in store.clusters() for r in store.read(TRAFFIC, c).to_pylist()]
    ticks: dict[int, list[dict[str, Any]]] = {}
    for row in rows:
        if row["kind"] == PARTITION and row["topic"] == topic:
            ticks.setdefault(row["ts_ms"], []).append(row)
    return {
        ts: (max(r["read_ms"] for r in parts), max(r["window_s"] for r in parts))
        for ts, parts in ticks.items()
        if all(r["messages_in_per_s"] is not None for r in parts)
    }


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    assert shutil.which("tmux"), "tmux is needed for the console test"
    session = new_tmux(tmp_path)
    yield session
    session.kill()


def test_the_console_shows_the_load_and_sorts_the_hot_topic_first(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str], tmux: Tmux
) -> None:
    run = uuid.uuid4().hex[:8]
    topic, idle = f"traffic-console-{run}-z", f"traffic-console-{run}-a"  # by name the idle one comes first
    for name in (idle, topic):
        create(capsys, sandbox, name)
    info = sandbox.info()
    load = Load(info.bootstrap_servers, topic, 120, (0,))  # skewed: every message to partition 0
    with running(load):
        wait_until(lambda: len(load.delivered) > 120, 60, "the load delivering")
        tmux.start([str(KZC), "--zookeeper", info.zookeeper], width=200, height=50)
        # the cluster screen's traffic line: a figure, not idle, not unknown (the second tick, 5 s after the first)
        line = wait_until(lambda: re.search(r"traffic in: ([\d,.]+)/s · ([\d.]+ \w+)/s", tmux.screen()), 60,
                          "a traffic figure on the cluster screen")  # fmt: skip
        assert line is not None and float(line.group(1).replace(",", "")) > 0
        # the likely-cause line names the skewed partition (one line however the screen wraps it)
        skew = f"key skew: {topic}-0 takes 100% of {topic}'s messages in"
        wait_until(lambda: skew in " ".join(row.strip() for row in tmux.screen().splitlines()), 30,
                   "the likely cause to name the skewed partition")  # fmt: skip
        tmux.keys("t")
        tmux.wait_for("topics · traffic over")  # the topics screen is up and has its tick
        tmux.keys("h")

        def first_row() -> str:
            lines = tmux.screen().splitlines()
            head = next((n for n, text in enumerate(lines) if "parts" in text and "in/s" in text), None)
            return lines[head + 1] if head is not None and head + 1 < len(lines) else ""

        try:
            wait_until(lambda: "sorted by msg/s ▼" in tmux.screen() and topic in first_row(), 60, f"{topic} first")
        except DeadlineExceeded as exc:
            raise AssertionError(f"{exc}; the screen:\n{tmux.screen()}") from exc
        assert re.search(r"\d[\d,]*\.\d", first_row().split(topic, 1)[1])  # its msg/s: a figure
        tmux.keys("q")
        wait_until(tmux.dead, 20, "kzc to exit on q")
