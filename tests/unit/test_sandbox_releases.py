"""The sandbox's release rules: which artifacts run a release on Java 17, which settings it knows, and the
properties of a cluster whose brokers run two releases."""

from __future__ import annotations

import pytest

from core.errors import UsageError
from core.sandbox.info import BrokerInfo, SandboxInfo
from core.sandbox.releases import TESTED_VERSIONS, KafkaRelease, protocol_properties
from core.sandbox.server_properties import broker_properties


@pytest.mark.parametrize(
    ("version", "scala", "binding", "extra"),
    [
        ("0.10.2.2", "2.11", "slf4j-log4j12", "javax.xml.bind:jaxb-api:2.3.1"),
        ("0.11.0.3", "2.11", "slf4j-log4j12", "javax.xml.bind:jaxb-api:2.3.1"),
        ("1.1.1", "2.11", "slf4j-log4j12", None),
        ("2.0.1", "2.12", "slf4j-log4j12", "org.apache.zookeeper:zookeeper:3.4.10"),
        ("2.4.1", "2.12", "slf4j-log4j12", None),
        ("2.8.2", "2.13", "slf4j-log4j12", None),
        ("3.0.2", "2.13", "slf4j-log4j12", None),
        ("3.4.1", "2.13", "slf4j-reload4j", None),
        ("3.9.1", "2.13", "slf4j-reload4j", None),
    ],
)
def test_each_release_gets_its_scala_build_its_binding_and_what_java_17_needs(
    version: str, scala: str, binding: str, extra: str | None
) -> None:
    release = KafkaRelease.parse(version)
    kafka, slf4j, *rest = release.artifacts
    assert kafka == f"org.apache.kafka:kafka_{scala}:{version}"
    assert slf4j.split(":")[1] == binding
    assert rest == ([extra] if extra else [])
    assert release.jar_dir_name == f"kafka_{scala}-{version}"


def test_the_default_release_keeps_its_cached_jar_folder() -> None:
    assert KafkaRelease.parse("3.9.1").artifacts == (
        "org.apache.kafka:kafka_2.13:3.9.1",
        "org.slf4j:slf4j-reload4j:1.7.36",
    )


@pytest.mark.parametrize("version", ["0.10.1.1", "0.9.0.1", "4.0.0", "2.4", "latest", "3.9.1-rc1", ""])
def test_releases_the_sandbox_cannot_run_are_refused_with_the_range(version: str) -> None:
    with pytest.raises(UsageError, match=r"0\.10\.2|full release number"):
        KafkaRelease.parse(version)


def test_every_tested_release_parses_and_they_are_in_order() -> None:
    releases = [KafkaRelease.parse(v) for v in TESTED_VERSIONS]
    assert releases == sorted(releases)


def test_settings_of_0_11_are_not_given_to_0_10() -> None:
    old = KafkaRelease.parse("0.10.2.2").broker_properties(3)
    assert "delete.topic.enable=true" in old
    assert not [line for line in old if line.startswith(("transaction.state.log", "group.initial.rebalance"))]
    assert "group.initial.rebalance.delay.ms=0" in KafkaRelease.parse("0.11.0.3").broker_properties(3)


def test_a_newer_broker_in_a_half_upgraded_cluster_keeps_the_oldest_protocol() -> None:
    old, new = KafkaRelease.parse("0.10.2.2"), KafkaRelease.parse("2.4.1")
    assert protocol_properties(old, old) == []
    assert protocol_properties(new, old) == [
        "inter.broker.protocol.version=0.10.2",
        "log.message.format.version=0.10.2",
    ]
    assert protocol_properties(KafkaRelease.parse("3.9.1"), KafkaRelease.parse("3.4.1")) == [
        "inter.broker.protocol.version=3.4"
    ]


def test_broker_properties_of_a_mixed_sandbox() -> None:
    info = SandboxInfo(
        dir="/x",
        zookeeper="127.0.0.1:1/kafka",
        bootstrap_servers="127.0.0.1:2",
        zookeeper_port=1,
        zookeeper_pid=None,
        brokers=(BrokerInfo(1, 2, None, None, "1.1.1"), BrokerInfo(2, 3, None, None, "2.8.2")),
        kafka_version="1.1.1",
    )
    assert info.versions == ("1.1.1", "2.8.2")
    new = broker_properties(info.brokers[1], info)
    assert "inter.broker.protocol.version=1.1" in new.splitlines()
    old = broker_properties(info.brokers[0], info)
    assert "inter.broker.protocol.version" not in old
