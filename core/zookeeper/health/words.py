"""ZooKeeper's four-letter words and AdminServer commands: what kzc asks, and the parsers that turn one reply
into *facts* (a flat dict with the keys of ``FACT_KEYS``)."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import suppress
from typing import Any

WORDS = ("srvr", "mntr", "conf")
ADMIN_COMMANDS = {"srvr": "server_stats", "mntr": "monitor", "conf": "configuration"}
DEFAULT_ADMIN_PORT = 8080  # ZooKeeper's admin.serverPort default
NOT_WHITELISTED = "is not executed because it is not in the whitelist."
NOT_SERVING = "This ZooKeeper instance is not currently serving requests"
WHITELIST_HINT = (
    "4lw.commands.whitelist=srvr,mntr,conf in zoo.cfg (or -Dzookeeper.4lw.commands.whitelist=srvr,mntr,conf), "
    "then restart the server"
)

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
