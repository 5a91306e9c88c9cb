"""``kzc check --contexts``: the check catalog over every context of the config file, and the fleet's own findings.

Every context's snapshot is read in parallel, each within the deadline (as ``kzc fleet`` reads its rows): a
cluster that cannot be read, or has not answered by then, is listed with its state and reason and never
delays the others. The catalog then runs on each snapshot with the engine given (the Spark engine checks
them all in one job of its warm worker), every finding tagged with its context. The fleet's own findings
compare the clusters with one another (``fleet_findings``): one rule, in plain Python on the snapshots,
whichever engine ran the catalog, so both engines report them identically.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from core.config import ConnectionSettings
from core.consistency.catalog import Severity
from core.consistency.findings import CheckReport, Evidence, canonical_evidence
from core.consistency.params import CheckParams
from core.consistency.pipeline import CheckRequest, Engine, run_checks_many
from core.errors import KzcError
from core.fleet.read import failure, probe, refused
from core.fleet.row import CONFIG_ERROR, NO_ANSWER, UNREACHABLE
from core.interrupt import leave_behind
from core.kafka.znodes import BrokerRegistration
from core.kafka.znodes.brokers import releases_of_registration
from core.kafka.znodes.cluster_wide import ClusterId
from core.kafka.znodes.configs import EntityConfig
from core.kafka.znodes.topics import TopicAssignment
from core.snapshot.model import ClusterSnapshot
from core.snapshot.reader import SnapshotReader
from core.zookeeper.kafka_root import open_kafka_session

K = TypeVar("K")

CHECKED = "checked"

# The fleet's own checks, in report order, with their severity.
LISTED_TWICE = "fleet_cluster_listed_twice"
MIRROR_DIFFERS = "fleet_mirror_differs"
RELEASE_BEHIND = "fleet_release_behind"
BROKER_ID_SHARED = "fleet_broker_id_shared"
FLEET_CHECKS: dict[str, Severity] = {
    MIRROR_DIFFERS: Severity.WARNING,
    RELEASE_BEHIND: Severity.WARNING,
    LISTED_TWICE: Severity.INFO,
    BROKER_ID_SHARED: Severity.INFO,
}
_ORDER = {check: index for index, check in enumerate(FLEET_CHECKS)}


@dataclass(frozen=True)
class ClusterChecked:
    """One context's part of the run: its report, or the state and reason it could not be checked."""

    context: str
    zookeeper: str | None
    state: str  # CHECKED, or a fleet row state (core.fleet.row): no answer, unreachable, wrong chroot...
    reason: str | None = None
    report: CheckReport | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"context", "zookeeper", "state", "reason", "summary"}`` (summary as ``kzc check --json``'s)."""
        return {
            "context": self.context,
            "zookeeper": self.zookeeper,
            "state": self.state,
            "reason": self.reason,
            "summary": self.report.summary() if self.report is not None else None,
        }


@dataclass(frozen=True)
class FleetFinding:
    """A finding about the clusters together: which contexts it names, on which topic or broker id."""

    check: str
    contexts: tuple[str, ...]
    detail: str
    topic: str | None = None
    broker: int | None = None
    evidence: Evidence = ()

    @property
    def severity(self) -> Severity:
        """The check's severity (``FLEET_CHECKS``)."""
        return FLEET_CHECKS[self.check]

    def sort_key(self) -> tuple[int, int, str, int, tuple[str, ...]]:
        """Errors first, then check order, topic, broker id, contexts."""
        return (self.severity.rank, _ORDER[self.check], self.topic or "", self.broker or -1, self.contexts)

    def to_json(self) -> dict[str, Any]:
        """The finding as in ``kzc check --contexts --json``'s ``fleet_findings``."""
        return {
            "check": self.check,
            "severity": self.severity.value,
            "contexts": list(self.contexts),
            "topic": self.topic,
            "broker": self.broker,
            "detail": self.detail,
            "evidence": {k: list(v) if isinstance(v, tuple) else v for k, v in self.evidence},
        }


@dataclass(frozen=True)
class FleetCheckReport:
    """Every context's part (by context name) and the fleet's findings."""

    clusters: tuple[ClusterChecked, ...]
    fleet_findings: tuple[FleetFinding, ...]
    engine: str
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def has_errors(self) -> bool:
        """An error finding anywhere, or a cluster that could not be checked (``kzc check`` exits 1)."""
        return any(c.report is None or c.report.has_errors for c in self.clusters) or any(
            f.severity is Severity.ERROR for f in self.fleet_findings
        )

    def to_json(self) -> dict[str, Any]:
        """``{"findings": [... each with "context"], "fleet_findings", "clusters", "engine", "timings"}``."""
        return {
            "findings": [
                {"context": c.context, **f.to_json()} for c in self.clusters if c.report for f in c.report.findings
            ],
            "fleet_findings": [f.to_json() for f in self.fleet_findings],
            "clusters": [c.to_json() for c in self.clusters],
            "engine": self.engine,
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }


def read_snapshots(
    contexts: Mapping[str, ConnectionSettings | str], deadline_s: float
) -> tuple[dict[str, ClusterSnapshot], dict[str, ClusterChecked]]:
    """Every context's snapshot, read in parallel within ``deadline_s``, and the contexts that gave none.

    A read still blocked at the deadline (a hung ZooKeeper) is left to its daemon thread, as ``kzc fleet``
    leaves it (``core.fleet.read``).
    """
    results: queue.Queue[tuple[str, ClusterSnapshot | ClusterChecked]] = queue.Queue()
    failed: dict[str, ClusterChecked] = {}
    waiting: dict[str, ConnectionSettings] = {}
    for name, settings in contexts.items():
        if isinstance(settings, str):
            failed[name] = ClusterChecked(name, None, CONFIG_ERROR, settings)
        elif settings.zookeeper is None:
            failed[name] = ClusterChecked(name, None, CONFIG_ERROR, f"context '{name}' names no zookeeper")
        else:
            waiting[name] = settings
            threading.Thread(
                target=_read_one, args=(name, settings, deadline_s, results), name=f"kzc-check-{name}", daemon=True
            ).start()
    snapshots: dict[str, ClusterSnapshot] = {}
    started = time.monotonic()
    while len(snapshots) + len(failed) < len(contexts):
        remaining = deadline_s - (time.monotonic() - started)
        try:
            name, got = results.get(timeout=remaining) if remaining > 0 else results.get_nowait()
        except queue.Empty:
            break
        if isinstance(got, ClusterChecked):
            failed[name] = got
        else:
            snapshots[name] = got
    for name, settings in waiting.items():
        if name not in snapshots and name not in failed:
            reason = f"ZooKeeper did not answer within the deadline ({deadline_s:g} s)"
            failed[name] = ClusterChecked(name, str(settings.zookeeper), NO_ANSWER, reason)
            leave_behind()
    return snapshots, failed


def _read_one(
    name: str,
    settings: ConnectionSettings,
    deadline_s: float,
    results: queue.Queue[tuple[str, ClusterSnapshot | ClusterChecked]],
) -> None:
    try:
        if (reason := refused(probe(settings, deadline_s))) is not None:
            results.put((name, ClusterChecked(name, str(settings.zookeeper), UNREACHABLE, reason)))
            return
        # One more second than the deadline: a hung ZooKeeper is reported by the caller, not by this timeout.
        with open_kafka_session(settings, connect_timeout=deadline_s + 1.0) as session:
            results.put((name, SnapshotReader(session).read()))
    except Exception as exc:  # one cluster's failure is its own entry, never the run's
        results.put((name, ClusterChecked(name, str(settings.zookeeper), *failure(exc))))


def check_fleet(
    engine: Engine,
    contexts: Mapping[str, ConnectionSettings | str],
    deadline_s: float,
    params: CheckParams | None = None,
    only: Collection[str] | None = None,
) -> FleetCheckReport:
    """Read every context, run the catalog (or ``only``) on each snapshot with ``engine``, then the fleet's
    checks. The checks that compare with the brokers (``metadata_mismatch``) do not run over a fleet.

    Raises:
        KzcError: the engine failed (Spark); a cluster's own failure is its entry, never raised.
    """
    started = time.monotonic()
    snapshots, failed = read_snapshots(contexts, deadline_s)
    timings = {"snapshots": time.monotonic() - started}
    parts = dict(failed)
    names = sorted(snapshots)
    # The Spark engine checks every cluster in one job; the local engine one cluster at a time, so that
    # one cluster's failure is its own entry.
    groups = [names] if engine.name == "spark" else [[name] for name in names]
    for group in filter(None, groups):
        requests = [CheckRequest(snapshot=snapshots[name], params=params, only=only) for name in group]
        try:
            reports = run_checks_many(engine, requests)
        except KzcError as exc:
            if engine.name == "spark":
                raise  # the engine itself failed: no other cluster would fare better
            parts[group[0]] = ClusterChecked(group[0], snapshots[group[0]].zookeeper, "check failed", str(exc))
            continue
        for name, report in zip(group, reports, strict=True):
            parts[name] = ClusterChecked(name, snapshots[name].zookeeper, CHECKED, report=report)
    timings["checks"] = time.monotonic() - started - timings["snapshots"]
    timings["total"] = time.monotonic() - started
    return FleetCheckReport(
        clusters=tuple(parts[name] for name in sorted(parts)),
        fleet_findings=tuple(fleet_findings(snapshots)),
        engine=engine.name,
        timings=timings,
    )


# ---- the fleet's own checks ---------------------------------------------------------------------------------


def fleet_findings(snapshots: Mapping[str, ClusterSnapshot]) -> list[FleetFinding]:
    """The findings that compare the clusters: contexts reaching one cluster (compared once), topics of one
    name whose partition counts or configs differ, a cluster on an older broker release than every other one,
    broker ids registered in more than one cluster."""
    found: list[FleetFinding] = []
    by_id: dict[str, list[str]] = {}
    for name in sorted(snapshots):
        known = snapshots[name].cluster_id
        key = known.id if isinstance(known, ClusterId) else f"(no id) {name}"
        by_id.setdefault(key, []).append(name)
    for cluster_id, names in sorted(by_id.items()):
        if len(names) > 1:
            detail = (
                f"contexts {', '.join(names)} reach one cluster (id {cluster_id}): it is compared once, as {names[0]}"
            )
            found.append(FleetFinding(LISTED_TWICE, tuple(names), detail, evidence=_ev(cluster_id=cluster_id)))
    distinct = {names[0]: snapshots[names[0]] for names in by_id.values()}
    found += _mirrors(distinct)
    found += _release_behind(distinct)
    found += _shared_broker_ids(distinct)
    return sorted(found, key=FleetFinding.sort_key)


def _ev(**values: object) -> Evidence:
    return canonical_evidence(values)


def _holders(
    snapshots: Mapping[str, ClusterSnapshot], keys: Callable[[ClusterSnapshot], Iterable[K]]
) -> dict[K, list[str]]:
    """Each key (a topic name, a broker id) with the clusters that hold it, in name order."""
    holders: dict[K, list[str]] = {}
    for name in sorted(snapshots):
        for key in keys(snapshots[name]):
            holders.setdefault(key, []).append(name)
    return holders


def _mirrors(snapshots: Mapping[str, ClusterSnapshot]) -> Iterable[FleetFinding]:
    for topic, names in sorted(_holders(snapshots, lambda s: s.topics).items()):
        if len(names) < 2:
            continue
        counts: dict[str, int] = {}
        configs: dict[str, dict[str, str]] = {}
        for name in names:
            entry = snapshots[name].topics[topic]
            if isinstance(entry.assignment, TopicAssignment):
                counts[name] = len(entry.assignment.partitions)
            if entry.config is None or isinstance(entry.config, EntityConfig):
                configs[name] = entry.config.as_dict() if entry.config is not None else {}
        differ = []
        if len(set(counts.values())) > 1:
            differ.append("partition counts " + ", ".join(f"{counts[n]} in {n}" for n in counts))
        every_key = {key for config in configs.values() for key in config}
        keys = sorted(key for key in every_key if len({config.get(key) for config in configs.values()}) > 1)
        if keys:
            differ.append(f"configs ({', '.join(keys)})")
        if differ:
            detail = f"topic {topic} is in {', '.join(names)} (mirrors) with different {' and '.join(differ)}"
            evidence = _ev(
                contexts=names,
                partitions=[counts.get(n, -1) for n in names],
                config_keys=keys,
            )
            yield FleetFinding(MIRROR_DIFFERS, tuple(names), detail, topic=topic, evidence=evidence)


def _registration_version(snapshot: ClusterSnapshot) -> int | None:
    """The newest broker registration version of the cluster (what ZooKeeper tells of its release)."""
    versions = [
        b.registration.version for b in snapshot.brokers.values() if isinstance(b.registration, BrokerRegistration)
    ]
    return max(versions) if versions else None


def _release_behind(snapshots: Mapping[str, ClusterSnapshot]) -> Iterable[FleetFinding]:
    versions = {n: v for n, s in sorted(snapshots.items()) if (v := _registration_version(s)) is not None}
    for name, version in versions.items():
        others = {n: v for n, v in versions.items() if n != name}
        if others and version < min(others.values()):
            newer = ", ".join(f"{n} {releases_of_registration(v)}" for n, v in others.items())
            detail = (
                f"{name}'s brokers register as Kafka {releases_of_registration(version)} (registration v{version}); "
                f"every other cluster left it behind: {newer}"
            )
            evidence = _ev(registration_version=version, others=sorted(set(others.values())))
            yield FleetFinding(RELEASE_BEHIND, (name,), detail, evidence=evidence)


def _shared_broker_ids(snapshots: Mapping[str, ClusterSnapshot]) -> Iterable[FleetFinding]:
    for broker_id, names in sorted(_holders(snapshots, lambda s: s.brokers).items()):
        if len(names) > 1:
            detail = f"broker id {broker_id} is registered in {len(names)} clusters: {', '.join(names)}"
            yield FleetFinding(BROKER_ID_SHARED, tuple(names), detail, broker=broker_id, evidence=_ev(contexts=names))
