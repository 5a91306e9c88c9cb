"""librdkafka's own threads at the end of a kzc process.

A librdkafka client (an AdminClient, a Consumer) runs native threads (``rdk:main``, ``rdk:broker-N``, ``rdk:bg``)
until it is destroyed. A process that exits through the C library's ``exit`` while one still runs can die of
SIGSEGV after Python has stopped (no ``faulthandler`` trace is possible then): the console did, on ``q`` right after
a broker came back, with a call still inside a client or a client still being destroyed. ``exit_is_unsafe`` first
waits for the destroys already handed to ``core.brokers.admin``'s closer, then says whether any such thread is left;
``cli.main`` then leaves with ``os._exit``, as it does when worker threads were abandoned.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

_PREFIX = "rdk:"  # librdkafka names every thread it starts so (pthread_setname_np)
THREADS_END_S = 1.0  # how long the threads of the clients just destroyed may take to end


def librdkafka_threads() -> int:
    """How many of this process's threads are librdkafka's (0 where ``/proc`` does not tell)."""
    count = 0
    for comm in Path("/proc/self/task").glob("*/comm"):
        try:
            count += comm.read_text().startswith(_PREFIX)
        except OSError:  # the thread ended meanwhile
            continue
    return count


def exit_is_unsafe(settle_s: float = THREADS_END_S) -> bool:
    """Whether a librdkafka thread still runs once the clients already closed are destroyed (waits for those:
    ``core.brokers.admin.drain_closer``, only if the module was imported; a command without clients pays nothing),
    and, when every client kzc made is destroyed, up to ``settle_s`` more for their threads to end (a destroyed
    client's threads may take a moment); a client left open returns at once (a command's exit is not delayed)."""
    admin = sys.modules.get("core.brokers.admin")
    if admin is None:
        return librdkafka_threads() > 0
    admin.drain_closer()
    if admin.clients_alive():
        return librdkafka_threads() > 0  # a client left open: its threads stay, waiting would only delay the exit
    deadline = time.monotonic() + settle_s
    while librdkafka_threads() > 0:
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.02)
    return False
