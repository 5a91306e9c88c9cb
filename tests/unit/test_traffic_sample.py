"""core.traffic.sample: one tick is ONE ListOffsets and ONE DescribeLogDirs per broker, whatever the number of
partitions it leads; a 0.10.2 broker answers ListOffsets v1 and has no DescribeLogDirs, so its messages in
are known and its bytes in unknown with the reason (loopback stand-ins, ``tests/unit/fake_broker.py``)."""

from __future__ import annotations

import itertools
from dataclasses import replace
from types import MappingProxyType

from core.brokers.logdirs import LogDir, ReplicaLog
from core.config import KafkaSecurity
from core.kafka.znodes import Unreadable
from core.testdata.builder import snapshot, state, topic
from core.traffic.rates import unknown
from core.traffic.sample import Layout, read_sample, windows
from core.traffic.view import Traffic
from tests.unit.fake_broker import RELEASE_APIS, Received, fake_broker, list_offsets_answer, log_dirs_answer

HW = {("old", p): 0 for p in range(4)} | {("new", p): 0 for p in range(3)}


def _offsets(request: Received) -> bytes:
    # the stand-in answers every partition it leads (the test's layout decides which)
    asked = {("old", p) for p in range(4)} if b"old" in request.body else {("new", p) for p in range(3)}
    return list_offsets_answer(request.version, {k: HW[k] for k in asked}, {})


def _log_dirs(request: Received) -> bytes:
    replicas = tuple(ReplicaLog(t, p, 10 * HW[(t, p)], 0, False) for t, p in sorted(HW) if t == "new")
    return log_dirs_answer(request.version, [LogDir("/data", 0, replicas, 1 << 30, 1 << 20)])


def test_one_request_of_each_per_broker_and_the_old_release_s_bytes_unknown_with_why() -> None:
    with (
        fake_broker(RELEASE_APIS["0.10.2"], {2: _offsets}) as (old_port, old_got),
        fake_broker(RELEASE_APIS["3.9"], {2: _offsets, 35: _log_dirs}) as (new_port, new_got),
    ):
        cluster = snapshot(
            brokers=(1, 2),
            topics=[
                topic("old", {p: (1,) for p in range(4)}),
                topic("new", {p: (2,) for p in range(3)}),
                topic("gone", {0: (1,)}, states={0: state(-1, ())}),
                topic("odd", {}, assignment=Unreadable("/brokers/topics/odd", b"{", "not JSON")),
            ],
        )
        layout = Layout.of(cluster, KafkaSecurity())
        endpoints = {1: ("127.0.0.1", old_port), 2: ("127.0.0.1", new_port)}
        layout = replace(layout, endpoints=MappingProxyType(endpoints))
        before = read_sample(layout, 5.0, 1_000)
        for p in range(4):
            HW[("old", p)] += 30 * (p + 1)
        HW[("new", 0)] += 60
        after = read_sample(layout, 5.0, 2_000)
    # one ListOffsets per broker per tick (all 4 or 3 partitions in it); DescribeLogDirs only where served
    assert sorted((r.api_key, r.version) for r in old_got) == [(2, 1), (2, 1)] + [(18, 0)] * 4
    assert sorted((r.api_key, r.version) for r in new_got if r.api_key != 18) == [(2, 7), (2, 7), (35, 4), (35, 4)]
    traffic = Traffic(before, after)
    topics = {r.topic: r for r in traffic.topics()}
    old, new, gone, odd = topics["old"], topics["new"], topics["gone"], topics["odd"]
    assert odd.messages_in is not None and odd.messages_in.unknown == "its assignment is unreadable: not JSON"
    assert old.messages_in is not None and old.messages_in.per_s is not None and old.messages_in.per_s > 0
    assert old.bytes_in is not None and old.bytes_in.per_s is None
    assert old.bytes_in.unknown is not None and "broker 1 has no DescribeLogDirs (Kafka 1.0.0+" in old.bytes_in.unknown
    assert new.bytes_in is not None and new.bytes_in.per_s == 600.0  # 600 bytes over the 1 s between the reads
    assert gone.messages_in is not None and gone.messages_in.unknown == "no live leader (offline partition)"
    disk = next(r.to_json() for r in traffic.log_dirs() if r.broker == 2)
    assert disk["usable_bytes"] == 1 << 20 and disk["full_in_s"] == round((1 << 20) / 600.0, 1)


def test_windows_chain_their_samples_and_read_zookeeper_again_only_after_a_leadership_error() -> None:
    answers = iter([{}, {}, {("t", 0): 6}, {}, {}])  # the third sample: t-0 answered NOT_LEADER_OR_FOLLOWER

    def offsets(request: Received) -> bytes:
        errors = next(answers)
        return list_offsets_answer(request.version, {} if errors else {("t", 0): 1}, errors)

    layouts = 0
    with fake_broker(RELEASE_APIS["0.10.2"], {2: offsets}) as (port, _):

        def read_layout() -> Layout:
            nonlocal layouts
            layouts += 1
            return Layout({("t", 0): 1}, MappingProxyType({1: ("127.0.0.1", port)}))

        found = list(itertools.islice(windows(read_layout, 0.01, None), 4))
    assert all(found[i][1] is found[i + 1][0] for i in range(3))  # each window starts where the last ended
    assert layouts == 2  # the first, and once after the sample that answered an error
    assert Traffic(*found[1]).partitions()[0].messages_in == unknown(
        "broker 1 (its leader) answered NOT_LEADER_OR_FOLLOWER"
    )
