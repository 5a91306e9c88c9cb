"""ZooKeeper authentication and transport against real servers: digest ACLs (NoAuth becomes one clear
message), TLS spoken to a plaintext port, TLS against a ZooKeeper with a secure port (certificates made
with openssl at test time: CA always verified, hostname per setting), and SASL DIGEST-MD5."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from kazoo.client import KazooClient
from kazoo.security import make_digest_acl

from core.config import ConnectionSettings
from core.connect import parse_zookeeper
from core.errors import ConnectError, UsageError
from core.live.model import LiveCluster, controller_of
from core.polling import wait_until
from core.sandbox.local_cluster import Sandbox
from core.zookeeper.session import ConnectionState, ZkSession, kazoo_options
from tests.integration.zk_server import SASL_PASSWORD, SASL_USER, free_port, standalone_zookeeper

ROOT = Path(__file__).resolve().parents[2]
CONTROLLER = b'{"version":2,"brokerid":7,"timestamp":"1","kraftControllerEpoch":-1}'


def _settings(connect: str, **kw: object) -> ConnectionSettings:
    return ConnectionSettings(zookeeper=parse_zookeeper(connect), **kw)  # type: ignore[arg-type]


def _live(session: ZkSession) -> LiveCluster:
    """The live model as ``kzc watch`` builds it (without brokers to ask)."""
    return LiveCluster(session, on_event=lambda _e: None, on_snapshot=lambda: None)


def _zk_root(box: Sandbox) -> str:
    return f"127.0.0.1:{box.info().zookeeper_port}"


@pytest.fixture
def locked_chroot(sandbox: Sandbox, unique_name: str) -> Iterator[str]:
    """A chroot (with a Kafka-like ``/controller`` and ``/controller_epoch``) that only the digest user
    ``ops:secret`` may touch."""
    acl = [make_digest_acl("ops", "secret", all=True)]
    owner = KazooClient(hosts=_zk_root(sandbox), auth_data=[("digest", "ops:secret")], timeout=10)
    owner.start(timeout=15)
    try:
        owner.create(f"/{unique_name}", b"", acl=acl)
        owner.create(f"/{unique_name}/controller", CONTROLLER, acl=acl)
        owner.create(f"/{unique_name}/controller_epoch", b"7", acl=acl)  # one of the znodes that say "Kafka here"
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
            _live(session).start()
    finally:
        session.stop()


def test_the_right_digest_credentials_read_the_protected_znodes(locked_chroot: str) -> None:
    session = ZkSession(_settings(locked_chroot, zk_auth="ops:secret"))
    session.start()
    live = _live(session)
    try:
        read = session.read("/controller")
        assert read is not None and read[0] == CONTROLLER
        assert session.read_children("/") == ["controller", "controller_epoch"]
        live.start()
        assert controller_of(live.snapshot()) == 7
        wait_until(lambda: live.loading() is None, 30, "the live model's full read of the protected chroot")
    finally:
        live.stop()
        session.stop()


def test_kzc_watch_with_wrong_credentials_prints_the_noauth_message_once(locked_chroot: str) -> None:
    # The credentials come from the environment, the safe way (--zk-auth adds a warning that ps shows them).
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "watch", "--zookeeper", locked_chroot],
        cwd=ROOT, capture_output=True, text=True, timeout=60, env={**os.environ, "KZC_ZK_AUTH": "ops:wrong"},
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


# ---- TLS against a secure port -----------------------------------------------------------------------

_OPENSSL_CONFIG = """[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
"""
_LEAF_EXTENSIONS = """[leaf]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature, keyEncipherment
extendedKeyUsage = serverAuth, clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
subjectAltName = {san}
"""
_EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


def _openssl(workdir: Path, *args: str) -> None:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.fail("the TLS tests make their certificates with the openssl command-line tool: install openssl")
    done = subprocess.run([openssl, *args], cwd=workdir, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        pytest.fail(f"openssl {' '.join(args)} failed: {done.stderr.strip()}")


def _make_ca(workdir: Path, name: str) -> tuple[Path, Path]:
    """A self-signed CA: (certificate, key) PEM files."""
    (workdir / "openssl.cnf").write_text(_OPENSSL_CONFIG)
    _openssl(workdir, "req", "-x509", "-config", "openssl.cnf", "-extensions", "ca", *_EC_KEY, "-keyout",
             f"{name}.key", "-out", f"{name}.pem", "-days", "2", "-subj", f"/CN=kzc test {name}")  # fmt: skip
    return workdir / f"{name}.pem", workdir / f"{name}.key"


def _make_leaf(workdir: Path, name: str, ca: tuple[Path, Path], san: str) -> tuple[Path, Path]:
    """A certificate signed by ``ca`` naming ``san`` (``DNS:...,IP:...``): (certificate, key) PEM files."""
    (workdir / f"{name}.ext").write_text(_LEAF_EXTENSIONS.format(san=san))
    _openssl(workdir, "req", "-new", "-config", "openssl.cnf", *_EC_KEY, "-keyout", f"{name}.key",
             "-out", f"{name}.csr", "-subj", f"/CN=kzc test {name}")  # fmt: skip
    _openssl(workdir, "x509", "-req", "-in", f"{name}.csr", "-CA", str(ca[0]), "-CAkey", str(ca[1]),
             "-set_serial", str(secrets.randbits(63)), "-days", "2", "-extfile", f"{name}.ext", "-extensions", "leaf",
             "-out", f"{name}.pem")  # fmt: skip
    return workdir / f"{name}.pem", workdir / f"{name}.key"


@dataclass(frozen=True)
class _Pki:
    """The test certificates: the CA that signs everything, another CA, kzc's client certificate, and the
    certificates of two servers, one naming 127.0.0.1/localhost and one naming only another host."""

    ca: Path
    other_ca: Path
    client: tuple[Path, Path]
    server: tuple[Path, Path]
    server_elsewhere: tuple[Path, Path]


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> _Pki:
    workdir = tmp_path_factory.mktemp("pki")
    ca = _make_ca(workdir, "ca")
    return _Pki(
        ca=ca[0],
        other_ca=_make_ca(workdir, "other-ca")[0],
        client=_make_leaf(workdir, "client", ca, "DNS:kzc-client"),
        server=_make_leaf(workdir, "server", ca, "DNS:localhost,IP:127.0.0.1"),
        server_elsewhere=_make_leaf(workdir, "server-elsewhere", ca, "DNS:zk.elsewhere.invalid"),
    )


def _tls_zookeeper(workdir: Path, pki: _Pki, server: tuple[Path, Path]) -> Iterator[str]:
    """A ZooKeeper whose secure port presents ``server`` and needs a client certificate signed by the CA;
    yields ``127.0.0.1:SECURE_PORT``."""
    keystore = workdir / "keystore.pem"
    keystore.write_text(server[1].read_text() + server[0].read_text())
    secure_port = free_port()
    config = (
        f"secureClientPort={secure_port}\nsecureClientPortAddress=127.0.0.1\n"
        "serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory\n"
        f"ssl.keyStore.location={keystore}\nssl.keyStore.type=PEM\n"
        f"ssl.trustStore.location={pki.ca}\nssl.trustStore.type=PEM\nssl.clientAuth=need\n"
    )
    with standalone_zookeeper(workdir, extra_config=config, extra_ports=[secure_port]):
        yield f"127.0.0.1:{secure_port}"


@pytest.fixture(scope="module")
def tls_zookeeper(tmp_path_factory: pytest.TempPathFactory, pki: _Pki) -> Iterator[str]:
    """``127.0.0.1:PORT`` of a TLS ZooKeeper whose certificate names 127.0.0.1 and localhost."""
    yield from _tls_zookeeper(tmp_path_factory.mktemp("tls-zk"), pki, pki.server)


@pytest.fixture(scope="module")
def tls_zookeeper_elsewhere(tmp_path_factory: pytest.TempPathFactory, pki: _Pki) -> Iterator[str]:
    """``127.0.0.1:PORT`` of a TLS ZooKeeper whose certificate (from the right CA) names only another host."""
    yield from _tls_zookeeper(tmp_path_factory.mktemp("tls-zk-elsewhere"), pki, pki.server_elsewhere)


def _tls(connect: str, pki: _Pki, ca: Path | None = None, **kw: object) -> ConnectionSettings:
    return _settings(
        connect, zk_tls=True, zk_tls_ca=str(ca or pki.ca), zk_tls_cert=str(pki.client[0]),
        zk_tls_key=str(pki.client[1]), **kw,
    )  # fmt: skip


def _tls_failure(settings: ConnectionSettings) -> str:
    """The message of a TLS connection that must fail within its 3 s timeout."""
    started = time.monotonic()
    with pytest.raises(ConnectError) as failed:
        ZkSession(settings).start(timeout=3)
    assert time.monotonic() - started < 8
    message = str(failed.value)
    assert "\n" not in message
    return message


@pytest.mark.parametrize("verify_hostname", [True, False])
def test_tls_options_always_verify_the_certificate_and_the_hostname_setting_only_adds_the_name_check(
    verify_hostname: bool,
) -> None:
    settings = _settings("zk:2182", zk_tls=True, zk_tls_ca="ca.pem", zk_tls_verify_hostname=verify_hostname)
    options = kazoo_options(settings)
    assert options["use_ssl"] is True and options["ca"] == "ca.pem"
    assert options["verify_certs"] is True and options["check_hostname"] is verify_hostname


def test_a_client_certificate_without_its_key_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="needs both a certificate and a key file"):
        kazoo_options(_settings("zk:2182", zk_tls=True, zk_tls_cert="client.pem"))


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_tls_with_the_right_ca_and_a_matching_certificate_connects_and_reads(
    tls_zookeeper: str, pki: _Pki, host: str
) -> None:
    connect = tls_zookeeper.replace("127.0.0.1", host)
    session = ZkSession(_tls(connect, pki))  # hostname verification is on by default
    session.start()
    try:
        assert session.state is ConnectionState.CONNECTED
        assert "zookeeper" in (session.read_children("/") or [])
    finally:
        session.stop()


@pytest.mark.parametrize("verify_hostname", [True, False], ids=["hostname-checked", "hostname-not-checked"])
def test_tls_with_a_ca_that_did_not_sign_the_server_fails_with_one_clear_message(
    tls_zookeeper: str, pki: _Pki, verify_hostname: bool
) -> None:
    message = _tls_failure(_tls(tls_zookeeper, pki, ca=pki.other_ca, zk_tls_verify_hostname=verify_hostname))
    assert re.fullmatch(
        re.escape(f"cannot connect to ZooKeeper {tls_zookeeper} over TLS within 3 s: the TLS handshake failed (")
        + r"\[SSL: CERTIFICATE_VERIFY_FAILED\] certificate verify failed: unable to get local issuer certificate "
        + r"\(_ssl\.c:\d+\)\); "
        + re.escape("the server's certificate is not trusted: check that the CA file (zk_tls_ca) signed it"),
        message,
    ), message


def test_tls_with_hostname_verification_rejects_a_certificate_that_names_another_host(
    tls_zookeeper_elsewhere: str, pki: _Pki
) -> None:
    message = _tls_failure(_tls(tls_zookeeper_elsewhere, pki))
    assert message.startswith(
        f"cannot connect to ZooKeeper {tls_zookeeper_elsewhere} over TLS within 3 s: the TLS handshake failed ("
    )
    assert "certificate is not valid for '127.0.0.1'" in message
    assert message.endswith(
        "the server's certificate does not name the host in the connect string: connect by a name it lists, or "
        "turn hostname verification off (zk_tls_verify_hostname = false, --no-zk-tls-verify-hostname; the CA is "
        "still checked)"
    )


def test_tls_without_hostname_verification_accepts_a_certificate_that_names_another_host(
    tls_zookeeper_elsewhere: str, pki: _Pki
) -> None:
    session = ZkSession(_tls(tls_zookeeper_elsewhere, pki, zk_tls_verify_hostname=False))
    session.start()
    try:
        assert "zookeeper" in (session.read_children("/") or [])
    finally:
        session.stop()


def test_kzc_zk_ls_over_tls_takes_every_tls_setting_from_the_command_line(
    tls_zookeeper_elsewhere: str, pki: _Pki
) -> None:
    tls = ["--zookeeper", tls_zookeeper_elsewhere, "--zk-tls", "--zk-tls-ca", str(pki.ca), "--zk-tls-cert",
           str(pki.client[0]), "--zk-tls-key", str(pki.client[1]), "--session-timeout", "3"]  # fmt: skip
    rejected = subprocess.run(
        [sys.executable, "-m", "cli.main", "zk", "ls", "/", *tls], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert rejected.returncode == 1
    lines = rejected.stderr.strip().splitlines()
    assert len(lines) == 1 and "certificate is not valid for '127.0.0.1'" in lines[0]
    accepted = subprocess.run(
        [sys.executable, "-m", "cli.main", "zk", "ls", "/", *tls, "--no-zk-tls-verify-hostname"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr
    assert "zookeeper" in accepted.stdout


# ---- SASL DIGEST-MD5 (conftest's sasl_zookeeper) -----------------------------------------------------


def _sasl(connect: str, password: str) -> ConnectionSettings:
    return _settings(
        connect,
        zk_sasl_mechanism="DIGEST-MD5",
        zk_sasl_username=SASL_USER,
        zk_sasl_password=password,
        session_timeout=4,
    )


def test_sasl_digest_md5_with_the_right_password_connects_and_reads(sasl_zookeeper: str) -> None:
    session = ZkSession(_sasl(sasl_zookeeper, SASL_PASSWORD))
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
