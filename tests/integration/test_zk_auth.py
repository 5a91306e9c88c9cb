"""ZooKeeper authentication and transport against real servers: digest ACLs (NoAuth becomes one clear
message), TLS spoken to a plaintext port, and SASL DIGEST-MD5 against a ZooKeeper configured for it."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from kazoo.security import make_digest_acl

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.errors import ConnectError
from core.live import ClusterWatcher
from core.sandbox import Sandbox
from core.zk_session import ConnectionState, ZkSession
from tests.integration.zk_server import standalone_zookeeper

ROOT = Path(__file__).resolve().parents[2]
CONTROLLER = b'{"version":2,"brokerid":7,"timestamp":"1","kraftControllerEpoch":-1}'


def _settings(connect: str, **kw: object) -> ConnectionSettings:
    return ConnectionSettings(zookeeper=parse_zookeeper(connect), **kw)  # type: ignore[arg-type]


def _zk_root(box: Sandbox) -> str:
    return f"127.0.0.1:{box.info().zookeeper_port}"


@pytest.fixture
def locked_chroot(sandbox: Sandbox, unique_name: str) -> Iterator[str]:
    """A chroot (with a Kafka-like ``/controller``) that only the digest user ``ops:secret`` may touch."""
    acl = [make_digest_acl("ops", "secret", all=True)]
    owner = KazooClient(hosts=_zk_root(sandbox), auth_data=[("digest", "ops:secret")], timeout=10)
    owner.start(timeout=15)
    try:
        owner.create(f"/{unique_name}", b"", acl=acl)
        owner.create(f"/{unique_name}/controller", CONTROLLER, acl=acl)
        yield f"{_zk_root(sandbox)}/{unique_name}"
    finally:
        owner.delete(f"/{unique_name}", recursive=True)
        owner.stop()
        owner.close()


@pytest.mark.parametrize("auth", ["ops:wrong", None], ids=["wrong-password", "no-credentials"])
def test_reading_a_digest_protected_znode_without_the_right_credentials_is_one_clear_error(
    locked_chroot: str, auth: str | None
) -> None:
    session = ZkSession(_settings(locked_chroot, zk_auth=auth))
    session.start()  # the chroot exists; whether it can be read is the next question
    try:
        with pytest.raises(ConnectError) as denied:
            session.read("/controller")
        assert str(denied.value) == (
            f"ZooKeeper {locked_chroot} denied the request to read /controller (NoAuth): the znode's ACL does not "
            "grant these credentials access; check --zk-auth or the SASL settings of this context"
        )
        with pytest.raises(ConnectError, match=r"denied the request to read /controller \(NoAuth\)"):
            ClusterWatcher(session, lambda event: None).start()
    finally:
        session.stop()


def test_the_right_digest_credentials_read_the_protected_znodes(locked_chroot: str) -> None:
    session = ZkSession(_settings(locked_chroot, zk_auth="ops:secret"))
    session.start()
    watcher = ClusterWatcher(session, lambda event: None)
    try:
        read = session.read("/controller")
        assert read is not None and read[0] == CONTROLLER
        assert session.read_children("/") == ["controller"]
        assert watcher.start().controller_id() == 7
    finally:
        watcher.stop()
        session.stop()


def test_kzc_watch_with_wrong_credentials_prints_the_noauth_message_once(locked_chroot: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "watch", "--zookeeper", locked_chroot, "--zk-auth", "ops:wrong"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"kzc: error: ZooKeeper {locked_chroot} denied the request to read")


def test_tls_to_a_plaintext_port_fails_with_one_clear_message_within_the_timeout(sandbox: Sandbox) -> None:
    hosts = _zk_root(sandbox)
    started = time.monotonic()
    with pytest.raises(ConnectError) as failed:
        ZkSession(_settings(sandbox.info().zookeeper, zk_tls=True)).start(timeout=3)
    assert time.monotonic() - started < 8
    message = str(failed.value)
    assert message.startswith(f"cannot connect to ZooKeeper {hosts} over TLS within 3 s: the TLS handshake failed (")
    assert message.endswith("check that the server speaks TLS on this port and the CA, certificate and key")
    assert "\n" not in message


def test_kzc_watch_over_tls_to_a_plaintext_port_prints_one_line(sandbox: Sandbox) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "watch", "--zookeeper", sandbox.info().zookeeper, "--zk-tls",
         "--session-timeout", "3"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "over TLS within 3 s: the TLS handshake failed" in lines[0]


# ---- SASL DIGEST-MD5 ---------------------------------------------------------------------------------

_JAAS = """Server {
    org.apache.zookeeper.server.auth.DigestLoginModule required
    user_kzc="kzc-secret";
};
"""
# Every session must authenticate with SASL (ZooKeeper 3.7+); a client that fails is disconnected.
_SASL_CONFIG = (
    "authProvider.1=org.apache.zookeeper.server.auth.SASLAuthenticationProvider\n"
    "enforce.auth.enabled=true\nenforce.auth.schemes=sasl\n"
)


@pytest.fixture(scope="module")
def sasl_zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ZooKeeper that accepts only SASL DIGEST-MD5 user ``kzc`` / ``kzc-secret``."""
    workdir = tmp_path_factory.mktemp("sasl-zk")
    jaas = workdir / "jaas.conf"
    jaas.write_text(_JAAS)
    flags = [f"-Djava.security.auth.login.config={jaas}"]
    with standalone_zookeeper(workdir, extra_config=_SASL_CONFIG, jvm_flags=flags) as port:
        yield f"127.0.0.1:{port}"


def _sasl(connect: str, password: str) -> ConnectionSettings:
    return _settings(
        connect, zk_sasl_mechanism="DIGEST-MD5", zk_sasl_username="kzc", zk_sasl_password=password, session_timeout=4
    )


def test_sasl_digest_md5_with_the_right_password_connects_and_reads(sasl_zookeeper: str) -> None:
    session = ZkSession(_sasl(sasl_zookeeper, "kzc-secret"))
    session.start()
    try:
        assert session.state is ConnectionState.CONNECTED
        assert "zookeeper" in (session.read_children("/") or [])
    finally:
        session.stop()


def test_sasl_digest_md5_with_a_wrong_password_fails_with_one_clear_message(sasl_zookeeper: str) -> None:
    started = time.monotonic()
    with pytest.raises(ConnectError) as failed:
        ZkSession(_sasl(sasl_zookeeper, "wrong")).start()
    assert time.monotonic() - started < 10
    assert str(failed.value) == (
        f"ZooKeeper {sasl_zookeeper} rejected SASL DIGEST-MD5: check the credentials (AUTH_FAILED)"
    )
