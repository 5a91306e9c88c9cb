"""The live cluster state topic operations need, read from ZooKeeper and parsed with ``core.kafka.znodes``.

``TopicStateReader`` reads just what a create, expand or delete must know (brokers with racks, topic
names, deletion markers, ``/controller``, ``/migration``, the reassignment znode, one topic's assignment
with its znode version, partition states) and returns frozen values. A malformed znode is an
``Unreadable`` in the result, never an exception; ZooKeeper failures become ``ConnectError``.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from kazoo.exceptions import (
    ConnectionClosedError,
    ConnectionLoss,
    KazooException,
    NoAuthError,
    NoNodeError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError

from core.errors import ConnectError, GuardError, KzcError, SessionLostError
from core.kafka.assignment import BrokerMeta
from core.kafka.znodes import (
    BrokerRegistration,
    ControllerInfo,
    FeatureZNode,
    MigrationState,
    PartitionState,
    ReassignmentRequest,
    TopicAssignment,
    Unreadable,
    parse_broker,
    parse_controller,
    parse_feature,
    parse_migration,
    parse_partition_state,
    parse_reassignment,
    parse_topic,
)
from core.kafka.znodes.paths import (
    BROKER_IDS,
    CONTROLLER,
    DELETE_TOPICS,
    FEATURE,
    MIGRATION,
    REASSIGN_PARTITIONS,
    TOPICS,
    broker_path,
    partitions_path,
    state_path,
    topic_config_path,
    topic_path,
)
from core.zookeeper.session import ZkSession

# Pipelined reads keep this many requests outstanding: enough to hide the round trip, few enough that
# ZooKeeper's per-connection throttling and kazoo's queue stay small on clusters with 100k+ partitions.
MAX_IN_FLIGHT = 1000


@dataclass(frozen=True)
class LiveTopic:
    """One ``/brokers/topics/<t>`` as read: parsed value, exact bytes and the znode version.

    The bytes and version are what a version-checked update starts from.
    """

    name: str
    assignment: TopicAssignment | Unreadable
    raw: bytes
    zk_version: int
    # Partitions beyond the assignment whose state znode exists (left by hand or by a restored delete):
    # the controller does not initialise a new partition whose state already exists (read by ``topic``).
    stray_states: frozenset[int] = frozenset()


@dataclass(frozen=True)
class ClusterFacts:
    """What the guards and plans look at, read at one moment.

    ``brokers`` holds every child of ``/brokers/ids`` (registered = alive, as the controller sees it).
    ``controller_zk_version`` is the version of ``/controller``, for writes fenced on it. ``feature`` is
    ``/feature`` and ``topic_ids`` whether a sampled existing topic carries a ``topic_id`` (None: no topic
    or unreadable): together with the registration versions they bound the Kafka version the cluster runs
    (see :func:`zk_create_format`).
    """

    brokers: Mapping[int, BrokerRegistration | Unreadable]
    topic_names: frozenset[str]
    topic_order: tuple[str, ...]  # the same names in ZooKeeper's child order (Kafka's messages use it)
    marked_for_deletion: frozenset[str]
    controller: ControllerInfo | Unreadable | None
    controller_zk_version: int | None
    migration: MigrationState | Unreadable | None
    reassignment: ReassignmentRequest | Unreadable | None
    feature: FeatureZNode | Unreadable | None = None
    topic_ids: bool | None = None

    @property
    def broker_ids(self) -> frozenset[int]:
        """Registered broker ids."""
        return frozenset(self.brokers)

    def broker_metas(self) -> list[BrokerMeta]:
        """The registered brokers with their racks, sorted by id.

        Raises:
            GuardError: a registration is unreadable, so its rack (and thus Kafka's assignment) is unknown.
        """
        metas = []
        for broker_id in sorted(self.brokers):
            registration = self.brokers[broker_id]
            if isinstance(registration, Unreadable):
                raise GuardError(
                    f"the registration of broker {broker_id} ({registration.path}) is unreadable: "
                    f"{registration.reason}; kzc cannot know its rack, so it cannot compute Kafka's assignment "
                    "(give an explicit --replica-assignment)"
                )
            metas.append(BrokerMeta(broker_id, registration.rack))
        return metas

    def controller_id(self) -> int | None:
        """The controller's id, or None (no ``/controller`` or unreadable)."""
        return self.controller.broker_id if isinstance(self.controller, ControllerInfo) else None

    def reassigning_in_znode(self, topic: str) -> tuple[int, ...]:
        """Partitions of ``topic`` listed in ``/admin/reassign_partitions`` (not yet taken by the controller)."""
        if not isinstance(self.reassignment, ReassignmentRequest):
            return ()
        return tuple(sorted({p for t, p, _ in self.reassignment.partitions if t == topic}))


@dataclass(frozen=True)
class ZkCreateFormat:
    """How a ZooKeeper-only create writes on this cluster (zk-layout §5.1, §2.4, §2.9).

    ``topic_version`` is the ``/brokers/topics/<t>`` version Kafka's own create would write: 1 up to 2.3,
    2 in 2.4 to 2.7, 3 from 2.8 (never with a ``topic_id`` from a ZooKeeper tool: the controller adds it).
    ``needs_controller`` is True unless the cluster is known to predate Kafka 3.7.1, whose
    ``setOrCreateEntityConfigs`` refuses the config write when there is no controller. ``reason`` says
    what the choice rests on.
    """

    topic_version: int
    needs_controller: bool
    reason: str


def zk_create_format(facts: ClusterFacts) -> ZkCreateFormat:
    """What the znodes prove about the Kafka version, and so what a ZooKeeper-only create writes.

    Evidence, strongest first: ``/controller`` v2 (written by Kafka 3.4+), ``/feature`` v2 (IBP >= 3.3, so
    every broker runs 3.3+), an existing topic with a ``topic_id`` (only IBP >= 2.8 adds one) give v3;
    every broker registered at v5 (2.7+ with IBP >= 2.7-IV0) gives v2, what 2.7 writes and 2.8+ reads;
    anything less gives v1, which every version reads (2.4 to 2.6 write v2, indistinguishable from older
    releases in ZooKeeper). Kafka 3.7.1+ refuses to create without a controller; kzc can only rule that
    out when no 2.7+ Kafka ever ran (no ``/feature``, which every 2.7+ controller writes, and no v5
    registration), so it requires a controller otherwise.
    """
    controller = facts.controller if isinstance(facts.controller, ControllerInfo) else None
    feature = facts.feature if isinstance(facts.feature, FeatureZNode) else None
    versions = [r.version for r in facts.brokers.values() if isinstance(r, BrokerRegistration)]
    pre_2_7 = facts.feature is None and all(v < 5 for v in versions)
    needs_controller = not pre_2_7
    if controller is not None and controller.version >= 2:
        return ZkCreateFormat(3, needs_controller, f"{CONTROLLER} is v2 (Kafka 3.4+), which writes v3")
    if feature is not None and feature.version >= 2:
        return ZkCreateFormat(3, needs_controller, f"{FEATURE} is v2 (IBP 3.3+), so Kafka 2.8+, which writes v3")
    if facts.topic_ids:
        return ZkCreateFormat(3, needs_controller, "existing topics have topic ids (IBP 2.8+), Kafka 2.8+ writes v3")
    if versions and min(versions) >= 5:
        return ZkCreateFormat(2, needs_controller, "every broker registration is v5 (Kafka 2.7+), 2.7 writes v2")
    return ZkCreateFormat(
        1,
        needs_controller,
        "nothing proves Kafka 2.4+ (not every broker registration is v5, no v2 /controller or /feature): "
        "v1, which every Kafka version reads",
    )


class TopicStateReader:
    """Reads topic-related state through a started ``ZkSession`` (paths relative to the Kafka chroot)."""

    def __init__(self, session: ZkSession) -> None:
        self.session = session
        self.client = session.client
        # Topic znodes parsed before, by path: (bytes, value). --wait polls re-read every topic; parsing a
        # big assignment costs far more than reading it, so unchanged bytes reuse the earlier parse.
        self._parsed: dict[str, tuple[bytes, TopicAssignment | Unreadable]] = {}

    def _parse_topic(self, path: str, data: bytes) -> TopicAssignment | Unreadable:
        cached = self._parsed.get(path)
        if cached is not None and cached[0] == data:
            return cached[1]
        value = parse_topic(path, data)
        self._parsed[path] = (data, value)
        return value

    def facts(self) -> ClusterFacts:
        """Brokers, topic names, deletion markers, controller, migration and reassignment znodes.

        Raises:
            ConnectError: ZooKeeper failed or the session was lost.
        """
        broker_children = self._children(BROKER_IDS)
        brokers: dict[int, BrokerRegistration | Unreadable] = {}
        for name, (data, _) in self._get_many(broker_path(c) for c in broker_children).items():
            if data is None:
                continue  # the broker left between listing and reading
            value = parse_broker(name, data)
            broker_id = value.broker_id if isinstance(value, BrokerRegistration) else _int_or_none(name)
            if broker_id is not None:
                brokers[broker_id] = value
        controller_data, controller_version = self._get(CONTROLLER)
        migration_data, _ = self._get(MIGRATION)
        reassign_data, _ = self._get(REASSIGN_PARTITIONS)
        feature_data, _ = self._get(FEATURE)
        topics = tuple(self._children(TOPICS))
        sample = self.topic(topics[0]) if topics else None
        topic_ids = None
        if sample is not None and isinstance(sample.assignment, TopicAssignment):
            topic_ids = sample.assignment.topic_id is not None
        return ClusterFacts(
            brokers=brokers,
            topic_names=frozenset(topics),
            topic_order=topics,
            marked_for_deletion=frozenset(self._children(DELETE_TOPICS)),
            controller=None if controller_data is None else parse_controller(CONTROLLER, controller_data),
            controller_zk_version=controller_version,
            migration=None if migration_data is None else parse_migration(MIGRATION, migration_data),
            reassignment=None if reassign_data is None else parse_reassignment(REASSIGN_PARTITIONS, reassign_data),
            feature=None if feature_data is None else parse_feature(FEATURE, feature_data),
            topic_ids=topic_ids,
        )

    def topic(self, name: str) -> LiveTopic | None:
        """``/brokers/topics/<name>`` with its bytes and znode version, or None if it does not exist."""
        data, version = self._get(topic_path(name))
        if data is None or version is None:
            return None
        assignment = self._parse_topic(topic_path(name), data)
        return LiveTopic(name, assignment, data, version, self._stray_states(name, assignment))

    def _stray_states(self, name: str, assignment: TopicAssignment | Unreadable) -> frozenset[int]:
        """Partitions not in ``assignment`` whose state znode exists: one children read, and one existence
        read per extra partition directory (normally none)."""
        assigned = set(assignment.partition_ids) if isinstance(assignment, TopicAssignment) else set()
        extra = [int(c) for c in self._children(partitions_path(name)) if c.isdigit()]
        return frozenset(p for p in extra if p not in assigned and self.exists(state_path(name, p)))

    def topics(self, names: Iterable[str]) -> dict[str, LiveTopic]:
        """Several topics at once (pipelined); missing ones are left out."""
        wanted = list(names)
        found = self._get_many(topic_path(n) for n in wanted)
        result = {}
        for name in wanted:
            data, version = found.get(topic_path(name), (None, None))
            if data is not None and version is not None:
                result[name] = LiveTopic(name, self._parse_topic(topic_path(name), data), data, version)
        return result

    def topic_config(self, name: str) -> tuple[bytes, int] | None:
        """``/config/topics/<name>`` bytes and version, or None."""
        data, version = self._get(topic_config_path(name))
        return None if data is None or version is None else (data, version)

    def partition_states(self, topic: str, partitions: Iterable[int]) -> dict[int, PartitionState | Unreadable | None]:
        """The ``state`` znode of each partition (pipelined); None where it does not exist yet."""
        wanted = list(partitions)
        found = self._get_many(state_path(topic, p) for p in wanted)
        result: dict[int, PartitionState | Unreadable | None] = {}
        for partition in wanted:
            path = state_path(topic, partition)
            data, _ = found.get(path, (None, None))
            result[partition] = None if data is None else parse_partition_state(path, data)
        return result

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        try:
            return self.session.retry(self.client.exists, path) is not None
        except (KazooException, KazooTimeoutError, TimeoutError) as exc:
            raise self._error(exc, f"read {path}") from exc

    def children(self, path: str) -> list[str]:
        """Children of ``path``; empty when it does not exist."""
        return self._children(path)

    # ---- ZooKeeper access, errors mapped to KzcError -----------------------------------------------

    def _children(self, path: str) -> list[str]:
        try:
            children: list[str] = self.session.retry(self.client.get_children, path)
            return children
        except NoNodeError:
            return []
        except (KazooException, KazooTimeoutError, TimeoutError) as exc:
            raise self._error(exc, f"list {path}") from exc

    def _get(self, path: str) -> tuple[bytes | None, int | None]:
        try:
            data, stat = self.session.retry(self.client.get, path)
        except NoNodeError:
            return None, None
        except (KazooException, KazooTimeoutError, TimeoutError) as exc:
            raise self._error(exc, f"read {path}") from exc
        return data or b"", stat.version

    def _get_many(self, paths: Iterable[str]) -> dict[str, tuple[bytes | None, int | None]]:
        """Pipelined reads, at most ``MAX_IN_FLIGHT`` outstanding, answers taken in request order."""
        result: dict[str, tuple[bytes | None, int | None]] = {}
        timeout = self.session.settings.session_timeout
        pending: deque[tuple[str, Any]] = deque()

        def settle() -> None:
            path, answer = pending.popleft()
            try:
                data, stat = answer.get(timeout=timeout)
            except NoNodeError:
                result[path] = (None, None)
                return
            result[path] = (data or b"", stat.version)

        try:
            for path in paths:
                pending.append((path, self.client.get_async(path)))
                if len(pending) >= MAX_IN_FLIGHT:
                    settle()
            while pending:
                settle()
        except (KazooException, KazooTimeoutError, TimeoutError) as exc:
            raise self._error(exc, "read znodes") from exc
        return result

    def _error(self, exc: BaseException, what: str) -> KzcError:
        if isinstance(exc, NoAuthError):
            return KzcError(f"ZooKeeper refused to {what} (NoAuth): check --zk-auth / SASL settings")
        if isinstance(exc, SessionExpiredError | ConnectionClosedError | ConnectionLoss):
            return SessionLostError(
                f"lost the ZooKeeper session to {self.session.target} while trying to {what} ({type(exc).__name__})"
            )
        if isinstance(exc, KazooTimeoutError | TimeoutError):
            return ConnectError(f"ZooKeeper {self.session.target} did not answer in time ({what})")
        return ConnectError(f"ZooKeeper {self.session.target} failed to {what}: {exc!r}")


def _int_or_none(path: str) -> int | None:
    name = path.rsplit("/", 1)[-1]
    return int(name) if name.isdigit() else None


def as_json_object(raw: bytes) -> dict[str, Any] | None:
    """``raw`` decoded as a JSON object (for round-tripping a znode), or None if it is not one."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None
