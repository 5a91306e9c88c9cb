"""Consumers waiting on a topic whose producers stopped: the groups half of the load finding ``stopped``
(``core.traffic.cause``), which sits below ``core.groups`` and cannot read groups itself.

A group **waits** on a topic when, in a fresh read (not stale, no error):
- it holds committed offsets on the topic, and its lag is known and 0 on every one of those partitions (its
  position is the end offset; the traffic window that found the topic idle shows the end did not move, so
  neither can the position: it waits for messages);
- it has members (ZooKeeper-stored and described Kafka-stored groups both list theirs): a group nobody runs
  does not wait, it is abandoned.
A group behind on the topic (lag above 0) is not waiting: it still has messages to consume.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.errors import KzcError
from core.groups.lag import GroupLag
from core.traffic.cause import LoadFinding

STOPPED = "stopped"  # the load finding this completes


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


def with_waiting(findings: Sequence[LoadFinding], groups_of: Callable[[str], Iterable[GroupLag]]) -> list[LoadFinding]:
    """``findings`` with every ``stopped`` finding completed by the groups that wait on its topic:
    ``waiting`` (a list, empty when none waits) in its numbers and a clause in its text; ``groups_of(topic)``
    reads the groups (called only for a stopped topic; a ``KzcError`` makes ``waiting`` null with
    ``waiting_unknown`` saying why)."""
    out = []
    for finding in findings:
        if finding.kind != STOPPED:
            out.append(finding)
            continue
        try:
            waiting: list[Waiting] | None = waiting_on(groups_of(finding.subject), finding.subject)
            why = None
        except KzcError as exc:
            waiting, why = None, str(exc)
        numbers = {**finding.numbers, "waiting": None if waiting is None else [w.to_json() for w in waiting]}
        if why is not None:
            numbers["waiting_unknown"] = why
        out.append(replace(finding, text=finding.text + _clause(waiting, why), numbers=numbers))
    return out


def _clause(waiting: list[Waiting] | None, why: str | None) -> str:
    if waiting is None:
        return f"; its consumer groups: unknown ({why})"
    if not waiting:
        return "; no consumer group waits on it"
    names = ", ".join(w.text() for w in waiting)
    groups = "1 consumer group waits" if len(waiting) == 1 else f"{len(waiting)} consumer groups wait"
    return f", while {groups} on it, caught up (lag 0): {names}"
