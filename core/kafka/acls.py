"""Kafka's ACL rules, pure: resource types and the operations each supports, principals, the ZooKeeper
encodings of ``AclAuthorizer`` (2.4+) and ``SimpleAclAuthorizer`` (0.9 to 2.3), and the one function that
decides, as the authorizer does, which ACLs apply to a resource and what they allow.

Sources: ``AclEntry.supportedOperations`` / ``AclCommand.validateOperation`` (operations per resource type,
plus ``All``), ``SecurityUtils.parseKafkaPrincipal`` (``Type:name``), ``AclAuthorizer.matchingAcls`` and
``authorize`` (literal name, literal wildcard ``*`` and, 2.0+, prefixed patterns; deny wins; ``Describe``
is implied by Read/Write/Delete/Alter and ``DescribeConfigs`` by ``AlterConfigs``), ``ZkAclStore`` /
``ZkAclChangeStore`` (zk-layout §2.12).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from core.errors import UsageError

LITERAL = "LITERAL"
PREFIXED = "PREFIXED"
WILDCARD = "*"
WILDCARD_PRINCIPAL = "User:*"
CLUSTER_NAME = "kafka-cluster"  # the one Cluster resource's name (Resource.ClusterResourceName)
ALLOW = "Allow"
DENY = "Deny"

# Resource type (as ZooKeeper spells it) -> (the enum name of extended change events, first release).
RESOURCE_TYPES: dict[str, tuple[str, tuple[int, ...]]] = {
    "Topic": ("TOPIC", (0, 9)),
    "Group": ("GROUP", (0, 9)),
    "Cluster": ("CLUSTER", (0, 9)),
    "TransactionalId": ("TRANSACTIONAL_ID", (0, 11)),
    "DelegationToken": ("DELEGATION_TOKEN", (1, 1)),
    "User": ("USER", (3, 3)),
}
SUPPORTED_OPERATIONS: dict[str, tuple[str, ...]] = {
    "Topic": ("Read", "Write", "Create", "Describe", "Delete", "Alter", "DescribeConfigs", "AlterConfigs"),
    "Group": ("Read", "Describe", "Delete"),
    "Cluster": ("Create", "ClusterAction", "DescribeConfigs", "AlterConfigs", "IdempotentWrite", "Alter", "Describe"),
    "TransactionalId": ("Describe", "Write"),
    "DelegationToken": ("Describe",),
    "User": ("CreateTokens", "DescribeTokens"),
}
ALL = "All"
OPERATIONS = ("All", "Read", "Write", "Create", "Delete", "Alter", "Describe", "ClusterAction", "DescribeConfigs",
              "AlterConfigs", "IdempotentWrite", "CreateTokens", "DescribeTokens")  # fmt: skip
# What an allowed operation implies (AclAuthorizer.authorize: allowOps).
_IMPLIED_BY = {"Describe": ("Read", "Write", "Delete", "Alter"), "DescribeConfigs": ("AlterConfigs",)}
PREFIXED_SINCE = (2, 0)


@dataclass(frozen=True, slots=True, order=True)
class ResourcePattern:
    """A resource pattern: ``Topic`` ``foo`` LITERAL, ``Topic`` ``foo-`` PREFIXED, ``Topic`` ``*``."""

    resource_type: str
    name: str
    pattern_type: str = LITERAL

    def __str__(self) -> str:
        kind = "" if self.pattern_type == LITERAL else f" ({self.pattern_type.lower()})"
        return f"{self.resource_type}:{self.name}{kind}"


@dataclass(frozen=True, slots=True, order=True)
class Acl:
    """One ACL entry as ZooKeeper stores it (``principal`` ``Type:name``; ``permission`` Allow or Deny)."""

    principal: str
    permission: str
    operation: str
    host: str = WILDCARD

    def to_json(self) -> dict[str, str]:
        """The entry as ``AclEntry.toJsonCompatibleMap`` writes it (principal, permissionType, operation, host)."""
        return {"principal": self.principal, "permissionType": self.permission, "operation": self.operation,
                "host": self.host}  # fmt: skip

    def __str__(self) -> str:
        return f"{self.principal} is {self.permission}ed {self.operation} from host {self.host}"


@dataclass(frozen=True, slots=True)
class AclBinding:
    """An ACL on a resource pattern (what ``kzc acl list`` prints, one per line)."""

    pattern: ResourcePattern
    acl: Acl

    def to_json(self) -> dict[str, str]:
        """Flat JSON: resource_type, name, pattern_type, principal, permission, operation, host."""
        return {
            "resource_type": self.pattern.resource_type,
            "name": self.pattern.name,
            "pattern_type": self.pattern.pattern_type,
            **{"principal": self.acl.principal, "permission": self.acl.permission, "operation": self.acl.operation,
               "host": self.acl.host},
        }  # fmt: skip


# ---- validation (AclCommand, SecurityUtils) -----------------------------------------------------------
def parse_principal(text: str) -> str:
    """``text`` when it is a principal ``Type:name`` (``SecurityUtils.parseKafkaPrincipal``).

    Raises:
        UsageError: no ``:`` or an empty type or name, in Kafka's words.
    """
    kind, colon, name = text.partition(":")
    if not colon or not kind or not name:
        raise UsageError(f"expected a string in format principalType:principalName but got {text}")
    return text


def parse_operation(text: str) -> str:
    """The operation's canonical name (``describe_configs``, ``DescribeConfigs`` → ``DescribeConfigs``).

    Raises:
        UsageError: not an ACL operation.
    """
    wanted = text.replace("_", "").replace("-", "").lower()
    for operation in OPERATIONS:
        if operation.lower() == wanted:
            return operation
    raise UsageError(f"Unknown operation {text!r}: one of {', '.join(OPERATIONS)}")


def check_operation(resource_type: str, operation: str) -> None:
    """Refuse an operation the resource type does not support (``AclCommand.validateOperation``).

    Raises:
        UsageError: "ResourceType Group only supports operations Read,Describe,Delete,All".
    """
    supported = (*SUPPORTED_OPERATIONS[resource_type], ALL)
    if operation not in supported:
        raise UsageError(f"ResourceType {resource_type} only supports operations {','.join(supported)}")


def check_pattern(pattern: ResourcePattern, release: tuple[int, ...] | None) -> None:
    """Refuse a pattern the cluster's oldest broker release (None: unknown) cannot hold.

    Raises:
        UsageError: a prefixed pattern before 2.0, a resource type newer than the release, a prefixed
            wildcard, an empty name.
    """
    if not pattern.name:
        raise UsageError("a resource name cannot be empty")
    since = RESOURCE_TYPES[pattern.resource_type][1]
    if release is not None and release < since:
        raise UsageError(
            f"resource type {pattern.resource_type} needs Kafka {'.'.join(map(str, since))}+; the oldest broker "
            f"runs {'.'.join(map(str, release))}"
        )
    if pattern.pattern_type == PREFIXED:
        if release is not None and release < PREFIXED_SINCE:
            raise UsageError(
                f"prefixed ACLs need Kafka 2.0+ (KIP-290); the oldest broker runs {'.'.join(map(str, release))}"
            )
        if pattern.name == WILDCARD:
            raise UsageError("a prefixed pattern cannot be the wildcard '*': use a literal '*'")


# ---- ZooKeeper encodings (ZkAclStore, ZkAclChangeStore) ------------------------------------------------
def encode_acls(acls: Iterable[Acl]) -> bytes:
    """``AclEntry.toJsonCompatibleMap`` over a resource's ACLs: ``{"version":1,"acls":[...]}``."""
    return json.dumps({"version": 1, "acls": [a.to_json() for a in sorted(set(acls))]}, separators=(",", ":")).encode()


# Literal change events name the resource type as each release's LiteralAclChangeStore.encode does: the Scala
# ResourceType's name before 2.4 (``Topic``, ``TransactionalId``; read back case-insensitively by name), the Java
# enum's name from 2.4 (``TOPIC``, ``TRANSACTIONAL_ID``; read back as ``valueOf(upper case)``, so ``Topic`` still
# reads as TOPIC but ``TransactionalId`` as UNKNOWN). Only these types are spelled alike by both, up to case.
SAME_IN_EVERY_RELEASE = frozenset(("Topic", "Group", "Cluster", "User"))


def encode_change_event(pattern: ResourcePattern, enum_names: bool | None = None) -> bytes:
    """The change event brokers reload the pattern's ACLs on: ``Topic:foo`` for a literal pattern
    (``/kafka-acl-changes``; ``TOPIC:foo`` when ``enum_names``: 2.4+), JSON version 1 for a prefixed one
    (``/kafka-acl-extended-changes``, 2.0+). ``enum_names`` None (release unknown) writes the form every release
    reads, which only ``SAME_IN_EVERY_RELEASE`` have.

    Raises:
        UsageError: ``enum_names`` None for a type whose literal event differs between releases.
    """
    if pattern.pattern_type == LITERAL:
        if enum_names is None and pattern.resource_type not in SAME_IN_EVERY_RELEASE:
            raise UsageError(
                f"the change event of a {pattern.resource_type} ACL is spelled differently before and from Kafka 2.4 "
                "and nothing in ZooKeeper shows which release the brokers run: give --bootstrap-server so kzc can ask "
                "them (ApiVersions)"
            )
        kind = RESOURCE_TYPES[pattern.resource_type][0] if enum_names else pattern.resource_type
        return f"{kind}:{pattern.name}".encode()
    event = {"version": 1, "resourceType": RESOURCE_TYPES[pattern.resource_type][0], "name": pattern.name,
             "patternType": pattern.pattern_type}  # fmt: skip
    return json.dumps(event, separators=(",", ":")).encode()


# ---- the authorizer's matching (AclAuthorizer.matchingAcls / authorize) --------------------------------
def applies_to(pattern: ResourcePattern, resource_type: str, name: str) -> bool:
    """Whether ACLs on ``pattern`` apply to the resource ``resource_type`` ``name``: the literal name, the
    literal wildcard ``*``, or a prefix of the name (``AclAuthorizer.matchingAcls``)."""
    if pattern.resource_type != resource_type:
        return False
    if pattern.pattern_type == LITERAL:
        return pattern.name in (name, WILDCARD)
    return pattern.pattern_type == PREFIXED and name.startswith(pattern.name)


def matching(bindings: Iterable[AclBinding], resource_type: str, name: str) -> list[AclBinding]:
    """The ACLs the authorizer weighs for the resource ``resource_type`` ``name``."""
    return [b for b in bindings if applies_to(b.pattern, resource_type, name)]


@dataclass(frozen=True, slots=True)
class Decision:
    """The authorizer's answer for one principal, host and operation, and the ACL (or rule) that gave it."""

    allowed: bool
    reason: str
    deciding: AclBinding | None = None


def authorize(
    bindings: Sequence[AclBinding],
    principal: str,
    host: str,
    operation: str,
    resource_type: str,
    name: str,
    super_users: Iterable[str] = (),
    allow_if_no_acl: bool = False,
) -> Decision:
    """What ``AclAuthorizer.authorize`` answers: super users always; no matching ACL →
    ``allow.everyone.if.no.acl.found``; a matching Deny wins over any Allow; an Allow of the operation (or
    one implying it, or All)."""
    if principal in set(super_users):
        return Decision(True, f"{principal} is a super user")
    acls = matching(bindings, resource_type, name)
    if not acls:
        return Decision(allow_if_no_acl, "no ACL matches the resource: allow.everyone.if.no.acl.found="
                        + str(allow_if_no_acl).lower())  # fmt: skip

    def hits(binding: AclBinding, permission: str, operations: tuple[str, ...]) -> bool:
        acl = binding.acl
        return (
            acl.permission == permission
            and acl.principal in (principal, WILDCARD_PRINCIPAL)
            and acl.host in (host, WILDCARD)
            and acl.operation in (*operations, ALL)
        )

    for binding in acls:
        if hits(binding, DENY, (operation,)):
            return Decision(False, f"denied by {binding.pattern}: {binding.acl}", binding)
    allowing = (operation, *_IMPLIED_BY.get(operation, ()))
    for binding in acls:
        if hits(binding, ALLOW, allowing):
            return Decision(True, f"allowed by {binding.pattern}: {binding.acl}", binding)
    return Decision(False, "no ACL allows it (ACLs exist on the resource, so it is denied)")


def who_can(bindings: Sequence[AclBinding], resource_type: str, name: str) -> list[tuple[str, str, str, list[str]]]:
    """ "Who can do what" on a resource: per (principal, host) named by a matching ACL, each supported
    operation the authorizer would allow or deny, as ``(principal, host, "allowed"|"denied", operations)``.
    Wildcard principals and hosts are shown as they are (``User:*``, ``*``)."""
    acls = matching(bindings, resource_type, name)
    rows: list[tuple[str, str, str, list[str]]] = []
    for principal, host in sorted({(b.acl.principal, b.acl.host) for b in acls}):
        allowed: list[str] = []
        denied: list[str] = []
        for operation in SUPPORTED_OPERATIONS[resource_type]:
            decision = authorize(acls, principal, host, operation, resource_type, name)
            if decision.deciding is not None:
                (allowed if decision.allowed else denied).append(operation)
        if allowed:
            rows.append((principal, host, "allowed", allowed))
        if denied:
            rows.append((principal, host, "denied", denied))
    return rows
