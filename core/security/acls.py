"""ACLs in ZooKeeper, read and written as Kafka's ZooKeeper authorizer does (``AclAuthorizer`` 2.4+,
``SimpleAclAuthorizer`` 0.9 to 2.3: the same znodes and formats).

Reading: every ``/kafka-acl/<Type>/<name>`` (literal) and ``/kafka-acl-extended/prefixed/<Type>/<name>``
(2.0+); a znode Kafka could not read either is reported, never fatal. Writing (``AclAuthorizer.addAcls`` /
``removeAcls`` → ``updateResourceAcls``): the pattern's znode set at the version read (or created, or
deleted when no ACL is left), then the change event that makes every broker reload that pattern
(``/kafka-acl-changes/acl_changes_<seq>`` with ``Type:name`` for a literal pattern,
``/kafka-acl-extended-changes/acl_changes_<seq>`` with JSON for a prefixed one), in one multi-op.

The path of a change (``acl_route``): with a ``--bootstrap-server`` and brokers that serve CreateAcls/DeleteAcls
(0.11+; a prefixed pattern needs v1, 2.0+), the ACLs go through the brokers as ``kafka-acls --bootstrap-server``
sends them, and the brokers' authorizer decides whether the caller may; else through ZooKeeper, as
``kafka-acls --authorizer-properties zookeeper.connect=...`` writes. ``--via`` forces one. A refusal on the
brokers' path is final: kzc never writes ZooKeeper instead on its own (``around_the_brokers``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from core.brokers.acls import AclAdmin, unsendable
from core.brokers.apiversions import ALTER_PARTITION_REASSIGNMENTS, CREATE_ACLS, DELETE_ACLS
from core.brokers.capabilities import VIA_ADMIN, VIA_ZOOKEEPER, Capabilities, CapabilityCache, Route, write_route
from core.config import ConnectionSettings
from core.errors import KafkaRuleError, KzcError, UsageError
from core.kafka.acls import (
    ALLOW,
    CLUSTER_NAME,
    DENY,
    LITERAL,
    PREFIXED,
    RESOURCE_TYPES,
    SAME_IN_EVERY_RELEASE,
    Acl,
    AclBinding,
    ResourcePattern,
    check_operation,
    check_pattern,
    encode_acls,
    encode_change_event,
    matching,
    parse_operation,
    parse_principal,
)
from core.kafka.znodes import Unreadable
from core.kafka.znodes.paths import ACLS, EXTENDED_ACLS, acl_change_sequence, acl_path, acl_type_path
from core.kafka.znodes.security import AclResource, parse_acl_resource
from core.polling import DeadlineExceeded, wait_until
from core.security.authorizer import AuthorizerState, access_rows, read_authorizer
from core.security.common import around_the_brokers, mutation_guard, write_capabilities, write_checked, znode_state
from core.topics.facts import TopicStateReader, zk_create_format
from core.topics.write import PlannedWrite
from core.zookeeper.session import ZkSession

ZK_TOOL = "as kafka-acls --authorizer-properties zookeeper.connect=... writes"
OLD_ZK_TOOL = "as kafka-acls --authorizer-properties zookeeper.connect=... did before 0.11"
ACL_APIS = {"add": CREATE_ACLS, "remove": DELETE_ACLS}
ACL_PATH_NOTE = (
    "ZooKeeper, as kafka-acls --authorizer-properties zookeeper.connect=... writes (the ZooKeeper authorizer's "
    "store; DescribeAcls/CreateAcls reach the same znodes through a broker)"
)


@dataclass(frozen=True)
class AclListing:
    """Every ACL in ZooKeeper and the znodes Kafka could not read either (``path: reason``)."""

    bindings: tuple[AclBinding, ...]
    unreadable: tuple[str, ...] = ()
    extended_store: bool = False  # /kafka-acl-extended exists: a 2.0+ ZooKeeper authorizer has run
    path: str = "zookeeper"  # or "DescribeAcls"
    path_reason: str = ACL_PATH_NOTE
    authorizer: AuthorizerState | None = None  # the brokers' authorizer (None: not asked, e.g. recorded)

    def filtered(
        self, pattern: ResourcePattern | None = None, principal: str | None = None, resource_type: str | None = None
    ) -> list[AclBinding]:
        """The ACLs on exactly ``pattern`` (or of ``resource_type``), of ``principal``."""
        return [
            b
            for b in self.bindings
            if (pattern is None or (b.pattern.resource_type, b.pattern.name) == (pattern.resource_type, pattern.name))
            and (resource_type is None or b.pattern.resource_type == resource_type)
            and (principal is None or b.acl.principal == principal)
        ]


@dataclass(frozen=True)
class StoredAcls:
    """One pattern's znode as read: its ACLs and version (None: no znode)."""

    pattern: ResourcePattern
    acls: frozenset[Acl]
    zk_version: int | None


@dataclass(frozen=True)
class AclPlan:
    """Adding or removing ACLs on one pattern: before, after, and the writes that make the change."""

    action: str  # "add" or "remove"
    pattern: ResourcePattern
    requested: tuple[Acl, ...]
    before: StoredAcls
    after: frozenset[Acl]
    writes: tuple[PlannedWrite, ...] = field(default=())
    via: str = VIA_ZOOKEEPER
    via_reason: str | None = None

    @property
    def changes(self) -> bool:
        """Whether the plan changes anything."""
        return self.after != self.before.acls

    @property
    def sent(self) -> tuple[AclBinding, ...]:
        """On the brokers' path, the ACLs CreateAcls creates (or DeleteAcls deletes, one exact filter each):
        those the change adds (removes)."""
        if self.via != VIA_ADMIN:
            return ()
        changed = self.after - self.before.acls if self.action == "add" else self.before.acls - self.after
        return tuple(AclBinding(self.pattern, a) for a in sorted(changed))

    @property
    def api(self) -> str:
        """The request of the brokers' path (CreateAcls or DeleteAcls)."""
        return ACL_APIS[self.action].name

    def describe(self) -> list[str]:
        """The preview: what is added or removed, what stays, the path and what is sent on it."""
        if self.via == VIA_ADMIN:
            where = "as DescribeAcls reports them"
        else:
            where = znode_state(
                acl_path(self.pattern.resource_type, self.pattern.name, self.pattern.pattern_type),
                self.before.zk_version,
            )
        lines = [f"ACLs on {self.pattern} ({where}):"]
        for acl in sorted(self.before.acls | self.after):
            mark = "+" if acl not in self.before.acls else "-" if acl not in self.after else " "
            lines.append(f"  {mark} {acl.permission} {acl.principal} {acl.operation} from {acl.host}")
        if not self.changes:
            lines.append("  no change: " + ("every ACL is there already" if self.action == "add" else "no such ACL"))
        via = f"the brokers ({self.api})" if self.via == VIA_ADMIN else "ZooKeeper"
        lines.append(f"via {via}" + (f": {self.via_reason}" if self.via_reason else ""))
        for binding in self.sent:
            lines.append(f"  sends {self.api}: {_wire_text(binding)}")
        return lines

    def to_json(self) -> dict[str, Any]:
        """The plan as JSON."""
        return {
            "action": self.action,
            "resource": {"type": self.pattern.resource_type, "name": self.pattern.name,
                         "pattern_type": self.pattern.pattern_type},
            "before": [a.to_json() for a in sorted(self.before.acls)],
            "after": [a.to_json() for a in sorted(self.after)],
            "zk_version": self.before.zk_version,
            "writes": [w.to_json() for w in self.writes],
            "via": self.via,
            "path": self.via_reason,
            "requests": [{"api": self.api, **b.to_json()} for b in self.sent],
        }  # fmt: skip


def _wire_text(binding: AclBinding) -> str:
    """One ACL binding as sent (``kafka-acls`` prints them as ResourcePattern and AccessControlEntry)."""
    p, a = binding.pattern, binding.acl
    return (
        f"(resourceType={p.resource_type.upper()}, name={p.name}, patternType={p.pattern_type}), "
        f"(principal={a.principal}, host={a.host}, operation={a.operation}, permissionType={a.permission})"
    )


def read_acls(session: ZkSession) -> AclListing:
    """Every ACL ZooKeeper holds, literal and prefixed.

    Raises:
        ConnectError: ZooKeeper failed.
    """
    bindings: list[AclBinding] = []
    unreadable: list[str] = []
    stores = [(LITERAL, ACLS)]
    extended = session.read_children(EXTENDED_ACLS)
    for pattern_dir in extended or []:
        stores.append((pattern_dir.upper(), f"{EXTENDED_ACLS}/{pattern_dir}"))
    for pattern_type, _root in stores:
        for resource_type in sorted(RESOURCE_TYPES):
            type_path = acl_type_path(resource_type, pattern_type)
            for name in sorted(session.read_children(type_path) or []):
                stored = _read_pattern(session, ResourcePattern(resource_type, name, pattern_type), unreadable)
                bindings.extend(AclBinding(stored.pattern, a) for a in sorted(stored.acls))
    bindings.sort(key=lambda b: (b.pattern, b.acl))  # the order DescribeAcls' answer is given in too
    return AclListing(tuple(bindings), tuple(unreadable), extended is not None)


def list_acls(session: ZkSession, settings: ConnectionSettings, timeout: float = 15.0) -> AclListing:
    """Every ACL and the brokers' authorizer (``read_authorizer``): with bootstrap servers, the ACLs of kzc's
    own DescribeAcls when a broker answered it; where no broker has an authorizer, or none answered, or without
    bootstrap servers, the ACLs ZooKeeper holds (``read_acls``), as ``kafka-acls --authorizer-properties
    zookeeper.connect`` did; ``path`` and ``path_reason`` say which and why. A broker's SECURITY_DISABLED is
    never read as "no ACLs": ``authorizer.enforced`` is False and the reason says ACLs are not enforced.

    Raises:
        ConnectError: ZooKeeper failed.
        UsageError: bad authorizer properties.
    """
    state = read_authorizer(TopicStateReader(session).facts().brokers, settings, min(timeout, 10.0))
    if state.enforced is False:
        reason = f"{state.summary()}; the ACLs ZooKeeper holds are listed, none of them enforced"
        return replace(read_acls(session), path_reason=reason, authorizer=state)
    if not settings.bootstrap_servers:
        return replace(read_acls(session), path_reason=f"no --bootstrap-server: {ACL_PATH_NOTE}", authorizer=state)
    answered = next(
        (b for b in state.brokers if b.acls is not None and b.acls.security_disabled is None and not b.unknown), None
    )
    if answered is None or answered.acls is None:
        why = "; ".join(r for b in state.brokers for r in b.unknown) or "no broker answered"
        return replace(
            read_acls(session), path_reason=f"DescribeAcls failed ({why}): {ACL_PATH_NOTE}", authorizer=state
        )
    reason = f"DescribeAcls through broker {answered.broker} (kzc's own request)"
    unnamed = answered.acls.unnamed
    return AclListing(answered.acls.bindings, unnamed, False, "DescribeAcls", reason, state)


def _read_pattern(session: ZkSession, pattern: ResourcePattern, unreadable: list[str] | None = None) -> StoredAcls:
    path = acl_path(pattern.resource_type, pattern.name, pattern.pattern_type)
    found = session.read(path)
    if found is None:
        return StoredAcls(pattern, frozenset(), None)
    data, stat = found
    value = parse_acl_resource(path, data)
    if isinstance(value, Unreadable):
        if unreadable is None:
            raise KzcError(f"{path} is unreadable: {value.reason}; fix it before changing its ACLs")
        unreadable.append(f"{path}: {value.reason}")
        return StoredAcls(pattern, frozenset(), int(stat.version))
    assert isinstance(value, AclResource)
    acls = frozenset(Acl(a.principal, a.permission_type, a.operation, a.host) for a in value.acls)
    return StoredAcls(pattern, acls, int(stat.version))


def enum_event_names(
    session: ZkSession, settings: ConnectionSettings, timeout: float = 15.0
) -> tuple[bool | None, str]:
    """Whether the brokers run 2.4+, whose literal ACL change events name the type as ``TOPIC`` (True), or
    older releases (``Topic``: False), or None when it cannot be told; and what that rests on. ZooKeeper
    proves 2.7+ (``zk_create_format``); else every broker's ApiVersions: AlterPartitionReassignments came in 2.4.
    """
    facts = TopicStateReader(session).facts()
    proof = zk_create_format(facts)
    if proof.topic_version >= 2:
        return True, f"Kafka 2.7+ ({proof.reason})"
    if not settings.bootstrap_servers:
        return None, "no --bootstrap-server to ask the brokers their release"
    capabilities = CapabilityCache(timeout, security=settings.kafka_security).get(facts.brokers)
    if capabilities is None or capabilities.unknown() is not None or not capabilities.brokers:
        return None, (capabilities.unknown() if capabilities else None) or "no broker answered ApiVersions"
    served = [ALTER_PARTITION_REASSIGNMENTS.key in (b.ranges or {}) for b in capabilities.brokers]
    if all(served):
        return True, "every broker serves AlterPartitionReassignments (2.4+)"
    if not any(served):
        return False, "no broker serves AlterPartitionReassignments (before 2.4)"
    return None, "the brokers run releases before and from 2.4 (a rolling upgrade): they read different forms"


def acl_route(
    capabilities: Capabilities | None, action: str, pattern: ResourcePattern, acls: Iterable[Acl] = (),
    via: str | None = None,
) -> Route:  # fmt: skip
    """The path of adding or removing ``acls`` on ``pattern`` (``write_route``): the brokers (CreateAcls /
    DeleteAcls) when librdkafka can name the ACLs and every registered broker serves the request, or ZooKeeper.
    ``capabilities``: ``write_capabilities``.

    Raises:
        UsageError: ``--via admin`` where the brokers' path cannot be taken (the reason).
        KafkaRuleError: a prefixed pattern on brokers before 2.0 (CreateAcls/DeleteAcls v0), with Kafka's
            reason (``UnsupportedVersionException``).
    """
    api = ACL_APIS[action]
    path = write_route(capabilities, api, via, ZK_TOOL, OLD_ZK_TOOL, unsendable(pattern, tuple(acls)))
    if path.via == VIA_ADMIN and capabilities is not None and pattern.pattern_type != LITERAL:
        lacking = capabilities.lacking(api, (1, 32767), "the resource pattern type (v1, Kafka 2.0.0+)")
        if lacking is not None:
            raise KafkaRuleError(
                f"Version 0 only supports literal resource pattern types ({lacking}): brokers before Kafka 2.0 "
                "have no prefixed ACLs",
                "UnsupportedVersionException",
            )
    return path


def choose_acl_path(
    session: ZkSession, settings: ConnectionSettings, action: str, pattern: ResourcePattern, acls: Iterable[Acl],
    via: str | None = None, timeout: float = 15.0,
) -> Route:  # fmt: skip
    """``acl_route`` for this cluster (``write_capabilities``).

    Raises:
        UsageError, KafkaRuleError: see ``acl_route``.
    """
    return acl_route(write_capabilities(session, settings, via, timeout), action, pattern, acls, via)


def plan_acls(
    session: ZkSession, action: str, pattern: ResourcePattern, acls: Iterable[Acl], settings: ConnectionSettings,
    via: str | None = None, timeout: float = 15.0, path: Route | None = None,
) -> AclPlan:  # fmt: skip
    """Read the pattern's ACLs on ``path`` (else the one ``choose_acl_path`` chooses) and plan adding or
    removing ``acls``.

    Raises:
        UsageError: a prefixed pattern where no 2.0+ ZooKeeper authorizer has run (no ``/kafka-acl-extended``).
        KafkaRuleError: the brokers refused DescribeAcls (no authorizer, not authorized), or see ``acl_route``.
        KzcError: the pattern's znode is unreadable.
    """
    acls = tuple(acls)
    path = path or choose_acl_path(session, settings, action, pattern, acls, via, timeout)
    if path.via == VIA_ADMIN:
        assert settings.bootstrap_servers
        check_pattern(pattern, None)
        before = StoredAcls(pattern, _described(settings, pattern, timeout), None)
        requested = tuple(sorted(set(acls)))
        after = before.acls | set(requested) if action == "add" else before.acls - set(requested)
        return AclPlan(action, pattern, requested, before, frozenset(after), (), path.via, path.reason)
    plan = _plan_in_zookeeper(session, action, pattern, acls, settings)
    return replace(plan, via=path.via, via_reason=path.reason)


def _described(settings: ConnectionSettings, pattern: ResourcePattern, timeout: float) -> frozenset[Acl]:
    """The ACLs on exactly ``pattern`` as DescribeAcls reports them.

    Raises:
        KzcError: the brokers refused or did not answer (``around_the_brokers``).
    """
    assert settings.bootstrap_servers
    admin = AclAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=timeout)
    try:
        bindings, _ = admin.describe_acls(pattern)
    except KzcError as exc:
        raise around_the_brokers(exc, ZK_TOOL) from None
    finally:
        admin.close()
    return frozenset(b.acl for b in bindings if b.pattern == pattern)


def _plan_in_zookeeper(
    session: ZkSession, action: str, pattern: ResourcePattern, acls: Iterable[Acl], settings: ConnectionSettings
) -> AclPlan:
    if pattern.pattern_type == PREFIXED and session.read_children(EXTENDED_ACLS) is None:
        raise UsageError(
            f"prefixed ACLs need Kafka 2.0+ with the ZooKeeper authorizer, which creates {EXTENDED_ACLS} at start; "
            "this cluster has none"
        )
    check_pattern(pattern, None)
    requested = tuple(sorted(set(acls)))
    before = _read_pattern(session, pattern)
    after = before.acls | set(requested) if action == "add" else before.acls - set(requested)
    plan = AclPlan(action, pattern, requested, before, frozenset(after))
    if not plan.changes:
        return plan
    enum_names: bool | None = None
    if pattern.pattern_type == LITERAL and pattern.resource_type not in SAME_IN_EVERY_RELEASE:
        enum_names, reason = enum_event_names(session, settings)
        if enum_names is None:
            raise UsageError(
                f"the change event of a {pattern.resource_type} ACL is spelled differently before and from Kafka 2.4, "
                f"and kzc cannot tell which the brokers run: {reason}"
            )
    return AclPlan(action, pattern, requested, before, plan.after, acl_writes(plan, enum_names))


def acl_request(
    resource_type: str, name: str, pattern_type: str, principal: str, operations: Iterable[str], host: str,
    deny: bool,
) -> tuple[ResourcePattern, tuple[Acl, ...]]:  # fmt: skip
    """The pattern and ACLs of an ``add`` or ``remove`` as ``kzc acl`` and the console's form take them: the
    principal and operations checked as ``kafka-acls`` checks them, the Cluster resource under its one name.

    Raises:
        UsageError: a bad principal, operation, resource type, an operation the type does not support, no
            operation or an empty host, in Kafka's words where it has some.
    """
    if resource_type not in RESOURCE_TYPES:
        raise UsageError(f"Unknown resource type {resource_type!r}: one of {', '.join(sorted(RESOURCE_TYPES))}")
    name = CLUSTER_NAME if resource_type == "Cluster" else name.strip()
    if not name:
        raise UsageError(f"give the {resource_type} name the ACL is on")
    pattern = ResourcePattern(resource_type, name, pattern_type)
    checked = parse_principal(principal.strip())
    parsed = [parse_operation(op.strip()) for op in operations if op.strip()]
    if not parsed:
        raise UsageError("give at least one operation (Read, Write, Describe, ...)")
    for op in parsed:
        check_operation(resource_type, op)
    if not host:
        raise UsageError("--host cannot be empty (use '*' for any host)")
    return pattern, tuple(Acl(checked, DENY if deny else ALLOW, op, host) for op in parsed)


def acl_writes(plan: AclPlan, enum_names: bool | None = None) -> tuple[PlannedWrite, ...]:
    """``updateResourceAcls``' writes: the pattern's znode (create, set at the read version, or delete when
    empty), then the change event (``encode_change_event``)."""
    pattern = plan.pattern
    path = acl_path(pattern.resource_type, pattern.name, pattern.pattern_type)
    version = plan.before.zk_version
    if not plan.after:
        store = PlannedWrite("delete", path, b"", version)
    elif version is None:
        store = PlannedWrite("create", path, encode_acls(plan.after))
    else:
        store = PlannedWrite("set", path, encode_acls(plan.after), version)
    event = PlannedWrite(
        "sequential", acl_change_sequence(pattern.pattern_type), encode_change_event(pattern, enum_names)
    )
    return store, event


def apply_acls(session: ZkSession, settings: ConnectionSettings, plan: AclPlan) -> StoredAcls:
    """Write ``plan`` and return the pattern's ACLs as read back.

    Raises:
        ReadOnlyError: read-only mode or a migration.
        ConcurrentChangeError: the pattern's ACLs changed since the plan (nothing written; the message
            says what they are now).
        KzcError: the znode holds something else than the plan afterwards.
    """
    mutation_guard(session, settings)
    if plan.via == VIA_ADMIN:
        return _apply_through_brokers(settings, plan)

    def now() -> str:
        return "; ".join(str(a) for a in sorted(_read_pattern(session, plan.pattern).acls)) or "no ACL"

    write_checked(session, plan.writes, f"the ACLs on {plan.pattern}", now)
    stored = _read_pattern(session, plan.pattern)
    if stored.acls != plan.after:
        raise KzcError(f"the ACLs on {plan.pattern} are not the planned ones after the write: check the cluster")
    return stored


def _apply_through_brokers(settings: ConnectionSettings, plan: AclPlan, timeout: float = 15.0) -> StoredAcls:
    """CreateAcls or DeleteAcls for ``plan.sent`` (one request), then DescribeAcls until the brokers report the
    change: a broker other than the one that took the request applies it once its authorizer has read the
    change event.

    Raises:
        KzcError: the brokers refused or did not answer (``around_the_brokers``: nothing written through
            ZooKeeper), or they still report other ACLs after ``timeout``.
    """
    assert settings.bootstrap_servers
    admin = AclAdmin(settings.bootstrap_servers, security=settings.kafka_security, timeout=timeout)
    sent = list(plan.sent)
    try:
        if plan.action == "add":
            admin.create_acls(sent)
        else:
            admin.delete_acls(sent)
    except KzcError as exc:
        raise around_the_brokers(exc, ZK_TOOL) from None
    finally:
        admin.close()
    wanted = {b.acl for b in sent}

    def reported() -> list[frozenset[Acl]]:
        now = _described(settings, plan.pattern, timeout)
        done = wanted <= now if plan.action == "add" else not wanted & now
        return [now] if done else []

    try:
        (found,) = wait_until(reported, timeout, f"the brokers to report the ACLs on {plan.pattern}", interval=0.5)
    except DeadlineExceeded as exc:
        raise KzcError(
            f"the brokers accepted {plan.api} but DescribeAcls does not report the change on {plan.pattern} yet "
            f"({exc}): check with kzc acl list"
        ) from None
    return StoredAcls(plan.pattern, found, None)


@dataclass(frozen=True)
class ResourceAccess:
    """ "Who can do what" on one resource, as the brokers would decide: one row per principal, host and verdict
    (``core.security.authorizer.access_rows``), the patterns that apply, what the answer rests on, and the
    ACL znodes or entries that could not be read (not counted)."""

    resource_type: str
    name: str
    rows: tuple[tuple[str, str, str, tuple[str, ...]], ...]
    patterns: tuple[str, ...]
    unreadable: tuple[str, ...] = ()
    authorizer: str = ""  # the authorizer's summary line
    caveats: tuple[str, ...] = ()


def access_of(listing: AclListing, resource_type: str, name: str) -> ResourceAccess:
    """Who can do what on ``resource_type`` ``name`` by the ACLs and authorizer of ``listing`` (the console and
    ``kzc acl list`` both ask this; ``kzc acl check`` decides by the same ``decide``)."""
    state = listing.authorizer or AuthorizerState(not_asked="the brokers were not asked")
    found = matching(listing.bindings, resource_type, name)
    rows = tuple((p, h, verdict, tuple(ops)) for p, h, verdict, ops in access_rows(found, state, resource_type, name))
    if listing.authorizer is None and not found:
        rows = ()  # neither an ACL nor the brokers' authorizer known: nothing to say
    patterns = tuple(sorted({str(b.pattern) for b in found}))
    caveats = tuple(state.caveats()) if state.enforced is not False else ()
    return ResourceAccess(resource_type, name, rows, patterns, listing.unreadable, state.summary(), caveats)
