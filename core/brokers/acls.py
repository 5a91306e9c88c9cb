"""ACLs through the brokers (0.11+): DescribeAcls, CreateAcls and DeleteAcls through the AdminClient, as kzc's
own ``AclBinding`` (``core.kafka.acls``), and the broker's refusals (no authorizer, not authorized) as Kafka
names them.

librdkafka names the resource types Topic, Group, Cluster (its BROKER) and TransactionalId, and the operations
up to IdempotentWrite: ``unsendable`` says why an ACL outside them cannot go through it. kzc's own DescribeAcls
(below) reads every type and sees a broker's SECURITY_DISABLED, which librdkafka answers as an empty list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from confluent_kafka import KafkaError
from confluent_kafka.admin._acl import AclBinding as WireBinding

# Re-exported by confluent_kafka.admin, untyped there (as core.brokers.admin imports ConfigResource).
from confluent_kafka.admin._acl import AclBindingFilter, AclOperation, AclPermissionType
from confluent_kafka.admin._resource import ResourcePatternType, ResourceType

from core.brokers.admin import KafkaAdmin
from core.brokers.apiversions import DESCRIBE_ACLS, BrokerConnection
from core.brokers.codec import Decoder, Encoder
from core.brokers.wire import frame
from core.errors import KafkaRuleError, KzcError
from core.kafka.acls import ALLOW, DENY, LITERAL, OPERATIONS, PREFIXED, Acl, AclBinding, ResourcePattern

# librdkafka's resource types as ZooKeeper spells them (BROKER is the Cluster resource); it knows no others.
_TYPES = {"TOPIC": "Topic", "GROUP": "Group", "BROKER": "Cluster", "TRANSACTIONAL_ID": "TransactionalId"}
_WIRE_TYPES = {v: ResourceType[k] for k, v in _TYPES.items()}
_OPERATIONS = {op.upper(): op for op in OPERATIONS}
_WIRE_OPERATIONS = {
    _OPERATIONS[o.name.replace("_", "")]: o for o in AclOperation if o.name.replace("_", "") in _OPERATIONS
}
# The broker's refusals of an ACL or SCRAM request, as Kafka's exceptions are named (Errors.java).
SECURITY_REFUSALS = {
    KafkaError.SECURITY_DISABLED: "SecurityDisabledException",
    KafkaError.CLUSTER_AUTHORIZATION_FAILED: "ClusterAuthorizationException",
    KafkaError.INVALID_REQUEST: "InvalidRequestException",
    KafkaError.UNSUPPORTED_VERSION: "UnsupportedVersionException",
    KafkaError.RESOURCE_NOT_FOUND: "ResourceNotFoundException",
    KafkaError.UNSUPPORTED_SASL_MECHANISM: "UnsupportedSaslMechanismException",
    KafkaError.UNACCEPTABLE_CREDENTIAL: "UnacceptableCredentialException",
    KafkaError.DUPLICATE_RESOURCE: "DuplicateResourceException",
}


def unsendable(pattern: ResourcePattern, acls: list[Acl] | tuple[Acl, ...] = ()) -> str | None:
    """Why librdkafka cannot send ACLs on ``pattern`` (None: it can)."""
    if pattern.resource_type not in _WIRE_TYPES:
        return f"librdkafka (kzc's Kafka client) cannot name the resource type {pattern.resource_type}"
    for acl in acls:
        if acl.operation not in _WIRE_OPERATIONS:
            return f"librdkafka (kzc's Kafka client) cannot name the operation {acl.operation}"
    return None


def _wire(binding: AclBinding) -> WireBinding:
    pattern, acl = binding.pattern, binding.acl
    return WireBinding(_WIRE_TYPES[pattern.resource_type], pattern.name, ResourcePatternType[pattern.pattern_type],
                       acl.principal, acl.host, _WIRE_OPERATIONS[acl.operation],
                       AclPermissionType[acl.permission.upper()])  # fmt: skip


def _exact_filter(binding: AclBinding) -> AclBindingFilter:
    """The filter that matches exactly ``binding`` (what ``kafka-acls --remove`` sends: ``acl.toFilter``)."""
    pattern, acl = binding.pattern, binding.acl
    return AclBindingFilter(_WIRE_TYPES[pattern.resource_type], pattern.name,
                            ResourcePatternType[pattern.pattern_type], acl.principal, acl.host,
                            _WIRE_OPERATIONS[acl.operation], AclPermissionType[acl.permission.upper()])  # fmt: skip


def _ours(binding: Any) -> AclBinding | None:
    resource_type = _TYPES.get(binding.restype.name)
    operation = _OPERATIONS.get(binding.operation.name.replace("_", ""))
    if resource_type is None or operation is None:
        return None
    pattern = ResourcePattern(resource_type, binding.name, binding.resource_pattern_type.name)
    permission = binding.permission_type.name.capitalize()
    return AclBinding(pattern, Acl(binding.principal, permission, operation, binding.host))


class AclAdmin(KafkaAdmin):
    """``KafkaAdmin`` plus DescribeAcls, CreateAcls and DeleteAcls."""

    def describe_acls(self, pattern: ResourcePattern | None = None) -> tuple[list[AclBinding], int]:
        """Every ACL the brokers report (only those on exactly ``pattern`` when given), and how many were of a
        kind librdkafka cannot name (left out).

        Raises:
            KafkaRuleError: the brokers refused (no authorizer configured: SecurityDisabledException; not
                authorized).
            KzcError: the brokers did not answer.
        """
        anything: Any = None  # the filter's "any name, principal, host"
        if pattern is None:
            every = AclBindingFilter(ResourceType.ANY, anything, ResourcePatternType.ANY, anything, anything,
                                     AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
        else:
            every = AclBindingFilter(_WIRE_TYPES[pattern.resource_type], pattern.name,
                                     ResourcePatternType[pattern.pattern_type], anything, anything,
                                     AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
        future = self._call("describe ACLs", lambda: self._client.describe_acls(every, request_timeout=self.timeout))
        found: list[AclBinding] = []
        skipped = 0
        for binding in self._result(future, "describe ACLs") or []:
            ours = _ours(binding)
            if ours is None:
                skipped += 1
            else:
                found.append(ours)
        return sorted(found, key=lambda b: (b.pattern, b.acl)), skipped

    def create_acls(self, bindings: list[AclBinding]) -> None:
        """CreateAcls for ``bindings`` (one request); each must be created.

        Raises:
            KafkaRuleError: the brokers refused one (the first refusal, with the ACL it was for).
            KzcError: the brokers did not answer.
        """
        wire = [_wire(b) for b in bindings]
        futures = self._call("create ACLs", lambda: self._client.create_acls(wire, request_timeout=self.timeout))
        for binding, sent in zip(bindings, wire, strict=True):
            self._result(futures[sent], f"create the ACL {binding.acl} on {binding.pattern}")

    def delete_acls(self, bindings: list[AclBinding]) -> list[AclBinding]:
        """DeleteAcls with one exact filter per binding (one request); the ACLs the brokers deleted.

        Raises:
            KafkaRuleError: the brokers refused a filter.
            KzcError: the brokers did not answer.
        """
        filters = [_exact_filter(b) for b in bindings]
        futures = self._call("delete ACLs", lambda: self._client.delete_acls(filters, request_timeout=self.timeout))
        deleted: list[AclBinding] = []
        for binding, sent in zip(bindings, filters, strict=True):
            for matched in self._result(futures[sent], f"delete the ACL {binding.acl} on {binding.pattern}") or []:
                ours = _ours(matched)
                if ours is not None:
                    deleted.append(ours)
        return deleted

    def _error(self, error: object, what: str) -> KzcError:
        if isinstance(error, KafkaError) and error.code() in SECURITY_REFUSALS:
            return KafkaRuleError(f"{error.str()} (the brokers refused to {what})", SECURITY_REFUSALS[error.code()])
        return super()._error(error, what)


# ---- kzc's own DescribeAcls (29) -----------------------------------------------------------------------
# librdkafka answers a broker's SECURITY_DISABLED (no authorizer) with an empty list, which reads as "no ACLs";
# kzc asks each broker itself. Schema (DescribeAclsRequest/Response.json): v0 (0.11) the filter ResourceType
# INT8, ResourceName, Principal, Host (NULLABLE_STRING), Operation, PermissionType INT8; v1 (2.0) adds
# PatternType INT8 after the name; v2 (2.5) flexible; v3 (2.8) the same fields (the User resource type). The
# answer: throttle, ErrorCode, ErrorMessage, Resources [ResourceType, ResourceName, PatternType (v1+), Acls
# [Principal, Host, Operation, PermissionType]]. Codes as ResourceType/PatternType/AclOperation/AclPermissionType.
DESCRIBE_VERSIONS = (0, 3)
_DESCRIBE_FLEXIBLE_FROM = 2
_ANY = 1
SECURITY_DISABLED_CODE = 54  # Errors.SECURITY_DISABLED
_ACL_ERRORS = {31: "ClusterAuthorizationException", 35: "UnsupportedVersionException", 42: "InvalidRequestException"}
_CODE_TYPES = {2: "Topic", 3: "Group", 4: "Cluster", 5: "TransactionalId", 6: "DelegationToken", 7: "User"}
_CODE_PATTERNS = {3: LITERAL, 4: PREFIXED}
_CODE_OPERATIONS = dict(enumerate(OPERATIONS, start=2))  # ALL is 2, READ 3, ... DESCRIBE_TOKENS 14
_CODE_PERMISSIONS = {2: DENY, 3: ALLOW}


@dataclass(frozen=True)
class DescribedAcls:
    """One broker's DescribeAcls answer: its ACLs, or that it has no authorizer (``security_disabled``: the
    broker's message), and the entries of a kind this kzc cannot name (a newer release's), in words."""

    bindings: tuple[AclBinding, ...] = ()
    security_disabled: str | None = None
    unnamed: tuple[str, ...] = ()


def encode_describe_acls(version: int) -> bytes:
    """The framed DescribeAcls request for every ACL (every filter field ANY or null)."""
    if not DESCRIBE_VERSIONS[0] <= version <= DESCRIBE_VERSIONS[1]:
        raise ValueError(f"kzc encodes DescribeAcls v0-v3, not v{version}")
    flexible = version >= _DESCRIBE_FLEXIBLE_FROM
    body = Encoder(flexible).int8(_ANY).string(None)
    if version >= 1:
        body.int8(_ANY)
    body.string(None).string(None).int8(_ANY).int8(_ANY)
    return frame(DESCRIBE_ACLS.key, version, body.body(), flexible)


def decode_describe_acls(body: bytes, version: int) -> DescribedAcls:
    """A DescribeAcls answer. An operation, permission or pattern type whose code kzc does not know is kept as
    ``unknown code N`` (the ACL still counts as one on its resource) and said in ``unnamed``; a resource
    type kzc does not know is left out and said.

    Raises:
        KafkaRuleError: the broker refused (not authorized...), in Kafka's name. ValueError: not such an answer.
    """
    d = Decoder(body, version >= _DESCRIBE_FLEXIBLE_FROM)
    d.header()
    d.int32()  # throttle
    code, message = d.int16(), d.string()

    def acl(r: Decoder) -> tuple[str, str, int, int]:
        return r.string() or "", r.string() or "", r.int8(), r.int8()

    def resource(r: Decoder) -> tuple[int, str, int, list[tuple[str, str, int, int]]]:
        kind, name = r.int8(), r.string() or ""
        pattern = r.int8() if version >= 1 else 3
        return kind, name, pattern, r.array(acl) or []

    resources = d.array(resource) or []
    d.tags()
    if code == SECURITY_DISABLED_CODE:
        return DescribedAcls(security_disabled=message or "No Authorizer is configured on the broker")
    if code:
        name = _ACL_ERRORS.get(code, f"error code {code}")
        raise KafkaRuleError(f"the broker refused DescribeAcls: {name}" + (f": {message}" if message else ""), name)
    found: list[AclBinding] = []
    unnamed: list[str] = []
    for kind, name, pattern_code, acls in resources:
        if kind not in _CODE_TYPES:
            unnamed.append(f"{len(acls)} ACLs on a resource of type code {kind} ({name}), unknown to kzc: left out")
            continue
        pattern = ResourcePattern(
            _CODE_TYPES[kind], name, _CODE_PATTERNS.get(pattern_code, f"unknown code {pattern_code}")
        )
        for principal, host, op, permission in acls:
            operation = _CODE_OPERATIONS.get(op, f"unknown code {op}")
            allowance = _CODE_PERMISSIONS.get(permission, f"unknown code {permission}")
            if op not in _CODE_OPERATIONS or permission not in _CODE_PERMISSIONS or pattern_code not in _CODE_PATTERNS:
                unnamed.append(f"{pattern}: {principal} {allowance} {operation} from {host}: a code unknown to kzc")
            found.append(AclBinding(pattern, Acl(principal, allowance, operation, host)))
    return DescribedAcls(tuple(sorted(found, key=lambda b: (b.pattern, b.acl))), None, tuple(unnamed))


def describe_acls_of(connection: BrokerConnection) -> DescribedAcls:
    """Every ACL the broker of ``connection`` reports (or that it has no authorizer).

    Raises:
        NoVersion: the broker has no DescribeAcls (before 0.11): nothing was sent.
        KafkaRuleError, ValueError, OSError: see ``decode_describe_acls`` and ``open_broker``.
    """
    version = connection.negotiate(DESCRIBE_ACLS, DESCRIBE_VERSIONS)
    return decode_describe_acls(connection.send(encode_describe_acls(version)), version)
