"""The console's consumer-group reads: each read of ``core.groups.ops.GroupOps`` merged into the book of last
good numbers (``core.groups.freshness.GroupBook``) and the lag trend (``core.groups.trend.LagHistory``), so a
group whose source stops answering is shown stale since its last read, with the reason.

One overview read at a time (``core.console.single_flight``): a caller that comes while a read runs waits for
that read. The lock guards the book and the trend only; it is never held while the brokers are asked.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

from core.console.protocols import GroupDetail, GroupsView
from core.console.single_flight import SingleFlight
from core.errors import KzcError, UsageError
from core.groups.freshness import GroupBook
from core.groups.lag import GroupLag, LagTotal, Stale
from core.groups.ops import GroupOps, lag_order
from core.groups.trend import LagHistory

GROUPS_FRESH_S = 4.0  # a group read younger than this serves the topic detail too
GROUP_READ_WAIT_S = 60.0  # a caller waiting for another thread's read gives up after this (reads are bounded)


class GroupReads:
    """The consumer groups of one cluster as the console shows them, with what earlier reads left (any thread)."""

    def __init__(self, wall_ms: Callable[[], int]) -> None:
        self._wall_ms = wall_ms
        self._history = LagHistory()
        self._book = GroupBook()
        # Guards the book and the trend; never held while the brokers are asked.
        self._groups_lock = threading.Lock()
        self._overviews: SingleFlight[GroupsView] = SingleFlight()
        self._groups_view: tuple[float, GroupsView] | None = None

    def overview(self, ops: GroupOps) -> GroupsView:
        """Every group now, with the lag trend of the reads so far; groups whose source did not answer show
        their last good numbers marked stale. One read at a time: a caller that comes while a read runs
        waits for that read (no lock is held while it talks to the brokers).

        Raises:
            ConnectError: the brokers or ZooKeeper did not answer, and no group was ever read.
        """
        return self._overviews.read("consumer groups", lambda: self._read_overview(ops), wait_s=GROUP_READ_WAIT_S)

    def _read_overview(self, ops: GroupOps) -> GroupsView:
        started_ms, started = self._wall_ms(), time.monotonic()
        try:
            overview = ops.overview()
        except KzcError as exc:
            with self._groups_lock:
                known = self._book.all_stale(str(exc))
                last = self._groups_view
            if not known or last is None:
                raise
            view = GroupsView(
                tuple(sorted(known, key=lag_order)), {}, last[1].notes, last[1].at_ms, Stale(last[1].at_ms, str(exc))
            )
            return view
        with self._groups_lock:
            groups = self._book.merge(overview.groups, started_ms, overview.unlisted)
            fresh = [g for g in groups if g.stale is None and g.as_of_ms == started_ms]
            self._history.add(started, fresh, complete=False)
            self._history.retain({g.group for g in groups})
            trends = {g.group: t for g in fresh if (t := self._history.trend(g.group)) is not None}
            view = GroupsView(tuple(sorted(groups, key=lag_order)), trends, overview.notes, started_ms)
            self._groups_view = (started, view)
        return view

    def detail(self, ops: GroupOps, group: str) -> GroupDetail:
        """One group now, with its trend from the reads so far; its last good numbers marked stale when it
        cannot be read.

        Raises:
            UsageError: the group does not exist; ConnectError: the brokers or ZooKeeper did not answer and
                the group was never read.
        """
        started_ms, started = self._wall_ms(), time.monotonic()
        try:
            found = ops.describe(group)
        except UsageError:
            raise
        except KzcError as exc:
            with self._groups_lock:
                last = self._book.last(group)
            if last is None or last.as_of_ms is None:
                raise
            return GroupDetail(replace(last, stale=Stale(last.as_of_ms, str(exc))), None)
        with self._groups_lock:
            (shown,) = self._book.merge([found], started_ms, unlisted="")
            trend = None
            if shown.stale is None:
                self._history.add(started, [shown], complete=False)
                trend = self._history.trend(group)
        return GroupDetail(shown, trend)

    def of_topic(self, ops: GroupOps, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        """The groups consuming ``topic``: from a read of the last few seconds, else a fresh one."""
        latest = self._groups_view
        if latest is None or time.monotonic() - latest[0] > GROUPS_FRESH_S:
            return self.overview(ops).of_topic(topic)
        return latest[1].of_topic(topic)
