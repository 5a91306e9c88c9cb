"""The contract between the console and a cluster: small capability protocols and the values they exchange.

The TUI depends only on these protocols (as k9s' ``internal/dao/types.go`` capability interfaces or
harlequin's ``adapter.py``), so its tests can hand it a recorded snapshot (``core.console.recorded``)
and the product hands it the real cluster (``core.console.zk``). Every method that talks to ZooKeeper,
Kafka or Spark blocks: callers run it in a worker thread. Listener callbacks are called on a backend
thread and must only hand the news on (post a message) and return.

Errors are ``core.errors`` types with a user-facing message: ``ConnectError``/``SessionLostError`` for
the network, ``KafkaRuleError`` for what Kafka itself rejects, ``GuardError``/``ReadOnlyError`` for what
kzc refuses, ``ConcurrentChangeError`` when a version-checked write lost a race.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from core.kafka.znodes import DecodedData, Row
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.zookeeper.session import ConnectionState

if TYPE_CHECKING:
    from core.kafka.assignment_metrics import AssignmentMetrics

Unsubscribe = Callable[[], None]
"""Stops a subscription; calling it twice is harmless."""

StateListener = Callable[[ConnectionState], None]


# ---- live events -------------------------------------------------------------------------------------


@runtime_checkable
class ClusterEvent(Protocol):
    """A change seen in ZooKeeper. ``describe()`` is one log line without the time, e.g.
    ``broker 2 left (127.0.0.1:9094)`` or ``controller moved 1 -> 3 (epoch 8)``."""

    @property
    def at_ms(self) -> int:
        """When kzc saw the change (epoch milliseconds)."""
        ...

    def describe(self) -> str:
        """The log line for this event, without the time."""
        ...


class EventKind(enum.Enum):
    """What an event is about; the TUI uses it to count controller moves and to style log lines."""

    BROKER_JOINED = "broker-joined"
    BROKER_LEFT = "broker-left"
    BROKER_CHANGED = "broker-changed"
    CONTROLLER_MOVED = "controller-moved"
    CONTROLLER_GONE = "controller-gone"
    TOPIC_CREATED = "topic-created"
    TOPIC_DELETED = "topic-deleted"
    TOPIC_CHANGED = "topic-changed"
    PARTITION_CHANGED = "partition-changed"
    DELETION_QUEUED = "deletion-queued"
    DELETION_MARKER_REMOVED = "deletion-marker-removed"
    ADMIN_REQUEST = "admin-request"
    NOTIFICATION = "notification"
    CONFIG_CHANGED = "config-changed"
    CONNECTION = "connection"
    RESYNC = "resync"


@dataclass(frozen=True, slots=True)
class BackendEvent:
    """A ``ClusterEvent`` with the fields the console links to (topic, znode path)."""

    at_ms: int
    kind: EventKind
    text: str
    topic: str | None = None
    path: str | None = None
    severity: str = "info"  # "info", "warning" or "error": how the event log styles the line

    def describe(self) -> str:
        """The log line for this event, without the time."""
        return self.text


# ---- znode browsing ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChildPage:
    """One page of a znode's children, sorted by name.

    ``counts[i]`` is the number of children of ``names[i]`` (``None`` when it could not be read).
    """

    path: str
    names: tuple[str, ...]
    counts: tuple[int | None, ...]
    offset: int
    total: int

    @property
    def has_more(self) -> bool:
        """Whether children after this page exist."""
        return self.offset + len(self.names) < self.total


@dataclass(frozen=True, slots=True)
class ZnodeStat:
    """ZooKeeper's ``Stat`` of a znode (times in epoch milliseconds)."""

    czxid: int
    mzxid: int
    pzxid: int
    ctime_ms: int
    mtime_ms: int
    version: int
    cversion: int
    aversion: int
    ephemeral_owner: int
    data_length: int
    num_children: int


@dataclass(frozen=True, slots=True)
class ZnodeAcl:
    """One ACL entry: ``perms`` as ZooKeeper's letters (``cdrwa``), scheme and id."""

    perms: str
    scheme: str
    id: str


@dataclass(frozen=True, slots=True)
class ZnodeView:
    """Everything the browser shows about one znode (path relative to the Kafka chroot).

    ``kind`` names the Kafka format of the path (``None`` for non-Kafka paths); ``explained`` has one
    (field, value, meaning) row per field of a Kafka value, or why the data is unreadable.
    """

    path: str
    exists: bool
    stat: ZnodeStat | None = None
    data: bytes = b""
    decoded: DecodedData | None = None
    kind: str | None = None
    explained: tuple[Row, ...] = ()
    acl: tuple[ZnodeAcl, ...] = ()
    acl_error: str | None = None


# ---- topic operations --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BrokerSlot:
    """A broker as the assignment preview shows it: id, rack and whether it is registered."""

    id: int
    rack: str | None
    alive: bool = True


@dataclass(frozen=True, slots=True)
class AssignmentPreview:
    """Exactly what would be written: ``assignment`` (new partitions), with ``existing`` partitions
    (shown dimmed when expanding) and the brokers, by id, that the grid has columns for. Metrics are
    ``core.kafka.assignment_metrics``'s (after the change; ``metrics_before`` when expanding)."""

    brokers: tuple[BrokerSlot, ...]
    assignment: tuple[tuple[int, tuple[int, ...]], ...]
    existing: tuple[tuple[int, tuple[int, ...]], ...] = ()
    metrics: AssignmentMetrics | None = None
    metrics_before: AssignmentMetrics | None = None
    seed: int | None = None
    manual: bool = False

    def as_dict(self) -> dict[int, list[int]]:
        """The new partitions as ``{partition: replicas}``."""
        return {p: list(r) for p, r in self.assignment}


@dataclass(frozen=True, slots=True)
class PlannedWrite:
    """One write a plan would make, as a dry run prints it: a znode write (``create``, ``set`` at
    ``expected_version``) or a request to the brokers (``admin``, with ``path`` naming the request)."""

    op: str
    path: str
    data: str
    expected_version: int | None = None


@dataclass(frozen=True, slots=True)
class CreateRequest:
    """What the create form holds. ``seed`` picks Kafka's two random draws (a reshuffle is a new seed).

    ``manual_assignment`` is Kafka's ``--replica-assignment`` syntax (``1:2,2:3``); when given,
    ``partitions`` and ``replication_factor`` are ignored, as Kafka does.
    """

    topic: str
    partitions: int
    replication_factor: int
    rack_aware: bool = True
    manual_assignment: str | None = None
    configs: Mapping[str, str] = field(default_factory=dict)
    seed: int = 0


@dataclass(frozen=True)
class CreatePlan:
    """A checked create: apply writes exactly ``preview`` (and ``configs``) with ``writes``.

    ``checks`` are the guards that passed, ``blocked`` why it cannot be applied now (read-only,
    migration); ``source`` is the backend's own plan, which apply uses.
    """

    request: CreateRequest
    preview: AssignmentPreview
    writes: tuple[PlannedWrite, ...]
    warnings: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    blocked: str | None = None
    source: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class ExpandRequest:
    """Add partitions to ``topic`` up to ``partitions`` in total; ``manual_assignment`` lists all
    partitions in Kafka's ``--alter --replica-assignment`` syntax (the existing ones are dropped)."""

    topic: str
    partitions: int
    manual_assignment: str | None = None


@dataclass(frozen=True)
class ExpandPlan:
    """A checked expansion; ``writes`` is one version-checked set of the topic znode (or the brokers'
    CreatePartitions); ``expected_version`` is the topic znode version the plan was computed from."""

    request: ExpandRequest
    preview: AssignmentPreview
    writes: tuple[PlannedWrite, ...]
    warnings: tuple[str, ...] = ()
    checks: tuple[str, ...] = ()
    blocked: str | None = None
    expected_version: int | None = None
    source: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class DeleteSelection:
    """Which topics to delete: explicit names, or every topic matching ``regex`` (search, not full match)."""

    topics: tuple[str, ...] = ()
    regex: str | None = None


@dataclass(frozen=True)
class DeletePlan:
    """The topics that will be queued for deletion and the text the user must type to confirm (the topic
    name for one topic, the count for several); ``obstacles`` say what would hold each deletion now."""

    topics: tuple[str, ...]
    confirmation: str
    writes: tuple[PlannedWrite, ...]
    warnings: tuple[str, ...] = ()
    obstacles: tuple[tuple[str, tuple[str, ...]], ...] = ()
    checks: tuple[str, ...] = ()
    blocked: str | None = None
    source: object = field(default=None, compare=False, repr=False)


class DeletionStage(enum.IntEnum):
    """The controller's deletion stages as ZooKeeper shows them (zk-layout §7), in order."""

    NOT_QUEUED = 0
    QUEUED = 1  # marker znode exists, partitions still led
    PARTITIONS_OFFLINE = 2  # every partition without a leader (-1, or -2 LeaderDuringDelete)
    REPLICAS_REMOVED = 3  # ISRs shrunk to their last member: StopReplica sent
    GONE = 4  # /brokers/topics/<t> and the marker are gone


@dataclass(frozen=True, slots=True)
class DeletionStatus:
    """Where the deletion of one topic is; ``stuck`` says why it cannot progress (zk-layout §7.4)."""

    topic: str
    stage: DeletionStage
    detail: str
    stuck: str | None = None
    age_ms: int | None = None


# ---- checks and offsets ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckProgress:
    """Progress of one stage of a check run (``total`` 0 when unknown)."""

    stage: str
    done: int
    total: int
    finished: bool = False


@dataclass(frozen=True, slots=True)
class CheckFinding:
    """One finding: which check, how bad (``error``, ``warning``, ``info``), what, and where to jump."""

    check: str
    severity: str
    message: str
    topic: str | None = None
    path: str | None = None


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The result of a check run: findings, how many partitions were checked, what ran, and notes on
    what was skipped and why."""

    findings: tuple[CheckFinding, ...]
    partitions: int
    duration_s: float
    engine: str  # "spark" or "local": what actually ran
    notes: tuple[str, ...] = ()


ProgressListener = Callable[[CheckProgress], None]


@dataclass(frozen=True, slots=True)
class PartitionOffsets:
    """Offsets of one partition as the brokers report them (``None`` when unavailable)."""

    partition: int
    log_start: int | None
    high_watermark: int | None


# ---- the capabilities --------------------------------------------------------------------------------


class Connection(Protocol):
    """The cluster connection: what it is, whether it may change anything, and its state."""

    @property
    def name(self) -> str:
        """Context name, or the connect string when no context is used."""
        ...

    @property
    def read_only(self) -> bool:
        """Whether every mutation is refused."""
        ...

    @property
    def state(self) -> ConnectionState:
        """The ZooKeeper connection state."""
        ...

    def connect(self) -> None:
        """Connect and take the first snapshot (blocks). Raises ``ConnectError``."""
        ...

    def close(self) -> None:
        """Release the session and every watch (blocks briefly)."""
        ...

    def add_state_listener(self, listener: StateListener) -> None:
        """Call ``listener(state)`` on every connection state change (on a backend thread)."""
        ...


class SnapshotSource(Protocol):
    """The cluster metadata as last seen: cheap, kept current by the backend's watches."""

    def snapshot(self) -> ClusterSnapshot:
        """The latest snapshot. Raises ``ConnectError`` if none could be read yet."""
        ...

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` whenever ``snapshot()`` has newer content (on a backend thread)."""
        ...

    def loading(self) -> str | None:
        """While the first full read runs (``snapshot()`` then holds brokers and controller but no
        topics yet): what is being read, e.g. ``reading 50,000 topics``; ``None`` once complete."""
        ...


class EventSource(Protocol):
    """Live change events."""

    def subscribe(self, on_event: Callable[[ClusterEvent], None]) -> Unsubscribe:
        """Call ``on_event`` for every change seen from now on (on a backend thread)."""
        ...


class TopicFollower(Protocol):
    """Per-topic live updates for a detail view."""

    def follow_topic(self, topic: str, on_change: Callable[[TopicEntry | None], None]) -> Unsubscribe:
        """Call ``on_change(entry)`` whenever the topic's assignment, partition states or config change
        (``None`` once it is gone). The first call comes right away with the current entry."""
        ...


class ZnodeBrowser(Protocol):
    """Generic ZooKeeper browsing, relative to the Kafka chroot."""

    def children(self, path: str, offset: int = 0, limit: int = 500) -> ChildPage:
        """A page of the children of ``path`` with their own child counts."""
        ...

    def znode(self, path: str) -> ZnodeView:
        """Data (decoded and explained), stat and ACL of ``path``; ``exists`` False when it is gone."""
        ...

    def watch_znode(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """Call ``on_change(path)`` whenever the data, children or existence of ``path`` change."""
        ...


class TopicAdmin(Protocol):
    """Create, expand and delete with Kafka's rules, kzc's guards and version-checked writes."""

    def plan_create(self, request: CreateRequest) -> CreatePlan:
        """Check ``request`` and compute the exact assignment. Raises ``KafkaRuleError``/``GuardError``."""
        ...

    def apply_create(self, plan: CreatePlan) -> None:
        """Write exactly ``plan``. Raises ``ReadOnlyError``, ``GuardError``, ``ConcurrentChangeError``."""
        ...

    def plan_expand(self, request: ExpandRequest) -> ExpandPlan:
        """Check ``request`` and compute the new partitions."""
        ...

    def apply_expand(self, plan: ExpandPlan) -> None:
        """Write exactly ``plan`` (version-checked against the topic znode the plan read)."""
        ...

    def plan_delete(self, selection: DeleteSelection) -> DeletePlan:
        """Resolve ``selection`` and apply the guards."""
        ...

    def apply_delete(self, plan: DeletePlan, confirmation: str) -> None:
        """Queue ``plan.topics`` for deletion once ``confirmation`` equals ``plan.confirmation``."""
        ...

    def deletion_status(self, topics: tuple[str, ...]) -> tuple[DeletionStatus, ...]:
        """Where the deletion of each topic stands, from the latest snapshot."""
        ...


class CheckRunner(Protocol):
    """Cluster-wide consistency checks."""

    def run_checks(self, progress: ProgressListener, engine: str = "spark") -> CheckReport:
        """Run every check with ``engine`` (``spark`` or ``local``); blocks; ``progress`` is called from
        the running thread. Raises ``KzcError`` when the run cannot happen (e.g. Spark fails to start)."""
        ...


class OffsetSource(Protocol):
    """Partition offsets from the brokers, when bootstrap servers are configured and reachable."""

    def offsets(self, topic: str) -> Mapping[int, PartitionOffsets] | None:
        """Offsets per partition; ``None`` when no brokers are configured. Raises ``ConnectError``."""
        ...


class ClusterBackend(
    Connection,
    SnapshotSource,
    EventSource,
    TopicFollower,
    ZnodeBrowser,
    TopicAdmin,
    CheckRunner,
    OffsetSource,
    Protocol,
):
    """Everything the console needs from one cluster."""
