"""``kzc quota show|set|delete``: client quotas of users, client ids and both (and their ``<default>``s),
through AlterClientQuotas / DescribeClientQuotas where the brokers serve them (2.6+, with
``--bootstrap-server``), else as ``kafka-configs --zookeeper`` writes them, and the effective quota of a
user/client-id by Kafka's precedence (``core.security.quotas``, ``core.kafka.quotas``)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.options import add_command, add_via_option
from cli.security_args import confirm, mutation
from core.brokers.capabilities import VIA_ADMIN
from core.config import ConnectionSettings
from core.errors import UsageError
from core.kafka.quotas import DEFAULT, QUOTA_KEYS, QuotaEntity
from core.security.quotas import (
    apply_quota,
    effective,
    parse_quota_items,
    plan_quota,
    read_quota_path,
    read_quotas,
)
from core.zookeeper.kafka_root import open_kafka_session


def register(sub: Any) -> None:
    """Declare ``kzc quota`` and its subcommands."""
    quota = add_command(sub, "quota", json_flag=False)
    actions = quota.add_subparsers(dest="quota_command", metavar="ACTION", required=True)
    show = add_command(actions, "show", "quotas of an entity (all without one); --effective: what a client gets")
    _entity_options(show)
    show.add_argument("--effective", action="store_true", help="the quotas --user U --client-id C get, and from where")
    show.set_defaults(handler=_show)
    for name, text in (("set", "set quotas: KEY=VALUE ..."), ("delete", "delete quotas: KEY ...")):
        change = add_command(actions, name, f"{text} ({', '.join(QUOTA_KEYS)})")
        _entity_options(change)
        change.add_argument("items", nargs="+", metavar="KEY=VALUE" if name == "set" else "KEY")
        add_via_option(change, "AlterClientQuotas")
        change.add_argument("--dry-run", action="store_true", help="show the change; change nothing")
        change.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
        change.set_defaults(handler=_change, action=name)


def _entity_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--user", metavar="U", help="a user (principal name), or <default>")
    parser.add_argument("--client-id", metavar="C", help="a client id, or <default>")
    parser.add_argument(
        "--default",
        action="store_true",
        help="<default> for the side not given: alone, the default client id (/config/clients/<default>)",
    )


def _entity(args: argparse.Namespace) -> QuotaEntity | None:
    user, client = args.user, args.client_id
    if args.default:
        if user is not None and client is not None:
            raise UsageError("--default fills in the side not given: with both --user and --client-id there is none")
        if user is not None:
            client = DEFAULT
        elif client is not None:
            user = DEFAULT
        else:
            client = DEFAULT
    if user is None and client is None:
        return None
    return QuotaEntity(user, client)


def _show(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    entity = _entity(args)
    if args.effective:
        if args.user is None or args.client_id is None:
            raise UsageError("--effective needs both --user U and --client-id C (a client's quota depends on both)")
        with open_kafka_session(settings) as session:
            found = effective(session, args.user, args.client_id)
        rows = [{"key": q.key, "value": q.value, "source": q.source.to_json() if q.source else None} for q in found]
        if args.json:
            print(json.dumps({"user": args.user, "client_id": args.client_id, "effective": rows}))
            return 0
        print(f"effective quotas of user {args.user} with client-id {args.client_id} (Kafka's precedence):")
        for q in found:
            where = f"from {q.source.describe()}" if q.source else "no quota at any level: unlimited"
            print(f"  {q.key}: {q.value if q.value is not None else '-'}  ({where})")
        return 0
    with open_kafka_session(settings) as session:
        quotas, source = read_quotas(session, settings)
    selected = {e: q for e, q in quotas.items() if entity is None or e == entity}
    if args.json:
        listed = [{**e.to_json(), "quotas": q} for e, q in sorted(selected.items(), key=_order)]
        print(json.dumps({"source": source, "quotas": listed}))
        return 0
    print(f"quotas from {source}:")
    if entity is not None and not selected:
        print(f"{entity.describe()}: no quotas")
    if entity is None and not selected:
        print("no quotas")
    for e, items in sorted(selected.items(), key=_order):
        print(f"{e.describe()}: " + ", ".join(f"{k}={v}" for k, v in sorted(items.items())))
    return 0


def _order(item: tuple[QuotaEntity, Any]) -> tuple[str, str]:
    return (item[0].user or "", item[0].client_id or "")


def _change(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    raw = {"user": args.user, "client_id": args.client_id, "default": args.default, "items": args.items,
           "via": args.via, "dry_run": args.dry_run, "yes": args.yes}  # fmt: skip
    with mutation(settings, f"quota {args.action}", raw) as (session, attempt, _audit):
        entity = _entity(args)
        if entity is None:
            raise UsageError("give --user U, --client-id C, both, or --default")
        items = parse_quota_items(args.items) if args.action == "set" else {}
        _, path = read_quota_path(session, settings, args.via)
        deletes = [] if args.action == "set" else list(args.items)
        plan = plan_quota(session, entity, items, deletes, path)
        if args.json and args.dry_run:
            print(json.dumps({"dry_run": True, **plan.to_json()}))
        elif not args.json:
            print("\n".join(plan.describe()))
        before = plan.to_json()["before"]
        route = {"via": plan.via, "path": plan.via_reason}
        if args.dry_run:
            attempt.dry_run("change shown, nothing written", before=before, **route)
            return 0
        if not plan.changes:
            attempt.refused("no change", before=before)
            return 0
        name = entity.client_id if entity.user is None else entity.user
        confirm(attempt, args.yes, name or DEFAULT, f"change the quotas of {entity.describe()}")
        attempt.intent(
            f"quota {args.action} for {entity.describe()}", before=before, after=plan.to_json()["after"], **route
        )
        stored = apply_quota(session, settings, plan)
        attempt.applied(f"changed the quotas of {entity.describe()}", before=before, after=stored, **route)
    if args.json:
        print(json.dumps({"applied": True, **plan.to_json(), "stored": stored}))
    else:
        zookeeper = "ZooKeeper; brokers apply it from the change notification"
        how = "AlterClientQuotas" if plan.via == VIA_ADMIN else zookeeper
        print(f"Changed the quotas of {entity.describe()} (via {how}).")
    return 0
