"""DescribeAcls (0.11+) through the AdminClient: the ACLs the brokers' authorizer holds, as kzc's own
``AclBinding`` (``core.kafka.acls``)."""

from __future__ import annotations

from typing import Any

# Re-exported by confluent_kafka.admin, untyped there (as core.brokers.admin imports ConfigResource).
from confluent_kafka.admin._acl import AclBindingFilter, AclOperation, AclPermissionType
from confluent_kafka.admin._resource import ResourcePatternType, ResourceType

from core.brokers.admin import KafkaAdmin
from core.kafka.acls import OPERATIONS, Acl, AclBinding, ResourcePattern

# librdkafka's resource types as ZooKeeper spells them (BROKER is the Cluster resource); it knows no others.
_TYPES = {"TOPIC": "Topic", "GROUP": "Group", "BROKER": "Cluster", "TRANSACTIONAL_ID": "TransactionalId"}
_OPERATIONS = {op.upper(): op for op in OPERATIONS}


class AclAdmin(KafkaAdmin):
    """``KafkaAdmin`` plus DescribeAcls."""

    def describe_acls(self) -> tuple[list[AclBinding], int]:
        """Every ACL the brokers report, and how many were of a kind librdkafka cannot name (left out).

        Raises:
            KzcError: the brokers refused (no authorizer configured: SECURITY_DISABLED; not authorised) or did
                not answer.
        """
        anything: Any = None  # the filter's "any name, principal, host"
        every = AclBindingFilter(ResourceType.ANY, anything, ResourcePatternType.ANY, anything, anything,
                                 AclOperation.ANY, AclPermissionType.ANY)  # fmt: skip
        future = self._call("describe ACLs", lambda: self._client.describe_acls(every, request_timeout=self.timeout))
        found: list[AclBinding] = []
        skipped = 0
        for binding in self._result(future, "describe ACLs") or []:
            resource_type = _TYPES.get(binding.restype.name)
            operation = _OPERATIONS.get(binding.operation.name.replace("_", ""))
            if resource_type is None or operation is None:
                skipped += 1
                continue
            pattern = ResourcePattern(resource_type, binding.name, binding.resource_pattern_type.name)
            permission = binding.permission_type.name.capitalize()
            found.append(AclBinding(pattern, Acl(binding.principal, permission, operation, binding.host)))
        return sorted(found, key=lambda b: (b.pattern, b.acl)), skipped
