"""``core.history.collector.collector_paused``: the cyclic collector is off inside, as it was after (also when the
block raises, and when it was off before)."""

from __future__ import annotations

import gc

import pytest

from core.history.collector import collector_paused


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
