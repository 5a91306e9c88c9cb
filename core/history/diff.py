"""``kzc diff A B``: what differs between two states of a cluster (or two clusters).

A side is a ``ClusterState``, the comparable part of a cluster: every partition's replicas, leader and ISR,
every topic's config overrides (None: not known, as in the history store, which does not record configs),
every broker's rack and first endpoint, the controller, and from the history store every topic's messages
and bytes in per second (the last traffic tick at or before the moment, ``core.history.traffic``; None where
not known: snapshots do not hold rates). It comes from a snapshot (a file, or a live read) or from a moment
of the history store (``state_at``: the last snapshot before it with every event up to it applied). ACLs are
never compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.errors import UsageError
from core.history.observations import Window
from core.history.schema import BROKER, BROKER_LEFT, CONTROLLER, EVENTS, PARTITION, PARTITION_REMOVED, ROW_SCHEMA
from core.history.store import HistoryStore
from core.history.traffic import TopicRates, rate_changed, topic_rates_at
from core.human_time import utc_text
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import BrokerRegistration, EntityConfig, PartitionState
from core.snapshot.model import ClusterSnapshot

PartitionValue = tuple[tuple[int, ...] | None, int | None, tuple[int, ...] | None]  # replicas, leader, ISR


@dataclass(frozen=True)
class ClusterState:
    """The comparable part of a cluster at one moment; ``name`` says where it comes from."""

    name: str
    partitions: Mapping[TopicPartition, PartitionValue]
    brokers: Mapping[int, tuple[str | None, str | None]]  # rack, endpoint
    controller: int | None
    configs: Mapping[str, Mapping[str, str]] | None = field(default=None)  # None: configs not known
    rates: TopicRates | None = field(default=None)  # None: rates not known

    @property
    def topics(self) -> frozenset[str]:
        """Every topic with a partition."""
        return frozenset(t for t, _ in self.partitions)


def state_of(snapshot: ClusterSnapshot, name: str) -> ClusterState:
    """The comparable part of ``snapshot``."""
    partitions: dict[TopicPartition, PartitionValue] = {}
    for topic, partition, replicas, state in snapshot.iter_partitions():
        if isinstance(state, PartitionState):
            partitions[(topic, partition)] = (replicas, state.leader, state.isr)
        else:
            partitions[(topic, partition)] = (replicas, None, None)
    brokers: dict[int, tuple[str | None, str | None]] = {}
    for broker_id, entry in snapshot.brokers.items():
        reg = entry.registration
        if isinstance(reg, BrokerRegistration):
            endpoint = f"{reg.endpoints[0].host}:{reg.endpoints[0].port}" if reg.endpoints else None
            brokers[broker_id] = (reg.rack, endpoint)
        else:
            brokers[broker_id] = (None, None)
    configs = {
        topic: value.as_dict() for topic, value in snapshot.topic_configs.items() if isinstance(value, EntityConfig)
    }
    return ClusterState(name, partitions, brokers, snapshot.controller_id(), configs)


def state_at(store: HistoryStore, cluster: str, at_ms: int, spark: Any = None) -> ClusterState:
    """The state of ``cluster`` at ``at_ms`` as the store knows it: its last snapshot at or before that moment
    with every later event up to it applied (``Replay``); on Spark when ``spark`` is given (the same answer). Its
    name says when the moment falls in a recorded gap or after the store's data ends (the state is then the last
    known).

    Raises:
        UsageError: the store holds no snapshot of the cluster at or before ``at_ms``.
    """
    window = Window.of(store, cluster, at_ms, at_ms)
    if window.base_ms is None or window.base_ms > at_ms:
        raise UsageError(f"the history store holds nothing of cluster {cluster} at or before that moment")
    if spark is not None:
        replay = Replay(cluster, window.base_ms)
        rows = sorted(_latest_rows_spark(spark, window, at_ms), key=lambda r: (r[0], r[1]))
        replay.apply(rows, at_ms)
    else:
        replay = replay_base(window)
        replay.advance(store, at_ms)
    return replay.state(moment_name(window, at_ms), topic_rates_at(store, cluster, at_ms))


Row = tuple[Any, ...]  # a row of the store in ``STATE_COLUMNS`` order
_LAST_MS = 2**63 - 1
TopicPartitions = dict[int, PartitionValue]


class Replay:
    """A cluster's state replayed from its base snapshot (at ``base_ms``) up to ``at_ms``. ``apply`` is the one rule
    turning the store's rows into the state: ``state_at`` replays once, the console at a moment keeps a replay
    and applies only the events between the moment it shows and the next."""

    def __init__(self, cluster: str, base_ms: int) -> None:
        self.cluster = cluster
        self.base_ms = base_ms
        self.at_ms = base_ms
        self.topics: dict[str, TopicPartitions] = {}
        self.brokers: dict[int, tuple[str | None, str | None]] = {}  # rack, endpoint
        self.controller: int | None = None
        # The event files read since the base (their rows after it), shared by copies: a move back replays them
        # again without reading them (files are written whole, never changed).
        self._events: dict[Path, pa.Table] = {}

    def copy(self) -> Replay:
        """An independent copy (the values are immutable tuples), sharing the event files read."""
        other = Replay(self.cluster, self.base_ms)
        other._events = self._events
        other.at_ms, other.controller = self.at_ms, self.controller
        other.topics = {topic: dict(partitions) for topic, partitions in self.topics.items()}
        other.brokers = dict(self.brokers)
        return other

    def apply(self, rows: Iterable[Row], at_ms: int) -> set[str]:
        """Apply ``rows`` (ordered by ``(ts_ms, seq)``, none after ``at_ms``), then the state is at ``at_ms``; the
        topics whose partitions they touched."""
        touched: set[str] = set()
        topics, brokers = self.topics, self.brokers
        for _, _, kind, topic, partition, broker, leader, isr, replicas, rack, endpoint in rows:
            if kind == PARTITION:
                value = (tuple(replicas) if replicas is not None else None, leader,
                         tuple(isr) if isr is not None else None)  # fmt: skip
                topics.setdefault(topic, {})[partition] = value
                touched.add(topic)
            elif kind == PARTITION_REMOVED:
                partitions = topics.get(topic)
                if partitions is not None and partitions.pop(partition, None) is not None:
                    touched.add(topic)
                    if not partitions:
                        del topics[topic]
            elif kind == BROKER:
                brokers[broker] = (rack, endpoint)
            elif kind == BROKER_LEFT:
                brokers.pop(broker, None)
            elif kind == CONTROLLER:
                self.controller = broker
        self.at_ms = at_ms
        return touched

    def advance(self, store: HistoryStore, at_ms: int) -> set[str]:
        """Apply every event after the replay's moment up to ``at_ms`` (not before it); the topics touched."""
        assert at_ms >= self.at_ms
        tables = []
        for path in store.files(EVENTS, self.cluster, self.at_ms + 1, at_ms):
            table = self._events.get(path)
            if table is None:
                table = self._events[path] = _rows(path, self.base_ms + 1, _LAST_MS)
            tables.append(_between(table, self.at_ms + 1, at_ms))
        return self.apply(_ordered_rows(tables), at_ms)

    def state(self, name: str, rates: TopicRates | None = None) -> ClusterState:
        """The state replayed, as a ``ClusterState`` named ``name`` (a copy: the replay may go on)."""
        partitions = {(t, p): v for t, values in self.topics.items() for p, v in values.items()}
        return ClusterState(name, partitions, dict(self.brokers), self.controller, None, rates)


def replay_base(window: Window) -> Replay:
    """The replay of ``window``'s base snapshot (the window must have one)."""
    assert window.base_ms is not None
    replay = Replay(window.cluster, window.base_ms)
    tables = [_rows(p, window.base_ms, window.base_ms) for p in window.snapshot_files]
    replay.apply(_ordered_rows(tables), window.base_ms)
    return replay


def _ordered_rows(tables: list[pa.Table]) -> Iterable[Row]:
    """The rows of ``tables`` ordered by ``(ts_ms, seq)`` (stable: tables in the order given), read column by
    column (far quicker than a dict per row)."""
    if not tables:
        return ()
    table = pa.concat_tables(tables).sort_by([("ts_ms", "ascending"), ("seq", "ascending")])
    return zip(*(table.column(name).to_pylist() for name in STATE_COLUMNS), strict=True)


def moment_name(window: Window, at_ms: int) -> str:
    """How a moment of the store is named: the cluster and the time, and whether it is in a gap or after the
    data ends."""
    name = f"{window.cluster} at {utc_text(at_ms)}"
    inside = [g for g in window.gaps if g.from_ms <= at_ms < g.to_ms]
    if inside:
        gap = inside[0]
        return (
            f"{name} (in a recorded gap, {utc_text(gap.from_ms)} to {utc_text(gap.to_ms)}: "
            f"{gap.reason}; the last state known before it)"
        )
    if at_ms > window.data_end_ms:
        return f"{name} (after the store's data ends at {utc_text(window.data_end_ms)}: the last state recorded)"
    return name


STATE_COLUMNS = ["ts_ms", "seq", "kind", "topic", "partition", "broker", "leader", "isr", "replicas", "rack",
                  "endpoint"]  # fmt: skip


def state_rows(window: Window, at_ms: int) -> list[dict[str, Any]]:
    """Every row the state is built from (local engine): the base snapshot's, then each event up to ``at_ms``,
    in no order."""
    assert window.base_ms is not None
    tables = [_rows(p, window.base_ms, window.base_ms) for p in window.snapshot_files]
    tables += [_rows(p, window.base_ms + 1, at_ms) for p in window.event_files]
    return pa.concat_tables(tables).to_pylist() if tables else []


def _rows(path: object, low: int, high: int) -> pa.Table:
    return _between(pq.read_table(path, columns=STATE_COLUMNS, schema=ROW_SCHEMA), low, high)


def _between(table: pa.Table, low: int, high: int) -> pa.Table:
    ts = table.column("ts_ms")
    return table.filter(pc.and_(pc.greater_equal(ts, low), pc.less_equal(ts, high)))


def _latest_rows_spark(spark: Any, window: Window, at_ms: int) -> list[Row]:
    """The same rows reduced in Spark to the last one of each partition, broker and of the controller: applying
    only those gives the state that applying them all gives, and only they reach Python."""
    from pyspark.sql import functions as F

    from core.history.spark_schema import spark_row_schema

    assert window.base_ms is not None
    ts = F.col("ts_ms")
    frames = []
    for paths, kept in (
        (window.snapshot_files, ts == window.base_ms),
        (window.event_files, (ts > window.base_ms) & (ts <= at_ms)),
    ):
        if paths:
            frames.append(spark.read.schema(spark_row_schema()).parquet(*[str(p) for p in paths])
                          .select(*STATE_COLUMNS).where(kept))  # fmt: skip
    if not frames:
        return []
    rows = frames[0] if len(frames) == 1 else frames[0].unionByName(frames[1])
    kind = F.col("kind")
    of_partition, of_broker = kind.isin(PARTITION, PARTITION_REMOVED), kind.isin(BROKER, BROKER_LEFT)
    entity = F.when(of_partition, "p").when(of_broker, "b").when(kind == CONTROLLER, "c")
    latest = (
        rows.where(entity.isNotNull())
        .groupBy(entity.alias("_e"), F.when(of_partition, F.col("topic")).alias("_t"),
                 F.when(of_partition, F.col("partition")).alias("_p"), F.when(of_broker, F.col("broker")).alias("_b"))
        .agg(F.max(F.struct(*STATE_COLUMNS)).alias("row"))  # (ts_ms, seq) first: the last row of each
        .select("row.*")
    )  # fmt: skip
    return [tuple(r[c] for c in STATE_COLUMNS) for r in latest.collect()]


@dataclass(frozen=True, slots=True)
class Difference:
    """One difference: ``kind`` (topic_added, partition_removed, replicas, isr, leader, config, broker_added,
    broker_removed, broker_changed, controller), what it is about, and the two values as text."""

    kind: str
    subject: str
    before: str
    after: str

    def text(self) -> str:
        return f"{self.kind:<18} {self.subject}: {self.before} -> {self.after}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "subject": self.subject, "before": self.before, "after": self.after}


def _ids(values: tuple[int, ...] | None) -> str:
    return "-" if values is None else "[" + ",".join(map(str, values)) + "]"


def diff(a: ClusterState, b: ClusterState) -> list[Difference]:
    """Every difference from ``a`` to ``b``, topics first, then partitions, configs, rates (a topic's messages or
    bytes in per second that changed, ``rate_changed``), brokers, controller."""
    out: list[Difference] = []
    for topic in sorted(b.topics - a.topics):
        count = sum(1 for t, _ in b.partitions if t == topic)
        out.append(Difference("topic_added", topic, "-", f"{count} partitions"))
    for topic in sorted(a.topics - b.topics):
        count = sum(1 for t, _ in a.partitions if t == topic)
        out.append(Difference("topic_removed", topic, f"{count} partitions", "-"))
    common = a.topics & b.topics
    for key in sorted(set(a.partitions) | set(b.partitions)):
        topic, partition = key
        if topic not in common:
            continue
        name = f"{topic}-{partition}"
        before, after = a.partitions.get(key), b.partitions.get(key)
        if before is None and after is not None:
            out.append(Difference("partition_added", name, "-", f"replicas {_ids(after[0])}"))
            continue
        if after is None and before is not None:
            out.append(Difference("partition_removed", name, f"replicas {_ids(before[0])}", "-"))
            continue
        assert before is not None and after is not None
        if before[0] != after[0]:
            out.append(Difference("replicas", name, _ids(before[0]), _ids(after[0])))
        if before[1] != after[1]:
            out.append(Difference("leader", name, str(before[1]), str(after[1])))
        if _as_set(before[2]) != _as_set(after[2]):  # the ISR is a set: its order is not a change
            out.append(Difference("isr", name, _ids(before[2]), _ids(after[2])))
    if a.configs is not None and b.configs is not None:
        for topic in sorted(common):
            old, new = a.configs.get(topic, {}), b.configs.get(topic, {})
            for option in sorted(set(old) | set(new)):
                if old.get(option) != new.get(option):
                    out.append(Difference("config", f"{topic} {option}", old.get(option, "-"), new.get(option, "-")))
    if a.rates is not None and b.rates is not None:
        for topic in sorted(set(a.rates) | set(b.rates)):
            old_r, new_r = a.rates.get(topic, (None, None)), b.rates.get(topic, (None, None))
            if any(rate_changed(x, y) for x, y in zip(old_r, new_r, strict=True)):
                out.append(Difference("rate", topic, _rates(old_r), _rates(new_r)))
    for broker in sorted(set(a.brokers) | set(b.brokers)):
        before_b, after_b = a.brokers.get(broker), b.brokers.get(broker)
        if before_b is None:
            out.append(Difference("broker_added", f"broker {broker}", "-", _broker(after_b)))
        elif after_b is None:
            out.append(Difference("broker_removed", f"broker {broker}", _broker(before_b), "-"))
        elif before_b != after_b:
            out.append(Difference("broker_changed", f"broker {broker}", _broker(before_b), _broker(after_b)))
    if a.controller != b.controller:
        out.append(Difference("controller", "controller", str(a.controller), str(b.controller)))
    return out


def _rates(value: tuple[float | None, float | None]) -> str:
    messages, size = (f"{v:,.1f}" if v is not None else "unknown" for v in value)
    return f"{messages} msg/s, {size} bytes/s in"


def _as_set(values: tuple[int, ...] | None) -> tuple[int, ...] | None:
    return None if values is None else tuple(sorted(values))


def _broker(value: tuple[str | None, str | None] | None) -> str:
    if value is None:
        return "-"
    return f"{value[1] or '?'} rack {value[0] or '-'}"


def configs_compared(a: ClusterState, b: ClusterState) -> bool:
    """Whether both sides know their configs (the history store does not record them)."""
    return a.configs is not None and b.configs is not None
