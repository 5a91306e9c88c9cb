"""``kzc sandbox up|status|down|kill-broker|start-broker|kill-zookeeper|start-zookeeper|migrate``: the local
cluster on 127.0.0.1 (an ensemble's server N on 127.0.0.N)."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from cli.console_cmd import OpenConsole
from cli.options import add_command
from core.config import ConnectionSettings
from core.connect import parse_bootstrap, parse_zookeeper
from core.errors import UsageError
from core.sandbox.ensemble import DEFAULT_WORDS
from core.sandbox.info import SandboxInfo, SandboxStatus
from core.sandbox.jars import KAFKA_VERSION, ensure_exporter_jar, ensure_jars, ensure_tools_jars, java_executable
from core.sandbox.local_cluster import DEFAULT_BROKERS, Sandbox
from core.sandbox.migration import PHASES, SandboxMigration
from core.sandbox.releases import KafkaRelease
from core.sandbox.security import ADMIN_USER, PASSWORD_FILE
from core.sandbox.traffic import start_traffic


def register(sub: Any) -> None:
    """Declare ``kzc sandbox`` and its subcommands."""
    sandbox = add_command(sub, "sandbox", json_flag=False)
    actions = sandbox.add_subparsers(dest="sandbox_command", metavar="ACTION", required=True)

    up = add_command(
        actions, "up", "start ZooKeeper and N Kafka brokers, 0.10.2 to 3.9 (ZooKeeper mode, chroot /kafka)"
    )
    up.add_argument("--brokers", type=int, default=DEFAULT_BROKERS, metavar="N", help="number of brokers (default 3)")
    up.add_argument("--racks", metavar="R1,R2,...", help="broker.rack per broker, in order (cycled)")
    up.add_argument("--timeout", type=float, default=180.0, metavar="SECONDS", help="start-up deadline")
    up.add_argument(
        "--broker-config",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a static property for every broker's server.properties (repeatable), e.g. min.insync.replicas=2",
    )
    _version_option(up)
    up.add_argument(
        "--broker-version",
        action="append",
        default=[],
        metavar="ID=VERSION",
        help="run broker ID on another release (repeatable), e.g. 3=2.4.1: a rolling upgrade half done",
    )
    up.add_argument(
        "--zookeepers", type=int, default=1, metavar="N",
        help="ZooKeeper servers: 1 (default, standalone) or an ensemble of N (server K on 127.0.0.K, AdminServer on)",
    )  # fmt: skip
    up.add_argument(
        "--zk-words",
        metavar="W1,W2,...",
        help=f"with --zookeepers N: the servers' 4lw.commands.whitelist (default {DEFAULT_WORDS})",
    )
    up.add_argument(
        "--log-dirs", type=int, default=1, metavar="N",
        help="log dirs per broker (default 1); 2 or more: a broker outlives a failed dir (JBOD, Kafka 1.0+)",
    )  # fmt: skip
    up.add_argument(
        "--security",
        action="store_true",
        help="a SASL_PLAINTEXT SCRAM listener and the ZooKeeper authorizer (admin password: DIR/admin.password)",
    )
    up.add_argument(
        "--metrics",
        action="store_true",
        help="run every broker with the Prometheus JMX exporter agent (its metrics_url on 127.0.0.1)",
    )
    up.add_argument("--open", action="store_true", help="then open the console on it")
    up.add_argument(
        "--traffic",
        action="store_true",
        help="also run demo traffic: topics, a producer and consumer groups whose lag moves (stopped by down)",
    )
    _dir_option(up)
    up.set_defaults(handler=_up)

    fetch = add_command(
        actions,
        "fetch",
        "fetch the Kafka and ZooKeeper jars, and those of Kafka's own tools, through Maven (once; cached)",
    )
    _version_option(fetch)
    fetch.set_defaults(handler=_fetch)

    status = add_command(actions, "status", "show which sandbox processes run and what ZooKeeper shows")
    _dir_option(status)
    status.set_defaults(handler=_status)

    down = add_command(actions, "down", "stop every sandbox process (brokers, then ZooKeeper); logs stay")
    _dir_option(down)
    down.set_defaults(handler=_down)

    kill = add_command(actions, "kill-broker", "kill one broker hard (SIGKILL), as a crash would")
    kill.add_argument("id", type=int, metavar="ID")
    _dir_option(kill)
    kill.set_defaults(handler=_kill)

    start = add_command(actions, "start-broker", "restart a stopped broker with its data")
    start.add_argument("id", type=int, metavar="ID")
    _dir_option(start)
    start.set_defaults(handler=_start)

    kill_zk = add_command(actions, "kill-zookeeper", "kill one ZooKeeper server of the ensemble hard (SIGKILL)")
    kill_zk.add_argument("id", type=int, metavar="N")
    _dir_option(kill_zk)
    kill_zk.set_defaults(handler=_kill_zookeeper)

    start_zk = add_command(actions, "start-zookeeper", "restart a stopped ZooKeeper server of the ensemble")
    start_zk.add_argument("id", type=int, metavar="N")
    _dir_option(start_zk)
    start_zk.set_defaults(handler=_start_zookeeper)

    migrate = add_command(
        actions, "migrate", "drive a real ZooKeeper-to-KRaft migration of the sandbox up to a phase (docs/migration.md)"
    )
    migrate.add_argument(
        "--to",
        required=True,
        choices=PHASES,
        help="controller: a KRaft controller waits for the brokers; dual-write: brokers rolled into migration "
        "mode, metadata copied; kraft: brokers rolled to KRaft; finalized: the controller leaves ZooKeeper",
    )
    migrate.add_argument(
        "--broker", type=int, action="append", metavar="ID", help="with --to kraft: roll only this broker (repeatable)"
    )
    migrate.add_argument("--timeout", type=float, default=180.0, metavar="SECONDS", help="deadline per step")
    _dir_option(migrate)
    migrate.set_defaults(handler=_migrate)


def _version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--kafka-version",
        default=KAFKA_VERSION,
        metavar="VERSION",
        help=f"Kafka release of the brokers, 0.10.2.2 to 3.9.x as on Maven Central (default {KAFKA_VERSION})",
    )


def _broker_versions(items: list[str]) -> dict[int, str]:
    versions: dict[int, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isdigit() or not value.strip():
            raise UsageError(f"--broker-version {item}: give ID=VERSION, e.g. 3=2.4.1")
        versions[int(key)] = value.strip()
    return versions


def _dir_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--dir", metavar="DIR", help="sandbox directory (default: ~/.local/state/kzc/sandbox)")


def _up(args: argparse.Namespace, settings: ConnectionSettings) -> int | OpenConsole:
    racks = args.racks.split(",") if args.racks else None
    progress = None if args.json else (lambda line: print(line, file=sys.stderr))
    extra: dict[str, str] = {}
    for item in args.broker_config:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--broker-config {item}: give KEY=VALUE, e.g. min.insync.replicas=2")
        extra[key.strip()] = value.strip()
    box = Sandbox.up(
        args.dir,
        brokers=args.brokers,
        racks=racks,
        timeout=args.timeout,
        log=progress,
        broker_config=extra,
        kafka_version=args.kafka_version,
        broker_versions=_broker_versions(args.broker_version),
        zookeepers=args.zookeepers,
        zk_words=args.zk_words,
        log_dirs=args.log_dirs,
        security=args.security,
        metrics=args.metrics,
    )
    info = box.info()
    traffic = start_traffic(box.dir, info.bootstrap_servers, info.zookeeper) if args.traffic else None
    if args.json:
        print(json.dumps({**info.to_json(), "traffic_pid": traffic} if args.traffic else info.to_json()))
    else:
        print(_describe(info))
        if traffic is not None:
            print(f"Demo traffic: pid {traffic} (topics demo.*, groups demo-*; log {box.dir / 'traffic.log'})")
    if args.open:
        # Opened by cli.main on the main thread once this command's thread is done (Textual needs it).
        return OpenConsole(
            replace(
                settings,
                zookeeper=parse_zookeeper(info.zookeeper),
                bootstrap_servers=parse_bootstrap(info.bootstrap_servers),
                context=f"sandbox {info.dir}",
            )
        )
    return 0


def _fetch(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    release = KafkaRelease.parse(args.kafka_version)
    java_executable()
    log = None if args.json else (lambda line: print(line, file=sys.stderr))
    zookeeper, tools, exporter = ensure_jars(log), ensure_tools_jars(log), ensure_exporter_jar(log)
    path = ensure_jars(log, release)
    if args.json:
        print(
            json.dumps(
                {
                    "jars": str(path),
                    "zookeeper_jars": str(zookeeper),
                    "tools_jars": str(tools),
                    "exporter_jar": str(exporter),
                    "kafka_version": release.version,
                }
            )
        )
    else:
        print(
            f"Kafka {release.version} jars ready in {path}; ZooKeeper's in {zookeeper}, Kafka's tools in {tools}, "
            f"the Prometheus JMX exporter agent: {exporter}"
        )
    return 0


def _status(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    box = Sandbox(args.dir)
    status = box.status()
    migration = SandboxMigration(box).progress() if box.state.section("migration") else None
    if args.json:
        print(json.dumps({**status.to_json(), "migration": migration.to_json() if migration else None}))
    else:
        print(_describe_status(status))
        if migration is not None:
            modes = ", ".join(f"{b} {m}" for b, m in sorted(migration.broker_modes.items()))
            running = f"pid {migration.controller_pid}" if migration.controller_pid else "stopped"
            print(
                f"  migration at {migration.phase}: KRaft controller {migration.controller_id} on "
                f"127.0.0.1:{migration.controller_port} ({running}); brokers: {modes}"
            )
    return 0


def _down(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    box = Sandbox(args.dir)
    stopped = box.down()
    if args.json:
        print(json.dumps({"stopped_pids": stopped, "dir": str(box.dir)}))
    else:
        what = (
            f"stopped {len(stopped)} process(es): {', '.join(map(str, stopped))}" if stopped else "nothing was running"
        )
        print(f"sandbox {box.dir}: {what}; logs stay in the directory")
    return 0


def _kill(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    box = Sandbox(args.dir)
    broker = box.info().broker(args.id)
    box.kill_broker(args.id)
    if args.json:
        print(json.dumps({"killed": args.id, "pid": broker.pid}))
    else:
        print(
            f"broker {args.id} killed (SIGKILL, pid {broker.pid}); restart it with: kzc sandbox start-broker {args.id}"
        )
    return 0


def _start(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    broker = Sandbox(args.dir).start_broker(args.id)
    if args.json:
        print(json.dumps({"started": broker.id, "pid": broker.pid, "port": broker.port}))
    else:
        print(f"broker {broker.id} running again on 127.0.0.1:{broker.port} (pid {broker.pid}), registered")
    return 0


def _kill_zookeeper(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    server = Sandbox(args.dir).kill_zookeeper(args.id)
    if args.json:
        print(json.dumps({"killed": server.id, "address": server.address}))
    else:
        restart = f"kzc sandbox start-zookeeper {server.id}"
        print(f"ZooKeeper {server.id} ({server.address}) killed (SIGKILL); restart it with: {restart}")
    return 0


def _start_zookeeper(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    server = Sandbox(args.dir).start_zookeeper(args.id)
    if args.json:
        print(json.dumps({"started": server.id, "address": server.address, "pid": server.pid}))
    else:
        print(f"ZooKeeper {server.id} running again on {server.address} (pid {server.pid}), serving")
    return 0


def _migrate(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    progress = None if args.json else (lambda line: print(line, file=sys.stderr))
    box = Sandbox(args.dir)
    box.info()  # a missing sandbox is reported before anything starts
    state = SandboxMigration(box, progress).to(args.to, brokers=args.broker, timeout=args.timeout)
    if args.json:
        print(json.dumps(state.to_json()))
        return 0
    modes = ", ".join(f"{b} {m}" for b, m in sorted(state.broker_modes.items()))
    print(
        f"sandbox {box.dir}: migration at {state.phase}; KRaft controller {state.controller_id} on "
        f"127.0.0.1:{state.controller_port} (pid {state.controller_pid}); brokers: {modes}\n"
        f"See it:  kzc --zookeeper {box.info().zookeeper} migration"
    )
    return 0


def _describe(info: SandboxInfo) -> str:
    lines = [
        f"Kafka {' + '.join(info.versions)} sandbox in {info.dir} (ZooKeeper mode, chroot /kafka)",
    ]
    if info.ensemble:
        lines += [
            f"  ZooKeeper {z.id:<8} {z.address:<28} pid {z.pid}, AdminServer port {z.admin_port}" for z in info.ensemble
        ]
    else:
        lines.append(f"  ZooKeeper          {info.zookeeper:<28} pid {info.zookeeper_pid}")
    for b in info.brokers:
        rack = f"rack {b.rack}" if b.rack else "no rack"
        lines.append(f"  broker {b.id:<3} {rack:<10} 127.0.0.1:{b.port:<18} pid {b.pid!s:<8} Kafka {b.kafka_version}")
        if b.metrics_url:
            lines.append(f"    metrics          {b.metrics_url} (Prometheus JMX exporter)")
    lines += [
        f"  bootstrap servers  {info.bootstrap_servers}",
        *(
            [
                f"  SCRAM listeners    {info.sasl_bootstrap_servers} (SASL_PLAINTEXT; user {ADMIN_USER}, password in "
                f"{Path(info.dir) / PASSWORD_FILE}; ACLs enforced there, PLAINTEXT clients are super users)"
            ]
            if info.sasl_bootstrap_servers
            else []
        ),
        "",
        f"Open the console:  kzc --zookeeper {info.zookeeper} --bootstrap-server {info.bootstrap_servers}",
        *(
            [f"Broker metrics:    kzc --zookeeper {info.zookeeper} metrics {_metrics_flags(info)}"]
            if any(b.metrics_url for b in info.brokers)
            else []
        ),
        f"Stop it:           kzc sandbox down --dir {info.dir}",
    ]
    return "\n".join(lines)


def _metrics_flags(info: SandboxInfo) -> str:
    """``--metrics-url ID=URL`` for each broker of a ``--metrics`` sandbox (each has its own port)."""
    return " ".join(f"--metrics-url {b.id}={b.metrics_url}" for b in info.brokers if b.metrics_url)


def _describe_status(status: SandboxStatus) -> str:
    info = status.info
    zk = "running" if status.zookeeper_alive else "stopped"
    lines = [f"sandbox {info.dir}", f"  ZooKeeper {info.zookeeper}: {zk}"]
    for z in info.ensemble:
        running = "running" if status.zookeepers_alive.get(z.id) else "stopped"
        lines.append(f"    server {z.id} ({z.address}, AdminServer port {z.admin_port}): {running}")
    for b in info.brokers:
        state = "running" if status.brokers_alive.get(b.id) else "stopped"
        reg = "registered" if b.id in status.registered else "not registered"
        ctrl = ", controller" if status.controller == b.id else ""
        lines.append(
            f"  broker {b.id} (Kafka {b.kafka_version}, 127.0.0.1:{b.port}, rack {b.rack or '-'}): {state}, {reg}{ctrl}"
        )
        if b.metrics_url:
            lines.append(f"    metrics {b.metrics_url}")
    return "\n".join(lines)
