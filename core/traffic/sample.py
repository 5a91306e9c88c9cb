"""One tick of traffic readings: ONE ListOffsets per broker for every partition it leads (their high watermarks,
``core.brokers.offsets``) and ONE DescribeLogDirs per broker (its log dirs and replica sizes,
``core.brokers.logdirs``), sent to every broker at once. No ZooKeeper request: which broker leads what comes
from a snapshot the caller already holds (``Layout.of``).
"""

from __future__ import annotations

from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from types import MappingProxyType

from core.brokers.logdirs import BrokerLogDirs, Key, read_log_dirs
from core.brokers.offsets import BrokerOffsets, read_offsets
from core.config import KafkaSecurity
from core.kafka.znodes import TopicAssignment
from core.snapshot.health import live_leader
from core.snapshot.model import ClusterSnapshot
from core.snapshot.sizes import broker_endpoints


@dataclass(frozen=True)
class Layout:
    """Who leads what, from a snapshot: each partition's live leader (None: no live leader, with why in
    ``leaderless``), each broker's endpoint for kzc's own requests, and the topics whose partitions are
    unknown (``unreadable``: topic -> why)."""

    leaders: Mapping[Key, int | None]
    endpoints: Mapping[int, tuple[str, int] | None]
    leaderless: Mapping[Key, str] = field(default_factory=dict)
    unreadable: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, snapshot: ClusterSnapshot, security: KafkaSecurity, topic: str | None = None) -> Layout:
        """The layout of every partition of the snapshot (of ``topic`` only, when given)."""
        live = snapshot.live_broker_ids()
        leaders: dict[Key, int | None] = {}
        leaderless: dict[Key, str] = {}
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

    def led(self) -> dict[int, dict[str, list[int]]]:
        """Per live leader, the partitions it leads by topic (what its ListOffsets asks)."""
        out: dict[int, dict[str, list[int]]] = {}
        for (topic, partition), leader in self.leaders.items():
            if leader is not None:
                out.setdefault(leader, {}).setdefault(topic, []).append(partition)
        return out


@dataclass(frozen=True)
class Sample:
    """One tick: the layout it asked by, each leader's offsets and each broker's log dirs."""

    layout: Layout
    offsets: Mapping[int, BrokerOffsets]
    log_dirs: Mapping[int, BrokerLogDirs]
    sizes: Mapping[int, Mapping[Key, int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, layout: Layout, offsets: Mapping[int, BrokerOffsets], log_dirs: Mapping[int, BrokerLogDirs]) -> Sample:
        """The sample, each broker's replica sizes indexed once."""
        sizes = {b: MappingProxyType(r.sizes()) for b, r in log_dirs.items() if r.dirs is not None}
        return cls(layout, MappingProxyType(dict(offsets)), MappingProxyType(dict(log_dirs)), MappingProxyType(sizes))


def read_sample(layout: Layout, timeout: float, now_ms: int, security: KafkaSecurity | None = None) -> Sample:
    """One tick (see the module docstring): the offsets and the log dirs of every broker, both at once;
    blocks up to about ``timeout`` per broker. Never raises: a broker that cannot answer is unknown with why."""
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="kzc-traffic") as pool:
        offsets = pool.submit(read_offsets, layout.endpoints, layout.led(), timeout, security=security)
        log_dirs = pool.submit(read_log_dirs, layout.endpoints, None, timeout, now_ms, security=security)
        return Sample.of(layout, offsets.result(), log_dirs.result())
