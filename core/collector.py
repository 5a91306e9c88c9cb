"""The cyclic garbage collector paused while a large state is built: a snapshot read from ZooKeeper, a replay from
the history store.

Reading a 50,000-partition cluster or replaying a 100,000-partition one makes hundreds of thousands of containers (a
dict per topic, a tuple per partition, the answers or rows read); their number sets off full collections over the
whole heap, which can cost more than the work itself (benchmarks/README.md: the report's CPU time halves, a step back
across a base snapshot reads its base in half the time, a 50,000-partition read's parsing and building take
about half as long).
What is built holds no cycles; the collector runs again after.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0  # blocks inside collector_paused now, in every thread
_was_enabled = False  # the collector's state before the first of them


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the ``with`` block (or the function it decorates), as it was after the last block
    ends. The pause is process-wide: another thread's garbage waits for it too (cycles only; reference counting
    goes on); blocks in several threads (a step, the prefetch, a report) overlap under one count, so the
    collector comes back once, after the last."""
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()
