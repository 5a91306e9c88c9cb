"""How fresh a consumer group's numbers are: each carries when it was read, and a group whose source stopped
answering keeps its last good numbers marked "stale since HH:MM:SS (reason)", never frozen silently.

``GroupBook`` keeps the last complete read of every group. Each new read is merged into it: a group read in
full is fresh; a group whose read failed (its coordinator or a partition leader did not answer) or that a
broker failed to list shows its last good numbers, stale since they were read, with the reason; a group never
read in full shows what is known (unknown lags say why). A group absent from a complete listing is gone.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from core.groups.lag import GroupLag, Stale
from core.human_time import age_text, clock_text


def missing_part(group: GroupLag) -> str | None:
    """Why part of ``group`` could not be read this time (its error, or a partition's), ``None`` if all was."""
    if group.error:
        return group.error
    return next((row.unknown for row in group.partitions if row.unknown), None)


def as_of_text(group: GroupLag) -> str:
    """The freshness cell: ``stale since 14:36:32 (reason)``, or when the numbers were read (``14:36:40``)."""
    if group.stale is not None:
        return group.stale.text()
    return "-" if group.as_of_ms is None else clock_text(group.as_of_ms)


def read_text(at_ms: int, now_ms: int) -> str:
    """``read 14:36:40 (3s ago)``: when numbers were read, and how long ago."""
    return f"read {clock_text(at_ms)} ({age_text(max(now_ms - at_ms, 0) / 1000)} ago)"


def aged(group: GroupLag, now_ms: int, limit_s: float, failed: str | None = None) -> GroupLag:
    """``group`` as it stands at ``now_ms``: stale since it was read when the latest read ``failed`` (its
    reason), or when no read has finished for ``limit_s`` seconds; else unchanged."""
    as_of = group.as_of_ms
    if group.stale is not None or as_of is None:
        return group
    if failed is not None:
        return replace(group, stale=Stale(as_of, failed))
    if now_ms - as_of > limit_s * 1000:
        return replace(group, stale=Stale(as_of, f"no read has finished for {age_text((now_ms - as_of) / 1000)}"))
    return group


class GroupBook:
    """The last good read of every group (not thread-safe: the backend calls it under its lock)."""

    def __init__(self) -> None:
        self._good: dict[str, GroupLag] = {}

    def merge(self, read: Iterable[GroupLag], at_ms: int, unlisted: str | None = None) -> tuple[GroupLag, ...]:
        """The groups to show after a read taken at ``at_ms``.

        Args:
            read: the groups this read returned.
            at_ms: when the read started (epoch ms).
            unlisted: why groups known before may be missing from ``read`` (a broker did not list its groups);
                ``None`` when the read covers every group (then the missing ones are gone). Reads of a single
                group pass ``""``: the others are simply not part of it.
        """
        shown: list[GroupLag] = []
        seen: set[str] = set()
        for group in read:
            seen.add(group.group)
            shown.append(self._one(group, at_ms))
        for name, good in list(self._good.items()):
            if name in seen:
                continue
            if unlisted is None:
                del self._good[name]
            elif unlisted:
                shown.append(_stale(good, unlisted))
        return tuple(shown)

    def _one(self, group: GroupLag, at_ms: int) -> GroupLag:
        good = self._good.get(group.group)
        if good is not None and good.as_of_ms is not None and good.as_of_ms > at_ms:
            return good  # a newer read of this group finished first
        missing = missing_part(group)
        if missing is None:
            fresh = replace(group, as_of_ms=at_ms, stale=None)
            self._good[group.group] = fresh
            return fresh
        if good is not None:
            return _stale(good, missing)
        return replace(group, as_of_ms=at_ms, stale=None)

    def last(self, group: str) -> GroupLag | None:
        """The last good read of ``group``."""
        return self._good.get(group)

    def all_stale(self, reason: str) -> tuple[GroupLag, ...]:
        """Every group known, stale since its last good read: the whole read failed for ``reason``."""
        return tuple(_stale(good, reason) for good in self._good.values())


def _stale(good: GroupLag, reason: str) -> GroupLag:
    assert good.as_of_ms is not None
    return replace(good, stale=Stale(good.as_of_ms, reason))
