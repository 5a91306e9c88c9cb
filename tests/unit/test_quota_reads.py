"""The quota reads a console repeats: the effective quota reads only the eight znodes Kafka's precedence
consults, however many entities exist, and an empty entity config znode (a parent Kafka itself creates on the
way to ``/config/users/<u>/clients/<c>``) is no overrides, as Kafka reads it (on an in-memory ZooKeeper)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from core.configs.zk import read_config
from core.kafka.quotas import DEFAULT, QuotaEntity
from core.kafka.znodes.paths import config_path
from core.security.quotas import effective
from tests.fake_zookeeper import FakeZooKeeper


class CountingZooKeeper(FakeZooKeeper):
    def __init__(self) -> None:
        super().__init__()
        self.read: list[str] = []

    def get(self, path: str, watch: Any = None) -> Any:
        self.read.append(path)
        return super().get(path, watch)


class Session:
    def __init__(self, zookeeper: FakeZooKeeper) -> None:
        self.client = zookeeper

    def retry(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)


def _put(zk: FakeZooKeeper, path: str, config: dict[str, str] | None) -> None:
    parts = path.strip("/").split("/")
    for i in range(1, len(parts)):
        parent = "/" + "/".join(parts[:i])
        if zk.exists(parent) is None:
            zk.create(parent, b"")
    data = b"" if config is None else json.dumps({"version": 1, "config": config}).encode()
    zk.create(path, data)


def test_the_effective_quota_reads_the_eight_znodes_of_the_precedence_only() -> None:
    zk = CountingZooKeeper()
    _put(zk, config_path("users", "alice"), None)  # a parent Kafka created: no data
    _put(zk, config_path("users", "alice/clients/app1"), {"consumer_byte_rate": "2048"})
    _put(zk, config_path("clients", "<default>"), {"producer_byte_rate": "4096", "request_percentage": "50"})
    for n in range(50):  # other entities cost nothing
        _put(zk, config_path("clients", f"other-{n}"), {"producer_byte_rate": "1"})
    zk.read.clear()
    found = {q.key: (q.value, q.source) for q in effective(Session(zk), "alice", "app1")}  # type: ignore[arg-type]
    assert len(zk.read) <= 8
    assert found["consumer_byte_rate"] == ("2048", QuotaEntity("alice", "app1"))
    assert found["producer_byte_rate"] == ("4096", QuotaEntity(None, DEFAULT))
    assert found["controller_mutation_rate"] == (None, None)


def test_an_empty_entity_config_znode_is_no_overrides_with_its_version() -> None:
    zk = FakeZooKeeper()
    _put(zk, config_path("users", "bob"), None)
    stored = read_config(Session(zk), "users", "bob")
    assert stored.config == () and stored.zk_version == 0
