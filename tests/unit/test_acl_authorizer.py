"""The authorizer's decision as kzc answers it (``kzc acl check``, the console's pane): the rules of each release,
the authorizer's properties, the brokers' own DescribeAcls answer (SECURITY_DISABLED, codes of a newer
release), and ACLs that can match no client."""

from __future__ import annotations

import pytest

from core.brokers.acls import SECURITY_DISABLED_CODE, DescribedAcls, decode_describe_acls
from core.brokers.codec import Encoder
from core.brokers.wire import CORRELATION
from core.errors import KafkaRuleError, UsageError
from core.kafka.acls import (
    LITERAL,
    PREFIXED,
    Acl,
    AclBinding,
    AuthorizerProperties,
    ResourcePattern,
    acl_problem,
    authorize,
    parse_authorizer_properties,
)
from core.security.authorizer import (
    NOT_ENFORCED,
    AuthorizerState,
    BrokerAuthorizer,
    access_rows,
    answer,
    check_question,
)

ON = (BrokerAuthorizer(1, "kafka.security.authorizer.AclAuthorizer", DescribedAcls()),)
OFF = (BrokerAuthorizer(1, "", DescribedAcls(security_disabled="No Authorizer is configured on the broker")),)
SUPERS = AuthorizerProperties(("User:admin",), False, frozenset({"super.users", "allow.everyone.if.no.acl.found"}))


def _b(
    kind: str, name: str, principal: str, permission: str, operation: str, pattern: str = LITERAL, host: str = "*"
) -> AclBinding:
    return AclBinding(ResourcePattern(kind, name, pattern), Acl(principal, permission, operation, host))


def _state(brokers: tuple[BrokerAuthorizer, ...] = ON, release: tuple[int, ...] | None = (3, 9),
           properties: AuthorizerProperties = SUPERS) -> AuthorizerState:  # fmt: skip
    return AuthorizerState(brokers, properties, release)


# ---- the rules, release by release --------------------------------------------------------------------
def test_alter_implies_describe_from_0_11_only() -> None:
    acls = [_b("Topic", "t", "User:a", "Allow", "Alter")]
    assert authorize(acls, "User:a", "10.0.0.1", "Describe", "Topic", "t", release=(0, 11)).allowed
    assert not authorize(acls, "User:a", "10.0.0.1", "Describe", "Topic", "t", release=(0, 10, 2)).allowed
    reads = [_b("Topic", "t", "User:a", "Allow", "Read")]
    assert authorize(reads, "User:a", "10.0.0.1", "Describe", "Topic", "t", release=(0, 10, 2)).allowed
    configs = [_b("Topic", "t", "User:a", "Allow", "AlterConfigs")]
    assert authorize(configs, "User:a", "h", "DescribeConfigs", "Topic", "t", release=(2, 0)).allowed


def test_implication_never_runs_backwards_nor_for_deny() -> None:
    acls = [_b("Topic", "t", "User:a", "Allow", "Describe"), _b("Topic", "t", "User:a", "Deny", "Read")]
    assert not authorize(acls, "User:a", "h", "Read", "Topic", "t").allowed  # Describe does not imply Read
    assert authorize(acls, "User:a", "h", "Describe", "Topic", "t").allowed  # a Read deny does not deny Describe


def test_deny_before_allow_all_wildcards_and_hosts() -> None:
    acls = [
        _b("Topic", "*", "User:*", "Allow", "All"),
        _b("Topic", "pay", "User:eve", "Deny", "Write", PREFIXED),
        _b("Topic", "payments", "User:bob", "Allow", "Read", host="10.0.0.1"),
    ]
    assert authorize(acls, "User:x", "h", "Delete", "Topic", "payments").allowed  # User:* on the wildcard
    denied = authorize(acls, "User:eve", "h", "Write", "Topic", "payments")
    assert not denied.allowed and denied.deciding == acls[1] and "denied by Topic:pay (prefixed)" in denied.reason
    assert authorize(acls, "User:eve", "h", "Read", "Topic", "payments").allowed


def test_super_users_first_then_allow_everyone_only_without_any_acl_on_the_resource() -> None:
    acls = [_b("Topic", "t", "User:a", "Deny", "All")]
    assert authorize(acls, "User:admin", "h", "Write", "Topic", "t", super_users=["User:admin"]).allowed
    assert not authorize(acls, "User:b", "h", "Read", "Topic", "t", allow_if_no_acl=True).allowed  # ACLs exist
    free = authorize(acls, "User:b", "h", "Read", "Topic", "other", allow_if_no_acl=True)
    assert free.allowed and "allow.everyone.if.no.acl.found=true decides" in free.reason


# ---- the authorizer's properties ----------------------------------------------------------------------
def test_properties_as_the_authorizer_reads_them() -> None:
    found = parse_authorizer_properties(
        [("super.users", " User:admin ; User:ops;"), ("allow.everyone.if.no.acl.found", "TRUE")]
    )
    assert found.super_users == ("User:admin", "User:ops") and found.allow_if_no_acl and not found.assumed()
    assert parse_authorizer_properties([]).assumed() == [
        "super.users (Kafka's default: none)",
        "allow.everyone.if.no.acl.found (Kafka's default: false)",
    ]


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([("allow.everyone.if.no.acl.found", "yes")], "must be true or false"),
        ([("zookeeper.connect", "x")], "unknown authorizer property zookeeper.connect"),
        ([("super.users", "admin")], "principalType:principalName"),
    ],
)
def test_bad_properties_are_refused(pairs: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_authorizer_properties(pairs)


# ---- whether the brokers enforce anything -------------------------------------------------------------
def test_brokers_that_disagree_are_named_and_unknown_says_why() -> None:
    mixed = _state((ON[0], BrokerAuthorizer(2, "", DescribedAcls(security_disabled="No Authorizer")),
                    BrokerAuthorizer(3, unknown=("DescribeAcls: connection refused",))))  # fmt: skip
    assert mixed.enforced is None
    summary = mixed.summary()
    assert summary.startswith("the brokers disagree") and "on broker 1" in summary and "on broker 2" in summary
    assert "unknown on broker 3 (DescribeAcls: connection refused)" in summary
    assert _state(OFF).enforced is False and _state(ON).enforced is True


def test_no_authorizer_allows_everything_and_says_so() -> None:
    acls = [_b("Topic", "t", "User:a", "Deny", "All")]
    said = answer(acls, _state(OFF), "User:a", "Topic", "t", action="produce")
    assert said.allowed and said.decided_by.count(NOT_ENFORCED) == 2
    assert all(r[2] == "allowed" for r in access_rows(acls, _state(OFF), "Topic", "t"))


# ---- actions -------------------------------------------------------------------------------------------
def test_an_all_allow_beside_a_describe_deny_allows_write_but_refuses_the_producer() -> None:
    acls = [_b("Topic", "t", "User:a", "Allow", "All"), _b("Topic", "t", "User:a", "Deny", "Describe")]
    assert answer(acls, _state(), "User:a", "Topic", "t", operation="Write").allowed
    said = answer(acls, _state(), "User:a", "Topic", "t", action="produce")
    assert not said.allowed and said.decided_by.startswith("Describe on Topic:t: denied by Topic:t")
    assert [(s.operation, s.allowed) for s in said.steps] == [("Describe", False), ("Write", True)]


def test_idempotent_needs_idempotent_write_before_2_8_and_write_from_2_8() -> None:
    acls = [_b("Topic", "t", "User:a", "Allow", "Write")]
    old = answer(acls, _state(release=(2, 7)), "User:a", "Topic", "t", action="produce", idempotent=True)
    assert not old.allowed and old.steps[-1].operation == "IdempotentWrite"
    new = answer(acls, _state(release=(2, 8)), "User:a", "Topic", "t", action="produce", idempotent=True)
    assert new.allowed and "KIP-679" in new.steps[-1].decided_by


def test_a_consumer_needs_its_group() -> None:
    acls = [_b("Topic", "t", "User:a", "Allow", "Read"), _b("Group", "g", "User:a", "Allow", "Read"),
            _b("Group", "g", "User:a", "Deny", "Describe")]  # fmt: skip
    assert answer(acls, _state(), "User:a", "Topic", "t", action="consume").allowed
    said = answer(acls, _state(), "User:a", "Topic", "t", action="consume", group="g")
    assert not said.allowed and "Describe on Group:g" in said.decided_by


# ---- bad input ----------------------------------------------------------------------------------------
def test_acls_that_match_no_client_are_said_and_still_count_on_their_resource() -> None:
    acls = [
        _b("Topic", "t", "Group:ops", "Allow", "Read"),
        _b("Topic", "t", "User:a", "Allow", "Read", host="client.example.com"),
        _b("Topic", "t", "User:a", "Allow", "Fly"),
    ]
    open_state = _state(properties=AuthorizerProperties((), True, frozenset({"allow.everyone.if.no.acl.found"})))
    said = answer(acls, open_state, "User:a", "Topic", "t", operation="Read", host="10.0.0.1")
    assert not said.allowed  # ACLs exist on the resource: allow.everyone does not apply, and none matches
    notes = " ".join(said.caveats)
    assert "is not of type User" in notes and "not an IP address" in notes and "'Fly' is unknown" in notes
    assert acl_problem(Acl("User:a", "Allow", "Read", "::1")) is None


def test_a_question_the_brokers_could_not_be_asked_is_refused() -> None:
    with pytest.raises(UsageError, match="only supports operations Read,Describe,Delete"):
        check_question("User:a", "Group", "Write", "*")
    with pytest.raises(UsageError, match="--host must be the client's IP address"):
        check_question("User:a", "Topic", "Read", "localhost")
    with pytest.raises(UsageError, match="principalType:principalName"):
        check_question("alice", "Topic", "Read", "*")


def test_unreadable_acl_znodes_are_said_in_every_answer() -> None:
    said = answer([], _state(), "User:a", "Topic", "t", operation="Read", unreadable=["/kafka-acl/Topic/t: not JSON"])
    assert "unreadable, not counted: /kafka-acl/Topic/t: not JSON" in said.caveats


# ---- kzc's own DescribeAcls ---------------------------------------------------------------------------
Resource = tuple[int, str, int, list[tuple[str, str, int, int]]]  # type, name, pattern, ACLs (codes)


def _answer(version: int, code: int, message: str | None, resources: list[Resource]) -> bytes:
    """A DescribeAcls answer of ``version`` as a broker writes it."""
    flexible = version >= 2
    head = Encoder(flexible).int32(CORRELATION)  # the correlation id; body() ends it with the header's tag buffer

    def acl(e: Encoder, a: tuple[str, str, int, int]) -> None:
        e.string(a[0]).string(a[1]).int8(a[2]).int8(a[3])

    def resource(e: Encoder, r: Resource) -> None:
        e.int8(r[0]).string(r[1])
        if version >= 1:
            e.int8(r[2])
        e.array(r[3], acl)

    body = Encoder(flexible).int32(0).int16(code).string(message).array(resources, resource)
    return head.body() + body.body()


@pytest.mark.parametrize("version", [0, 1, 2, 3])
def test_describe_acls_answers_of_every_version(version: int) -> None:
    found = decode_describe_acls(_answer(version, 0, None, [(2, "t", 4, [("User:a", "*", 3, 3)])]), version)
    pattern = PREFIXED if version >= 1 else LITERAL  # v0 has no pattern type: literal
    assert found.bindings == (_b("Topic", "t", "User:a", "Allow", "Read", pattern),) and not found.unnamed


def test_security_disabled_is_no_authorizer_not_no_acls() -> None:
    found = decode_describe_acls(_answer(1, SECURITY_DISABLED_CODE, "No Authorizer is configured", []), 1)
    assert found.security_disabled == "No Authorizer is configured" and found.bindings == ()
    with pytest.raises(KafkaRuleError, match="ClusterAuthorizationException"):
        decode_describe_acls(_answer(1, 31, None, []), 1)


def test_codes_of_a_newer_release_are_said_never_dropped_silently() -> None:
    body = _answer(3, 0, None, [(2, "t", 3, [("User:a", "*", 99, 3)]), (42, "x", 3, [("User:b", "*", 3, 3)])])
    found = decode_describe_acls(body, 3)
    assert [b.acl.operation for b in found.bindings] == ["unknown code 99"]  # still an ACL on Topic:t
    assert any("code unknown to kzc" in u for u in found.unnamed)
    assert any("type code 42" in u and "left out" in u for u in found.unnamed)
