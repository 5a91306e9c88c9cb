"""A standalone ZooKeeper for tests that need one to themselves (exact watch counts, SASL, TLS), started
from the sandbox's ZooKeeper jars on a free 127.0.0.1 port and stopped when the ``with`` block ends."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

from kazoo.client import KazooClient

from core.polling import wait_until
from core.sandbox import class_data
from core.sandbox.jars import ensure_jars, java_executable
from core.sandbox.local_cluster import zookeeper_serving
from core.sandbox.processes import ARCHIVE_WRITE_S


@contextmanager
def zk_client(connect: str) -> Iterator[KazooClient]:
    """A plain ZooKeeper client on ``connect`` (chroot included), for setting up and inspecting znodes."""
    client = KazooClient(hosts=connect, timeout=10)
    client.start(timeout=30)
    try:
        yield client
    finally:
        client.stop()
        client.close()


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def listening(port: int) -> bool:
    """Whether something accepts TCP connections on 127.0.0.1:``port``."""
    with closing(socket.socket()) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def standalone_zookeeper(
    workdir: Path, extra_config: str = "", jvm_flags: Sequence[str] = (), extra_ports: Sequence[int] = ()
) -> Iterator[int]:
    """Run ZooKeeper (every four-letter command allowed) in ``workdir``; yield its client port once it serves.

    Args:
        extra_config: more ``zoo.cfg`` lines (e.g. a ``secureClientPort``).
        jvm_flags: more JVM options (e.g. ``-Djava.security.auth.login.config=...``).
        extra_ports: ports of ``extra_config`` to wait for too (ZooKeeper opens them after the client port).
    """
    port = free_port()
    (workdir / "data").mkdir(parents=True, exist_ok=True)
    config = workdir / "zoo.cfg"
    config.write_text(
        f"tickTime=500\ndataDir={workdir / 'data'}\nclientPort={port}\nclientPortAddress=127.0.0.1\n"
        f"admin.enableServer=false\nmaxClientCnxns=0\n4lw.commands.whitelist=*\n{extra_config}"
    )
    java, classpath, main = java_executable(), f"{ensure_jars()}/*", "org.apache.zookeeper.server.ZooKeeperServerMain"
    archive = class_data.options(java, classpath, main, jvm_flags)  # the sandbox ZooKeeper's
    command = [
        java, *archive, "-Xms16m", "-Xmx96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", *jvm_flags,
        "-cp", classpath, main, str(config),
    ]  # fmt: skip
    with open(workdir / "zookeeper.log", "ab") as log:
        proc = subprocess.Popen(command, cwd=workdir, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
    try:

        def up() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"ZooKeeper exited at start-up; see {workdir / 'zookeeper.log'}")
            return zookeeper_serving(port) and all(listening(extra) for extra in extra_ports)

        wait_until(up, 60, f"ZooKeeper on 127.0.0.1:{port}")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=ARCHIVE_WRITE_S if class_data.writes_archive(command) else 20)
            class_data.promote(command)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=20)
            class_data.discard(command)


def four_letter(port: int, command: str) -> str:
    """The answer of ZooKeeper's four-letter ``command`` (``mntr``, ``wchc``...)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(command.encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data.decode()


def watch_count(port: int) -> int:
    """``zk_watch_count`` from ``mntr``: every (path, client) watch the server holds."""
    for line in four_letter(port, "mntr").splitlines():
        key, _, value = line.partition("\t")
        if key == "zk_watch_count":
            return int(value)
    raise AssertionError("mntr did not report zk_watch_count")


SASL_USER, SASL_PASSWORD = "kzc", "kzc-secret"
_JAAS = f"""Server {{
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_{SASL_USER}="{SASL_PASSWORD}";
}};
"""
# Every session must authenticate with SASL (ZooKeeper 3.7+); a client that fails is disconnected.
_SASL_CONFIG = (
    "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n"
    "enforce.auth.enabled=true\nenforce.auth.schemes=sasl\n"
)


@contextmanager
def sasl_zookeeper(workdir: Path) -> Iterator[str]:
    """A ZooKeeper that accepts only SASL DIGEST-MD5 user ``SASL_USER`` / ``SASL_PASSWORD``; yields its
    connect string."""
    jaas = workdir / "jaas.conf"
    jaas.write_text(_JAAS)
    flags = [f"-Djava.security.auth.login.config={jaas}"]
    with standalone_zookeeper(workdir, extra_config=_SASL_CONFIG, jvm_flags=flags) as port:
        yield f"127.0.0.1:{port}"
