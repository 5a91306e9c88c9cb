"""One broker, as on-call asks about it: the partitions it leads and hosts, its replicas out of the ISR (and
who leads them), the partitions it hosts that are offline, its registration (endpoints, rack, when, the
registration's JSON version, the broker epoch), and what only live sources say: the ZooKeeper session that
owns its registration (``ephemeralOwner`` of ``/brokers/ids/<id>``) and its log dirs (DescribeLogDirs,
``core.brokers.logdirs``: each dir's path, size and error, offline dirs named, and the replicas ZooKeeper
assigns it that are in none of its online dirs).

``broker_view`` is pure (a snapshot in); ``read_broker_live`` does the I/O. Health is the one derivation
(``core.snapshot.health.partition_health``) applied to each hosted partition.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.brokers.capabilities import wire_endpoint
from core.brokers.logdirs import BrokerLogDirs, LogDir, read_broker_log_dirs
from core.config import KafkaSecurity
from core.errors import KzcError
from core.kafka.znodes import BrokerRegistration, Endpoint, PartitionState, TopicAssignment
from core.kafka.znodes.paths import broker_path
from core.snapshot.health import MinIsrResolver, live_leader, partition_health
from core.snapshot.model import ClusterSnapshot, StaticMinIsr
from core.zookeeper.session import ZkSession
from core.zookeeper.tree import read_znode


@dataclass(frozen=True, slots=True)
class HostedReplica:
    """One partition with a replica on the broker."""

    topic: str
    partition: int
    replicas: tuple[int, ...]
    leader: int | None  # the live leader (None: offline)
    isr: tuple[int, ...]
    in_isr: bool
    offline: str | None  # why the partition has no reachable leader

    @property
    def name(self) -> str:
        """``TOPIC-PARTITION``."""
        return f"{self.topic}-{self.partition}"


@dataclass(frozen=True)
class BrokerView:
    """What ZooKeeper says about one broker (see the module docstring)."""

    broker_id: int
    registered: bool
    problem: str | None = None  # an unreadable registration
    endpoints: tuple[str, ...] = ()
    rack: str | None = None
    registered_ms: int | None = None
    registration_version: int | None = None
    broker_epoch: int | None = None  # the registration's czxid (2.2+)
    hosted: tuple[HostedReplica, ...] = ()
    plaintext: tuple[str, int] | None = None  # its PLAINTEXT listener (host, port)
    listeners: tuple[Endpoint, ...] = ()  # every listener with a host (a wildcard one cannot be asked)

    def wire_endpoint(self, security: KafkaSecurity) -> tuple[str, int] | None:
        """Where kzc's own requests (DescribeLogDirs) ask it (``core.brokers.capabilities.wire_endpoint``)."""
        found = wire_endpoint(self.listeners, security)
        return (found.host, found.port) if found is not None else None

    @property
    def leads(self) -> tuple[HostedReplica, ...]:
        """Partitions it leads."""
        return tuple(r for r in self.hosted if r.leader == self.broker_id)

    @property
    def out_of_isr(self) -> tuple[HostedReplica, ...]:
        """Its replicas out of the ISR (with who leads them)."""
        return tuple(r for r in self.hosted if not r.in_isr)

    @property
    def offline(self) -> tuple[HostedReplica, ...]:
        """Partitions it hosts that have no reachable leader."""
        return tuple(r for r in self.hosted if r.offline is not None)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (``kzc broker ID --json`` adds the live part)."""

        def rows(replicas: tuple[HostedReplica, ...]) -> list[dict[str, Any]]:
            return [
                {"partition": r.name, "replicas": list(r.replicas), "leader": r.leader, "isr": list(r.isr),
                 "offline": r.offline}
                for r in replicas
            ]  # fmt: skip

        return {
            "broker": self.broker_id,
            "registered": self.registered,
            "problem": self.problem,
            "endpoints": list(self.endpoints),
            "rack": self.rack,
            "registered_ms": self.registered_ms,
            "registration_version": self.registration_version,
            "broker_epoch": self.broker_epoch,
            "hosts": len(self.hosted),
            "leads": [r.name for r in self.leads],
            "out_of_isr": rows(self.out_of_isr),
            "offline": rows(self.offline),
        }


def broker_view(snapshot: ClusterSnapshot, broker_id: int, static: StaticMinIsr | None = None) -> BrokerView:
    """The broker as ZooKeeper shows it (pure)."""
    live = snapshot.live_broker_ids()
    resolver = MinIsrResolver(snapshot, static)
    hosted: list[HostedReplica] = []
    for entry in snapshot.topics.values():
        assignment = entry.assignment
        if not isinstance(assignment, TopicAssignment):
            continue
        for partition, replicas in assignment.partitions:
            if broker_id not in replicas:
                continue
            state = entry.states.get(partition)
            leader = live_leader(state, live)
            health = partition_health(
                replicas, assignment.adding_replicas(partition), state, live, resolver.resolve(entry.config, leader)
            )
            isr = state.isr if isinstance(state, PartitionState) else ()
            hosted.append(HostedReplica(entry.name, partition, replicas, leader, isr, broker_id in isr, health.offline))
    hosted.sort(key=lambda r: (r.topic, r.partition))
    entry_b = snapshot.brokers.get(broker_id)
    if entry_b is None:
        return BrokerView(broker_id, False, "not registered in /brokers/ids", hosted=tuple(hosted))
    reg = entry_b.registration
    if not isinstance(reg, BrokerRegistration):
        return BrokerView(broker_id, True, f"registration unreadable: {reg.reason}", hosted=tuple(hosted))
    plain = next((e for e in reg.endpoints if e.security_protocol == "PLAINTEXT" and e.host), None)
    return BrokerView(
        broker_id=broker_id,
        registered=True,
        endpoints=tuple(str(e) for e in reg.endpoints),
        rack=reg.rack,
        registered_ms=reg.timestamp_ms if reg.timestamp_ms is not None else entry_b.times.ctime_ms,
        registration_version=reg.version,
        broker_epoch=entry_b.times.czxid,
        hosted=tuple(hosted),
        plaintext=(plain.host, plain.port) if plain is not None else None,
        listeners=tuple(e for e in reg.endpoints if e.host),
    )


@dataclass(frozen=True)
class BrokerLive:
    """What only live sources say: the session owning the registration, and its log dirs (DescribeLogDirs:
    each dir's path, error and replicas, or why they are unknown); each ``None`` with the reason when it
    could not be read. ``missing`` are the replicas ZooKeeper assigns the broker that are in none of its
    online dirs (they were on an offline dir, or are lost)."""

    session_id: int | None = None
    session_note: str | None = None
    log_dirs: BrokerLogDirs | None = None
    log_note: str | None = None
    missing: tuple[str, ...] = ()  # TOPIC-PARTITION

    @property
    def log_sizes(self) -> Mapping[str, int] | None:
        """TOPIC-PARTITION -> bytes (the largest over its online dirs), None when unknown."""
        if self.log_dirs is None or self.log_dirs.dirs is None:
            return None
        return {f"{t}-{p}": size for (t, p), size in sorted(self.log_dirs.sizes().items())}

    @property
    def total_bytes(self) -> int | None:
        """The broker's replicas' log size in all (its online dirs)."""
        return self.log_dirs.total if self.log_dirs is not None else None

    @property
    def offline_dirs(self) -> tuple[str, ...]:
        """The paths of its offline log dirs."""
        return tuple(d.path for d in self.log_dirs.offline_dirs) if self.log_dirs is not None else ()

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict."""
        dirs = self.log_dirs.dirs if self.log_dirs is not None else None
        return {
            "session_id": hex(self.session_id) if self.session_id is not None else None,
            "session_note": self.session_note,
            "log_dirs": None if dirs is None else [log_dir_json(d) for d in dirs],
            "offline_log_dirs": list(self.offline_dirs),
            "missing_replicas": list(self.missing),
            "log_dirs_read_ms": self.log_dirs.read_ms if self.log_dirs is not None else None,
            "log_size_bytes": self.total_bytes,
            "log_sizes": dict(self.log_sizes) if self.log_sizes is not None else None,
            "log_note": self.log_note,
        }


def log_dir_json(d: LogDir) -> dict[str, Any]:
    """One log dir as ``kzc broker ID --json`` prints it."""
    future = [f"{r.topic}-{r.partition}" for r in d.replicas if r.future]
    return {
        "path": d.path,
        "error": d.error_name,
        "error_code": d.error,
        "offline": d.offline,
        "size_bytes": None if d.error else d.size,
        "replicas": sum(1 for r in d.replicas if not r.future),
        "future_replicas": future,
    }


def read_broker_live(
    session: ZkSession | None, view: BrokerView, security: KafkaSecurity, timeout: float = 10.0
) -> BrokerLive:
    """The ``ephemeralOwner`` of the broker's registration (through ``session``) and its log dirs (DescribeLogDirs
    for every replica, to its listener of ``security``'s protocol, logging in there). Never raises for the
    broker's sake."""
    session_id = None
    session_note = None
    if session is None:
        session_note = "not connected to ZooKeeper"
    elif not view.registered:
        session_note = "not registered: no session owns a registration"
    else:
        try:
            stat = read_znode(session, broker_path(view.broker_id)).stat
            session_id = stat.ephemeral_owner
        except KzcError as exc:
            session_note = str(exc)
    if not view.registered:
        return BrokerLive(session_id, session_note, log_note="not registered: no broker to ask DescribeLogDirs")
    endpoint = view.wire_endpoint(security)
    dirs = read_broker_log_dirs(view.broker_id, endpoint, None, timeout, int(time.time() * 1000), security)
    return broker_live(view, session_id, session_note, dirs)


def broker_live(view: BrokerView, session_id: int | None, session_note: str | None, dirs: BrokerLogDirs) -> BrokerLive:
    """The live part from what was read (pure): the replicas in no online dir, and the note on the log dirs."""
    if dirs.dirs is None:
        return BrokerLive(session_id, session_note, dirs, dirs.unknown)
    missing = tuple(f"{t}-{p}" for t, p in dirs.missing((r.topic, r.partition) for r in view.hosted))
    notes = []
    if dirs.offline_dirs:
        notes.append(f"log dir{'s' if len(dirs.offline_dirs) > 1 else ''} offline: "
                     + ", ".join(d.path for d in dirs.offline_dirs) + " (KAFKA_STORAGE_ERROR)")  # fmt: skip
    other = [d for d in dirs.failed_dirs if not d.offline]
    notes += [f"log dir {d.path}: {d.error_name}" for d in other]
    if missing:
        notes.append(f"{len(missing):,} of its replicas in no online log dir")
    return BrokerLive(session_id, session_note, dirs, "; ".join(notes) or None, missing)
