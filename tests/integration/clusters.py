"""The integration tests' clusters, shared by what they are: one running sandbox per ``ClusterKey`` for the whole
run (as kazoo's own harness keeps one ensemble per configuration), handed to every module that asks for the same
key. Tests isolate themselves by topic names and chroots, not by new JVMs; a test that damages its cluster (kills
a broker, fills a disk) restores it before it ends, or asks for a key of its own (``purpose``).

The fixtures are in ``conftest.py``: ``clusters`` (this module's ``Clusters``), ``sandbox`` (``DEFAULT``) and
``secured`` (``SECURED``). A module names the keys it uses with ``pytest.mark.cluster(key, ...)`` (module, class
or parameter marks) or through those fixtures, so the collection hook can run the tests of one key together and
stop a cluster after its last test (``order_by_cluster``, ``last_users``, ``Clusters.release_after``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from core.sandbox.jars import KAFKA_VERSION
from core.sandbox.local_cluster import Sandbox

# Kafka's background work that would race a test, off on every cluster unless its key turns it back on: the
# preferred-leader rebalance (every 300 s) moves leaders a test has just placed or is about to elect.
PINNED_CONFIG: Mapping[str, str] = {"auto.leader.rebalance.enable": "false"}


@dataclass(frozen=True)
class ClusterKey:
    """What a cluster is: every argument of ``Sandbox.up`` that makes two clusters different.

    ``broker_config`` is laid over ``PINNED_CONFIG``. ``purpose`` only separates two clusters that are otherwise
    alike, for tests that must not share (name what they do to it)."""

    brokers: int = 3
    racks: tuple[str, ...] = ("r1", "r2", "r3")
    release: str = KAFKA_VERSION
    broker_versions: tuple[tuple[int, str], ...] = ()
    security: bool = False
    log_dirs: int = 1
    zookeepers: int = 1
    zk_words: str | None = None
    broker_config: tuple[tuple[str, str], ...] = ()
    purpose: str = ""

    def config(self) -> dict[str, str]:
        return {**PINNED_CONFIG, **dict(self.broker_config)}

    def label(self) -> str:
        """A short directory name: what differs from the default."""
        parts = [f"{self.brokers}b", self.release]
        parts += ["sec"] if self.security else []
        parts += [f"{broker}={release}" for broker, release in self.broker_versions]
        parts += [f"zk{self.zookeepers}"] if self.zookeepers > 1 else []
        parts += [f"dirs{self.log_dirs}"] if self.log_dirs > 1 else []
        parts += [self.purpose] if self.purpose else []
        return "-".join(parts)


def secured_key(release: str = KAFKA_VERSION) -> ClusterKey:
    """One broker of ``release`` with a SCRAM listener and the ZooKeeper authorizer (super users admin and
    ANONYMOUS): each module that needs one uses its own users, topics and groups."""
    return ClusterKey(brokers=1, racks=(), release=release, security=True)


DEFAULT = ClusterKey()  # the session sandbox: 3 brokers, racks r1-r3, the default release
SECURED = secured_key()


def release_key(release: str) -> ClusterKey:
    """A 3-broker cluster (no racks) of one Kafka release: what the release tests share."""
    return ClusterKey(racks=(), release=release)


# The fixtures that stand for a key, so a test that asks for one is counted as that key's user.
KEYED_FIXTURES: Mapping[str, ClusterKey] = {"sandbox": DEFAULT, "secured": SECURED}


def item_keys(item: pytest.Item) -> list[ClusterKey]:
    """The keys a collected test uses: its ``cluster`` marks and its keyed fixtures."""
    keys = [key for mark in item.iter_markers("cluster") for key in mark.args]
    keys += [key for name, key in KEYED_FIXTURES.items() if name in getattr(item, "fixturenames", ())]
    return list(dict.fromkeys(keys))


# Session fixtures other than the clusters that a run keeps one of (per xdist worker): their users run together.
SHARED_FIXTURES = ("spark_worker",)


def module_groups(items: Sequence[pytest.Item]) -> dict[Path, list[Path]]:
    """The modules of ``items`` by group, each group under its first module: modules that share a non-default
    cluster or a ``SHARED_FIXTURES`` resource, directly or through another, are one group; every other module is
    a group of its own. A group runs in one process (``xdist_group``), one module after another."""
    modules: dict[Path, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)
    owner: dict[object, Path] = {}  # a key's first module: the group's representative
    group: dict[Path, Path] = {}
    for path, its in modules.items():
        keys = [k for item in its for k in _shared(item)]
        roots = {_root(group, owner[k]) for k in keys if k in owner} | {path}
        first = min(roots, key=list(modules).index)
        for root in roots:
            group[root] = first
        for key in keys:
            owner.setdefault(key, first)
    groups: dict[Path, list[Path]] = {}
    for path in modules:
        groups.setdefault(_root(group, path), []).append(path)
    return groups


def order_by_cluster(items: Sequence[pytest.Item]) -> list[pytest.Item]:
    """The items with the modules of a group (``module_groups``) moved next to each other, placed where its first
    module was; the order within a module and of every other module is kept, so module fixtures are set up once.
    In a group, the modules marked ``cluster(key, first=True)`` run first: their assertions are about the whole
    cluster as it started."""
    modules: dict[Path, list[pytest.Item]] = {}
    for item in items:
        modules.setdefault(item.path, []).append(item)
    ordered = module_groups(items)
    for members in ordered.values():  # a module that needs its clusters as they start goes before the others
        members.sort(key=lambda path: not any(_first(item) for item in modules[path]))
    return [item for members in ordered.values() for path in members for item in modules[path]]


def last_users(items: Iterable[pytest.Item]) -> dict[ClusterKey, str]:
    """Each non-default key's last test in run order (its nodeid), after which its cluster is stopped."""
    return {key: item.nodeid for item in items for key in item_keys(item) if key != DEFAULT}


def _shared(item: pytest.Item) -> list[object]:
    """What ``item`` shares with other modules and a run keeps one of: its non-default keys and shared fixtures."""
    keys: list[object] = [key for key in item_keys(item) if key != DEFAULT]
    return keys + [name for name in SHARED_FIXTURES if name in getattr(item, "fixturenames", ())]


def _first(item: pytest.Item) -> bool:
    return any(mark.kwargs.get("first", False) for mark in item.iter_markers("cluster"))


def _root(group: dict[Path, Path], path: Path) -> Path:
    while group.get(path, path) != path:
        path = group[path]
    return path


@dataclass
class Clusters:
    """The running clusters of this run by key: ``get`` starts one the first time it is asked for."""

    base: Path
    last_user: Mapping[ClusterKey, str]  # nodeid of the test after which a key's cluster stops (last_users)
    running: dict[ClusterKey, Sandbox] = field(default_factory=dict)
    started: int = 0

    def get(self, key: ClusterKey, directory: Path | None = None) -> Sandbox:
        if key not in self.running:
            path = directory or self.base / f"{key.label()}-{self.started}"
            self.running[key] = Sandbox.up(
                path, brokers=key.brokers, racks=list(key.racks) or None, kafka_version=key.release,
                broker_versions=dict(key.broker_versions) or None, security=key.security, log_dirs=key.log_dirs,
                zookeepers=key.zookeepers, zk_words=key.zk_words, broker_config=key.config(), timeout=300,
            )  # fmt: skip
            self.started += 1
        return self.running[key]

    def release_after(self, item: pytest.Item) -> None:
        """Stop the clusters whose last test ``item`` was (its module's fixtures are torn down by then)."""
        for key in [k for k, nodeid in self.last_user.items() if nodeid == item.nodeid]:
            box = self.running.pop(key, None)
            if box is not None:
                box.down(clean=False)  # thrown away: no controlled shutdown

    def close(self) -> None:
        for box in self.running.values():
            box.down(clean=False)
        self.running.clear()
