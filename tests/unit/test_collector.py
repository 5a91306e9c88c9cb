"""``core.collector.collector_paused``: the cyclic collector is off inside, as it was after (also when the
block raises, and when it was off before)."""

from __future__ import annotations

import gc
import threading

import pytest

from core.collector import collector_paused


def test_the_collector_is_off_inside_and_as_it_was_after() -> None:
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("the replay failed")
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # it was off: it stays off
    finally:
        gc.enable()


def test_a_function_it_decorates_runs_with_the_collector_off_each_call() -> None:
    @collector_paused()
    def build() -> bool:
        return gc.isenabled()

    assert [build(), build()] == [False, False] and gc.isenabled()


def test_blocks_that_overlap_in_two_threads_bring_the_collector_back_once_after_the_last() -> None:
    """A step, the prefetch and a report may overlap: the first block's end must not turn the collector on under
    the second, and the second must not leave it off for good."""
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    inside_after_first: list[bool] = []

    def second() -> None:
        first_in.wait(10)
        with collector_paused():
            second_in.set()
            first_out.wait(10)
            inside_after_first.append(gc.isenabled())

    thread = threading.Thread(target=second)
    thread.start()
    with collector_paused():
        first_in.set()
        second_in.wait(10)
    first_out.set()
    thread.join(10)
    assert inside_after_first == [False] and gc.isenabled()
