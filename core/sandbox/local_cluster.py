"""A real local cluster for trying kzc and for the integration tests: ZooKeeper and N Kafka brokers.

Everything listens on 127.0.0.1 on free ports; Kafka runs in ZooKeeper mode under the chroot ``/kafka``
with ``delete.topic.enable=true`` and, when racks are given, ``broker.rack`` per broker. The sandbox
directory holds ``sandbox.json`` (ports and PIDs), each process's config, data and logs. Every JVM is
started with ``-Dkzc.sandbox=<dir>`` so that stopping it never signals a PID that was recycled by
another program.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing, contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path

from kazoo.client import KazooClient
from kazoo.exceptions import KazooException
from kazoo.handlers.threading import KazooTimeoutError
from kazoo.retry import KazooRetry

from core.brokers.probe import broker_view
from core.errors import SandboxError, UsageError
from core.interrupt import cleanup_on_interrupt
from core.kafka.znodes.paths import BROKER_IDS, CONTROLLER, broker_path
from core.polling import DeadlineExceeded, wait_until
from core.sandbox.ensemble import (
    DEFAULT_WORDS,
    MAX_ZOOKEEPERS,
    ZkServerInfo,
    member_config,
    server_host,
    shared_free_ports,
)
from core.sandbox.info import BrokerInfo, SandboxInfo, SandboxStatus
from core.sandbox.jars import (
    KAFKA_VERSION,
    ensure_admin_server_jars,
    ensure_exporter_jar,
    ensure_jars,
    java_executable,
)
from core.sandbox.metrics import agent_option, metrics_url, write_rules
from core.sandbox.processes import SandboxJvms, log_tail
from core.sandbox.releases import KafkaRelease
from core.sandbox.security import jaas_option
from core.sandbox.security import prepare as prepare_security
from core.sandbox.server_properties import LOG4J, broker_properties
from core.sandbox.state import STATE_FILE, SandboxState
from core.sandbox.traffic import stop_traffic

CHROOT = "/kafka"
DEFAULT_BROKERS = 3
FIRST_BROKER_ID = 1
# Small heaps and the serial collector: three brokers and ZooKeeper share 2 cores with the tests.
_ZK_HEAP = ["-Xms32m", "-Xmx128m"]
BROKER_HEAP = ["-Xms64m", "-Xmx384m"]
# ZooKeeper tick 500 ms allows broker sessions of 6 s (server_properties.BROKER_SESSION_MS): a killed broker
# leaves /brokers/ids quickly.
_ZK_TICK_MS = 500

MAX_LOG_DIRS = 4


def default_dir() -> Path:
    """The sandbox directory used when none is given: ``$KZC_SANDBOX_DIR`` or a per-user state dir."""
    if env := os.environ.get("KZC_SANDBOX_DIR"):
        return Path(env).expanduser()
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "kzc" / "sandbox"


class Sandbox:
    """A sandbox cluster in a directory. Use ``Sandbox.up`` to start one, ``Sandbox(dir)`` to attach."""

    def __init__(self, directory: Path | str | None = None) -> None:
        self.dir = Path(directory).expanduser().resolve() if directory else default_dir().resolve()
        self.state = SandboxState(self.dir)
        self.jvm = SandboxJvms(self.dir, self.state)

    # ---- starting -------------------------------------------------------------------------------

    @classmethod
    def up(
        cls,
        directory: Path | str | None = None,
        brokers: int = DEFAULT_BROKERS,
        racks: Sequence[str] | None = None,
        timeout: float = 180.0,
        log: Callable[[str], None] | None = None,
        broker_config: Mapping[str, str] | None = None,
        kafka_version: str = KAFKA_VERSION,
        broker_versions: Mapping[int, str] | None = None,
        zookeepers: int = 1,
        zk_words: str | None = None,
        log_dirs: int = 1,
        security: bool = False,
        metrics: bool = False,
    ) -> Sandbox:
        """Start ZooKeeper and ``brokers`` brokers; return once a controller is elected and every
        broker is registered and serves clients (it answers Metadata naming the controller and its peers).

        Racks are given to brokers in order, cycling when there are fewer racks than brokers.
        ``broker_config`` adds static properties to every broker's server.properties (a key the sandbox sets
        itself is replaced), e.g. ``{"min.insync.replicas": "2"}``.
        Brokers run Kafka ``kafka_version`` (0.10.2 to 3.9), except those ``broker_versions`` gives another
        release by id (a rolling upgrade half done: every broker then keeps ``inter.broker.protocol.version``
        at the oldest release). ZooKeeper is always the one of the default release's jars.
        ``zookeepers`` > 1 starts an ensemble
        (``core.sandbox.ensemble``: server N on 127.0.0.N, AdminServer on, ``4lw.commands.whitelist=zk_words``).
        ``log_dirs`` > 1 gives each broker that many log dirs (JBOD): from Kafka 1.0 (KIP-112) a broker whose
        dir fails marks it offline and goes on with the others; it shuts down only when its last dir fails.
        ``security`` adds a SASL_PLAINTEXT listener with SCRAM and the ZooKeeper authorizer
        (``core.sandbox.security``; the admin's credentials are written before the brokers start).
        ``metrics`` starts every broker with the Prometheus JMX exporter's agent on a free loopback port
        (``core.sandbox.metrics``; each broker's ``metrics_url``).

        Raises:
            UsageError: bad broker count or rack names.
            MissingToolError: java or (on first use) mvn missing.
            SandboxError: a sandbox already runs in the directory, or a process failed to start
                (everything started is stopped again).
        """
        if brokers < 1:
            raise UsageError("--brokers must be at least 1")
        racks = list(racks or [])
        if any(not r or r != r.strip() for r in racks):
            raise UsageError("--racks takes non-empty rack names separated by commas, e.g. r1,r2,r3")
        extra = dict(broker_config or {})
        for key, value in extra.items():
            if not key or key != key.strip() or "=" in key or any(c in key + value for c in "\r\n"):
                raise UsageError(f"--broker-config {key}={value}: give KEY=VALUE, one property on one line")
        default_release = KafkaRelease.parse(kafka_version)
        ids = range(FIRST_BROKER_ID, FIRST_BROKER_ID + brokers)
        releases = {i: default_release for i in ids}
        for broker_id, version in (broker_versions or {}).items():
            if broker_id not in releases:
                raise UsageError(
                    f"--broker-version {broker_id}={version}: the sandbox's brokers are {ids[0]}..{ids[-1]}"
                )
            releases[broker_id] = KafkaRelease.parse(version)
        if not 1 <= log_dirs <= MAX_LOG_DIRS:
            raise UsageError(f"--log-dirs must be between 1 and {MAX_LOG_DIRS}")
        if not 1 <= zookeepers <= MAX_ZOOKEEPERS:
            raise UsageError(f"--zookeepers must be between 1 and {MAX_ZOOKEEPERS}")
        if zk_words is not None and (zookeepers == 1 or not all(w.strip().isalpha() for w in zk_words.split(","))):
            raise UsageError("--zk-words takes four-letter words separated by commas (with --zookeepers 2 or more)")
        box = cls(directory)
        if box.state.path.exists() and box._any_alive():
            raise SandboxError(
                f"a sandbox is already running in {box.dir}; stop it with: kzc sandbox down --dir {box.dir}"
            )
        java = java_executable()
        jars = ensure_jars(log)
        broker_jars = {r.version: str(ensure_jars(log, r)) for r in sorted(set(releases.values()))}
        box._prepare_dir()
        zk_port, *all_ports = free_ports(1 + brokers * (1 + security + metrics))
        broker_ports, all_ports = all_ports[:brokers], all_ports[brokers:]
        sasl_ports: list[int | None] = [*all_ports[:brokers]] if security else [None] * brokers
        urls = [metrics_url(p) for p in all_ports[-brokers:]] if metrics else [None] * brokers
        ensemble: tuple[ZkServerInfo, ...] = ()
        if zookeepers > 1:
            hosts = [server_host(n) for n in range(1, zookeepers + 1)]
            zk_port, admin_port = shared_free_ports(hosts, 2)
            ensemble = tuple(ZkServerInfo(n, h, zk_port, admin_port, None) for n, h in enumerate(hosts, 1))
        zk_hosts = ",".join(z.address for z in ensemble) or f"127.0.0.1:{zk_port}"
        info = SandboxInfo(
            dir=str(box.dir),
            zookeeper=f"{zk_hosts}{CHROOT}",
            bootstrap_servers=",".join(f"127.0.0.1:{p}" for p in broker_ports),
            zookeeper_port=zk_port,
            zookeeper_pid=None,
            brokers=tuple(
                BrokerInfo(i, p, racks[n % len(racks)] if racks else None, None, releases[i].version, s, u)
                for n, (i, p, s, u) in enumerate(zip(ids, broker_ports, sasl_ports, urls, strict=True))
            ),
            kafka_version=default_release.version,
            broker_config=extra,
            ensemble=ensemble,
            log_dirs=log_dirs,
            sasl_bootstrap_servers=",".join(f"127.0.0.1:{p}" for p in sasl_ports if p is not None),
        )
        # "jars" runs ZooKeeper (and a migration's KRaft controller); "broker_jars" each broker's release.
        admin_jars = {"admin_jars": str(ensure_admin_server_jars(log))} if ensemble else {}
        if metrics:
            exporter = {"exporter_jar": str(ensure_exporter_jar(log)), "exporter_rules": str(write_rules(box.dir))}
        else:
            exporter = {}
        tools = {"java": java, "jars": str(jars), "broker_jars": broker_jars, **admin_jars, **exporter}
        box.state.save({**info.to_json(), **tools})
        # Ctrl-C while starting: the command line's main thread stops what was started (core.interrupt).
        with cleanup_on_interrupt(partial(box.stop_quickly)):
            try:
                if ensemble:
                    box._start_ensemble(zk_words or DEFAULT_WORDS, log)
                else:
                    box._start_zookeeper(info, log)
                if security:
                    with box.zookeeper(60.0, chroot=False) as root:
                        root.ensure_path(CHROOT)  # as a broker would: the admin's credentials go below it
                    with box.zookeeper(60.0) as zk:
                        prepare_security(box.dir, zk)
                for b in info.brokers:
                    box._spawn_broker(b.id)
                box._wait_for_cluster([b.id for b in info.brokers], timeout)
            except BaseException:
                box.down()
                raise
        return box

    def start_broker(self, broker_id: int, timeout: float = 120.0) -> BrokerInfo:
        """Restart a stopped broker with its data; return once it is registered again and serves clients.

        Raises:
            SandboxError: the broker is running already, ZooKeeper is down, or it fails to register or serve.
        """
        info = self.info()
        broker = info.broker(broker_id)
        if broker.pid is not None and self.jvm.alive(broker.pid):
            raise SandboxError(f"broker {broker_id} is already running (pid {broker.pid})")
        if not self._zookeeper_alive(info):
            raise SandboxError("ZooKeeper of this sandbox is not running; start a new one with kzc sandbox up")
        # A killed broker's ephemeral registration outlives it until its ZooKeeper session expires, and
        # Kafka refuses to start while it exists (NodeExists): wait for it to go first.
        path = broker_path(broker_id)
        deadline = time.monotonic() + timeout
        with self.zookeeper(30.0) as zk:
            try:
                wait_until(lambda: not zk.exists(path), timeout, f"the old registration {path} to expire")
            except DeadlineExceeded as exc:
                raise SandboxError(str(exc)) from None
        self._spawn_broker(broker_id)
        self._wait_for_cluster([broker_id], max(1.0, deadline - time.monotonic()))
        return self.info().broker(broker_id)

    # ---- stopping -------------------------------------------------------------------------------

    def kill_broker(self, broker_id: int) -> BrokerInfo:
        """Kill one broker hard (SIGKILL), as a crash would; its data stays for ``start_broker``.

        Raises:
            SandboxError: the broker is not running.
        """
        broker = self.info().broker(broker_id)
        self.jvm.kill(self._running(broker.pid, f"broker {broker_id}"))
        self.state.set_broker_pid(broker_id, None)
        return replace(broker, pid=None)

    def stop_broker(self, broker_id: int, timeout: float = 60.0) -> BrokerInfo:
        """Stop one broker cleanly (SIGTERM: a controlled shutdown), SIGKILL past ``timeout``; data stays.

        Raises:
            SandboxError: the broker is not running.
        """
        broker = self.info().broker(broker_id)
        self.jvm.stop([self._running(broker.pid, f"broker {broker_id}")], timeout)
        self.state.set_broker_pid(broker_id, None)
        return replace(broker, pid=None)

    def _running(self, pid: int | None, what: str) -> int:
        """``pid`` when its process is alive (``what`` runs).

        Raises:
            SandboxError: it is not running.
        """
        if pid is None or not self.jvm.alive(pid):
            raise SandboxError(f"{what} is not running")
        return pid

    # ---- the ZooKeeper ensemble (--zookeepers N, core.sandbox.ensemble) -----------------------------------

    def kill_zookeeper(self, server_id: int) -> ZkServerInfo:
        """Kill one server of the ensemble hard (SIGKILL), as a crash would; its data stays.

        Raises:
            UsageError: no such server. SandboxError: it is not running.
        """
        server = self.info().zookeeper_server(server_id)
        self.jvm.kill(self._running(server.pid, f"ZooKeeper server {server_id}"))
        self.state.set_zookeeper_pid(server_id, None)
        return replace(server, pid=None)

    def start_zookeeper(self, server_id: int, timeout: float = 90.0) -> ZkServerInfo:
        """Restart a stopped server of the ensemble with its data; return once it serves (it has joined a
        quorum: alone, without one, it never does and this times out).

        Raises:
            UsageError: no such server. SandboxError: it runs already, exits, or does not serve in time.
        """
        server = self.info().zookeeper_server(server_id)
        if server.pid is not None and self.jvm.alive(server.pid):
            raise SandboxError(f"ZooKeeper server {server_id} is already running (pid {server.pid})")
        self._spawn_zookeeper(server)
        self._wait_for_ensemble([server_id], timeout)
        return self.info().zookeeper_server(server_id)

    def _start_ensemble(self, words: str, log: Callable[[str], None] | None) -> None:
        info = self.info()
        quorum_port, election_port = shared_free_ports([z.host for z in info.ensemble], 2)
        for z in info.ensemble:
            zk_dir = self.dir / f"zookeeper-{z.id}"
            (zk_dir / "data").mkdir(parents=True)
            (zk_dir / "data" / "myid").write_text(f"{z.id}\n")
            (zk_dir / "zoo.cfg").write_text(
                member_config(z, info.ensemble, zk_dir / "data", quorum_port, election_port, _ZK_TICK_MS, words)
            )
            pid = self._spawn_zookeeper(z)
            if log:
                log(f"ZooKeeper {z.id} starting on {z.address}, AdminServer port {z.admin_port} (pid {pid})")
        self._wait_for_ensemble([z.id for z in info.ensemble], 90.0)

    def _spawn_zookeeper(self, server: ZkServerInfo) -> int:
        zk_dir = self.dir / f"zookeeper-{server.id}"
        main = "org.apache.zookeeper.server.quorum.QuorumPeerMain"
        admin_jars = self.state.read()["admin_jars"]  # Jetty, for the AdminServer
        pid = self.jvm.spawn(zk_dir, _ZK_HEAP, main, zk_dir / "zoo.cfg", extra_jars=admin_jars)
        self.state.set_zookeeper_pid(server.id, pid)
        return pid

    def _wait_for_ensemble(self, server_ids: list[int], timeout: float) -> None:
        """Wait until each of ``server_ids`` serves (``srvr`` shows a ``Mode:``)."""
        servers = [z for z in self.info().ensemble if z.id in server_ids]

        def serving() -> bool:
            for z in servers:
                pid = self.info().zookeeper_server(z.id).pid
                if pid is None or not self.jvm.alive(pid):
                    log = self.dir / f"zookeeper-{z.id}" / "server.log"
                    raise SandboxError(f"ZooKeeper server {z.id} exited at start-up:\n{log_tail(log)}")
            return all(zookeeper_serving(z.port, z.host) for z in servers)

        try:
            wait_until(serving, timeout, f"ZooKeeper servers {server_ids} to serve")
        except DeadlineExceeded as exc:
            raise SandboxError(f"{exc} (logs in {self.dir})") from None

    def _zookeeper_alive(self, info: SandboxInfo) -> bool:
        pids = [info.zookeeper_pid, *(z.pid for z in info.ensemble)]
        return any(p is not None and self.jvm.alive(p) for p in pids)

    def stop_quickly(self) -> None:
        """Stop every process at once (Ctrl-C while starting: nothing worth a clean shutdown yet)."""
        self.down(timeout=1.0)

    def down(self, timeout: float = 30.0, clean: bool = True) -> list[int]:
        """Stop every process of the sandbox, brokers first, then other processes (a KRaft controller),
        ZooKeeper last; return the PIDs stopped.

        Brokers get SIGTERM (a clean shutdown) and SIGKILL if they are still there after ``timeout``; not
        ``clean``, SIGKILL at once (a cluster thrown away: a controlled shutdown moves every leader first, about
        a second per 3.9 cluster and up to three per 0.10.2 one). Logs and data stay in the directory. The demo
        traffic (``core.sandbox.traffic``), if any, stops first.
        """
        if not self.state.exists():
            return []
        traffic = stop_traffic(self.dir)
        info = self.info()
        brokers = [b.pid for b in info.brokers if b.pid is not None and self.jvm.alive(b.pid)]
        stopped = self.jvm.stop(brokers, timeout, clean)
        for b in info.brokers:
            self.state.set_broker_pid(b.id, None)
        others = {name: pid for name, pid in self.state.processes().items() if pid is not None and self.jvm.alive(pid)}
        stopped += self.jvm.stop(list(others.values()), timeout, clean)
        for name in others:
            self.state.set_process(name, None)
        zookeepers = [p for p in (info.zookeeper_pid, *(z.pid for z in info.ensemble)) if p is not None]
        stopped += self.jvm.stop([p for p in zookeepers if self.jvm.alive(p)], 15.0, clean)
        self.state.update(zookeeper_pid=None)
        for z in info.ensemble:
            self.state.set_zookeeper_pid(z.id, None)
        return ([traffic] if traffic is not None else []) + stopped

    # ---- inspecting -----------------------------------------------------------------------------

    def info(self) -> SandboxInfo:
        """What ``sandbox.json`` records.

        Raises:
            SandboxError: there is no sandbox in the directory.
        """
        return SandboxInfo.from_json(self.state.read())

    def status(self, timeout: float = 5.0) -> SandboxStatus:
        """Which processes are alive, which brokers are registered, and the controller."""
        info = self.info()
        zk_alive = self._zookeeper_alive(info)
        alive = {b.id: b.pid is not None and self.jvm.alive(b.pid) for b in info.brokers}
        registered: tuple[int, ...] = ()
        controller = None
        if zk_alive:
            try:
                with self.zookeeper(timeout) as zk:
                    registered, controller = _registration(zk)
            except (KazooException, KazooTimeoutError):
                pass
        servers = {z.id: z.pid is not None and self.jvm.alive(z.pid) for z in info.ensemble}
        return SandboxStatus(info, zk_alive, alive, registered, controller, servers)

    def running_pids(self) -> list[int]:
        """PIDs of this sandbox's processes that are alive now."""
        if not self.state.exists():
            return []
        info = self.info()
        pids = [b.pid for b in info.brokers] + [info.zookeeper_pid, *self.state.processes().values()]
        pids += [z.pid for z in info.ensemble]
        return [p for p in pids if p is not None and self.jvm.alive(p)]

    @contextmanager
    def zookeeper(self, timeout: float = 30.0, chroot: bool = True) -> Iterator[KazooClient]:
        """A plain kazoo client (under the sandbox's chroot unless ``chroot`` is False), for the sandbox's own
        orchestration."""
        # Keep retrying the connection until `timeout`: a loaded 2-core machine can be slow to answer.
        retry = KazooRetry(max_tries=-1, max_delay=1.0)
        hosts = self.info().zookeeper if chroot else self.info().zookeeper.removesuffix(CHROOT)
        zk = KazooClient(hosts=hosts, timeout=timeout, connection_retry=retry)
        with warnings.catch_warnings():
            # Until the first broker starts, the /kafka chroot does not exist yet: expected here.
            warnings.filterwarnings("ignore", message="No chroot path exists")
            try:
                zk.start(timeout=timeout)
            except KazooTimeoutError:
                raise SandboxError(
                    f"ZooKeeper at {self.info().zookeeper} did not accept a session within {timeout:.0f} s "
                    f"(logs in {self.dir / 'zookeeper'})"
                ) from None
        try:
            yield zk
        finally:
            zk.stop()
            zk.close()

    # ---- processes ------------------------------------------------------------------------------

    def _start_zookeeper(self, info: SandboxInfo, log: Callable[[str], None] | None) -> None:
        zk_dir = self.dir / "zookeeper"
        (zk_dir / "data").mkdir(parents=True)
        cfg = zk_dir / "zoo.cfg"
        cfg.write_text(
            f"tickTime={_ZK_TICK_MS}\ndataDir={zk_dir / 'data'}\nclientPort={info.zookeeper_port}\n"
            "clientPortAddress=127.0.0.1\nadmin.enableServer=false\nmaxClientCnxns=0\n"
            "4lw.commands.whitelist=srvr,stat,ruok,mntr,cons\n"
        )
        pid = self.jvm.spawn(zk_dir, _ZK_HEAP, "org.apache.zookeeper.server.ZooKeeperServerMain", cfg)
        self.state.update(zookeeper_pid=pid)
        if log:
            log(f"ZooKeeper starting on 127.0.0.1:{info.zookeeper_port} (pid {pid})")

        def serving() -> bool:
            if not self.jvm.alive(pid):
                raise SandboxError(f"ZooKeeper exited at start-up:\n{log_tail(zk_dir / 'server.log')}")
            return zookeeper_serving(info.zookeeper_port)

        try:
            wait_until(serving, 60.0, f"ZooKeeper to serve on port {info.zookeeper_port}")
        except DeadlineExceeded as exc:
            raise SandboxError(str(exc)) from None

    def _spawn_broker(self, broker_id: int) -> int:
        info = self.info()
        broker = info.broker(broker_id)
        bdir = self.dir / f"broker-{broker_id}"
        bdir.mkdir(exist_ok=True)
        props = bdir / "server.properties"
        if not props.exists():
            props.write_text(broker_properties(broker, info))
        raw = self.state.read()
        jars = raw.get("broker_jars", {}).get(broker.kafka_version)
        heap = BROKER_HEAP
        if broker.sasl_port is not None:
            heap = [*heap, *jaas_option(KafkaRelease.parse(broker.kafka_version), self.dir)]
        if broker.metrics_url is not None:
            heap = [*heap, agent_option(raw["exporter_jar"], broker.metrics_url, raw["exporter_rules"])]
        pid = self.jvm.spawn(bdir, heap, "kafka.Kafka", props, jars=jars)
        self.state.set_broker_pid(broker_id, pid)
        return pid

    def _wait_for_cluster(self, broker_ids: list[int], timeout: float) -> None:
        """Wait until the brokers are registered, a controller is elected, and each broker serves clients."""
        wanted = [b for b in self.info().brokers if b.id in broker_ids]

        def started() -> None:
            for broker in wanted:
                if broker.pid is None or not self.jvm.alive(broker.pid):
                    log = self.dir / f"broker-{broker.id}" / "server.log"
                    raise SandboxError(f"broker {broker.id} exited at start-up:\n{log_tail(log)}")

        def registered(zk: KazooClient) -> tuple[int, ...]:
            started()
            ids, controller = _registration(zk)
            return ids if set(broker_ids) <= set(ids) and controller is not None else ()

        # A broker registers before it listens, and learns the controller and its peers only from the
        # controller's first UpdateMetadata: a client arriving earlier is refused or told "no controller".
        def serving(broker: BrokerInfo, peers: set[int]) -> bool:
            started()
            try:
                view = broker_view("127.0.0.1", broker.port, timeout=2.0)
            except OSError:
                return False
            return view.controller is not None and peers <= view.brokers

        deadline = time.monotonic() + timeout
        try:
            with self.zookeeper(min(30.0, timeout)) as zk:
                peers = set(
                    wait_until(lambda: registered(zk), timeout, f"brokers {broker_ids} to register and a controller")
                )
            for broker in wanted:
                wait_until(
                    partial(serving, broker, peers),
                    max(1.0, deadline - time.monotonic()),
                    f"broker {broker.id} to serve clients, knowing the controller and its peers",
                )
        except DeadlineExceeded as exc:
            raise SandboxError(f"{exc} (logs in {self.dir})") from None

    def _any_alive(self) -> bool:
        try:
            return bool(self.running_pids())
        except SandboxError:
            return False

    # ---- the directory ---------------------------------------------------------------------------

    def _prepare_dir(self) -> None:
        # A new sandbox starts from nothing: remove the previous run's data and logs (only our own files).
        self.dir.mkdir(parents=True, exist_ok=True)
        for child in self.dir.iterdir():
            if child.name in (STATE_FILE, "log4j.properties", "zookeeper") or child.name.startswith(
                ("broker-", "controller-", "zookeeper-")
            ):
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        (self.dir / "log4j.properties").write_text(LOG4J)


def _registration(zk: KazooClient) -> tuple[tuple[int, ...], int | None]:
    """Registered broker ids and the controller id, read from ZooKeeper."""
    ids: tuple[int, ...] = ()
    if zk.exists(BROKER_IDS):
        ids = tuple(sorted(int(c) for c in zk.get_children(BROKER_IDS) if c.isdigit()))
    controller = None
    if zk.exists(CONTROLLER):
        try:
            controller = int(json.loads(zk.get(CONTROLLER)[0])["brokerid"])
        except (ValueError, KeyError, TypeError):
            controller = None
    return ids, controller


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1 (all sockets held until every port is chosen)."""
    socks = []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def zookeeper_serving(port: int, host: str = "127.0.0.1") -> bool:
    """Whether ZooKeeper on ``port`` serves requests: it listens before its database is loaded, and sessions
    opened in that window are dropped, so the port being open is not enough (``srvr`` shows a ``Mode:``)."""
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.settimeout(2.0)
        try:
            s.connect((host, port))
            s.sendall(b"srvr")
            reply = b""
            while chunk := s.recv(4096):
                reply += chunk
        except OSError:
            return False
    return b"Mode:" in reply
