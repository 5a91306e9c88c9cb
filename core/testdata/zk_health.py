"""Synthetic ZooKeeper ensemble health for console tests, demos and snapshots: three servers with the figures
a small ensemble of ZooKeeper 3.8.4 shows (as in tests/unit/fixtures/zk_health/), some of them stopped."""

from __future__ import annotations

from collections.abc import Mapping

from core.zookeeper.health import EnsembleHealth, KafkaSessionTimeouts, ServerHealth, assess

MEMBERS = tuple(f"server.{n}=zk-{n}.example:2888:3888:participant" for n in (1, 2, 3))


def ensemble_health(
    at_ms: int,
    stopped: tuple[int, ...] = (),
    kafka: Mapping[int, int] | None = None,
    last_seen_ms: int | None = None,
) -> EnsembleHealth:
    """Servers ``zk-1..3.example:2181``, server 3 leading unless stopped (then server 2; with two stopped the
    last one answers "not serving"). ``kafka``: each broker's ``zookeeper.session.timeout.ms``; a stopped
    server keeps a reading from ``last_seen_ms`` when given."""
    up = [n for n in (1, 2, 3) if n not in stopped]
    leader = up[-1] if len(up) >= 2 else None
    servers = []
    for n in (1, 2, 3):
        name = f"zk-{n}.example:2181"
        if n in stopped:
            seen = None
            if last_seen_ms is not None:
                seen = _serving(name, last_seen_ms, n, "leader" if n == 3 else "follower", synced=2)
            servers.append(ServerHealth(name, at_ms, error="connection refused", last_seen=seen))
        elif leader is None:
            servers.append(ServerHealth(name, at_ms, reachable=True, serving=False, sources={"srvr": "4lw"}))
        else:
            synced = len(up) - 1 if n == leader else None
            servers.append(_serving(name, at_ms, n, "leader" if n == leader else "follower", synced))
    timeouts = KafkaSessionTimeouts(dict(kafka or {}), at_ms=at_ms)
    return assess(servers, at_ms, timeouts)


def _serving(name: str, at_ms: int, n: int, mode: str, synced: int | None) -> ServerHealth:
    return ServerHealth(
        server=name,
        probed_at_ms=at_ms,
        reachable=True,
        serving=True,
        version="3.8.4-9316c2a7a97e1666d8f4593f34dd6fc36ecc436c",
        mode=mode,
        zxid=0x3_0000_1F40 - (0 if mode == "leader" else 3 * n),
        latency_min=0.0,
        latency_avg=0.4 * n,
        latency_max=12.0 * n,
        outstanding=0,
        connections=4 + n,
        znodes=5120,
        watches=830,
        ephemerals=6,
        data_size=412_000,
        open_fds=90 + n,
        max_fds=20000,
        fsync_exceeded=0,
        followers=synced,
        synced_followers=synced,
        pending_syncs=0 if synced is not None else None,
        quorum_size=3,
        min_session_timeout=4000,
        max_session_timeout=40000,
        tick_time=2000,
        server_id=n,
        members=MEMBERS,
        sources={"srvr": "4lw", "mntr": "4lw", "conf": "4lw", "fsync": "admin"},
    )
