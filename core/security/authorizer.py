"""Whether and how the brokers authorize, and access answered as their authorizer decides it.

What kzc knows, and from where:

- **Whether an authorizer runs**, per broker: its ``authorizer.class.name`` (DescribeConfigs; empty: none) and
  kzc's own DescribeAcls (``core.brokers.acls``): a broker without an authorizer answers SECURITY_DISABLED,
  which librdkafka turns into an empty list, so kzc never reads that as "no ACLs". Brokers that disagree (a
  rolling change) are named; a broker that answers neither is unknown, with the reason.
- **Its properties**: ``super.users`` and ``allow.everyone.if.no.acl.found`` are reported by the brokers as
  sensitive with no value, so they are taken as ``kafka-acls --authorizer-properties`` takes them
  (``--authorizer-property``, the context's ``authorizer_properties``); else Kafka's defaults, and every
  answer says it rests on them.
- **The rules**: ``core.kafka.acls.authorize`` at the oldest broker's release (ApiVersions).

``answer`` is the one function behind ``kzc acl check`` and ``access_rows`` behind the console's "who can do
what" pane and ``kzc acl list --topic``: both decide through ``decide``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from core.brokers.acls import DescribedAcls, describe_acls_of
from core.brokers.admin import KafkaAdmin
from core.brokers.apiversions import NoVersion, open_broker
from core.brokers.capabilities import registered_bootstrap, release_floor, wire_endpoint
from core.config import ConnectionSettings
from core.errors import KafkaRuleError, KzcError, UsageError
from core.kafka.acls import (
    ALLOW,
    CLUSTER_NAME,
    SUPPORTED_OPERATIONS,
    WILDCARD,
    WILDCARD_PRINCIPAL,
    Acl,
    AclBinding,
    AuthorizerProperties,
    acl_problem,
    authorize,
    check_operation,
    matching,
    parse_authorizer_properties,
    parse_principal,
)
from core.kafka.znodes import BrokerRegistration, Unreadable

AUTHORIZER_CLASS = "authorizer.class.name"
NOT_ENFORCED = "no authorizer: ACLs are not enforced"
# KIP-679 (2.8): InitProducerId of an idempotent producer is allowed by IdempotentWrite on the cluster or by
# Write on any topic (KafkaApis.handleInitProducerIdRequest: authorizeByResourceType).
IDEMPOTENT_BY_WRITE_SINCE = (2, 8)
ACTIONS = ("produce", "consume")


@dataclass(frozen=True)
class BrokerAuthorizer:
    """One broker's authorizer as kzc read it."""

    broker: int
    class_name: str | None = None  # authorizer.class.name ("": none); None: not answered
    acls: DescribedAcls | None = None  # kzc's own DescribeAcls; None: not answered
    release: tuple[int, ...] | None = None
    unknown: tuple[str, ...] = ()  # why a read failed

    @property
    def enforces(self) -> bool | None:
        """Whether the broker authorizes requests (None: it answered neither read). DescribeAcls is its own
        word; the config is the fallback (a refusal such as ClusterAuthorization already proves an authorizer)."""
        if self.acls is not None:
            return self.acls.security_disabled is None
        if self.class_name is not None:
            return bool(self.class_name)
        return None

    def to_json(self) -> dict[str, Any]:
        disabled = self.acls.security_disabled if self.acls else None
        return {"broker": self.broker, "authorizer_class_name": self.class_name, "enforces": self.enforces,
                "security_disabled": disabled, "unknown": list(self.unknown)}  # fmt: skip


@dataclass(frozen=True)
class AuthorizerState:
    """The brokers' authorizers, the properties the answers take, the release whose rules apply."""

    brokers: tuple[BrokerAuthorizer, ...] = ()
    properties: AuthorizerProperties = field(default_factory=AuthorizerProperties)
    release: tuple[int, ...] | None = None  # the oldest broker's, at least (``release_floor``)
    not_asked: str | None = None  # why the brokers were not asked at all

    @property
    def enforced(self) -> bool | None:
        """True: every broker authorizes; False: none does; None: unknown or they disagree."""
        known = {b.enforces for b in self.brokers}
        if not self.brokers or None in known or len(known) != 1:
            return None
        return known.pop()

    def summary(self) -> str:
        """One line: whether ACLs are enforced, by which class, and which brokers disagree or are unknown."""
        if self.not_asked:
            return f"authorizer unknown: {self.not_asked}"
        with_one = [b for b in self.brokers if b.enforces]
        without = [b for b in self.brokers if b.enforces is False]
        unknown = [b for b in self.brokers if b.enforces is None]
        classes = sorted({b.class_name for b in with_one if b.class_name})
        parts = []
        if with_one:
            parts.append(f"authorizer {', '.join(classes) or '(class not read)'} on {_ids(with_one)}")
        if without:
            cause = next((b.acls.security_disabled for b in without if b.acls and b.acls.security_disabled), None)
            parts.append(
                f"{NOT_ENFORCED} on {_ids(without)}" + (f" (SecurityDisabledException: {cause})" if cause else "")
            )
        if unknown:
            reasons = "; ".join(r for b in unknown for r in b.unknown[:1])
            parts.append(f"unknown on {_ids(unknown)}" + (f" ({reasons})" if reasons else ""))
        if with_one and without:
            parts.insert(0, "the brokers disagree (a rolling change?)")
        return "; ".join(parts) or "no broker is registered"

    def caveats(self) -> list[str]:
        """What the answers rest on beyond the ACLs: defaults assumed, brokers unknown or disagreeing."""
        found = []
        if self.enforced is None:
            found.append(self.summary())
        if self.enforced is not False:
            assumed = self.properties.assumed()
            if assumed:
                found.append("rests on " + " and ".join(assumed) + ": give --authorizer-property KEY=VALUE")
        if self.release is None:
            found.append("the brokers' release is unknown: the rules of 0.11+ are applied")
        return found

    def to_json(self) -> dict[str, Any]:
        return {"enforced": self.enforced, "summary": self.summary(), "brokers": [b.to_json() for b in self.brokers],
                "properties": self.properties.to_json(),
                "release_at_least": ".".join(map(str, self.release)) if self.release else None}  # fmt: skip


def _ids(brokers: Sequence[BrokerAuthorizer]) -> str:
    return ("broker " if len(brokers) == 1 else "brokers ") + ", ".join(str(b.broker) for b in brokers)


def authorizer_properties(settings: ConnectionSettings) -> AuthorizerProperties:
    """The settings' authorizer properties, parsed.

    Raises:
        UsageError: see ``parse_authorizer_properties``.
    """
    return parse_authorizer_properties(settings.authorizer_properties)


def read_authorizer(
    brokers: Mapping[int, BrokerRegistration | Unreadable], settings: ConnectionSettings, timeout: float = 10.0
) -> AuthorizerState:
    """Ask every registered broker for its authorizer (DescribeAcls, ``authorizer.class.name``), at once.

    Raises:
        UsageError: bad authorizer properties.
    """
    properties = authorizer_properties(settings)
    if not brokers:
        return AuthorizerState((), properties, None, "no broker is registered")
    security = settings.kafka_security
    bootstrap = settings.bootstrap_servers or registered_bootstrap(brokers, security.protocol)
    admin = KafkaAdmin(bootstrap, security=security, timeout=timeout) if bootstrap else None

    def one(broker: int) -> BrokerAuthorizer:
        unknown: list[str] = []
        class_name: str | None = None
        if admin is None:
            unknown.append(f"no {security.protocol} listener to ask DescribeConfigs")
        else:
            try:
                class_name = admin.broker_configs(broker, [AUTHORIZER_CLASS]).get(AUTHORIZER_CLASS, "")
            except KzcError as exc:
                unknown.append(f"DescribeConfigs: {exc}")
        described, release = _described(broker, brokers[broker], settings, timeout, unknown)
        return BrokerAuthorizer(broker, class_name, described, release, tuple(unknown))

    try:
        with ThreadPoolExecutor(max_workers=min(8, len(brokers)), thread_name_prefix="kzc-authorizer") as pool:
            found = tuple(pool.map(one, sorted(brokers)))
    finally:
        if admin is not None:
            admin.close()
    releases = [b.release for b in found if b.release is not None]
    return AuthorizerState(found, properties, min(releases) if releases else None)


def _described(
    broker: int, registration: BrokerRegistration | Unreadable, settings: ConnectionSettings, timeout: float,
    unknown: list[str],
) -> tuple[DescribedAcls | None, tuple[int, ...] | None]:  # fmt: skip
    """The broker's own DescribeAcls answer and release floor; a failure is added to ``unknown``. A refusal
    (not authorized) proves an authorizer: it is kept as an answer without ACLs."""
    who = f"broker {broker}"
    endpoint = wire_endpoint(registration, settings.kafka_security)
    if endpoint is None:
        unknown.append(f"DescribeAcls: {who} has no {settings.kafka_security.protocol} listener")
        return None, None
    release = None
    try:
        with open_broker(endpoint.host or "127.0.0.1", endpoint.port, timeout, who, settings.kafka_security) as conn:
            release = release_floor(conn.ranges)
            return describe_acls_of(conn), release
    except KafkaRuleError as exc:
        unknown.append(f"DescribeAcls: {exc}")
        return DescribedAcls(), release
    except (NoVersion, OSError, ValueError) as exc:
        unknown.append(f"DescribeAcls: {exc}")
        return None, release


# ---- the decision -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One operation on one resource, and what decided it."""

    operation: str
    resource_type: str
    name: str
    why: str  # what needs it ("Metadata", "Produce"...); empty for a lone --operation
    allowed: bool
    decided_by: str

    def to_json(self) -> dict[str, Any]:
        return {"operation": self.operation, "resource": f"{self.resource_type}:{self.name}", "needed_for": self.why,
                "allowed": self.allowed, "decided_by": self.decided_by}  # fmt: skip


@dataclass(frozen=True)
class AccessAnswer:
    """``kzc acl check``'s answer: allowed or not, what decided it, each operation it needed, the caveats."""

    principal: str
    host: str
    asked: str
    allowed: bool
    decided_by: str
    steps: tuple[Step, ...]
    caveats: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"allowed": self.allowed, "decided_by": self.decided_by, "principal": self.principal,
                "host": self.host, "asked": self.asked, "operations": [s.to_json() for s in self.steps],
                "caveats": list(self.caveats)}  # fmt: skip

    def lines(self) -> list[str]:
        """The answer as ``kzc acl check`` prints it."""
        verdict = "ALLOWED" if self.allowed else "DENIED"
        out = [f"{verdict}: {self.principal} from {self.host}: {self.asked}"]
        if len(self.steps) == 1:
            out.append(f"  decided by {self.decided_by}")
        else:
            out += [f"  {'allowed' if s.allowed else 'denied '} {s.operation} on {s.resource_type}:{s.name} "
                    f"({s.why}): {s.decided_by}" for s in self.steps]  # fmt: skip
        out += [f"  note: {c}" for c in self.caveats]
        return out


def decide(
    bindings: Sequence[AclBinding], state: AuthorizerState, principal: str, host: str, operation: str,
    resource_type: str, name: str,
) -> tuple[bool, str]:  # fmt: skip
    """Whether the brokers allow ``principal`` from ``host`` the ``operation`` on the resource, and what decides
    it: no authorizer allows everything; else the authorizer's rule (``authorize``) with the state's
    properties and release (the ACLs of ``bindings``)."""
    if state.enforced is False:
        return True, NOT_ENFORCED
    props = state.properties
    found = authorize(bindings, principal, host, operation, resource_type, name, props.super_users,
                      props.allow_if_no_acl, state.release)  # fmt: skip
    return found.allowed, found.reason


def action_needs(action: str, topic: str, group: str | None, idempotent: bool) -> list[tuple[str, str, str, str]]:
    """The (operation, resource type, name, request) a client needs for ``action`` (KafkaApis' checks): a producer
    Describe on the topic (Metadata) and Write (Produce), and when idempotent IdempotentWrite on the cluster
    (InitProducerId; from 2.8 Write on a topic does too, see ``answer``); a consumer Describe and Read on the
    topic (Metadata, ListOffsets; Fetch) and, with a group, Describe (FindCoordinator, OffsetFetch) and Read
    (JoinGroup, OffsetCommit) on it."""
    if action == "produce":
        needs = [("Describe", "Topic", topic, "Metadata"), ("Write", "Topic", topic, "Produce")]
        if idempotent:
            needs.append(("IdempotentWrite", "Cluster", CLUSTER_NAME, "InitProducerId"))
        return needs
    needs = [("Describe", "Topic", topic, "Metadata, ListOffsets"), ("Read", "Topic", topic, "Fetch")]
    if group is not None:
        needs += [
            ("Describe", "Group", group, "FindCoordinator, OffsetFetch"),
            ("Read", "Group", group, "JoinGroup, OffsetCommit"),
        ]
    return needs


def check_question(principal: str, resource_type: str, operation: str | None, host: str) -> None:
    """Refuse a question the brokers could never be asked: a principal that does not parse, an operation the
    resource type does not support, a host that is not an IP address (or ``*``).

    Raises:
        UsageError: in Kafka's words where it has some.
    """
    parse_principal(principal)
    if operation is not None:
        check_operation(resource_type, operation)
    if host != WILDCARD:
        bad = acl_problem(Acl(principal, ALLOW, "Read", host))  # the host rule of a stored ACL
        if bad:
            raise UsageError(f"--host must be the client's IP address: {bad}")


def answer(
    bindings: Sequence[AclBinding],
    state: AuthorizerState,
    principal: str,
    resource_type: str,
    name: str,
    operation: str | None = None,
    action: str | None = None,
    group: str | None = None,
    host: str = WILDCARD,
    idempotent: bool = False,
    unreadable: Sequence[str] = (),
) -> AccessAnswer:
    """``kzc acl check``: the brokers' decision for one ``operation`` on the resource, or whether a client can
    ``action`` (produce to / consume from the topic ``name``, with ``group``), each operation it needs decided
    by ``decide``. ``host`` is the client's IP (``*``: an ACL bound to a host matches none).

    Raises:
        UsageError: a bad principal or host, an operation the resource type does not support, an action
            without a topic.
    """
    check_question(principal, resource_type, operation, host)
    if action is not None:
        if resource_type != "Topic":
            raise UsageError(f"--action {action} needs --topic (and --group for a consumer's group)")
        needs = action_needs(action, name, group, idempotent)
        asked = f"{action} {'to' if action == 'produce' else 'from'} Topic:{name}" + (
            f" in Group:{group}" if group else ""
        )
    else:
        assert operation is not None
        needs = [(operation, resource_type, name, "")]
        asked = f"{operation} on {resource_type}:{name}"
    steps = []
    for op, kind, target, why in needs:
        allowed, reason = decide(bindings, state, principal, host, op, kind, target)
        if op == "IdempotentWrite" and not allowed and state.release and state.release >= IDEMPOTENT_BY_WRITE_SINCE:
            by_write, write_reason = decide(bindings, state, principal, host, "Write", "Topic", name)
            if by_write:
                allowed, reason = True, f"Write on Topic:{name} (KIP-679, 2.8+: {write_reason})"
        steps.append(Step(op, kind, target, why, allowed, reason))
    refused = [s for s in steps if not s.allowed]
    if not refused:
        decided = steps[0].decided_by if len(steps) == 1 else "; ".join(f"{s.operation}: {s.decided_by}" for s in steps)
    else:
        decided = "; ".join(f"{s.operation} on {s.resource_type}:{s.name}: {s.decided_by}" for s in refused)
        decided = refused[0].decided_by if len(steps) == 1 else decided
    caveats = list(state.caveats()) if state.enforced is not False else [state.summary()]
    touched = {(k, t) for _, k, t, _ in needs}
    caveats += _bad_acls(bindings, touched) + [f"unreadable, not counted: {u}" for u in unreadable]
    return AccessAnswer(principal, host, asked, not refused, decided, tuple(steps), tuple(caveats))


def _bad_acls(bindings: Sequence[AclBinding], resources: set[tuple[str, str]]) -> list[str]:
    """The ACLs on ``resources`` that match no client (``acl_problem``), said with why."""
    found = []
    for kind, name in sorted(resources):
        for binding in matching(bindings, kind, name):
            problem = acl_problem(binding.acl)
            if problem:
                found.append(f"{binding.pattern}: {binding.acl}: {problem}")
    return found


def access_rows(
    bindings: Sequence[AclBinding], state: AuthorizerState, resource_type: str, name: str
) -> list[tuple[str, str, str, list[str]]]:
    """ "Who can do what" on a resource: every principal (and host) named by a matching ACL, plus ``User:*`` and
    the super users, each with the supported operations ``decide`` allows and denies, as ``(principal, host,
    "allowed"|"denied", operations)``."""
    found = matching(bindings, resource_type, name)
    who = {(b.acl.principal, b.acl.host) for b in found} | {(WILDCARD_PRINCIPAL, WILDCARD)}
    who |= {(p, WILDCARD) for p in state.properties.super_users}
    rows: list[tuple[str, str, str, list[str]]] = []
    for principal, host in sorted(who):
        verdicts: dict[bool, list[str]] = {True: [], False: []}
        for operation in SUPPORTED_OPERATIONS[resource_type]:
            verdicts[decide(found, state, principal, host, operation, resource_type, name)[0]].append(operation)
        rows += [
            (principal, host, word, verdicts[ok]) for ok, word in ((True, "allowed"), (False, "denied")) if verdicts[ok]
        ]
    return rows
