"""Entity configs in ZooKeeper, read and written as Kafka's ``AdminZkClient.changeConfigs`` does.

A change is two writes (zk-layout §2.9): ``/config/<type>/<name>`` set (or created) with
``{"version":1,"config":{...}}``, then a sequential ``/config/changes/config_change_`` with
``{"version":2,"entity_path":"<type>/<name>"}`` that tells every broker to re-read that entity. kzc makes
both in one ZooKeeper multi-op, the config write at the version it read (Kafka's own tool overwrites
blindly) and, as Kafka 3.7.1+ does (KAFKA-16539), fenced on ``/controller``'s version.

``execute`` runs a list of ``PlannedWrite`` (the dry run's list) as one multi-op; other packages
(reassignment throttles) add their own writes to the same list.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from kazoo.exceptions import (
    BadVersionError,
    ConnectionLoss,
    KazooException,
    NodeExistsError,
    NoNodeError,
    RolledBackError,
    SessionExpiredError,
)
from kazoo.handlers.threading import KazooTimeoutError

from core.errors import ConcurrentChangeError, ConnectError, KafkaRuleError
from core.kafka.znodes import EntityConfig, parse_entity_config
from core.kafka.znodes.encode import encode_topic_config
from core.kafka.znodes.paths import CONFIG_CHANGE_SEQUENCE, CONTROLLER, config_path
from core.topics.facts import ClusterFacts, zk_create_format
from core.topics.write import PlannedWrite

T = TypeVar("T")


class ZkWriter(Protocol):
    """What ``execute`` writes through: a ``ZkSession``, or the sandbox's own client before any broker ran
    (its admin's SCRAM credentials must exist before the brokers start)."""

    @property
    def client(self) -> Any:
        """The kazoo client."""

    def retry(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run ``func`` with retries on connection loss."""


TOPICS = "topics"
BROKERS = "brokers"
BROKER_DEFAULT = "<default>"


@dataclass(frozen=True)
class StoredConfig:
    """``/config/<type>/<name>`` as read: the overrides and the znode version (None: no znode)."""

    entity_type: str
    name: str
    config: tuple[tuple[str, str], ...]
    zk_version: int | None

    def as_dict(self) -> dict[str, str]:
        """The overrides as a dict."""
        return dict(self.config)

    def to_json(self) -> dict[str, Any]:
        """``{"entity_type", "name", "config", "zk_version"}``."""
        return {
            "entity_type": self.entity_type,
            "name": self.name,
            "config": dict(self.config),
            "zk_version": self.zk_version,
        }


def read_config(session: ZkWriter, entity_type: str, name: str) -> StoredConfig:
    """Read ``/config/<type>/<name>``; a missing znode is an empty config.

    Raises:
        ConnectError: ZooKeeper failed.
        KafkaRuleError: the znode holds something Kafka could not parse either.
    """
    path = config_path(entity_type, name)
    try:
        data, stat = session.retry(session.client.get, path)
    except NoNodeError:
        return StoredConfig(entity_type, name, (), None)
    except (KazooException, KazooTimeoutError) as exc:
        raise ConnectError(f"ZooKeeper failed to read {path}: {exc!r}") from exc
    if not data:
        # A parent Kafka created on the way to a child config (``createRecursive``, e.g. /config/users/<u> for
        # /config/users/<u>/clients/<c>) holds no data: ``ConfigEntityZNode.decode`` reads it as no overrides.
        return StoredConfig(entity_type, name, (), int(stat.version))
    value = parse_entity_config(path, data)
    if not isinstance(value, EntityConfig):
        raise KafkaRuleError(f"{path} is unreadable: {value.reason}; fix it before changing it", "ConfigException")
    return StoredConfig(entity_type, name, tuple(sorted(value.as_dict().items())), int(stat.version))


def encode_change_notification(entity_type: str, name: str) -> bytes:
    """``ConfigEntityChangeNotificationSequenceZNode.encode`` (0.10.1+): ``{"version":2,"entity_path":...}``."""
    return json.dumps({"version": 2, "entity_path": f"{entity_type}/{name}"}, separators=(",", ":")).encode()


def change_writes(stored: StoredConfig, new_config: Mapping[str, str]) -> tuple[PlannedWrite, PlannedWrite]:
    """The two writes of one entity config change: the config (set at the read version, or created) and
    the change notification (a sequential znode: ``path`` is the prefix ZooKeeper appends to)."""
    path = config_path(stored.entity_type, stored.name)
    data = encode_topic_config(sorted(new_config.items()))
    config = (
        PlannedWrite("create", path, data)
        if stored.zk_version is None
        else PlannedWrite("set", path, data, stored.zk_version)
    )
    return config, PlannedWrite(
        "sequential", CONFIG_CHANGE_SEQUENCE, encode_change_notification(stored.entity_type, stored.name)
    )


def controller_fence(facts: ClusterFacts, what: str) -> PlannedWrite | None:
    """The ``/controller`` version check Kafka 3.7.1+ puts in front of config writes, or None when the
    cluster provably predates it and has no controller.

    Raises:
        KafkaRuleError: no controller on a cluster that may run 3.7.1+ ("Cannot set entity configs for
            <what> when there is no controller.").
    """
    if facts.controller is not None and facts.controller_zk_version is not None:
        return PlannedWrite("check", CONTROLLER, b"", facts.controller_zk_version)
    if zk_create_format(facts).needs_controller:
        raise KafkaRuleError(
            f"Cannot set entity configs for {what} when there is no controller.", "ControllerMovedException"
        )
    return None


def execute(session: ZkWriter, writes: Sequence[PlannedWrite], what: str) -> list[str]:
    """Run ``writes`` as one ZooKeeper multi-op (all or nothing); returns the created paths, in order (none
    when the connection dropped before the answer but reading back shows the writes landed).

    New znodes get their parent's ACL (``ensure_path`` creates missing parents first, as Kafka's
    ``createRecursive`` does).

    Raises:
        ConcurrentChangeError: a version check failed (nothing was written).
        KafkaRuleError: a znode to create exists (``NodeExists``; nothing was written).
        ConnectError: ZooKeeper failed; the message says whether the writes happened (read back).
    """
    client = session.client
    parents = sorted({w.path.rsplit("/", 1)[0] for w in writes if w.op in ("create", "sequential")})
    acls: dict[str, Any] = {}
    try:
        for parent in parents:
            session.retry(client.ensure_path, parent)
            acls[parent] = list(session.retry(client.get_acls, parent)[0])
    except (KazooException, KazooTimeoutError) as exc:
        raise ConnectError(f"ZooKeeper failed to prepare {what}: {exc!r}; nothing was written") from exc
    transaction = client.transaction()
    for write in writes:
        parent = write.path.rsplit("/", 1)[0]
        if write.op == "check":
            transaction.check(write.path, write.expected_version)
        elif write.op == "set":
            transaction.set_data(write.path, write.data, write.expected_version)
        elif write.op == "create":
            transaction.create(write.path, write.data, acl=acls[parent])
        elif write.op == "sequential":
            transaction.create(write.path, write.data, acl=acls[parent], sequence=True)
        elif write.op == "delete":
            transaction.delete(write.path, write.expected_version if write.expected_version is not None else -1)
        else:
            raise ValueError(f"not a znode write: {write.op}")
    try:
        results = transaction.commit()
    except (ConnectionLoss, KazooTimeoutError, SessionExpiredError) as exc:
        # A multi-op lands whole or not at all: one of its writes read back tells which.
        if _landed(session, writes):
            return []
        raise ConnectError(f"the connection to ZooKeeper dropped during {what}; it did not happen") from exc
    for write, result in zip(writes, results, strict=True):
        if isinstance(result, BaseException) and not isinstance(result, RolledBackError):
            if isinstance(result, BadVersionError | NoNodeError) and write.op in ("check", "set", "delete"):
                raise ConcurrentChangeError(
                    f"{write.path} changed since it was read (expected version {write.expected_version}); "
                    f"nothing was written: try again"
                )
            if isinstance(result, NodeExistsError):
                raise KafkaRuleError(f"{write.path} already exists; nothing was written", "NodeExistsException")
            raise ConnectError(f"{what} failed at {write.op} {write.path}: {result!r}; nothing was written")
    return [str(r) for w, r in zip(writes, results, strict=True) if w.op in ("create", "sequential")]


def _landed(session: ZkWriter, writes: Sequence[PlannedWrite]) -> bool:
    """Whether a multi-op whose answer was lost happened: its first create or set is there, with its data
    (and, for a set, at the version after the expected one).

    Raises:
        ConnectError: ZooKeeper cannot be read either, so the outcome is unknown.
    """
    probe = next((w for w in writes if w.op in ("create", "set")), None)
    if probe is None:
        raise ConnectError("the connection to ZooKeeper dropped during a write; kzc cannot tell whether it landed")
    try:
        data, stat = session.retry(session.client.get, probe.path)
    except NoNodeError:
        return False
    except (KazooException, KazooTimeoutError) as exc:
        raise ConnectError(
            f"the connection to ZooKeeper dropped during a write and {probe.path} cannot be read back: look before "
            "trying again"
        ) from exc
    if (data or b"") != probe.data:
        return False
    return probe.op == "create" or int(stat.version) == (probe.expected_version or 0) + 1
