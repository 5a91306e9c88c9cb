"""App-level messages, named as past events. Backend callbacks run on backend threads: they only post one
of these and return; the handlers run on the UI thread."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message

from core.console.protocols import ClusterEvent
from core.console.view import ClusterView
from core.kafka.acls import AclBinding
from core.kafka.quotas import QuotaEntity
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


@dataclass
class ChangeFinished(Message):
    """A change the user made from the console (an election, a config change, a reassignment) was sent or
    failed: ``text`` is its one event log line with the outcome; ``severity`` styles it."""

    text: str
    severity: str = "info"
    topic: str | None = None


# ---- what screens ask of the app (posted by a screen; the app, which knows every screen, acts) ----------


class OpenRequested(Message):
    """Asks the app to open a screen (or to refuse and say why). The asking screen holds the keys typed
    meanwhile (``KzcScreen.post_message``) and the app hands them on once it has acted."""


@dataclass
class ScreenChosen(OpenRequested):
    """The user asked for a main screen: ``cluster``, ``topics``, ``zk``, ``checks`` or ``groups`` (``focus``: a widget
    id to land on, e.g. ``brokers``)."""

    name: str
    focus: str | None = None


@dataclass
class TopicChosen(OpenRequested):
    """The user asked for one topic's detail."""

    topic: str


@dataclass
class MessagesChosen(OpenRequested):
    """The user asked for a topic's messages (all partitions, or ``partition``)."""

    topic: str
    partition: int | None = None


@dataclass
class GroupChosen(OpenRequested):
    """The user asked for one consumer group's detail."""

    group: str


@dataclass
class ClusterOfFleetChosen(OpenRequested):
    """Enter on a row of the fleet screen: open that context's cluster."""

    context: str


@dataclass
class ZnodeChosen(OpenRequested):
    """The user asked for a znode in the ZooKeeper browser."""

    path: str


@dataclass
class PartitionsChosen(OpenRequested):
    """The user asked for the partitions behind a health counter (``health``: ``offline``,
    ``under-replicated``, ``under-min-isr``, ``non-preferred``) or on a ``broker``; ``title`` says which."""

    title: str
    health: str | None = None
    broker: int | None = None


@dataclass
class CreateTopicRequested(OpenRequested):
    """The user asked for the create-topic form."""


@dataclass
class ExpandTopicRequested(OpenRequested):
    """The user asked to add partitions to ``topic``."""

    topic: str


@dataclass
class DeleteTopicsRequested(OpenRequested):
    """The user asked to delete ``topics``, or every topic whose whole name matches ``regex``; ``hidden``:
    how many of ``topics`` are marked but hidden by the filter."""

    topics: tuple[str, ...] = ()
    regex: str | None = None
    hidden: int = 0


@dataclass
class MoveOffRequested(OpenRequested):
    """The user asked to move every replica off ``broker`` (the reassignment preview)."""

    broker: int


@dataclass
class BrokerChosen(OpenRequested):
    """The user opened one broker (its view)."""

    broker: int


@dataclass
class StopCheckRequested(OpenRequested):
    """The user asked what stopping ``broker`` now would do (``core.snapshot.stop_check``)."""

    broker: int


@dataclass
class ElectionRequested(OpenRequested):
    """The user asked for a preferred leader election, of ``topic`` or of every topic (None)."""

    topic: str | None = None


@dataclass
class ConfigEditRequested(OpenRequested):
    """The user asked to change ``topic``'s config overrides."""

    topic: str


@dataclass
class BrokerConfigEditRequested(OpenRequested):
    """The user asked to change a broker's dynamic configs (``entity``: its id, or ``<default>``)."""

    entity: str


@dataclass
class AclChangeRequested(OpenRequested):
    """The user asked to add an ACL (``action`` ``add``, ``binding`` None) or to remove ``binding``."""

    action: str
    binding: AclBinding | None = None


@dataclass
class QuotaChangeRequested(OpenRequested):
    """The user asked to change quotas, of ``entity`` when a row was highlighted."""

    entity: QuotaEntity | None = None


@dataclass
class UserChangeRequested(OpenRequested):
    """The user asked to set a SCRAM password (``action`` ``set``) or to delete credentials (``delete``), of
    ``user`` and ``mechanism`` when a row was highlighted."""

    action: str
    user: str | None = None
    mechanism: str | None = None


@dataclass
class ChecksRequested(Message):
    """The user asked for a check run with ``engine`` (``spark`` or ``local``)."""

    engine: str


@dataclass
class ExportRequested(Message):
    """A screen asked for ``payload`` to be written as the export ``view``."""

    view: str
    payload: dict[str, Any]
