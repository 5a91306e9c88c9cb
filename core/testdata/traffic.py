"""Synthetic traffic (what ListOffsets and DescribeLogDirs would answer tick after tick) for the console's tests,
demos and benchmarks: a sample reader for ``core.traffic.ticker.TrafficTicker`` whose high watermarks and leader
replica sizes grow at given rates, with brokers that cannot answer.
"""

from __future__ import annotations

from collections.abc import Mapping

from core.brokers.logdirs import BrokerLogDirs, LogDir, ReplicaLog
from core.brokers.offsets import BrokerOffsets
from core.config import KafkaSecurity
from core.kafka.topic_partition import TopicPartition
from core.traffic.sample import Layout, Sample

TICK_MS = 5_000


class SyntheticTraffic:
    """A sample reader (``read``): each call is one tick of ``TICK_MS`` later than the last, from ``start_ms``.

    Args:
        rates: topic -> messages per second, spread evenly over its partitions (``skewed``: topic -> the one
            partition that takes them all); topics not given are idle.
        bytes_per_message: what each message adds to its leader's log.
        unknown: broker -> why it cannot be read (down, a release that does not serve the request).
        stops: topic -> the tick from which its producers stopped (its offsets and sizes stay where they were).
    """

    def __init__(
        self,
        rates: Mapping[str, float],
        start_ms: int,
        bytes_per_message: int = 100,
        skewed: Mapping[str, int] | None = None,
        unknown: Mapping[int, str] | None = None,
        stops: Mapping[str, int] | None = None,
    ) -> None:
        self.rates = dict(rates)
        self.skewed = dict(skewed or {})
        self.unknown = dict(unknown or {})
        self.stops = dict(stops or {})
        self.bytes_per_message = bytes_per_message
        self.start_ms = start_ms
        self.ticks = 0

    def _per_s(self, key: TopicPartition, partitions: int) -> float:
        topic, partition = key
        rate = self.rates.get(topic, 0.0)
        if topic in self.skewed:
            return rate if partition == self.skewed[topic] else 0.0
        return rate / max(partitions, 1)

    def _until(self, topic: str, at: int) -> int:
        """The time up to which ``topic`` took messages, at a tick read at ``at``."""
        stop = self.stops.get(topic)
        return at if stop is None else min(at, self.start_ms + stop * TICK_MS)

    def read(self, layout: Layout, timeout: float, now_ms: int, security: KafkaSecurity | None = None) -> Sample:
        """The next tick's sample of ``layout`` (``now_ms`` is ignored: the ticks are ``TICK_MS`` apart)."""
        at = self.start_ms + self.ticks * TICK_MS
        self.ticks += 1
        counts: dict[str, int] = {}
        for topic, _ in layout.leaders:
            counts[topic] = counts.get(topic, 0) + 1
        messages = {
            key: int(self._per_s(key, counts[key[0]]) * self._until(key[0], at) / 1000) for key in layout.leaders
        }
        offsets: dict[int, BrokerOffsets] = {}
        log_dirs: dict[int, BrokerLogDirs] = {}
        led = layout.led_keys()
        for broker in layout.endpoints:
            if broker in self.unknown:
                offsets[broker] = BrokerOffsets(broker, at, unknown=self.unknown[broker])
                log_dirs[broker] = BrokerLogDirs(broker, at, unknown=self.unknown[broker])
                continue
            mine = led.get(broker, [])
            offsets[broker] = BrokerOffsets(broker, at, {k: messages[k] for k in mine})
            logs = tuple(ReplicaLog(t, p, messages[(t, p)] * self.bytes_per_message, 0, False) for t, p in mine)
            log_dirs[broker] = BrokerLogDirs(broker, at, (LogDir(f"/data/{broker}", 0, logs),))
        return Sample.of(layout, offsets, log_dirs)
