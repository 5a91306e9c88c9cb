"""The live watcher's reads: every read of a watched znode, each setting the watcher's one watch callback.

``WatchedReads`` reads on the calling thread (the watcher's dispatch thread, or ``start``'s caller): data
with a data watch, an absent znode with an existence watch (so its creation fires), children with a child
watch, many znodes pipelined (``IN_FLIGHT`` at a time). NoAuth reads as an ``Unreadable`` value (with an
existence watch kept, so a later ACL change is noticed), or raises ``NoAuthRead`` while ``strict``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from kazoo.client import KazooClient
from kazoo.exceptions import NoAuthError, NoNodeError
from kazoo.protocol.states import WatchedEvent, ZnodeStat

from core.kafka.znodes import (
    ControllerInfo,
    TopicAssignment,
    Unreadable,
    parse_broker,
    parse_controller,
    parse_controller_epoch,
    parse_migration,
    parse_partition_state,
    parse_preferred_election,
    parse_reassignment,
    parse_topic,
)
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CONTROLLER,
    CONTROLLER_EPOCH,
    DELETE_TOPICS,
    ISR_CHANGE_NOTIFICATIONS,
    LOG_DIR_EVENT_NOTIFICATIONS,
    MIGRATION,
    PREFERRED_REPLICA_ELECTION,
    REASSIGN_PARTITIONS,
    TOPICS,
    broker_path,
    state_path,
    topic_path,
)
from core.live.state import FollowedTopic, LiveState, StateValue
from core.snapshot.read_attempt import times_of

log = logging.getLogger(__name__)

T = TypeVar("T")
Read = tuple[bytes, ZnodeStat] | Unreadable | None
"""A znode read: ``(data, stat)``, an ``Unreadable`` (NoAuth), or None (absent)."""

IN_FLIGHT = 2000  # reads sent before waiting for answers: pipelined, but bounded in memory
_NO_AUTH = "no permission to read it (NoAuth): its ACL does not grant these credentials READ"


class NoAuthRead(Exception):
    """A read was refused with NoAuth (handled where the read was asked for)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


class WatchedReads:
    """Reads the znodes a ``ClusterWatcher`` watches, setting ``watch`` on each as it reads."""

    def __init__(self, client: KazooClient, watch: Callable[[WatchedEvent], None], timeout: float) -> None:
        self._client = client
        self._watch = watch
        self._timeout = timeout
        self.strict = False  # during the watcher's start(): NoAuth is an error instead of an Unreadable value

    def structure(self) -> LiveState:
        """Read every structural znode, setting its watch (``followed`` left empty)."""
        controller, czxid, epoch = self.controller()
        brokers: dict[int, Any] = {}
        epochs: dict[int, int] = {}
        self.brokers(sorted(broker_ids(self.children(BROKER_IDS))), brokers, epochs)
        return LiveState(
            controller=controller,
            controller_czxid=czxid,
            controller_epoch=epoch,
            brokers=brokers,
            broker_epochs=epochs,
            topics=frozenset(self.children(TOPICS) or ()),
            deletions=frozenset(self.children(DELETE_TOPICS) or ()),
            reassignment=self.value(REASSIGN_PARTITIONS, parse_reassignment),
            preferred_election=self.value(PREFERRED_REPLICA_ELECTION, parse_preferred_election),
            isr_notifications=len(self.children(ISR_CHANGE_NOTIFICATIONS) or ()),
            log_dir_events=len(self.children(LOG_DIR_EVENT_NOTIFICATIONS) or ()),
            migration=self.value(MIGRATION, parse_migration),
        )

    def controller(self) -> tuple[ControllerInfo | Unreadable | None, int | None, int | Unreadable | None]:
        # Read together: Kafka writes both in one transaction, and the move is reported with its epoch.
        controller_read = self.data(CONTROLLER)
        epoch_read = self.data(CONTROLLER_EPOCH)
        controller = parsed(CONTROLLER, controller_read, parse_controller)
        czxid = controller_read[1].czxid if isinstance(controller_read, tuple) else None
        return controller, czxid, parsed(CONTROLLER_EPOCH, epoch_read, parse_controller_epoch)

    def brokers(self, ids: Iterable[int], brokers: dict[int, Any], epochs: dict[int, int]) -> None:
        """Read the registrations of ``ids`` into ``brokers``/``epochs``; one already gone is left out."""
        paths = {broker_id: broker_path(broker_id) for broker_id in ids}
        reads = self.many(list(paths.values()), watch_missing=False)
        for broker_id, path in paths.items():
            read = reads[path]
            if read is None:
                continue
            brokers[broker_id] = parsed(path, read, parse_broker)
            if isinstance(read, tuple):
                epochs[broker_id] = read[1].czxid

    def followed(self, name: str) -> FollowedTopic:
        read = self.data(topic_path(name))
        assignment = parsed(topic_path(name), read, parse_topic)
        partitions = assignment.partition_ids if isinstance(assignment, TopicAssignment) else ()
        times = times_of(read[1]) if isinstance(read, tuple) else None
        return FollowedTopic(name, assignment, self.states(name, partitions), times)

    def states(self, name: str, partitions: Iterable[int]) -> dict[int, StateValue]:
        paths = {p: state_path(name, p) for p in partitions}
        reads = self.many(list(paths.values()), watch_missing=True)
        return {p: parsed(path, reads[path], parse_partition_state) for p, path in paths.items()}

    def value(self, path: str, parse: Callable[[str, bytes], T]) -> T | Unreadable | None:
        return parsed(path, self.data(path), parse)

    def data(self, path: str) -> Read:
        """``(data, stat)`` with a data watch, or ``None`` with an existence watch while it is absent."""
        return self.many([path], watch_missing=True)[path]

    def many(self, paths: list[str], watch_missing: bool) -> dict[str, Read]:
        """Read ``paths`` in parallel, each with a data watch; absent ones get an existence watch when
        ``watch_missing``. NoAuth yields an ``Unreadable`` (or raises ``NoAuthRead`` during ``start``)."""
        results: dict[str, Read] = {}
        for start in range(0, len(paths), IN_FLIGHT):
            chunk = paths[start : start + IN_FLIGHT]
            pending = {path: self._client.get_async(path, watch=self._watch) for path in chunk}
            for path, result in pending.items():
                try:
                    data, stat = result.get(timeout=self._timeout)
                    results[path] = (data or b"", stat)
                except NoNodeError:
                    results[path] = self.missing(path) if watch_missing else None
                except NoAuthError:
                    results[path] = self._denied(path)
        return results

    def missing(self, path: str) -> Read:
        # exists() sets a watch that fires on creation; if the znode appeared meanwhile, read it.
        for _ in range(3):
            if self._client.exists_async(path, watch=self._watch).get(timeout=self._timeout) is None:
                return None
            try:
                data, stat = self._client.get_async(path, watch=self._watch).get(timeout=self._timeout)
                return (data or b"", stat)
            except NoNodeError:
                continue
            except NoAuthError:
                return self._denied(path)
        return None  # flapping: the existence watch set above reports the next change

    def children(self, path: str) -> list[str] | None:
        """The children with a child watch, or ``None`` with an existence watch while ``path`` is absent.
        NoAuth reads as no children (or raises ``NoAuthRead`` during ``start``)."""
        for _ in range(3):
            try:
                children: list[str] = self._client.get_children_async(path, watch=self._watch).get(
                    timeout=self._timeout
                )
                return children
            except NoNodeError:
                if self._client.exists_async(path, watch=self._watch).get(timeout=self._timeout) is None:
                    return None
            except NoAuthError:
                if self.strict:
                    raise NoAuthRead(path) from None
                log.warning("kzc live: no permission to list %s (NoAuth)", path)
                return None
        return None

    def _denied(self, path: str) -> Unreadable:
        if self.strict:
            raise NoAuthRead(path)
        # exists() needs no permission: keep watching so a later ACL change is noticed.
        self._client.exists_async(path, watch=self._watch)
        return Unreadable(path, b"", _NO_AUTH)


def parsed(path: str, read: Read, parse: Callable[[str, bytes], T]) -> T | Unreadable | None:
    if read is None or isinstance(read, Unreadable):
        return read
    return parse(path, read[0])


def broker_ids(children: list[str] | None) -> set[int]:
    # Kafka reads each child as an int; anything else cannot be a broker and is left out.
    return {int(child) for child in children or () if child.isascii() and child.isdigit()}
