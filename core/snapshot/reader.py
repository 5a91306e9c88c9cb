"""Reading a ``ClusterSnapshot`` from ZooKeeper: every Kafka metadata znode, pipelined, with progress.

``read_snapshot(session)`` reads what ``core.snapshot.model`` models: cluster id, controller and its
epoch, broker registrations, every topic with every partition state, topic and broker configs,
deletion markers, admin requests and notifications. ZooKeeper is the only source, so it works with every
broker down.

Each pass over the znodes is a ``core.snapshot.read_attempt.ReadAttempt`` (how it is fast, what its zxid
means, how it treats absent, unparseable and denied znodes); this module decides which pass to keep. A pass
that straddles a lost session (ephemeral broker and controller znodes may have changed in the gap) or a
controller failover (``/controller_epoch`` differs at the end from the start) is thrown away and read again,
up to ``max_attempts`` times; a connection loss within the same session only re-sends the requests that failed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from core.errors import ConnectError, SessionLostError
from core.polling import DeadlineExceeded, wait_until
from core.snapshot.model import ClusterSnapshot
from core.snapshot.read_attempt import ProgressCallback as ProgressCallback
from core.snapshot.read_attempt import ReadAttempt, Straddled
from core.snapshot.read_attempt import SnapshotProgress as SnapshotProgress
from core.zookeeper.session import ZkSession

DEFAULT_MAX_IN_FLIGHT = 2000
DEFAULT_MAX_ATTEMPTS = 3


@dataclass
class ReadStats:
    """What the last ``SnapshotReader.read`` did: for the CLI's summary and the benchmarks."""

    attempts: int = 0
    requests: int = 0
    max_in_flight: int = 0
    seconds: float = 0.0
    first_zxid: int = 0  # server zxid of the first reply of the kept attempt
    last_zxid: int = 0  # ... and of its last reply: equal means nothing changed while reading
    retaken_for: tuple[str, ...] = ()  # why earlier attempts were discarded

    @property
    def point_in_time(self) -> bool:
        """True when ZooKeeper committed no change at all while the kept attempt was reading."""
        return self.first_zxid == self.last_zxid


def read_snapshot(
    session: ZkSession,
    progress: ProgressCallback | None = None,
    max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    max_attempts: int = DEFAULT_MAX_ATTEMPTS,
) -> ClusterSnapshot:
    """Read all Kafka metadata of the session's cluster into a ``ClusterSnapshot``.

    Blocks until done (seconds for 100k partitions): call it from a worker thread, never from a kazoo
    callback or watch.

    Args:
        session: a started session, chrooted at the Kafka chroot.
        progress: called on the calling thread every ~1000 answers and once at the end.
        max_in_flight: requests outstanding at once (a bound on client and server memory).
        max_attempts: reads in all: one that straddles a lost session or a controller change is taken
            again; if the controller changed during the last one, that read is kept.

    Raises:
        SessionLostError: every attempt straddled a lost session, or the session was closed.
        ConnectError: ZooKeeper stopped answering and did not come back within the session timeout;
            ``AuthError`` when the chroot itself refuses the credentials (NoAuth; a znode below that refuses them
            is an ``Unreadable`` in the snapshot).
    """
    return SnapshotReader(session, progress, max_in_flight, max_attempts).read()


class SnapshotReader:
    """One reusable reader: ``read()`` takes a snapshot and leaves what it did in ``stats``."""

    def __init__(
        self,
        session: ZkSession,
        progress: ProgressCallback | None = None,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        max_attempts: int = DEFAULT_MAX_ATTEMPTS,
        watch: Callable[[Any], None] | None = None,
    ) -> None:
        """``watch``: when given, every topic znode and partition state znode is read with this data watch
        (``core.live.watcher.ClusterWatcher.read_cluster`` follows every partition through them)."""
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.session = session
        self.progress = progress
        self.max_in_flight = max_in_flight
        self.max_attempts = max(1, max_attempts)
        self.stats = ReadStats()
        self.watch = watch

    def read(self) -> ClusterSnapshot:
        """Take a snapshot (see ``read_snapshot``)."""
        started = time.monotonic()
        self.stats = ReadStats()
        reasons: list[str] = []
        for attempt in range(1, self.max_attempts + 1):
            self.stats.attempts = attempt
            self._wait_connected()
            reader = ReadAttempt(self.session, attempt, self.progress, self.max_in_flight, self.watch)
            try:
                snapshot, epoch_changed = reader.run()
            except Straddled as straddle:
                reasons.append(str(straddle))
                self._account(reader)
                continue
            self._account(reader)
            self.stats.first_zxid, self.stats.last_zxid = reader.first_zxid, snapshot.zxid
            if epoch_changed and attempt < self.max_attempts:
                reasons.append("the controller changed while reading (/controller_epoch moved)")
                continue
            self.stats.retaken_for = tuple(reasons)
            self.stats.seconds = time.monotonic() - started
            return snapshot
        self.stats.retaken_for = tuple(reasons)
        self.stats.seconds = time.monotonic() - started
        raise SessionLostError(
            f"the ZooKeeper session was lost during each of {self.max_attempts} snapshot reads "
            f"({reasons[-1]}); ZooKeeper {self.session.target} is unstable right now"
        )

    def _account(self, reader: ReadAttempt) -> None:
        self.stats.requests += reader.issued
        self.stats.max_in_flight = max(self.stats.max_in_flight, reader.peak_in_flight)

    def _wait_connected(self) -> None:
        client = self.session.client
        if client.connected:
            return
        timeout = self.session.settings.session_timeout * 3
        try:
            wait_until(lambda: client.connected, timeout, "the ZooKeeper connection", interval=0.05)
        except DeadlineExceeded:
            raise ConnectError(
                f"ZooKeeper {self.session.target} is not connected and did not reconnect within {timeout:g} s"
            ) from None
