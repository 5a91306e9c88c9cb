"""The sandbox's optional security (``kzc sandbox up --security``): a SASL_PLAINTEXT listener with
SCRAM-SHA-256/512 beside PLAINTEXT, and Kafka's ZooKeeper authorizer.

Layout, and why: PLAINTEXT stays for kzc's own probes, the brokers' replication and every existing test;
its clients are ``User:ANONYMOUS``, made a super user with the sandbox's admin, so only the SCRAM listener
is governed by ACLs (``allow.everyone.if.no.acl.found`` stays false: a SCRAM user with no ACL is denied).
The authorizer is ``kafka.security.authorizer.AclAuthorizer`` from 2.4, ``kafka.security.auth.SimpleAclAuthorizer``
before. Each SCRAM mechanism's server login is ``listener.name.sasl_plaintext.<mechanism>.sasl.jaas.config``
(1.0+); releases before 1.0 read a JAAS file's ``KafkaServer`` section instead.

The admin's credentials are written to ZooKeeper before any broker starts, by the function
``kzc user set-password`` uses (``core.security.users``); its password is kept in ``admin.password`` in
the sandbox directory (mode 0600), never in ``sandbox.json`` or any output.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from kazoo.client import KazooClient

from core.kafka.scram import DEFAULT_ITERATIONS, MECHANISMS
from core.sandbox.releases import KafkaRelease
from core.security.users import plan_set_password, write_credentials

ADMIN_USER = "admin"
PASSWORD_FILE = "admin.password"
JAAS_FILE = "kafka_server_jaas.conf"
LISTENER = "SASL_PLAINTEXT"
T = TypeVar("T")


def authorizer_class(release: KafkaRelease) -> str:
    """The ZooKeeper authorizer of ``release``."""
    return (
        "kafka.security.authorizer.AclAuthorizer"
        if release.at_least(2, 4)
        else "kafka.security.auth.SimpleAclAuthorizer"
    )


def _login(password: str) -> str:
    module = "org.apache.kafka.common.security.scram.ScramLoginModule"
    return f'{module} required username="{ADMIN_USER}" password="{password}";'


def broker_properties(release: KafkaRelease, port: int, sasl_port: int, password: str) -> list[str]:
    """The listener, SASL and authorizer lines of a secured sandbox broker."""
    lines = [
        f"listeners=PLAINTEXT://127.0.0.1:{port},{LISTENER}://127.0.0.1:{sasl_port}",
        f"advertised.listeners=PLAINTEXT://127.0.0.1:{port},{LISTENER}://127.0.0.1:{sasl_port}",
        "security.inter.broker.protocol=PLAINTEXT",
        f"sasl.enabled.mechanisms={','.join(MECHANISMS)}",
        f"authorizer.class.name={authorizer_class(release)}",
        f"super.users=User:{ADMIN_USER};User:ANONYMOUS",
        "allow.everyone.if.no.acl.found=false",
    ]
    if release.at_least(1, 0):
        lines += [
            f"listener.name.{LISTENER.lower()}.{m.lower()}.sasl.jaas.config={_login(password)}" for m in MECHANISMS
        ]
    return lines


def jaas_option(release: KafkaRelease, directory: Path) -> list[str]:
    """The JVM option of a release before 1.0, which reads its SCRAM login from a JAAS file."""
    return [] if release.at_least(1, 0) else [f"-Djava.security.auth.login.config={directory / JAAS_FILE}"]


def admin_password(directory: Path) -> str:
    """The sandbox admin's password (``admin.password``)."""
    return (directory / PASSWORD_FILE).read_text().strip()


class _Direct:
    """``core.configs.zk.ZkWriter`` over the sandbox's own client (no broker yet: no Kafka chroot to check)."""

    def __init__(self, client: KazooClient) -> None:
        self.client = client

    def retry(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        result: T = self.client.retry(func, *args, **kwargs)
        return result


def prepare(directory: Path, client: KazooClient) -> str:
    """Before the brokers start: a new admin password (file, 0600), the JAAS file for old releases, and the
    admin's SCRAM-SHA-256 and -512 credentials in ZooKeeper. Returns the password."""
    password = secrets.token_urlsafe(18)
    path = directory / PASSWORD_FILE
    path.write_text(password + "\n")
    os.chmod(path, 0o600)
    (directory / JAAS_FILE).write_text(f"KafkaServer {{\n  {_login(password)}\n}};\n")
    os.chmod(directory / JAAS_FILE, 0o600)
    writer = _Direct(client)
    for mechanism in MECHANISMS:
        write_credentials(writer, plan_set_password(writer, ADMIN_USER, mechanism, password, DEFAULT_ITERATIONS))
    return password
