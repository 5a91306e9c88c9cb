"""What the security screen's forms need from core to change ACLs, quotas and SCRAM credentials:
``SecurityActions``, and ``SecurityBackend``, which plans and writes through exactly the functions ``kzc acl
add|remove``, ``kzc quota set|delete`` and ``kzc user set-password|delete`` call (``core.security.acls``,
``quotas``, ``users``): the same path choice
(the brokers or ZooKeeper), the same preview, the same read-only refusal, and the same audit lines, marked
``"from": "console"``. No password, salt or key reaches a plan's description, an audit line or a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from core.audit import AuditLog
from core.config import ConnectionSettings
from core.kafka.acls import Acl, ResourcePattern
from core.kafka.quotas import QuotaEntity
from core.kafka.scram import ScramCredentialInfo
from core.security.acls import AclPlan, StoredAcls, apply_acls, choose_acl_path, plan_acls
from core.security.common import mutation_guard
from core.security.quotas import QuotaPlan, apply_quota, plan_quota, read_quota_path
from core.security.users import (
    CredentialPlan,
    apply_credentials,
    choose_user_path,
    plan_delete,
    plan_set_password,
)
from core.zookeeper.session import ZkSession


class SecurityActions(Protocol):
    """ACL and SCRAM credential changes (each blocks: call from a worker). Refusals raise ``KzcError`` with the
    CLI's message (``ReadOnlyError`` in read-only mode, when applying)."""

    def plan_acl(self, action: str, pattern: ResourcePattern, acls: Sequence[Acl]) -> AclPlan:
        """``add`` or ``remove`` ``acls`` on ``pattern``: the path and the preview, nothing written."""
        ...

    def apply_acl(self, plan: AclPlan) -> StoredAcls:
        """Apply exactly ``plan`` (audited); the pattern's ACLs afterwards."""
        ...

    def plan_password(self, user: str, mechanism: str, password: str, iterations: int) -> CredentialPlan:
        """Create or replace ``user``'s ``mechanism`` credential: the path and the preview, nothing written."""
        ...

    def plan_user_delete(self, user: str, mechanisms: Sequence[str]) -> CredentialPlan:
        """Delete ``user``'s credentials of ``mechanisms`` (all when empty): the preview, nothing written."""
        ...

    def apply_credentials(self, plan: CredentialPlan) -> list[ScramCredentialInfo]:
        """Apply exactly ``plan`` (audited, without secrets); the user's credentials afterwards."""
        ...

    def plan_quota(self, entity: QuotaEntity, updates: Mapping[str, str], deletes: Sequence[str]) -> QuotaPlan:
        """Set ``updates`` and delete ``deletes`` of ``entity``'s quotas: the path and the preview (on the brokers'
        path validated by them), nothing written."""
        ...

    def apply_quota(self, plan: QuotaPlan) -> dict[str, str]:
        """Apply exactly ``plan`` (audited); the entity's quotas afterwards."""
        ...


def acl_arguments(plan: AclPlan) -> dict[str, Any]:
    """The audit arguments of an ACL change from the console, as ``kzc acl add|remove`` records its own."""
    acls = sorted(plan.requested)
    return {
        "resource": {"type": plan.pattern.resource_type, "name": plan.pattern.name},
        "pattern": plan.pattern.pattern_type.lower(),
        "principal": sorted({a.principal for a in acls}),
        "operation": [a.operation for a in acls],
        "host": sorted({a.host for a in acls}),
        "deny": any(a.permission != "Allow" for a in acls),
        "from": "console",
    }


class SecurityBackend:
    """``SecurityActions`` on a live cluster, audited as the CLI's commands are."""

    def __init__(self, session: ZkSession, settings: ConnectionSettings, audit: AuditLog) -> None:
        self.session = session
        self.settings = settings
        self.audit = audit

    def plan_acl(self, action: str, pattern: ResourcePattern, acls: Sequence[Acl]) -> AclPlan:
        route = choose_acl_path(self.session, self.settings, action, pattern, acls)
        return plan_acls(self.session, action, pattern, acls, self.settings, path=route)

    def apply_acl(self, plan: AclPlan) -> StoredAcls:
        path = {"via": plan.via, "path": plan.via_reason}
        before = [a.to_json() for a in sorted(plan.before.acls)]
        with self.audit.attempt(f"acl {plan.action}", acl_arguments(plan)) as attempt:
            attempt.details.update(path)  # a refusal (read-only, the brokers) says which path too
            mutation_guard(self.session, self.settings)  # read-only refuses before any intent, as the CLI does
            requests = plan.to_json()["requests"]
            attempt.intent(f"{plan.action} ACLs on {plan.pattern}", before=before,
                           writes=[w.to_json() for w in plan.writes], requests=requests, **path)  # fmt: skip
            stored = apply_acls(self.session, self.settings, plan)
            after = [a.to_json() for a in sorted(stored.acls)]
            attempt.applied(
                f"{plan.action} ACLs on {plan.pattern}", before=before, after=after, requests=requests, **path
            )
        return stored

    def plan_password(self, user: str, mechanism: str, password: str, iterations: int) -> CredentialPlan:
        route = choose_user_path(self.session, self.settings)
        return plan_set_password(self.session, user, mechanism, password, iterations, self.settings, path=route)

    def plan_user_delete(self, user: str, mechanisms: Sequence[str]) -> CredentialPlan:
        route = choose_user_path(self.session, self.settings)
        return plan_delete(self.session, user, mechanisms, self.settings, path=route)

    def plan_quota(self, entity: QuotaEntity, updates: Mapping[str, str], deletes: Sequence[str]) -> QuotaPlan:
        _, path = read_quota_path(self.session, self.settings)
        return plan_quota(self.session, entity, updates, deletes, path)

    def apply_quota(self, plan: QuotaPlan) -> dict[str, str]:
        operation = "quota set" if plan.request()[0] else "quota delete"
        arguments: dict[str, Any] = {**plan.entity.to_json(), "from": "console"}
        before = plan.to_json()["before"]
        path = {"via": plan.via, "path": plan.via_reason}
        with self.audit.attempt(operation, arguments) as attempt:
            attempt.details.update(path)
            mutation_guard(self.session, self.settings)
            attempt.intent(
                f"{operation} for {plan.entity.describe()}", before=before, after=plan.to_json()["after"], **path
            )
            stored = apply_quota(self.session, self.settings, plan)
            attempt.applied(f"changed the quotas of {plan.entity.describe()}", before=before, after=stored, **path)
        return stored

    def apply_credentials(self, plan: CredentialPlan) -> list[ScramCredentialInfo]:
        operation = "user set-password" if plan.action == "set" else "user delete"
        arguments: dict[str, Any] = {"user": plan.user, "mechanism": list(plan.mechanisms), "from": "console"}
        if plan.action == "set":
            arguments |= {"iterations": plan.iterations, "password_from": "console form"}
        path = {"via": plan.via, "path": plan.via_reason}
        with self.audit.attempt(operation, arguments) as attempt:
            attempt.details.update(path)
            mutation_guard(self.session, self.settings)
            attempt.intent(f"user {plan.action} for {plan.user}", plan=plan.to_json(), **path)
            stored = apply_credentials(self.session, self.settings, plan)
            shown = [{"mechanism": c.mechanism, "iterations": c.iterations} for c in stored]
            attempt.applied(
                f"{plan.action} SCRAM credentials of user {plan.user}", plan=plan.to_json(), credentials=shown, **path
            )
        return stored
