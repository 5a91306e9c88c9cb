"""``core.security.acls.acl_request``: the pattern and ACLs of an add or remove, as ``kzc acl`` and the
console's ACL form both take them, refused in Kafka's words where the request is bad."""

from __future__ import annotations

import pytest

from core.errors import UsageError
from core.kafka.acls import CLUSTER_NAME, LITERAL, PREFIXED, Acl, ResourcePattern
from core.security.acls import acl_request


def test_one_acl_per_operation_with_the_permission_and_host() -> None:
    pattern, acls = acl_request("Topic", " orders. ", PREFIXED, "User:alice", ["read", "Describe"], "10.0.0.1", True)
    assert pattern == ResourcePattern("Topic", "orders.", PREFIXED)
    assert acls == (Acl("User:alice", "Deny", "Read", "10.0.0.1"), Acl("User:alice", "Deny", "Describe", "10.0.0.1"))


def test_the_cluster_resource_has_its_one_name() -> None:
    pattern, acls = acl_request("Cluster", "", LITERAL, "User:admin", ["Alter"], "*", False)
    assert pattern == ResourcePattern("Cluster", CLUSTER_NAME, LITERAL)
    assert acls == (Acl("User:admin", "Allow", "Alter", "*"),)


@pytest.mark.parametrize(
    ("resource_type", "name", "principal", "operations", "host", "message"),
    [
        ("Topic", "t", "alice", ["Read"], "*", "expected a string in format principalType:principalName but got alice"),
        ("Group", "g", "User:a", ["Write"], "*", "ResourceType Group only supports operations Read,Describe"),
        ("Topic", "t", "User:a", ["Fly"], "*", "Unknown operation 'Fly'"),
        ("Topic", "t", "User:a", [], "*", "give at least one operation"),
        ("Topic", "t", "User:a", ["Read"], "", "--host cannot be empty"),
        ("Topic", " ", "User:a", ["Read"], "*", "give the Topic name"),
        ("Table", "t", "User:a", ["Read"], "*", "Unknown resource type 'Table'"),
    ],
)
def test_a_bad_request_is_refused_in_kafkas_words(
    resource_type: str, name: str, principal: str, operations: list[str], host: str, message: str
) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        acl_request(resource_type, name, LITERAL, principal, operations, host, False)
