"""One server's health (``ServerHealth``, from the facts of one probe) and the ensemble's (``assess``: the lag
behind the leader, the quorum and every alarm, pure, the one place these rules live)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.zookeeper.health.words import FACT_KEYS, WHITELIST_HINT, WORDS

# Alarm thresholds (docs/console.md "ZooKeeper health" says what each means).
BEHIND_TXNS = 1000  # a member this many transactions behind the leader's zxid, read at the same time
LATENCY_AVG_HIGH_MS = 50.0  # ZooKeeper answers in about a millisecond when its disk and GC are healthy
OUTSTANDING_HIGH = 50  # requests queued in the server: it cannot keep up
FDS_HIGH_RATIO = 0.9  # open / max file descriptors

# ---- one server -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ServerHealth:
    """One server of the connect string as one probe saw it; ``None`` where no source said.

    ``sources`` maps each word to where its facts came from (``4lw``, ``admin``) or ``None`` (nowhere);
    ``problems`` are sentences on what could not be read and why. ``lag`` (transactions behind the leader's
    zxid, both read in the same probe) is set by ``assess``. ``last_seen`` is the last probe that reached
    this server, kept while it is unreachable.
    """

    server: str
    probed_at_ms: int
    reachable: bool = False
    serving: bool | None = None
    error: str | None = None
    version: str | None = None
    mode: str | None = None
    zxid: int | None = None
    lag: int | None = None
    latency_min: float | None = None
    latency_avg: float | None = None
    latency_max: float | None = None
    outstanding: int | None = None
    connections: int | None = None
    znodes: int | None = None
    watches: int | None = None
    ephemerals: int | None = None
    data_size: int | None = None
    open_fds: int | None = None
    max_fds: int | None = None
    fsync_exceeded: int | None = None
    followers: int | None = None
    synced_followers: int | None = None
    pending_syncs: int | None = None
    quorum_size: int | None = None
    min_session_timeout: int | None = None
    max_session_timeout: int | None = None
    tick_time: int | None = None
    server_id: int | None = None
    members: tuple[str, ...] = ()
    sources: Mapping[str, str | None] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    refused: tuple[str, ...] = ()  # words the server refused (not whitelisted)
    last_seen: ServerHealth | None = None

    @property
    def voter(self) -> bool:
        """A serving member of the voting quorum (leader or follower)."""
        return bool(self.serving) and self.mode in ("leader", "follower")

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (``last_seen`` nested, without its own ``last_seen``)."""
        data = asdict(replace(self, last_seen=None))
        data["members"] = list(self.members)
        data["sources"] = dict(self.sources)
        data["problems"] = list(self.problems)
        data["refused"] = list(self.refused)
        data["zxid_hex"] = hex(self.zxid) if self.zxid is not None else None
        data["last_seen"] = self.last_seen.to_json() if self.last_seen is not None else None
        return data


def server_health(
    server: str, at_ms: int, facts: Mapping[str, Mapping[str, Any]], problems: Sequence[str] = (),
    refused: Sequence[str] = (), sources: Mapping[str, str | None] | None = None, error: str | None = None,
) -> ServerHealth:  # fmt: skip
    """One ``ServerHealth`` from the facts of each word (``{"srvr": {...}, "mntr": {...}, "conf": {...}}``).

    Later words fill what earlier ones left open; ``srvr``'s mode and zxid win (``mntr`` has no zxid).
    A server is reachable when any word answered.
    """
    merged: dict[str, Any] = {}
    for word in ("admin", "conf", "mntr", "srvr"):  # srvr last: it wins
        for key, value in facts.get(word, {}).items():
            if key in FACT_KEYS and value is not None:
                merged[key] = value
    if any(f.get("serving") is False for f in facts.values()):
        merged = {"serving": False}  # a server that says it does not serve has no trustworthy figures
    return ServerHealth(
        server=server,
        probed_at_ms=at_ms,
        reachable=bool(facts),
        error=error if not facts else None,
        problems=tuple(problems),
        refused=tuple(refused),
        sources=dict(sources or {}),
        **merged,
    )


# ---- the ensemble -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class KafkaSessionTimeouts:
    """Kafka's ``zookeeper.session.timeout.ms`` per broker as the brokers report it (DescribeConfigs);
    ``reason`` says why some or all are missing (no ``--bootstrap-server``, a broker down)."""

    by_broker: Mapping[int, int] = field(default_factory=dict)
    reason: str | None = None
    at_ms: int = 0


@dataclass(frozen=True)
class Alarm:
    """Something wrong with the ensemble, with its reason; ``kind`` is stable for scripts."""

    kind: str
    severity: str  # "error" or "warning"
    text: str
    server: str | None = None


@dataclass(frozen=True)
class EnsembleHealth:
    """Every server of the connect string, the quorum, and the alarms, as one probe saw them."""

    servers: tuple[ServerHealth, ...]
    alarms: tuple[Alarm, ...]
    notes: tuple[str, ...]
    at_ms: int
    ensemble_size: int | None = None
    ensemble_size_from: str = ""
    serving_voters: int | None = None
    leader: str | None = None
    kafka: KafkaSessionTimeouts = field(default_factory=KafkaSessionTimeouts)

    @property
    def quorum(self) -> int | None:
        """Voting servers needed to serve: a majority of the ensemble."""
        return self.ensemble_size // 2 + 1 if self.ensemble_size else None

    def to_json(self) -> dict[str, Any]:
        """What ``kzc zk health --json`` prints."""
        return {
            "at_ms": self.at_ms,
            "leader": self.leader,
            "ensemble_size": self.ensemble_size,
            "ensemble_size_from": self.ensemble_size_from,
            "quorum": self.quorum,
            "serving_voters": self.serving_voters,
            "servers": [s.to_json() for s in self.servers],
            "alarms": [asdict(a) for a in self.alarms],
            "notes": list(self.notes),
            "kafka_session_timeout_ms": {str(b): v for b, v in sorted(self.kafka.by_broker.items())},
            "kafka_session_timeout_note": self.kafka.reason,
        }


def zxid_epoch(zxid: int) -> int:
    """The leader epoch in the high 32 bits of a zxid."""
    return zxid >> 32


def zxid_lag(leader: int, member: int) -> int:
    """Transactions ``member`` has not shown of those ``leader`` has. Both are read in the same probe (in
    parallel): a member read a moment later may be ahead, which counts as 0. A member still on an earlier
    epoch has processed none of the leader's epoch: a follower's zxid stays on the old epoch until the new
    leader's first transaction, so right after an election that is 0 too."""
    if zxid_epoch(member) < zxid_epoch(leader):
        return leader & 0xFFFFFFFF
    return max(0, leader - member)


def _voting_members(members: Sequence[str]) -> int:
    """Participants among ``conf``'s ``server.N=host:quorum:election[:role][;client]`` lines (observers don't vote)."""
    return sum(1 for m in members if ":observer" not in m.split(";", 1)[0])


def assess(servers: Sequence[ServerHealth], at_ms: int, kafka: KafkaSessionTimeouts | None = None) -> EnsembleHealth:
    """The lag of each member behind the leader, the quorum and every alarm (pure; the one place these
    rules live: ``kzc zk health``, the panel and the screen all show this).

    The ensemble size is the voting members of a serving server's ``conf`` (3.5+), else its ``mntr``
    quorum size, else the number of servers in the connect string (said so in ``ensemble_size_from``).
    """
    kafka = kafka or KafkaSessionTimeouts()
    alarms: list[Alarm] = []
    notes: list[str] = []
    leaders = [s for s in servers if s.serving and s.mode == "leader"]
    leader = leaders[0] if len(leaders) == 1 else None
    with_lag = []
    for s in servers:
        lag = None
        if leader is not None and s.zxid is not None and leader.zxid is not None and s.voter:
            lag = zxid_lag(leader.zxid, s.zxid)
        with_lag.append(replace(s, lag=lag))
    servers = with_lag

    size, size_from = _ensemble_size(servers)
    standalone = any(s.serving and s.mode == "standalone" for s in servers)
    voters = None
    if not standalone:
        if leader is not None and leader.synced_followers is not None:
            voters = leader.synced_followers + 1  # what the leader itself counts: members beyond the connect string too
        else:
            voters = sum(1 for s in servers if s.voter)

    # Leader: none, or more than one.
    if len(leaders) > 1:
        names = ", ".join(s.server for s in leaders)
        alarms.append(Alarm("split-brain", "error", f"more than one server says it leads: {names}"))
    elif not leaders and not standalone:
        reachable = sum(1 for s in servers if s.reachable)
        alarms.append(
            Alarm("no-leader", "error", f"no leader: {reachable} of {len(servers)} servers reachable, none leading")
        )

    # Quorum.
    if size and voters is not None and size > 1:
        quorum = size // 2 + 1
        if voters < quorum:
            alarms.append(
                Alarm(
                    "quorum-lost",
                    "error",
                    f"quorum lost: {voters} of {size} voting servers serve, {quorum} needed; ZooKeeper refuses "
                    "every request, so Kafka cannot elect leaders, change ISRs or register brokers",
                )
            )
        elif voters == quorum:
            alarms.append(
                Alarm(
                    "quorum-at-risk",
                    "warning",
                    f"quorum at risk: {voters} of {size} voting servers serve, {quorum} needed; one more loss "
                    "stops ZooKeeper",
                )
            )

    for s in servers:
        alarms.extend(_server_alarms(s, leader))
    alarms.extend(_session_alarms(servers, kafka))

    refused = [w for w in WORDS if any(w in s.refused for s in servers)]
    if refused:
        where = ", ".join(s.server for s in servers if s.refused)
        admin = all(s.sources.get(w) == "admin" for s in servers for w in s.refused)
        fallback = "read from the AdminServer instead" if admin else "the AdminServer did not answer either"
        notes.append(f"{', '.join(refused)} not whitelisted on {where} ({fallback}); to allow them: {WHITELIST_HINT}")
    if size_from == "connect string" and size:
        notes.append(f"ensemble size {size} taken from the connect string (no server answered conf or mntr)")
    return EnsembleHealth(
        servers=tuple(servers),
        alarms=tuple(alarms),
        notes=tuple(notes),
        at_ms=at_ms,
        ensemble_size=size,
        ensemble_size_from=size_from,
        serving_voters=voters,
        leader=leader.server if leader is not None else None,
        kafka=kafka,
    )


def _ensemble_size(servers: Sequence[ServerHealth]) -> tuple[int | None, str]:
    for s in servers:
        members = s.members or (s.last_seen.members if s.last_seen is not None else ())
        if members:
            return _voting_members(members), "conf"
    for s in servers:
        if s.quorum_size:
            return s.quorum_size, "mntr"
    return (len(servers) or None), "connect string"


def _server_alarms(s: ServerHealth, leader: ServerHealth | None) -> list[Alarm]:
    out: list[Alarm] = []
    if not s.reachable:
        seen = f" (last seen {s.last_seen.mode or 'answering'})" if s.last_seen is not None else ""
        out.append(Alarm("unreachable", "error", f"{s.server} unreachable: {s.error or 'no answer'}{seen}", s.server))
        return out
    if s.serving is False:
        out.append(
            Alarm("not-serving", "error", f"{s.server} answers but does not serve requests (no quorum, electing)",
                  s.server)
        )  # fmt: skip
        return out
    if leader is not None and s is not leader and s.lag is not None and s.lag >= BEHIND_TXNS:
        out.append(
            Alarm("behind", "warning",
                  f"{s.server} is {s.lag:,} transactions behind the leader (threshold {BEHIND_TXNS:,})", s.server)
        )  # fmt: skip
    if s.latency_avg is not None and s.latency_avg >= LATENCY_AVG_HIGH_MS:
        out.append(
            Alarm("latency-high", "warning",
                  f"{s.server} average latency {s.latency_avg:g} ms (threshold {LATENCY_AVG_HIGH_MS:g} ms)", s.server)
        )  # fmt: skip
    if s.outstanding is not None and s.outstanding >= OUTSTANDING_HIGH:
        out.append(
            Alarm("outstanding-high", "warning",
                  f"{s.server} has {s.outstanding:,} outstanding requests (threshold {OUTSTANDING_HIGH})", s.server)
        )  # fmt: skip
    if s.fsync_exceeded:
        out.append(
            Alarm("fsync-slow", "warning",
                  f"{s.server}: {s.fsync_exceeded:,} fsyncs took longer than fsync.warningthresholdms since start "
                  "(a slow transaction log disk)", s.server)
        )  # fmt: skip
    if s.open_fds is not None and s.max_fds and s.open_fds >= FDS_HIGH_RATIO * s.max_fds:
        out.append(
            Alarm("fds-high", "warning", f"{s.server} uses {s.open_fds:,} of {s.max_fds:,} file descriptors", s.server)
        )
    if s.mode == "leader" and s.pending_syncs:
        out.append(
            Alarm("pending-syncs", "warning", f"{s.server} (leader) has {s.pending_syncs} followers syncing", s.server)
        )
    return out


def _session_alarms(servers: Sequence[ServerHealth], kafka: KafkaSessionTimeouts) -> list[Alarm]:
    """Kafka's ``zookeeper.session.timeout.ms`` against what each server grants: ZooKeeper clamps a client's
    requested timeout into ``[minSessionTimeout, maxSessionTimeout]`` (``ZooKeeperServer.processConnectRequest``)."""
    out: list[Alarm] = []
    for value, brokers in brokers_by_value(kafka).items():
        who = brokers_text(brokers)
        for s in servers:
            if s.max_session_timeout is not None and value > s.max_session_timeout:
                out.append(
                    Alarm("session-timeout", "warning",
                          f"{who} ask for {value:,} ms sessions (zookeeper.session.timeout.ms) but {s.server} grants "
                          f"at most {s.max_session_timeout:,} ms (maxSessionTimeout): a broker's session expires "
                          f"after {s.max_session_timeout / 1000:g} s without heartbeats", s.server)
                )  # fmt: skip
            elif s.min_session_timeout is not None and value < s.min_session_timeout:
                out.append(
                    Alarm("session-timeout", "warning",
                          f"{who} ask for {value:,} ms sessions (zookeeper.session.timeout.ms) but {s.server} grants "
                          f"at least {s.min_session_timeout:,} ms (minSessionTimeout): a dead broker is noticed "
                          f"only after {s.min_session_timeout / 1000:g} s", s.server)
                )  # fmt: skip
    return out


def brokers_by_value(kafka: KafkaSessionTimeouts) -> dict[int, list[int]]:
    """The brokers asking for each session timeout, by value."""
    by_value: dict[int, list[int]] = {}
    for broker, value in sorted(kafka.by_broker.items()):
        by_value.setdefault(value, []).append(broker)
    return dict(sorted(by_value.items()))


def brokers_text(brokers: Sequence[int]) -> str:
    return f"broker{'s' if len(brokers) > 1 else ''} {', '.join(map(str, brokers))}"
