"""The console at a recorded moment (``kzc --at TIME``): a ``ClusterBackend`` served from the history store,
with no ZooKeeper connection at all.

The cluster at the moment is the one rule ``kzc diff`` uses (``core.history.diff.state_at``: the last snapshot
at or before it with every later event up to it applied, ``Replay``) turned into a snapshot
(``core.history.moment``), so the health counters and the likely cause are derived as for the live cluster. The
replay is kept: a step on applies only the events between the two moments, a step back replays from the latest
replay kept at or before the moment with the same base snapshot (the bases of the moments shown lately, and the
state where a step back across the moment's base snapshot lands, replayed ahead by ``prefetch`` once the moment is
drawn; a move that would start from a replay still being built waits for it: a base is never read twice at once),
and only the topics that changed get new entries, so the view re-tallies only them. The garbage collector waits
while a replay is built (``core.collector``).
The consumer groups' lag is the recorder's last tick at or before the moment (``core.history.group_lag``).
What the store does not record (znodes, configs, ACLs, quotas, users, log dirs) is said to be missing, never
made up; a moment in a gap of the recording, or after its data ends, shows no cluster and says
why. Nothing can be changed. Reading never takes the recorder's lock, so a running ``kzc record`` may keep
writing the store.
One concept, the console's backend at a recorded moment, so it may pass 600 lines: the moves and their kept
replays, and one short hand-off per member of the console's protocols.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from core.configs.broker import BrokerConfigsView
from core.consistency.findings import CheckReport
from core.console.checks import CheckEngines
from core.console.fixes import FixActions
from core.console.protocols import (
    ClusterEvent,
    DeletionStatus,
    GroupDetail,
    GroupsView,
    MessageStream,
    PartitionOffsets,
    ProgressListener,
    StateListener,
    Unsubscribe,
)
from core.console.security_actions import SecurityActions
from core.console.view import deletion_status
from core.errors import ConnectError, ReadOnlyError, UsageError
from core.groups.lag import GroupLag, LagTotal
from core.history.location import HistoryPlace
from core.human_time import utc_text
from core.kafka.quotas import EffectiveQuota
from core.messages.reader import TailRequest
from core.security.acls import AclListing, ResourceAccess
from core.security.quotas import QuotaListing
from core.security.users import UserListing
from core.snapshot.broker_view import BrokerLive, BrokerView
from core.snapshot.model import ClusterSnapshot, TopicEntry
from core.snapshot.sizes import SizesView
from core.topics.plan import CreatePlan, CreateRequest, DeletePlan, DeleteRequest, ExpandPlan, ExpandRequest
from core.traffic.ticker import TrafficView
from core.zookeeper.health import EnsembleHealth
from core.zookeeper.session import ConnectionState
from core.zookeeper.tree import ChildPage, ZnodeStatView, ZnodeView

if TYPE_CHECKING:  # the store's modules (pyarrow) load when a moment is read, not with the console
    from core.changes.timeline import Burst
    from core.history.diff import Replay
    from core.history.observations import Window
    from core.history.store import Gap, HistoryStore

MOMENT_REFUSAL = "this is a recorded moment: nothing can be changed"
NOT_RECORDED = "not in the history store"
MINUTE_MS = 60_000
AROUND_MS = 30 * MINUTE_MS  # the timeline at a moment: the changes this far either side
REPLAYS_KEPT = 4  # replays kept (each the moment's state, bounded): bases of the moments shown, and landings ahead


@dataclass(frozen=True, slots=True)
class Moment:
    """Where a moment falls in the recording: ``gap`` (the recorded gap it is in) or ``after_end_ms`` (it is
    after the store's data ends there) say that nothing is known of it; else the cluster is as recorded."""

    at_ms: int
    gap: Gap | None = None
    after_end_ms: int | None = None

    @property
    def known(self) -> bool:
        """Whether the store knows the cluster at this moment."""
        return self.gap is None and self.after_end_ms is None

    def marker(self) -> str:
        """What every screen says in place of its live marks: ``as of 03:12:00 (recorded)``, or why not known."""
        when = f"as of {utc_clock(self.at_ms)}"
        if self.gap is not None:
            return (
                f"{when}: in a gap of the recording ({utc_text(self.gap.from_ms)} to {utc_text(self.gap.to_ms)}: "
                f"{self.gap.reason}), nothing known"
            )
        if self.after_end_ms is not None:
            return f"{when}: after the recording ends ({utc_text(self.after_end_ms)}), nothing known"
        return f"{when} (recorded)"


def utc_clock(ms: int) -> str:
    """``03:12:00``: the UTC time of day of ``ms`` (moments are given in UTC, ``core.human_time.parse_moment``),
    ``03:12:00.350`` off the second: recorded changes are often less than a second apart, and a step must show
    that it moved."""
    clock = time.strftime("%H:%M:%S", time.gmtime(ms // 1000))
    return f"{clock}.{ms % 1000:03d}" if ms % 1000 else clock


def locate(store: HistoryStore, cluster: str, at_ms: int) -> Moment:
    """Where ``at_ms`` falls in ``cluster``'s recording.

    Raises:
        UsageError: the store holds nothing of ``cluster``, or ``at_ms`` is before the recording begins.
    """
    return _located(store, cluster, at_ms)[0]


def _located(store: HistoryStore, cluster: str, at_ms: int) -> tuple[Moment, Window]:
    """``locate``, with the window of the moment (its base snapshot, gaps and the end of the data)."""
    from core.history.observations import Window

    window = Window.of(store, cluster, at_ms, at_ms)
    if window.base_ms is None:
        raise UsageError(f"the history store {store.root} holds no snapshot of cluster {cluster}: nothing to show")
    if window.base_ms > at_ms:
        raise UsageError(
            f"{utc_text(at_ms)} is before the recording of cluster {cluster} begins ({utc_text(window.base_ms)})"
        )
    inside = next((g for g in window.gaps if g.from_ms <= at_ms < g.to_ms), None)
    if inside is not None:
        return Moment(at_ms, gap=inside), window
    if at_ms > window.data_end_ms:
        return Moment(at_ms, after_end_ms=window.data_end_ms), window
    return Moment(at_ms), window


def next_change(store: HistoryStore, cluster: str, after_ms: int) -> int | None:
    """The moment of the first recorded change after ``after_ms`` (None: none)."""
    from core.history.schema import EVENTS, HOUR_MS, hour_start_ms

    for hour in store.hours(EVENTS, cluster):
        start = hour_start_ms(hour)
        if start + HOUR_MS <= after_ms:
            continue
        found = [t for t in _event_moments(store, cluster, start) if t > after_ms]
        if found:
            return min(found)
    return None


def previous_change(store: HistoryStore, cluster: str, before_ms: int) -> int | None:
    """The moment of the last recorded change before ``before_ms`` (None: none)."""
    from core.history.schema import EVENTS, hour_start_ms

    for hour in reversed(store.hours(EVENTS, cluster)):
        start = hour_start_ms(hour)
        if start >= before_ms:
            continue
        found = [t for t in _event_moments(store, cluster, start) if t < before_ms]
        if found:
            return max(found)
    return None


def _event_moments(store: HistoryStore, cluster: str, hour_ms: int) -> set[int]:
    """Every moment an event was recorded in the hour starting at ``hour_ms``."""
    from core.history.observations import file_moments
    from core.history.schema import EVENTS, HOUR_MS

    return {t for path in store.files(EVENTS, cluster, hour_ms, hour_ms + HOUR_MS - 1) for t in file_moments(path)}


@dataclass(eq=False)
class _Building:
    """A replay being built: ``done`` is set once it is kept (or failed); ``waiters`` counts the moves that waited
    for it."""

    done: threading.Event = field(default_factory=threading.Event)
    waiters: int = 0


class MomentBackend:
    """The cluster ``cluster`` of ``store`` at ``at_ms``, read-only; ``move_to`` and the steps change the moment
    (blocking: call them from a worker), then the snapshot listeners are told."""

    def __init__(self, store: HistoryStore, cluster: str, at_ms: int) -> None:
        self.store = store
        self.cluster = cluster
        self._moment = Moment(at_ms)
        self._snapshot: ClusterSnapshot | None = None
        self._state = ConnectionState.CLOSED
        self._state_listeners: list[StateListener] = []
        self._snapshot_listeners: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        self._moving = threading.RLock()  # one move at a time: a worker may still run when the next key starts one
        # Replays kept, never changed (a move copies one): the bases of the moments shown lately and the states
        # ``prefetch`` replayed ahead, oldest first; a move back starts from the latest at or before its moment.
        self._kept: list[Replay] = []
        # Replays being built, by (base, moment): the base read of a move, the prefetch's landing. A move that
        # would start from one waits for it, so a base is never read twice at once (a step back pressed during
        # the prefetch read the base before again, in parallel with it).
        self._building: dict[tuple[int, int], _Building] = {}
        self._prefetching = threading.Lock()
        self._replay: Replay | None = None  # the state at the moment last known shown
        self._moments: dict[int, Moment] = {}  # the moments read lately, by their time (a snapshot's taken_at_ms)
        self._checks = CheckEngines()

    # ---- the moment ----------------------------------------------------------------------------------

    @property
    def moment(self) -> Moment:
        """The moment shown."""
        return self._moment

    def moment_of(self, snapshot: ClusterSnapshot) -> Moment:
        """The moment ``snapshot`` was read at: a view built before a move lands after it, and must say its own
        moment, not the one the backend moved to."""
        with self._lock:
            return self._moments.get(snapshot.taken_at_ms) or Moment(snapshot.taken_at_ms)

    def move_to(self, at_ms: int) -> Moment:
        """Show the cluster at ``at_ms`` (blocks: reads the store).

        Raises:
            UsageError: ``at_ms`` is before the recording begins (the moment shown stays).
        """
        moment = self._read(at_ms)
        for listener in list(self._snapshot_listeners):
            listener()
        return moment

    def _read(self, at_ms: int) -> Moment:
        """Read the cluster at ``at_ms`` from the store and keep it (blocks; raises as ``move_to``)."""
        from core.collector import collector_paused
        from core.history.diff import moment_name
        from core.history.moment import replay_snapshot

        with self._moving, collector_paused():
            moment, window = _located(self.store, self.cluster, at_ms)
            if moment.known:
                replay, changed = self._replay_to(window, at_ms)
                snapshot = replay_snapshot(moment_name(window, at_ms), replay.topics, replay.brokers,
                                           replay.controller, at_ms, self._snapshot, changed)  # fmt: skip
            else:
                snapshot = replay_snapshot(self.cluster, {}, {}, None, at_ms)
            with self._lock:
                self._moment, self._snapshot = moment, snapshot
                self._moments.pop(at_ms, None)
                self._moments[at_ms] = moment
                while len(self._moments) > 16:  # the views still on their way were built from these
                    del self._moments[next(iter(self._moments))]
        return moment

    def _replay_to(self, window: Window, at_ms: int) -> tuple[Replay, Collection[str]]:
        """The replay at ``at_ms`` and the topics whose partitions differ from the snapshot shown: a move on from
        the replay held applies only the events between the two moments (``Replay.advance``); any other (back, or
        past another base snapshot) starts from a copy of the latest replay kept at or before ``at_ms`` on the same
        base (else the base read, and kept), and compares the topics."""
        assert window.base_ms is not None
        held = self._replay
        if held is not None and held.base_ms == window.base_ms and held.at_ms <= at_ms:
            self._replay = None  # until it is whole again: a failed read leaves no half-applied replay
            changed = held.advance(self.store, at_ms)
            self._replay = held
            return held, changed
        replay = self._kept_at(window, at_ms).copy()
        replay.advance(self.store, at_ms)
        self._replay = replay
        shown = self._snapshot.topics if self._snapshot is not None and held is not None else {}
        before = held.topics if held is not None else {}
        return replay, {t for t, partitions in replay.topics.items() if t not in shown or before.get(t) != partitions}

    def _kept_at(self, window: Window, at_ms: int, own: tuple[int, int] | None = None) -> Replay:
        """The latest replay kept on ``window``'s base at or before ``at_ms`` (kept again as the newest), else the
        base read from the store and kept (blocks). A replay being built on that base at or before ``at_ms`` that
        would be later than any kept (not ``own``, the one the caller builds) is waited for, not built again."""
        from core.history.diff import replay_base

        base = window.base_ms
        assert base is not None
        while True:
            with self._lock:
                found = [r for r in self._kept if r.base_ms == base and r.at_ms <= at_ms]
                best = max(found, key=lambda r: r.at_ms) if found else None
                later = best.at_ms if best is not None else base - 1
                pending = [(at, b) for (on, at), b in self._building.items()
                           if on == base and later < at <= at_ms and (on, at) != own]  # fmt: skip
                if not pending:
                    if best is not None:
                        self._keep_locked(best)
                        return best
                    reading = self._building[(base, base)] = _Building()
                    break
                waited = max(pending, key=lambda p: p[0])[1]
                waited.waiters += 1
            waited.done.wait()  # then look again: it is kept, or it failed and is no longer built
        try:
            replay = replay_base(window)
            self._keep(replay)
            return replay
        finally:
            self._built((base, base), reading)

    def _built(self, key: tuple[int, int], building: _Building) -> None:
        """``building`` is over (kept, or failed): its waiters look again."""
        with self._lock:
            del self._building[key]
        building.done.set()

    def _keep(self, replay: Replay) -> None:
        with self._lock:
            self._keep_locked(replay)

    def _keep_locked(self, replay: Replay) -> None:
        if replay in self._kept:
            self._kept.remove(replay)
        self._kept.append(replay)  # the newest last
        del self._kept[:-REPLAYS_KEPT]

    def prefetch(self) -> None:
        """Replay ahead, and keep, the state where a step back across the base snapshot of the moment shown lands
        (the last change before it), so that step copies it instead of reading the base before (blocks: reads the
        store; the console calls it in a worker once the moment is drawn). Nothing when it is kept already, or
        the landing is not a recorded state (in a gap)."""
        if not self._prefetching.acquire(blocking=False):
            return  # one at a time: the one running serves the moment drawn last, or the next call will
        try:
            self._prefetch()
        finally:
            self._prefetching.release()

    def _prefetch(self) -> None:
        from core.collector import collector_paused

        with self._lock:
            held = self._replay
        if held is None:
            return
        landing = previous_change(self.store, self.cluster, held.base_ms)
        if landing is None:
            return
        with self._lock:
            if any(r.at_ms == landing and r.base_ms < held.base_ms for r in self._kept):
                return
        with collector_paused():
            moment, window = _located(self.store, self.cluster, landing)
            if not moment.known:
                return
            assert window.base_ms is not None
            if landing == window.base_ms:  # the base itself: its read is built once already
                self._kept_at(window, landing)
                return
            key = (window.base_ms, landing)
            with self._lock:
                building = self._building[key] = _Building()  # a step back pressed meanwhile waits for it
            try:
                replay = self._kept_at(window, landing, own=key).copy()
                replay.advance(self.store, landing)
                self._keep(replay)
            finally:
                self._built(key, building)

    def step(self, direction: int) -> Moment:
        """Move to the next (``direction`` > 0) or previous recorded change.

        Raises:
            UsageError: there is none that way (the moment shown stays).
        """
        with self._moving:  # from the moment the last move left
            at = self._moment.at_ms
            found = (
                next_change(self.store, self.cluster, at)
                if direction > 0
                else previous_change(self.store, self.cluster, at)
            )
            if found is None:
                raise UsageError(f"no recorded change {'after' if direction > 0 else 'before'} {utc_text(at)}")
            return self.move_to(found)

    def shift(self, minutes: int) -> Moment:
        """Move by ``minutes`` (negative: back).

        Raises:
            UsageError: that is before the recording begins (the moment shown stays).
        """
        with self._moving:
            return self.move_to(self._moment.at_ms + minutes * MINUTE_MS)

    def history_place(self) -> HistoryPlace:
        """The store and cluster this moment is read from (the timeline's incident report reads it too)."""
        return HistoryPlace(self.cluster, self.store.root, "the store of the recorded moment")

    def changes_around(self, span_ms: int = AROUND_MS) -> tuple[list[Burst], int]:
        """The recorded changes within ``span_ms`` either side of the moment, in bursts (newest first), and the
        moment (blocks: reads the store)."""
        from core.incident.report import recorded_bursts

        at = self._moment.at_ms
        return recorded_bursts(self.store, self.cluster, at - span_ms, at + span_ms), at

    # ---- Connection ----------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """The recorded cluster's name."""
        return self.cluster

    @property
    def read_only(self) -> bool:
        """Always: a recorded moment cannot be changed."""
        return True

    @property
    def state(self) -> ConnectionState:
        """CONNECTED once the moment is read (no ZooKeeper connection is ever made)."""
        return self._state

    def connect(self) -> None:
        """Read the moment from the store (blocks). Raises ``UsageError`` as ``move_to``.

        The snapshot listeners are not told: the console draws the first view when told it is connected. Told
        first, its view could come before the connection, which it would log as a reconnection."""
        self._read(self._moment.at_ms)
        self._state = ConnectionState.CONNECTED
        for listener in list(self._state_listeners):
            listener(self._state)

    def close(self) -> None:
        """Stop a Spark worker if the checks started one."""
        self._checks.close()
        self._state = ConnectionState.CLOSED

    def add_state_listener(self, listener: StateListener) -> None:
        """Call ``listener`` when the moment has been read."""
        self._state_listeners.append(listener)

    # ---- SnapshotSource / EventSource / TopicFollower ------------------------------------------------

    def snapshot(self) -> ClusterSnapshot:
        """The cluster at the moment."""
        with self._lock:
            if self._snapshot is None:
                raise ConnectError("the recorded moment is not read yet")
            return self._snapshot

    def add_snapshot_listener(self, listener: Callable[[], None]) -> None:
        """Call ``listener()`` whenever the moment shown changes."""
        self._snapshot_listeners.append(listener)

    def loading(self) -> str | None:
        """Never partial: the moment is read whole."""
        return None

    def subscribe(self, on_event: Callable[[ClusterEvent], None]) -> Unsubscribe:
        """A recorded moment has no live events."""
        return lambda: None

    def follow_topic(self, topic: str, on_change: Callable[[TopicEntry | None], None]) -> Unsubscribe:
        """The topic as recorded at the moment, once."""
        on_change(self.snapshot().topics.get(topic))
        return lambda: None

    # ---- ZnodeBrowser: the store records no znodes ---------------------------------------------------

    def children(self, path: str, offset: int = 0, limit: int = 500) -> ChildPage:
        """No children: the store records no znode tree."""
        return ChildPage(path, 0, (), offset, None, True, False, ZnodeStatView(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))

    def znode(self, path: str) -> ZnodeView | None:
        """None: the store records no znode."""
        return None

    def watch_znode(self, path: str, on_change: Callable[[str], None]) -> Unsubscribe:
        """A recorded moment never changes by itself."""
        return lambda: None

    # ---- TopicAdmin: every change refused ------------------------------------------------------------

    def plan_create(self, request: CreateRequest) -> CreatePlan:
        """Refused."""
        raise ReadOnlyError(MOMENT_REFUSAL)

    def apply_create(self, plan: CreatePlan) -> None:
        """Refused."""
        raise ReadOnlyError(MOMENT_REFUSAL)

    def plan_expand(self, request: ExpandRequest) -> ExpandPlan:
        """Refused."""
        raise ReadOnlyError(MOMENT_REFUSAL)

    def apply_expand(self, plan: ExpandPlan) -> None:
        """Refused."""
        raise ReadOnlyError(MOMENT_REFUSAL)

    def plan_delete(self, request: DeleteRequest) -> DeletePlan:
        """Refused."""
        raise ReadOnlyError(MOMENT_REFUSAL)

    def apply_delete(self, plan: DeletePlan, confirmation: str) -> None:
        """Refused."""
        raise ReadOnlyError(MOMENT_REFUSAL)

    def deletion_status(self, topics: tuple[str, ...]) -> tuple[DeletionStatus, ...]:
        """From the moment's snapshot."""
        snapshot = self.snapshot()
        return tuple(deletion_status(snapshot, t, snapshot.taken_at_ms) for t in topics)

    # ---- checks, offsets, fixes ----------------------------------------------------------------------

    def run_checks(self, progress: ProgressListener, engine: str = "local") -> CheckReport:
        """The checks on the moment's snapshot."""
        return self._checks.run(progress, engine, snapshot=self.snapshot())

    def offsets(self, topic: str) -> Mapping[int, PartitionOffsets] | None:
        """None: no brokers behind a recorded moment."""
        return None

    def fix_actions(self) -> FixActions | None:
        """None: nothing can be changed."""
        return None

    # ---- what the store does not record --------------------------------------------------------------

    def group_overview(self) -> GroupsView:
        """The groups' lag as of the last tick the recorder read them at or before the moment (and after the last
        gap before it); none, saying so, before the first tick or in a store without them (blocks: reads it)."""
        from core.groups.ops import lag_order
        from core.groups.recorded import groups_of_rows
        from core.history.group_lag import lag_tick_at

        moment = self._moment
        at = moment.at_ms
        if not moment.known:
            return GroupsView((), MappingProxyType({}), (moment.marker(),), at, recorded=moment.marker())
        since = max((g.to_ms for g in self.store.gaps(self.cluster) if g.to_ms <= at), default=0)
        found = lag_tick_at(self.store, self.cluster, at, since)
        if found is None:
            note = f"consumer groups' lag: not recorded at or before {utc_clock(at)}"
            return GroupsView((), MappingProxyType({}), (note,), at, recorded=note)
        tick, rows = found
        groups = tuple(sorted(groups_of_rows(rows, tick), key=lag_order))
        notes = tuple(str(r["unknown"]) for r in rows if r["group"] is None)
        return GroupsView(groups, MappingProxyType({}), notes, at, recorded=f"as of {utc_clock(tick)} (recorded)")

    def group_detail(self, group: str) -> GroupDetail:
        """Raises ``UsageError``: the recorded lag is shown on the groups screen, not per partition."""
        raise UsageError(
            f"consumer group '{group}': its partitions at a recorded moment are not shown (the groups "
            "screen shows its recorded lag)"
        )

    def groups_of_topic(self, topic: str) -> list[tuple[GroupLag, LagTotal]]:
        """The groups with committed offsets of ``topic`` as recorded (``group_overview``)."""
        return self.group_overview().of_topic(topic)

    def topic_access(self, topic: str) -> ResourceAccess:
        """Raises ``UsageError``: the store records no ACLs."""
        raise UsageError(f"ACLs: {NOT_RECORDED}")

    def acl_listing(self) -> AclListing:
        """Raises ``UsageError``: the store records no ACLs."""
        raise UsageError(f"ACLs: {NOT_RECORDED}")

    def quota_entities(self) -> QuotaListing:
        """Raises ``UsageError``: the store records no quotas."""
        raise UsageError(f"quotas: {NOT_RECORDED}")

    def scram_users(self) -> UserListing:
        """Raises ``UsageError``: the store records no SCRAM users."""
        raise UsageError(f"SCRAM users: {NOT_RECORDED}")

    def effective_quota(self, user: str, client_id: str) -> list[EffectiveQuota]:
        """Raises ``UsageError``: the store records no quotas."""
        raise UsageError(f"quotas: {NOT_RECORDED}")

    def security_actions(self) -> SecurityActions | None:
        """None: nothing can be changed."""
        return None

    def zookeeper_health(self) -> EnsembleHealth:
        """No servers: the store records no ZooKeeper health."""
        return EnsembleHealth((), (), (f"ZooKeeper's health: {NOT_RECORDED}",), at_ms=self._moment.at_ms)

    def broker_live(self, view: BrokerView) -> BrokerLive:
        """Nothing live at a recorded moment."""
        return BrokerLive(session_note=f"its session: {NOT_RECORDED}", log_note=f"its log dirs: {NOT_RECORDED}")

    def broker_configs(self, broker: int) -> BrokerConfigsView:
        """None: the store records no configs."""
        return BrokerConfigsView(broker, (), f"broker configs: {NOT_RECORDED}")

    def log_dirs(self, max_age_s: float = 0.0) -> SizesView:
        """None: the store records log dirs' use only with traffic, not per replica."""
        return SizesView(notes=(NOT_RECORDED,))

    def traffic(self, max_age_s: float = 0.0) -> TrafficView:
        """No rates shown at a moment yet (``kzc history traffic`` answers from the store)."""
        return TrafficView.of(None, self._moment.at_ms, "not shown at a recorded moment (kzc history traffic)", ())

    def open_messages(self, request: TailRequest) -> MessageStream:
        """Raises ``UsageError``: the store records no messages."""
        raise UsageError(f"messages: {NOT_RECORDED}")
