"""``RecordedBackend``: a ``ClusterBackend`` that serves one fixed ``ClusterSnapshot`` (a snapshot file, or
a synthetic layout), for the console's snapshot tests, demos and the responsiveness benchmark.

Nothing changes and nothing can be changed: it is read-only by default (``read_only=False`` lets the
console show its create and delete forms and previews; every write is still refused), ``subscribe``
replays the recorded events, and the ZooKeeper browser shows a tree rebuilt from the snapshot (data
re-encoded as the JSON Kafka writes). Plans are made with ``core.topics.plan``'s own rules against the
snapshot (``via`` is ``recording``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Route
from core.brokers.logdirs import BrokerLogDirs
from core.brokers.offsets import BrokerOffsets
from core.config import KafkaSecurity, MetricsUrls
from core.configs.broker import BrokerConfigRow, BrokerConfigsView
from core.configs.zk import StoredConfig
from core.consistency.findings import CheckReport
from core.console.checks import CheckEngines
from core.console.fixes import FixActions
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
from core.console.view import deletion_status
from core.errors import ConnectError, KzcError, ReadOnlyError, UsageError
from core.groups.lag import GroupLag, LagTotal
from core.groups.ops import lag_order
from core.groups.trend import LagTrend
from core.kafka.acls import Acl, AclBinding, ResourcePattern
from core.kafka.quotas import EffectiveQuota, QuotaEntity, effective_quotas, parse_quota
from core.kafka.scram import MECHANISMS, ScramCredentialInfo, check_iterations, check_mechanism
from core.kafka.znodes import Unreadable, decode_data
from core.kafka.znodes.encode import encode_value
from core.messages.reader import Message, TailRequest
from core.metrics.reader import BrokerMetrics, MetricsReader
from core.security.acls import ZK_TOOL as ACL_ZK_TOOL
from core.security.acls import AclListing, AclPlan, ResourceAccess, StoredAcls, access_of, acl_writes
from core.security.authorizer import AuthorizerState
from core.security.quotas import QUOTA_TOOL, QuotaListing, QuotaPath, QuotaPlan, entity_location
from core.security.users import CredentialPlan, ScramUser, UserListing, check_user
from core.snapshot.broker_view import BrokerLive, BrokerView, broker_live
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.snapshot.sizes import SizesView
from core.testdata.traffic import SyntheticTraffic
from core.topics.facts import ClusterFacts, LiveTopic
from core.topics.guard import read_only_reason
from core.topics.plan import (
    CreatePlan,
    CreateRequest,
    DeletePlan,
    DeleteRequest,
    ExpandPlan,
    ExpandRequest,
)
from core.topics.planning import plan_create, plan_delete, plan_expand, select_topics
from core.traffic.sample import Layout, Sample
from core.traffic.ticker import TICK_S, TrafficTicker, TrafficView
from core.zookeeper.health import EnsembleHealth
from core.zookeeper.session import ConnectionState
from core.zookeeper.tree import ChildPage, ZnodeStatView, ZnodeView

VIA_RECORDING = "recording"
RECORDED_REFUSAL = "this is a recorded snapshot: nothing can be changed"


class RecordedStream:
    """A read of recorded messages: each poll hands over the next batch; finished when none is left."""

    def __init__(self, messages: Sequence[Message], notes: tuple[str, ...]) -> None:
        self._left = list(messages)
        self.notes = notes
        self.headers_unsupported: str | None = None
        self.closed = False

    @property
    def finished(self) -> bool:
        """Whether every recorded message was handed over."""
        return not self._left

    def poll(self, timeout: float, batch: int = 200) -> list[Message]:
        """The next ``batch`` recorded messages (never waits)."""
        taken, self._left = self._left[:batch], self._left[batch:]
        return taken

    def close(self) -> None:
        """Nothing to leave."""
        self.closed = True


def _no_brokers(layout: Layout, timeout: float, now_ms: int, security: KafkaSecurity | None = None) -> Sample:
    """A tick of a recording: no broker to ask."""
    why = "a recording has no brokers"
    return Sample.of(
        layout,
        {b: BrokerOffsets(b, now_ms, unknown=why) for b in layout.endpoints},
        {b: BrokerLogDirs(b, now_ms, unknown=why) for b in layout.endpoints},
    )


class RecordedBackend:
    """Serves ``snapshot`` (and replays ``events``) as a read-only cluster; a Spark check run goes to
    ``spark_master`` with ``stage_dir`` (as ``--spark-master`` and ``--stage-dir``; default ``local[*]``);
    ``groups`` (with ``trends``) are the consumer groups it serves, none by default; ``zk_health`` the
    ZooKeeper ensemble health it serves (none by default); ``log_dirs`` the brokers' log dirs it serves (none
    by default: sizes are unknown, a recording has no brokers); ``messages`` the topics' messages it serves;
    ``acls`` the ACLs (and ``authorizer`` the brokers' authorizer), ``quotas`` the quota entities and ``users`` the
    SCRAM users (none by default);
    ``security_writes``: the security forms plan and apply against those (``RecordedSecurity`` records them);
    ``metrics_url``: where the brokers' metrics are served (a test's local HTTP server; none by default)."""

    def __init__(
        self,
        snapshot: ClusterSnapshot | Callable[[], ClusterSnapshot],
        events: Sequence[ClusterEvent] = (),
        name: str = "recorded",
        now_ms: Callable[[], int] | None = None,
        read_only: bool = True,
        preview: ClusterSnapshot | None = None,
        spark_master: str | None = None,
        stage_dir: str | None = None,
        groups: Sequence[GroupLag] = (),
        trends: Mapping[str, LagTrend] | None = None,
        zk_health: EnsembleHealth | None = None,
        log_dirs: Mapping[int, BrokerLogDirs] | None = None,
        messages: Sequence[Message] = (),
        broker_configs: Sequence[tuple[str, str, str]] = (),
        acls: Sequence[AclBinding] = (),
        authorizer: AuthorizerState | None = None,
        quotas: Mapping[QuotaEntity, Mapping[str, str]] | None = None,
        users: Sequence[ScramUser] = (),
        security_writes: bool = False,
        traffic: SyntheticTraffic | None = None,
        metrics_url: MetricsUrls | None = None,
    ) -> None:
        self.acls = tuple(acls)
        self.authorizer = authorizer  # the brokers' authorizer as recorded (None: not asked)
        self.quotas = dict(quotas or {})
        self.effective_reads = 0
        self.users = list(users)
        # The security forms' plans and writes, recorded (``RecordedSecurity``); None: not available here.
        self.security = RecordedSecurity(self) if security_writes else None
        self._broker_configs = tuple(broker_configs)
        self._messages = tuple(messages)
        self._groups = tuple(groups)
        self._zk_health = zk_health
        self._log_dirs = log_dirs
        self._traffic = TrafficTicker(KafkaSecurity(), now_ms, traffic.read if traffic is not None else _no_brokers)
        self._metrics = MetricsReader(metrics_url) if metrics_url is not None else None
        self._trends = dict(trends or {})
        self._source = snapshot
        self._snapshot: ClusterSnapshot | None = snapshot if isinstance(snapshot, ClusterSnapshot) else None
        self._preview = preview
        self._snapshot_listeners: list[Callable[[], None]] = []
        self._events = tuple(events)
        self._name = name
        self._state = ConnectionState.CLOSED
        self._listeners: list[StateListener] = []
        self._lock = threading.Lock()
        self._now_ms = now_ms
        self._read_only = read_only
        self._checks = CheckEngines(spark_master=spark_master, stage_dir=stage_dir)

    @classmethod
    def from_file(cls, path: Path) -> RecordedBackend:
        """Serve a snapshot file written by ``kzc snapshot`` (``core.snapshot.jsonl``).

        Raises:
            UsageError: the file cannot be read or is not a kzc snapshot.
        """
        from core.snapshot.jsonl.read import read_snapshot_file

        snapshot = read_snapshot_file(path)
        return cls(snapshot, name=f"recorded {path.name}")

    # ---- Connection ----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The name shown in the header."""
        return self._name

    @property
    def read_only(self) -> bool:
        """Read-only unless built with ``read_only=False`` (to preview plans); writes are refused anyway."""
        return self._read_only

    @property
    def state(self) -> ConnectionState:
        """CONNECTED once ``connect`` ran."""
        return self._state

    def connect(self) -> None:
        """Load the snapshot. A builder runs here, or, when a ``preview`` was given, in the background while
        ``snapshot()`` serves the preview (as a live backend serves brokers before its first full read)."""
        source = self._source
        if self._snapshot is None and callable(source):
            if self._preview is not None:
                self._snapshot = self._preview
                threading.Thread(target=self._build, args=(source,), name="kzc-recording", daemon=True).start()
            else:
                self._snapshot = source()
                self._source = self._snapshot
        self._set_state(ConnectionState.CONNECTED)

    def _build(self, source: Callable[[], ClusterSnapshot]) -> None:
        snapshot = source()
        with self._lock:
            self._snapshot, self._source = snapshot, snapshot
        for listener in list(self._snapshot_listeners):
            listener()

    def loading(self) -> str | None:
        """While a background build runs: what it builds."""
        return None if isinstance(self._source, ClusterSnapshot) else "building the recording"

    def close(self) -> None:
        """Stop a Spark worker if one ran."""
        self._checks.close()
        self._set_state(ConnectionState.CLOSED)

    def add_state_listener(self, listener: StateListener) -> None:
        """Call ``listener`` on state changes."""
        self._listeners.append(listener)

    def _set_state(self, state: ConnectionState) -> None:
        if state != self._state:
            self._state = state
            for listener in list(self._listeners):
                listener(state)

    # ---- SnapshotSource / EventSource / TopicFollower ------------------------------------------------

    def snapshot(self) -> ClusterSnapshot:
        """The recorded snapshot."""
        if self._snapshot is None:
            raise ConnectError("the recorded snapshot is not loaded yet")
        return self._snapshot

    def subscribe(self, on_event: Callable[[ClusterEvent], None]) -> Unsubscribe:
        """Replay the recorded events, then nothing."""
        for event in self._events:
            on_event(event)
        return lambda: None

    def follow_topic(self, topic: str, on_change: Callable[[TopicEntry | None], None]) -> Unsubscribe:
        """Report the recorded entry once."""
        on_change(self.snapshot().topics.get(topic))
        return lambda: None

    # ---- ZnodeBrowser --------------------------------------------------------------------------------

    def children(self, path: str, offset: int = 0, limit: int = 500) -> ChildPage:
        """Children of the tree rebuilt from the snapshot."""
        snapshot = self.snapshot()
        names = _children(snapshot, path)
        page = tuple(names[offset : offset + limit])
        counts = tuple(len(_children(snapshot, _join(path, n))) for n in page)
        return ChildPage(path, len(names), page, offset, None, True, False, self._stat(path, 0, len(names)), counts)

    def znode(self, path: str) -> ZnodeView | None:
        """The re-encoded data of ``path``."""
        snapshot = self.snapshot()
        data = _data(snapshot, path)
        kids = _children(snapshot, path)
        if data is None and not kids and path != "/":
            return None
        raw = data or b""
        stat = self._stat(path, len(raw), len(kids))
        return ZnodeView(path, stat, (), raw, decode_data(path, raw), acl_error="not recorded")

    def _stat(self, path: str, data_length: int, children: int) -> ZnodeStatView:
        """A stat for a rebuilt znode: only its size, child count and the recording's time are known."""
        taken = self.snapshot().taken_at_ms
        return ZnodeStatView(0, 0, 0, taken, taken, 0, 0, 0, 0, data_length, children)

    def watch_znode(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """A recording never changes."""
        return lambda: None

    # ---- TopicAdmin ----------------------------------------------------------------------------------

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None:
        """Called once, when a background build completes."""
        self._snapshot_listeners.append(listener)

    def fix_actions(self) -> FixActions | None:
        """A recording cannot be changed."""
        return None

    def _blocked(self) -> str | None:
        return RECORDED_REFUSAL if self._read_only else None

    def plan_create(self, request: CreateRequest) -> CreatePlan:
        """Kafka's checks and assignment (``core.topics.plan``) against the recorded brokers and topics."""
        return plan_create(facts_from_snapshot(self.snapshot()), request, via=VIA_RECORDING, blocked=self._blocked())

    def apply_create(self, plan: CreatePlan) -> None:
        """Refused."""
        raise ReadOnlyError(RECORDED_REFUSAL)

    def plan_expand(self, request: ExpandRequest) -> ExpandPlan:
        """Kafka's checks and new partitions against the recorded topic."""
        snapshot = self.snapshot()
        live = live_topic_from_snapshot(snapshot, request.topic)
        return plan_expand(facts_from_snapshot(snapshot), live, request, via=VIA_RECORDING, blocked=self._blocked())

    def apply_expand(self, plan: ExpandPlan) -> None:
        """Refused."""
        raise ReadOnlyError(RECORDED_REFUSAL)

    def plan_delete(self, request: DeleteRequest) -> DeletePlan:
        """The selection and guards against the recorded topics."""
        snapshot = self.snapshot()
        facts = facts_from_snapshot(snapshot)
        topics = select_topics(facts, request)
        live = {t: lt for t in topics if (lt := live_topic_from_snapshot(snapshot, t)) is not None}
        return plan_delete(
            facts,
            request,
            topics,
            live,
            via=VIA_RECORDING,
            delete_topic_enable=None,
            delete_topic_enable_source="a recording holds no broker config",
            blocked=self._blocked(),
        )

    def apply_delete(self, plan: DeletePlan, confirmation: str) -> None:
        """Refused."""
        raise ReadOnlyError(RECORDED_REFUSAL)

    def deletion_status(self, topics: tuple[str, ...]) -> tuple[DeletionStatus, ...]:
        """From the recorded snapshot."""
        now = self._now_ms() if self._now_ms else self.snapshot().taken_at_ms
        return tuple(deletion_status(self.snapshot(), t, now) for t in topics)

    # ---- CheckRunner / OffsetSource ------------------------------------------------------------------

    def run_checks(self, progress: ProgressListener, engine: str = "local") -> CheckReport:
        """The checks on the recorded snapshot (``local`` unless Spark is asked for)."""
        return self._checks.run(progress, engine, snapshot=self.snapshot())

    @property
    def check_engines(self) -> CheckEngines:
        """The engines ``run_checks`` uses; Spark runs where ``spark_master`` and ``stage_dir`` said."""
        return self._checks

    def offsets(self, topic: str) -> Mapping[int, PartitionOffsets] | None:
        """No brokers behind a recording."""
        return None

    # ---- GroupSource ---------------------------------------------------------------------------------

    def group_overview(self) -> GroupsView:
        """The groups given at construction (none by default: a snapshot holds no consumer offsets)."""
        note = () if self._groups else ("a recording holds no consumer groups",)
        now = self._now_ms() if self._now_ms else 0
        return GroupsView(tuple(sorted(self._groups, key=lag_order)), dict(self._trends), note, now)

    def group_detail(self, group: str) -> GroupDetail:
        """One of the given groups.

        Raises:
            UsageError: no such group in the recording.
        """
        for found in self._groups:
            if found.group == group:
                return GroupDetail(found, self._trends.get(group))
        raise UsageError(f"Consumer group '{group}' does not exist.")

    def groups_of_topic(self, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        """The given groups with partitions of ``topic``."""
        return self.group_overview().of_topic(topic)

    # ---- AclSource -----------------------------------------------------------------------------------

    def topic_access(self, topic: str) -> ResourceAccess:
        """``acls`` and ``authorizer`` hold what the recording serves: no ACL unless a test gives some."""
        return access_of(self.acl_listing(), "Topic", topic)

    # ---- SecuritySource ------------------------------------------------------------------------------

    def acl_listing(self) -> AclListing:
        """The recording's ``acls``, sorted as ``read_acls`` sorts them."""
        bindings = tuple(sorted(self.acls, key=lambda b: (b.pattern, b.acl)))
        return AclListing(bindings, path_reason="recorded", authorizer=self.authorizer)

    def quota_entities(self) -> QuotaListing:
        """The recording's ``quotas``."""
        return QuotaListing(dict(self.quotas), "ZooKeeper (recorded)")

    def scram_users(self) -> UserListing:
        """The recording's ``users``."""
        return UserListing(tuple(self.users), "recorded", "recorded")

    def effective_quota(self, user: str, client_id: str) -> list[EffectiveQuota]:
        """Kafka's precedence over the recording's ``quotas`` (counted in ``effective_reads``)."""
        self.effective_reads += 1
        return effective_quotas(self.quotas, user, client_id)

    # ---- BrokerSource --------------------------------------------------------------------------------

    def security_actions(self) -> RecordedSecurity | None:
        """The recorded ACL and SCRAM changes when built with ``security_writes``."""
        return self.security

    def broker_live(self, view: BrokerView) -> BrokerLive:
        """Nothing live behind a recording, but the log dirs given at construction."""
        dirs = (self._log_dirs or {}).get(view.broker_id)
        if dirs is not None:
            return broker_live(view, None, "a recording has no ZooKeeper session", dirs)
        return BrokerLive(session_note="a recording has no ZooKeeper session", log_note="a recording has no brokers")

    # ---- SizeSource ----------------------------------------------------------------------------------

    def log_dirs(self, max_age_s: float = 0.0) -> SizesView:
        """The log dirs given at construction; else none (a recording has no brokers to ask)."""
        now = self._now_ms() if self._now_ms else 0
        if self._log_dirs is None:
            return SizesView(notes=("no brokers in a recording",))
        return SizesView.of(self._log_dirs, now)

    # ---- TrafficSource -------------------------------------------------------------------------------

    def traffic(self, max_age_s: float = 0.0) -> TrafficView:
        """The next tick of the traffic given at construction (``core.testdata.traffic``), through the real ticker."""
        return self._traffic.tick(self.snapshot(), max_age_s)

    def traffic_sample(self, snapshot: ClusterSnapshot, now_ms: int) -> Sample:
        """A sample of the traffic given at construction, through the real ticker (the recorder's reads)."""
        return self._traffic.sample(snapshot, TICK_S)

    def broker_metrics(self, broker: int | None = None) -> tuple[BrokerMetrics, ...] | None:
        """The brokers' metrics from ``metrics_url`` through the real reader (None without one)."""
        return None if self._metrics is None else self._metrics.read(self.snapshot(), broker)

    def broker_configs(self, broker: int) -> BrokerConfigsView:
        """The broker configs given at construction (a recording holds none unless told)."""
        rows = tuple(BrokerConfigRow(k, v, s) for k, v, s in self._broker_configs)
        return BrokerConfigsView(broker, rows, None if rows else "a recording has no broker configs")

    # ---- MessageSource -------------------------------------------------------------------------------

    def open_messages(self, request: TailRequest) -> RecordedStream:
        """The messages given at construction for ``request``'s topic (and partition), from its offset on."""
        wanted = [
            m
            for m in self._messages
            if m.topic == request.topic
            and request.partition in (None, m.partition)
            and (request.offset is None or m.offset >= request.offset)
        ]
        if request.count is not None:
            wanted = wanted[: request.count]
        return RecordedStream(wanted, ("recorded messages",))

    # ---- ZkHealthSource ------------------------------------------------------------------------------

    def zookeeper_health(self) -> EnsembleHealth:
        """The ensemble health given at construction; else none (a recording has no servers to probe)."""
        if self._zk_health is not None:
            return self._zk_health
        now = self._now_ms() if self._now_ms else 0
        return EnsembleHealth((), (), ("a recording has no ZooKeeper servers to probe",), at_ms=now)


# ---- the tree rebuilt from a snapshot ----------------------------------------------------------------


class RecordedSecurity:
    """``SecurityActions`` on a recording: plans made by core's own plan types (an ACL plan with
    ``acl_writes``' znodes, as the ZooKeeper path writes them; a credential plan as the brokers' path sends it),
    applied to the backend's ``acls`` and ``users`` and kept in ``applied``; in read-only mode applying
    refuses with the CLI's message (``read_only_reason``). ``refusal``: what the next apply raises instead (a
    broker's refusal), changing nothing."""

    def __init__(self, backend: RecordedBackend) -> None:
        self.backend = backend
        self.applied: list[AclPlan | CredentialPlan | QuotaPlan] = []
        self.refusal: KzcError | None = None

    def _guard(self) -> None:
        if self.backend.read_only:
            reason = read_only_reason("--read-only", facts_from_snapshot(self.backend.snapshot()))
            raise ReadOnlyError(reason or "read-only")
        if self.refusal is not None:
            refusal, self.refusal = self.refusal, None
            raise refusal

    def plan_acl(self, action: str, pattern: ResourcePattern, acls: Sequence[Acl]) -> AclPlan:
        had = frozenset(b.acl for b in self.backend.acls if b.pattern == pattern)
        before = StoredAcls(pattern, had, 0 if had else None)
        requested = tuple(sorted(set(acls)))
        after = had | set(requested) if action == "add" else had - set(requested)
        plan = AclPlan(action, pattern, requested, before, frozenset(after))
        writes = acl_writes(plan, True) if plan.changes else ()
        return replace(plan, writes=writes, via_reason=f"a recording: written through ZooKeeper, {ACL_ZK_TOOL}")

    def apply_acl(self, plan: AclPlan) -> StoredAcls:
        self._guard()
        self.applied.append(plan)
        others = tuple(b for b in self.backend.acls if b.pattern != plan.pattern)
        self.backend.acls = others + tuple(AclBinding(plan.pattern, a) for a in sorted(plan.after))
        return StoredAcls(plan.pattern, plan.after, (plan.before.zk_version or 0) + 1)

    def _described(self, user: str) -> tuple[ScramCredentialInfo, ...]:
        return next((u.credentials for u in self.backend.users if u.name == user), ())

    def plan_password(self, user: str, mechanism: str, password: str, iterations: int) -> CredentialPlan:
        check_user(user)
        check_iterations(check_mechanism(mechanism), iterations)
        if not password:
            raise UsageError("the password is empty")
        return CredentialPlan(
            user, "set", (mechanism,), iterations, None, {}, VIA_ADMIN, "a recording", self._described(user), password
        )

    def plan_user_delete(self, user: str, mechanisms: Sequence[str]) -> CredentialPlan:
        check_user(user)
        chosen = tuple(check_mechanism(m) for m in mechanisms) or tuple(MECHANISMS)
        return CredentialPlan(user, "delete", chosen, None, None, {}, VIA_ADMIN, "a recording", self._described(user))

    def apply_credentials(self, plan: CredentialPlan) -> list[ScramCredentialInfo]:
        self._guard()
        self.applied.append(plan)
        kept = [c for c in self._described(plan.user) if c.mechanism not in plan.mechanisms]
        if plan.action == "set":
            kept += [ScramCredentialInfo(m, plan.iterations) for m in plan.mechanisms]
        users = [u for u in self.backend.users if u.name != plan.user]
        if kept:
            users.append(ScramUser(plan.user, tuple(sorted(kept, key=lambda c: c.mechanism))))
        self.backend.users = sorted(users, key=lambda u: u.name)
        return kept

    def plan_quota(self, entity: QuotaEntity, updates: Mapping[str, str], deletes: Sequence[str]) -> QuotaPlan:
        if not updates and not deletes:
            raise UsageError("give quotas to set (KEY=VALUE) or to delete (KEY)")
        values = {key: parse_quota(key, value, None) for key, value in updates.items()}
        had = dict(self.backend.quotas.get(entity, {}))
        entity_type, name = entity_location(entity)
        before = StoredConfig(entity_type, name, tuple(sorted(had.items())), 0 if had else None)
        after = {k: v for k, v in had.items() if k not in deletes} | values
        path = QuotaPath(Route(VIA_ZOOKEEPER, "a recording: written through ZooKeeper, " + QUOTA_TOOL))
        return QuotaPlan(entity, before, after, (), path)

    def apply_quota(self, plan: QuotaPlan) -> dict[str, str]:
        self._guard()
        self.applied.append(plan)
        if plan.after:
            self.backend.quotas[plan.entity] = dict(plan.after)
        else:
            self.backend.quotas.pop(plan.entity, None)
        return dict(plan.after)


def _join(parent: str, name: str) -> str:
    return f"/{name}" if parent == "/" else f"{parent}/{name}"


def _children(snapshot: ClusterSnapshot, path: str) -> list[str]:
    parts = [p for p in path.split("/") if p]
    if not parts:
        roots = {
            "admin",
            "brokers",
            "cluster",
            "config",
            "controller_epoch",
            "isr_change_notification",
            "log_dir_event_notification",
            "consumers",
            "latest_producer_id_block",
        }
        if snapshot.controller is not None:
            roots.add("controller")
        return sorted(roots)
    if parts == ["brokers"]:
        return ["ids", "seqid", "topics"]
    if parts == ["brokers", "ids"]:
        return sorted(str(b) for b in snapshot.brokers)
    if parts == ["brokers", "topics"]:
        return sorted(snapshot.topics)
    if len(parts) == 3 and parts[:2] == ["brokers", "topics"] and parts[2] in snapshot.topics:
        return ["partitions"]
    if len(parts) == 4 and parts[3] == "partitions" and parts[2] in snapshot.topics:
        return sorted((str(p) for p in snapshot.topics[parts[2]].states), key=int)
    if len(parts) == 5 and parts[3] == "partitions" and parts[2] in snapshot.topics:
        return ["state"] if snapshot.topics[parts[2]].states.get(int(parts[4])) is not None else []
    if parts == ["admin"]:
        kids = ["delete_topics"]
        if snapshot.reassignment is not None:
            kids.append("reassign_partitions")
        if snapshot.preferred_election is not None:
            kids.append("preferred_replica_election")
        return sorted(kids)
    if parts == ["admin", "delete_topics"]:
        return sorted(snapshot.deletion_markers)
    if parts == ["cluster"]:
        return ["id"] if snapshot.cluster_id is not None else []
    if parts == ["config"]:
        return ["brokers", "changes", "clients", "ips", "topics", "users"]
    if parts == ["config", "topics"]:
        return sorted(snapshot.topic_configs)
    if parts == ["config", "brokers"]:
        return sorted(snapshot.broker_configs)
    if parts == ["config", "changes"]:
        return [n.name for n in snapshot.config_change_notifications]
    if parts == ["isr_change_notification"]:
        return [n.name for n in snapshot.isr_change_notifications]
    if parts == ["log_dir_event_notification"]:
        return [n.name for n in snapshot.log_dir_event_notifications]
    return []


def _data(snapshot: ClusterSnapshot, path: str) -> bytes | None:
    parts = [p for p in path.split("/") if p]
    value: object = None
    if parts == ["controller"]:
        value = snapshot.controller
    elif parts == ["controller_epoch"]:
        value = snapshot.controller_epoch
    elif parts == ["cluster", "id"]:
        value = snapshot.cluster_id
    elif len(parts) == 3 and parts[:2] == ["brokers", "ids"] and parts[2].isdigit():
        entry = snapshot.brokers.get(int(parts[2]))
        value = entry.registration if entry else None
    elif len(parts) == 3 and parts[:2] == ["brokers", "topics"]:
        topic = snapshot.topics.get(parts[2])
        value = topic.assignment if topic else None
    elif len(parts) == 6 and parts[:2] == ["brokers", "topics"] and parts[5] == "state":
        topic = snapshot.topics.get(parts[2])
        value = topic.states.get(int(parts[4])) if topic and parts[4].isdigit() else None
    elif len(parts) == 3 and parts[:2] == ["config", "topics"]:
        value = snapshot.topic_configs.get(parts[2])
    elif len(parts) == 3 and parts[:2] == ["config", "brokers"]:
        value = snapshot.broker_configs.get(parts[2])
    elif len(parts) == 3 and parts[:2] == ["admin", "delete_topics"]:
        return b"" if parts[2] in snapshot.deletion_markers else None
    if value is None:
        return None
    return encode_value(value)


# ---- a snapshot as the facts of a live cluster ---------------------------------------------------------


def facts_from_snapshot(snapshot: ClusterSnapshot) -> ClusterFacts:
    """The ``ClusterFacts`` topic plans need, taken from a snapshot (topic order: sorted names)."""
    return ClusterFacts(
        brokers={b: entry.registration for b, entry in snapshot.brokers.items()},
        topic_names=frozenset(snapshot.topics),
        topic_order=tuple(sorted(snapshot.topics)),
        marked_for_deletion=frozenset(snapshot.deletion_markers),
        controller=snapshot.controller,
        controller_zk_version=None,
        migration=snapshot.migration,
        reassignment=snapshot.reassignment,
    )


def live_topic_from_snapshot(snapshot: ClusterSnapshot, topic: str) -> LiveTopic | None:
    """A snapshot's topic as the plans read it (bytes re-encoded as Kafka writes them)."""
    entry = snapshot.topics.get(topic)
    if entry is None:
        return None
    raw = entry.assignment.raw if isinstance(entry.assignment, Unreadable) else encode_value(entry.assignment)
    return LiveTopic(topic, entry.assignment, raw, entry.times.version)
