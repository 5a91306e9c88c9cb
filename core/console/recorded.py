"""``RecordedBackend``: a ``ClusterBackend`` that serves one fixed ``ClusterSnapshot`` (a snapshot file, or
a synthetic layout), for the console's snapshot tests, demos and the responsiveness benchmark.

Nothing changes and nothing can be changed: it is read-only by default (``read_only=False`` lets the
console show its create and delete forms and previews; every write is still refused), ``subscribe``
replays the recorded events, and the ZooKeeper browser shows a tree rebuilt from the snapshot (data
re-encoded as the JSON Kafka writes). ``synthetic_snapshot`` builds a large, realistic layout (brokers on racks, a few
offline, under-replicated and pending-deletion topics) without any ZooKeeper.
"""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from core.console.checks import CheckEngines
from core.console.protocols import (
    CheckReport,
    ChildPage,
    ClusterEvent,
    CreatePlan,
    CreateRequest,
    DeletePlan,
    DeleteSelection,
    DeletionStatus,
    ExpandPlan,
    ExpandRequest,
    PartitionOffsets,
    ProgressListener,
    StateListener,
    Unsubscribe,
    ZnodeStat,
    ZnodeView,
)
from core.console.view import deletion_status
from core.errors import ConnectError, ReadOnlyError
from core.kafka.znodes import (
    BrokerRegistration,
    ClusterId,
    ControllerInfo,
    Endpoint,
    EntityConfig,
    PartitionState,
    TopicAssignment,
    Unreadable,
    classify,
    decode_data,
    explain,
)
from core.snapshot.model import BrokerEntry, ClusterSnapshot, TopicEntry, ZnodeTimes
from core.zookeeper.session import ConnectionState

RECORDED_REFUSAL = "this is a recorded snapshot: nothing can be changed"


class RecordedBackend:
    """Serves ``snapshot`` (and replays ``events``) as a read-only cluster; a Spark check run goes to
    ``spark_master`` with ``stage_dir`` (as ``--spark-master`` and ``--stage-dir``; default ``local[*]``)."""

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
    ) -> None:
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
        """Serve a snapshot file written by ``kzc snapshot`` (``core.snapshot.file``).

        Raises:
            UsageError: the file cannot be read or is not a kzc snapshot.
        """
        from core.snapshot.file import read_snapshot_file

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
        names = _children(self.snapshot(), path)
        page = names[offset : offset + limit]
        counts = tuple(len(_children(self.snapshot(), _join(path, n))) for n in page)
        return ChildPage(path, tuple(page), counts, offset, len(names))

    def znode(self, path: str) -> ZnodeView:
        """The re-encoded data of ``path``."""
        snapshot = self.snapshot()
        data = _data(snapshot, path)
        kids = _children(snapshot, path)
        if data is None and not kids and path != "/":
            return ZnodeView(path, exists=False)
        raw = data or b""
        decoded = decode_data(path, raw)
        kind = classify(path)
        stat = ZnodeStat(0, 0, 0, snapshot.taken_at_ms, snapshot.taken_at_ms, 0, 0, 0, 0, len(raw), len(kids))
        explained = tuple(explain(decoded.parsed)) if decoded.parsed is not None else ()
        return ZnodeView(
            path,
            True,
            stat,
            raw,
            decoded,
            kind.value if kind else None,
            explained,
            acl=(),
            acl_error="not recorded",
        )

    def watch_znode(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """A recording never changes."""
        return lambda: None

    # ---- TopicAdmin ----------------------------------------------------------------------------------

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None:
        """Called once, when a background build completes."""
        self._snapshot_listeners.append(listener)

    def _plan(self, request: CreateRequest | ExpandRequest | DeleteSelection) -> object:
        from core.console.plans import plan_for_recording

        blocked = RECORDED_REFUSAL if self._read_only else None
        return plan_for_recording(self.snapshot(), request, blocked)

    def plan_create(self, request: CreateRequest) -> CreatePlan:
        """Kafka's checks and assignment (``core.topics.plan``) against the recorded brokers and topics."""
        plan = self._plan(request)
        assert isinstance(plan, CreatePlan)
        return plan

    def apply_create(self, plan: CreatePlan) -> None:
        """Refused."""
        raise ReadOnlyError(RECORDED_REFUSAL)

    def plan_expand(self, request: ExpandRequest) -> ExpandPlan:
        """Kafka's checks and new partitions against the recorded topic."""
        plan = self._plan(request)
        assert isinstance(plan, ExpandPlan)
        return plan

    def apply_expand(self, plan: ExpandPlan) -> None:
        """Refused."""
        raise ReadOnlyError(RECORDED_REFUSAL)

    def plan_delete(self, selection: DeleteSelection) -> DeletePlan:
        """The selection and guards against the recorded topics."""
        plan = self._plan(selection)
        assert isinstance(plan, DeletePlan)
        return plan

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


# ---- the tree rebuilt from a snapshot ----------------------------------------------------------------


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


def encode_value(value: object) -> bytes:
    """A parsed znode value as the JSON (or text) Kafka writes for it."""
    if isinstance(value, Unreadable):
        return value.raw
    if isinstance(value, int):
        return str(value).encode()
    obj: dict[str, object]
    if isinstance(value, ControllerInfo):
        obj = {"version": value.version, "brokerid": value.broker_id, "timestamp": str(value.timestamp_ms or 0)}
        if value.kraft_controller_epoch is not None:
            obj["kraftControllerEpoch"] = value.kraft_controller_epoch
    elif isinstance(value, ClusterId):
        obj = {"version": value.version, "id": value.id}
    elif isinstance(value, BrokerRegistration):
        obj = {
            "listener_security_protocol_map": dict(value.listener_security_protocol_map or ()),
            "endpoints": [str(e) for e in value.endpoints],
            "jmx_port": value.jmx_port,
            "host": value.host,
            "timestamp": str(value.timestamp_ms or 0),
            "port": value.port,
            "version": value.version,
        }
        if value.rack is not None:
            obj["rack"] = value.rack
        if value.features is not None:
            obj["features"] = {n: {"min_version": a, "max_version": b} for n, a, b in value.features}
    elif isinstance(value, TopicAssignment):
        obj = {
            "partitions": {str(p): list(r) for p, r in value.partitions},
            "adding_replicas": {str(p): list(r) for p, r in value.adding},
            "removing_replicas": {str(p): list(r) for p, r in value.removing},
            "version": value.version,
        }
        if value.topic_id is not None:
            obj["topic_id"] = value.topic_id
    elif isinstance(value, PartitionState):
        obj = {
            "controller_epoch": value.controller_epoch,
            "leader": value.leader,
            "version": value.version,
            "leader_epoch": value.leader_epoch,
            "isr": list(value.isr),
        }
    elif isinstance(value, EntityConfig):
        obj = {"version": value.version, "config": dict(value.config)}
    else:
        return repr(value).encode()
    return json.dumps(obj, separators=(",", ":")).encode()


# ---- a synthetic cluster -----------------------------------------------------------------------------


def synthetic_snapshot(
    topics: int = 50_000,
    partitions_per_topic: int = 4,
    brokers: int = 6,
    racks: int = 3,
    replication_factor: int = 3,
    dead_brokers: Sequence[int] = (),
    seed: int = 7,
    taken_at_ms: int = 1_700_000_000_000,
) -> ClusterSnapshot:
    """A cluster of ``topics`` x ``partitions_per_topic`` partitions on ``brokers`` brokers.

    Realistic blemishes, deterministic for a seed: every 997th topic is under-replicated, every 4999th
    has an offline partition, every 9973th is queued for deletion, every 50th has config overrides;
    ``dead_brokers`` are left out of ``/brokers/ids`` (their replicas fall out of the ISRs).
    """
    rng = random.Random(seed)
    dead = frozenset(dead_brokers)
    broker_ids = list(range(1, brokers + 1))
    broker_entries: dict[int, BrokerEntry] = {}
    for b in broker_ids:
        if b in dead:
            continue
        endpoint = Endpoint("PLAINTEXT", "PLAINTEXT", f"kafka-{b}.example", 9092)
        registration = BrokerRegistration(
            b,
            5,
            endpoint.host,
            9092,
            -1,
            taken_at_ms - 86_400_000,
            (endpoint,),
            f"rack-{(b - 1) % racks + 1}",
            (("PLAINTEXT", "PLAINTEXT"),),
            (),
        )
        times = ZnodeTimes(1000 + b, 1000 + b, taken_at_ms - 86_400_000 + b * 1000, taken_at_ms - 86_400_000, 0)
        broker_entries[b] = BrokerEntry(b, registration, times)
    states_cache: dict[tuple[int, tuple[int, ...]], PartitionState] = {}

    def state(leader: int, isr: tuple[int, ...]) -> PartitionState:
        key = (leader, isr)
        found = states_cache.get(key)
        if found is None:
            found = states_cache[key] = PartitionState(leader, 3, isr, 5, 0, 1)
        return found

    topic_entries: dict[str, TopicEntry] = {}
    topic_configs: dict[str, EntityConfig | Unreadable] = {}
    markers: dict[str, ZnodeTimes] = {}
    n = len(broker_ids)
    empty_config = EntityConfig(1, ())
    for t in range(topics):
        name = f"{_WORDS[t % len(_WORDS)]}.{_WORDS[(t // len(_WORDS)) % len(_WORDS)]}-{t:05d}"
        start = rng.randrange(n)
        parts: list[tuple[int, tuple[int, ...]]] = []
        states: dict[int, PartitionState | Unreadable | None] = {}
        for p in range(partitions_per_topic):
            first = (start + p) % n
            replicas = tuple(broker_ids[(first + j) % n] for j in range(replication_factor))
            parts.append((p, replicas))
            isr = tuple(r for r in replicas if r not in dead)
            leader = isr[0] if isr else -1
            if t % 997 == 5 and p == 0 and len(isr) > 1:
                isr = isr[:-1]
            if t % 4999 == 11 and p == 1:
                leader, isr = -1, isr[:1]
            states[p] = state(leader, isr)
        assignment = TopicAssignment(name, 3, tuple(parts), (), (), f"{t:022d}")
        config: EntityConfig = empty_config
        if t % 50 == 0:
            config = EntityConfig(1, (("retention.ms", "604800000"), ("min.insync.replicas", "2")))
        topic_configs[name] = config
        times = ZnodeTimes(5000 + t, 5000 + t, taken_at_ms - 3_600_000, taken_at_ms - 3_600_000, 0)
        topic_entries[name] = TopicEntry(name, assignment, times, states, config)
        if t % 9973 == 17:
            markers[name] = ZnodeTimes(9_000_000 + t, 9_000_000 + t, taken_at_ms - 120_000, taken_at_ms - 120_000, 0)
    controller_id = next(b for b in broker_ids if b not in dead)
    return ClusterSnapshot(
        taken_at_ms=taken_at_ms,
        zookeeper="synthetic:2181/kafka",
        zxid=10_000_000,
        session_id=1,
        cluster_id=ClusterId("1", "c2ludGhldGljLWNsdXN0ZQ"),
        controller=ControllerInfo(controller_id, taken_at_ms - 7_200_000, 2, -1),
        controller_epoch=8,
        controller_epoch_zk_version=7,
        brokers=broker_entries,
        topics=topic_entries,
        deletion_markers=markers,
        reassignment=None,
        reassignment_times=None,
        preferred_election=None,
        preferred_election_times=None,
        topic_configs=topic_configs,
        broker_configs={},
        isr_change_notifications=(),
        log_dir_event_notifications=(),
        config_change_notifications=(),
        feature=None,
        migration=None,
        producer_id_block=None,
    )


_WORDS = (
    "orders",
    "payments",
    "clicks",
    "audit",
    "billing",
    "search",
    "inventory",
    "shipping",
    "users",
    "metrics",
    "logs",
    "events",
    "sessions",
    "alerts",
    "ledger",
    "profiles",
    "catalog",
    "pricing",
    "fraud",
    "reports",
)
