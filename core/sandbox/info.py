"""What a sandbox is: its brokers, its ZooKeeper and the options it was started with, as ``sandbox.json``
records them and ``kzc sandbox up --json`` prints them (``SandboxInfo``), and its live state for
``kzc sandbox status`` (``SandboxStatus``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from core.errors import UsageError
from core.sandbox.ensemble import ZkServerInfo
from core.sandbox.jars import KAFKA_VERSION
from core.sandbox.releases import KafkaRelease


@dataclass(frozen=True)
class BrokerInfo:
    """One sandbox broker; ``pid`` is None while it is stopped."""

    id: int
    port: int
    rack: str | None
    pid: int | None
    kafka_version: str = KAFKA_VERSION  # the release this broker runs (sandboxes before versions: 3.9.1)
    sasl_port: int | None = None  # the SASL_PLAINTEXT (SCRAM) listener of a --security sandbox
    metrics_url: str | None = None  # the Prometheus JMX exporter of a --metrics sandbox (core.sandbox.metrics)


@dataclass(frozen=True)
class SandboxInfo:
    """What a running sandbox offers: the ``--json`` output of ``kzc sandbox up``."""

    dir: str
    zookeeper: str
    bootstrap_servers: str
    zookeeper_port: int
    zookeeper_pid: int | None
    brokers: tuple[BrokerInfo, ...]
    kafka_version: str = KAFKA_VERSION  # the release of every broker not given another (--broker-version)
    broker_config: dict[str, str] = field(default_factory=dict)  # extra server.properties, every broker
    ensemble: tuple[ZkServerInfo, ...] = ()  # with --zookeepers N > 1 (core.sandbox.ensemble); else empty
    log_dirs: int = 1  # log dirs per broker (--log-dirs N: JBOD, a broker outlives a failed dir, KIP-112)
    sasl_bootstrap_servers: str = ""  # --security: the SCRAM listeners (core.sandbox.security); else empty

    @property
    def versions(self) -> tuple[str, ...]:
        """The releases the brokers run, oldest first, each once (two during a rolling upgrade)."""
        releases = sorted({KafkaRelease.parse(b.kafka_version) for b in self.brokers})
        return tuple(r.version for r in releases)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict (``brokers`` and ``ensemble`` as lists of objects)."""
        data = asdict(self)
        data["brokers"] = [asdict(b) for b in self.brokers]
        data["ensemble"] = [asdict(z) for z in self.ensemble]
        return data

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> SandboxInfo:
        """The info ``sandbox.json`` records (keys added later default for older files)."""
        return cls(
            dir=raw["dir"],
            zookeeper=raw["zookeeper"],
            bootstrap_servers=raw["bootstrap_servers"],
            zookeeper_port=raw["zookeeper_port"],
            zookeeper_pid=raw["zookeeper_pid"],
            brokers=tuple(BrokerInfo(**b) for b in raw["brokers"]),
            kafka_version=raw["kafka_version"],
            broker_config=dict(raw.get("broker_config", {})),
            ensemble=tuple(ZkServerInfo.from_json(z) for z in raw.get("ensemble", [])),
            log_dirs=int(raw.get("log_dirs", 1)),
            sasl_bootstrap_servers=raw.get("sasl_bootstrap_servers", ""),
        )

    def zookeeper_server(self, server_id: int) -> ZkServerInfo:
        """Server ``server_id`` of the ensemble.

        Raises:
            UsageError: no such server (or the sandbox runs a single ZooKeeper).
        """
        for z in self.ensemble:
            if z.id == server_id:
                return z
        if not self.ensemble:
            raise UsageError("this sandbox runs a single ZooKeeper (start one with --zookeepers 3 for an ensemble)")
        known = ", ".join(str(z.id) for z in self.ensemble)
        raise UsageError(f"the sandbox has no ZooKeeper server {server_id} (its servers: {known})")

    def broker(self, broker_id: int) -> BrokerInfo:
        """The broker with this id.

        Raises:
            UsageError: no such broker in this sandbox.
        """
        for b in self.brokers:
            if b.id == broker_id:
                return b
        known = ", ".join(str(b.id) for b in self.brokers)
        raise UsageError(f"the sandbox has no broker {broker_id} (its brokers: {known})")

    def log_dir_paths(self, broker_id: int) -> tuple[Path, ...]:
        """The broker's ``log.dirs`` (``data``, or ``data-1``..``data-N`` with ``log_dirs`` N > 1)."""
        bdir = Path(self.dir) / f"broker-{self.broker(broker_id).id}"
        if self.log_dirs <= 1:
            return (bdir / "data",)
        return tuple(bdir / f"data-{n}" for n in range(1, self.log_dirs + 1))


@dataclass(frozen=True)
class SandboxStatus:
    """The live state of a sandbox: which processes run and what ZooKeeper shows."""

    info: SandboxInfo
    zookeeper_alive: bool
    brokers_alive: dict[int, bool]
    registered: tuple[int, ...]
    controller: int | None
    zookeepers_alive: dict[int, bool] = field(default_factory=dict)  # per ensemble server (--zookeepers N)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return {
            **self.info.to_json(),
            "zookeeper_alive": self.zookeeper_alive,
            "zookeepers_alive": {str(k): v for k, v in self.zookeepers_alive.items()},
            "brokers_alive": {str(k): v for k, v in self.brokers_alive.items()},
            "registered": list(self.registered),
            "controller": self.controller,
        }
