"""The cyclic garbage collector paused while a large state is built from the history store.

Replaying a 100,000-partition cluster (the console at a moment, ``kzc report``) makes hundreds of thousands of
containers (a dict per topic, a tuple per partition, the rows read); their number sets off full collections over
the whole heap, which cost more than the work itself (benchmarks/README.md: the report's CPU time halves, a step
back across a base snapshot reads its base in half the time). What is built holds no cycles; the collector runs
again after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The collector off for the ``with`` block (or the function it decorates), as it was after. The pause is
    process-wide: another thread's garbage waits for it too (cycles only; reference counting goes on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
