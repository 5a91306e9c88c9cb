"""What the command-path tests read from a sandbox and pass to kzc: its connect flags, and a topic's assignment,
partition state and config straight from ZooKeeper (as Kafka wrote them, not through kzc)."""

from __future__ import annotations

import json
from typing import Any

from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError

from core.brokers.changes import ChangeAdmin
from core.config import PLAINTEXT
from core.connect import parse_bootstrap
from core.kafka.znodes.paths import state_path, topic_path
from core.sandbox.local_cluster import Sandbox


def zk_args(box: Sandbox) -> list[str]:
    """``--zookeeper`` for the sandbox."""
    return ["--zookeeper", box.info().zookeeper]


def admin_args(box: Sandbox) -> list[str]:
    """``--zookeeper`` and ``--bootstrap-server`` for the sandbox."""
    return [*zk_args(box), "--bootstrap-server", box.info().bootstrap_servers]


def partitions(zk: KazooClient, topic: str) -> dict[int, list[int]]:
    """The topic's replica assignment, by partition."""
    data, _ = zk.get(topic_path(topic))
    return {int(p): r for p, r in json.loads(data)["partitions"].items()}


def state(zk: KazooClient, topic: str, partition: int) -> dict[str, Any]:
    """A partition's state znode, as JSON."""
    data, _ = zk.get(state_path(topic, partition))
    value: dict[str, Any] = json.loads(data)
    return value


def config(zk: KazooClient, path: str) -> dict[str, str]:
    """The ``config`` of an entity config znode (empty when there is none)."""
    try:
        data, _ = zk.get(path)
    except NoNodeError:
        return {}
    value: dict[str, str] = json.loads(data)["config"]
    return value


def broker_config_source(box: Sandbox, broker: int, key: str) -> tuple[str | None, str]:
    """``key``'s value and source as ``broker`` describes its config (``(None, "absent")``: not listed)."""
    admin = ChangeAdmin(parse_bootstrap(box.info().bootstrap_servers), security=PLAINTEXT, timeout=15)
    try:
        found = {v.name: v for v in admin.describe_config("brokers", str(broker))}
    finally:
        admin.close()
    value = found.get(key)
    return (None, "absent") if value is None else (value.value, value.source)
