"""Recording inside the console (``kzc --record``, a context's ``record = true``): the history recorder of
``kzc record`` (``core.history.recorder``) fed by the live model the console already follows, so recording
costs ZooKeeper no second session and no second watch; its traffic and consumer groups' ticks come from the
backend (``TrafficSampler``, ``GroupsSampler``), where it offers them.

Threads: ``ConsoleRecording.start`` opens the store and takes its per-cluster lock (disk: a worker, never
the UI thread); the recorder compares and flushes on its own thread, ``kzc-console-record``; the backend's
snapshot listener only flags it; ``close`` stops it with a final flush and releases the lock (disk again:
never the UI thread).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from core.console.protocols import GroupsSampler, TrafficSampler
from core.errors import KzcError
from core.history.location import HistoryPlace
from core.snapshot.model import ClusterSnapshot
from core.zookeeper.session import ConnectionState

if TYPE_CHECKING:  # the store is pyarrow: imported when the console records, not as it opens
    from core.history.recorder import Recorder, RecorderSettings

_CLOSE_WAIT_S = 10.0  # the recorder's thread ends within one tick of its stop; this only bounds a wedged disk


class FollowedCluster(Protocol):
    """What recording needs of the console's backend (``core.console.protocols`` SnapshotSource, Connection)."""

    @property
    def state(self) -> ConnectionState: ...

    def snapshot(self) -> ClusterSnapshot: ...

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None: ...


class _Followed:
    """The console's live model as the recorder's ``LiveSource``: the console starts and stops it, not the
    recorder."""

    def __init__(self, cluster: FollowedCluster) -> None:
        self._cluster = cluster

    def start(self) -> None:
        """Already started by the console."""

    def stop(self) -> None:
        """Stopped by the console when it closes the cluster."""

    def snapshot(self) -> ClusterSnapshot:
        return self._cluster.snapshot()


class ConsoleRecording:
    """One cluster recorded into its history store while the console follows it."""

    def __init__(
        self,
        place: HistoryPlace,
        root: Path,
        recorder: Recorder,
        locks: ExitStack,
        on_failure: Callable[[str], object] | None = None,
    ) -> None:
        self.place = place
        self.root = root
        self._recorder = recorder
        self._locks = locks
        self._thread: threading.Thread | None = None
        self._closed = threading.Lock()
        self.failure: str | None = None  # why the recorder's thread stopped on its own
        self._on_failure = on_failure

    @classmethod
    def start(
        cls,
        cluster: FollowedCluster,
        place: HistoryPlace,
        settings: RecorderSettings | None = None,
        on_failure: Callable[[str], object] | None = None,
    ) -> ConsoleRecording:
        """Open (or create) the store, take the cluster's recorder lock and start recording (blocks on disk);
        ``on_failure`` hears, from the recorder's thread, why recording stopped if it stops on its own.

        Raises:
            UsageError: nothing names a store (``HistoryPlace.require``), or it is not a store.
            StoreError: another recorder holds the cluster's lock, or the store is of another version.
        """
        from core.history.recorder import Recorder, RecorderSettings
        from core.history.store import HistoryStore

        root = place.require()
        locks = ExitStack()
        try:
            store = HistoryStore.create(root)
            locks.enter_context(store.recording(place.cluster))
        except BaseException:
            locks.close()
            raise
        recorder = Recorder(
            place.cluster,
            store,
            settings or RecorderSettings(),
            lambda: cluster.state is ConnectionState.CONNECTED,
            traffic=cluster.traffic_sample if isinstance(cluster, TrafficSampler) else None,
            groups=cluster.groups_sample if isinstance(cluster, GroupsSampler) else None,
        )
        recording = cls(place, root, recorder, locks, on_failure)
        cluster.add_snapshot_listener(recorder.changed)  # the model's thread: only flags the recorder
        thread = threading.Thread(
            target=recording._run, args=(_Followed(cluster),), name="kzc-console-record", daemon=True
        )
        recording._thread = thread
        thread.start()
        return recording

    @property
    def rows_written(self) -> int:
        """Rows flushed so far."""
        return self._recorder.rows_written

    @property
    def rows_buffered(self) -> int:
        """Rows waiting for the next flush (a crash would lose them; ``close`` writes them)."""
        return self._recorder.buffered

    def _run(self, live: _Followed) -> None:
        try:
            self._recorder.run(live)
        except Exception as exc:  # the disk refused (full, gone), or the cluster was closed under it: say so
            self.failure = str(exc) if isinstance(exc, KzcError) else f"{type(exc).__name__}: {exc}"
            if self._on_failure is not None:
                self._on_failure(self.failure)

    def close(self) -> None:
        """Stop recording with a final flush and release the store's lock (any thread but the UI's; once)."""
        if not self._closed.acquire(blocking=False):
            return
        try:
            self._recorder.stop()
            if self._thread is not None:
                self._thread.join(_CLOSE_WAIT_S)
            self._recorder.flush()  # what the thread compared after stop's flush
        except Exception as exc:  # the final flush failed too (a full disk): kept for whoever closes to say
            self.failure = self.failure or f"{type(exc).__name__}: {exc}"
        finally:
            self._locks.close()
