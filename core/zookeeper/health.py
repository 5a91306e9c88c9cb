"""ZooKeeper's own health: every server of the connect string, as its four-letter words and AdminServer say.

Sources, per server: the four-letter words ``srvr``, ``mntr`` and ``conf`` over the plain client port (one
TCP connection each; the server answers and closes), and, where a word is refused or unanswered, the
AdminServer's ``GET http://HOST:ADMIN_PORT/commands/<name>`` JSON (``server_stats``, ``monitor``,
``configuration``). Since ZooKeeper 3.5.3 only ``srvr`` is whitelisted by default; a refused word answers
``<word> is not executed because it is not in the whitelist.`` and the health says exactly which words are
missing and how to allow them (``4lw.commands.whitelist``). ``wchc``/``wchp`` (per-watch dumps, expensive on
a large tree) are never sent. The fsync-threshold counter is served only by the AdminServer's
``server_stats`` on 3.6+ (``mntr`` had it on 3.5), so it is asked there when the words did not give it.

Layers: the parsers (``parse_srvr``, ``parse_mntr``, ``parse_conf``, ``parse_admin``) turn one reply into
*facts* (a flat dict with the keys of ``FACT_KEYS``); ``server_health`` builds one ``ServerHealth`` from the
facts of one probe; ``assess`` derives the lag behind the leader, the quorum and every alarm from the
servers (pure, the one place these rules live); ``probe_ensemble`` does the network part, every server in
parallel, and carries each unreachable server's last good reading (``last_seen``) from the previous probe.
Kafka's ``zookeeper.session.timeout.ms`` is read by the caller from the brokers (``KafkaSessionTimeouts``).
"""

from __future__ import annotations

import json
import socket
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from core.config import ConnectionSettings
from core.connect import HostPort, ZkConnect
from core.human_size import human_size

WORDS = ("srvr", "mntr", "conf")
ADMIN_COMMANDS = {"srvr": "server_stats", "mntr": "monitor", "conf": "configuration"}
DEFAULT_ADMIN_PORT = 8080  # ZooKeeper's admin.serverPort default
NOT_WHITELISTED = "is not executed because it is not in the whitelist."
NOT_SERVING = "This ZooKeeper instance is not currently serving requests"
WHITELIST_HINT = (
    "4lw.commands.whitelist=srvr,mntr,conf in zoo.cfg (or -Dzookeeper.4lw.commands.whitelist=srvr,mntr,conf), "
    "then restart the server"
)
MAX_REPLY = 4 << 20  # a mntr reply is ~20 KB; anything past this is not ZooKeeper talking
PROBE_TIMEOUT_S = 5.0  # per request; a dead server costs this once per probe (the words stop at srvr)

# Alarm thresholds (docs/console.md "ZooKeeper health" says what each means).
BEHIND_TXNS = 1000  # a member this many transactions behind the leader's zxid, read at the same time
LATENCY_AVG_HIGH_MS = 50.0  # ZooKeeper answers in about a millisecond when its disk and GC are healthy
OUTSTANDING_HIGH = 50  # requests queued in the server: it cannot keep up
FDS_HIGH_RATIO = 0.9  # open / max file descriptors

FACT_KEYS = (
    "serving", "version", "mode", "zxid", "latency_min", "latency_avg", "latency_max", "outstanding",
    "connections", "znodes", "watches", "ephemerals", "data_size", "open_fds", "max_fds", "fsync_exceeded",
    "followers", "synced_followers", "pending_syncs", "quorum_size", "min_session_timeout",
    "max_session_timeout", "tick_time", "server_id", "members",
)  # fmt: skip


# ---- parsing: one reply -> facts ------------------------------------------------------------------------


def _number(text: str) -> int | float | None:
    text = text.strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        n = _number(value)
        return _int(n) if n is not None else None
    return None


def _float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        n = _number(value)
        return float(n) if n is not None else None
    return None


def refused_word(reply: str) -> bool:
    """Whether ``reply`` is ZooKeeper's refusal of a word that is not in ``4lw.commands.whitelist``."""
    return NOT_WHITELISTED in reply


def parse_srvr(text: str) -> dict[str, Any]:
    """Facts from a ``srvr`` reply (``Key: value`` lines; 3.4's integer latencies as 3.5+'s decimals)."""
    if NOT_SERVING in text:
        return {"serving": False}
    facts: dict[str, Any] = {}
    for line in text.splitlines():
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip(), value.strip()
        if key == "Zookeeper version":
            facts["version"] = value.split(",", 1)[0]
        elif key == "Latency min/avg/max":
            parts = [_float(p) for p in value.split("/")]
            if len(parts) == 3:
                facts["latency_min"], facts["latency_avg"], facts["latency_max"] = parts
        elif key == "Connections":
            facts["connections"] = _int(value)
        elif key == "Outstanding":
            facts["outstanding"] = _int(value)
        elif key == "Zxid":
            with suppress(ValueError):
                facts["zxid"] = int(value, 16)
        elif key == "Mode":
            facts["mode"] = value
        elif key == "Node count":
            facts["znodes"] = _int(value)
    if "mode" in facts:
        facts["serving"] = True
    return facts


# mntr keys (3.4 to 3.9) -> fact keys; ``zk_followers`` (3.4/3.5) became ``zk_learners`` (3.6+).
_MNTR = {
    "version": "version",
    "server_state": "mode",
    "avg_latency": "latency_avg",
    "min_latency": "latency_min",
    "max_latency": "latency_max",
    "outstanding_requests": "outstanding",
    "num_alive_connections": "connections",
    "znode_count": "znodes",
    "watch_count": "watches",
    "ephemerals_count": "ephemerals",
    "approximate_data_size": "data_size",
    "open_file_descriptor_count": "open_fds",
    "max_file_descriptor_count": "max_fds",
    "fsync_threshold_exceed_count": "fsync_exceeded",
    "followers": "followers",
    "learners": "followers",
    "synced_followers": "synced_followers",
    "pending_syncs": "pending_syncs",
    "quorum_size": "quorum_size",
}
_FLOAT_FACTS = {"latency_min", "latency_avg", "latency_max"}


def _monitor_facts(pairs: Mapping[str, Any]) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    for key, value in pairs.items():
        name = _MNTR.get(key)
        if name is None:
            continue
        if name == "version":
            facts[name] = str(value).split(",", 1)[0]
        elif name == "mode":
            facts[name] = str(value)
        elif name in _FLOAT_FACTS:
            facts[name] = _float(value)
        else:
            facts[name] = _int(value)
    if "mode" in facts:
        facts["serving"] = True
    return facts


def parse_mntr(text: str) -> dict[str, Any]:
    """Facts from a ``mntr`` reply (``zk_<key>\\t<value>`` lines)."""
    if NOT_SERVING in text:
        return {"serving": False}
    pairs: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("\t")
        if sep and key.startswith("zk_"):
            pairs[key[3:]] = value.strip()
    return _monitor_facts(pairs)


_CONF = {
    "minSessionTimeout": "min_session_timeout",
    "maxSessionTimeout": "max_session_timeout",
    "tickTime": "tick_time",
    "serverId": "server_id",
}


def parse_conf(text: str) -> dict[str, Any]:
    """Facts from a ``conf`` reply (``key=value`` lines; ``server.N=...`` lines are the members, 3.5+)."""
    if NOT_SERVING in text:
        return {"serving": False}
    facts: dict[str, Any] = {}
    members: list[str] = []
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if not sep:
            continue
        key = key.strip()
        if key in _CONF:
            facts[_CONF[key]] = _int(value)
        elif key.startswith("server.") and key[7:].isdigit():
            members.append(f"{key}={value.strip()}")
    if members:
        facts["members"] = tuple(members)
    return facts


def parse_admin(command: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """Facts from the AdminServer's JSON for ``command`` (``server_stats``, ``monitor``, ``configuration``).

    Raises:
        ValueError: the JSON carries an error other than "not serving".
    """
    error = data.get("error")
    if error:
        if NOT_SERVING in str(error):
            return {"serving": False}
        raise ValueError(str(error))
    if command == "monitor":
        return _monitor_facts(data)
    if command == "configuration":
        return {
            "min_session_timeout": _int(data.get("min_session_timeout")),
            "max_session_timeout": _int(data.get("max_session_timeout")),
            "tick_time": _int(data.get("tick_time")),
            "server_id": _int(data.get("server_id")),
        }
    stats = data.get("server_stats")
    stats = stats if isinstance(stats, Mapping) else {}
    facts = {
        "version": str(data.get("version", "")).split(",", 1)[0] or None,
        "mode": stats.get("server_state"),
        "zxid": _int(stats.get("last_processed_zxid")),
        "latency_min": _float(stats.get("min_latency")),
        "latency_avg": _float(stats.get("avg_latency")),
        "latency_max": _float(stats.get("max_latency")),
        "outstanding": _int(stats.get("outstanding_requests")),
        "connections": _int(stats.get("num_alive_client_connections")),
        "znodes": _int(data.get("node_count")),
        "fsync_exceeded": _int(stats.get("fsync_threshold_exceed_count")),
    }
    facts = {k: v for k, v in facts.items() if v is not None}
    if "mode" in facts:
        facts["serving"] = True
    return facts


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
                    "quorum-lost", "error",
                    f"quorum lost: {voters} of {size} voting servers serve, {quorum} needed; ZooKeeper refuses "
                    "every request, so Kafka cannot elect leaders, change ISRs or register brokers",
                )
            )  # fmt: skip
        elif voters == quorum:
            alarms.append(
                Alarm(
                    "quorum-at-risk", "warning",
                    f"quorum at risk: {voters} of {size} voting servers serve, {quorum} needed; one more loss "
                    "stops ZooKeeper",
                )
            )  # fmt: skip

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
    for value, brokers in _brokers_by_value(kafka).items():
        who = _brokers_text(brokers)
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


def _brokers_by_value(kafka: KafkaSessionTimeouts) -> dict[int, list[int]]:
    """The brokers asking for each session timeout, by value."""
    by_value: dict[int, list[int]] = {}
    for broker, value in sorted(kafka.by_broker.items()):
        by_value.setdefault(value, []).append(broker)
    return dict(sorted(by_value.items()))


def _brokers_text(brokers: Sequence[int]) -> str:
    return f"broker{'s' if len(brokers) > 1 else ''} {', '.join(map(str, brokers))}"


# ---- probing (network) -------------------------------------------------------------------------------------


def ask_word(server: HostPort, word: str, timeout: float = PROBE_TIMEOUT_S,
             tls: ssl.SSLContext | None = None) -> str:  # fmt: skip
    """Send one four-letter word and read the reply until the server closes the connection.

    Raises:
        OSError: the server cannot be reached or the reply did not arrive in ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    raw = socket.create_connection((server.host, server.port), timeout=timeout)
    with raw:
        sock = tls.wrap_socket(raw, server_hostname=server.host) if tls is not None else raw
        sock.sendall(word.encode("ascii"))
        chunks: list[bytes] = []
        size = 0
        while size < MAX_REPLY:
            sock.settimeout(max(0.05, deadline - time.monotonic()))
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks).decode("utf-8", errors="replace")


def ask_admin(host: str, port: int, command: str, timeout: float = PROBE_TIMEOUT_S) -> dict[str, Any]:
    """``GET http://HOST:PORT/commands/<command>`` of the AdminServer, as JSON.

    Raises:
        OSError: unreachable, an HTTP error, or a reply that is not a JSON object.
    """
    url_host = f"[{host}]" if ":" in host else host
    url = f"http://{url_host}:{port}/commands/{command}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            body = response.read(MAX_REPLY)
    except urllib.error.HTTPError as exc:
        raise OSError(f"{url} answered HTTP {exc.code}") from None
    except urllib.error.URLError as exc:
        reason = _os_error(exc.reason) if isinstance(exc.reason, OSError) else str(exc.reason)
        raise OSError(f"{url}: {reason}") from None
    except OSError as exc:
        raise OSError(f"{url}: {_os_error(exc)}") from None
    try:
        data = json.loads(body)
    except ValueError:
        raise OSError(f"{url} did not answer JSON") from None
    if not isinstance(data, dict):
        raise OSError(f"{url} did not answer a JSON object")
    return data


_PARSERS: dict[str, Callable[[str], dict[str, Any]]] = {"srvr": parse_srvr, "mntr": parse_mntr, "conf": parse_conf}


def probe_server(
    server: HostPort, now_ms: int, timeout: float = PROBE_TIMEOUT_S, admin_port: int | None = DEFAULT_ADMIN_PORT,
    tls: ssl.SSLContext | None = None,
) -> ServerHealth:  # fmt: skip
    """Ask one server ``srvr``, ``mntr`` and ``conf``; the AdminServer (``admin_port``, ``None``: never) for a
    word that is refused or unanswered, and for the fsync counter the words do not give on 3.6+. Never raises
    for the server's sake: what failed is in ``error`` / ``problems``."""
    facts: dict[str, dict[str, Any]] = {}
    sources: dict[str, str | None] = {}
    problems: list[str] = []
    refused: list[str] = []
    first_error: str | None = None

    def from_admin(word: str) -> bool:
        if admin_port is None:
            return False
        command = ADMIN_COMMANDS[word]
        try:
            facts[word] = parse_admin(command, ask_admin(server.host, admin_port, command, timeout))
        except (OSError, ValueError) as exc:
            problems.append(f"{word}: AdminServer {exc}")
            return False
        sources[word] = "admin"
        return True

    for word in WORDS:
        try:
            reply = ask_word(server, word, timeout, tls)
        except OSError as exc:
            text = _os_error(exc)
            if word == "srvr":
                first_error = text
                if not from_admin(word):
                    sources[word] = None
                    break  # the server does not answer: no point asking the other words
                continue
            problems.append(f"{word}: {text}")
            if not from_admin(word):
                sources[word] = None
            continue
        if refused_word(reply) or not reply.strip():
            if refused_word(reply):
                refused.append(word)
            else:
                problems.append(f"{word}: empty reply (four-letter words disabled?)")
            if not from_admin(word):
                sources[word] = None
                if refused_word(reply):
                    problems.append(f"{word} not whitelisted; allow it with {WHITELIST_HINT}")
            continue
        facts[word] = _PARSERS[word](reply)
        sources[word] = "4lw"
        if facts[word].get("serving") is False:
            break  # every word answers "not serving" now
    serving = not any(f.get("serving") is False for f in facts.values())
    if facts and serving and not any("fsync_exceeded" in f for f in facts.values()) and admin_port is not None:
        try:
            stats = parse_admin("server_stats", ask_admin(server.host, admin_port, "server_stats", timeout))
            if "fsync_exceeded" in stats:
                facts["admin"] = {"fsync_exceeded": stats["fsync_exceeded"]}
                sources["fsync"] = "admin"
        except (OSError, ValueError):
            sources["fsync"] = None  # only the AdminServer reports it on 3.6+; unknown without it
    return server_health(str(server), now_ms, facts, problems, refused, sources, error=first_error)


def _os_error(exc: OSError) -> str:
    if isinstance(exc, TimeoutError | socket.timeout):
        return "no answer (timed out)"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    return exc.strerror or str(exc) or type(exc).__name__


def probe_ensemble(
    connect: ZkConnect,
    *,
    now_ms: Callable[[], int] | None = None,
    timeout: float = PROBE_TIMEOUT_S,
    admin_port: int | None = DEFAULT_ADMIN_PORT,
    tls: ssl.SSLContext | None = None,
    kafka: KafkaSessionTimeouts | None = None,
    previous: EnsembleHealth | None = None,
) -> EnsembleHealth:
    """Probe every server of ``connect`` in parallel (a dead server costs ``timeout``, not a multiple) and
    assess the ensemble. An unreachable server keeps, as ``last_seen``, its last reachable reading from
    ``previous``. Blocks up to about ``timeout`` times the words asked; never raises for a server's sake."""
    clock = now_ms or (lambda: int(time.time() * 1000))
    at = clock()
    hosts = connect.hosts
    with ThreadPoolExecutor(max_workers=max(1, len(hosts)), thread_name_prefix="kzc-zk-health") as pool:
        servers = list(pool.map(lambda h: probe_server(h, at, timeout, admin_port, tls), hosts))
    earlier = {s.server: s for s in previous.servers} if previous is not None else {}
    for i, s in enumerate(servers):
        if not s.reachable and s.server in earlier:
            old = earlier[s.server]
            servers[i] = replace(s, last_seen=old if old.reachable else old.last_seen)
    return assess(servers, at, kafka)


def tls_context(settings: ConnectionSettings) -> ssl.SSLContext | None:
    """The TLS context for the four-letter words when the connection uses TLS (the secure client port answers
    them over TLS), with the same CA, client certificate and hostname rule as the ZooKeeper session."""
    if not settings.zk_tls:
        return None
    context = ssl.create_default_context(cafile=settings.zk_tls_ca)
    context.check_hostname = settings.zk_tls_verify_hostname
    if settings.zk_tls_cert and settings.zk_tls_key:
        context.load_cert_chain(settings.zk_tls_cert, settings.zk_tls_key)
    return context


# ---- the texts every surface shows (kzc zk health, the console's panel and screen) -------------------------

COLUMNS = (
    ("server", "server"), ("mode", "mode"), ("zxid", "zxid"), ("behind", "behind"),
    ("latency", "latency min/avg/max ms"), ("outstanding", "outst"), ("connections", "conns"),
    ("znodes", "znodes"), ("watches", "watches"), ("ephemerals", "ephem"), ("data_size", "data"),
    ("fds", "fds open/max"), ("fsync", "fsync>thr"), ("followers", "synced/followers"), ("source", "source"),
)  # fmt: skip
UNKNOWN = "?"


def _count(value: int | None) -> str:
    return UNKNOWN if value is None else f"{value:,}"


def _ms(value: float | None) -> str:
    return UNKNOWN if value is None else f"{value:.2f}".rstrip("0").rstrip(".")


def mode_text(s: ServerHealth) -> str:
    """``leader``, ``follower``, ``observer``, ``standalone``; ``not serving``; ``unreachable``."""
    if not s.reachable:
        return "unreachable"
    if s.serving is False:
        return "not serving"
    return s.mode or UNKNOWN


def server_cells(s: ServerHealth) -> dict[str, str]:
    """The text of each of ``COLUMNS`` for one server (``?`` where no source said; ``-`` where it does not
    apply, e.g. the followers of a follower)."""
    if not s.reachable or s.serving is False:
        cells = dict.fromkeys((key for key, _ in COLUMNS), "-")
        cells.update(server=s.server, mode=mode_text(s), source="-")
        return cells
    source = "+".join(sorted({v for v in s.sources.values() if v})) or "-"
    followers = "-"
    if s.mode == "leader":
        followers = f"{_count(s.synced_followers)}/{_count(s.followers)}"
    return {
        "server": s.server,
        "mode": mode_text(s),
        "zxid": hex(s.zxid) if s.zxid is not None else UNKNOWN,
        "behind": "-" if s.mode in ("leader", "standalone") else _count(s.lag),
        "latency": f"{_ms(s.latency_min)}/{_ms(s.latency_avg)}/{_ms(s.latency_max)}",
        "outstanding": _count(s.outstanding),
        "connections": _count(s.connections),
        "znodes": _count(s.znodes),
        "watches": _count(s.watches),
        "ephemerals": _count(s.ephemerals),
        "data_size": human_size(s.data_size),
        "fds": f"{_count(s.open_fds)}/{_count(s.max_fds)}",
        "fsync": _count(s.fsync_exceeded),
        "followers": followers,
        "source": source,
    }


def summary_line(health: EnsembleHealth) -> str:
    """One line: how many servers serve, the quorum, the leader, e.g.
    ``3 servers · 2 of 3 voting serve (quorum 2) · leader 127.0.0.3:2181``."""
    parts = [f"{len(health.servers)} server{'s' if len(health.servers) != 1 else ''}"]
    if health.serving_voters is not None and health.ensemble_size:
        parts.append(f"{health.serving_voters} of {health.ensemble_size} voting serve (quorum {health.quorum})")
    elif any(s.mode == "standalone" for s in health.servers):
        parts.append("standalone")  # a standalone server has no leader to name, nor lacks one
        return " · ".join(parts)
    parts.append(f"leader {health.leader}" if health.leader else "no leader")
    return " · ".join(parts)


def session_line(health: EnsembleHealth) -> str:
    """What the servers grant for session timeouts and what Kafka's brokers ask for."""
    mins = {s.min_session_timeout for s in health.servers if s.min_session_timeout is not None}
    maxs = {s.max_session_timeout for s in health.servers if s.max_session_timeout is not None}
    grant = (
        f"servers grant {'/'.join(f'{v:,}' for v in sorted(mins))}-{'/'.join(f'{v:,}' for v in sorted(maxs))} ms"
        if mins and maxs
        else "servers' session bounds unknown (conf not read)"
    )
    asked = "; ".join(f"{v:,} ms ({_brokers_text(b)})" for v, b in _brokers_by_value(health.kafka).items())
    kafka = f"Kafka asks {asked}" if asked else (health.kafka.reason or "Kafka's value unknown")
    return f"session timeouts: {grant}; {kafka}"


def headline(health: EnsembleHealth) -> tuple[str, str] | None:
    """The one line the cluster screen shows, and its severity (``ok``, ``warning``, ``error``); ``None``
    when there is no server to show (a recording). The worst alarm first, then how many more."""
    if not health.servers:
        return None
    ordered = sorted(health.alarms, key=lambda a: a.severity != "error")
    if not ordered:
        return f"ZooKeeper: {summary_line(health)} · no alarm", "ok"
    more = f" (+{len(ordered) - 1} more)" if len(ordered) > 1 else ""
    return f"ZooKeeper: {ordered[0].text}{more}", ordered[0].severity
