"""``kzc config show|set``: topic config overrides, validated as Kafka's LogConfig does, diffed, written as
``AdminZkClient`` writes them (ZooKeeper, version-checked, with the change notification) or through
IncrementalAlterConfigs (``--bootstrap-server``); ``--via`` forces the path (``write_route``)."""

from __future__ import annotations

import argparse
import json
from contextlib import ExitStack
from typing import Any

from cli.broker_config import change_broker
from cli.options import add_command, add_via_option, global_parent
from cli.plan_output import ready_to_write, show_plan
from core.audit import AuditLog
from core.config import ConnectionSettings, cluster_name
from core.configs.broker import masked
from core.configs.ops import open_config_ops, planned_writes
from core.configs.plan import parse_request
from core.configs.zk import BROKER_DEFAULT, BROKERS, TOPICS
from core.errors import UsageError

_CONFIG_REQUESTS = "IncrementalAlterConfigs, or AlterConfigs for brokers 1.1-2.2"


def register(sub: Any) -> None:
    """Declare ``kzc config`` and its subcommands."""
    config = add_command(sub, "config", json_flag=False)
    actions = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)

    show = add_command(actions, "show", "the overrides of a topic or broker, and (with --bootstrap-server) sources")
    target = show.add_mutually_exclusive_group(required=True)
    target.add_argument("topic", nargs="?", metavar="TOPIC")
    target.add_argument("--broker", metavar="ID", help="a broker's dynamic config")
    target.add_argument("--broker-default", action="store_true", help="the cluster-wide broker defaults")
    show.set_defaults(handler=_show)

    set_help = "set (KEY=VALUE) and delete (--delete KEY) topic config overrides"
    # --config KEY=VALUE is not used here; the global --config FILE stays available.
    change = actions.add_parser("set", help=set_help, description=set_help, parents=[global_parent()])
    change.add_argument("--json", action="store_true", help="print machine-readable JSON")
    _add_target(change)
    change.add_argument("items", nargs="*", metavar="KEY=VALUE")
    change.add_argument("--delete", action="append", default=[], metavar="KEY", help="remove an override")
    add_via_option(change, _CONFIG_REQUESTS)
    change.add_argument("--dry-run", action="store_true", help="show the diff and the writes; change nothing")
    change.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    change.set_defaults(handler=_set)

    delete = add_command(actions, "delete", "delete topic config overrides (kzc config set TOPIC --delete KEY)")
    _add_target(delete)
    delete.add_argument("keys", nargs="*", metavar="KEY")
    add_via_option(delete, _CONFIG_REQUESTS)
    delete.add_argument("--dry-run", action="store_true", help="show the diff and the writes; change nothing")
    delete.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    delete.set_defaults(handler=_delete)


def _add_target(parser: argparse.ArgumentParser) -> None:
    """TOPIC, or ``--broker ID`` / ``--broker-default`` (dynamic broker configs: ``core.configs.broker``)."""
    parser.add_argument("topic", nargs="?", metavar="TOPIC")
    parser.add_argument("--broker", metavar="ID", help="a broker's dynamic config (instead of TOPIC)")
    parser.add_argument("--broker-default", action="store_true", help="the cluster-wide broker defaults")


def _broker_entity(args: argparse.Namespace) -> str | None:
    """The broker entity asked for (an id or ``<default>``), None for a topic.

    Raises:
        UsageError: none or more than one of TOPIC, --broker and --broker-default.
    """
    if args.broker is not None and args.broker_default:
        raise UsageError("give one of TOPIC, --broker ID and --broker-default")
    if args.broker is None and not args.broker_default:
        if args.topic is None:
            raise UsageError("give one of TOPIC, --broker ID and --broker-default")
        return None
    return BROKER_DEFAULT if args.broker_default else str(args.broker)


def _shifted(args: argparse.Namespace, rest: list[str]) -> list[str]:
    """With --broker, argparse took the first KEY=VALUE (or KEY) for TOPIC: give it back."""
    return ([args.topic] if args.topic is not None else []) + list(rest)


def _show(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.topic:
        entity, name = TOPICS, args.topic
    elif args.broker is not None:
        if not args.broker.isdigit():
            raise UsageError(f"--broker takes a broker id, got '{args.broker}'")
        entity, name = BROKERS, args.broker
    else:
        entity, name = BROKERS, BROKER_DEFAULT
    with open_config_ops(settings) as ops:
        shown = ops.show(entity, name)
    if entity == BROKERS:
        shown["overrides"] = masked(shown["overrides"])  # password configs are stored encrypted: still not shown
    if args.json:
        print(json.dumps(shown))
        return 0
    version = shown["zk_version"]
    where = f"znode version {version}" if version is not None else "no such znode"
    print(f"{shown['entity']} ({shown['path']}, {where}):")
    overrides = shown["overrides"]
    print("\n".join(f"  {k}={v}" for k, v in sorted(overrides.items())) or "  no overrides")
    if "described_unknown" in shown:
        print(shown["described_unknown"])
    described = shown.get("described", [])
    if described:
        print("as the brokers report them (non-default):")
        for d in described:
            value = "(sensitive)" if d["sensitive"] else d["value"]
            print(f"  {d['name']}={value}  [{d['source']}]")
    return 0


def _set(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    entity = _broker_entity(args)
    if entity is not None:
        return change_broker(args, settings, entity, _shifted(args, args.items), args.delete, "config set")
    return _change(args, settings, args.items, args.delete, "config set")


def _delete(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    entity = _broker_entity(args)
    if entity is not None:
        return change_broker(args, settings, entity, [], _shifted(args, args.keys), "config delete")
    return _change(args, settings, [], args.keys, "config delete")


def _change(
    args: argparse.Namespace, settings: ConnectionSettings, items: list[str], deletes: list[str], operation: str
) -> int:
    audit = AuditLog(cluster_name(settings))
    raw = {
        "topic": args.topic,
        "set": items,
        "delete": deletes,
        "via": args.via,
        "dry_run": args.dry_run,
        "yes": args.yes,
    }
    with ExitStack() as stack, audit.attempt(operation, raw) as attempt:
        request = parse_request(args.topic, items, deletes)
        ops = stack.enter_context(open_config_ops(settings, audit=audit))
        plan = ops.plan(request, args.via)
        facts = ops.reader.facts()
        writes = planned_writes(plan, facts) if plan.changes else ()
        show_plan(args, settings, audit.cluster_id, plan, writes)
        before = plan.before.to_json()
        if not ready_to_write(args, attempt, plan, before, plan.topic, "the topic name", "change its config"):
            return 0
        stored = ops.apply(plan)
        attempt.applied(
            f"changed the config of {plan.topic}",
            before=before,
            after=stored.as_dict(),
            via=plan.via,
            path=plan.via_reason,
        )
    if args.json:
        print(json.dumps({"applied": True, **plan.to_json(), "stored": stored.as_dict()}))
    else:
        print(f"Changed the config of topic {plan.topic} via {plan.via}.")
    return 0
