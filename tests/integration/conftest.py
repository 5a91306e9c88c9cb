"""Fixtures of the integration tests: the clusters, shared by what they are (``tests/integration/clusters.py``),
among them the session-wide sandbox (3 brokers on racks r1..r3), and a plain ZooKeeper client under its chroot.

The factory's API:

- ``clusters`` (session): ``clusters.get(ClusterKey(...))`` starts a cluster the first time a key is asked for and
  hands the same running ``Sandbox`` to every later caller. ``ClusterKey`` holds what makes two clusters
  different (brokers, racks, release, broker_versions, security, log_dirs, zookeepers, zk_words, broker_config,
  and ``purpose`` to keep two alike clusters apart); every cluster runs with ``PINNED_CONFIG``
  (``auto.leader.rebalance.enable=false``) under its own ``broker_config``.
- ``sandbox`` (session) is ``clusters.get(DEFAULT)``; ``secured`` is ``clusters.get(SECURED)`` (one broker, a SCRAM
  listener, the ZooKeeper authorizer). A module that needs another key marks it: ``pytestmark =
  pytest.mark.cluster(key)`` (or a class or parameter mark), and gets it from ``clusters.get(key)`` in a fixture.
- ``spark_worker`` (session): one warm Spark worker (``local[*]``) for every module that runs the Spark check
  engine; ``lent_spark`` hands it to ``kzc check --engine spark`` run in-process (``cli.main.main``), which then
  neither starts a cold JVM nor stops the warm one. One run per entry point still starts its own Spark
  (``test_checks_cluster``: the ``kzc`` executable; ``test_interrupts``; the warm-up test of
  ``test_checks_engines``).
- ``sasl_zookeeper`` (session): a standalone ZooKeeper that admits only SASL DIGEST-MD5, for the modules that
  test a rejected or accepted SASL login (``test_zk_auth``, ``test_fleet``).
- The modules that share a non-default key (or ``spark_worker``) run one after another, in one xdist worker
  (their ``xdist_group``), and its cluster stops after its last test; ``DEFAULT`` lives for the whole run, one per
  worker. A test that damages its cluster restores it before it ends, or uses a key
  of its own.

Every test under this folder needs real servers and is marked ``integration`` here, so
``pytest -m "not integration"`` runs nothing that needs a cluster. The tests never skip: if the sandbox
cannot start, the fixture raises and they fail.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from kazoo.client import KazooClient

from core.consistency.spark_engine import SparkEngine, SparkSettings
from core.sandbox.local_cluster import Sandbox
from tests.integration.clusters import (
    DEFAULT,
    SECURED,
    ClusterKey,
    Clusters,
    last_users,
    module_groups,
    order_by_cluster,
)
from tests.integration.zk_server import sasl_zookeeper as start_sasl_zookeeper
from tests.integration.zk_server import zk_client
from tests.xdist_groups import write_groups

_HERE = Path(__file__).parent
_LAST_USERS = pytest.StashKey[dict[ClusterKey, str]]()
_CLUSTERS = pytest.StashKey[Clusters]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cluster(key, ...): the tests use these ClusterKeys (tests/integration/clusters.py)"
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test of this folder ``integration``, and with the ``xdist_group`` of its module's group
    (``module_groups``): under ``pytest -n 2 --dist loadgroup`` a group runs whole in one worker, so each cluster
    key but ``DEFAULT`` and the warm Spark worker start once, and a module's fixtures are set up once."""
    mine = [item for item in items if _HERE in Path(str(item.path)).parents]
    groups = module_groups(mine)
    group_of = {path: first.name for first, members in groups.items() for path in members}
    for item in mine:
        item.add_marker(pytest.mark.integration)
        item.add_marker(pytest.mark.xdist_group(group_of[item.path]))
    write_groups({item.nodeid: group_of[item.path] for item in mine})  # for the controller (tests/xdist_groups.py)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Run the modules that share a cluster together (after deselection), and plan when each cluster stops."""
    mine = [i for i, item in enumerate(session.items) if _HERE in Path(str(item.path)).parents]
    for i, item in zip(mine, order_by_cluster([session.items[i] for i in mine]), strict=True):
        session.items[i] = item
    session.config.stash[_LAST_USERS] = last_users(session.items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    yield
    clusters = item.config.stash.get(_CLUSTERS, None)
    if clusters is not None:
        clusters.release_after(item)


@pytest.fixture(autouse=True)
def audit_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """kzc's audit log in the test's own directory (never the user's), and an empty stdin: a prompt reads
    end-of-file, so nothing is confirmed by accident (a test that types an answer sets its own stdin)."""
    path = tmp_path / "audit.jsonl"
    monkeypatch.setenv("KZC_AUDIT_LOG", str(path))
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    return path


@pytest.fixture(scope="session")
def clusters(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Clusters]:
    """The clusters of this run by key; every one still running is stopped at the end."""
    factory = Clusters(tmp_path_factory.mktemp("clusters"), request.config.stash.get(_LAST_USERS, {}))
    request.config.stash[_CLUSTERS] = factory
    try:
        yield factory
    finally:
        factory.close()


@pytest.fixture(scope="session")
def sandbox(clusters: Clusters) -> Sandbox:
    """One real cluster for the whole run: ZooKeeper + 3 Kafka brokers (ids 1-3, racks r1-r3)."""
    directory = os.environ.get("KZC_TEST_SANDBOX_DIR")
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # each xdist worker runs its own DEFAULT cluster
    return clusters.get(DEFAULT, Path(directory + (f"-{worker}" if worker else "")) if directory else None)


@pytest.fixture(scope="session")
def secured(clusters: Clusters) -> Sandbox:
    """One broker with a SASL_PLAINTEXT SCRAM listener beside PLAINTEXT and the ZooKeeper authorizer (super users
    admin and ANONYMOUS), shared by the security modules: each uses its own users, topics and passwords."""
    return clusters.get(SECURED)


@pytest.fixture(scope="session")
def sasl_zookeeper(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A standalone ZooKeeper that accepts only SASL DIGEST-MD5 (``zk_server.SASL_USER`` / ``SASL_PASSWORD``), shared
    by the modules that need one (``test_zk_auth``, ``test_fleet``); yields its connect string."""
    with start_sasl_zookeeper(tmp_path_factory.mktemp("sasl-zk")) as connect:
        yield connect


@pytest.fixture(scope="module")
def zk(sandbox: Sandbox) -> Iterator[KazooClient]:
    """A plain ZooKeeper client under the sandbox's Kafka chroot, for setting up and inspecting state."""
    with zk_client(sandbox.info().zookeeper) as client:
        yield client


@pytest.fixture(scope="session")
def spark_worker() -> Iterator[SparkEngine]:
    """One warm Spark worker for the whole run (Spark's default master): a cold start costs a JVM and its warm-up."""
    engine = SparkEngine(SparkSettings())
    engine.start()
    try:
        yield engine
    finally:
        engine.close()


class _Lent:
    """The session's worker as ``kzc check`` sees its own engine, except that closing it leaves it running."""

    def __init__(self, engine: SparkEngine) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> object:
        return getattr(self._engine, name)

    def close(self) -> None:
        """The session's worker outlives the command (``spark_worker`` stops it)."""

    def release(self) -> bool:
        """As ``close``: the command leaves the session's worker running."""
        return True


@pytest.fixture
def lent_spark(spark_worker: SparkEngine, monkeypatch: pytest.MonkeyPatch) -> SparkEngine:
    """``kzc check --engine spark`` in this process runs on ``spark_worker`` (it must ask for the same settings):
    the command's whole path, its snapshot, job and output, without a cold JVM per run."""
    from cli import check_cmd

    def engine(settings: SparkSettings) -> _Lent:
        assert settings == spark_worker.settings, f"kzc check asked for another Spark: {settings}"
        return _Lent(spark_worker)

    monkeypatch.setattr(check_cmd, "SparkEngine", engine)
    return spark_worker
