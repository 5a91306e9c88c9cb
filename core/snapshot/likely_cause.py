"""The likely cause of under-replicated and offline partitions: what the affected partitions share, named by the
smallest explanation with its evidence (pure; the cluster screen's line).

The affected partitions are those the one health derivation (``core.snapshot.health.partition_health``) calls
offline or under-replicated. For each, the *missing* replicas are its replicas outside the ISR. Explanations,
smallest first:

1. **one broker** missing from every affected partition's ISR (``92 of 92 under-replicated partitions lack
   broker 2 in their ISR``), with the evidence ZooKeeper holds about it: not registered (and since when the
   console last saw it), or registered, so the broker runs but its replicas do not keep up (a stopped process,
   a slow or failed disk, a full log dir, a network partition);
2. **one rack**: every missing replica is on brokers of one rack;
3. **one topic**: every affected partition is of one topic (a topic-level problem, e.g. its config);
4. otherwise the broker missing from the most ISRs, with its share.

Log dirs: ZooKeeper does not say which log dir holds a replica; DescribeLogDirs does
(``core.brokers.logdirs``). Given the brokers' log dirs as read, the named broker's evidence becomes the
smallest explanation there is: **one log dir** (kind ``log_dir``) when the broker marked a dir offline
(``KAFKA_STORAGE_ERROR``) and every affected replica of it is in none of its online dirs ("92 of 92
under-replicated partitions lack broker 2 in their ISR; broker 2 is registered but log dir /data/2 is
offline ..."); its dirs all online rule a disk out. Without them, a pending ``/log_dir_event_notification``
of the broker (the controller had not handled the failure yet) is the evidence ZooKeeper holds.

Load (``with_load``): what the traffic of the last window says (``core.traffic.cause``: producers stopped, a
log dir full within a day, leader skew, key skew), each finding with its numbers. Where health explains the
trouble it comes first and the load follows (``...; load: key skew: ...``); where health is fine, the load is
the cause. Load not measured yet (no window) is unknown (``load`` None), never "nothing found".
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from core.brokers.capabilities import wire_endpoint
from core.brokers.logdirs import BrokerLogDirs, read_broker_log_dirs
from core.config import KafkaSecurity
from core.human_time import clock_text
from core.kafka.topic_partition import TopicPartition
from core.kafka.znodes import BrokerRegistration, LogDirEventNotification, PartitionState, TopicAssignment
from core.kafka.znodes.paths import LOG_DIR_EVENT_NOTIFICATIONS
from core.snapshot.health import MinIsrResolver, live_leader, partition_health
from core.snapshot.model import ClusterSnapshot


class Finding(Protocol):
    """What the load says (``core.traffic.cause.LoadFinding``, a layer above): its kind, subject, sentence with
    its numbers, and its JSON."""

    @property
    def kind(self) -> str: ...

    @property
    def subject(self) -> str: ...

    @property
    def text(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


# The load's findings in the order an on-call engineer acts on them: data no longer coming in, then a disk about
# to fill, then where the load is uneven.
LOAD_ORDER = ("stopped", "disk_full", "leader_skew", "key_skew")


@dataclass(frozen=True)
class LikelyCause:
    """The smallest explanation of the affected partitions: ``kind`` (``log_dir``, ``broker``, ``rack``,
    ``topic``, ``partial``), ``subject`` (``BROKER:PATH[,PATH]``, the broker id, rack or topic) and the
    sentence with its evidence, then the load's findings (``load``; None: not measured). With health fine and
    load found, ``kind`` and ``subject`` are those of the first finding (``key_skew``, ``topic-partition``) and
    ``affected`` is 0."""

    kind: str
    subject: str
    affected: int
    explained: int
    text: str
    load: tuple[Finding, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """As ``--json`` prints it: the fields, ``load`` a list of the findings with their numbers (null: not
        measured)."""
        out = asdict(replace(self, load=None))
        out["load"] = None if self.load is None else [f.to_json() for f in self.load]
        return out


def with_load(cause: LikelyCause | None, load: Sequence[Finding] | None) -> LikelyCause | None:
    """``cause`` (health's as ``likely_cause`` derived it, or None) with what the load says: health first and
    the load after it; the load alone when health is fine. ``load`` None (no window measured yet) adds nothing
    and says so in ``load``."""
    if load is None:
        return None if cause is None else replace(cause, load=None)
    found = tuple(sorted(load, key=lambda f: LOAD_ORDER.index(f.kind) if f.kind in LOAD_ORDER else len(LOAD_ORDER)))
    said = "; ".join(f.text for f in found)
    if cause is not None:
        return replace(cause, text=cause.text + (f"; load: {said}" if found else ""), load=found)
    if not found:
        return None
    return LikelyCause(found[0].kind, found[0].subject, 0, 0, said, found)


def likely_cause(snapshot: ClusterSnapshot, log_dirs: Mapping[int, BrokerLogDirs] | None = None) -> LikelyCause | None:
    """The likely cause of the offline and under-replicated partitions, or None when there are none (health
    alone: ``with_load`` adds the load).

    Args:
        log_dirs: the brokers' log dirs as last read (DescribeLogDirs of every replica), where known.
    """
    live = snapshot.live_broker_ids()
    resolver = MinIsrResolver(snapshot)
    missing_by_partition: list[frozenset[int]] = []
    keys: list[TopicPartition] = []
    topics: Counter[str] = Counter()
    offline = 0
    for entry in snapshot.topics.values():
        assignment = entry.assignment
        if not isinstance(assignment, TopicAssignment):
            continue
        for partition, replicas in assignment.partitions:
            state = entry.states.get(partition)
            adding = assignment.adding_replicas(partition)
            health = partition_health(
                replicas, adding, state, live, resolver.resolve(entry.config, live_leader(state, live))
            )
            if health.offline is None and not health.under_replicated:
                continue
            isr = state.isr if isinstance(state, PartitionState) else ()
            # An offline partition whose ISR still names a dead broker: that broker is what it lacks.
            missing = frozenset(r for r in replicas if r not in isr or r not in live)
            missing_by_partition.append(missing)
            keys.append((entry.name, partition))
            topics[entry.name] += 1
            offline += health.offline is not None
    total = len(missing_by_partition)
    if total == 0:
        return None
    what = _what(total, offline)
    per_broker: Counter[int] = Counter(b for m in missing_by_partition for b in m)
    everywhere = sorted(b for b, n in per_broker.items() if n == total)
    if len(everywhere) == 1:
        b = everywhere[0]
        head = f"{total:,} of {total:,} {what} lack broker {b} in their ISR; "
        dirs = _offline_dirs_explaining(snapshot, b, keys, log_dirs)
        if dirs is not None:
            return LikelyCause("log_dir", f"{b}:{','.join(dirs[0])}", total, total, head + dirs[1])
        return LikelyCause("broker", str(b), total, total, head + _evidence(snapshot, b, log_dirs))
    racks = {b: _rack(snapshot, b) for b in per_broker}
    rack_names = set(racks.values())
    if len(rack_names) == 1 and None not in rack_names and len(per_broker) > 1:
        rack = next(iter(rack_names))
        assert rack is not None
        ids = ", ".join(map(str, sorted(per_broker)))
        return LikelyCause("rack", rack, total, total,
                           f"every replica missing from the ISRs of {total:,} {what} is on rack {rack} "
                           f"(brokers {ids})")  # fmt: skip
    if len(topics) == 1:
        topic = next(iter(topics))
        return LikelyCause("topic", topic, total, total, f"all {total:,} {what} are of topic {topic}")
    if not per_broker:
        return LikelyCause("partial", "", total, 0, f"{total:,} {what}: no replica missing from an ISR (no state?)")
    b, n = per_broker.most_common(1)[0]
    mine = [k for k, m in zip(keys, missing_by_partition, strict=True) if b in m]
    dirs = _offline_dirs_explaining(snapshot, b, mine, log_dirs)
    evidence = dirs[1] if dirs is not None else _evidence(snapshot, b, log_dirs)
    return LikelyCause("partial", str(b), total, n,
                       f"broker {b} is missing from the ISR of {n:,} of {total:,} {what} "
                       f"({len(per_broker)} brokers missing from some); {evidence}")  # fmt: skip


def cause_broker(cause: LikelyCause | None) -> int | None:
    """The broker ``cause`` names (kinds ``log_dir``, ``broker`` and ``partial``), else None."""
    if cause is None or cause.kind not in ("log_dir", "broker", "partial"):
        return None
    head = cause.subject.split(":", 1)[0]
    return int(head) if head.isdigit() else None


def asks_log_dirs(snapshot: ClusterSnapshot, cause: LikelyCause | None) -> int | None:
    """The registered broker whose log dirs (DescribeLogDirs) would refine ``cause``: the broker it names, when
    its registration in ZooKeeper says where it listens; None otherwise (down, or a broker already on KRaft during
    a migration: alive, but not in ``/brokers/ids``)."""
    broker = cause_broker(cause)
    return broker if broker is not None and broker in snapshot.brokers else None


def _what(total: int, offline: int) -> str:
    if offline == total:
        return "offline partitions"
    if offline == 0:
        return "under-replicated partitions"
    return f"affected partitions ({offline:,} offline)"


def _rack(snapshot: ClusterSnapshot, broker: int) -> str | None:
    entry = snapshot.brokers.get(broker)
    if entry is not None and isinstance(entry.registration, BrokerRegistration):
        return entry.registration.rack
    return None


def _evidence(snapshot: ClusterSnapshot, broker: int, log_dirs: Mapping[int, BrokerLogDirs] | None = None) -> str:
    """What ZooKeeper (and, where read, the broker's log dirs) say about the broker."""
    if broker not in snapshot.live_broker_ids():
        return f"broker {broker} is not registered (down, or its ZooKeeper session expired)"
    read = (log_dirs or {}).get(broker)
    failures = _log_dir_failures(snapshot, broker)
    if read is not None and read.dirs is not None and not read.failed_dirs:
        return (
            f"broker {broker} is registered and its log dirs are online (DescribeLogDirs, read "
            f"{clock_text(read.read_ms)}), so it runs but its replicas do not keep up (a paused process, the network)"
        )
    text = (
        f"broker {broker} is registered, so it runs but its replicas do not keep up (a paused process, a slow or "
        "failed log dir, the network)"
    )
    if failures:
        text += f"; {failures} log dir failure notification(s) of broker {broker} in {LOG_DIR_EVENT_NOTIFICATIONS}"
    if read is not None and read.dirs is None and read.unknown:
        text += f"; its log dirs are unknown ({read.unknown})"
    elif read is not None and read.failed_dirs:
        text += "; log dir " + ", ".join(f"{d.path} {d.error_name}" for d in read.failed_dirs)
    return text


def _log_dir_failures(snapshot: ClusterSnapshot, broker: int) -> int:
    """The broker's log dir failure notifications still in ZooKeeper (the controller deletes each it handled;
    event 1 is a failure, ``LogDirEventNotificationHandler.LogDirFailureEvent``)."""
    return sum(
        1
        for n in snapshot.log_dir_event_notifications
        if isinstance(n.value, LogDirEventNotification) and n.value.broker == broker and n.value.event in (None, 1)
    )


def _offline_dirs_explaining(
    snapshot: ClusterSnapshot, broker: int, keys: list[TopicPartition], log_dirs: Mapping[int, BrokerLogDirs] | None
) -> tuple[list[str], str] | None:
    """(the offline dirs, the evidence) when the registered broker marked log dirs offline and every one of
    its replicas of ``keys`` is in none of its online dirs (DescribeLogDirs of every replica); else None."""
    read = (log_dirs or {}).get(broker)
    if read is None or read.dirs is None or not read.whole or broker not in snapshot.live_broker_ids():
        return None
    offline = [d.path for d in read.offline_dirs]
    if not offline:
        return None
    gone = read.missing(keys)
    if len(gone) != len(keys):
        return None
    paths = ", ".join(offline)
    dirs = f"log dir {paths} is" if len(offline) == 1 else f"log dirs {paths} are"
    return offline, (
        f"broker {broker} is registered but {dirs} offline (KAFKA_STORAGE_ERROR, DescribeLogDirs read "
        f"{clock_text(read.read_ms)}): none of these replicas is in an online log dir of it"
    )


def read_likely_cause(
    snapshot: ClusterSnapshot,
    security: KafkaSecurity,
    live: bool,
    timeout: float = 5.0,
    load: Sequence[Finding] | None = None,
) -> LikelyCause | None:
    """``likely_cause``, refined by the log dirs of the broker it names (DescribeLogDirs, when ``live``), with
    what the load says (``with_load``; None: not measured)."""
    cause = likely_cause(snapshot)
    broker = asks_log_dirs(snapshot, cause) if live else None
    if broker is not None:
        endpoint = wire_endpoint(snapshot.brokers[broker].registration, security)
        where = (endpoint.host, endpoint.port) if endpoint is not None else None
        dirs = read_broker_log_dirs(broker, where, None, timeout, int(time.time() * 1000), security)
        cause = likely_cause(snapshot, {broker: dirs})
    return with_load(cause, load)
