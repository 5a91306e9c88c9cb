"""A ZooKeeper ensemble for the sandbox (``kzc sandbox up --zookeepers 3``): what each server is and its config.

Server N listens on its own loopback address ``127.0.0.N`` (Linux routes all of 127.0.0.0/8 to ``lo``), with
the same client, quorum, election and AdminServer ports on every address: so the connect string is
``127.0.0.1:P,127.0.0.2:P,127.0.0.3:P`` and one ``--admin-port`` reaches every server's AdminServer, as on
a real ensemble where each server is its own host. The processes themselves are started and stopped by
``core.sandbox.local_cluster.Sandbox`` (``start_zookeeper`` / ``kill_zookeeper``).
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import SandboxError

# Four-letter words the sandbox's servers allow unless told otherwise (ZooKeeper's default is srvr alone).
DEFAULT_WORDS = "srvr,stat,ruok,mntr,conf"
MAX_ZOOKEEPERS = 7


@dataclass(frozen=True)
class ZkServerInfo:
    """One server of the sandbox's ensemble; ``pid`` is None while it is stopped."""

    id: int
    host: str
    port: int
    admin_port: int
    pid: int | None

    @property
    def address(self) -> str:
        """``HOST:PORT`` of its client port."""
        return f"{self.host}:{self.port}"

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ZkServerInfo:
        """Read back what ``sandbox.json`` holds."""
        return cls(int(raw["id"]), str(raw["host"]), int(raw["port"]), int(raw["admin_port"]), raw.get("pid"))


def server_host(server_id: int) -> str:
    """The loopback address of server ``server_id``."""
    return f"127.0.0.{server_id}"


def shared_free_ports(hosts: Sequence[str], n: int, attempts: int = 50) -> list[int]:
    """``n`` distinct TCP ports free on every one of ``hosts`` (picked on the first, checked on the others).

    Raises:
        SandboxError: no such ports found (e.g. an address of 127.0.0.0/8 is not usable here).
    """
    for _ in range(attempts):
        socks: list[socket.socket] = []
        try:
            for _ in range(n):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                socks.append(s)
                s.bind((hosts[0], 0))
            ports = [s.getsockname()[1] for s in socks]
            for host in hosts[1:]:
                for port in ports:
                    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    socks.append(s)
                    s.bind((host, port))
            return ports
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise SandboxError(f"no {n} TCP ports free on every one of {', '.join(hosts)}")


def member_config(
    me: ZkServerInfo, servers: Sequence[ZkServerInfo], data_dir: Path, quorum_port: int, election_port: int,
    tick_ms: int, words: str,
) -> str:  # fmt: skip
    """The ``zoo.cfg`` of one member: its own address for clients and the AdminServer, every member's
    quorum and election ports, ``4lw.commands.whitelist=words``."""
    lines = [
        f"tickTime={tick_ms}",
        "initLimit=20",
        "syncLimit=10",
        f"dataDir={data_dir}",
        f"clientPort={me.port}",
        f"clientPortAddress={me.host}",
        "maxClientCnxns=0",
        f"4lw.commands.whitelist={words}",
        "admin.enableServer=true",
        f"admin.serverAddress={me.host}",
        f"admin.serverPort={me.admin_port}",
    ]
    lines += [f"server.{s.id}={s.host}:{quorum_port}:{election_port}" for s in servers]
    return "\n".join(lines) + "\n"
