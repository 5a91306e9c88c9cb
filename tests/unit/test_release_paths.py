"""The path each fix action takes, release by release, from the brokers' ApiVersions (no cluster: the
capabilities are those brokers of each release answer, ``tests/unit/fake_broker.RELEASE_APIS``; the real
brokers drive the same paths in tests/integration/test_release_paths.py)."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest

from core.brokers.capabilities import BrokerApis, Capabilities, CapabilityCache, Route
from core.config import ConnectionSettings
from core.configs.ops import ConfigOps, config_route
from core.connect import parse_zookeeper
from core.elections.ops import ElectionOps, preferred_route
from core.errors import GuardError, UsageError
from core.reassign.ops import ReassignOps
from tests.unit.fake_broker import RELEASE_APIS

SETTINGS = ConnectionSettings(zookeeper=parse_zookeeper("127.0.0.1:1"))


def _ops(kind: Any, *releases: str, admin: bool = True) -> Any:
    """``kind`` (ConfigOps, ElectionOps, ReassignOps) on brokers 1.. of ``releases`` (no socket opened)."""
    fake_admin = SimpleNamespace(timeout=1.0) if admin else None
    ops = kind(SimpleNamespace(client=None), fake_admin, SETTINGS)
    caps = Capabilities(tuple(BrokerApis(i + 1, RELEASE_APIS[r]) for i, r in enumerate(releases)))
    ops.capabilities = CapabilityCache(1.0 if admin else None, caps)
    ops.reader = SimpleNamespace(facts=lambda: SimpleNamespace(brokers={}))
    return ops


FACTS: Any = SimpleNamespace(brokers={})


@pytest.mark.parametrize(
    ("releases", "via", "why"),
    [
        (("1.1",), "zookeeper", "broker 1 has no IncrementalAlterConfigs (Kafka 2.3.0+"),
        (("2.2",), "zookeeper", "broker 1 has no IncrementalAlterConfigs (Kafka 2.3.0+"),
        (("3.9", "2.2"), "zookeeper", "broker 2 has no IncrementalAlterConfigs"),  # the oldest decides
        (("3.9",), "admin", "every broker serves IncrementalAlterConfigs"),
    ],
)
def test_config_changes_take_the_path_of_the_oldest_broker(releases: tuple[str, ...], via: str, why: str) -> None:
    path = _ops(ConfigOps, *releases).route(FACTS)
    assert (path.via, path.reason.startswith(why)) == (via, True), path.reason
    if via == "zookeeper":
        assert "as kafka-configs --zookeeper did before 2.3" in path.reason


def test_without_bootstrap_servers_configs_go_through_zookeeper() -> None:
    assert _ops(ConfigOps, "3.9", admin=False).route(FACTS).via == "zookeeper"


NO_BOOTSTRAP = ()  # no --bootstrap-server: no brokers asked (capabilities None)
NEEDS_BOOTSTRAP = "--via admin needs --bootstrap-server (the brokers to send the request to)"


C, E = config_route, preferred_route


@pytest.mark.parametrize(
    ("decide", "releases", "via", "outcome"),
    [
        (C, NO_BOOTSTRAP, None, "zookeeper: no --bootstrap-server: written through ZooKeeper, as kafka-configs"),
        (C, NO_BOOTSTRAP, "zookeeper", "zookeeper: --via zookeeper: written through ZooKeeper, as kafka-configs"),
        (C, NO_BOOTSTRAP, "admin", NEEDS_BOOTSTRAP),
        (C, ("0.10.2",), None, "zookeeper: broker 1 has no IncrementalAlterConfigs (Kafka 2.3.0+"),
        (C, ("0.10.2",), "admin", "--via admin cannot be taken: broker 1 has no IncrementalAlterConfigs (Kafka 2.3"),
        (C, ("1.1",), None, "zookeeper: broker 1 has no IncrementalAlterConfigs (Kafka 2.3.0+"),
        (C, ("1.1",), "zookeeper", "zookeeper: --via zookeeper: written through ZooKeeper"),
        (C, ("2.2",), None, "zookeeper: broker 1 has no IncrementalAlterConfigs (Kafka 2.3.0+"),
        (C, ("2.2",), "admin", "--via admin cannot be taken: broker 1 has no IncrementalAlterConfigs (Kafka 2.3"),
        (C, ("2.6",), None, "admin: every broker serves IncrementalAlterConfigs: sent through the AdminClient"),
        (C, ("3.9",), None, "admin: every broker serves IncrementalAlterConfigs: sent through the AdminClient"),
        (C, ("3.9",), "admin", "admin: every broker serves IncrementalAlterConfigs: sent through the AdminClient"),
        (C, ("3.9",), "zookeeper", "zookeeper: --via zookeeper: written through ZooKeeper, as kafka-configs"),
        (C, ("3.9", "2.2"), None, "zookeeper: broker 2 has no IncrementalAlterConfigs"),  # a rolling upgrade
        (C, ("3.9", "2.2"), "admin", "--via admin cannot be taken: broker 2 has no IncrementalAlterConfigs"),
        (E, NO_BOOTSTRAP, "admin", NEEDS_BOOTSTRAP),
        (E, NO_BOOTSTRAP, None, "zookeeper: no --bootstrap-server: written through ZooKeeper, as kafka-preferred"),
        (E, ("2.2",), None, "zookeeper: broker 1 serves ElectLeaders v0-v0: kzc needs the election type"),
        (E, ("2.2",), "admin", "--via admin cannot be taken: broker 1 serves ElectLeaders v0-v0: kzc needs the"),
        (E, ("3.9",), "zookeeper", "zookeeper: --via zookeeper: written through ZooKeeper, as kafka-preferred"),
        (E, ("3.9",), "admin", "admin: every broker serves ElectLeaders"),
    ],
)
def test_configs_and_preferred_elections_take_the_one_write_path_decision(
    decide: Callable[[Capabilities | None, str | None], Route],
    releases: tuple[str, ...],
    via: str | None,
    outcome: str,
) -> None:
    """``config_route`` and ``preferred_route`` (``write_route``) per release row and ``--via``: the path and
    why, or the usage error."""
    caps = Capabilities(tuple(BrokerApis(i + 1, RELEASE_APIS[r]) for i, r in enumerate(releases)))
    capabilities = None if releases == NO_BOOTSTRAP else caps
    if outcome.startswith("--via admin"):
        with pytest.raises(UsageError) as refused:
            decide(capabilities, via)
        assert str(refused.value).startswith(outcome)
        return
    path = decide(capabilities, via)
    assert f"{path.via}: {path.reason}".startswith(outcome)


def test_via_zookeeper_asks_no_broker() -> None:
    ops = _ops(ConfigOps, "3.9")
    ops.capabilities = None  # asking the brokers would fail
    assert ops.route(FACTS, "zookeeper").via == "zookeeper"


@pytest.mark.parametrize(
    ("release", "via", "why"),
    [
        ("1.1", "zookeeper", "broker 1 has no ElectLeaders (Kafka 2.2.0+"),
        ("2.2", "zookeeper", "broker 1 serves ElectLeaders v0-v0: kzc needs the election type (v1, Kafka 2.4.0+)"),
        ("3.9", "admin", "every broker serves ElectLeaders"),
    ],
)
def test_preferred_elections_use_the_znode_without_elect_leaders_v1(release: str, via: str, why: str) -> None:
    path = _ops(ElectionOps, release).route(FACTS)
    assert (path.via, path.reason.startswith(why)) == (via, True), path.reason


@pytest.mark.parametrize("release", ["0.10.2", "1.1", "2.2"])
def test_unclean_elections_before_2_4_are_refused_with_the_topic_config_instead(release: str) -> None:
    with pytest.raises(GuardError) as refused:
        _ops(ElectionOps, release).plan_unclean("orders", 0)
    message = str(refused.value)
    assert message.startswith("Kafka before 2.4 has no unclean election request: broker 1 ")
    assert "unclean.leader.election.enable=true" in message
    assert "kzc config set orders unclean.leader.election.enable=true --dry-run" in message


def test_an_unclean_election_without_bootstrap_servers_names_the_topic_config_too() -> None:
    with pytest.raises(UsageError, match="unclean.leader.election.enable=true"):
        _ops(ElectionOps, "3.9", admin=False).plan_unclean("orders", 0)


@pytest.mark.parametrize("release", ["0.10.2", "1.1", "2.2"])
def test_cancel_before_2_4_is_refused_with_what_kafka_offered(release: str) -> None:
    with pytest.raises(GuardError) as refused:
        _ops(ReassignOps, release).cancellable()
    message = str(refused.value)
    assert message.startswith("Kafka before 2.4 cannot cancel a reassignment: broker 1 has no ")
    assert "AlterPartitionReassignments (Kafka 2.4.0+" in message and "let it finish" in message


@pytest.mark.parametrize(("release", "via"), [("1.1", "zookeeper"), ("2.2", "zookeeper"), ("3.9", "admin")])
def test_throttles_go_through_incremental_alter_configs_only_where_every_broker_serves_it(
    release: str, via: str
) -> None:
    ops = _ops(ReassignOps, release)
    assert ops.throttle_route(FACTS).via == via
    assert ops.path_reason(1000, FACTS).startswith("/admin/reassign_partitions, as kafka-reassign-partitions")


@pytest.mark.parametrize(
    ("release", "message"),
    [
        ("1.1", "There is an existing assignment running."),
        ("2.2", "There is an existing assignment running."),
        ("3.9", "Cannot execute because there is an existing partition assignment."),
    ],
)
def test_a_second_reassignment_is_refused_in_the_words_of_that_releases_tool(release: str, message: str) -> None:
    refusal = _ops(ReassignOps, release)._existing(FACTS)
    assert str(refusal).startswith(message)
