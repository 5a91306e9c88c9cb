"""Log sizes as the brokers report them (DescribeLogDirs, ``core.brokers.logdirs``): each partition's size, each
topic's, each broker's total, and where a broker cannot say, why; with when each broker's numbers were read.

- **partition size**: the size of its leader's replica (what consumers read; followers hold the same log, give
  or take what they have not fetched yet); unknown without a leader, or when the leader cannot say;
- **on disk**: the sum over all its replicas, as each broker reports them (a replica a broker does not list,
  e.g. on an offline dir, holds nothing there); unknown when a broker holding a replica cannot say;
- **topic size** and **topic on disk**: the sums over its partitions, unknown when one of them is;
- **broker total**: the bytes in its online log dirs.

Future replicas (a move between log dirs) are never counted. ``SizeBook`` keeps each broker's last good read:
a broker that stops answering keeps its numbers, marked stale since they were read with the reason (as
``core.groups.freshness`` does for consumer groups); ``SizesView.aged`` marks everything stale once no read
has finished for a while, so no number freezes silently.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from core.brokers.capabilities import wire_endpoint
from core.brokers.logdirs import BrokerLogDirs, read_log_dirs
from core.config import KafkaSecurity
from core.human_time import age_text, clock_text
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import PartitionState, TopicAssignment
from core.snapshot.health import live_leader
from core.snapshot.model import ClusterSnapshot, TopicEntry

EVERY_S = 30.0  # a console reads the log dirs again this long after the previous read finished
STALE_AFTER_S = 3 * EVERY_S


@dataclass(frozen=True)
class Size:
    """A size in bytes and the bytes on disk over all replicas; each None with the reason (``unknown``)."""

    size: int | None
    on_disk: int | None
    unknown: str | None = None


@dataclass(frozen=True)
class SizesView:
    """Every broker's log dirs as last read (``brokers``; a stale one carries ``stale``), and when the latest
    read started (``at_ms``, 0: never). ``notes``: why no broker could be asked at all (e.g. a recording)."""

    brokers: Mapping[int, BrokerLogDirs] = field(default_factory=dict)
    at_ms: int = 0
    notes: tuple[str, ...] = ()
    _sizes: Mapping[int, Mapping[TopicPartition, int]] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, brokers: Mapping[int, BrokerLogDirs], at_ms: int, notes: tuple[str, ...] = ()) -> SizesView:
        """The view of ``brokers``, with each one's replica sizes indexed once."""
        sizes = {b: MappingProxyType(r.sizes()) for b, r in brokers.items() if r.dirs is not None}
        return cls(MappingProxyType(dict(brokers)), at_ms, notes, MappingProxyType(sizes))

    def replica_size(self, broker: int, key: TopicPartition) -> tuple[int | None, str | None]:
        """(bytes, None) of the broker's replica ``key``; (None, why) when it cannot say."""
        read = self.brokers.get(broker)
        if read is None:
            return None, f"broker {broker} was not asked (not registered)"
        if read.dirs is None:
            return None, read.unknown or f"broker {broker}: log dirs unknown"
        return self._sizes.get(broker, {}).get(key, 0), None

    def broker_total(self, broker: int) -> int | None:
        """Bytes in the broker's online log dirs, None when unknown."""
        read = self.brokers.get(broker)
        return read.total if read is not None else None

    def partition(self, replicas: tuple[int, ...], leader: int | None, key: TopicPartition) -> Size:
        """One partition: its leader's replica size, and the bytes over its replicas."""
        on_disk: int | None = 0
        why: str | None = None
        for broker in replicas:
            size, reason = self.replica_size(broker, key)
            if size is None:
                on_disk, why = None, why or reason
            elif on_disk is not None:
                on_disk += size
        if leader is None:
            return Size(None, on_disk, why or "no leader")
        size, reason = self.replica_size(leader, key)
        return Size(size, on_disk, reason or why)

    def topic(self, snapshot: ClusterSnapshot, entry: TopicEntry, live: frozenset[int] | None = None) -> Size:
        """One topic: the sums over its partitions (``partition``); ``live``: the snapshot's live brokers."""
        assignment = entry.assignment
        if not isinstance(assignment, TopicAssignment):
            return Size(None, None, "assignment unreadable")
        live = snapshot.live_broker_ids() if live is None else live
        total: int | None = 0
        on_disk: int | None = 0
        why: str | None = None
        known = self._sizes
        name = entry.name
        for partition, replicas in assignment.partitions:
            key = (name, partition)
            leader = live_leader(entry.states.get(partition), live)
            if on_disk is not None:
                # ``partition``'s rule, inlined (a topics table of 100k partitions every 30 s): a unit test
                # keeps the two equal (tests/unit/test_sizes.py)
                for broker in replicas:
                    held = known.get(broker)
                    if held is None:
                        on_disk = None
                        break
                    on_disk += held.get(key, 0)
            if total is not None:
                held = known.get(leader) if leader is not None else None
                total = None if held is None else total + held.get(key, 0)
            if why is None and (total is None or on_disk is None):
                one = self.partition(replicas, leader, key)
                why = f"partition {partition}: {one.unknown}" if one.unknown else None
            if total is None and on_disk is None and why is not None:
                break
        return Size(total, on_disk, why)

    def topics(self, snapshot: ClusterSnapshot) -> dict[str, Size]:
        """Every topic's ``topic``."""
        live = snapshot.live_broker_ids()
        return {name: self.topic(snapshot, entry, live) for name, entry in snapshot.topics.items()}

    def unasked(self, snapshot: ClusterSnapshot) -> tuple[int, ...]:
        """The brokers holding replicas that were never read (not registered): their replicas' sizes are
        unknown. Reads every assignment: call it off the UI thread."""
        holding: set[int] = set()
        for entry in snapshot.topics.values():
            if isinstance(entry.assignment, TopicAssignment):
                for _, replicas in entry.assignment.partitions:
                    holding.update(replicas)
        return tuple(sorted(holding - set(self.brokers)))

    def problems(self, unasked: tuple[int, ...] = ()) -> list[str]:
        """Why brokers' sizes are unknown or stale, one line each (``unasked``: see ``unasked``)."""
        lines = list(self.notes)
        if unasked:
            lines.append(f"broker{'s' if len(unasked) > 1 else ''} {', '.join(map(str, unasked))} not registered")
        for b, read in sorted(self.brokers.items()):
            if read.dirs is None:
                lines.append(read.unknown or f"broker {b}: unknown")
            elif read.stale:
                lines.append(f"broker {b}: stale since {clock_text(read.read_ms)} ({read.stale})")
        return lines

    def footer(self, now_ms: int, unasked: tuple[int, ...] = ()) -> str:
        """``sizes 14:36:40`` (when they were read), then what is unknown or stale and why (``? broker 6 not
        registered``); ``sizes: reading…`` before the first read."""
        if not self.at_ms:
            return "sizes: " + ("; ".join(self.notes) if self.notes else "reading…")
        text = f"sizes {clock_text(self.at_ms)}"  # when read; ``aged`` marks them stale past STALE_AFTER_S
        problems = self.problems(unasked)
        if problems:
            text += " · ? " + "; ".join(problems[:2]) + (f" (+{len(problems) - 2} more)" if len(problems) > 2 else "")
        return text

    def aged(self, now_ms: int, limit_s: float = STALE_AFTER_S) -> SizesView:
        """This view at ``now_ms``: every broker's numbers stale since read once no read has finished for
        ``limit_s`` seconds (a read that hangs never leaves sizes frozen without a mark)."""
        if not self.at_ms or now_ms - self.at_ms <= limit_s * 1000:
            return self
        reason = f"no read has finished for {age_text((now_ms - self.at_ms) / 1000)}"
        brokers = {b: r if r.dirs is None or r.stale else replace(r, stale=reason) for b, r in self.brokers.items()}
        return replace(self, brokers=MappingProxyType(brokers))


def partition_size(snapshot: ClusterSnapshot, sizes: SizesView, entry: TopicEntry, partition: int) -> Size:
    """``SizesView.partition`` of one partition of the snapshot (its replicas and live leader)."""
    assignment = entry.assignment
    if not isinstance(assignment, TopicAssignment):
        return Size(None, None, "assignment unreadable")
    replicas = dict(assignment.partitions).get(partition, ())
    state = entry.states.get(partition)
    leader = live_leader(state, snapshot.live_broker_ids()) if isinstance(state, PartitionState) else None
    return sizes.partition(replicas, leader, (entry.name, partition))


def read_sizes(
    snapshot: ClusterSnapshot, timeout: float, now_ms: int, security: KafkaSecurity
) -> dict[int, BrokerLogDirs]:
    """DescribeLogDirs of every replica of every registered broker, at once (blocks up to ``timeout`` per
    broker), to its listener of ``security``'s protocol; each broker's dirs or why they are unknown."""
    return read_log_dirs(broker_endpoints(snapshot, security), None, timeout, now_ms, security=security)


def broker_endpoints(snapshot: ClusterSnapshot, security: KafkaSecurity) -> dict[int, tuple[str, int] | None]:
    """Every registered broker's (host, port) for kzc's own requests (its listener of ``security``'s
    protocol), None when it has none."""
    endpoints: dict[int, tuple[str, int] | None] = {}
    for broker, entry in sorted(snapshot.brokers.items()):  # registered in ZooKeeper (KRaft brokers are not)
        endpoint = wire_endpoint(entry.registration, security)
        endpoints[broker] = (endpoint.host, endpoint.port) if endpoint is not None else None
    return endpoints


class SizeBook:
    """The last good read of every broker's log dirs (not thread-safe: the backend calls it under its lock)."""

    def __init__(self) -> None:
        self._good: dict[int, BrokerLogDirs] = {}

    def merge(self, reads: Mapping[int, BrokerLogDirs], at_ms: int) -> SizesView:
        """The view after a read of the registered brokers (``reads``) started at ``at_ms``: a broker read in
        full is fresh; one that failed shows its last good read, stale with the reason; a broker read before
        but no longer registered keeps its last good read, stale (it is not registered)."""
        shown: dict[int, BrokerLogDirs] = {}
        for broker, read in reads.items():
            good = self._good.get(broker)
            if read.dirs is not None:
                self._good[broker] = read
                shown[broker] = read
            elif good is not None:
                shown[broker] = replace(good, stale=read.unknown or "unknown")
            else:
                shown[broker] = read
        for broker, good in self._good.items():
            if broker not in reads:
                shown[broker] = replace(good, stale=f"broker {broker} is not registered")
        return SizesView.of(dict(sorted(shown.items())), at_ms)
