"""The incident report of a window of a cluster's history store (``kzc report``, the console's timeline ``e``).

What it holds, each computed by the function that answers the same question elsewhere (one rule, one place):

- the timeline of the window in bursts (``core.changes.timeline.bursts``, the words of ``kzc changes``), from
  the recorded broker, controller and partition rows;
- the worst moment (the most partitions with a replica out of the ISR or no leader) and the likely cause then
  (``core.snapshot.likely_cause`` over the recorded moment, ``core.history.moment``);
- each partition's out-of-ISR intervals (``core.history.isr``, as ``kzc history isr``), each broker's down
  intervals (from its ``broker_left`` row to its next registration), and the under-replicated and offline time
  by topic and broker (``core.history.urp``, as ``kzc history urp``);
- the kzc actions of the window from the audit log (who, what, the outcome, and the preview it applied);
- what is still not healthy at the window's end (``core.snapshot.health`` over the recorded moment).

- the consumer groups that fell behind (``core.history.group_lag``: their lag grew over the window), from the
  ``group_lag`` rows of the recorder's traffic ticks; a window without them says the lag is not recorded.
Reading never takes the recorder's lock: a store being recorded is read as it is on disk.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pyarrow.parquet as pq

from core.audit import INTENT, AuditRead, read_audit
from core.changes.live import FactKind, LiveFact
from core.changes.timeline import Burst, Change, ChangeKind, bursts
from core.collector import collector_paused
from core.errors import UsageError
from core.history.diff import STATE_COLUMNS, Replay, TopicPartitions, moment_name, state_rows
from core.history.group_lag import LaggingGroup, lagging_groups
from core.history.isr import IsrAnswer, isr_history, observed
from core.history.location import HistoryPlace
from core.history.moment import replay_snapshot
from core.history.observations import Window
from core.history.schema import (
    BROKER,
    BROKER_LEFT,
    CONTROLLER,
    PARTITION,
    PARTITION_REMOVED,
    ROW_SCHEMA,
    cluster_key,
)
from core.history.store import HistoryStore
from core.history.urp import UrpAnswer, urps
from core.human_time import utc_text
from core.kafka.topic_partition import TopicPartition
from core.snapshot.health import assess
from core.snapshot.likely_cause import likely_cause

LAG_NOT_RECORDED = "consumer group lag is not recorded in the history store for this window (kzc record keeps it "
LAG_NOT_RECORDED += "with each traffic tick): see kzc groups for the lag now"
SOURCE = "recorded by kzc record"
_ABSENT = object()  # an entity not there (at the worst moment)
DEFAULT_SINCE = "2h"  # the window of kzc report without --since, and of the console's timeline export


@dataclass(frozen=True, slots=True)
class BrokerDown:
    """A broker not registered from ``left_ms`` (None: already down when the data starts) to ``back_ms``
    (None: still down at the end of the data)."""

    broker: int
    left_ms: int | None
    back_ms: int | None
    data_from_ms: int
    data_end_ms: int

    @property
    def down_ms(self) -> int:
        """How long it was down within the data."""
        start = self.left_ms if self.left_ms is not None else self.data_from_ms
        return (self.back_ms if self.back_ms is not None else self.data_end_ms) - start

    def to_json(self) -> dict[str, object]:
        return {"broker": self.broker, "left_ms": self.left_ms, "back_ms": self.back_ms, "down_ms": self.down_ms,
                "end": "back" if self.back_ms is not None else "open"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class WorstMoment:
    """The moment with the most partitions out of sync, its health counts and the likely cause then."""

    at_ms: int
    under_replicated: int
    offline: int
    cause: str | None

    def to_json(self) -> dict[str, object]:
        return {"at_ms": self.at_ms, "under_replicated": self.under_replicated, "offline": self.offline,
                "likely_cause": self.cause}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Action:
    """A kzc action of the window, from the audit log: who, what, how it ended, and what it applied."""

    at_ms: int
    user: str
    host: str
    operation: str
    outcome: str
    message: str
    arguments: dict[str, Any]
    details: dict[str, Any]

    def to_json(self) -> dict[str, object]:
        return {"at_ms": self.at_ms, "user": self.user, "host": self.host, "operation": self.operation,
                "outcome": self.outcome, "message": self.message, "arguments": self.arguments,
                "details": self.details}  # fmt: skip


@dataclass(frozen=True, slots=True)
class AtEnd:
    """What is still not healthy at the window's end: offline and under-replicated partitions, the brokers
    that hold replicas but are not registered."""

    at_ms: int
    offline: tuple[str, ...]
    under_replicated: tuple[str, ...]
    brokers_down: tuple[int, ...]

    @property
    def healthy(self) -> bool:
        """Nothing is left to fix."""
        return not (self.offline or self.under_replicated or self.brokers_down)

    def to_json(self) -> dict[str, object]:
        return {"at_ms": self.at_ms, "healthy": self.healthy, "offline": list(self.offline),
                "under_replicated": list(self.under_replicated), "brokers_down": list(self.brokers_down)}  # fmt: skip


@dataclass(frozen=True)
class IncidentReport:
    """The whole report (see the module docstring)."""

    window: Window
    bursts: tuple[Burst, ...]
    worst: WorstMoment | None
    isr: IsrAnswer
    brokers_down: tuple[BrokerDown, ...]
    urp_by_topic: UrpAnswer
    urp_by_broker: UrpAnswer
    actions: tuple[Action, ...]
    audit_notes: tuple[str, ...]
    at_end: AtEnd
    lagging: tuple[LaggingGroup, ...] | None = None  # None: no group lag recorded in the window

    @property
    def under_replicated_minutes(self) -> float:
        """Partition-minutes with a replica out of the ISR (``kzc history urp --by topic``, summed)."""
        return sum(r.under_replicated_ms for r in self.urp_by_topic.rows) / 60_000

    @property
    def offline_minutes(self) -> float:
        """Partition-minutes without a leader (``kzc history urp --by topic``, summed)."""
        return sum(r.offline_ms for r in self.urp_by_topic.rows) / 60_000

    def to_json(self) -> dict[str, object]:
        w = self.window
        isr = self.isr.to_json()
        return {
            "cluster": w.cluster, "since_ms": w.since_ms, "until_ms": w.until_ms, "data_from_ms": w.start_ms,
            "data_end_ms": w.data_end_ms, "gaps": [g.to_json() for g in w.gaps],
            "timeline": [_burst_json(b) for b in self.bursts],
            "worst": self.worst.to_json() if self.worst is not None else None,
            "out_of_isr": isr["outages"], "leader_changes": isr["leader_changes"],
            "brokers_down": [d.to_json() for d in self.brokers_down],
            "under_replicated_minutes": round(self.under_replicated_minutes, 3),
            "offline_minutes": round(self.offline_minutes, 3),
            "urp_by_topic": self.urp_by_topic.to_json()["rows"], "urp_by_broker": self.urp_by_broker.to_json()["rows"],
            "actions": [a.to_json() for a in self.actions], "audit_notes": list(self.audit_notes),
            "lagging_groups": None if self.lagging is None else [g.to_json() for g in self.lagging],
            "lag_note": LAG_NOT_RECORDED if self.lagging is None else None,
            "at_end": self.at_end.to_json(),
        }  # fmt: skip


def _burst_json(burst: Burst) -> dict[str, object]:
    return {"start_ms": burst.start_ms, "end_ms": burst.end_ms, "text": burst.text, "count": len(burst.changes)}


@collector_paused()  # its replays and questions' rows: the collector's full passes would double its time
def build_report(
    store: HistoryStore, cluster: str, since_ms: int, until_ms: int, audit: AuditRead, audit_cluster: str | None = None
) -> IncidentReport:
    """The report of ``cluster`` over [since_ms, until_ms] (local engine), with the actions of ``audit`` in the
    window (those of ``audit_cluster``, the name the cluster is recorded under, when given).

    Raises:
        UsageError: the window holds no data of the cluster (the message says where the data is).
    """
    window = Window.of(store, cluster, since_ms, until_ms)
    _require_data(window)
    replay = _Pass(window)
    worst = None
    end_ms = min(until_ms, window.data_end_ms)
    state = replay.state  # the end of the window: the pass applied every row up to it
    end_name = moment_name(window, end_ms)
    if replay.worst is None:
        end = replay_snapshot(end_name, state.topics, state.brokers, state.controller, end_ms)
        health = assess(end)
    else:
        at, _ = replay.worst
        topics, brokers, controller, changed = replay.at_worst()
        shown = replay_snapshot(moment_name(window, at), topics, brokers, controller, at)
        health = assess(shown)
        cause = likely_cause(shown)
        worst = WorstMoment(at, len(health.under_replicated), len(health.offline), cause.text if cause else None)
        # The end from the worst moment's snapshot: only the topics changed since get new entries; when nothing
        # changed since, its health is the worst moment's.
        end = replay_snapshot(end_name, state.topics, state.brokers, state.controller, end_ms, shown, changed)
        if not replay.unchanged_since_worst:
            health = assess(end)
    holding = {b for _, _, replicas, _ in end.iter_partitions() for b in replicas}
    at_end = AtEnd(
        end_ms,
        tuple(f"{o.topic}-{o.partition}" for o in health.offline),
        tuple(f"{u.topic}-{u.partition}" for u in health.under_replicated),
        tuple(sorted(holding - end.live_broker_ids())),
    )
    actions, notes = _actions(audit, since_ms, until_ms, audit_cluster)
    read = observed(window)  # once for the three questions
    by_topic, by_broker = urps(window, ("topic", "broker"), read)
    return IncidentReport(
        window, tuple(bursts(replay.changes)), worst, isr_history(window, None, read=read), replay.brokers_down(),
        by_topic, by_broker, actions, notes, at_end, lagging_groups(store, cluster, since_ms, until_ms),
    )  # fmt: skip


def recorded_bursts(store: HistoryStore, cluster: str, since_ms: int, until_ms: int) -> list[Burst]:
    """The timeline of ``cluster`` over [since_ms, until_ms] in bursts, newest first: the report's timeline alone
    (the console's timeline at a recorded moment). Empty when the window holds no data of the cluster."""
    window = Window.of(store, cluster, since_ms, until_ms)
    if window.base_ms is None:
        return []
    return list(bursts(_Pass(window).changes))


def _require_data(window: Window) -> None:
    name = window.cluster
    if window.base_ms is None:
        raise UsageError(f"the history store holds no snapshot of cluster {name}: nothing to report")
    if window.base_ms > window.until_ms:
        begins, ends = utc_text(window.base_ms), utc_text(window.until_ms)
        raise UsageError(
            f"no data of cluster {name} in the window: its recording begins at {begins}, after the window ends ({ends})"
        )
    if window.data_end_ms < window.since_ms:
        ends, starts = utc_text(window.data_end_ms), utc_text(window.since_ms)
        raise UsageError(
            f"no data of cluster {name} in the window: its recording ends at {ends}, before the "
            f"window starts ({starts})"
        )


class _Pass:
    """One pass over the window's rows in order: the state they make (``core.history.diff.Replay``, the one rule
    of ``kzc diff`` and the console at a moment), and from it the timeline's changes, the brokers' down
    intervals and the worst moment (the most partitions with a replica out of the ISR or without a leader). The
    state at its end is the window's end; the state at the worst moment is put back from it (``at_worst``), so
    the report never replays the store again."""

    def __init__(self, window: Window) -> None:
        assert window.base_ms is not None
        self.window = window
        self.state = Replay(window.cluster, window.base_ms)
        self.bad: set[TopicPartition] = set()
        self.changes: list[Change] = []
        self.down: dict[int, int | None] = {}  # broker -> left at (None: already down at the start)
        self.intervals: list[tuple[int, int | None, int | None]] = []
        self.worst: tuple[int, int] | None = None
        # What each entity held at the worst moment, before the pass changed it after (the state there is the
        # end state with these put back): partitions by (topic, partition), brokers by id, the controller by ().
        self._undo: dict[tuple[Any, ...], Any] = {}
        self._at_worst: tuple[dict[str, TopicPartitions], dict[int, tuple[str | None, str | None]], int | None] | None
        self._at_worst = None  # the state at the worst moment, kept whole when a whole snapshot came after it
        self._start_judged = False
        rows = state_rows(window, window.until_ms) + _after_gap_rows(window)
        rows.sort(key=lambda r: (r["ts_ms"], r.get("src", 0), r["seq"]))
        base = window.base_ms
        group: list[dict[str, Any]] = []
        for row in rows:
            if group and (row["ts_ms"], row.get("src", 0)) != (group[0]["ts_ms"], group[0].get("src", 0)):
                self._moment(group, base)
                group = []
            group.append(row)
        if group:
            self._moment(group, base)
        self._judge(window.since_ms)  # nothing changed in the window: the state it began with

    def _moment(self, rows: list[dict[str, Any]], base: int | None) -> None:
        ts = rows[0]["ts_ms"]
        if ts > self.window.since_ms:
            self._judge(self.window.since_ms)  # the state the window began with counts too
        whole = ts == base or rows[0].get("src", 0) == 1  # a whole snapshot: what it lacks is gone
        if whole:
            if self.worst is not None and self._at_worst is None:
                self._at_worst = self._undone()
            before = set(self.state.brokers)
            self.state.controller = None  # as a replay from this snapshot (state_at) starts
            self.state.topics.clear()
            self.bad.clear()
            self.state.brokers.clear()
        for row in rows:
            self._apply(row, ts, in_window=not whole and ts > self.window.since_ms)
        if whole:
            self._snapshot_brokers(before, ts, first=ts == base)
        if ts >= self.window.since_ms:
            self._judge(ts)

    def _judge(self, ts: int) -> None:
        """Keep ``ts`` as the worst moment if more partitions are out of sync than at any before (once at the
        window's start)."""
        if ts == self.window.since_ms:
            if self._start_judged:
                return
            self._start_judged = True
        if self.bad and (self.worst is None or len(self.bad) > self.worst[1]):
            self.worst = (ts, len(self.bad))
            self._undo, self._at_worst = {}, None

    def _remember(self, row: dict[str, Any]) -> None:
        """Keep what ``row``'s entity held before its first change since the worst moment."""
        kind, state = row["kind"], self.state
        if kind in (PARTITION, PARTITION_REMOVED):
            key: tuple[Any, ...] = (row["topic"], row["partition"])
            held: Any = state.topics.get(row["topic"], {}).get(row["partition"], _ABSENT)
        elif kind in (BROKER, BROKER_LEFT):
            key, held = (row["broker"],), state.brokers.get(row["broker"], _ABSENT)
        elif kind == CONTROLLER:
            key, held = (), state.controller
        else:
            return
        self._undo.setdefault(key, held)

    def _undone(self) -> tuple[dict[str, TopicPartitions], dict[int, tuple[str | None, str | None]], int | None]:
        """The state at the worst moment: the state now with what changed since put back (the topics unchanged
        are shared with the state, never changed)."""
        topics, brokers, controller = dict(self.state.topics), dict(self.state.brokers), self.state.controller
        copied: set[str] = set()
        for key, held in self._undo.items():
            if len(key) == 2:
                topic, partition = key
                if topic not in copied:
                    topics[topic] = dict(topics.get(topic, {}))
                    copied.add(topic)
                if held is _ABSENT:
                    topics[topic].pop(partition, None)
                else:
                    topics[topic][partition] = held
            elif len(key) == 1:
                if held is _ABSENT:
                    brokers.pop(key[0], None)
                else:
                    brokers[key[0]] = held
            else:
                controller = held
        return {t: p for t, p in topics.items() if p}, brokers, controller

    @property
    def unchanged_since_worst(self) -> bool:
        """Whether nothing changed after the worst moment (its state is the end's)."""
        return self._at_worst is None and not self._undo

    def at_worst(
        self,
    ) -> tuple[dict[str, TopicPartitions], dict[int, tuple[str | None, str | None]], int | None, Collection[str]]:
        """The state at the worst moment (its topics, brokers, controller), and the topics that may differ at the
        end (every one when a whole snapshot came between)."""
        assert self.worst is not None
        if self._at_worst is not None:
            return (*self._at_worst, set(self._at_worst[0]) | set(self.state.topics))
        return (*self._undone(), {key[0] for key in self._undo if len(key) == 2})

    def _apply(self, row: dict[str, Any], ts: int, in_window: bool) -> None:
        kind = row["kind"]
        registered = row["broker"] in self.state.brokers
        if self.worst is not None and self._at_worst is None:
            self._remember(row)
        self.state.apply([tuple(row[c] for c in STATE_COLUMNS)], ts)
        if kind == PARTITION:
            key = (row["topic"], int(row["partition"]))
            replicas = tuple(row["replicas"]) if row["replicas"] is not None else None
            isr = tuple(row["isr"]) if row["isr"] is not None else None
            leader = row["leader"]
            out = tuple(b for b in replicas or () if isr is not None and b not in isr)
            if out or leader == -1:
                self.bad.add(key)
            else:
                self.bad.discard(key)
            if in_window:
                self.changes.append(_partition_change(key, replicas, leader, isr, out, ts))
        elif kind == PARTITION_REMOVED:
            key = (row["topic"], int(row["partition"]))
            self.bad.discard(key)
            if in_window:
                self.changes.append(Change(ts, ChangeKind.RECORDED, f"{key[0]}-{key[1]} removed", SOURCE,
                                           topic=key[0], partition=key[1]))  # fmt: skip
        elif kind == BROKER:
            broker = int(row["broker"])
            if broker in self.down:
                self.intervals.append((broker, self.down.pop(broker), ts))
            if not registered and in_window:
                where = ", ".join(v for v in (row["endpoint"], f"rack {row['rack']}" if row["rack"] else None) if v)
                text = f"broker {broker} registered" + (f" ({where})" if where else "")
                fact = LiveFact(FactKind.BROKER_REGISTERED, broker)
                self.changes.append(Change(ts, ChangeKind.RECORDED, text, SOURCE, brokers=(broker,), fact=fact))
        elif kind == BROKER_LEFT:
            broker = int(row["broker"])
            self.down.setdefault(broker, ts)
            if in_window:
                fact = LiveFact(FactKind.BROKER_LEFT, broker)
                self.changes.append(
                    Change(ts, ChangeKind.RECORDED, f"broker {broker} left", SOURCE, brokers=(broker,), fact=fact)
                )
        elif kind == CONTROLLER and in_window:
            new = row["broker"]
            text = f"broker {new} became the controller" if new is not None else "no controller"
            fact = LiveFact(FactKind.CONTROLLER, new)
            self.changes.append(
                Change(ts, ChangeKind.RECORDED, text, SOURCE, brokers=(new,) if new is not None else (), fact=fact)
            )

    def _snapshot_brokers(self, before: set[int], ts: int, first: bool) -> None:
        """After a whole snapshot: brokers holding replicas but not registered are down (since before the data
        at the first one; at a later one, since somewhere in the gap before it), and brokers registered again
        are back."""
        registered = set(self.state.brokers)
        holding = {
            b for values in self.state.topics.values() for replicas, _, _ in values.values() for b in replicas or ()
        }
        for broker in sorted((holding | before) - registered):
            self.down.setdefault(broker, None if first else ts)
        for broker in sorted(registered & set(self.down)):
            self.intervals.append((broker, self.down.pop(broker), ts))

    def brokers_down(self) -> tuple[BrokerDown, ...]:
        """Every down interval overlapping the window, then those still open, by when they began."""
        w = self.window
        found = [*self.intervals, *((b, left, None) for b, left in self.down.items())]
        kept = [
            BrokerDown(b, left, back, w.start_ms, w.data_end_ms)
            for b, left, back in found
            if (back is None or back >= w.since_ms) and (left is None or left <= w.until_ms)
        ]
        kept.sort(key=lambda d: (d.left_ms if d.left_ms is not None else -1, d.broker))
        return tuple(kept)


def _after_gap_rows(window: Window) -> list[dict[str, Any]]:
    """The rows of the snapshots written after a gap (the only thing known after it), marked ``src`` 1."""
    later = [m for m in window.snapshot_moments if m != window.base_ms]
    if not later:
        return []
    columns = ["ts_ms", "seq", "kind", "topic", "partition", "broker", "leader", "isr", "replicas", "rack", "endpoint"]
    found: list[dict[str, Any]] = []
    for path in window.snapshot_files:
        table = pq.read_table(path, columns=columns, schema=ROW_SCHEMA)
        found += [dict(r, src=1) for r in table.to_pylist() if r["ts_ms"] in later]
    return found


def _partition_change(key: TopicPartition, replicas: tuple[int, ...] | None, leader: int | None,
                      isr: tuple[int, ...] | None, out: tuple[int, ...], ts: int) -> Change:  # fmt: skip
    topic, partition = key
    now = "offline (no leader)" if leader == -1 else f"leader {leader}"
    text = f"{topic}-{partition}: {now}, ISR [{','.join(str(b) for b in isr or ())}]"
    if out:
        text += f"; broker(s) {', '.join(str(b) for b in out)} out of the ISR"
    brokers = tuple(sorted(set(replicas or ()) | set(isr or ())))
    return Change(ts, ChangeKind.PARTITION_STATE, text, SOURCE, topic=topic, partition=partition, brokers=brokers,
                  out_of_isr=out, leader=leader)  # fmt: skip


def _actions(
    audit: AuditRead, since_ms: int, until_ms: int, cluster: str | None
) -> tuple[tuple[Action, ...], tuple[str, ...]]:
    notes = []
    if audit.missing:
        notes.append(f"no audit log at {audit.path}: the kzc actions of the window are not known")
    if audit.torn:
        notes.append(
            f"{audit.torn} line(s) of the audit log {audit.path} are not JSON (a torn last line: a kzc "
            "killed while writing it) and were skipped"
        )
    actions = []
    for line in audit.lines:
        if line.get("outcome") in (INTENT, "dry-run") or not _names(line.get("cluster"), cluster):
            continue
        at = _audit_ms(line.get("time"))
        if at is None or not since_ms <= at <= until_ms:
            continue
        actions.append(Action(at, str(line.get("user", "?")), str(line.get("host", "?")),
                              str(line.get("operation", "?")), str(line.get("outcome", "?")),
                              str(line.get("message") or ""), dict(line.get("arguments") or {}),
                              dict(line.get("details") or {})))  # fmt: skip
    actions.sort(key=lambda a: a.at_ms)
    return tuple(actions), tuple(notes)


def _names(audited: object, cluster: str | None) -> bool:
    """Whether an audit line's cluster (``core.config.cluster_name``: ``context (connect string)`` or the
    connect string) is the recorded ``cluster`` (a context name or connect string, or the store's key of one,
    ``core.history.schema.cluster_key``; None: any)."""
    if cluster is None:
        return True
    if not isinstance(audited, str):
        return False
    names = {audited}
    context, _, rest = audited.partition(" (")
    if rest.endswith(")"):
        names |= {context, rest[:-1]}
    return cluster_key(cluster) in {cluster_key(n) for n in names}


def _audit_ms(text: object) -> int | None:
    if not isinstance(text, str):
        return None
    try:
        return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


def report_of(place: HistoryPlace, since_ms: int, until_ms: int) -> IncidentReport:
    """The report of the cluster ``place`` names, from its store and the audit log (the console's ``e`` on the
    timeline). Blocks: call it in a worker.

    Raises:
        UsageError: no store is named, it does not hold the cluster, or the window holds no data.
    """
    store = HistoryStore.open(place.require())
    known = store.clusters()
    if cluster_key(place.cluster) not in known:
        raise UsageError(f"the store {place.root} holds {', '.join(known) or 'no cluster'}, not {place.cluster}")
    return build_report(store, place.cluster, since_ms, until_ms, read_audit(), place.cluster)
