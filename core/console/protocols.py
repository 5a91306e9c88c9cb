"""The contract between the console and a cluster: small capability protocols and the values they exchange.

The TUI depends only on these protocols (as k9s' ``internal/dao/types.go`` capability interfaces or
harlequin's ``adapter.py``), so its tests can hand it a recorded snapshot (``tests.recorded_backend``)
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
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from core.configs.broker import BrokerConfigsView
from core.consistency.findings import CheckReport, StageProgress
from core.console.fixes import FixActions
from core.console.security_actions import SecurityActions
from core.groups.freshness import aged
from core.groups.lag import GroupLag, LagTotal, Stale, lagging
from core.groups.trend import LagTrend
from core.human_time import age_text
from core.kafka.quotas import EffectiveQuota
from core.live.live_event import EventKind as EventKind  # defined with the events; the console names it here too
from core.messages.reader import Message, TailRequest
from core.metrics.reader import BrokerMetrics
from core.security.acls import AclListing, ResourceAccess
from core.security.quotas import QuotaListing
from core.security.users import UserListing
from core.snapshot.broker_view import BrokerLive, BrokerView
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.snapshot.sizes import SizesView
from core.topics.plan import CreatePlan, CreateRequest, DeletePlan, DeleteRequest, ExpandPlan, ExpandRequest
from core.traffic.sample import Sample
from core.traffic.ticker import TrafficView
from core.zookeeper.health import EnsembleHealth
from core.zookeeper.session import ConnectionState
from core.zookeeper.tree import ChildPage, ZnodeView

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


@dataclass(frozen=True, slots=True)
class BackendEvent:
    """A ``ClusterEvent`` with the fields the console links to (topic, znode path)."""

    at_ms: int
    kind: EventKind
    text: str
    topic: str | None = None
    path: str | None = None
    severity: str = "info"  # "info", "warning" or "error": how the event log styles the line
    broker: int | None = None  # the broker that registered or left, or the new controller

    def describe(self) -> str:
        """The log line for this event, without the time."""
        return self.text


# ---- znode browsing ----------------------------------------------------------------------------------


# ---- topic operations --------------------------------------------------------------------------------


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


ProgressListener = Callable[[StageProgress], None]


@dataclass(frozen=True, slots=True)
class PartitionOffsets:
    """Offsets of one partition as the brokers report them (``None`` when unavailable)."""

    partition: int
    log_start: int | None
    high_watermark: int | None


# ---- consumer groups ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GroupsView:
    """Every consumer group as last read (sorted by lag, unknown first), each group's lag trend from the
    reads so far, and notes on what is missing (e.g. no ``--bootstrap-server``).

    ``at_ms`` is when the read started. Each group carries when its numbers were read (``as_of_ms``) and,
    when its source stopped answering, ``stale`` (since when, why: ``core.groups.freshness``); ``stale`` on
    the view says the whole read failed and every group shows its last good numbers.
    """

    groups: tuple[GroupLag, ...] = ()
    trends: Mapping[str, LagTrend] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    at_ms: int = 0
    stale: Stale | None = None
    recorded: str | None = None  # at a recorded moment, what the numbers are as of (they never age)

    @property
    def lagging(self) -> int:
        """Groups behind (``core.groups.lag.lagging``)."""
        return lagging(self.groups)

    @property
    def empty_with_offsets(self) -> int:
        """Groups without members that still hold committed offsets (nobody consumes them)."""
        return sum(1 for g in self.groups if not g.active and g.has_committed)

    def of_topic(self, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        """The groups with partitions of ``topic`` and their lag on it, by lag (unknown first)."""
        found = [(g, g.topic_lag(topic)) for g in self.groups if topic in g.topics]
        return sorted(found, key=lambda pair: (pair[1].lag is not None, -(pair[1].lag or 0), pair[0].group))

    def aged(self, now_ms: int, limit_s: float, failed: str | None = None) -> GroupsView:
        """This view at ``now_ms``: every group stale since it was read once no read has finished for
        ``limit_s`` seconds (a read that hangs never leaves numbers frozen without a mark), or at once when
        the latest read ``failed`` (its reason)."""
        if self.stale is not None or not self.at_ms or self.recorded is not None:
            return self
        if failed is None and now_ms - self.at_ms <= limit_s * 1000:
            return self
        groups = tuple(aged(g, now_ms, limit_s, failed) for g in self.groups)
        reason = failed or f"no read has finished for {age_text((now_ms - self.at_ms) / 1000)}"
        return replace(self, groups=groups, trends={}, stale=Stale(self.at_ms, reason))


@dataclass(frozen=True)
class GroupDetail:
    """One group with its partitions and trend."""

    group: GroupLag
    trend: LagTrend | None = None


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

    def znode(self, path: str) -> ZnodeView | None:
        """Data (decoded and explained), stat and ACL of ``path``; ``None`` when it does not exist."""
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

    def plan_delete(self, request: DeleteRequest) -> DeletePlan:
        """Resolve ``request`` (names or a whole-name regex) and apply the guards."""
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


class FixSource(Protocol):
    """Reassignment, leader elections and config changes (issue screens of the console)."""

    def fix_actions(self) -> FixActions | None:
        """The fix actions of the connected cluster; ``None`` where nothing can be changed (a recording,
        or not connected yet)."""
        ...


class GroupSource(Protocol):
    """Consumer groups and their lag (from the brokers and from ``/consumers`` in ZooKeeper)."""

    def group_overview(self) -> GroupsView:
        """Read every group now (blocks, bounded by per-call timeouts) and add the read to the lag trend.
        Groups whose source did not answer show their last good numbers, marked stale. Raises
        ``ConnectError`` only when nothing was ever read."""
        ...

    def group_detail(self, group: str) -> GroupDetail:
        """Read one group now (blocks); its last good numbers, marked stale, when it cannot be read. Raises
        ``UsageError`` when it does not exist, ``ConnectError`` when it was never read."""
        ...

    def groups_of_topic(self, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        """The groups consuming ``topic`` with their lag on it (reads the groups now, or takes a read of the
        last few seconds; blocks), each marked stale as in ``group_overview``."""
        ...


class AclSource(Protocol):
    """The ZooKeeper authorizer's ACLs (``core.security.acls``)."""

    def topic_access(self, topic: str) -> ResourceAccess:
        """Who can do what on ``topic``, from the ACLs in ZooKeeper (blocking; call from a worker).

        Raises:
            ConnectError: ZooKeeper failed.
        """
        ...


class SecuritySource(Protocol):
    """The security screen's reads: the same core functions as ``kzc acl list``, ``kzc quota show`` and
    ``kzc user list`` (each blocks; call from a worker). Raise ``ConnectError`` when ZooKeeper failed,
    ``KafkaRuleError`` when a config znode is unreadable."""

    def acl_listing(self) -> AclListing:
        """Every ACL, through DescribeAcls or from ZooKeeper, saying which (``core.security.acls.list_acls``)."""
        ...

    def quota_entities(self) -> QuotaListing:
        """Every quota entity and its keys, and where they were read: DescribeClientQuotas where every broker
        serves it and ``--bootstrap-server`` is set, else ZooKeeper (``core.security.quotas.read_quotas``)."""
        ...

    def scram_users(self) -> UserListing:
        """Every SCRAM user, mechanisms and iterations only, through DescribeUserScramCredentials or from
        ZooKeeper, saying which (``core.security.users.read_users``)."""
        ...

    def effective_quota(self, user: str, client_id: str) -> list[EffectiveQuota]:
        """The quotas ``user`` with ``client_id`` gets and the entity each comes from, by Kafka's precedence
        (``core.security.quotas.effective``, as ``kzc quota show --effective``: eight znode reads)."""
        ...

    def security_actions(self) -> SecurityActions | None:
        """What the security forms change ACLs and SCRAM credentials through, as ``kzc acl add|remove`` and ``kzc
        user set-password|delete`` do (``core.console.security_actions``); None where nothing can be changed
        (not connected yet)."""
        ...


class ZkHealthSource(Protocol):
    """ZooKeeper's own health: every server of the connect string (``core.zookeeper.health``)."""

    def zookeeper_health(self) -> EnsembleHealth:
        """Probe every server now (blocks up to a few seconds; needs no ZooKeeper session, so it answers
        when the quorum is lost). An unreachable server keeps its last reading as ``last_seen``."""
        ...


class BrokerSource(Protocol):
    """What only live sources say about one broker (``core.snapshot.broker_view``)."""

    def broker_live(self, view: BrokerView) -> BrokerLive:
        """The session owning its registration and its log sizes, read now (blocks)."""
        ...

    def broker_configs(self, broker: int) -> BrokerConfigsView:
        """Its dynamic configs (and, where the brokers report them, every non-default one), read now (blocks)."""
        ...


class MessageStream(Protocol):
    """A read of a topic's messages in progress (``core.messages.stream.TopicStream``)."""

    notes: tuple[str, ...]
    headers_unsupported: str | None

    @property
    def finished(self) -> bool:
        """Every partition read to its end as it was at the start (not following)."""
        ...

    def poll(self, timeout: float, batch: int = 200) -> list[Message]:
        """Up to ``batch`` messages, waiting at most ``timeout`` seconds (blocks)."""
        ...

    def close(self) -> None:
        """Leave; nothing is committed (blocks briefly)."""
        ...


class MessageSource(Protocol):
    """Reads a topic's messages without a trace (no group, nothing committed: ``core.messages``)."""

    def open_messages(self, request: TailRequest) -> MessageStream:
        """Start a read (blocks: ZooKeeper, the brokers' offsets)."""
        ...


class SizeSource(Protocol):
    """The brokers' log dirs and the sizes they give (DescribeLogDirs, ``core.snapshot.sizes``)."""

    def log_dirs(self, max_age_s: float = 0.0) -> SizesView:
        """Every registered broker's log dirs (each replica's size), read now unless a read finished less than
        ``max_age_s`` ago; a broker that does not answer keeps its last good read, marked stale (blocks up to
        a few seconds per broker). Raises ``ConnectError`` when no snapshot was read yet."""
        ...


class TrafficSource(Protocol):
    """Traffic: messages and bytes in per second (``core.traffic.ticker``, no ZooKeeper request)."""

    def traffic(self, max_age_s: float = 0.0) -> TrafficView:
        """The rates between the previous tick and one taken now (one ListOffsets and one DescribeLogDirs per
        broker, who leads what from the live snapshot) unless a tick finished less than ``max_age_s`` ago;
        blocks up to a few seconds per broker. Raises ``ConnectError`` when no snapshot was read yet."""
        ...


@runtime_checkable
class TrafficSampler(Protocol):
    """Traffic samples for the console's history recorder (``core.history.recorder.TrafficRead``), shared with the
    screens' ticks; the recorder of a backend that does not implement this records no traffic."""

    def traffic_sample(self, snapshot: ClusterSnapshot, now_ms: int) -> Sample:
        """The brokers' sample by ``snapshot``'s layout: the last tick's when it is fresh, else one taken now
        (``core.traffic.ticker.TrafficTicker.sample``); never raises."""
        ...


@runtime_checkable
class GroupsSampler(Protocol):
    """The consumer groups' lag for the console's history recorder (``core.history.recorder.GroupsRead``, the one
    read ``kzc record`` makes too); the recorder of a backend that does not implement this records no groups."""

    def groups_sample(
        self, snapshot: ClusterSnapshot, sample: Callable[[], Sample], now_ms: int
    ) -> list[dict[str, Any]]:
        """The ``group_lag`` rows of a traffic tick: every group's committed offsets, then against the high
        watermarks of the tick's ``sample`` (``core.groups.recorded.recorded_groups_read``); never raises (a failed
        read is a row saying why)."""
        ...


@runtime_checkable
class MetricsSource(Protocol):
    """The brokers' own metrics from their JMX exporters (``core.metrics``), where a metrics URL is set; the screens
    of a backend that does not implement this show none."""

    def broker_metrics(self, broker: int | None = None) -> tuple[BrokerMetrics, ...] | None:
        """Every registered broker's metrics (``broker``'s only, when given), each rate over the time since that
        broker's previous scrape; None when no metrics URL is set. Blocks up to the scrape's deadline (2 s); a
        failing endpoint is a ``BrokerMetrics`` saying why, never an exception. Raises ``ConnectError`` when no
        snapshot was read yet."""
        ...


class ClusterBackend(
    MessageSource,
    Connection,
    SnapshotSource,
    EventSource,
    TopicFollower,
    ZnodeBrowser,
    TopicAdmin,
    CheckRunner,
    OffsetSource,
    FixSource,
    GroupSource,
    ZkHealthSource,
    AclSource,
    SecuritySource,
    BrokerSource,
    SizeSource,
    TrafficSource,
    Protocol,
):
    """Everything the console needs from one cluster."""
