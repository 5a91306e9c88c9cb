"""Reading every context of the config file at once, each with its own deadline (``kzc fleet``).

Each cluster is read on its own daemon thread by the same functions the single-cluster commands use; the
caller waits at most the deadline for all of them. A cluster whose ZooKeeper hangs (a stopped process
accepts the connection and never answers) is reported as ``no answer in N s`` at the deadline, saying what
its read was doing; its thread is left to give up on its own (it closes its session when its connect or
read times out) and never holds the others or kzc's exit up (``core.interrupt.leave_behind``).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace
from functools import partial

from core.brokers.capabilities import Capabilities, read_capabilities
from core.brokers.group_admin import GroupAdmin
from core.changes.timeline import bursts, dated_changes
from core.config import ConnectionSettings
from core.errors import AuthError, ConnectError, KzcError
from core.fleet.row import (
    AUTH_FAILED,
    CONFIG_ERROR,
    DEGRADED,
    NO_BROKERS,
    OFFLINE,
    OK,
    READ_FAILED,
    UNREACHABLE,
    WRONG_CHROOT,
    FleetRow,
    mark_duplicates,
    no_answer,
    unreadable,
    worst_first,
)
from core.groups.lag import lagging
from core.groups.ops import GroupOps
from core.human_time import utc_text
from core.interrupt import leave_behind
from core.kafka.znodes.paths import BROKER_IDS, CONTROLLER, TOPICS
from core.migration.status import ask_brokers, migration_advancing, migration_status, needs_advance_check
from core.snapshot.health import assess
from core.snapshot.kraft import with_kraft_brokers
from core.snapshot.likely_cause import read_likely_cause
from core.snapshot.model import ClusterSnapshot
from core.snapshot.read_attempt import denied
from core.snapshot.reader import SnapshotReader
from core.snapshot.release import cluster_release
from core.snapshot.static_min_isr import read_static_min_isr
from core.snapshot.summary import ClusterSummary, summarize
from core.zookeeper.health import PROBE_TIMEOUT_S, EnsembleHealth, headline, probe_ensemble, summary_line, tls_context
from core.zookeeper.kafka_root import NoKafkaCluster, open_kafka_session
from core.zookeeper.session import ZkSession

DEFAULT_DEADLINE_S = 10.0
KAFKA_TIMEOUT_S = 5.0  # each request to the brokers (they are asked only with a bootstrap server, or for a cause)
_REFUSED = ("connection refused",)


class _Stage:
    """What a context's read is doing now, for the reason of a row that misses its deadline (any thread)."""

    def __init__(self) -> None:
        self.text = "probing ZooKeeper"

    def __call__(self, text: str) -> None:
        self.text = text


def now_ms() -> int:
    """The wall clock in milliseconds."""
    return int(time.time() * 1000)


# What a whole read saw besides its row: the snapshot and the brokers' ApiVersions (the fleet screen's follower
# asks them again while one does not answer, ``core.fleet.follow``).
Seen = Callable[[FleetRow, ClusterSnapshot, Capabilities], None]


def read_row(
    context: str,
    settings: ConnectionSettings,
    deadline_s: float,
    stage: Callable[[str], None],
    seen: Seen | None = None,
) -> FleetRow:
    """One context's row: ZooKeeper's own health, then one snapshot read, then the brokers where they are set;
    ``seen`` is given what a read that succeeded saw.

    Never raises: a failure is the row's state and reason. Blocks while ZooKeeper hangs (the caller's deadline
    reports it).
    """
    started = time.monotonic()
    at = now_ms()
    zookeeper = str(settings.zookeeper) if settings.zookeeper is not None else None
    if settings.zookeeper is None:
        return unreadable(context, None, CONFIG_ERROR, f"context '{context}' names no zookeeper", at)
    try:
        health = probe(settings, deadline_s)
        if (reason := refused(health)) is not None:
            return unreadable(context, zookeeper, UNREACHABLE, reason, at)
        stage("connecting to ZooKeeper")
        remaining = max(0.1, deadline_s - (time.monotonic() - started))
        # One more second than the deadline: a hung ZooKeeper is reported by the caller, not by this timeout.
        with open_kafka_session(settings, connect_timeout=remaining + 1.0) as session:
            stage("reading the cluster from ZooKeeper")
            snapshot = SnapshotReader(session).read()
            if (unlisted := uncountable(snapshot)) is not None:
                return unreadable(context, zookeeper, *unlisted, at)
            advancing = None
            if needs_advance_check(snapshot):
                stage("watching /migration")
                advancing = migration_advancing(session)
            groups = None
            if settings.bootstrap_servers:
                stage("reading the consumer groups' lag from the brokers")
                groups = _lagging_groups(settings, session)
        stage("asking the brokers")
        return _row(context, settings, snapshot, health, advancing, groups, started, at, seen)
    except Exception as exc:  # one cluster's surprise must not cost the other rows
        return unreadable(context, zookeeper, *failure(exc), at)


def failure(exc: Exception) -> tuple[str, str]:
    """The state and reason of a cluster whose read raised ``exc`` (a fleet row, ``kzc check --contexts``)."""
    if isinstance(exc, NoKafkaCluster):
        return WRONG_CHROOT, str(exc)
    if isinstance(exc, AuthError):
        return AUTH_FAILED, str(exc)
    if isinstance(exc, ConnectError):
        return UNREACHABLE, str(exc)
    if isinstance(exc, KzcError):
        return READ_FAILED, str(exc)
    return READ_FAILED, f"{type(exc).__name__}: {exc}"


def uncountable(snapshot: ClusterSnapshot) -> tuple[str, str] | None:
    """The state and reason of a cluster whose brokers or topics could not be listed (its counts would say 0
    where kzc saw nothing): ``auth failed`` when ZooKeeper's ACLs refused the credentials; None when both were
    listed."""
    unlisted = next((u for u in snapshot.unreadable if u.path in (BROKER_IDS, TOPICS)), None)
    if unlisted is None:
        return None
    return (AUTH_FAILED if denied(unlisted) else READ_FAILED), unlisted.reason


def probe(settings: ConnectionSettings, deadline_s: float) -> EnsembleHealth:
    """``kzc zk health``'s probe of the context's ensemble, within the deadline."""
    assert settings.zookeeper is not None
    return probe_ensemble(
        settings.zookeeper,
        timeout=min(PROBE_TIMEOUT_S, deadline_s),
        admin_port=settings.zk_admin_port,
        tls=tls_context(settings),
    )


def refused(health: EnsembleHealth) -> str | None:
    """Why the cluster cannot be read when every server refused the connection (a session would retry until
    its timeout); None otherwise."""
    down = [s for s in health.servers if not s.reachable]
    if down and len(down) == len(health.servers) and all(s.error in _REFUSED for s in down):
        return "ZooKeeper refused: " + "; ".join(f"{s.server} {s.error}" for s in down)
    return None


def _lagging_groups(settings: ConnectionSettings, session: ZkSession) -> int | None:
    """``core.groups.lag.lagging`` over ``kzc groups``' read (None when the brokers cannot be read)."""
    assert settings.bootstrap_servers
    admin = GroupAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=KAFKA_TIMEOUT_S)
    try:
        overview = GroupOps(admin, session, settings).overview()
        return lagging(overview.groups)
    except KzcError:
        return None
    finally:
        admin.close()


def _row(
    context: str,
    settings: ConnectionSettings,
    snapshot: ClusterSnapshot,
    health: EnsembleHealth,
    advancing: bool | None,
    groups: int | None,
    started: float,
    at: int,
    seen: Seen | None,
) -> FleetRow:
    """The row from what ``kzc describe``, ``kzc zk health``, ``kzc migration`` and ``kzc changes`` compute."""
    security, bootstrap = settings.kafka_security, settings.bootstrap_servers
    snapshot = with_kraft_brokers(snapshot, bootstrap, security)
    static = read_static_min_isr(bootstrap, security, snapshot.brokers, KAFKA_TIMEOUT_S)
    summary = summarize(snapshot, assess(snapshot, static))
    cause = read_likely_cause(snapshot, security, live=True, timeout=KAFKA_TIMEOUT_S)
    status = migration_status(
        snapshot, ask_brokers(bootstrap, security, snapshot.brokers, KAFKA_TIMEOUT_S), advancing, readiness=False
    )
    registrations = {b: entry.registration for b, entry in snapshot.brokers.items()}
    capabilities = read_capabilities(registrations, KAFKA_TIMEOUT_S, security)
    newest = next(iter(bursts(dated_changes(snapshot))), None)
    alarm = headline(health)
    state, reason = _state(summary, alarm)
    h = summary.health
    row = FleetRow(
        context=context,
        zookeeper=str(settings.zookeeper),
        state=state,
        reason=reason,
        cluster_id=summary.cluster_id,
        controller=summary.controller.broker_id,
        brokers_alive=len(summary.brokers) + len(summary.kraft_brokers),
        brokers_known=len(summary.brokers) + len(summary.kraft_brokers) + len(summary.missing_brokers),
        release=cluster_release(snapshot, capabilities),
        topics=summary.topics,
        partitions=summary.partitions,
        offline=h.offline_partitions,
        under_replicated=h.under_replicated_partitions,
        under_min_isr=h.under_min_isr_partitions,
        zookeeper_quorum=summary_line(health) if health.servers else None,
        zookeeper_alarm=alarm[0] if alarm is not None and alarm[1] != "ok" else None,
        zookeeper_severity=alarm[1] if alarm is not None else None,
        migration=status.phase.label,
        last_change_ms=newest.end_ms if newest is not None else None,
        last_change=f"{utc_text(newest.end_ms)}  {newest.text}" if newest is not None else None,
        likely_cause=cause.text if cause is not None else None,
        lagging_groups=groups,
        read_s=round(time.monotonic() - started, 3),
        at_ms=at,
    )
    if seen is not None:
        seen(row, snapshot, capabilities)
    return row


def _state(summary: ClusterSummary, alarm: tuple[str, str] | None) -> tuple[str, str | None]:
    """The row's state and its reason from the describe counts and ZooKeeper's worst alarm."""
    h = summary.health
    if not summary.brokers and not summary.kraft_brokers:
        return NO_BROKERS, "no broker is registered in /brokers/ids"
    if h.offline_partitions:
        return OFFLINE, f"{h.offline_partitions:,} partition(s) without a live leader"
    problems = []
    if summary.missing_brokers:
        ids = ", ".join(map(str, summary.missing_brokers))
        problems.append(f"broker(s) {ids} hold replicas but are not registered")
    if summary.controller.broker_id is None:
        problems.append(f"no active controller ({summary.controller.problem or f'{CONTROLLER} is absent'})")
    if h.under_replicated_partitions:
        problems.append(f"{h.under_replicated_partitions:,} under-replicated partition(s)")
    if h.under_min_isr_partitions:
        problems.append(f"{h.under_min_isr_partitions:,} partition(s) under min ISR")
    if h.unreadable_znodes:
        problems.append(f"{h.unreadable_znodes:,} znode(s) unreadable")
    if alarm is not None and alarm[1] == "error":
        problems.append(alarm[0])
    return (DEGRADED, "; ".join(problems)) if problems else (OK, None)


@dataclass
class _Read:
    """One context's read in progress: its thread's stage and where its row goes."""

    stage: _Stage
    thread: threading.Thread


class FleetReader:
    """Reads every context in parallel, each within ``deadline_s``; again and again for ``--watch``.

    A context whose previous read is still blocked is not read again (no thread piles up behind a hung
    ZooKeeper): it stays ``no answer in N s`` until that read ends.

    Args:
        contexts: each context's settings, or why it is unusable (a bad key, an unreadable secret file).
        seen: given each context's name and what its read saw, when it succeeded (on the read's thread).
    """

    def __init__(
        self,
        contexts: Mapping[str, ConnectionSettings | str],
        deadline_s: float,
        seen: Callable[[str, FleetRow, ClusterSnapshot, Capabilities], None] | None = None,
    ) -> None:
        self.contexts = dict(contexts)
        self.deadline_s = deadline_s
        self.seen = seen
        self._busy: dict[str, _Read] = {}
        self._lock = threading.Lock()

    def read(
        self, on_row: Callable[[FleetRow], None] | None = None, only: Collection[str] | None = None
    ) -> list[FleetRow]:
        """Every context's row (or ``only`` these contexts'), worst first, within the deadline; ``on_row`` sees
        each row as it arrives."""
        started = time.monotonic()
        results: queue.Queue[FleetRow] = queue.Queue()
        rows: dict[str, FleetRow] = {}
        waiting: set[str] = set()
        contexts = {n: s for n, s in self.contexts.items() if only is None or n in only}
        for name, settings in contexts.items():
            if isinstance(settings, str):
                rows[name] = unreadable(name, None, CONFIG_ERROR, settings, now_ms())
                continue
            with self._lock:
                if name in self._busy:
                    continue  # still blocked since an earlier read: reported as not answering below
            waiting.add(name)
            self._start(name, settings, results)
        for row in rows.values():
            if on_row is not None:
                on_row(row)
        while waiting:
            remaining = self.deadline_s - (time.monotonic() - started)
            try:  # past the deadline, only the rows already there
                row = results.get(timeout=remaining) if remaining > 0 else results.get_nowait()
            except queue.Empty:
                break
            waiting.discard(row.context)
            rows[row.context] = row
            if on_row is not None:
                on_row(row)
        for name, settings in contexts.items():
            if name in rows or isinstance(settings, str):
                continue
            with self._lock:
                busy = self._busy.get(name)
            row = no_answer(name, str(settings.zookeeper), self.deadline_s, now_ms())
            if busy is not None:
                row = _still(row, busy.stage.text)
            rows[name] = row
            if on_row is not None:
                on_row(row)
        if self._busy_names():
            leave_behind()
        return worst_first(mark_duplicates(list(rows.values())))

    def _busy_names(self) -> set[str]:
        with self._lock:
            return set(self._busy)

    def _start(self, name: str, settings: ConnectionSettings, results: queue.Queue[FleetRow]) -> None:
        stage = _Stage()

        def work() -> None:
            try:
                seen = partial(self.seen, name) if self.seen is not None else None
                results.put(read_row(name, settings, self.deadline_s, stage, seen))
            finally:
                with self._lock:
                    self._busy.pop(name, None)

        thread = threading.Thread(target=work, name=f"kzc-fleet-{name}", daemon=True)
        with self._lock:
            self._busy[name] = _Read(stage, thread)
        thread.start()


def _still(row: FleetRow, stage: str) -> FleetRow:
    """A no-answer row that says what its read was doing at the deadline."""
    reason = f"no answer within the deadline ({row.deadline_s:g} s) while {stage}; the read goes on in the background"
    return replace(row, reason=reason)
