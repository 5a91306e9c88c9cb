"""The one place a librdkafka (confluent-kafka) client's settings are made: the bootstrap servers and the
listener's security (``core.config.KafkaSecurity``: security.protocol, sasl.*, ssl.*), plus what the caller
adds (timeouts, consumer settings). Every AdminClient, Consumer and Producer kzc builds takes its settings
from ``kafka_client_config``; ``tests/unit/test_kafka_client_config.py`` fails on one that does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from confluent_kafka import KafkaError

from core.config import KafkaSecurity
from core.connect import HostPort, bootstrap_string


def kafka_client_config(
    bootstrap: Sequence[HostPort], security: KafkaSecurity, extra: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """librdkafka's settings for a client of ``bootstrap`` speaking ``security``, with the caller's ``extra``
    properties (timeouts, consumer settings) added; ``extra`` may not set the bootstrap or security ones.

    Raises:
        ValueError: ``extra`` sets a property this function owns (a programming error).
    """
    config: dict[str, Any] = {"bootstrap.servers": bootstrap_string(tuple(bootstrap))}
    config.update(librdkafka_security(security))
    for key, value in (extra or {}).items():
        if key in config:
            raise ValueError(f"{key} is set by kafka_client_config, not by its caller")
        config[key] = value
    return config


def librdkafka_security(security: KafkaSecurity) -> dict[str, str]:
    """librdkafka's ``security.protocol``, ``sasl.*`` and ``ssl.*`` properties for ``security``."""
    config = {"security.protocol": security.protocol.lower()}
    if security.sasl:
        config["sasl.mechanism"] = security.sasl_mechanism or ""
        config["sasl.username"] = security.sasl_username or ""
        config["sasl.password"] = security.sasl_password or ""
    if security.tls:
        for key, value in (
            ("ssl.ca.location", security.ssl_ca_location),
            ("ssl.certificate.location", security.ssl_certificate_location),
            ("ssl.key.location", security.ssl_key_location),
        ):
            if value:
                config[key] = value
    return config


# A login or TLS handshake refused for this long is final (a wrong password): a new SCRAM user reaches every
# broker's cache well within it, and librdkafka would only retry until the request times out.
REFUSAL_FINAL_S = 3.0


class BrokersDown:
    """librdkafka's ``error_cb`` for one client: whether every bootstrap broker refused (or could not be
    resolved) at its last attempt. librdkafka reports it only through the error callback (served by the client's
    ``poll``) and retries it until the request times out; refused for ``REFUSAL_FINAL_S``, nothing listens there.
    A connection that hangs is not counted: it ends at ``socket.connection.setup.timeout.ms``."""

    def __init__(self) -> None:
        self.seen = False

    def __call__(self, error: KafkaError) -> None:
        if error.code() == KafkaError._ALL_BROKERS_DOWN:
            self.seen = True


class HandshakeRefusals:
    """librdkafka's ``error_cb`` for one client: the brokers' refusals of its SASL login or TLS handshake.

    librdkafka reports them only through the error callback (served by the client's ``poll``); the request
    itself just times out. ``sentence`` turns the last one into what to check. Holds no client (no cycle).
    """

    def __init__(self) -> None:
        self._seen: list[str] = []

    def __call__(self, error: KafkaError) -> None:
        if error.code() in (KafkaError._AUTHENTICATION, KafkaError._SSL):
            self._seen.append(error.str())  # librdkafka's text names the mechanism, never the password
            del self._seen[:-3]

    def sentence(self) -> str | None:
        """ "refused kzc's authentication (why): check ..." for the last refusal, or None; forgets them."""
        if not self._seen:
            return None
        last = self._seen[-1]
        self._seen.clear()
        if "SASL" in last or "uthentication" in last:
            return (
                f"refused kzc's authentication ({last}): check the Kafka SASL user, mechanism and password "
                "(--kafka-sasl-username, --kafka-sasl-mechanism, $KZC_KAFKA_SASL_PASSWORD or the password file)"
            )
        return f"refused kzc's TLS handshake ({last}): check --kafka-ssl-ca-location and the listener's protocol"
