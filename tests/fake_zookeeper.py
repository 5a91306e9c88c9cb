"""An in-memory ZooKeeper behind the part of the ``ZkSession`` interface the live model uses, for unit tests.

``FakeSession`` has what ``core.live`` and ``core.snapshot.reader`` call: ``client`` (kazoo's ``get_async``,
``get_children_async``, ``exists_async``, ``exists``, ``last_zxid``, ``connected``), ``settings``, ``target``,
``session_id``, ``state``, the state listeners and ``read_error``. ``FakeZooKeeper`` keeps znodes with their
stats and ZooKeeper's one-shot watches (data and exists watches fire on a change, creation or deletion of the
znode, child watches on a change of its children), and the test writes through it as Kafka would.

Watch callbacks are called on the writing thread (the watcher's callback only queues, as on kazoo's thread).
``expire()`` ends the session as ZooKeeper does: every watch is gone, then the session comes back with a new
id (the listeners see LOST, RECONNECTING, CONNECTED). The real thing is tested in tests/integration.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from kazoo.exceptions import NoNodeError, NotEmptyError
from kazoo.protocol.states import EventType, KeeperState, WatchedEvent, ZnodeStat

from core.errors import ConnectError
from core.zookeeper.session import ConnectionState

Watch = Callable[[WatchedEvent], None]


class _Answer:
    """What ``*_async`` returns: ``ready()`` (always), ``get(timeout)`` gives the value or raises the error."""

    def __init__(self, value: Any = None, error: BaseException | None = None) -> None:
        self._value, self._error = value, error

    def ready(self) -> bool:
        return True  # answered at once

    def get(self, timeout: float | None = None) -> Any:
        if self._error is not None:
            raise self._error
        return self._value


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


class FakeZooKeeper:
    """The znode tree and its watches (kazoo client calls, plus the writes a test makes)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._nodes: dict[str, tuple[bytes, ZnodeStat]] = {}
        self._children: dict[str, set[str]] = {"/": set()}
        self._data_watches: dict[str, set[Watch]] = {}
        self._child_watches: dict[str, set[Watch]] = {}
        self.last_zxid = 1
        self.connected = True
        self.client_id: tuple[int, bytes] | None = (1, b"")
        self.reads = 0  # get/get_children requests answered (what the model asked ZooKeeper)
        self._before_read: dict[str, Callable[[], None]] = {}
        self._nodes["/"] = (b"", self._stat(0, 0, 0))

    # ---- the test's writes --------------------------------------------------------------------------

    def create(self, path: str, data: bytes = b"") -> None:
        """Create ``path`` (and any missing parent, empty)."""
        fire: list[tuple[set[Watch], EventType, str]] = []
        with self._lock:
            parent = _parent(path)
            if parent not in self._nodes:
                self.create(parent)
            self.last_zxid += 1
            self._nodes[path] = (data, self._stat(self.last_zxid, 0, len(data)))
            self._children[path] = set()
            self._children[parent].add(path.rsplit("/", 1)[1])
            fire.append((self._data_watches.pop(path, set()), EventType.CREATED, path))
            fire.append((self._child_watches.pop(parent, set()), EventType.CHILD, parent))
        self._fire(fire)

    def set(self, path: str, data: bytes) -> None:
        """Write ``data`` into the existing ``path``."""
        with self._lock:
            stat = self._nodes[path][1]
            self.last_zxid += 1
            self._nodes[path] = (data, self._stat(stat.czxid, stat.version + 1, len(data)))
            fire = [(self._data_watches.pop(path, set()), EventType.CHANGED, path)]
        self._fire(fire)

    def delete(self, path: str, recursive: bool = False) -> None:
        """Delete ``path`` (children first when ``recursive``, as Kafka's controller deletes a topic)."""
        if recursive:
            for child in sorted(self._children.get(path, ())):
                self.delete(f"{path}/{child}", recursive=True)
        with self._lock:
            if self._children.get(path):
                raise NotEmptyError(path)
            self.last_zxid += 1
            del self._nodes[path]
            del self._children[path]
            parent = _parent(path)
            self._children[parent].discard(path.rsplit("/", 1)[1])
            fire = [
                (self._data_watches.pop(path, set()), EventType.DELETED, path),
                (self._child_watches.pop(path, set()), EventType.DELETED, path),
                (self._child_watches.pop(parent, set()), EventType.CHILD, parent),
            ]
        self._fire(fire)

    def drop_watches(self) -> None:
        """Forget every watch (what a session expiry does on the server)."""
        with self._lock:
            self._data_watches.clear()
            self._child_watches.clear()

    def before_next_read(self, path: str, write: Callable[[], None]) -> None:
        """Make ``write`` (the test's write, as Kafka's) land just before the next read (``get`` or
        ``get_children``) of ``path`` is answered: a change in the middle of a full read."""
        with self._lock:
            self._before_read[path] = write

    def _write_before_read(self, path: str) -> None:
        with self._lock:
            write = self._before_read.pop(path, None)
        if write is not None:
            write()

    def watched(self, path: str) -> int:
        """How many watch callbacks are set on ``path`` (data and child)."""
        with self._lock:
            return len(self._data_watches.get(path, ())) + len(self._child_watches.get(path, ()))

    # ---- kazoo's client calls -----------------------------------------------------------------------

    def get_async(self, path: str, watch: Watch | None = None) -> _Answer:
        self._write_before_read(path)
        with self._lock:
            self.reads += 1
            node = self._nodes.get(path)
            if node is None:
                return _Answer(error=NoNodeError())
            if watch is not None:
                self._data_watches.setdefault(path, set()).add(watch)
            return _Answer(node)

    def get_children_async(self, path: str, watch: Watch | None = None) -> _Answer:
        self._write_before_read(path)
        with self._lock:
            self.reads += 1
            if path not in self._nodes:
                return _Answer(error=NoNodeError())
            if watch is not None:
                self._child_watches.setdefault(path, set()).add(watch)
            return _Answer(sorted(self._children[path]))

    def exists_async(self, path: str, watch: Watch | None = None) -> _Answer:
        with self._lock:
            if watch is not None:
                self._data_watches.setdefault(path, set()).add(watch)
            node = self._nodes.get(path)
            return _Answer(node[1] if node is not None else None)

    def exists(self, path: str, watch: Watch | None = None) -> ZnodeStat | None:
        value: ZnodeStat | None = self.exists_async(path, watch).get()
        return value

    def get(self, path: str, watch: Watch | None = None) -> tuple[bytes, ZnodeStat]:
        value: tuple[bytes, ZnodeStat] = self.get_async(path, watch).get()
        return value

    # ---- helpers ------------------------------------------------------------------------------------

    def _stat(self, czxid: int, version: int, length: int) -> ZnodeStat:
        mtime = 1_700_000_000_000 + self.last_zxid
        return ZnodeStat(czxid, self.last_zxid, mtime, mtime, version, 0, 0, 0, length, 0, self.last_zxid)

    @staticmethod
    def _fire(fire: list[tuple[set[Watch], EventType, str]]) -> None:
        for watches, kind, path in fire:
            for watch in watches:
                watch(WatchedEvent(kind, KeeperState.CONNECTED, path))


class FakeSession:
    """A started ``ZkSession`` over a ``FakeZooKeeper`` (the subset the live model uses)."""

    def __init__(self, zookeeper: FakeZooKeeper | None = None) -> None:
        self.client = zookeeper or FakeZooKeeper()
        self.settings = SimpleNamespace(session_timeout=5.0)
        self.target = "fake-zookeeper:2181/kafka"
        self.state = ConnectionState.CONNECTED
        self._listeners: list[Callable[[ConnectionState], None]] = []

    @property
    def session_id(self) -> int | None:
        client_id = self.client.client_id
        return client_id[0] if client_id else None

    def add_state_listener(self, listener: Callable[[ConnectionState], None]) -> None:
        self._listeners.append(listener)

    def remove_state_listener(self, listener: Callable[[ConnectionState], None]) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def read_error(self, exc: BaseException, what: str) -> ConnectError:
        return ConnectError(f"fake ZooKeeper failed to {what}: {type(exc).__name__}")

    def expire(self, meanwhile: Callable[[], None] | None = None) -> None:
        """End the session (every watch gone), run ``meanwhile`` (changes nobody watches), then reconnect with
        a new session, telling the listeners each state as kazoo would."""
        self._tell(ConnectionState.SUSPENDED)
        self.client.connected = False
        self.client.drop_watches()
        self._tell(ConnectionState.LOST)
        if meanwhile is not None:
            meanwhile()
        old = self.client.client_id
        self.client.client_id = ((old[0] if old else 0) + 1, b"")
        self.client.connected = True
        self._tell(ConnectionState.RECONNECTING)
        self._tell(ConnectionState.CONNECTED)

    def _tell(self, state: ConnectionState) -> None:
        self.state = state
        for listener in list(self._listeners):
            listener(state)
