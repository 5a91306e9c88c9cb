"""ACLs through the brokers (0.11+): DescribeAcls, CreateAcls and DeleteAcls through the AdminClient, as kzc's
own ``AclBinding`` (``core.kafka.acls``), and the broker's refusals (no authorizer, not authorized) as Kafka
names them.

librdkafka names the resource types Topic, Group, Cluster (its BROKER) and TransactionalId, and the operations
up to IdempotentWrite: ``unsendable`` says why an ACL outside them cannot go through it.
"""

from __future__ import annotations

from typing import Any

from confluent_kafka import KafkaError
from confluent_kafka.admin._acl import AclBinding as WireBinding

# Re-exported by confluent_kafka.admin, untyped there (as core.brokers.admin imports ConfigResource).
from confluent_kafka.admin._acl import AclBindingFilter, AclOperation, AclPermissionType
from confluent_kafka.admin._resource import ResourcePatternType, ResourceType

from core.brokers.admin import KafkaAdmin
from core.errors import KafkaRuleError, KzcError
from core.kafka.acls import OPERATIONS, Acl, AclBinding, ResourcePattern

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
