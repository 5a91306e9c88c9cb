"""App-level messages, named as past events. Backend callbacks run on backend threads: they only post one
of these and return; the handlers run on the UI thread."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from core.console.protocols import ClusterEvent
from core.console.view import ClusterView
from core.snapshot.model import TopicEntry
from core.zookeeper.session import ConnectionState


@dataclass
class ConnectionChanged(Message):
    """The ZooKeeper connection state changed."""

    state: ConnectionState
    generation: int


@dataclass
class BackendConnected(Message):
    """The first connection and the first read of the cluster succeeded."""

    generation: int


@dataclass
class ConnectFailed(Message):
    """Connecting failed; ``reason`` is the user-facing message."""

    reason: str
    generation: int


@dataclass
class ClusterEventSeen(Message):
    """The backend reported a change."""

    event: ClusterEvent
    generation: int


@dataclass
class ViewRefreshed(Message):
    """A new view of the cluster was derived from the latest snapshot; ``prepared`` is what the screen
    that was active then derived from it off the UI thread (``KzcScreen.prepare``); ``loading`` is the
    backend's note while its first full read runs."""

    view: ClusterView
    generation: int
    screen: object = None
    prepared: object = None
    loading: str | None = None


@dataclass
class SnapshotUpdated(Message):
    """The backend completed a full read of the cluster."""

    generation: int


@dataclass
class TopicEntryChanged(Message):
    """A followed topic changed (``entry`` None: it is gone)."""

    topic: str
    entry: TopicEntry | None


@dataclass
class ZnodeChanged(Message):
    """A watched znode (or its children) changed."""

    path: str


@dataclass
class ExportWritten(Message):
    """An export file was written (``error`` set when it failed)."""

    path: str
    rows: int
    error: str | None = None
