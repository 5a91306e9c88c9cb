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

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from core.errors import UsageError
from core.history.observations import Window
from core.history.schema import BROKER, BROKER_LEFT, CONTROLLER, PARTITION, PARTITION_REMOVED, ROW_SCHEMA
from core.history.store import HistoryStore
from core.history.traffic import TopicRates, rate_changed, topic_rates_at
from core.human_time import utc_text
from core.kafka.znodes import BrokerRegistration, EntityConfig, PartitionState
from core.snapshot.model import ClusterSnapshot

PartitionValue = tuple[tuple[int, ...] | None, int | None, tuple[int, ...] | None]  # replicas, leader, ISR


@dataclass(frozen=True)
class ClusterState:
    """The comparable part of a cluster at one moment; ``name`` says where it comes from."""

    name: str
    partitions: Mapping[tuple[str, int], PartitionValue]
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
    partitions: dict[tuple[str, int], PartitionValue] = {}
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
    with every later event up to it applied; on Spark when ``spark`` is given (the same answer). Its name says
    when the moment falls in a recorded gap or after the store's data ends (the state is then the last known).

    Raises:
        UsageError: the store holds no snapshot of the cluster at or before ``at_ms``.
    """
    window = Window.of(store, cluster, at_ms, at_ms)
    if window.base_ms is None or window.base_ms > at_ms:
        raise UsageError(f"the history store holds nothing of cluster {cluster} at or before that moment")
    rows = _latest_rows_spark(spark, window, at_ms) if spark is not None else state_rows(window, at_ms)
    rows.sort(key=lambda r: (r["ts_ms"], r["seq"]))
    partitions: dict[tuple[str, int], PartitionValue] = {}
    brokers: dict[int, tuple[str | None, str | None]] = {}
    controller: int | None = None
    for row in rows:
        kind = row["kind"]
        if kind == PARTITION:
            replicas = tuple(row["replicas"]) if row["replicas"] is not None else None
            isr = tuple(row["isr"]) if row["isr"] is not None else None
            partitions[(row["topic"], row["partition"])] = (replicas, row["leader"], isr)
        elif kind == PARTITION_REMOVED:
            partitions.pop((row["topic"], row["partition"]), None)
        elif kind == BROKER:
            brokers[row["broker"]] = (row["rack"], row["endpoint"])
        elif kind == BROKER_LEFT:
            brokers.pop(row["broker"], None)
        elif kind == CONTROLLER:
            controller = row["broker"]
    rates = topic_rates_at(store, cluster, at_ms)
    return ClusterState(_moment_name(window, at_ms), partitions, brokers, controller, None, rates)


def _moment_name(window: Window, at_ms: int) -> str:
    name = f"{window.cluster} at {utc_text(at_ms)}"
    inside = [g for g in window.gaps if g.from_ms <= at_ms < g.to_ms]
    if inside:
        gap = inside[0]
        return (f"{name} (in a recorded gap, {utc_text(gap.from_ms)} to {utc_text(gap.to_ms)}: "
                f"{gap.reason}; the last state known before it)")  # fmt: skip
    if at_ms > window.data_end_ms:
        return f"{name} (after the store's data ends at {utc_text(window.data_end_ms)}: the last state recorded)"
    return name


_STATE_COLUMNS = ["ts_ms", "seq", "kind", "topic", "partition", "broker", "leader", "isr", "replicas", "rack",
                  "endpoint"]  # fmt: skip


def state_rows(window: Window, at_ms: int) -> list[dict[str, Any]]:
    """Every row the state is built from (local engine): the base snapshot's, then each event up to ``at_ms``,
    in no order."""
    assert window.base_ms is not None
    tables = [_rows(p, window.base_ms, window.base_ms) for p in window.snapshot_files]
    tables += [_rows(p, window.base_ms + 1, at_ms) for p in window.event_files]
    return pa.concat_tables(tables).to_pylist() if tables else []


def _rows(path: object, low: int, high: int) -> pa.Table:
    table = pq.read_table(path, columns=_STATE_COLUMNS, schema=ROW_SCHEMA)
    ts = table.column("ts_ms")
    return table.filter(pc.and_(pc.greater_equal(ts, low), pc.less_equal(ts, high)))


def _latest_rows_spark(spark: Any, window: Window, at_ms: int) -> list[dict[str, Any]]:
    """The same rows reduced in Spark to the last one of each partition, broker and of the controller: applying
    only those gives the state that applying them all gives, and only they reach Python."""
    from pyspark.sql import functions as F

    from core.history.spark_schema import spark_row_schema

    assert window.base_ms is not None
    ts = F.col("ts_ms")
    frames = []
    for paths, kept in ((window.snapshot_files, ts == window.base_ms),
                        (window.event_files, (ts > window.base_ms) & (ts <= at_ms))):  # fmt: skip
        if paths:
            frames.append(spark.read.schema(spark_row_schema()).parquet(*[str(p) for p in paths])
                          .select(*_STATE_COLUMNS).where(kept))  # fmt: skip
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
        .agg(F.max(F.struct(*_STATE_COLUMNS)).alias("row"))  # (ts_ms, seq) first: the last row of each
        .select("row.*")
    )  # fmt: skip
    return [r.asDict() for r in latest.collect()]


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
