"""``ZkBackend``: the real ``ClusterBackend`` for one cluster, composed of the core modules.

- connection: ``core.zookeeper.session.ZkSession`` (states forwarded to the console);
- snapshot, events, followed topics, watched znodes: the live model, ``core.live.model.LiveCluster`` (whose
  ``core.live.watcher.ClusterWatcher`` holds every watch);
- browsing: ``core.console.browse`` (pages of ``core.zookeeper.tree`` with a pipelined child count per listed
  child, the child lists kept for later pages; data, stat, ACL);
- create / expand / delete: ``core.topics.ops.TopicOps`` (plans from ``core.topics.planning``, guards, writes
  through the brokers when ``--bootstrap-server`` is set, else through ZooKeeper; read-only mode and
  migrations refused) with one audit line per attempt (``core.audit``);
- where deletions stand: ``core.console.view.deletion_status`` on the live snapshot;
- checks: ``core.consistency`` through ``core.console.checks`` (Spark worker kept warm, on the settings'
  ``spark_master`` and ``stage_dir``);
- offsets and consumer groups: one read client (``core.brokers.group_admin.GroupAdmin`` with short per-call
  timeouts, apart from the writes' client); groups through ``core.groups.ops.GroupOps`` (brokers and
  ``/consumers``), each read added to the lag trend and to the book of last good numbers
  (``core.console.group_reads``), so a group whose source stops answering is shown stale since its last read,
  with the reason.
- ZooKeeper's own health: ``core.zookeeper.health.probe_ensemble`` (four-letter words, the AdminServer), with
  the brokers' ``zookeeper.session.timeout.ms`` (``core.snapshot.zk_session_timeout``) read again every
  ``KAFKA_SESSION_EVERY_S``.

The backend is one short method per member of the console's protocols, each handing the work to the core
module above. Its cached reads (log dirs, ZooKeeper's health, the brokers' session timeouts) all go through the
one ``core.console.single_flight.SingleFlight`` (one read per key at a time, no lock held while it reads); the
groups' through ``core.console.group_reads``; the browser's through ``core.console.browse``. The backend's own
lock guards its fields only, never a read.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any

from core.brokers.admin import KafkaAdmin
from core.brokers.group_admin import GroupAdmin
from core.config import ConnectionSettings
from core.configs.broker import BrokerConfigsView
from core.configs.zk import StoredConfig
from core.connect import ZkConnect
from core.consistency.findings import CheckReport
from core.console.browse import ZnodeReads
from core.console.checks import CheckEngines
from core.console.fixes import FixActions
from core.console.group_reads import GroupReads
from core.console.protocols import (
    ClusterEvent,
    DeletionStatus,
    GroupDetail,
    GroupsView,
    PartitionOffsets,
    ProgressListener,
    StateListener,
    Unsubscribe,
)
from core.console.security_actions import SecurityActions, SecurityBackend
from core.console.single_flight import SingleFlight
from core.console.view import deletion_status
from core.errors import ConnectError, GuardError, KzcError
from core.groups.lag import GroupLag, LagTotal
from core.groups.ops import GroupOps
from core.kafka.quotas import EffectiveQuota
from core.kafka.znodes import EntityConfig
from core.live.model import LiveCluster
from core.live.timed import TimedEvent
from core.messages.reader import TailRequest
from core.messages.stream import TopicStream, open_stream
from core.metrics.reader import BrokerMetrics, MetricsReader
from core.security.acls import AclListing, ResourceAccess, access_of, list_acls
from core.security.quotas import QuotaListing, effective, read_quota_listing
from core.security.users import UserListing, read_users
from core.snapshot.broker_view import BrokerLive, BrokerView, read_broker_live
from core.snapshot.kraft import served_broker_ids
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.snapshot.sizes import SizeBook, SizesView, read_sizes
from core.snapshot.static_min_isr import read_static_min_isr
from core.snapshot.zk_session_timeout import read_kafka_session_timeouts
from core.topics.ops import TopicOps
from core.topics.plan import (
    CreatePlan,
    CreateRequest,
    DeletePlan,
    DeleteRequest,
    ExpandPlan,
    ExpandRequest,
    assignment_json,
)
from core.traffic.sample import Sample
from core.traffic.ticker import TICK_S, TrafficTicker, TrafficView
from core.zookeeper.health import EnsembleHealth, KafkaSessionTimeouts, probe_ensemble, tls_context
from core.zookeeper.kafka_root import require_kafka_cluster
from core.zookeeper.session import ConnectionState, ZkSession
from core.zookeeper.tree import ChildPage, ZnodeView

if TYPE_CHECKING:  # the recorder's module imports the store's schema (pyarrow): only when recording
    from core.history.recorder import GroupsRead

KAFKA_SESSION_EVERY_S = 300.0  # a static broker config: it changes only with a broker restart
SIZES_TIMEOUT_S = 10.0  # each broker's DescribeLogDirs (connect, ApiVersions, the answer)


class ZkBackend:
    """A live cluster behind ZooKeeper (and, when bootstrap servers are set, its brokers)."""

    def __init__(self, settings: ConnectionSettings, now_ms: Callable[[], int] | None = None) -> None:
        self._settings = settings
        self._session: ZkSession | None = None
        self._live: LiveCluster | None = None
        self._ops: TopicOps | None = None
        self._fixes: FixActions | None = None
        self._groups: GroupOps | None = None
        self._reads: GroupAdmin | None = None
        self._group_reads = GroupReads(self._wall_ms)
        self._listeners: list[StateListener] = []
        self._subscribers: list[Callable[[ClusterEvent], None]] = []
        self._snapshot_listeners: list[Callable[[], None]] = []
        self._state = ConnectionState.CLOSED
        self._now_ms = now_ms
        self._checks = CheckEngines(spark_master=settings.spark_master, stage_dir=settings.stage_dir)
        self._lock = threading.Lock()
        self._browse = ZnodeReads()  # the browser's pages (with the child lists kept for later pages)
        # One probe at a time (a caller that comes meanwhile shares it): each carries the previous one's readings.
        self._health: SingleFlight[EnsembleHealth] = SingleFlight()
        self._kafka_sessions: SingleFlight[KafkaSessionTimeouts] = SingleFlight()
        self._sizes: SingleFlight[SizesView] = SingleFlight()  # one log dirs read at a time, shared likewise
        self._size_book = SizeBook()
        self._traffic = TrafficTicker(settings.kafka_security, self._wall_ms)
        self._recorded_groups: GroupsRead | None = None  # the recorder's groups read, made at its first tick
        self._closing = contextlib.ExitStack()  # what that read opened (its brokers' client)
        self._metrics = MetricsReader(settings.metrics_url) if settings.metrics_url else None

    # ---- Connection ----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The context name, else the connect string."""
        return self._settings.context or str(self._settings.zookeeper)

    @property
    def read_only(self) -> bool:
        """Whether mutations are refused (``--read-only`` or the context's ``read_only``)."""
        return self._settings.read_only

    @property
    def state(self) -> ConnectionState:
        """The ZooKeeper connection state."""
        return self._state

    def add_state_listener(self, listener: StateListener) -> None:
        """Call ``listener(state)`` on every change (on kazoo's thread)."""
        self._listeners.append(listener)

    def connect(self) -> None:
        """Connect, read the whole cluster and start watching.

        Raises:
            ConnectError: ZooKeeper unreachable, auth/TLS failure, missing chroot, or a read failed.
            UsageError: incomplete security settings.
        """
        session = ZkSession(self._settings)
        session.add_state_listener(self._on_state)
        session.start()
        bootstrap = self._settings.bootstrap_servers
        # During a migration, which brokers run KRaft: DescribeCluster when the brokers are known, else the ISR.
        security = self._settings.kafka_security
        ask = (lambda: served_broker_ids(bootstrap, security)) if bootstrap else None
        live = LiveCluster(session, self._emit, self._snapshot_refreshed, served_brokers=ask)
        try:
            require_kafka_cluster(session)
            live.start()
        except KzcError:
            session.stop()
            raise
        admin = (
            KafkaAdmin(self._settings.bootstrap_servers, security=self._settings.kafka_security)
            if self._settings.bootstrap_servers
            else None
        )
        with self._lock:
            self._session, self._live = session, live
            self._ops = TopicOps(session, admin, self._settings)
            self._fixes = FixActions.of(session, self._settings, self._ops.audit, partial(_config_read, live))
            # Reads (groups, offsets) have their own client with short per-call timeouts: a wedged read never
            # waits behind a write, nor a write behind it.
            self._reads = (
                GroupAdmin(bootstrap, security=security, timeout=GROUPS_ADMIN_TIMEOUT_S) if bootstrap else None
            )
            self._groups = GroupOps(self._reads, session, self._settings)
        if self._settings.bootstrap_servers:
            # The brokers' static min.insync.replicas (for acks=all), asked off the connect path.
            threading.Thread(target=self._read_static, args=(live,), name="kzc-broker-configs", daemon=True).start()

    def _read_static(self, live: LiveCluster) -> None:
        brokers = live.snapshot().brokers
        live.set_static_min_isr(
            read_static_min_isr(self._settings.bootstrap_servers, self._settings.kafka_security, brokers)
        )
        self._snapshot_refreshed()

    def close(self) -> None:
        """Stop watching, stop the Spark worker, close the session."""
        with self._lock:
            live, session = self._live, self._session
            self._live = self._session = None
            self._recorded_groups = None  # a recorder tick after this reads no groups (groups_sample)
        if live is not None:
            live.stop()
        if self._reads is not None:
            self._reads.close()
        self._closing.close()
        self._checks.close()
        if session is not None:
            session.stop()

    def _on_state(self, state: ConnectionState) -> None:
        # kazoo's thread: remember and forward.
        self._state = state
        for listener in list(self._listeners):
            listener(state)

    def _emit(self, event: TimedEvent) -> None:
        for subscriber in list(self._subscribers):
            subscriber(event)

    def _snapshot_refreshed(self) -> None:
        for listener in list(self._snapshot_listeners):
            listener()

    # ---- SnapshotSource / EventSource / TopicFollower ------------------------------------------------

    def _not_ready(self) -> ConnectError:
        """Why a read that needs the connection cannot run yet: the session is up but the first whole read is not
        done (then the connection's parts are not set), or there is no session."""
        if self._state is ConnectionState.CONNECTED:
            return ConnectError("connected to ZooKeeper, still reading the cluster")
        return ConnectError("not connected to ZooKeeper")

    def _cluster(self) -> LiveCluster:
        live = self._live
        if live is None:
            raise self._not_ready()
        return live

    def _zk(self) -> ZkSession:
        session = self._session
        if session is None:
            raise self._not_ready()
        return session

    def fix_actions(self) -> FixActions | None:
        """Reassignment, elections and config changes on this cluster (None until connected)."""
        return self._fixes

    def _topic_ops(self) -> TopicOps:
        ops = self._ops
        if ops is None:
            raise self._not_ready()
        return ops

    def snapshot(self) -> ClusterSnapshot:
        """The cluster as last read, with live changes laid over it."""
        return self._cluster().snapshot()

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` after every full read."""
        self._snapshot_listeners.append(listener)

    def loading(self) -> str | None:
        """What the first full read is reading, or ``None`` once it completed."""
        live = self._live
        return live.loading() if live is not None else "connecting"

    def subscribe(self, on_event: Callable[[ClusterEvent], None]) -> Unsubscribe:
        """Receive every change event from now on."""
        self._subscribers.append(on_event)

        def unsubscribe() -> None:
            with contextlib.suppress(ValueError):
                self._subscribers.remove(on_event)

        return unsubscribe

    def follow_topic(self, topic: str, on_change: Callable[[TopicEntry | None], None]) -> Unsubscribe:
        """The topic's entry now, then after every change of its assignment or partition states."""
        return self._cluster().follow(topic, on_change)

    # ---- ZnodeBrowser --------------------------------------------------------------------------------

    def children(self, path: str, offset: int = 0, limit: int = 500) -> ChildPage:
        """A page of children with each child's own child count (``core.console.browse``).

        Raises:
            ConnectError: ZooKeeper failed or denied the read; KzcError: the znode does not exist.
        """
        return self._browse.children(self._zk(), path, offset, limit)

    def znode(self, path: str) -> ZnodeView | None:
        """Data (decoded and explained), stat and ACL of ``path``; ``None`` when it does not exist.

        Raises:
            ConnectError: ZooKeeper failed or denied the read.
        """
        return self._browse.znode(self._zk(), path)

    def watch_znode(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """Call ``on_change(path)`` on every change of ``path`` or its children."""
        return self._cluster().watch_path(path, on_change)

    # ---- TopicAdmin ----------------------------------------------------------------------------------

    def plan_create(self, request: CreateRequest) -> CreatePlan:
        """Kafka's checks and the exact assignment (topic_ops), nothing written."""
        return self._topic_ops().plan_create(request)

    def apply_create(self, plan: CreatePlan) -> None:
        """Create the topic exactly as planned (and audited); topic_ops reads back what landed."""
        ops = self._topic_ops()
        with ops.audit.attempt(
            "topic create",
            {
                "topic": plan.topic,
                "assignment": assignment_json(plan.assignment),
                "config": dict(plan.config),
                "via": "console",
            },
        ) as attempt:
            ops.apply(plan, attempt)
        self._cluster().request_full_read()

    def plan_expand(self, request: ExpandRequest) -> ExpandPlan:
        """Kafka's checks and the new partitions (topic_ops), nothing written."""
        return self._topic_ops().plan_expand(request)

    def apply_expand(self, plan: ExpandPlan) -> None:
        """Add exactly the planned partitions, checked against the topic znode version the plan read."""
        ops = self._topic_ops()
        with ops.audit.attempt(
            "topic expand",
            {
                "topic": plan.topic,
                "partitions": plan.target_partitions,
                "new": assignment_json(plan.new_assignment),
                "via": "console",
            },
        ) as attempt:
            ops.apply(plan, attempt)
        self._cluster().request_full_read()

    def plan_delete(self, request: DeleteRequest) -> DeletePlan:
        """Resolve and guard a deletion (topic_ops), nothing written."""
        return self._topic_ops().plan_delete(request)

    def apply_delete(self, plan: DeletePlan, confirmation: str) -> None:
        """Mark the planned topics for deletion once ``confirmation`` matches.

        Raises:
            GuardError: the confirmation does not match (recorded as cancelled; nothing written).
        """
        ops = self._topic_ops()
        with ops.audit.attempt("topic delete", {"topics": list(plan.topics), "via": "console"}) as attempt:
            if confirmation.strip() != plan.confirmation:
                attempt.cancelled(f"the typed confirmation '{confirmation}' did not match '{plan.confirmation}'")
                raise GuardError(f"confirmation '{confirmation}' does not match '{plan.confirmation}': nothing deleted")
            result = ops.apply(plan, attempt)
        self._cluster().request_full_read()
        if result.errors:  # some were marked (recorded as applied, with these errors)
            raise KzcError("; ".join(f"{topic}: {error}" for topic, error in result.errors))

    def deletion_status(self, topics: tuple[str, ...]) -> tuple[DeletionStatus, ...]:
        """Where each deletion stands in the live snapshot."""
        snapshot = self.snapshot()
        now = self._now_ms() if self._now_ms else snapshot.taken_at_ms
        return tuple(deletion_status(snapshot, t, now) for t in topics)

    # ---- CheckRunner / OffsetSource ------------------------------------------------------------------

    def run_checks(self, progress: ProgressListener, engine: str = "spark") -> CheckReport:
        """The consistency checks on a fresh read of the cluster."""
        return self._checks.run(progress, engine, settings=self._settings)

    @property
    def check_engines(self) -> CheckEngines:
        """The engines ``run_checks`` uses; their ``spark_settings`` come from the connection settings."""
        return self._checks

    def offsets(self, topic: str) -> Mapping[int, PartitionOffsets] | None:
        """Log-start and high-watermark offsets from the brokers (``None`` without bootstrap servers).

        Raises:
            ConnectError: the brokers did not answer.
        """
        reads = self._reads
        if reads is None:
            return None
        entry = self.snapshot().topics.get(topic)
        if entry is None or not entry.partition_ids:
            return {}
        keys = [(topic, p) for p in entry.partition_ids]
        # Both in flight together, through the console's one read client (a client per call, dropped with
        # requests pending, is what garbage collection then destroys on whichever thread it runs).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="kzc-offsets") as pool:
            earliest = pool.submit(reads.list_offsets, keys, "earliest")
            latest = reads.list_offsets(keys, "latest")
            starts = earliest.result()
        return {
            p: PartitionOffsets(p, _offset(starts.get((topic, p))), _offset(latest.get((topic, p))))
            for p in entry.partition_ids
        }

    # ---- GroupSource ---------------------------------------------------------------------------------

    def _group_ops(self) -> GroupOps:
        ops = self._groups
        if ops is None:
            raise self._not_ready()
        return ops

    def group_overview(self) -> GroupsView:
        """Every group now, with the lag trend of the reads so far (``GroupReads.overview``).

        Raises:
            ConnectError: the brokers or ZooKeeper did not answer, and no group was ever read.
        """
        return self._group_reads.overview(self._group_ops())

    def group_detail(self, group: str) -> GroupDetail:
        """One group now, with its trend from the reads so far (``GroupReads.detail``).

        Raises:
            UsageError: the group does not exist; ConnectError: the brokers or ZooKeeper did not answer and
                the group was never read.
        """
        return self._group_reads.detail(self._group_ops(), group)

    def groups_of_topic(self, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        """The groups consuming ``topic``: from a read of the last few seconds, else a fresh one."""
        return self._group_reads.of_topic(self._group_ops(), topic)

    # ---- BrokerSource --------------------------------------------------------------------------------

    def broker_live(self, view: BrokerView) -> BrokerLive:
        """The session owning the broker's registration and its log sizes (DescribeLogDirs), read now."""
        return read_broker_live(self._session, view, self._settings.kafka_security)

    # ---- SizeSource ----------------------------------------------------------------------------------

    def log_dirs(self, max_age_s: float = 0.0) -> SizesView:
        """Every registered broker's log dirs (DescribeLogDirs of every replica, all brokers at once), read
        now unless one finished less than ``max_age_s`` ago; merged with each broker's last good read."""
        snapshot = self.snapshot()
        return self._sizes.read("log dirs", lambda: self._read_sizes(snapshot), max_age_s)

    def _read_sizes(self, snapshot: ClusterSnapshot) -> SizesView:
        started = self._wall_ms()
        reads = read_sizes(snapshot, SIZES_TIMEOUT_S, started, self._settings.kafka_security)
        return self._size_book.merge(reads, started)

    # ---- TrafficSource -------------------------------------------------------------------------------

    def traffic(self, max_age_s: float = 0.0) -> TrafficView:
        """The rates since the previous tick (``core.traffic.ticker``: no ZooKeeper request, the live snapshot)."""
        return self._traffic.tick(self.snapshot(), max_age_s)

    def traffic_sample(self, snapshot: ClusterSnapshot, now_ms: int) -> Sample:
        """A sample for the console's recorder: the screens' last tick when fresh, else one of its own; always one
        of its own once the recorder reads the groups with it, whose high watermarks must be read after their
        committed offsets (``GroupOps.committed_lag``), never before as the screens' tick may have been."""
        return self._traffic.sample(snapshot, 0.0 if self._recorded_groups is not None else TICK_S)

    def groups_sample(
        self, snapshot: ClusterSnapshot, sample: Callable[[], Sample], now_ms: int
    ) -> list[dict[str, Any]]:
        """The groups' lag for the console's recorder: ``kzc record``'s read, through the screens' client when
        ``--bootstrap-server`` is set (else one from the registrations, closed with the backend), on the recorder's
        traffic thread."""
        from core.groups.recorded import recorded_groups_read  # the store's schema is pyarrow: only when recording

        with self._lock:
            session = self._session
            if session is None:
                return []  # closed under the recorder: its final flush comes next
            if self._recorded_groups is None:
                self._recorded_groups = recorded_groups_read(self._settings, session, self._closing, self._reads)
            read = self._recorded_groups
        return read(snapshot, sample, now_ms)

    def broker_metrics(self, broker: int | None = None) -> tuple[BrokerMetrics, ...] | None:
        """The brokers' metrics (``core.metrics.reader``: their exporters, hosts from the live snapshot; no
        ZooKeeper request); None without a metrics URL."""
        return None if self._metrics is None else self._metrics.read(self.snapshot(), broker)

    def broker_configs(self, broker: int) -> BrokerConfigsView:
        """ZooKeeper's overrides of the broker and the cluster default, and the broker's DescribeConfigs."""
        fixes = self._fixes
        if fixes is None or fixes.broker_configs is None:
            raise self._not_ready()
        return fixes.broker_configs.view(broker)

    # ---- MessageSource -------------------------------------------------------------------------------

    def open_messages(self, request: TailRequest) -> TopicStream:
        """A read of the topic's messages (its own consumer; the brokers from their registrations)."""
        return open_stream(self._settings, request)

    # ---- AclSource -----------------------------------------------------------------------------------

    def topic_access(self, topic: str) -> ResourceAccess:
        """Who can do what on ``topic``, as ``kzc acl list --topic`` and ``kzc acl check`` decide it (the ACLs and
        the brokers' authorizer, read now)."""
        return access_of(list_acls(self._zk(), self._settings), "Topic", topic)

    # ---- SecuritySource ------------------------------------------------------------------------------

    def acl_listing(self) -> AclListing:
        """Every ACL, as ``kzc acl list`` reads them (DescribeAcls where every broker serves it, else ZooKeeper)."""
        return list_acls(self._zk(), self._settings)

    def quota_entities(self) -> QuotaListing:
        """Every quota entity, as ``kzc quota show`` reads them (DescribeClientQuotas or ZooKeeper)."""
        return read_quota_listing(self._zk(), self._settings)

    def scram_users(self) -> UserListing:
        """Every SCRAM user, as ``kzc user list`` reads them (DescribeUserScramCredentials where every broker
        serves it, else ZooKeeper; never a salt or key)."""
        return read_users(self._zk(), self._settings)

    def effective_quota(self, user: str, client_id: str) -> list[EffectiveQuota]:
        """What ``user`` with ``client_id`` gets, as ``kzc quota show --effective`` reads it."""
        return effective(self._zk(), user, client_id)

    def security_actions(self) -> SecurityActions | None:
        """ACL and SCRAM credential changes on this cluster, as ``kzc acl`` and ``kzc user`` make them (None until
        connected; in read-only mode their apply refuses as the CLI does)."""
        with self._lock:
            session, ops = self._session, self._ops
        if session is None or ops is None:
            return None
        return SecurityBackend(session, self._settings, ops.audit)

    # ---- ZkHealthSource ------------------------------------------------------------------------------

    def zookeeper_health(self) -> EnsembleHealth:
        """Probe every server of the connect string now (no ZooKeeper session needed)."""
        target = self._settings.zookeeper
        if target is None:
            raise ConnectError("no ZooKeeper connect string")
        return self._health.read("ZooKeeper health", lambda: self._probe(target))

    def _probe(self, target: ZkConnect) -> EnsembleHealth:
        kafka = self._kafka_sessions.read(
            "brokers' zookeeper.session.timeout.ms",
            lambda: read_kafka_session_timeouts(self._settings.bootstrap_servers, self._settings.kafka_security),
            KAFKA_SESSION_EVERY_S,
        )
        return probe_ensemble(
            target,
            now_ms=self._now_ms,
            admin_port=self._settings.zk_admin_port,
            tls=tls_context(self._settings),
            kafka=kafka,
            previous=self._health.last("ZooKeeper health"),
        )

    def _wall_ms(self) -> int:
        return self._now_ms() if self._now_ms else int(time.time() * 1000)


GROUPS_ADMIN_TIMEOUT_S = 8.0  # each AdminClient call of the groups and offsets reads


def _config_read(live: LiveCluster, stored: StoredConfig) -> None:
    """A topic config read back after a write from the console, into the live snapshot."""
    config = EntityConfig(1, stored.config) if stored.zk_version is not None else None
    live.topic_config_read(stored.name, config)


def _offset(value: int | KzcError | None) -> int | None:
    """An offset the brokers returned; ``None`` for a partition whose leader answered with an error."""
    return value if isinstance(value, int) and value >= 0 else None
