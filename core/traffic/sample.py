"""One tick of traffic readings: ONE ListOffsets per broker for every partition it leads (their high watermarks,
``core.brokers.offsets``) and ONE DescribeLogDirs per broker (its log dirs and replica sizes,
``core.brokers.logdirs``), sent to every broker at once. No ZooKeeper request: which broker leads what comes
from a snapshot the caller already holds (``Layout.of``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import MappingProxyType

from core.brokers.logdirs import BrokerLogDirs, read_log_dirs
from core.brokers.offsets import BrokerOffsets, read_offsets
from core.config import KafkaSecurity
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import TopicAssignment
from core.snapshot.health import live_leader
from core.snapshot.model import ClusterSnapshot
from core.snapshot.sizes import broker_endpoints

TIMEOUT_S = 10.0  # per broker and request


@dataclass(frozen=True)
class Layout:
    """Who leads what, from a snapshot: each partition's live leader (None: no live leader, with why in
    ``leaderless``), each broker's endpoint for kzc's own requests, and the topics whose partitions are
    unknown (``unreadable``: topic -> why)."""

    leaders: Mapping[TopicPartition, int | None]
    endpoints: Mapping[int, tuple[str, int] | None]
    leaderless: Mapping[TopicPartition, str] = field(default_factory=dict)
    unreadable: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, snapshot: ClusterSnapshot, security: KafkaSecurity, topic: str | None = None) -> Layout:
        """The layout of every partition of the snapshot (of ``topic`` only, when given)."""
        live = snapshot.live_broker_ids()
        leaders: dict[TopicPartition, int | None] = {}
        leaderless: dict[TopicPartition, str] = {}
        unreadable: dict[str, str] = {}
        for name, entry in sorted(snapshot.topics.items()):
            if topic is not None and name != topic:
                continue
            assignment = entry.assignment
            if not isinstance(assignment, TopicAssignment):
                unreadable[name] = f"its assignment is unreadable: {assignment.reason}"
                continue
            for partition, _ in assignment.partitions:
                key = (name, partition)
                leader = live_leader(entry.states.get(partition), live)
                leaders[key] = leader
                if leader is None:
                    leaderless[key] = "no live leader (offline partition)"
        endpoints = MappingProxyType(broker_endpoints(snapshot, security))
        return cls(MappingProxyType(leaders), endpoints, leaderless, unreadable)

    def led_keys(self) -> dict[int, list[TopicPartition]]:
        """Per live leader, the partitions it leads."""
        out: dict[int, list[TopicPartition]] = {}
        for key, leader in self.leaders.items():
            if leader is not None:
                out.setdefault(leader, []).append(key)
        return out

    def led(self) -> dict[int, dict[str, list[int]]]:
        """Per live leader, the partitions it leads by topic (what its ListOffsets asks)."""
        out: dict[int, dict[str, list[int]]] = {}
        for leader, keys in self.led_keys().items():
            for topic, partition in keys:
                out.setdefault(leader, {}).setdefault(topic, []).append(partition)
        return out


@dataclass(frozen=True)
class Sample:
    """One tick: the layout it asked by, each leader's offsets and each broker's log dirs."""

    layout: Layout
    offsets: Mapping[int, BrokerOffsets]
    log_dirs: Mapping[int, BrokerLogDirs]
    sizes: Mapping[int, Mapping[TopicPartition, int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, layout: Layout, offsets: Mapping[int, BrokerOffsets], log_dirs: Mapping[int, BrokerLogDirs]) -> Sample:
        """The sample, each broker's replica sizes indexed once."""
        sizes = {b: MappingProxyType(r.sizes()) for b, r in log_dirs.items() if r.dirs is not None}
        return cls(layout, MappingProxyType(dict(offsets)), MappingProxyType(dict(log_dirs)), MappingProxyType(sizes))

    def end_offset(self, key: TopicPartition) -> tuple[int, int] | str:
        """The partition's high watermark and when its leader answered (epoch ms), or why it is unknown."""
        leader = self.layout.leaders.get(key)
        if leader is None:
            return self.layout.leaderless.get(key, "no live leader")
        read = self.offsets.get(leader)
        if read is None or read.offsets is None:
            return (read.unknown if read is not None else None) or f"broker {leader} was not asked"
        if key in read.errors:
            return f"broker {leader} (its leader) answered {read.errors[key]}"
        offset = read.offsets.get(key)
        if offset is None:
            return f"broker {leader} (its leader) did not answer for it"
        return offset, read.read_ms

    def end_offsets(self) -> dict[TopicPartition, int | str]:
        """Every partition's high watermark at this tick, or why it is unknown (the consumer groups' lag of
        ``kzc record``)."""
        found = {key: self.end_offset(key) for key in self.layout.leaders}
        return {key: value if isinstance(value, str) else value[0] for key, value in found.items()}

    def asks_zookeeper_again(self) -> bool:
        """Whether who leads what may have changed since the layout was read: a leader did not answer, or
        answered for a partition with an error (it may lead it no longer)."""
        return any(read.offsets is None or read.errors for read in self.offsets.values())


def read_sample(layout: Layout, timeout: float, now_ms: int, security: KafkaSecurity | None = None) -> Sample:
    """One tick (see the module docstring): the offsets and the log dirs of every broker, both at once;
    blocks up to about ``timeout`` per broker. Never raises: a broker that cannot answer is unknown with why."""
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="kzc-traffic") as pool:
        offsets = pool.submit(read_offsets, layout.endpoints, layout.led(), timeout, security=security)
        log_dirs = pool.submit(read_log_dirs, layout.endpoints, None, timeout, now_ms, security=security)
        return Sample.of(layout, offsets.result(), log_dirs.result())


def windows(
    read_layout: Callable[[], Layout], window_s: float, security: KafkaSecurity
) -> Iterator[tuple[Sample, Sample]]:
    """Every window's two samples, one window after the other, for ever: the first after one window. Each window
    starts where the last ended (its later sample is the next one's earlier); ``read_layout`` (a ZooKeeper
    read) runs first and again only after a sample in which a leader did not answer or answered a partition
    with an error."""
    layout = read_layout()
    due = time.monotonic()
    before = read_sample(layout, TIMEOUT_S, _now_ms(), security)
    while True:
        due += window_s
        time.sleep(max(0.0, due - time.monotonic()))
        after = read_sample(layout, TIMEOUT_S, _now_ms(), security)
        yield before, after
        if after.asks_zookeeper_again():
            layout = read_layout()
        before = after


def _now_ms() -> int:
    return int(time.time() * 1000)
