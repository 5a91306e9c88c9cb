"""``kzc user list|set-password|delete``: SCRAM users, through the brokers (Describe/AlterUserScramCredentials,
2.7+) or in ZooKeeper (``core.security.users``: the path, and why). The password
comes from a file, an environment variable or a prompt, never the command line; no salt, key or password
appears in any output or audit line."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.options import add_command, add_via_option
from cli.security_args import confirm, mutation, read_password
from core.audit import Attempt
from core.brokers.capabilities import Route
from core.config import ConnectionSettings
from core.kafka.scram import DEFAULT_ITERATIONS, MECHANISMS
from core.security.users import (
    CredentialPlan,
    apply_credentials,
    choose_user_path,
    credential_writes,
    plan_delete,
    plan_set_password,
    read_users,
    redacted,
)
from core.zookeeper.kafka_root import open_kafka_session
from core.zookeeper.session import ZkSession


def register(sub: Any) -> None:
    """Declare ``kzc user`` and its subcommands."""
    user = add_command(sub, "user", json_flag=False)
    actions = user.add_subparsers(dest="user_command", metavar="ACTION", required=True)
    listing = add_command(actions, "list", "users with SCRAM credentials: mechanisms and iterations")
    listing.set_defaults(handler=_list)
    setter = add_command(actions, "set-password", "create or replace a user's SCRAM credential")
    setter.add_argument("user", metavar="USER")
    setter.add_argument("--mechanism", required=True, choices=tuple(MECHANISMS))
    setter.add_argument("--iterations", type=int, default=DEFAULT_ITERATIONS, metavar="N", help="4096 to 16384")
    source = setter.add_mutually_exclusive_group()
    source.add_argument("--password-file", metavar="F", help="read the password from this file (first line)")
    source.add_argument("--password-env", metavar="VAR", help="read the password from this environment variable")
    add_via_option(setter, "AlterUserScramCredentials")
    setter.add_argument("--dry-run", action="store_true", help="show the change; change nothing")
    setter.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    setter.set_defaults(handler=_set_password)
    delete = add_command(actions, "delete", "delete a user's SCRAM credentials (all, or --mechanism M)")
    delete.add_argument("user", metavar="USER")
    delete.add_argument("--mechanism", action="append", choices=tuple(MECHANISMS), default=[])
    add_via_option(delete, "AlterUserScramCredentials")
    delete.add_argument("--dry-run", action="store_true", help="show the change; change nothing")
    delete.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    delete.set_defaults(handler=_delete)


def _list(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    with open_kafka_session(settings) as session:
        listing = read_users(session, settings)
    users = listing.users
    if args.json:
        print(json.dumps({"path": listing.path, "path_reason": listing.path_reason,
                          "users": [u.to_json() for u in users]}))  # fmt: skip
        return 0
    print(f"from {listing.path_reason}")
    if not users:
        print("no SCRAM users")
    for u in users:
        creds = ", ".join(
            f"{c.mechanism} (iterations {c.iterations if c.iterations else 'unreadable'})" for c in u.credentials
        )
        print(f"{u.name}: {creds}")
    return 0


def _set_password(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    raw = {"user": args.user, "mechanism": args.mechanism, "iterations": args.iterations,
           "password_from": "file" if args.password_file else "environment" if args.password_env else "prompt",
           "via": args.via, "dry_run": args.dry_run, "yes": args.yes}  # fmt: skip
    with mutation(settings, "user set-password", raw) as (session, attempt, _audit):
        password, source = read_password(args.password_file, args.password_env)
        route = _route(session, settings, attempt, args.via)
        plan = plan_set_password(session, args.user, args.mechanism, password, args.iterations, settings, path=route)
        del password
        return _finish(args, settings, session, attempt, plan, source)


def _delete(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    raw = {"user": args.user, "mechanism": args.mechanism, "via": args.via, "dry_run": args.dry_run, "yes": args.yes}
    with mutation(settings, "user delete", raw) as (session, attempt, _audit):
        route = _route(session, settings, attempt, args.via)
        plan = plan_delete(session, args.user, args.mechanism, settings, path=route)
        return _finish(args, settings, session, attempt, plan, None)


def _route(session: ZkSession, settings: ConnectionSettings, attempt: Attempt, via: str | None) -> Route:
    """The path, recorded on the attempt: every outcome line from here on, a refusal too, says which."""
    route = choose_user_path(session, settings, via)
    attempt.details.update(via=route.via, path=route.reason)
    return route


def _finish(
    args: argparse.Namespace,
    settings: ConnectionSettings,
    session: ZkSession,
    attempt: Attempt,
    plan: CredentialPlan,
    source: str | None,
) -> int:
    if args.json and args.dry_run:
        print(json.dumps({"dry_run": True, **plan.to_json()}))
    elif not args.json:
        print("\n".join(plan.describe()) + (f"\n  password from {source}" if source else ""))
    path = {"via": plan.via, "path": plan.via_reason}
    if args.dry_run:
        writes = redacted(credential_writes(plan))
        attempt.dry_run("change shown, nothing written", plan=plan.to_json(), writes=writes, **path)
        return 0
    if not plan.changes:
        attempt.refused("no change", plan=plan.to_json(), **path)
        if args.json:
            print(json.dumps({"applied": False, **plan.to_json()}))
        return 0
    confirm(attempt, args.yes, plan.user, f"{plan.action} SCRAM credentials of user {plan.user}")
    attempt.intent(f"user {plan.action} for {plan.user}", plan=plan.to_json(), **path)
    stored = apply_credentials(session, settings, plan)
    shown: list[dict[str, Any]] = [{"mechanism": c.mechanism, "iterations": c.iterations} for c in stored]
    attempt.applied(
        f"{plan.action} SCRAM credentials of user {plan.user}", plan=plan.to_json(), credentials=shown, **path
    )
    if args.json:
        print(json.dumps({"applied": True, **plan.to_json(), "credentials": shown}))
    else:
        where = "through the brokers (AlterUserScramCredentials)" if plan.via == "admin" else "in ZooKeeper"
        now = ", ".join(str(c["mechanism"]) for c in shown) or "no SCRAM credentials"
        print(f"Done {where}: user {plan.user} now has {now}.")
    return 0
