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
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from kazoo.exceptions import KazooException, NoNodeError

from core.config import ConnectionSettings
from core.fleet.read import FleetReader
from core.fleet.row import FleetRow
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


class FollowingReader:
    """``FleetReader`` reading only the clusters whose watches fired (or are not set), watching all of them.

    ``whole_reads`` counts the whole reads per context (the tests and the benchmark read it).
    """

    def __init__(self, contexts: Mapping[str, ConnectionSettings | str], deadline_s: float) -> None:
        self.reader = FleetReader(contexts, deadline_s)
        self.watches = {
            name: ChangeWatch(settings, deadline_s)
            for name, settings in contexts.items()
            if isinstance(settings, ConnectionSettings) and settings.zookeeper is not None
        }
        self.whole_reads: Counter[str] = Counter()

    def read(self, on_row: Callable[[FleetRow], None] | None = None) -> list[FleetRow]:
        """The rows of the clusters that may have changed, each as it arrives; the others are not read."""
        due = [name for name in self.reader.contexts if name not in self.watches or self.watches[name].changed]
        if not due:
            return []
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

    def forget(self) -> None:
        """Read every cluster whole in the next round (``r`` on the fleet screen)."""
        for watch in self.watches.values():
            watch.forget()

    def close(self) -> None:
        """Drop every context's session."""
        for watch in self.watches.values():
            watch.close()
