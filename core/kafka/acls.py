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

import ipaddress
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
        verdict = "Denied" if self.permission == DENY else "Allowed"
        return f"{self.principal} is {verdict} {self.operation} from host {self.host}"


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


# ---- the authorizer's decision, release by release -----------------------------------------------------
# Operations whose Allow also allows another (the reverse never holds for Deny). SimpleAclAuthorizer 0.10.x:
# "if principal is allowed to read, write or delete we allow describe" (Read, Write, Delete only). From 0.11
# (SimpleAclAuthorizer to 2.3, AclAuthorizer 2.4+: allowOps): Describe from Read, Write, Delete or Alter, and
# DescribeConfigs (new in 0.11, KIP-133) from AlterConfigs.
ALTER_IMPLIES_DESCRIBE_SINCE = (0, 11)
SUPER_USERS = "super.users"
ALLOW_IF_NO_ACL = "allow.everyone.if.no.acl.found"
AUTHORIZER_PROPERTIES = (SUPER_USERS, ALLOW_IF_NO_ACL)


def implying(operation: str, release: tuple[int, ...] | None) -> tuple[str, ...]:
    """The operations whose Allow allows ``operation`` on brokers of ``release`` (None: unknown, the 0.11+ rule),
    ``operation`` first."""
    if operation == "Describe":
        old = release is not None and release < ALTER_IMPLIES_DESCRIBE_SINCE
        return ("Describe", "Read", "Write", "Delete") if old else ("Describe", "Read", "Write", "Delete", "Alter")
    if operation == "DescribeConfigs":
        return ("DescribeConfigs", "AlterConfigs")
    return (operation,)


@dataclass(frozen=True, slots=True)
class AuthorizerProperties:
    """``super.users`` and ``allow.everyone.if.no.acl.found`` as the authorizer reads them, and which were given
    (brokers report both as sensitive with no value, so they come from the user, as ``kafka-acls
    --authorizer-properties`` takes them); the others are Kafka's defaults (no super user, false)."""

    super_users: tuple[str, ...] = ()
    allow_if_no_acl: bool = False
    given: frozenset[str] = frozenset()

    def assumed(self) -> list[str]:
        """The properties the answers take at Kafka's default, in words."""
        defaults = {
            SUPER_USERS: f"{SUPER_USERS} (Kafka's default: none)",
            ALLOW_IF_NO_ACL: f"{ALLOW_IF_NO_ACL} (Kafka's default: false)",
        }
        return [text for key, text in defaults.items() if key not in self.given]

    def to_json(self) -> dict[str, object]:
        """The properties and which rest on Kafka's defaults."""
        return {"super_users": list(self.super_users), "allow_everyone_if_no_acl_found": self.allow_if_no_acl,
                "defaults_assumed": [k for k in AUTHORIZER_PROPERTIES if k not in self.given]}  # fmt: skip


def parse_authorizer_properties(pairs: Iterable[tuple[str, str]]) -> AuthorizerProperties:
    """The authorizer's properties from ``KEY=VALUE`` pairs (later pairs win): ``super.users`` split on ``;``
    into principals (``AclAuthorizer.configure``), ``allow.everyone.if.no.acl.found`` as Scala's
    ``toBoolean`` reads it (``true``/``false``, any case).

    Raises:
        UsageError: another key, a principal that does not parse, a value that is not a boolean.
    """
    found = dict(pairs)
    unknown = sorted(set(found) - set(AUTHORIZER_PROPERTIES))
    if unknown:
        raise UsageError(
            f"unknown authorizer property {', '.join(unknown)}: kzc takes {' and '.join(AUTHORIZER_PROPERTIES)}"
        )
    supers: tuple[str, ...] = ()
    if found.get(SUPER_USERS, "").strip():
        supers = tuple(parse_principal(p.strip()) for p in found[SUPER_USERS].split(";") if p.strip())
    allow = False
    if ALLOW_IF_NO_ACL in found:
        value = found[ALLOW_IF_NO_ACL].strip().lower()
        if value not in ("true", "false"):
            raise UsageError(f"{ALLOW_IF_NO_ACL} must be true or false, not {found[ALLOW_IF_NO_ACL]!r}")
        allow = value == "true"
    return AuthorizerProperties(supers, allow, frozenset(found))


def acl_problem(acl: Acl) -> str | None:
    """Why an ACL can never match a client, or None: an operation this kzc does not know (a newer release's),
    a principal whose type is not ``User`` (Kafka's principal builders make User principals; only a custom one
    makes others), a host that is not an IP address or ``*`` (the authorizer compares the client's address,
    ``clientAddress.getHostAddress``). Such an ACL still counts as an ACL on its resource."""
    if acl.operation not in OPERATIONS:
        return f"operation {acl.operation!r} is unknown to kzc (a newer release's?): it is taken to match nothing"
    if acl.principal.partition(":")[0] != "User":
        return (
            f"principal {acl.principal} is not of type User: only a custom principal builder makes such "
            "principals, so kzc takes it to match no client"
        )
    if acl.host != WILDCARD:
        try:
            ipaddress.ip_address(acl.host)
        except ValueError:
            return (
                f"host {acl.host!r} is not an IP address: the authorizer compares client addresses, so it matches none"
            )
    return None


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
    release: tuple[int, ...] | None = None,
) -> Decision:
    """What the ZooKeeper authorizer answers (``SimpleAclAuthorizer.authorize`` 0.10-2.3, ``AclAuthorizer
    .authorizeAction`` 2.4+, the same order): a super user is allowed; no ACL on the resource (any principal)
    → ``allow.everyone.if.no.acl.found``; a matching Deny of the operation or All wins; then an Allow of the
    operation, of one implying it (``implying``) or of All. An ACL matches the principal or ``User:*`` and the
    client's IP or ``*``."""
    if principal in set(super_users):
        return Decision(True, f"{principal} is a super user ({SUPER_USERS})")
    acls = matching(bindings, resource_type, name)
    if not acls:
        return Decision(
            allow_if_no_acl,
            f"no ACL is on {resource_type}:{name}, so {ALLOW_IF_NO_ACL}=" + str(allow_if_no_acl).lower() + " decides",
        )

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
    allowing = implying(operation, release)
    for binding in acls:
        if hits(binding, ALLOW, allowing):
            return Decision(True, f"allowed by {binding.pattern}: {binding.acl}", binding)
    return Decision(False, f"no ACL allows it (ACLs are on {resource_type}:{name}, so the rest are denied)")
