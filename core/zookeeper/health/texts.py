"""The texts every surface shows of ZooKeeper's health (``kzc zk health``, the console's panel and screen)."""

from __future__ import annotations

from core.human_size import human_size
from core.zookeeper.health.model import EnsembleHealth, ServerHealth, brokers_by_value, brokers_text

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
    asked = "; ".join(f"{v:,} ms ({brokers_text(b)})" for v, b in brokers_by_value(health.kafka).items())
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
