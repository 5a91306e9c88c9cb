"""Consumers waiting on a topic whose producers stopped: the groups half of the load finding ``stopped``
(``core.traffic.cause``), which sits below ``core.groups`` and cannot read groups itself.

A group **waits** on a topic when, in a fresh read (not stale, no error):
- it holds committed offsets on the topic, and its lag is known and 0 on every one of those partitions (its
  position is the end offset; the traffic window that found the topic idle shows the end did not move, so
  neither can the position: it waits for messages);
- it has members (ZooKeeper-stored and described Kafka-stored groups both list theirs): a group nobody runs
  does not wait, it is abandoned.
A group behind on the topic (lag above 0) is not waiting: it still has messages to consume.

The groups are read when a topic enters the stopped state, then at most every ``READ_EVERY_TICKS`` ticks
(``WaitingReads``): a group read costs far more than a tick.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.errors import KzcError
from core.groups.lag import GroupLag
from core.human_time import clock_text
from core.traffic.cause import LoadFinding

STOPPED = "stopped"  # the load finding this completes
READ_EVERY_TICKS = 6  # a stopped topic's groups are read again at most this often (30 s of console ticks)


@dataclass(frozen=True)
class Waiting:
    """A group waiting on a topic: how many members it has and how many of the topic's partitions it holds
    committed offsets on (each at its end offset)."""

    group: str
    members: int
    partitions: int

    def to_json(self) -> dict[str, Any]:
        """``{"group", "members", "partitions", "lag": 0}``."""
        return {"group": self.group, "members": self.members, "partitions": self.partitions, "lag": 0}

    def text(self) -> str:
        """``billing (2 members, 3 partitions)``."""
        members = f"{self.members} member" + ("" if self.members == 1 else "s")
        parts = f"{self.partitions} partition" + ("" if self.partitions == 1 else "s")
        return f"{self.group} ({members}, {parts})"


def waiting_on(groups: Iterable[GroupLag], topic: str) -> list[Waiting]:
    """The groups waiting on ``topic`` (see the module docstring), by name."""
    found = []
    for group in groups:
        if group.stale is not None or group.error or not group.members:
            continue
        rows = [r for r in group.partitions if r.topic == topic and r.committed is not None]
        if rows and all(r.lag == 0 for r in rows):
            found.append(Waiting(group.group, len(group.members), len(rows)))
    return sorted(found, key=lambda w: w.group)


@dataclass(frozen=True)
class _Read:
    """The groups waiting on one stopped topic as read at ``tick`` (``at_ms``), or why they could not be."""

    tick: int
    at_ms: int
    waiting: list[Waiting] | None
    why: str | None


class WaitingReads:
    """Completes every ``stopped`` finding, tick after tick, with the groups that wait on its topic. They cost a
    group read, so they are read when a topic enters the stopped state and then at most every ``every`` ticks
    (each finding says when); a topic that is no longer stopped is forgotten (read again if it stops again).
    Thread-safe."""

    def __init__(self, every: int = READ_EVERY_TICKS) -> None:
        self.every = every
        self._lock = threading.Lock()
        self._reads: dict[str, _Read] = {}
        self._tick = 0
        self._at_ms: int | None = None

    def complete(
        self, findings: Sequence[LoadFinding], groups_of: Callable[[str], Iterable[GroupLag]], at_ms: int
    ) -> list[LoadFinding]:
        """``findings`` of the tick read at ``at_ms`` (a tick seen again counts once), every ``stopped`` one with
        ``waiting`` (a list, empty when none waits; null with ``waiting_unknown`` when ``groups_of`` raised a
        ``KzcError``) and ``waiting_read_at_ms`` in its numbers and a clause in its text. ``groups_of(topic)``
        reads the groups; it is called only for a stopped topic whose groups are due."""
        with self._lock:
            if at_ms != self._at_ms:
                self._tick, self._at_ms = self._tick + 1, at_ms
            stopped = {f.subject for f in findings if f.kind == STOPPED}
            self._reads = {t: r for t, r in self._reads.items() if t in stopped}
            out = []
            for finding in findings:
                if finding.kind != STOPPED:
                    out.append(finding)
                    continue
                read = self._reads.get(finding.subject)
                if read is None or self._tick - read.tick >= self.every:
                    read = self._reads[finding.subject] = self._read(groups_of, finding.subject, at_ms)
                out.append(_completed(finding, read))
            return out

    def _read(self, groups_of: Callable[[str], Iterable[GroupLag]], topic: str, at_ms: int) -> _Read:
        try:
            return _Read(self._tick, at_ms, waiting_on(groups_of(topic), topic), None)
        except KzcError as exc:
            return _Read(self._tick, at_ms, None, str(exc))


def _completed(finding: LoadFinding, read: _Read) -> LoadFinding:
    waiting = read.waiting
    numbers = {
        **finding.numbers,
        "waiting": None if waiting is None else [w.to_json() for w in waiting],
        "waiting_read_at_ms": read.at_ms,
    }
    if read.why is not None:
        numbers["waiting_unknown"] = read.why
    text = f"{finding.text}{_clause(waiting, read.why)} (groups read {clock_text(read.at_ms)})"
    return replace(finding, text=text, numbers=numbers)


def _clause(waiting: list[Waiting] | None, why: str | None) -> str:
    if waiting is None:
        return f"; its consumer groups: unknown ({why})"
    if not waiting:
        return "; no consumer group waits on it"
    names = ", ".join(w.text() for w in waiting)
    groups = "1 consumer group waits" if len(waiting) == 1 else f"{len(waiting)} consumer groups wait"
    return f", while {groups} on it, caught up (lag 0): {names}"
