"""``kzc acl list|check|add|remove``: the ZooKeeper authorizer's ACLs, read from ``/kafka-acl`` and
``/kafka-acl-extended`` (or DescribeAcls) and changed through the brokers (CreateAcls/DeleteAcls) or as
``AclAuthorizer`` (2.4+) / ``SimpleAclAuthorizer`` do in ZooKeeper (``core.security.acls``: the path, and why)."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from cli.options import add_command, add_via_option
from cli.security_args import confirm, mutation
from core.config import ConnectionSettings
from core.errors import UsageError
from core.kafka.acls import CLUSTER_NAME, LITERAL, PREFIXED, ResourcePattern, parse_operation, parse_principal
from core.security.acls import (
    ACL_PATH_NOTE,
    access_of,
    acl_request,
    apply_acls,
    choose_acl_path,
    list_acls,
    plan_acls,
)
from core.security.authorizer import ACTIONS, AuthorizerState, answer, authorizer_properties, check_question
from core.topics.write import describe_writes
from core.zookeeper.kafka_root import open_kafka_session

_RESOURCES = (("topic", "Topic"), ("group", "Group"), ("transactional_id", "TransactionalId"))


def register(sub: Any) -> None:
    """Declare ``kzc acl`` and its subcommands."""
    acl = add_command(sub, "acl", json_flag=False)
    actions = acl.add_subparsers(dest="acl_command", metavar="ACTION", required=True)
    listing = add_command(actions, "list", "the ACLs in ZooKeeper, filtered; with a resource, who can do what on it")
    _resource_options(listing, required=False)
    listing.add_argument("--principal", metavar="P", help="only this principal's ACLs (User:NAME)")
    _authorizer_option(listing)
    listing.set_defaults(handler=_list)
    check = add_command(
        actions, "check", "whether the brokers' authorizer allows a principal an operation or an action"
    )
    check.add_argument("--principal", required=True, metavar="User:NAME", help="the client's principal")
    what = check.add_mutually_exclusive_group(required=True)
    what.add_argument("--operation", metavar="OP", help="one operation (Read, Write, Describe, Delete, ...)")
    what.add_argument("--action", choices=ACTIONS, help="what a client does: every operation it needs")
    check.add_argument("--topic", metavar="T")
    check.add_argument("--group", metavar="G", help="the group (with --action consume: the consumer's group)")
    check.add_argument("--cluster", action="store_true")
    check.add_argument("--transactional-id", metavar="ID")
    check.add_argument("--host", default="*", metavar="IP", help="the client's IP address (default: any, '*')")
    check.add_argument("--idempotent", action="store_true", help="with --action produce: an idempotent producer")
    _authorizer_option(check)
    check.set_defaults(handler=_check)
    for name, verb in (("add", "add ACLs (preview, confirm, version-checked write)"), ("remove", "remove ACLs")):
        change = add_command(actions, name, verb)
        _resource_options(change, required=True)
        change.add_argument("--principal", required=True, metavar="User:NAME", help="who the ACL is for")
        change.add_argument("--operation", required=True, action="append", metavar="OP", help="repeatable")
        change.add_argument("--host", default="*", metavar="H", help="the client host (default: any, '*')")
        change.add_argument("--deny", action="store_true", help="a Deny ACL (default: Allow)")
        change.add_argument("--pattern", choices=("literal", "prefixed"), default="literal", help="resource pattern")
        add_via_option(change, "CreateAcls/DeleteAcls")
        change.add_argument("--dry-run", action="store_true", help="show the change and the writes; change nothing")
        change.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
        change.set_defaults(handler=_change, action=name)


def _authorizer_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--authorizer-property", action="append", default=[], metavar="KEY=VALUE",
                        help="super.users or allow.everyone.if.no.acl.found as the brokers have them (repeatable; "
                             "the brokers do not report them: else the context's authorizer_properties, else "
                             "Kafka's defaults)")  # fmt: skip


def _with_properties(args: argparse.Namespace, settings: ConnectionSettings) -> ConnectionSettings:
    """``settings`` with the ``--authorizer-property`` pairs after the context's (a flag wins)."""
    pairs = []
    for text in args.authorizer_property:
        key, equals, value = text.partition("=")
        if not equals or not key.strip():
            raise UsageError(f"--authorizer-property takes KEY=VALUE, got {text!r}")
        pairs.append((key.strip(), value.strip()))
    return replace(settings, authorizer_properties=(*settings.authorizer_properties, *pairs))


def _resource_options(parser: argparse.ArgumentParser, required: bool) -> None:
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--topic", metavar="T")
    group.add_argument("--group", metavar="G")
    group.add_argument("--cluster", action="store_true")
    group.add_argument("--transactional-id", metavar="ID")


def _pattern(args: argparse.Namespace, pattern_type: str = LITERAL) -> ResourcePattern | None:
    if args.cluster:
        return ResourcePattern("Cluster", CLUSTER_NAME, pattern_type)
    for attribute, resource_type in _RESOURCES:
        value = getattr(args, attribute)
        if value is not None:
            return ResourcePattern(resource_type, value, pattern_type)
    return None


def _list(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    principal = parse_principal(args.principal) if args.principal else None
    pattern = _pattern(args)
    settings = _with_properties(args, settings)
    authorizer_properties(settings)  # bad properties refused before connecting
    with open_kafka_session(settings) as session:
        listing = list_acls(session, settings)
    shown = listing.filtered(pattern, principal)
    access = access_of(listing, pattern.resource_type, pattern.name) if pattern else None
    rows = [r for r in access.rows if principal is None or r[0] == principal] if access else []
    if args.json:
        result: dict[str, Any] = {"path": listing.path, "path_reason": listing.path_reason}
        result["authorizer"] = listing.authorizer.to_json() if listing.authorizer else None
        result |= {"acls": [b.to_json() for b in shown], "unreadable": list(listing.unreadable)}
        if access is not None:
            result["matching_patterns"] = list(access.patterns)
            result["caveats"] = list(access.caveats)
            result["who_can"] = [
                {"principal": p, "host": h, "permission": verdict, "operations": list(ops)}
                for p, h, verdict, ops in rows
            ]
        print(json.dumps(result))
        return 0
    print(f"from {listing.path_reason}")
    if listing.authorizer is not None:
        print(listing.authorizer.summary())
    enforced = listing.authorizer is None or listing.authorizer.enforced is not False
    if not shown:
        print(
            ("no ACLs" if enforced else "no ACLs in ZooKeeper (none would be enforced)")
            + (f" on {pattern}" if pattern else "")
        )
    for binding in shown:
        acl = binding.acl
        print(f"  {binding.pattern}  {acl.permission} {acl.principal} {acl.operation} from {acl.host}")
    if access is not None and rows:
        print(f"who can do what on {access.resource_type} {access.name} ({', '.join(access.patterns)}):")
        for p, h, verdict, ops in rows:
            print(f"  {p} from {h}: {verdict} {', '.join(ops)}")
        for caveat in access.caveats:
            print(f"  note: {caveat}")
    for problem in listing.unreadable:
        print(f"unreadable: {problem}")
    return 0


def _change(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    raw = {"resource": {k: getattr(args, k) for k in ("topic", "group", "cluster", "transactional_id")},
           "principal": args.principal, "operation": args.operation, "host": args.host, "deny": args.deny,
           "pattern": args.pattern, "via": args.via, "dry_run": args.dry_run, "yes": args.yes}  # fmt: skip
    operation = f"acl {args.action}"
    with mutation(settings, operation, raw) as (session, attempt, _audit):
        resource = _pattern(args)
        assert resource is not None  # the resource group is required
        pattern_type = PREFIXED if args.pattern == "prefixed" else LITERAL
        pattern, acls = acl_request(
            resource.resource_type, resource.name, pattern_type, args.principal, args.operation, args.host, args.deny
        )
        route = choose_acl_path(session, settings, args.action, pattern, acls, args.via)
        path = {"via": route.via, "path": route.reason}
        attempt.details.update(path)  # every outcome line from here on, a refusal too, says which path
        plan = plan_acls(session, args.action, pattern, acls, settings, path=route)
        if args.json and args.dry_run:
            print(json.dumps({"dry_run": True, **plan.to_json()}))
        elif not args.json:
            print("\n".join(plan.describe()))
            if args.dry_run and plan.writes:
                print("\n".join(describe_writes(plan.writes, ACL_PATH_NOTE)))
        before = [a.to_json() for a in sorted(plan.before.acls)]
        if args.dry_run:
            attempt.dry_run("change shown, nothing written", before=before, **path)
            return 0
        if not plan.changes:
            attempt.refused("no change", before=before, **path)
            if args.json:
                print(json.dumps({"applied": False, **plan.to_json()}))
            return 0
        confirm(attempt, args.yes, pattern.name, f"{args.action} these ACLs on {pattern}")
        requests = plan.to_json()["requests"]
        attempt.intent(f"{args.action} ACLs on {pattern}", before=before, writes=[w.to_json() for w in plan.writes],
                       requests=requests, **path)  # fmt: skip
        stored = apply_acls(session, settings, plan)
        after = [a.to_json() for a in sorted(stored.acls)]
        attempt.applied(f"{args.action} ACLs on {pattern}", before=before, after=after, requests=requests, **path)
    if args.json:
        print(json.dumps({"applied": True, **plan.to_json(), "stored": after}))
    elif plan.via == "admin":
        print(
            f"Done: {'added' if args.action == 'add' else 'removed'} on {pattern} through the brokers "
            f"({plan.api}); DescribeAcls reports it."
        )
    else:
        print(
            f"Done: {'added' if args.action == 'add' else 'removed'} on {pattern} in ZooKeeper (brokers reload it "
            "from the change event)"
        )
    return 0


def _check(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    settings = _with_properties(args, settings)
    authorizer_properties(settings)
    principal = parse_principal(args.principal.strip())
    operation = parse_operation(args.operation) if args.operation else None
    named = [n for n, v in (("--topic", args.topic), ("--group", args.group), ("--cluster", args.cluster),
                            ("--transactional-id", args.transactional_id)) if v]  # fmt: skip
    if args.action == "consume":
        if args.topic is None or set(named) - {"--topic", "--group"}:
            raise UsageError("--action consume takes --topic T and optionally --group G (the consumer's group)")
    elif args.action == "produce":
        if named != ["--topic"]:
            raise UsageError("--action produce takes --topic T")
    elif len(named) != 1:
        raise UsageError("give one resource: --topic, --group, --cluster or --transactional-id")
    if args.idempotent and args.action != "produce":
        raise UsageError("--idempotent goes with --action produce")
    if args.action:
        resource = ResourcePattern("Topic", args.topic)
    else:
        found = _pattern(args)
        assert found is not None
        resource = found
    check_question(principal, resource.resource_type, operation, args.host)
    with open_kafka_session(settings) as session:
        listing = list_acls(session, settings)
    state = listing.authorizer or AuthorizerState(not_asked="the brokers were not asked")
    result = answer(listing.bindings, state, principal, resource.resource_type, resource.name, operation, args.action,
                    args.group if args.action else None, args.host, args.idempotent, listing.unreadable)  # fmt: skip
    if args.json:
        print(json.dumps({**result.to_json(), "acls_from": listing.path_reason, "authorizer": state.to_json()}))
    else:
        print("\n".join(result.lines()))
    return 0
