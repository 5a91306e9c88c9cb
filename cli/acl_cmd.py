"""``kzc acl list|add|remove``: the ZooKeeper authorizer's ACLs, read from ``/kafka-acl`` and
``/kafka-acl-extended`` (or DescribeAcls) and changed through the brokers (CreateAcls/DeleteAcls) or as
``AclAuthorizer`` (2.4+) / ``SimpleAclAuthorizer`` do in ZooKeeper (``core.security.acls``: the path, and why)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.options import add_command
from cli.security_args import confirm, mutation
from core.config import ConnectionSettings
from core.kafka.acls import CLUSTER_NAME, LITERAL, PREFIXED, ResourcePattern, parse_principal
from core.security.acls import (
    ACL_PATH_NOTE,
    access_of,
    acl_request,
    apply_acls,
    choose_acl_path,
    list_acls,
    plan_acls,
)
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
    listing.set_defaults(handler=_list)
    for name, verb in (("add", "add ACLs (preview, confirm, version-checked write)"), ("remove", "remove ACLs")):
        change = add_command(actions, name, verb)
        _resource_options(change, required=True)
        change.add_argument("--principal", required=True, metavar="User:NAME", help="who the ACL is for")
        change.add_argument("--operation", required=True, action="append", metavar="OP", help="repeatable")
        change.add_argument("--host", default="*", metavar="H", help="the client host (default: any, '*')")
        change.add_argument("--deny", action="store_true", help="a Deny ACL (default: Allow)")
        change.add_argument("--pattern", choices=("literal", "prefixed"), default="literal", help="resource pattern")
        change.add_argument("--via", choices=("admin", "zookeeper"), default=None,
                            help="force the path: the brokers (CreateAcls/DeleteAcls) or ZooKeeper (default: the "
                                 "brokers when --bootstrap-server is given and they serve it)")  # fmt: skip
        change.add_argument("--dry-run", action="store_true", help="show the change and the writes; change nothing")
        change.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
        change.set_defaults(handler=_change, action=name)


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
    with open_kafka_session(settings) as session:
        listing = list_acls(session, settings)
    shown = listing.filtered(pattern, principal)
    access = access_of(listing, pattern.resource_type, pattern.name) if pattern else None
    rows = [r for r in access.rows if principal is None or r[0] == principal] if access else []
    if args.json:
        result: dict[str, Any] = {"path": listing.path, "path_reason": listing.path_reason}
        result |= {"acls": [b.to_json() for b in shown], "unreadable": list(listing.unreadable)}
        if access is not None:
            result["matching_patterns"] = list(access.patterns)
            result["who_can"] = [
                {"principal": p, "host": h, "permission": verdict, "operations": list(ops)}
                for p, h, verdict, ops in rows
            ]
        print(json.dumps(result))
        return 0
    print(f"from {listing.path_reason}")
    if not shown:
        print("no ACLs" + (f" on {pattern}" if pattern else ""))
    for binding in shown:
        acl = binding.acl
        print(f"  {binding.pattern}  {acl.permission} {acl.principal} {acl.operation} from {acl.host}")
    if access is not None and rows:
        print(f"who can do what on {access.resource_type} {access.name} ({', '.join(access.patterns)}):")
        for p, h, verdict, ops in rows:
            print(f"  {p} from {h}: {verdict} {', '.join(ops)}")
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
        pattern, acls = acl_request(resource.resource_type, resource.name, pattern_type, args.principal,
                                    args.operation, args.host, args.deny)  # fmt: skip
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
        print(f"Done: {'added' if args.action == 'add' else 'removed'} on {pattern} through the brokers "
              f"({plan.api}); DescribeAcls reports it.")  # fmt: skip
    else:
        print(f"Done: {'added' if args.action == 'add' else 'removed'} on {pattern} in ZooKeeper (brokers reload it "
              "from the change event)")  # fmt: skip
    return 0
