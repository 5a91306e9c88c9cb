"""Synthetic history stores of any size with realistic churn, for the history questions' tests and benchmark.

The cluster: brokers 1..B on racks r1..r3 in turn, topics of 10 partitions, three replicas on consecutive
brokers of a ring, every partition in sync at its preferred leader. Over the days, the churn of a busy
cluster: every hour a share of the partitions (``flaps_per_hour``) sees a follower leave the ISR for a few
seconds to minutes and come back; once a day a broker restarts (its partitions move their leadership to the
next replica in sync, it is out of every ISR for a few minutes, then the preferred leader is elected back).
Rows are written as the recorder writes them (``events`` as changes, a ``snapshots`` every
``snapshot_every_s``, files per hour), straight from column lists so that 100k partitions x 30 days fit in
minutes. ``SyntheticHistory`` says what was planted.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa

from core.history.schema import (
    BROKER,
    BROKER_LEFT,
    CONTROLLER,
    EVENTS,
    PARTITION,
    PARTITION_REMOVED,
    ROW_SCHEMA,
    SNAPSHOTS,
)
from core.history.store import HistoryStore

START_MS = 1_700_000_000_000 - 1_700_000_000_000 % 3_600_000  # an hour boundary
DAY_MS = 86_400_000
PER_TOPIC = 10


@dataclass
class SyntheticHistory:
    """What ``write_history`` planted: rows per table, ISR flaps and broker restarts."""

    cluster: str
    partitions: int
    start_ms: int
    end_ms: int
    flaps: int = 0
    restarts: list[tuple[int, int, int]] = field(default_factory=list)  # (broker, down at, back at)
    events: int = 0
    snapshot_rows: int = 0


class _State:
    def __init__(self, partitions: int, brokers: int) -> None:
        self.replicas = [[(p + i) % brokers + 1 for i in range(3)] for p in range(partitions)]
        self.leader = [r[0] for r in self.replicas]
        self.epoch = [0] * partitions
        self.isr = [list(r) for r in self.replicas]
        self.brokers = brokers


class _Columns:
    """Rows of ``ROW_SCHEMA`` collected as columns."""

    def __init__(self) -> None:
        self.data: dict[str, list[object]] = {name: [] for name in ROW_SCHEMA.names}
        self.count = 0

    def add(self, **values: object) -> None:
        for name, column in self.data.items():
            column.append(values.get(name))
        self.count += 1

    def partition(self, state: _State, ts: int, seq: int, p: int) -> None:
        self.add(ts_ms=ts, seq=seq, kind=PARTITION, topic=f"t{p // PER_TOPIC:05d}", partition=p % PER_TOPIC,
                 leader=state.leader[p], leader_epoch=state.epoch[p], isr=list(state.isr[p]),
                 replicas=list(state.replicas[p]), controller_epoch=5)  # fmt: skip

    def table(self) -> pa.Table:
        return pa.table(self.data, schema=ROW_SCHEMA)


def write_history(
    root: Path,
    partitions: int,
    days: float,
    brokers: int = 12,
    cluster: str = "synthetic",
    flaps_per_hour: float = 0.005,
    snapshot_every_s: float = 900.0,
    seed: int = 1,
    start_ms: int = START_MS,
) -> SyntheticHistory:
    """Write ``days`` of history of a ``partitions``-partition cluster into the store at ``root``."""
    store = HistoryStore.create(root)
    rng = random.Random(seed)
    state = _State(partitions, brokers)
    end = start_ms + int(days * DAY_MS)
    info = SyntheticHistory(cluster, partitions, start_ms, end)
    # Every change, as (at, order, action): flaps and restarts planted up front, applied in time order.
    changes: list[tuple[int, int, str, tuple[int, ...]]] = []
    order = 0
    hours = int(days * 24)
    for hour in range(hours):
        for _ in range(int(partitions * flaps_per_hour)):
            p = rng.randrange(partitions)
            follower = state.replicas[p][rng.randrange(1, 3)]
            at = start_ms + hour * 3_600_000 + rng.randrange(3_600_000)
            back = at + rng.randrange(2_000, 600_000)
            changes += [(at, order, "leave", (p, follower)), (back, order + 1, "join", (p, follower))]
            order += 2
            info.flaps += 1
    for day in range(int(days)):
        broker = rng.randrange(1, brokers + 1)
        down = start_ms + day * DAY_MS + rng.randrange(DAY_MS - 3_600_000)
        back = down + rng.randrange(60_000, 900_000)
        changes += [(down, order, "stop", (broker,)), (back, order + 1, "start", (broker,))]
        changes.append((back + 60_000, order + 2, "prefer", (broker,)))
        order += 3
        info.restarts.append((broker, down, back))
    changes.sort()
    next_snapshot = start_ms
    events = _Columns()
    seq = 0
    hour_end = start_ms + 3_600_000
    index = 0
    while True:
        at = changes[index][0] if index < len(changes) else end
        while next_snapshot <= min(at, end):
            info.snapshot_rows += _write_snapshot(store, cluster, state, next_snapshot)
            next_snapshot += int(snapshot_every_s * 1000)
        while hour_end <= at and hour_end <= end:
            info.events += _flush(store, cluster, events)
            events = _Columns()
            hour_end += 3_600_000
        if index >= len(changes) or at >= end:
            break
        _, _, action, args = changes[index]
        index += 1
        for p in _apply(state, action, args):
            seq += 1
            events.partition(state, at, seq, p)
    info.events += _flush(store, cluster, events)
    store.set_flushed(cluster, end)
    return info


def _apply(state: _State, action: str, args: tuple[int, ...]) -> list[int]:
    """Change the state; the partitions whose state changed."""
    touched = []
    if action in ("leave", "join"):
        p, follower = args
        if action == "leave" and follower in state.isr[p] and follower != state.leader[p]:
            state.isr[p].remove(follower)
            touched.append(p)
        elif action == "join" and follower not in state.isr[p]:
            state.isr[p].append(follower)
            touched.append(p)
        return touched
    broker = args[0]
    for p, replicas in enumerate(state.replicas):
        if broker not in replicas:
            continue
        if action == "stop" and broker in state.isr[p] and len(state.isr[p]) > 1:
            state.isr[p].remove(broker)
            if state.leader[p] == broker:
                state.leader[p] = state.isr[p][0]
                state.epoch[p] += 1
            touched.append(p)
        elif action == "start" and broker not in state.isr[p]:
            state.isr[p].append(broker)
            touched.append(p)
        elif action == "prefer" and replicas[0] == broker and state.leader[p] != broker and broker in state.isr[p]:
            state.leader[p] = broker
            state.epoch[p] += 1
            touched.append(p)
    return touched


def _write_snapshot(store: HistoryStore, cluster: str, state: _State, ts: int) -> int:
    head = _Columns()
    head.add(ts_ms=ts, seq=0, kind=CONTROLLER, broker=1, controller_epoch=5)
    for broker in range(1, state.brokers + 1):
        head.add(ts_ms=ts, seq=broker, kind=BROKER, broker=broker, rack=f"r{(broker - 1) % 3 + 1}",
                 endpoint=f"h{broker}:9092", broker_epoch=broker)  # fmt: skip
    count = len(state.replicas)
    ints = pa.int32()
    # The partition rows straight as columns (a Python dict per row is too slow at 100k partitions).
    columns = {
        "ts_ms": pa.array([ts] * count, pa.int64()),
        "seq": pa.array(range(state.brokers + 1, state.brokers + 1 + count), pa.int64()),
        "kind": pa.array([PARTITION] * count, pa.string()),
        "topic": pa.array([f"t{p // PER_TOPIC:05d}" for p in range(count)], pa.string()),
        "partition": pa.array([p % PER_TOPIC for p in range(count)], ints),
        "leader": pa.array(state.leader, ints),
        "leader_epoch": pa.array(state.epoch, ints),
        "isr": pa.array(state.isr, pa.list_(ints)),
        "replicas": pa.array(state.replicas, pa.list_(ints)),
        "controller_epoch": pa.array([5] * count, ints),
    }
    partitions = pa.table({f.name: columns.get(f.name, pa.nulls(count, f.type)) for f in ROW_SCHEMA}, schema=ROW_SCHEMA)
    store.append_table(SNAPSHOTS, cluster, pa.concat_tables([head.table(), partitions]))
    return head.count + count


def _flush(store: HistoryStore, cluster: str, events: _Columns) -> int:
    if events.count:
        store.append_table(EVENTS, cluster, events.table())
    return events.count


# ---- a small scripted outage -------------------------------------------------------------------------------

OUTAGE_REPLICAS = {0: [1, 2], 1: [2, 3], 2: [3, 1]}  # topic "orders": broker 2 is in partitions 0 and 1


@dataclass(frozen=True)
class Outage:
    """When things happened in ``write_outage``'s store: broker 2 left at ``left_ms`` (its partitions lost it
    100 ms later) and registered at ``back_ms`` (back in the ISRs 5 s later); the recorder flushed at ``end_ms``."""

    start_ms: int
    left_ms: int
    back_ms: int
    end_ms: int


def write_outage(root: Path, cluster: str, start_ms: int) -> Outage:
    """A store of ``cluster`` (created at ``root``) recording broker 2 down for two minutes, a minute in."""
    outage = Outage(start_ms, start_ms + 60_000, start_ms + 180_000, start_ms + 300_000)

    def partition(ts: int, p: int, isr: list[int]) -> dict[str, object]:
        return {"ts_ms": ts, "kind": PARTITION, "topic": "orders", "partition": p, "leader": isr[0],
                "leader_epoch": 0, "isr": isr, "replicas": OUTAGE_REPLICAS[p]}  # fmt: skip

    def broker(ts: int, b: int) -> dict[str, object]:
        return {"ts_ms": ts, "kind": BROKER, "broker": b, "rack": f"r{b}", "endpoint": f"127.0.0.1:909{b}"}

    store = HistoryStore.create(root)
    snapshot = [broker(start_ms, b) for b in (1, 2, 3)]
    snapshot += [partition(start_ms, p, r) for p, r in OUTAGE_REPLICAS.items()]
    snapshot.append({"ts_ms": start_ms, "kind": CONTROLLER, "broker": 1, "controller_epoch": 3})
    store.append(SNAPSHOTS, cluster, [{**r, "seq": i} for i, r in enumerate(snapshot)])
    left, back = outage.left_ms, outage.back_ms
    events = [{"ts_ms": left, "kind": BROKER_LEFT, "broker": 2}]
    events += [partition(left + 100, 0, [1]), partition(left + 100, 1, [3])]
    events += [broker(back, 2), partition(back + 5_000, 0, [1, 2]), partition(back + 5_000, 1, [3, 2])]
    store.append(EVENTS, cluster, [{**r, "seq": i} for i, r in enumerate(events)])
    store.set_flushed(cluster, outage.end_ms)
    return outage


def churn_rows(at_ms: int) -> list[dict[str, object]]:
    """Event rows of what ``write_history`` never writes, from ``at_ms`` on: broker 3 leaving and registering
    again a minute later, broker 2 becoming the controller, a topic ``fresh`` created and its partitions removed
    one by one (no ``seq``: the caller numbers them)."""

    def partition(ts: int, p: int, isr: list[int]) -> dict[str, object]:
        return {"ts_ms": ts, "kind": PARTITION, "topic": "fresh", "partition": p, "leader": isr[0],
                "leader_epoch": 1, "isr": isr, "replicas": [1, 2, 3]}  # fmt: skip

    return [
        {"ts_ms": at_ms, "kind": BROKER_LEFT, "broker": 3},
        {"ts_ms": at_ms + 500, "kind": CONTROLLER, "broker": 2},
        partition(at_ms + 500, 0, [1, 2]),
        partition(at_ms + 500, 1, [2, 1]),
        {"ts_ms": at_ms + 60_000, "kind": BROKER, "broker": 3, "rack": "r3", "endpoint": "10.0.0.3:9092"},
        {"ts_ms": at_ms + 90_000, "kind": PARTITION_REMOVED, "topic": "fresh", "partition": 1},
        {"ts_ms": at_ms + 95_000, "kind": PARTITION_REMOVED, "topic": "fresh", "partition": 0},
    ]


def traffic_tick_rows(ts_ms: int, messages: dict[tuple[str, int, int], float | None]) -> list[dict[str, object]]:
    """The ``traffic`` partition rows of one tick (``(topic, partition, leader)``: messages in per second, None:
    unknown because the leader was not asked), bytes in ten times the messages, over a 60 s window."""
    rows: list[dict[str, object]] = []
    for seq, ((topic, partition, leader), per_s) in enumerate(sorted(messages.items()), start=1):
        why = None if per_s is not None else f"broker {leader} was not asked"
        rows.append({
            "ts_ms": ts_ms, "seq": seq, "kind": PARTITION, "topic": topic, "partition": partition, "broker": leader,
            "messages_in_per_s": per_s, "messages_unknown": why, "bytes_unknown": why, "window_s": 60.0,
            "bytes_in_per_s": None if per_s is None else per_s * 10, "read_ms": ts_ms,
        })  # fmt: skip
    return rows
