"""The path of ACL and SCRAM writes, release by release, from the brokers' ApiVersions (no cluster: the
capabilities those brokers answer, ``tests/unit/fake_broker.RELEASE_APIS``; the real brokers take the same paths
in tests/integration/test_security_paths.py), and what the brokers' path shows before it sends anything."""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError

from core.brokers.acls import AclAdmin
from core.brokers.capabilities import BrokerApis, Capabilities
from core.brokers.scram import ScramAdmin
from core.config import PLAINTEXT
from core.configs.zk import StoredConfig
from core.connect import HostPort
from core.errors import ConnectError, KafkaRuleError, KzcError, UsageError
from core.kafka.acls import Acl, ResourcePattern
from core.kafka.scram import ScramCredentialInfo
from core.security.acls import AclPlan, StoredAcls, acl_route
from core.security.common import around_the_brokers
from core.security.users import CredentialPlan, user_route
from tests.unit.fake_broker import RELEASE_APIS

TOPIC = ResourcePattern("Topic", "orders")
PREFIXED = ResourcePattern("Topic", "orders-", "PREFIXED")
READ = Acl("User:alice", "Allow", "Read", "*")


def caps(*releases: str) -> Capabilities:
    return Capabilities(tuple(BrokerApis(i + 1, RELEASE_APIS[r]) for i, r in enumerate(releases)))


@pytest.mark.parametrize(
    ("releases", "action", "via", "why"),
    [
        (("0.10.2",), "add", "zookeeper", "broker 1 has no CreateAcls (Kafka 0.11.0+"),
        (("0.10.2",), "remove", "zookeeper", "broker 1 has no DeleteAcls (Kafka 0.11.0+"),
        (("1.1",), "add", "admin", "every broker serves CreateAcls"),
        (("3.9",), "remove", "admin", "every broker serves DeleteAcls"),
        (("3.9", "0.10.2"), "add", "zookeeper", "broker 2 has no CreateAcls"),  # the oldest decides
    ],
)
def test_acl_changes_take_the_path_of_the_oldest_broker(
    releases: tuple[str, ...], action: str, via: str, why: str
) -> None:
    path = acl_route(caps(*releases), action, TOPIC, [READ])
    assert (path.via, path.reason.startswith(why)) == (via, True), path.reason
    if via == "zookeeper":
        assert "as kafka-acls --authorizer-properties zookeeper.connect=... did before 0.11" in path.reason


def test_without_bootstrap_servers_acls_go_through_zookeeper_and_say_so() -> None:
    path = acl_route(None, "add", TOPIC, [READ])
    assert path.via == "zookeeper" and path.reason.startswith("no --bootstrap-server: written through ZooKeeper")


@pytest.mark.parametrize("release", ["1.1"])
def test_a_prefixed_acl_on_brokers_before_2_0_is_refused_with_kafkas_reason(release: str) -> None:
    with pytest.raises(KafkaRuleError) as refused:
        acl_route(caps(release), "add", PREFIXED, [READ])
    assert str(refused.value).startswith(
        "Version 0 only supports literal resource pattern types (broker 1 serves "
        "CreateAcls v0-v0: kzc needs the resource pattern type (v1, Kafka 2.0.0+))"
    )
    assert refused.value.kafka_exception == "UnsupportedVersionException"


@pytest.mark.parametrize("release", ["2.2", "3.9"])
def test_a_prefixed_acl_goes_through_brokers_with_create_acls_v1(release: str) -> None:
    assert acl_route(caps(release), "add", PREFIXED, [READ]).via == "admin"


def test_via_forces_a_path_or_refuses_saying_why() -> None:
    forced = acl_route(caps("3.9"), "add", TOPIC, [READ], via="zookeeper")
    assert forced.via == "zookeeper" and forced.reason.startswith("--via zookeeper")
    with pytest.raises(UsageError, match="--via admin needs --bootstrap-server"):
        acl_route(None, "add", TOPIC, [READ], via="admin")
    with pytest.raises(UsageError, match="--via admin cannot be taken: broker 1 has no CreateAcls"):
        acl_route(caps("0.10.2"), "add", TOPIC, [READ], via="admin")
    with pytest.raises(UsageError, match="--via admin needs"):
        user_route(None, via="admin")
    with pytest.raises(UsageError, match="--via admin cannot be taken: broker 1 has no AlterUserScramCredentials"):
        user_route(caps("2.2"), via="admin")


def test_an_acl_librdkafka_cannot_name_goes_through_zookeeper() -> None:
    token = ResourcePattern("DelegationToken", "t1")
    path = acl_route(caps("3.9"), "add", token, [Acl("User:alice", "Allow", "Describe", "*")])
    assert path.via == "zookeeper"
    assert path.reason.startswith("librdkafka (kzc's Kafka client) cannot name the resource type DelegationToken")


@pytest.mark.parametrize(
    ("releases", "via", "why"),
    [
        (("1.1",), "zookeeper", "broker 1 has no AlterUserScramCredentials (Kafka 2.7.0+"),
        (("2.2",), "zookeeper", "broker 1 has no AlterUserScramCredentials (Kafka 2.7.0+"),
        (("3.9", "2.2"), "zookeeper", "broker 2 has no AlterUserScramCredentials"),
        (("3.9",), "admin", "every broker serves AlterUserScramCredentials"),
    ],
)
def test_scram_changes_take_the_path_of_the_oldest_broker(releases: tuple[str, ...], via: str, why: str) -> None:
    path = user_route(caps(*releases))
    assert (path.via, path.reason.startswith(why)) == (via, True), path.reason
    if via == "zookeeper":
        assert "as kafka-configs --zookeeper --entity-type users did before 2.7" in path.reason
    assert user_route(None).reason.startswith("no --bootstrap-server: written through ZooKeeper")


def test_the_acl_preview_on_the_brokers_path_says_exactly_what_is_sent() -> None:
    write = Acl("User:alice", "Allow", "Write", "*")
    before = StoredAcls(TOPIC, frozenset({READ}), None)
    plan = AclPlan("add", TOPIC, (READ, write), before, frozenset({READ, write}), (), "admin", "every broker ...")
    lines = plan.describe()
    assert lines[0] == "ACLs on Topic:orders (as DescribeAcls reports them):"
    assert "via the brokers (CreateAcls): every broker ..." in lines
    assert lines[-1] == (
        "  sends CreateAcls: (resourceType=TOPIC, name=orders, patternType=LITERAL), "
        "(principal=User:alice, host=*, operation=Write, permissionType=Allow)"
    )
    assert plan.to_json()["requests"] == [{"api": "CreateAcls", "resource_type": "Topic", "name": "orders",
                                           "pattern_type": "LITERAL", "principal": "User:alice",
                                           "permission": "Allow", "operation": "Write", "host": "*"}]  # fmt: skip
    removal = AclPlan("remove", TOPIC, (READ,), before, frozenset(), (), "admin", "")
    assert [b.acl for b in removal.sent] == [READ] and removal.api == "DeleteAcls"


def test_a_scram_plan_on_the_brokers_path_shows_no_secret_and_sends_what_exists() -> None:
    secret = "pw-never-shown"
    had = (ScramCredentialInfo("SCRAM-SHA-256", 4096),)
    plan = CredentialPlan("alice", "set", ("SCRAM-SHA-512",), 8192, None, {}, "admin", "why", had, secret)
    shown = "\n".join(plan.describe()) + repr(plan) + str(plan.to_json())
    assert secret not in shown
    assert plan.to_json()["after"] == ["SCRAM-SHA-256", "SCRAM-SHA-512"] and plan.changes
    assert plan.requests() == [{"api": "AlterUserScramCredentials", "kind": "upsertion", "user": "alice",
                                "mechanism": "SCRAM-SHA-512", "iterations": 8192}]  # fmt: skip
    assert "the password itself is not sent" in plan.describe()[-1]
    delete = CredentialPlan("alice", "delete", ("SCRAM-SHA-256", "SCRAM-SHA-512"), None, None, {}, "admin", "", had)
    assert delete.sent == ("SCRAM-SHA-256",) and delete.to_json()["after"] == []
    nothing = CredentialPlan("alice", "delete", ("SCRAM-SHA-512",), None, None, {}, "admin", "", had)
    assert not nothing.changes and "no change" in "\n".join(nothing.describe())
    in_zk = CredentialPlan("alice", "delete", ("SCRAM-SHA-256",), None, StoredConfig("users", "alice", (), None), {})
    assert in_zk.sent == () and in_zk.requests() == []


def test_a_refusal_on_the_brokers_path_keeps_its_kind_and_offers_zookeeper_explicitly() -> None:
    refused = around_the_brokers(KafkaRuleError("Security features are disabled.", "SecurityDisabledException"), "x")
    assert isinstance(refused, KafkaRuleError) and refused.kafka_exception == "SecurityDisabledException"
    assert "nothing was written through ZooKeeper instead" in str(refused) and "--via zookeeper" in str(refused)
    assert type(around_the_brokers(ConnectError("down"), "x")) is ConnectError  # with the SASL/TLS hint
    assert type(around_the_brokers(KzcError("odd"), "x")) is KzcError


@pytest.mark.parametrize(
    ("code", "exception"),
    [
        (KafkaError.SECURITY_DISABLED, "SecurityDisabledException"),
        (KafkaError.CLUSTER_AUTHORIZATION_FAILED, "ClusterAuthorizationException"),
        (KafkaError.UNACCEPTABLE_CREDENTIAL, "UnacceptableCredentialException"),
    ],
)
def test_the_brokers_security_refusals_are_kafkas_rule_errors(code: int, exception: str) -> None:
    for kind in (AclAdmin, ScramAdmin):
        admin = kind([HostPort("127.0.0.1", 1)], security=PLAINTEXT, timeout=1.0)
        try:
            error = admin._error(KafkaError(code, "refused by the broker"), "create ACLs")
        finally:
            admin.close()
        assert isinstance(error, KafkaRuleError) and error.kafka_exception == exception
        assert str(error) == "refused by the broker (the brokers refused to create ACLs)"
