"""One row of ``kzc fleet``: a cluster of the config file, its state, and the facts the single-cluster commands
give about it (``kzc describe``'s counts and likely cause, ``kzc zk health``'s quorum, ``kzc migration``'s
phase, ``kzc changes``' newest burst, ``kzc groups``' lagging groups), worst first.

A cluster kzc cannot read is a row too, with its reason: ``no answer in N s`` (its ZooKeeper hangs),
``unreachable``, ``auth failed``, ``wrong chroot``, ``config error``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# States, from what kzc could read of the cluster; the worst come first in the list.
OK = "ok"
DEGRADED = "degraded"  # under-replicated or under min ISR, a broker gone, no controller, ZooKeeper alarms
OFFLINE = "offline"  # partitions without a live leader
NO_BROKERS = "no brokers"  # none registered
UNREACHABLE = "unreachable"  # ZooKeeper refused or failed
AUTH_FAILED = "auth failed"
WRONG_CHROOT = "wrong chroot"  # no Kafka cluster at the context's chroot (core.zookeeper.kafka_root)
READ_FAILED = "read failed"  # ZooKeeper answered, the read failed (the reason says how)
CONFIG_ERROR = "config error"  # the context itself is unusable: a bad key or value, an unreadable secret file
NO_ANSWER = "no answer"  # shown as "no answer in N s": still waiting for ZooKeeper at the deadline
STALE = "stale"  # the fleet screen: answered before, not now (core.fleet.board); its counts are the last read's

# Severity of each state: 2, kzc cannot see the cluster or it has lost data availability; 1, degraded; 0, ok.
_SEVERITY = {
    OK: 0,
    DEGRADED: 1,
    OFFLINE: 2,
    NO_BROKERS: 2,
    UNREACHABLE: 2,
    AUTH_FAILED: 2,
    WRONG_CHROOT: 2,
    CONFIG_ERROR: 2,
    READ_FAILED: 2,
    NO_ANSWER: 2,
    STALE: 2,
}


@dataclass(frozen=True)
class FleetRow:
    """One context's cluster as one read saw it; counts are ``None`` where the cluster could not be read.

    ``brokers_known`` counts the registered brokers plus those that hold replicas or lead the controller
    without being registered (``ClusterSummary.missing_brokers``): a killed broker shows as ``2/3``.
    """

    context: str
    zookeeper: str | None
    state: str
    reason: str | None = None  # why the state is not ok, in words
    deadline_s: float | None = None  # with NO_ANSWER: the deadline it missed
    cluster_id: str | None = None
    controller: int | None = None
    brokers_alive: int | None = None
    brokers_known: int | None = None
    release: str | None = None
    topics: int | None = None
    partitions: int | None = None
    offline: int | None = None
    under_replicated: int | None = None
    under_min_isr: int | None = None
    zookeeper_quorum: str | None = None  # core.zookeeper.health.summary_line
    zookeeper_alarm: str | None = None  # the worst alarm (core.zookeeper.health.headline), if any
    zookeeper_severity: str | None = None  # ok, warning or error: headline's severity
    migration: str | None = None  # the phase's label (core.migration.status)
    last_change_ms: int | None = None  # the newest burst of core.changes.timeline
    last_change: str | None = None
    likely_cause: str | None = None
    lagging_groups: int | None = None  # only with a bootstrap server
    notes: tuple[str, ...] = ()
    read_s: float | None = None  # how long the read took
    at_ms: int = 0

    @property
    def state_text(self) -> str:
        """The state as shown: ``no answer in 10 s`` for a cluster still unanswered at the deadline."""
        if self.state == NO_ANSWER and self.deadline_s is not None:
            return f"no answer in {self.deadline_s:g} s"
        return self.state

    @property
    def severity(self) -> int:
        """2: down or not readable; 1: degraded; 0: ok."""
        return _SEVERITY[self.state]

    def to_json(self) -> dict[str, Any]:
        """The row in ``kzc fleet --json`` (docs/cli.md)."""
        return {
            "context": self.context,
            "state": self.state_text,
            "severity": self.severity,
            "reason": self.reason,
            "cluster_id": self.cluster_id,
            "zookeeper": self.zookeeper,
            "controller": self.controller,
            "brokers_alive": self.brokers_alive,
            "brokers_known": self.brokers_known,
            "release": self.release,
            "topics": self.topics,
            "partitions": self.partitions,
            "offline": self.offline,
            "under_replicated": self.under_replicated,
            "under_min_isr": self.under_min_isr,
            "zookeeper_quorum": self.zookeeper_quorum,
            "zookeeper_alarm": self.zookeeper_alarm,
            "zookeeper_severity": self.zookeeper_severity,
            "migration": self.migration,
            "last_change_ms": self.last_change_ms,
            "last_change": self.last_change,
            "likely_cause": self.likely_cause,
            "lagging_groups": self.lagging_groups,
            "notes": list(self.notes),
            "read_s": self.read_s,
            "at_ms": self.at_ms,
        }

    def content(self) -> dict[str, Any]:
        """What ``--watch`` compares to tell a changed row: the JSON without the read's own time."""
        data = self.to_json()
        for key in ("read_s", "at_ms"):
            data.pop(key)
        return data


def unreadable(context: str, zookeeper: str | None, state: str, reason: str, at_ms: int) -> FleetRow:
    """The row of a cluster kzc could not read, and why."""
    return FleetRow(context=context, zookeeper=zookeeper, state=state, reason=reason, at_ms=at_ms)


def no_answer(context: str, zookeeper: str | None, deadline_s: float, at_ms: int) -> FleetRow:
    """The row of a cluster whose read has not finished at the deadline (its ZooKeeper hangs)."""
    reason = f"ZooKeeper did not answer within the deadline ({deadline_s:g} s); the read goes on in the background"
    return FleetRow(
        context=context, zookeeper=zookeeper, state=NO_ANSWER, reason=reason, deadline_s=deadline_s, at_ms=at_ms
    )


def worst_first(rows: Iterable[FleetRow]) -> list[FleetRow]:
    """Rows by severity, then offline, under-replicated and under-min-ISR partitions, then context name."""
    return sorted(
        rows,
        key=lambda r: (-r.severity, -(r.offline or 0), -(r.under_replicated or 0), -(r.under_min_isr or 0), r.context),
    )


def mark_duplicates(rows: Sequence[FleetRow]) -> list[FleetRow]:
    """Contexts that reach the same cluster (the same ``/cluster/id``) each get a note naming the others."""
    by_id: dict[str, list[str]] = {}
    for row in rows:
        if row.cluster_id:
            by_id.setdefault(row.cluster_id, []).append(row.context)
    marked = []
    for row in rows:
        others = [c for c in by_id.get(row.cluster_id or "", []) if c != row.context]
        if others:
            note = f"one cluster listed twice: context(s) {', '.join(others)} reach the same cluster id"
            row = replace(row, notes=(*row.notes, note))
        marked.append(row)
    return marked


def details_of(r: FleetRow) -> list[str]:
    """What a row says beyond its cells: its reason, ZooKeeper's quorum and alarm, likely cause, last change, notes."""
    return [
        *([r.reason] if r.reason else []),
        *([f"ZooKeeper: {r.zookeeper_quorum}"] if r.zookeeper_quorum else []),
        *([r.zookeeper_alarm] if r.zookeeper_alarm else []),
        *([f"likely cause: {r.likely_cause}"] if r.likely_cause else []),
        *([f"last change: {r.last_change}"] if r.last_change else []),
        *r.notes,
    ]


@dataclass
class FleetTable:
    """The text form of the rows: one line each, then the reasons, causes and notes under the table."""

    rows: Sequence[FleetRow]
    columns: tuple[str, ...] = field(
        default=(
            "CONTEXT",
            "STATE",
            "CLUSTER ID",
            "CTRL",
            "BROKERS",
            "KAFKA",
            "TOPICS",
            "PARTS",
            "OFFLINE",
            "URP",
            "<MIN ISR",
            "ZK",
            "MIGRATION",
            "LAGGING",
        )
    )

    def lines(self) -> list[str]:
        """The table and, per row that has any, its reason, ZooKeeper alarm, likely cause, last change and notes."""
        cells = [self.cells(r) for r in self.rows]
        widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(self.columns)]
        out = ["  ".join(h.ljust(w) for h, w in zip(self.columns, widths, strict=True)).rstrip()]
        out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
        details = []
        for r in self.rows:
            if said := details_of(r):
                details.append(f"{r.context} ({r.zookeeper or 'no ZooKeeper'}):")
                details += [f"  {line}" for line in said]
        return out + (["", *details] if details else [])

    @staticmethod
    def cells(r: FleetRow) -> list[str]:
        """The row's cells under ``columns`` (the fleet screen shows the same)."""

        def count(value: int | None) -> str:
            return "-" if value is None else f"{value:,}"

        brokers = "-" if r.brokers_alive is None else f"{r.brokers_alive}/{r.brokers_known}"
        return [
            r.context,
            r.state_text,
            r.cluster_id or "-",
            "-" if r.controller is None else str(r.controller),
            brokers,
            r.release or "-",
            count(r.topics),
            count(r.partitions),
            count(r.offline),
            count(r.under_replicated),
            count(r.under_min_isr),
            r.zookeeper_severity or "-",
            r.migration or "-",
            count(r.lagging_groups),
        ]
