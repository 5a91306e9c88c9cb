"""Kafka clients that log in with SCRAM to a sandbox's SASL listener, as the security tests' users do."""

from __future__ import annotations

import threading
import time
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import AdminClient

from core.sandbox.local_cluster import Sandbox


def scram(box: Sandbox, user: str, password: str, mechanism: str = "SCRAM-SHA-256") -> dict[str, Any]:
    """The librdkafka configuration of a client logging in to ``box``'s SASL listener as ``user``."""
    return {
        "bootstrap.servers": box.info().sasl_bootstrap_servers,
        "security.protocol": "SASL_PLAINTEXT",
        "sasl.mechanism": mechanism,
        "sasl.username": user,
        "sasl.password": password,
    }


def authenticates(
    box: Sandbox, user: str, password: str, mechanism: str = "SCRAM-SHA-256", timeout: float = 10.0
) -> bool:
    """Whether ``user`` logs in: True once the brokers answer a metadata request, False as soon as they refuse the
    login (librdkafka would only retry it until the request times out) or when nothing answers within ``timeout``."""
    refused = threading.Event()

    def on_error(error: KafkaError) -> None:
        if error.code() == KafkaError._AUTHENTICATION:
            refused.set()

    config: dict[str, Any] = {**scram(box, user, password, mechanism), "error_cb": on_error}
    admin = AdminClient(config)
    deadline = time.monotonic() + timeout
    while not refused.is_set() and time.monotonic() < deadline:
        try:
            admin.list_topics(timeout=1)  # a slow handshake goes on past it: the next try finds it done
            return True
        except KafkaException:
            admin.poll(0)  # serves error_cb
    return False
