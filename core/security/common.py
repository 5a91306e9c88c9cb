"""What the security operations share: the guard every mutation passes, and the cluster facts it reads."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from core.brokers.capabilities import VIA_ZOOKEEPER, Capabilities, CapabilityCache
from core.config import ConnectionSettings, read_only_cause
from core.configs.zk import ZkWriter, controller_fence, execute
from core.errors import ConcurrentChangeError, ConnectError, KafkaRuleError, KzcError, ReadOnlyError
from core.topics.facts import ClusterFacts, TopicStateReader
from core.topics.guard import read_only_reason
from core.topics.write import PlannedWrite
from core.zookeeper.session import ZkSession


def mutation_guard(session: ZkSession, settings: ConnectionSettings) -> ClusterFacts:
    """The cluster's facts, when a mutation may be applied now.

    Raises:
        ReadOnlyError: read-only mode, or a ZooKeeper-to-KRaft migration owns the metadata.
    """
    facts = TopicStateReader(session).facts()
    reason = read_only_reason(read_only_cause(settings), facts)
    if reason is not None:
        raise ReadOnlyError(reason)
    return facts


def config_fence(facts: ClusterFacts, what: str) -> tuple[PlannedWrite, ...]:
    """The ``/controller`` check Kafka 3.7.1+ puts before an entity config write (``controller_fence``)."""
    fence = controller_fence(facts, what)
    return () if fence is None else (fence,)


def write_checked(session: ZkWriter, writes: Sequence[PlannedWrite], what: str, now: Callable[[], str]) -> None:
    """Run ``writes`` (one multi-op, ``core.configs.zk.execute``); a lost race, whether the znode changed
    (version check) or appeared (create), is refused with what it holds now (``now()``).

    Raises:
        ConcurrentChangeError: "<what> changed since it was read (now: ...); nothing was written: plan again".
    """
    try:
        execute(session, writes, f"the change of {what}")
    except (ConcurrentChangeError, KafkaRuleError) as exc:
        if isinstance(exc, KafkaRuleError) and exc.kafka_exception != "NodeExistsException":
            raise
        raise ConcurrentChangeError(
            f"{what} changed since it was read (now: {now()}); nothing was written: plan again"
        ) from None


def znode_state(path: str, version: int | None) -> str:
    """``/config/users/alice, znode version 3`` (or ``no znode``): where a preview's before-state was read."""
    return f"{path}, " + ("no znode" if version is None else f"znode version {version}")


def around_the_brokers(exc: KzcError, zookeeper_tool: str) -> KzcError:
    """``exc`` (a refusal or failure on the AdminClient path) with what was not done instead, in the same
    error type: kzc never falls back to ZooKeeper on its own once the brokers were asked, since that would go
    around the brokers' own authorization; the operator may choose to with ``--via zookeeper``."""
    message = (
        f"{exc}; nothing was written through ZooKeeper instead (kzc does not go around the brokers on its own: "
        f"add --via zookeeper to write ZooKeeper directly, {zookeeper_tool})"
    )
    if isinstance(exc, KafkaRuleError):
        return KafkaRuleError(message, exc.kafka_exception)
    if isinstance(exc, ConnectError):
        # The likely cause when the brokers are up: a listener that wants SASL or TLS, which kzc's client lacks.
        return ConnectError(
            f"{message}. If the brokers are up, their listener may require SASL or TLS, which kzc's Kafka client "
            "does not speak (it connects without SASL or TLS): give a PLAINTEXT listener as --bootstrap-server"
        )
    return KzcError(message)


def write_capabilities(
    session: ZkWriter, settings: ConnectionSettings | None, via: str | None, timeout: float = 15.0
) -> Capabilities | None:
    """The registered brokers' ApiVersions that choose a mutation's path (``write_route``): asked when there
    is a ``--bootstrap-server`` and no ``--via zookeeper``; None (ZooKeeper) otherwise or without ``settings``."""
    if settings is None or not settings.bootstrap_servers or via == VIA_ZOOKEEPER:
        return None
    assert isinstance(session, ZkSession)
    return CapabilityCache(timeout, security=settings.kafka_security).get(TopicStateReader(session).facts().brokers)
