"""Kafka's ACL rules: operations per resource type and principals as AclCommand validates them, the ZooKeeper
encodings of the authorizer's store and change events, and matching/authorizing as AclAuthorizer does."""

from __future__ import annotations

import json

import pytest

from core.errors import UsageError
from core.kafka.acls import (
    LITERAL,
    PREFIXED,
    Acl,
    AclBinding,
    ResourcePattern,
    authorize,
    check_operation,
    check_pattern,
    encode_acls,
    encode_change_event,
    matching,
    parse_operation,
    parse_principal,
)
from core.kafka.znodes.paths import acl_change_sequence, acl_path
from core.kafka.znodes.security import AclChangeEvent, AclResource, parse_acl_change, parse_acl_resource
from core.security.authorizer import AuthorizerState, access_rows


def _b(
    name: str, principal: str, permission: str, operation: str, pattern: str = LITERAL, host: str = "*"
) -> AclBinding:
    return AclBinding(ResourcePattern("Topic", name, pattern), Acl(principal, permission, operation, host))


def test_operations_per_resource_type_as_acl_command() -> None:
    check_operation("Topic", "DescribeConfigs")
    check_operation("Group", "All")
    with pytest.raises(UsageError, match="ResourceType Group only supports operations Read,Describe,Delete,All"):
        check_operation("Group", "Write")
    with pytest.raises(UsageError, match="ResourceType TransactionalId only supports"):
        check_operation("TransactionalId", "Read")
    assert parse_operation("describe_configs") == "DescribeConfigs"
    assert parse_operation("IDEMPOTENTWRITE") == "IdempotentWrite"
    with pytest.raises(UsageError, match="Unknown operation"):
        parse_operation("Fly")


@pytest.mark.parametrize("text", ["alice", "User:", ":alice"])
def test_principal_needs_type_and_name(text: str) -> None:
    with pytest.raises(UsageError, match="expected a string in format principalType:principalName"):
        parse_principal(text)
    assert parse_principal("User:alice") == "User:alice"


def test_prefixed_needs_2_0_and_no_wildcard() -> None:
    with pytest.raises(UsageError, match="prefixed ACLs need Kafka 2.0"):
        check_pattern(ResourcePattern("Topic", "ord", PREFIXED), (1, 1))
    with pytest.raises(UsageError, match="cannot be the wildcard"):
        check_pattern(ResourcePattern("Topic", "*", PREFIXED), None)
    with pytest.raises(UsageError, match="TransactionalId needs Kafka 0.11"):
        check_pattern(ResourcePattern("TransactionalId", "t"), (0, 10, 2))
    check_pattern(ResourcePattern("Topic", "ord", PREFIXED), (2, 0))


def test_store_and_events_are_what_the_authorizer_reads() -> None:
    acls = [Acl("User:bob", "Deny", "Write", "10.0.0.1"), Acl("User:alice", "Allow", "Read", "*")]
    data = encode_acls(acls)
    assert json.loads(data) == {"version": 1, "acls": [
        {"principal": "User:alice", "permissionType": "Allow", "operation": "Read", "host": "*"},
        {"principal": "User:bob", "permissionType": "Deny", "operation": "Write", "host": "10.0.0.1"},
    ]}  # fmt: skip
    parsed = parse_acl_resource(acl_path("Topic", "orders"), data)
    assert isinstance(parsed, AclResource) and len(parsed.acls) == 2
    literal = ResourcePattern("Topic", "orders")
    prefixed = ResourcePattern("Group", "app-", PREFIXED)
    assert encode_change_event(literal) == b"Topic:orders"
    assert json.loads(encode_change_event(prefixed)) == {
        "version": 1, "resourceType": "GROUP", "name": "app-", "patternType": "PREFIXED"}  # fmt: skip
    event = parse_acl_change(acl_change_sequence(PREFIXED) + "0000000001", encode_change_event(prefixed))
    assert isinstance(event, AclChangeEvent) and (event.resource_type, event.name) == ("GROUP", "app-")
    assert acl_path("Group", "app-", PREFIXED) == "/kafka-acl-extended/prefixed/Group/app-"
    assert acl_change_sequence(LITERAL) == "/kafka-acl-changes/acl_changes_"


BINDINGS = [
    _b("orders", "User:alice", "Allow", "Read"),
    _b("*", "User:bob", "Allow", "Write"),
    _b("ord", "User:carol", "Allow", "All", PREFIXED),
    _b("orders", "User:carol", "Deny", "Delete"),
    _b("other", "User:dave", "Allow", "Read"),
    _b("x", "User:eve", "Allow", "Read", PREFIXED),
]


def test_matching_takes_literal_wildcard_and_prefixes() -> None:
    found = {(b.pattern.name, b.acl.principal) for b in matching(BINDINGS, "Topic", "orders")}
    assert found == {("orders", "User:alice"), ("*", "User:bob"), ("ord", "User:carol"), ("orders", "User:carol")}
    assert matching(BINDINGS, "Group", "orders") == []


@pytest.mark.parametrize(
    ("principal", "operation", "allowed"),
    [
        ("User:alice", "Read", True),
        ("User:alice", "Describe", True),  # implied by Read
        ("User:alice", "Write", False),
        ("User:bob", "Write", True),  # the literal wildcard
        ("User:carol", "AlterConfigs", True),  # prefixed All
        ("User:carol", "Delete", False),  # deny wins
        ("User:dave", "Read", False),  # ACLs exist on the resource, none for dave
    ],
)
def test_authorize_as_acl_authorizer(principal: str, operation: str, allowed: bool) -> None:
    assert authorize(BINDINGS, principal, "127.0.0.1", operation, "Topic", "orders").allowed is allowed


def test_super_users_and_no_acl_rule() -> None:
    assert authorize(BINDINGS, "User:admin", "h", "Delete", "Topic", "orders", super_users=["User:admin"]).allowed
    assert not authorize([], "User:x", "h", "Read", "Topic", "free").allowed
    assert authorize([], "User:x", "h", "Read", "Topic", "free", allow_if_no_acl=True).allowed
    host_bound = [_b("t", "User:h", "Allow", "Read", host="10.0.0.1")]
    assert not authorize(host_bound, "User:h", "10.0.0.2", "Read", "Topic", "t").allowed


def test_who_can_summarises_per_principal() -> None:
    rows = access_rows(BINDINGS, AuthorizerState(), "Topic", "orders")
    assert ("User:alice", "*", "allowed", ["Read", "Describe"]) in rows
    assert ("User:carol", "*", "denied", ["Delete"]) in rows
    carol = next(r for r in rows if r[0] == "User:carol" and r[2] == "allowed")
    assert "Delete" not in carol[3] and "Read" in carol[3]


def test_literal_events_name_the_type_as_each_release_reads_it() -> None:
    tx = ResourcePattern("TransactionalId", "tx-1")
    assert encode_change_event(tx, enum_names=True) == b"TRANSACTIONAL_ID:tx-1"  # 2.4+: the Java enum's name
    assert encode_change_event(tx, enum_names=False) == b"TransactionalId:tx-1"  # before: the Scala name
    with pytest.raises(UsageError, match="spelled differently before and from Kafka 2.4"):
        encode_change_event(tx)
    assert encode_change_event(ResourcePattern("Cluster", "kafka-cluster")) == b"Cluster:kafka-cluster"
    assert encode_change_event(ResourcePattern("Group", "g"), enum_names=True) == b"GROUP:g"
