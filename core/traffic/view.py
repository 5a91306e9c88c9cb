"""Traffic between two samples (``core.traffic.sample``), by partition, topic, broker (as leader) and log dir.

- **messages in per second**: the partition's high watermark delta over the time between its leader's two
  ListOffsets answers (source ``offsets``). A high watermark belongs to the partition, so a leader that moved
  in the window does not break it; the broker that leads at the end is credited.
- **bytes in per second**: the size delta of the leader's replica (DescribeLogDirs, source ``log dirs``);
  unknown when the leader moved in the window (two replicas' sizes are not one log).
- A topic's and a broker's figures are the sums over their partitions (``core.traffic.rates.total``), unknown
  when one part is; a log dir's bytes in are those of the leader replicas it holds, its growth per hour the
  delta of everything it holds (followers fill a disk too), and its time until full that growth against the
  free space the broker reports (DescribeLogDirs v4, Kafka 3.3+).
- Out bytes and request times come from broker metrics (``core.metrics``, which fills a row's ``metrics``,
  source ``metrics``); without them they are null with the reason (``METRICS_UNKNOWN``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.kafka.topic_partition import TopicPartition
from core.traffic.rates import Rate, Reading, TimeToFull, per_hour, rate, time_to_full, total, unknown
from core.traffic.sample import Sample

BY = ("topic", "broker", "partition", "logdir")
METRIC_FIELDS = ("bytes_out_per_s", "produce_p99_ms", "fetch_p99_ms")
METRICS_UNKNOWN = "from broker metrics (the JMX exporter): give --metrics-url or the context's metrics_url"
OFFSETS, LOG_DIRS, METRICS = "offsets", "log dirs", "metrics"


@dataclass(frozen=True)
class Row:
    """One row of ``kzc traffic``: what it is about (the keys that apply) and its figures."""

    topic: str | None = None
    partition: int | None = None
    broker: int | None = None
    log_dir: str | None = None
    messages_in: Rate | None = None  # None: does not apply (a log dir)
    bytes_in: Rate | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)
    metrics: Mapping[str, float | str] = field(default_factory=dict)  # a METRIC_FIELDS value, or why it is unknown

    @property
    def idle(self) -> bool:
        """Every known figure in is zero (and one is known)."""
        known = [r for r in (self.messages_in, self.bytes_in) if r is not None and r.per_s is not None]
        return bool(known) and all(r.idle for r in known)

    def to_json(self) -> dict[str, Any]:
        """The row as ``kzc traffic --json`` prints it."""
        out: dict[str, Any] = {}
        for key in ("topic", "partition", "broker", "log_dir"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        why: dict[str, str] = {}
        figures = {"messages_in_per_s": (self.messages_in, OFFSETS), "bytes_in_per_s": (self.bytes_in, LOG_DIRS)}
        sources: list[str] = []
        windows: list[float] = []
        reads: list[int] = []
        for name, (r, source) in figures.items():
            if r is None:
                continue
            out[name] = None if r.per_s is None else round(r.per_s, 3)
            if r.unknown:
                why[name] = r.unknown
            sources.append(source)
            windows += [r.window_s] if r.window_s is not None else []
            reads += [r.read_ms] if r.read_ms is not None else []
        for name in METRIC_FIELDS:
            value = self.metrics.get(name, METRICS_UNKNOWN)
            out[name] = None if isinstance(value, str) else round(value, 3)
            if isinstance(value, str):
                why[name] = value
            elif METRICS not in sources:
                sources.append(METRICS)
        out.update(self.extra)
        out["idle"] = self.idle
        out["window_s"] = round(max(windows), 3) if windows else None
        out["read_ms"] = max(reads) if reads else None
        out["source"] = sources
        out["unknown"] = why
        return out


class Traffic:
    """The rates between ``before`` and ``after`` (two samples of the same layout, ``after`` the later)."""

    def __init__(self, before: Sample, after: Sample) -> None:
        self.before = before
        self.after = after
        self._partitions = {key: self._partition(key) for key in after.layout.leaders}
        self._topics: tuple[Row, ...] | None = None  # summed once: the console's view and its findings read them

    # ---- partitions ------------------------------------------------------------------------------------

    def _hw(self, sample: Sample, key: TopicPartition) -> tuple[Reading | None, str | None]:
        found = sample.end_offset(key)
        return (None, found) if isinstance(found, str) else (Reading(*found), None)

    def _size(self, sample: Sample, key: TopicPartition, leader: int) -> tuple[Reading | None, str | None]:
        read = sample.log_dirs.get(leader)
        if read is None or read.dirs is None:
            return None, (read.unknown if read is not None else None) or f"broker {leader} was not asked"
        size = sample.sizes.get(leader, {}).get(key)
        if size is None:
            return None, f"broker {leader} (its leader) holds it in no online log dir"
        return Reading(size, read.read_ms), None

    def _partition(self, key: TopicPartition) -> tuple[Rate, Rate]:
        name = f"{key[0]}-{key[1]}"
        before, _ = self._hw(self.before, key)
        after, why = self._hw(self.after, key)
        messages = unknown(why) if why else rate(before, after, f"the high watermark of {name}")
        leader = self.after.layout.leaders.get(key)
        was = self.before.layout.leaders.get(key)
        if leader is None:
            size = unknown(self.after.layout.leaderless.get(key, "no live leader"))
        elif was != leader:
            size = unknown(f"its leader moved from {was} to {leader} in the window; the rate restarts")
        else:
            old, _ = self._size(self.before, key, leader)
            new, why = self._size(self.after, key, leader)
            size = unknown(why) if why else rate(old, new, f"the leader's log of {name}")
        return messages, size

    def partition(self, key: TopicPartition) -> tuple[Rate, Rate] | None:
        """One partition's messages and bytes in per second (None: not in the later sample)."""
        return self._partitions.get(key)

    def partitions(self) -> list[Row]:
        """One row per partition: its leader and its rates."""
        leaders = self.after.layout.leaders
        return [
            Row(topic=t, partition=p, broker=leaders.get((t, p)), messages_in=m, bytes_in=b)
            for (t, p), (m, b) in sorted(self._partitions.items())
        ]

    # ---- sums ------------------------------------------------------------------------------------------

    def _summed(self, groups: Mapping[Any, list[TopicPartition]], parts: str) -> dict[Any, tuple[Rate, Rate]]:
        out = {}
        for group, keys in groups.items():
            rates = [self._partitions[k] for k in keys]
            out[group] = (total((m for m, _ in rates), parts), total((b for _, b in rates), parts))
        return out

    def topics(self) -> list[Row]:
        """One row per topic: the sums over its partitions."""
        if self._topics is None:
            self._topics = tuple(self._summed_topics())
        return list(self._topics)

    def _summed_topics(self) -> list[Row]:
        groups: dict[str, list[TopicPartition]] = {}
        for key in self._partitions:
            groups.setdefault(key[0], []).append(key)
        summed = self._summed(groups, "partition")
        rows = [
            Row(topic=t, messages_in=m, bytes_in=b, extra={"partitions": len(groups[t])})
            for t, (m, b) in summed.items()
        ]
        for t, why in self.after.layout.unreadable.items():
            rows.append(Row(topic=t, messages_in=unknown(why), bytes_in=unknown(why), extra={"partitions": None}))
        return sorted(rows, key=lambda r: r.topic or "")

    def brokers(self) -> list[Row]:
        """One row per registered broker: the sums over the partitions it leads (at the later sample)."""
        groups: dict[int, list[TopicPartition]] = {b: [] for b in self.after.layout.endpoints}
        groups.update(self.after.layout.led_keys())
        summed = self._summed(dict(sorted(groups.items())), "partition")
        return [
            Row(broker=b, messages_in=m, bytes_in=r, extra={"leads": len(groups[b])}) for b, (m, r) in summed.items()
        ]

    def log_dirs(self) -> list[Row]:
        """One row per log dir of every broker: used bytes, growth per hour, the bytes in of the leader
        replicas it holds, and the time until full where the broker reports its free space."""
        rows = []
        leads = self.after.layout.led_keys()
        for broker, read in sorted(self.after.log_dirs.items()):
            if read.dirs is None:
                why = read.unknown or "unknown"
                rows.append(Row(broker=broker, bytes_in=unknown(why), extra=_dir_extra(None, None, why)))
                continue
            old = self.before.log_dirs.get(broker)
            old_dirs = {d.path: d for d in (old.dirs or ())} if old is not None else {}
            for d in read.dirs:
                if d.error:
                    why = f"the broker reports {d.error_name}"
                    rows.append(
                        Row(broker=broker, log_dir=d.path, bytes_in=unknown(why), extra=_dir_extra(None, None, why))
                    )
                    continue
                held = {r.key for r in d.replicas if not r.future}
                led = [k for k in leads.get(broker, ()) if k in held]
                bytes_in = total((self._partitions[k][1] for k in led), "partition")
                before = old_dirs.get(d.path)
                growth = rate(
                    Reading(before.size, old.read_ms) if before is not None and not before.error and old else None,
                    Reading(d.size, read.read_ms),
                    f"the size of {d.path}",
                )
                rows.append(
                    Row(
                        broker=broker,
                        log_dir=d.path,
                        bytes_in=bytes_in,
                        extra={
                            "used_bytes": d.size,
                            "total_bytes": d.total_bytes,
                            "usable_bytes": d.usable_bytes,
                            **_dir_extra(growth, time_to_full(d.usable_bytes, growth)),
                        },
                    )
                )
        return rows

    def rows(self, by: str) -> list[Row]:
        """The rows of one ``--by`` (``BY``)."""
        if by == "topic":
            return self.topics()
        if by == "broker":
            return self.brokers()
        if by == "partition":
            return self.partitions()
        if by == "logdir":
            return self.log_dirs()
        raise ValueError(f"--by is one of {', '.join(BY)}, not {by!r}")


def _dir_extra(growth: Rate | None, full: TimeToFull | None, why: str | None = None) -> dict[str, Any]:
    """A log dir's growth and time until full, or (``growth`` None) why the dir could not be read."""
    per = per_hour(growth) if growth is not None else None
    out: dict[str, Any] = {"growth_bytes_per_hour": None if per is None else round(per, 1)}
    out["growth_unknown"] = growth.unknown if growth is not None else why
    out["full_in_s"] = None if full is None or full.seconds is None else round(full.seconds, 1)
    out["full_in_unknown"] = full.why if full is not None else why
    return out
