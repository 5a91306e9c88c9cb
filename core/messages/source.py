"""Where a read of messages goes: the brokers to bootstrap from and what their release can store.

The bootstrap servers are ``--bootstrap-server`` when given, else the listeners of the client's security
protocol (``kafka_security_protocol``, PLAINTEXT by default) the brokers registered in ZooKeeper
(``core.brokers.capabilities.registered_bootstrap``), so ``kzc tail`` needs only ``--zookeeper`` like every
other kzc command. The topic is checked in ZooKeeper first (Kafka's own message
when it does not exist), and the brokers' ApiVersions say whether messages can carry headers: Fetch v4
(Kafka 0.11.0, message format v2) is the first that returns them; before it a message has none and kzc
says headers are unsupported rather than showing an empty list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.brokers.apiversions import FETCH
from core.brokers.capabilities import read_capabilities, registered_bootstrap
from core.config import PLAINTEXT, ConnectionSettings, KafkaSecurity
from core.connect import HostPort
from core.errors import ConnectError, KafkaRuleError
from core.kafka.znodes.paths import topic_path
from core.topics.facts import TopicStateReader
from core.zookeeper.kafka_root import open_kafka_session, read_cluster_id

HEADERS_SINCE = (4, 32767)  # Fetch versions that carry record headers


@dataclass(frozen=True)
class TailSource:
    """The brokers a read bootstraps from (``via`` says where they came from) and why headers cannot exist
    on this cluster (None: they can)."""

    bootstrap: tuple[HostPort, ...]
    via: str
    headers_unsupported: str | None
    cluster_id: str | None = None
    security: KafkaSecurity = PLAINTEXT  # how the reader authenticates and encrypts (never shown)

    def to_json(self) -> dict[str, Any]:
        """``{"bootstrap", "via", "headers_unsupported"}``."""
        return {
            "bootstrap": [str(b) for b in self.bootstrap],
            "via": self.via,
            "headers_unsupported": self.headers_unsupported,
        }


def headers_unsupported(reason_lacking: str | None) -> str | None:
    """The sentence for a cluster whose brokers lack Fetch v4 (``reason_lacking``: which broker and why)."""
    if reason_lacking is None:
        return None
    return f"headers unsupported: {reason_lacking} (message format v1, before Kafka 0.11.0, has no headers)"


def resolve_source(settings: ConnectionSettings, topic: str, timeout: float = 5.0) -> TailSource:
    """Check the topic and find the brokers to read it from (see the module).

    Raises:
        KafkaRuleError: the topic does not exist; ConnectError: no broker to bootstrap from; ZooKeeper errors.
    """
    if settings.zookeeper is None and settings.bootstrap_servers:
        return TailSource(
            tuple(settings.bootstrap_servers), "--bootstrap-server", None, security=settings.kafka_security
        )
    with open_kafka_session(settings) as session:
        cluster_id = read_cluster_id(session)
        reader = TopicStateReader(session)
        if not reader.exists(topic_path(topic)):
            raise KafkaRuleError(f"Topic '{topic}' does not exist.", "UnknownTopicOrPartitionException")
        brokers = reader.facts().brokers
    capabilities = read_capabilities(brokers, timeout, settings.kafka_security)
    unsupported = headers_unsupported(capabilities.lacking(FETCH, HEADERS_SINCE, "v4 (Kafka 0.11.0+) for headers"))
    if settings.bootstrap_servers:
        return TailSource(
            tuple(settings.bootstrap_servers), "--bootstrap-server", unsupported, cluster_id, settings.kafka_security
        )
    protocol = settings.kafka_security.protocol
    found = registered_bootstrap(brokers, protocol)
    if not found:
        raise ConnectError(
            f"no registered broker has a {protocol} listener to read messages from: give --bootstrap-server"
            + ("" if protocol != "PLAINTEXT" else " (or --kafka-security-protocol for a secured listener)")
        )
    ids = ",".join(str(b) for b in sorted(brokers))
    return TailSource(
        found, f"the {protocol} listeners registered by brokers {ids}", unsupported, cluster_id, settings.kafka_security
    )
