"""A real ZooKeeper-to-KRaft migration of a sandbox (Kafka 3.9, KIP-866), step by step on real processes.

The steps follow Kafka's 3.9 migration guide as measured on this sandbox (``shared/kafka/kraft-migration.md``):

1. ``controller``: format one KRaft controller (node 3000) with the cluster id of ``/cluster/id`` and start it
   in migration mode on 127.0.0.1; it creates ``/migration`` (all -1) and waits for the brokers.
2. ``dual-write``: roll every ZooKeeper-mode broker into migration mode (clean stop, migration properties,
   restart); once the last one registers with the controller, it copies the metadata and dual-writes
   ZooKeeper (``/controller`` names it with its epoch, ``/migration`` carries an offset >= 0).
3. ``kraft``: roll brokers (all, or the ids given) to KRaft mode: they leave ``/brokers/ids``.
4. ``finalized``: restart the controller without ZooKeeper: the migration is complete, ZooKeeper is frozen.

The controller is recorded in ``sandbox.json`` (``processes``) so ``kzc sandbox down`` stops it, and the
mode of each broker under ``migration``. kzc's own commands never write here: the sandbox is the cluster.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.brokers.probe import broker_view
from core.errors import SandboxError, UsageError
from core.kafka.znodes.paths import CLUSTER_ID, CONTROLLER, MIGRATION
from core.polling import DeadlineExceeded, wait_until
from core.sandbox.jars import KAFKA_VERSION
from core.sandbox.local_cluster import BROKER_HEAP, Sandbox, free_ports
from core.sandbox.processes import log_tail

CONTROLLER_ID = 3000
PHASES = ("controller", "dual-write", "kraft", "finalized")
_CONTROLLER_HEAP = ["-Xms32m", "-Xmx256m"]
_CONTROLLER_PROCESS = f"kraft-controller-{CONTROLLER_ID}"
# What Kafka's guide adds to a ZooKeeper broker to put it in migration mode (IBP 3.9: the controllers'
# metadata.version, which a migrating broker must equal).
_IBP = "3.9"


@dataclass(frozen=True)
class MigrationProgress:
    """Where the sandbox's migration stands, and how long each step of this run took (seconds)."""

    phase: str | None
    controller_id: int | None
    controller_port: int | None
    controller_pid: int | None
    broker_modes: dict[int, str]
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """A JSON-able dict."""
        return {
            "phase": self.phase,
            "controller": {"id": self.controller_id, "port": self.controller_port, "pid": self.controller_pid},
            "brokers": [{"id": b, "mode": m} for b, m in sorted(self.broker_modes.items())],
            "timings": {k: round(v, 2) for k, v in self.timings.items()},
        }


def storage_format_args(cluster_id: str, props: Path) -> list[str]:
    """``kafka-storage format``'s arguments for ``cluster_id``: one '='-joined argument, since a cluster id is
    base64url and may begin with '-', which argparse4j would take for an option ("--cluster-id/-t: expected one
    argument" failed a CI run)."""
    return ["format", f"--cluster-id={cluster_id}", "-c", str(props)]


class SandboxMigration:
    """Drive a sandbox's migration forward; each call goes as far as asked, skipping what is done."""

    def __init__(self, box: Sandbox, log: Callable[[str], None] | None = None) -> None:
        self.box = box
        self._log = log or (lambda _line: None)
        self._timings: dict[str, float] = {}

    # ---- state ----------------------------------------------------------------------------------

    def progress(self) -> MigrationProgress:
        """What ``sandbox.json`` records of the migration."""
        raw = self._state()
        pid = self.box.state.processes().get(_CONTROLLER_PROCESS)
        return MigrationProgress(
            phase=raw.get("phase"),
            controller_id=raw.get("controller_id"),
            controller_port=raw.get("controller_port"),
            controller_pid=pid if pid is not None and self.box.jvm.alive(pid) else None,
            broker_modes={b.id: raw.get("modes", {}).get(str(b.id), "zookeeper") for b in self.box.info().brokers},
            timings=dict(self._timings),
        )

    def _state(self) -> dict[str, Any]:
        return self.box.state.section("migration")

    def _save(self, **changes: Any) -> None:
        self.box.state.update(migration={**self._state(), **changes})

    def _set_mode(self, broker_id: int, mode: str) -> None:
        self._save(modes={**self._state().get("modes", {}), str(broker_id): mode})

    def _timed(self, name: str, started: float) -> None:
        self._timings[name] = time.monotonic() - started
        self._log(f"  {name}: {self._timings[name]:.1f} s")

    # ---- the walk -------------------------------------------------------------------------------

    def to(self, phase: str, brokers: Sequence[int] | None = None, timeout: float = 180.0) -> MigrationProgress:
        """Go up to ``phase`` (one of ``PHASES``); ``brokers`` limits the ``kraft`` step to those ids.

        Raises:
            UsageError: an unknown phase, unknown broker ids, or ``finalized`` while a broker is not KRaft.
            SandboxError: a process failed to start or the cluster did not reach the phase in time.
        """
        if phase not in PHASES:
            raise UsageError(f"--to {phase}: choose one of {', '.join(PHASES)}")
        info = self.box.info()
        if info.versions != (KAFKA_VERSION,):
            raise UsageError(
                f"the sandbox's migration rolls Kafka {KAFKA_VERSION} brokers; this sandbox runs "
                f"{' and '.join(info.versions)} (start one with kzc sandbox up --kafka-version {KAFKA_VERSION})"
            )
        known = {b.id for b in info.brokers}
        if brokers is not None and (unknown := sorted(set(brokers) - known)):
            raise UsageError(f"the sandbox has no broker {', '.join(map(str, unknown))}")
        target = PHASES.index(phase)
        if self._state().get("controller_id") is None:
            self._start_controller(timeout)
        if target >= PHASES.index("dual-write"):
            self._dual_write(timeout)
        if target >= PHASES.index("kraft"):
            ids = sorted(known) if brokers is None or phase == "finalized" else sorted(brokers)
            for broker_id in ids:
                if self.progress().broker_modes[broker_id] != "kraft":
                    self._roll_to_kraft(broker_id, timeout)
            done = all(m == "kraft" for m in self.progress().broker_modes.values())
            self._save(phase="kraft" if done or phase != "finalized" else self._state().get("phase"))
        if target >= PHASES.index("finalized"):
            self._finalize(timeout)
        return self.progress()

    def _start_controller(self, timeout: float) -> None:
        info = self.box.info()
        (port,) = free_ports(1)
        cdir = self.box.dir / f"controller-{CONTROLLER_ID}"
        cdir.mkdir(exist_ok=True)
        with self.box.zookeeper() as zk:
            if not zk.exists(CLUSTER_ID):
                raise SandboxError(f"{CLUSTER_ID} is missing: no broker ever started, nothing to migrate")
            cluster_id = str(json.loads(zk.get(CLUSTER_ID)[0])["id"])
        props = cdir / "controller.properties"
        props.write_text(
            "\n".join(
                [
                    "process.roles=controller",
                    f"node.id={CONTROLLER_ID}",
                    f"controller.quorum.voters={CONTROLLER_ID}@127.0.0.1:{port}",
                    "controller.listener.names=CONTROLLER",
                    f"listeners=CONTROLLER://127.0.0.1:{port}",
                    # PLAINTEXT must be mapped: it is how the controller reaches the ZooKeeper-mode brokers.
                    "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
                    "inter.broker.listener.name=PLAINTEXT",
                    f"log.dirs={cdir / 'data'}",
                    "zookeeper.metadata.migration.enable=true",
                    f"zookeeper.connect={info.zookeeper}",
                    "zookeeper.session.timeout.ms=6000",
                    "num.network.threads=1",
                    "num.io.threads=2",
                    "background.threads=2",
                ]
            )
            + "\n"
        )
        started = time.monotonic()
        self._log(f"formatting KRaft controller {CONTROLLER_ID} with cluster id {cluster_id}")
        tool = storage_format_args(cluster_id, props)
        cmd = self.box.jvm.command(cdir, _CONTROLLER_HEAP, "kafka.tools.StorageTool", *tool, log="format.log")
        done = subprocess.run(cmd, cwd=cdir, capture_output=True, text=True, timeout=timeout, check=False)
        if done.returncode != 0:
            raise SandboxError(f"formatting the KRaft controller failed:\n{done.stdout}{done.stderr}")
        self._timed("format", started)
        started = time.monotonic()
        pid = self.box.jvm.spawn(cdir, _CONTROLLER_HEAP, "kafka.Kafka", str(props))
        self.box.state.set_process(_CONTROLLER_PROCESS, pid)
        self._save(controller_id=CONTROLLER_ID, controller_port=port, phase="controller")
        self._log(f"KRaft controller {CONTROLLER_ID} starting on 127.0.0.1:{port} (pid {pid})")
        # Its migration driver creates /migration (all -1) once it leads the quorum: waiting for brokers.
        self._wait(lambda zk: zk.exists(MIGRATION) is not None, pid, timeout, f"{MIGRATION} to appear")
        self._timed("controller", started)

    def _dual_write(self, timeout: float) -> None:
        pid = self._controller_pid()
        for b in self.box.info().brokers:
            if self.progress().broker_modes[b.id] != "zookeeper":
                continue
            started = time.monotonic()
            self.box.stop_broker(b.id)
            props = self.box.dir / f"broker-{b.id}" / "server.properties"
            _rewrite(props, lambda _key: False, self._migration_properties())
            self.box.start_broker(b.id, timeout)
            self._set_mode(b.id, "migration")
            self._timed(f"roll broker {b.id} to migration", started)
        started = time.monotonic()
        self._wait(_dual_writing, pid, timeout, "the KRaft controller to migrate the metadata and dual-write")
        self._save(phase="dual-write")
        self._timed("migration to dual write", started)

    def _roll_to_kraft(self, broker_id: int, timeout: float) -> None:
        started = time.monotonic()
        broker = self.box.info().broker(broker_id)
        if broker.pid is not None and self.box.jvm.alive(broker.pid):
            self.box.stop_broker(broker_id)
        bdir = self.box.dir / f"broker-{broker_id}"
        props = bdir / "server.properties"
        _rewrite(
            props,
            lambda key: (
                key in ("broker.id", "inter.broker.protocol.version")
                or key.startswith(("zookeeper.", "controlled.shutdown."))
            ),
            {"process.roles": "broker", "node.id": str(broker_id)},
        )
        pid = self.box.jvm.spawn(bdir, BROKER_HEAP, "kafka.Kafka", str(props))
        self.box.state.set_broker_pid(broker_id, pid)
        self._set_mode(broker_id, "kraft")
        running = {b.id for b in self.box.info().brokers if b.pid is not None and self.box.jvm.alive(b.pid)}

        def serving() -> bool:
            if not self.box.jvm.alive(pid):
                raise SandboxError(f"KRaft broker {broker_id} exited at start-up:\n{log_tail(bdir / 'server.log')}")
            try:
                view = broker_view("127.0.0.1", broker.port, timeout=2.0)
            except OSError:
                return False
            return running <= view.brokers

        try:
            wait_until(serving, timeout, f"KRaft broker {broker_id} to serve, knowing its peers")
        except DeadlineExceeded as exc:
            raise SandboxError(f"{exc} (logs in {bdir})") from None
        self._timed(f"roll broker {broker_id} to KRaft", started)

    def _finalize(self, timeout: float) -> None:
        if self._state().get("phase") == "finalized":
            return
        modes = self.progress().broker_modes
        if any(m != "kraft" for m in modes.values()):
            raise UsageError("finalize only once every broker runs in KRaft mode (Kafka's migration guide)")
        started = time.monotonic()
        pid = self._controller_pid()
        self.box.jvm.stop([pid], 30.0)
        cdir = self.box.dir / f"controller-{CONTROLLER_ID}"
        log = cdir / "server.log"
        mark = log.stat().st_size if log.exists() else 0
        _rewrite(cdir / "controller.properties", lambda key: key.startswith("zookeeper."), {})
        pid = self.box.jvm.spawn(cdir, _CONTROLLER_HEAP, "kafka.Kafka", str(cdir / "controller.properties"))
        self.box.state.set_process(_CONTROLLER_PROCESS, pid)

        def finalized() -> bool:
            if not self.box.jvm.alive(pid):
                raise SandboxError(f"the KRaft controller exited at start-up:\n{log_tail(log)}")
            with open(log, "rb") as f:
                f.seek(mark)
                return b"from MIGRATION to POST_MIGRATION" in f.read()

        try:
            wait_until(finalized, timeout, "the KRaft controller to complete the migration (POST_MIGRATION)")
        except DeadlineExceeded as exc:
            raise SandboxError(f"{exc} (logs in {cdir})") from None
        self._save(phase="finalized")
        self._timed("finalize", started)

    # ---- helpers --------------------------------------------------------------------------------

    def _controller_pid(self) -> int:
        pid = self.box.state.processes().get(_CONTROLLER_PROCESS)
        if pid is None or not self.box.jvm.alive(pid):
            raise SandboxError(
                f"the KRaft controller {CONTROLLER_ID} of this sandbox is not running "
                f"(logs in {self.box.dir / f'controller-{CONTROLLER_ID}'})"
            )
        return pid

    def _migration_properties(self) -> dict[str, str]:
        port = self._state()["controller_port"]
        return {
            "zookeeper.metadata.migration.enable": "true",
            "controller.quorum.voters": f"{CONTROLLER_ID}@127.0.0.1:{port}",
            "controller.listener.names": "CONTROLLER",
            "listener.security.protocol.map": "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
            "inter.broker.protocol.version": _IBP,
        }

    def _wait(self, condition: Callable[[Any], bool], pid: int, timeout: float, what: str) -> None:
        log = self.box.dir / f"controller-{CONTROLLER_ID}" / "server.log"

        def check(zk: Any) -> bool:
            if not self.box.jvm.alive(pid):
                raise SandboxError(f"the KRaft controller exited:\n{log_tail(log)}")
            return condition(zk)

        with self.box.zookeeper() as zk:
            try:
                wait_until(lambda: check(zk), timeout, what)
            except DeadlineExceeded as exc:
                raise SandboxError(f"{exc} (logs in {log.parent})") from None


def _dual_writing(zk: Any) -> bool:
    """ZooKeeper's signature of dual write: a KRaft controller in ``/controller`` and an offset in ``/migration``."""
    if not zk.exists(CONTROLLER) or not zk.exists(MIGRATION):
        return False
    controller = json.loads(zk.get(CONTROLLER)[0])
    migration = json.loads(zk.get(MIGRATION)[0])
    return int(controller.get("kraftControllerEpoch", -1)) >= 0 and int(migration["kraft_metadata_offset"]) >= 0


def _rewrite(path: Path, drop: Callable[[str], bool], add: dict[str, str]) -> None:
    """Rewrite a .properties file: drop the keys ``drop`` selects and those in ``add``, then append ``add``."""
    kept = []
    for line in path.read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        if line.strip() and not line.lstrip().startswith("#") and (drop(key) or key in add):
            continue
        kept.append(line)
    path.write_text("\n".join([*kept, *(f"{k}={v}" for k, v in add.items())]) + "\n")
