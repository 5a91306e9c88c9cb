"""Is there a Kafka cluster at this connect string? The one rule every command and the console apply
right after connecting, so that a wrong chroot is not taken for a healthy, empty cluster.

A chroot holds a Kafka cluster when any of ``KAFKA_ZNODES`` exists there: a broker that ever started
creates all of them (zk-layout §1). When none exists, ``require_kafka_cluster`` raises ``NoKafkaCluster``
("no Kafka cluster at HOST:PORT/CHROOT"), naming the chroots under ``/`` that do hold one: the children of
``/`` and their children, at most ``SEARCH_LIMIT`` candidates, through a second, short-lived session
without chroot (only on this error path). ``kzc zk ls/get`` browse raw ZooKeeper and only warn
(``no_kafka_cluster``).

``open_kafka_session`` is the one way a command reaches a cluster through ZooKeeper: connect, apply this
rule, and hand over the session (a structural test keeps every other ``ZkSession`` out of ``cli`` and
``core``, except the raw browser and the two callers listed there).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from kazoo.exceptions import KazooException, NoAuthError
from kazoo.handlers.threading import KazooTimeoutError

from core.config import ConnectionSettings
from core.connect import ZkConnect
from core.errors import ConnectError, KzcError
from core.kafka.znodes.cluster_wide import ClusterId, parse_cluster_id
from core.kafka.znodes.paths import BROKER_IDS, CLUSTER_ID, CONTROLLER_EPOCH, TOPICS
from core.zookeeper.session import ZkSession

KAFKA_ZNODES = (BROKER_IDS, TOPICS, CONTROLLER_EPOCH, CLUSTER_ID)
SEARCH_LIMIT = 100  # candidate chroots probed (each up to 4 exists requests)


class NoKafkaCluster(ConnectError):
    """The connect string reaches ZooKeeper, but no Kafka cluster keeps its metadata there (exit code 1)."""


@contextmanager
def open_kafka_session(settings: ConnectionSettings, connect_timeout: float | None = None) -> Iterator[ZkSession]:
    """A started session on a chroot that holds a Kafka cluster, stopped when the block ends.

    ``connect_timeout`` bounds the connection (default: the session timeout).

    Raises:
        UsageError: no ZooKeeper connect string.
        ConnectError: ZooKeeper unreachable; NoKafkaCluster: no Kafka cluster at that chroot.
    """
    session = ZkSession(settings)
    session.start(connect_timeout)
    try:
        require_kafka_cluster(session)
        yield session
    finally:
        session.stop()


def read_cluster_id(session: ZkSession) -> str | None:
    """The cluster id in ``/cluster/id`` (None: Kafka before 0.10.1, or unreadable), for previews and audit."""
    try:
        data, _ = session.retry(session.client.get, CLUSTER_ID)
    except (KazooException, KazooTimeoutError):
        return None
    value = parse_cluster_id(CLUSTER_ID, data)
    return value.id if isinstance(value, ClusterId) else None


def require_kafka_cluster(session: ZkSession) -> None:
    """Raise ``NoKafkaCluster`` when ``session``'s chroot holds none of Kafka's znodes.

    Raises:
        NoKafkaCluster: with the chroots under ``/`` that do hold a cluster, if any.
        ConnectError: ZooKeeper failed to answer.
    """
    problem = no_kafka_cluster(session)
    if problem is not None:
        raise NoKafkaCluster(problem)


def no_kafka_cluster(session: ZkSession) -> str | None:
    """Why there is no Kafka cluster at ``session``'s connect string, or None when there is one (or when
    ACLs hide it: the reads that follow say NoAuth)."""
    try:
        if _holds_kafka(session, ""):
            return None
    except NoAuthError:
        return None
    except (KazooException, KazooTimeoutError) as exc:
        raise session.read_error(exc, "look for Kafka's znodes") from exc
    message = f"no Kafka cluster at {session.target}: none of {', '.join(KAFKA_ZNODES)} exists there"
    found = kafka_chroots(session)
    hosts = session.target.hosts_string
    if found:
        return message + "; Kafka clusters on this ZooKeeper: " + ", ".join(f"{hosts}{c}" for c in found)
    return message + " (check the /chroot part of --zookeeper)"


def kafka_chroots(session: ZkSession) -> list[str]:
    """The chroots one or two levels under ``/`` that hold a Kafka cluster (bounded, best effort)."""
    target = session.target
    if target.chroot is None:
        return _search(session)
    root = ZkSession(replace(session.settings, zookeeper=ZkConnect(target.hosts, None)))
    try:
        root.start()
        return _search(root)
    except KzcError:
        return []
    finally:
        root.stop()


def _search(root: ZkSession) -> list[str]:
    found: list[str] = []
    probed = 0
    level = ["/" + c for c in sorted(_children(root, "/")) if c != "zookeeper"]
    for depth in (1, 2):
        below: list[str] = []
        for path in level:
            if probed >= SEARCH_LIMIT:
                return found
            probed += 1
            try:
                if _holds_kafka(root, path):
                    found.append(path)
                elif depth == 1:
                    below.extend(f"{path}/{c}" for c in sorted(_children(root, path)))
            except (KazooException, KazooTimeoutError):
                continue  # unreadable (NoAuth) or gone: not listed
        level = below
    return found


def _holds_kafka(session: ZkSession, prefix: str) -> bool:
    exists = session.client.exists
    return any(session.retry(exists, prefix + path) is not None for path in KAFKA_ZNODES)


def _children(session: ZkSession, path: str) -> list[str]:
    try:
        return list(session.retry(session.client.get_children, path))
    except (KazooException, KazooTimeoutError):
        return []
