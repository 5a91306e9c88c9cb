"""``kzc topic create|expand|delete``: preview, typed confirmation, apply, follow; every attempt audited.

Each command builds a plan (``core.topics.ops``), shows it, and with ``--dry-run`` stops there. Otherwise
the user confirms by typing the topic name (or the number of topics), unless ``--yes``; without a
terminal and without ``--yes`` kzc refuses. After the write kzc reports what the controller did
(``--wait``: until new partitions have leaders / the topics are gone, or the deadline passes). ``--via``
forces the path (the brokers or ZooKeeper: ``core.brokers.capabilities.write_route``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

from cli.assign_cmd import render_assignment
from cli.confirmation import confirm
from cli.options import add_command, add_via_option, global_parent, parse_timeout
from core.audit import Attempt, AuditLog
from core.brokers.capabilities import VIA_ADMIN
from core.config import ConnectionSettings, cluster_banner, cluster_json, cluster_name
from core.errors import KzcError, ReadOnlyError, UsageError
from core.kafka.topic_rules import parse_configs, parse_option_int, plural
from core.topics.ops import TopicOps, open_topic_ops, path_reason, plan_summary
from core.topics.plan import CreatePlan, CreateRequest, DeletePlan, DeleteRequest, ExpandPlan, ExpandRequest
from core.topics.progress import DeleteProgress, OnlineProgress, ProgressTimeout
from core.topics.write import describe_writes, planned_writes

DEFAULT_WAIT = 60.0
_NAME_HELP = "topic name (a name starting with '-' goes last, after --: ... -- -name)"


def register(sub: Any) -> None:
    """Declare ``kzc topic`` and its subcommands."""
    topic = add_command(sub, "topic", json_flag=False)
    actions = topic.add_subparsers(dest="topic_command", metavar="ACTION", required=True)

    create_help = "create a topic with the assignment Kafka would compute, or yours"
    # Kafka's --config KEY=VALUE takes over kzc's global --config FILE on this command ("resolve"); the
    # config file is then given before the command: kzc --config FILE topic create ...
    create = actions.add_parser(
        "create", help=create_help, description=create_help, parents=[global_parent()], conflict_handler="resolve"
    )
    create.add_argument("--json", action="store_true", help="print machine-readable JSON")
    create.add_argument("name", metavar="NAME", help=_NAME_HELP)
    create.add_argument("--partitions", metavar="N", help="number of partitions")
    create.add_argument("--replication-factor", metavar="R", help="replicas per partition")
    create.add_argument("--replica-assignment", metavar="STR", help="manual assignment, e.g. 1:2,2:3,3:1")
    create.add_argument(
        "--config",
        action="append",
        default=[],
        dest="topic_config",
        metavar="KEY=VALUE",
        help="topic config override, as kafka-topics --config (repeatable); kzc's config file goes before the command",
    )
    _rack_option(create)
    _common(create, "until every partition has a leader", "CreateTopics")
    create.set_defaults(handler=_create)

    expand = add_command(actions, "expand", "add partitions to a topic")
    expand.add_argument("name", metavar="NAME", help=_NAME_HELP)
    expand.add_argument("--partitions", metavar="N", required=True, help="the new total number of partitions")
    expand.add_argument(
        "--replica-assignment", metavar="STR", help="replicas of every partition (existing ones are skipped)"
    )
    _rack_option(expand)
    expand.add_argument(
        "--keep-unknown-fields",
        action="store_true",
        help="write through ZooKeeper even with --bootstrap-server: a broker drops topic znode fields it does not know",
    )
    _common(expand, "until every new partition has a leader", "CreatePartitions")
    expand.set_defaults(handler=_expand)

    delete = add_command(actions, "delete", "delete topics (by name, or every name matching --regex)")
    delete.add_argument("names", nargs="*", metavar="NAME", help=_NAME_HELP)
    delete.add_argument("--regex", metavar="RE", help="delete every topic whose whole name matches")
    _common(delete, "until the controller has removed the topics", "DeleteTopics")
    delete.set_defaults(handler=_delete)


def _rack_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--disable-rack-aware",
        action="store_true",
        help="ignore broker racks: rack-unaware assignment, as kafka-topics --disable-rack-aware",
    )


def _common(parser: argparse.ArgumentParser, wait_help: str, request: str) -> None:
    add_via_option(parser, request)
    parser.add_argument("--dry-run", action="store_true", help="show the plan; change nothing")
    parser.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    parser.add_argument("--wait", action="store_true", help=f"wait {wait_help}")
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        default=str(DEFAULT_WAIT),
        help=f"how long --wait waits (default {DEFAULT_WAIT:g})",
    )


# ---- handlers -------------------------------------------------------------------------------------------


def _create(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    raw = _raw_arguments(args, "name", "partitions", "replication_factor", "replica_assignment", "topic_config")
    with ExitStack() as stack:
        # Parsing happens inside the attempt, so a bad value is recorded (refused) like any other refusal.
        with audit.attempt("topic create", raw) as attempt:
            # TopicCommand's order: --partitions, --replication-factor (joptsimple), then the configs.
            request = CreateRequest(
                topic=args.name,
                partitions=_option_int("partitions", args.partitions),
                replication_factor=_option_int("replication-factor", args.replication_factor),
                replica_assignment=args.replica_assignment or None,  # empty means none, as in TopicCommand
                config=parse_configs(args.topic_config),
                rack_aware=not args.disable_rack_aware,
            )
            timeout = parse_timeout(args.timeout)
            attempt.describe(_arguments(request.to_json(), args))
            ops = stack.enter_context(open_topic_ops(settings, admin_timeout=timeout, audit=audit))
            # One plan: the preview shows its random start, and exactly this plan is applied.
            plan = ops.plan_create(request, args.via)
            if _preview(args, ops, plan, render_create_plan(plan), attempt):
                return 0
            _confirm(args, [plan.topic], "create", attempt)
            result = ops.apply(plan, attempt)
        _say(args, f"Created topic {plan.topic} via {_via(plan.via)}.")
        follow = _follow_online(args, ops, plan.topic, [p for p, _ in result.assignment], timeout)
        return _finish(args, result.to_json(), follow)


def _expand(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    raw = _raw_arguments(args, "name", "partitions", "replica_assignment")
    with ExitStack() as stack:
        with audit.attempt("topic expand", raw) as attempt:
            request = ExpandRequest(
                args.name,
                parse_option_int("partitions", args.partitions),  # required by argparse
                args.replica_assignment or None,
                rack_aware=not args.disable_rack_aware,
                keep_unknown_fields=args.keep_unknown_fields,
            )
            if args.keep_unknown_fields and args.via == VIA_ADMIN:
                raise UsageError("--keep-unknown-fields writes through ZooKeeper: it cannot go with --via admin")
            timeout = parse_timeout(args.timeout)
            attempt.describe(_arguments(request.to_json(), args))
            ops = stack.enter_context(open_topic_ops(settings, admin_timeout=timeout, audit=audit))
            plan = ops.plan_expand(request, args.via)
            if _preview(args, ops, plan, render_expand_plan(plan), attempt):
                return 0
            _confirm(args, [plan.topic], "expand", attempt)
            result = ops.apply(plan, attempt)
        _say(args, f"Added {len(result.assignment)} partitions to {plan.topic} via {_via(plan.via)}.")
        follow = _follow_online(args, ops, plan.topic, [p for p, _ in result.assignment], timeout)
        return _finish(args, result.to_json(), follow)


def _delete(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    request = DeleteRequest(tuple(args.names), args.regex)
    with ExitStack() as stack:
        with audit.attempt("topic delete", {**request.to_json(), **_raw_arguments(args)}) as attempt:
            timeout = parse_timeout(args.timeout)
            attempt.describe(_arguments(request.to_json(), args))
            ops = stack.enter_context(open_topic_ops(settings, admin_timeout=timeout, audit=audit))
            plan = ops.plan_delete(request, args.via)
            if _preview(args, ops, plan, render_delete_plan(plan), attempt):
                return 0
            _confirm(args, plan.topics, "delete", attempt)
            result = ops.apply(plan, attempt)
        for topic, error in result.errors:
            print(f"kzc: {topic} was not deleted: {error}", file=sys.stderr)
        if result.marked:
            _say(
                args,
                f"Marked {len(result.marked)} topic(s) for deletion via {_via(plan.via)}: {', '.join(result.marked)}",
            )
        follow = _follow_deletion(args, ops, result.marked, timeout)
        code = _finish(args, result.to_json(), follow)
        return code if not result.errors else max(code, 1)


# ---- steps shared by the handlers --------------------------------------------------------------------


def _preview(
    args: argparse.Namespace, ops: TopicOps, plan: CreatePlan | ExpandPlan | DeletePlan, text: str, attempt: Attempt
) -> bool:
    """Show the plan under the cluster it is for; True when this is a dry run (recorded, nothing more to do)."""
    writes = planned_writes(plan, ops.reader.facts()) if args.dry_run else ()
    if args.json and args.dry_run:
        cluster = cluster_json(ops.settings, ops.audit.cluster_id)
        print(
            json.dumps({"dry_run": True, "cluster": cluster, **plan.to_json(), "writes": [w.to_json() for w in writes]})
        )
    elif not args.json:
        print(
            "\n".join(
                [cluster_banner(ops.settings, ops.audit.cluster_id), text, *describe_writes(writes, path_reason(plan))]
            )
        )
    if args.dry_run:
        attempt.dry_run("plan shown, nothing written", plan=plan_summary(plan), path=path_reason(plan))
        if plan.blocked and not args.json:
            print(f"Note: this plan cannot be applied now: {plan.blocked}")
        return True
    if plan.blocked:
        raise ReadOnlyError(plan.blocked)
    return False


def _confirm(args: argparse.Namespace, topics: Sequence[str], verb: str, attempt: Attempt) -> None:
    """The typed confirmation: the topic name, or the number of topics when there are several."""
    if len(topics) == 1:
        confirm(attempt, args.yes, topics[0], "the topic name", verb)
    else:
        confirm(attempt, args.yes, str(len(topics)), "the number of topics", verb)


def _follow_online(
    args: argparse.Namespace, ops: TopicOps, topic: str, partitions: Sequence[int], timeout: float
) -> tuple[dict[str, Any], KzcError | None]:
    def show(progress: OnlineProgress) -> None:
        _say(args, progress.describe())

    if not args.wait:
        progress = ops.online_progress(topic, partitions)
        show(progress)
        return progress.to_json(), None
    try:
        done = ops.wait_online(topic, partitions, timeout, show)
    except ProgressTimeout as exc:
        return ops.online_progress(topic, partitions).to_json(), exc
    return done.to_json(), None


def _follow_deletion(
    args: argparse.Namespace, ops: TopicOps, topics: Sequence[str], timeout: float
) -> tuple[dict[str, Any], KzcError | None]:
    if not topics:
        return {}, None

    def show(progress: DeleteProgress) -> None:
        _say(args, progress.describe())

    if not args.wait:
        progress = ops.deletion_progress(topics)
        show(progress)
        return progress.to_json(), None
    try:
        done = ops.wait_deleted(topics, timeout, show)
    except ProgressTimeout as exc:
        return ops.deletion_progress(topics).to_json(), exc
    return done.to_json(), None


def _finish(args: argparse.Namespace, result: dict[str, Any], follow: tuple[dict[str, Any], KzcError | None]) -> int:
    progress, error = follow
    if args.json:
        payload = {**result, "progress": progress}
        if error is not None:
            payload["error"] = str(error)
        print(json.dumps(payload))
    if error is not None:
        print(f"kzc: {error}", file=sys.stderr)
        return error.exit_code
    return 0


def _say(args: argparse.Namespace, text: str) -> None:
    # Progress is for people; with --json it goes to stderr so stdout stays one JSON document.
    print(text, file=sys.stderr if args.json else sys.stdout)


def _option_int(option: str, text: str | None) -> int | None:
    """A ``kafka-topics`` integer option, converted (and refused) as joptsimple does."""
    return None if text is None else parse_option_int(option, text)


def _raw_arguments(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    """The arguments as typed, for the audit line of an attempt whose values do not parse."""
    renamed = {"name": "topic", "topic_config": "config"}
    raw = {renamed.get(name, name): getattr(args, name) for name in names}
    if hasattr(args, "disable_rack_aware"):
        raw["rack_aware"] = not args.disable_rack_aware
    return {
        **raw,
        "via": args.via,
        "timeout": args.timeout,
        "dry_run": args.dry_run,
        "yes": args.yes,
        "wait": args.wait,
    }


def _arguments(request: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    return {**request, "via": args.via, "dry_run": args.dry_run, "yes": args.yes, "wait": args.wait}


def _via(via: str) -> str:
    return "the AdminClient" if via == "admin" else "ZooKeeper"


# ---- rendering ------------------------------------------------------------------------------------------


def render_create_plan(plan: CreatePlan) -> str:
    """The plan as the terminal shows it."""
    if plan.manual:
        how = "manual assignment"
    else:
        start = f"; {plan.start.describe()}" if plan.start is not None else ""
        racks = ", rack-unaware (--disable-rack-aware)" if not plan.rack_aware else ""
        how = f"assignment computed as Kafka does{racks}{start}"
    lines = [
        f"Create topic {plan.topic}: {plural(plan.partitions, 'partition')}, "
        f"replication factor {plan.replication_factor} "
        f"({how}), via {_via(plan.via)}",
    ]
    if plan.config:
        lines.append("  config: " + ", ".join(f"{k}={v}" for k, v in plan.config))
    lines += render_assignment(plan.assignment, plan.racks, plan.metrics.to_json(), indent="  ")
    lines += _checks_and_warnings(plan.checks, plan.warnings, plan.blocked)
    return "\n".join(lines)


def render_expand_plan(plan: ExpandPlan) -> str:
    """The plan as the terminal shows it."""
    how = "manual assignment" if plan.manual else "assignment computed as Kafka does"
    if not plan.manual and not plan.rack_aware:
        how += ", rack-unaware (--disable-rack-aware)"
    lines = [
        f"Expand topic {plan.topic} from {plan.current_partitions} to {plan.target_partitions} partitions "
        f"({how}), via {_via(plan.via)}",
    ]
    lines += render_assignment(plan.new_assignment, plan.racks, plan.to_json()["metrics"], indent="  ")
    lines += _checks_and_warnings(plan.checks, plan.warnings, plan.blocked)
    return "\n".join(lines)


def render_delete_plan(plan: DeletePlan) -> str:
    """The plan as the terminal shows it."""
    selection = f" (matching --regex {plan.regex})" if plan.regex else ""
    lines = [f"Delete {len(plan.topics)} topic(s){selection}, via {_via(plan.via)}:"]
    held = dict(plan.obstacles)
    for topic in plan.topics:
        reasons = held.get(topic, ())
        lines.append(f"  {topic}" + (f"  (would be held: {'; '.join(reasons)})" if reasons else ""))
    lines += _checks_and_warnings(plan.checks, plan.warnings, plan.blocked)
    return "\n".join(lines)


def _checks_and_warnings(checks: Sequence[Any], warnings: Sequence[str], blocked: str | None) -> list[str]:
    lines = ["  checks: " + "; ".join(f"{c.name}: {c.detail}" for c in checks)] if checks else []
    lines += [f"  WARNING: {w}" for w in warnings]
    if blocked:
        lines.append(f"  BLOCKED: {blocked}")
    return lines
