"""The console's recording of its cluster into the history store (``kzc --record``, a context's
``record = true``): ``core.console.recording`` fed by the console's own live model.

It starts in a worker once the cluster is connected (opening the store and taking its lock touch the disk)
and ends in one message: ``RecordingStarted`` (the status line shows ``REC DIR``) or ``RecordingRefused``
(a notice, e.g. another ``kzc record`` holds the cluster's lock; the console runs on without recording).
``close`` stops it with a final flush and releases the lock; the app calls it off the UI thread (a thread
when the console quits, a worker when it switches context), before the cluster is closed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from textual.message import Message

from core.config import ConnectionSettings
from core.console.protocols import ClusterBackend
from core.console.recording import ConsoleRecording
from core.errors import KzcError
from core.history.location import history_place

Post = Callable[[Message], object]


@dataclass
class RecordingStarted(Message):
    """The console records ``cluster`` into the store at ``root``."""

    root: str
    cluster: str
    generation: int


@dataclass
class RecordingStopped(Message):
    """Recording stopped on its own (the disk refused a flush): what the live model sees from now on is
    not recorded."""

    reason: str
    generation: int


@dataclass
class RecordingRefused(Message):
    """Recording was asked for and could not start; ``reason`` is the user-facing message."""

    reason: str
    generation: int


class RecordingLink:
    """The recording of one cluster of the console (one per live link; ``generation`` as the link's)."""

    def __init__(self, backend: ClusterBackend, settings: ConnectionSettings, generation: int) -> None:
        self.backend = backend
        self.settings = settings
        self.generation = generation
        self.recording: ConsoleRecording | None = None
        self._lock = threading.Lock()
        self._closed = False
        self.failure: str | None = None  # why recording stopped on its own, known once closed

    @property
    def wanted(self) -> bool:
        """Whether recording was asked for (``--record`` or the context's ``record = true``)."""
        return self.settings.record

    def start_job(self, post: Post) -> None:
        """Open the store and start recording (worker thread); ends in one message."""
        try:
            stopped = lambda reason: post(RecordingStopped(reason, self.generation))  # noqa: E731
            recording = ConsoleRecording.start(self.backend, history_place(self.settings), on_failure=stopped)
        except KzcError as exc:
            post(RecordingRefused(f"not recording: {exc}", self.generation))
            return
        with self._lock:
            late = self._closed
            if not late:
                self.recording = recording
        if late:  # the console closed this cluster meanwhile
            recording.close()
            return
        post(RecordingStarted(str(recording.root), recording.place.cluster, self.generation))

    def close(self) -> None:
        """Stop recording with a final flush and release the store (blocks on disk: never the UI thread)."""
        with self._lock:
            self._closed = True
            recording, self.recording = self.recording, None
        if recording is not None:
            recording.close()
            self.failure = recording.failure


def close_cluster(link: RecordingLink, backend: ClusterBackend) -> None:
    """Close a cluster of the console: its recording first (a final flush of what the live model saw), then
    the backend (blocks: a worker or a closing thread)."""
    link.close()
    backend.close()
