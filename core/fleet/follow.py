"""Following the fleet at the cost of its changes: each cluster is read whole (``core.fleet.read``) only when a
watch on its structural znodes has fired since its last read, not on every round (the fleet screen).

A cluster's rows change when a broker registers or leaves (``/brokers/ids``), the controller moves
(``/controller``), an ISR shrinks or grows (the controller's ``/isr_change_notification`` sequence), a topic is
created or queued for deletion (``/brokers/topics``, ``/admin/delete_topics``), a config changes
(``/config/changes``), or an admin request or a migration starts (``/admin/reassign_partitions``,
``/admin/preferred_replica_election``, ``/migration``). Each context keeps one session of its own with one-shot
watches on those znodes; a cluster with no fired watch costs ZooKeeper only its session's pings. A fired watch,
a session that drops, or watches that could not be set make the next round read the cluster whole (and set the
watches again). Not seen: a leader move that changes no ISR and no broker (the controller's automatic
rebalance), which no fleet count depends on.

A broker registers before it serves requests, so the whole read that follows its (re)registration may find it
not answering ApiVersions: its cluster's brokers are then asked again, and only they, on the console's schedule
(``core.snapshot.release.ReleaseAsks``), and the row's release is updated from their answer.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from kazoo.exceptions import KazooException, NoNodeError

from core.brokers.capabilities import Capabilities, read_capabilities
from core.config import ConnectionSettings
from core.fleet.read import KAFKA_TIMEOUT_S, FleetReader
from core.fleet.row import FleetRow, worst_first
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CONFIG_CHANGES,
    CONTROLLER,
    DELETE_TOPICS,
    ISR_CHANGE_NOTIFICATIONS,
    MIGRATION,
    PREFERRED_REPLICA_ELECTION,
    REASSIGN_PARTITIONS,
    TOPICS,
)
from core.snapshot.model import ClusterSnapshot
from core.snapshot.release import Asked, ReleaseAsks, cluster_release
from core.zookeeper.kafka_root import require_kafka_cluster
from core.zookeeper.session import ConnectionState, ZkSession

WATCHED_CHILDREN = (BROKER_IDS, TOPICS, ISR_CHANGE_NOTIFICATIONS, DELETE_TOPICS, CONFIG_CHANGES)
WATCHED_NODES = (CONTROLLER, REASSIGN_PARTITIONS, PREFERRED_REPLICA_ELECTION, MIGRATION)
ARM_WAIT_S = 2.0  # how long a round waits for the watches before it reads (a hung cluster's arm goes on)


class ChangeWatch:
    """One context's watches: ``changed`` until they are set and then while none has fired since."""

    def __init__(self, settings: ConnectionSettings, connect_timeout: float) -> None:
        self.settings = settings
        self.connect_timeout = connect_timeout
        self._session: ZkSession | None = None
        self._armed = threading.Event()  # watches set and none fired since
        self._arming = threading.Lock()

    @property
    def changed(self) -> bool:
        """Whether the cluster may have changed since the watches were set (or they are not set)."""
        return not self._armed.is_set()

    def arm(self, reading: threading.Event) -> None:
        """Set the watches (connecting first when there is no session); blocks up to the connect timeout.

        Watches set once ``reading`` is set (the whole read of this round began before them) may have missed a
        change in between: they count as fired, so the next round reads once more. Never raises: watches
        that cannot be set leave the cluster ``changed``.
        """
        if not self._arming.acquire(blocking=False):
            return  # an earlier arm is still connecting (a hung ZooKeeper): one at a time
        try:
            session = self._connected()
            for path in WATCHED_CHILDREN:
                try:
                    session.client.get_children(path, watch=self._fire)
                except NoNodeError:
                    session.client.exists(path, watch=self._fire)  # fires when it is created
            for path in WATCHED_NODES:
                session.client.exists(path, watch=self._fire)
            if not reading.is_set():
                self._armed.set()
        except Exception:  # a cluster that cannot be watched is read whole every round, as before
            self.close()
        finally:
            self._arming.release()

    def _connected(self) -> ZkSession:
        if self._session is not None and self._session.state is ConnectionState.CONNECTED:
            return self._session
        self.close()
        # A session that outlives one read (kafka_root.open_kafka_session closes at the end of a block).
        session = ZkSession(self.settings)
        session.start(self.connect_timeout)
        self._session = session  # closed by close() if the rule below refuses it
        require_kafka_cluster(session)
        session.add_state_listener(self._on_state)
        return session

    def _fire(self, _event: Any) -> None:
        self._armed.clear()

    def _on_state(self, state: ConnectionState) -> None:
        if state is not ConnectionState.CONNECTED:
            self._armed.clear()  # watches may be lost with the connection; the row must say so

    def forget(self) -> None:
        """Count as changed until the watches are set again."""
        self._armed.clear()

    def close(self) -> None:
        """Drop the session and its watches."""
        self._armed.clear()
        session, self._session = self._session, None
        if session is not None:
            with contextlib.suppress(KazooException):
                session.stop()


@dataclass(frozen=True)
class _Unanswered:
    """A cluster whose read met a broker that did not answer ApiVersions: its row and snapshot as read, the
    registrations asked for, and when to ask them again (monotonic)."""

    row: FleetRow
    snapshot: ClusterSnapshot
    asked: Asked
    at: float


class FollowingReader:
    """``FleetReader`` reading only the clusters whose watches fired (or are not set), watching all of them, and
    asking again the brokers that did not answer ApiVersions yet.

    ``whole_reads`` counts the whole reads per context, ``release_asks`` the brokers asked again (the tests and
    the benchmark read them).
    """

    def __init__(self, contexts: Mapping[str, ConnectionSettings | str], deadline_s: float) -> None:
        self.reader = FleetReader(contexts, deadline_s, self._seen)
        self.watches = {
            name: ChangeWatch(settings, deadline_s)
            for name, settings in contexts.items()
            if isinstance(settings, ConnectionSettings) and settings.zookeeper is not None
        }
        self.whole_reads: Counter[str] = Counter()
        self.release_asks: Counter[str] = Counter()
        self._asks: dict[str, ReleaseAsks] = {}
        self._unanswered: dict[str, _Unanswered] = {}
        self._lock = threading.Lock()  # the two above (the reads' threads note what they saw)

    def read(self, on_row: Callable[[FleetRow], None] | None = None) -> list[FleetRow]:
        """The rows of the clusters that may have changed, and of those whose brokers were asked for ApiVersions
        again, each as it arrives; the others are not read."""
        started = time.monotonic()
        due = [name for name in self.reader.contexts if name not in self.watches or self.watches[name].changed]
        with self._lock:
            for name in due:  # read whole: its read asks the brokers too
                self._unanswered.pop(name, None)
            again = {name: u for name, u in self._unanswered.items() if u.at <= started}
        answered: list[FleetRow] = []
        asks = [
            threading.Thread(
                target=self._ask_again, args=(name, u, answered), name=f"kzc-fleet-release-{name}", daemon=True
            )
            for name, u in again.items()
        ]
        for ask in asks:
            ask.start()
        rows = self._read_whole(due, on_row) if due else []
        for ask in asks:  # each ask ends within KAFKA_TIMEOUT_S, inside the deadline
            ask.join(max(0.0, started + self.reader.deadline_s - time.monotonic()))
        with self._lock:
            answered = list(answered)
        for row in answered:
            if on_row is not None:
                on_row(row)
        return worst_first(rows + answered)

    def _read_whole(self, due: list[str], on_row: Callable[[FleetRow], None] | None) -> list[FleetRow]:
        """``due`` read whole, their watches set again."""
        self.whole_reads.update(due)
        # The watches first, then the reads: a change after its watch is set is seen by the next round.
        reading = threading.Event()
        arms = [
            threading.Thread(
                target=self.watches[name].arm, args=(reading,), name=f"kzc-fleet-watch-{name}", daemon=True
            )
            for name in due
            if name in self.watches
        ]
        for arm in arms:
            arm.start()
        until = time.monotonic() + ARM_WAIT_S
        for arm in arms:  # a hung ZooKeeper's arm is left to finish (it then counts as fired)
            arm.join(max(0.0, until - time.monotonic()))
        reading.set()
        return self.reader.read(on_row, only=due)

    def _seen(self, name: str, row: FleetRow, snapshot: ClusterSnapshot, capabilities: Capabilities) -> None:
        """A whole read of ``name`` asked its brokers (on the read's thread)."""
        registrations = {b: entry.registration for b, entry in snapshot.brokers.items()}
        with self._lock:
            asks = self._asks.setdefault(name, ReleaseAsks())
            asked = asks.due(registrations, again=True)
            assert asked is not None  # asked again: never None
            self._note(name, asks, _Unanswered(row, snapshot, asked, 0.0), capabilities)

    def _note(self, name: str, asks: ReleaseAsks, read: _Unanswered, capabilities: Capabilities) -> None:
        """Whether and when to ask ``name``'s brokers again (under the lock)."""
        delay = asks.answered(read.asked, capabilities)
        if delay is None:
            self._unanswered.pop(name, None)
        else:
            self._unanswered[name] = replace(read, at=time.monotonic() + delay)

    def _ask_again(self, name: str, unanswered: _Unanswered, answered: list[FleetRow]) -> None:
        """Ask ``name``'s brokers for ApiVersions again; its row with the release they give (on its own thread)."""
        settings = self.reader.contexts[name]
        assert isinstance(settings, ConnectionSettings)  # only a read cluster has brokers to ask
        with self._lock:
            self.release_asks[name] += 1
        capabilities = read_capabilities(dict(unanswered.asked), KAFKA_TIMEOUT_S, settings.kafka_security)
        row = replace(unanswered.row, release=cluster_release(unanswered.snapshot, capabilities))
        with self._lock:
            if self._unanswered.get(name) is not unanswered:
                return  # read whole since: that read's row is newer
            self._note(name, self._asks[name], replace(unanswered, row=row), capabilities)
            answered.append(row)

    def forget(self) -> None:
        """Read every cluster whole in the next round (``r`` on the fleet screen)."""
        for watch in self.watches.values():
            watch.forget()

    def close(self) -> None:
        """Drop every context's session."""
        with self._lock:
            self._unanswered.clear()
        for watch in self.watches.values():
            watch.close()
