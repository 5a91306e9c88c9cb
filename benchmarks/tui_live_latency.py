"""Znode change to updated screen: the installed console in a real pty (160x48), against a real ZooKeeper.

The console shows one znode in its ZooKeeper browser; the script writes a new value to that znode
``--changes`` times and times each write to the moment the pty output carries the new value (the frame
that shows it). Beside it, in the same run and for the same writes, a bare kazoo ``DataWatch`` on its own
session: the floor set by ZooKeeper and kazoo. Goal (the console's issue): p95 < 500 ms.

Without ``--zookeeper`` a one-broker sandbox is started in a temporary directory and stopped at the end.

    .venv/bin/python benchmarks/tui_live_latency.py [--zookeeper 127.0.0.1:2181/kafka] [--changes 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kazoo.client import KazooClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tui_pty import KEYS, Terminal, percentile

from core.sandbox.local_cluster import Sandbox

GOAL_P95_MS = 500.0
WAIT_S = 10.0  # one change must reach the screen within this, or the run stops with an error


@contextmanager
def zookeeper(given: str | None) -> Iterator[str]:
    """The connect string to use: the one given, else a one-broker sandbox's (stopped afterwards)."""
    if given:
        yield given
        return
    with tempfile.TemporaryDirectory(prefix="kzc-bench-") as directory:
        print("starting a one-broker sandbox ...", file=sys.stderr)
        box = Sandbox.up(Path(directory), brokers=1, timeout=240)
        try:
            yield box.info().zookeeper
        finally:
            box.down()


def open_znode(term: Terminal, path: str) -> None:
    """Open the ZooKeeper browser at ``path`` through the command palette, as a user would."""
    term.wait_for(b"ZK connected", 0, 60)
    since = term.mark()
    term.press(b":")
    term.wait_for(b"Search", since, 10)
    for char in f"zk {path}":
        term.press(char.encode())
    term.wait_for(b"open this znode", since, 10)
    since = term.mark()
    term.press(KEYS["enter"])
    term.wait_for(b"0 children", since, 20)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zookeeper", metavar="HOST:PORT[/chroot]", help="default: start a sandbox")
    parser.add_argument("--changes", type=int, default=200, help="znode writes to time")
    args = parser.parse_args()
    with zookeeper(args.zookeeper) as connect:
        path = f"/kzc-bench-{uuid.uuid4().hex[:8]}"
        client = KazooClient(hosts=connect)
        client.start(timeout=30)
        client.create(path, b"start")
        bare_client = KazooClient(hosts=connect)
        bare_client.start(timeout=30)
        seen: dict[bytes, float] = {}
        arrived = threading.Condition()

        def watched(data: bytes | None, _stat: object) -> None:
            # kazoo's thread: only record.
            with arrived:
                seen[data or b""] = time.monotonic()
                arrived.notify_all()

        bare_client.DataWatch(path, watched)
        term = Terminal([sys.executable, "-m", "cli.main", "--zookeeper", connect], columns=160, rows=48)
        term.start()
        screen_ms: list[float] = []
        bare_ms: list[float] = []
        try:
            open_znode(term, path)
            for i in range(args.changes):
                value = f"tick{i:05d}x{uuid.uuid4().hex[:6]}".encode()
                since = term.mark()
                written = time.monotonic()
                client.set(path, value)
                shown = term.wait_for(value, since, WAIT_S)
                with arrived:
                    arrived.wait_for(lambda v=value: v in seen, WAIT_S)  # type: ignore[misc]
                screen_ms.append((shown - written) * 1000)
                bare_ms.append((seen[value] - written) * 1000)
                term.wait_frame_end(term.mark() - 1)  # let the frame finish before the next write
        finally:
            term.stop()
            bare_client.stop()
            client.delete(path)
            client.stop()
    print()
    print(f"znode change -> visible (ms), {args.changes} changes     {'p50':>8} {'p95':>8} {'max':>8}")
    for label, values in (("console: new value on the screen", screen_ms), ("baseline: bare kazoo DataWatch", bare_ms)):
        print(f"  {label:<44} {statistics.median(values):8.1f} {percentile(values, 0.95):8.1f} {max(values):8.1f}")
    p95 = percentile(screen_ms, 0.95)
    print(f"goal: console p95 < {GOAL_P95_MS:g} ms: {p95:.1f} ms {'ok' if p95 < GOAL_P95_MS else 'MISSED'}")


if __name__ == "__main__":
    main()
