"""``core.polling.follow_until``: the one loop behind ``--wait`` (topics, reassignments, elections)."""

from __future__ import annotations

import pytest

from core.polling import follow_until


class Stuck(Exception):
    pass


def test_each_different_look_is_told_once_and_the_done_one_is_returned() -> None:
    looks = iter([1, 1, 2, 2, 0])
    heard: list[int] = []
    found = follow_until(lambda: next(looks), lambda v: v == 0, 5.0, "zero", Stuck, heard.append, interval=0)
    assert (found, heard) == (0, [1, 2, 0])  # a falsy look that is done ends the wait too


def test_the_timeout_is_built_from_the_latest_look() -> None:
    looks = iter(range(1_000_000))
    with pytest.raises(Stuck) as stuck:
        follow_until(lambda: next(looks), lambda v: False, 0.0, "never", lambda last: Stuck(last), interval=0)
    assert stuck.value.args == (0,)  # a zero timeout: one look, then the deadline


def test_key_says_which_looks_differ() -> None:
    looks = iter(["a", "A", "b"])
    heard: list[str] = []
    follow_until(lambda: next(looks), lambda v: v == "b", 5.0, "b", Stuck, heard.append, key=str.lower, interval=0)
    assert heard == ["a", "b"]
