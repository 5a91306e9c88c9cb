"""``kzc reassign plan|apply|status|clear-throttles|cancel``: partition reassignment, previewed exactly.

``plan`` prints Kafka's reassignment JSON (``-o FILE`` writes it; ``kafka-reassign-partitions.sh
--execute`` accepts the file) with ``current`` per entry and the balance before and after. ``apply`` takes
such a file or the plan flags, shows the writes, asks for the number of partitions to move (unless
``--yes``), writes, and with ``--wait`` follows each partition to the end, then removes the throttles.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from cli.confirmation import confirm
from cli.options import add_command, parse_timeout
from core.audit import Attempt, AuditLog
from core.config import ConnectionSettings, cluster_banner, cluster_json, cluster_name
from core.errors import UsageError
from core.reassign.file import parse_reassignment_file
from core.reassign.ops import ReassignOps, open_reassign_ops
from core.reassign.plan import ReassignPlan, describe_plan
from core.reassign.progress import ReassignProgress, ReassignTimeout
from core.topics.write import describe_writes

DEFAULT_WAIT = 600.0


def register(sub: Any) -> None:
    """Declare ``kzc reassign`` and its subcommands."""
    reassign = add_command(sub, "reassign", json_flag=False)
    actions = reassign.add_subparsers(dest="reassign_command", metavar="ACTION", required=True)

    plan = add_command(actions, "plan", "plan a reassignment: minimal movement off brokers, or Kafka's --generate")
    _plan_flags(plan, required=True)
    plan.add_argument("-o", "--output", metavar="FILE", help="write the reassignment JSON to FILE")
    plan.set_defaults(handler=_plan)

    apply = add_command(actions, "apply", "start a reassignment from a file or the plan flags")
    apply.add_argument("file", nargs="?", metavar="FILE", help="a reassignment JSON file (kzc's or Kafka's)")
    _plan_flags(apply, required=False)
    apply.add_argument("--throttle", metavar="BYTES_PER_S", help="inter-broker replication throttle while it moves")
    apply.add_argument("--dry-run", action="store_true", help="show the plan and the writes; change nothing")
    apply.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    apply.add_argument("--wait", action="store_true", help="follow every partition to the end, then drop throttles")
    apply.add_argument("--timeout", metavar="SECONDS", default=str(DEFAULT_WAIT), help="how long --wait waits")
    apply.set_defaults(handler=_apply)

    status = add_command(actions, "status", "what is moving, what is done, what is stuck and why")
    status.add_argument("file", nargs="?", metavar="FILE", help="follow the partitions of this file instead")
    status.set_defaults(handler=_status)

    clear = add_command(actions, "clear-throttles", "remove reassignment throttles (as --verify does when done)")
    clear.add_argument("--topic", action="append", default=[], metavar="T", help="topics to clear (repeatable)")
    clear.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    clear.set_defaults(handler=_clear)

    cancel = add_command(actions, "cancel", "revert every reassignment in progress (needs --bootstrap-server)")
    cancel.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    cancel.set_defaults(handler=_cancel)


def _plan_flags(parser: argparse.ArgumentParser, required: bool) -> None:
    group = parser.add_mutually_exclusive_group(required=required)
    group.add_argument("--move-off", metavar="IDS", help="move every replica off these brokers (e.g. 2,5)")
    group.add_argument("--onto", metavar="IDS", help="Kafka's --generate: reassign the topics over these brokers")
    parser.add_argument("--topic", action="append", default=[], metavar="T", help="only this topic (repeatable)")
    parser.add_argument("--regex", metavar="RE", help="only topics whose whole name matches")
    parser.add_argument("--seed", metavar="N", help="seed Kafka's random start (--onto), for a reproducible plan")
    parser.add_argument("--disable-rack-aware", action="store_true", help="--onto without racks")


# ---- handlers -------------------------------------------------------------------------------------------


def _plan(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    make = _plan_request(args)
    with open_reassign_ops(settings) as ops:
        plan = make(ops)
    document = plan.to_json()
    if args.output:
        try:
            Path(args.output).write_text(json.dumps(document) + "\n", encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot write {args.output}: {exc.strerror or exc}") from exc
    if args.json:
        print(json.dumps(document))
    else:
        print(render_plan(plan))
        if args.output:
            print(f"Wrote {args.output} (kafka-reassign-partitions.sh --execute accepts it).")
    return 0


def _apply(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    raw = {
        "file": args.file, "move_off": args.move_off, "onto": args.onto, "topics": args.topic, "regex": args.regex,
        "throttle": args.throttle, "dry_run": args.dry_run, "yes": args.yes, "wait": args.wait,
    }  # fmt: skip
    with ExitStack() as stack:
        with audit.attempt("reassign apply", raw) as attempt:
            throttle = _throttle(args.throttle)
            timeout = parse_timeout(args.timeout)
            if args.file and (args.move_off or args.onto):
                raise UsageError("give a FILE or --move-off/--onto, not both")
            if not args.file and not (args.move_off or args.onto):
                raise UsageError("give a reassignment FILE, or --move-off / --onto")
            if args.file:
                text = _read(args.file)
                ops = stack.enter_context(open_reassign_ops(settings, audit=audit))
                plan = ops.plan_file(text)
            else:
                make = _plan_request(args)
                ops = stack.enter_context(open_reassign_ops(settings, audit=audit))
                plan = make(ops)
            before = {"partitions": [m.to_json() for m in plan.moves], "metrics": plan.metrics()}
            if not args.json:
                print(cluster_banner(settings, audit.cluster_id))
                print(render_plan(plan))
            facts = ops.check_applicable(plan)
            writes = ops.planned_writes(plan, throttle, facts)
            path = ops.path_reason(throttle, facts)
            if args.dry_run:
                if args.json:
                    cluster = cluster_json(settings, audit.cluster_id)
                    writes_json = [w.to_json() for w in writes]
                    print(
                        json.dumps(
                            {"dry_run": True, "cluster": cluster, **plan.to_json(), "path": path, "writes": writes_json}
                        )
                    )
                else:
                    print("\n".join(describe_writes(writes, path)))
                attempt.dry_run("plan shown, nothing written", before=before, path=path)
                return 0
            _confirm(args, len(plan.moves), attempt)
            ops.apply(plan, throttle)
            attempt.applied(
                f"started the reassignment of {len(plan.moves)} partition(s)",
                before=before,
                throttle=throttle,
                path=path,
            )
        _say(args, f"Started the reassignment of {len(plan.moves)} partition(s) (/admin/reassign_partitions).")
        if throttle is not None:
            _say(args, f"The inter-broker throttle limit was set to {throttle} B/s.")
        return _follow(args, ops, plan, timeout, audit)


def _follow(args: argparse.Namespace, ops: ReassignOps, plan: ReassignPlan, timeout: float, audit: AuditLog) -> int:
    if not args.wait:
        progress = ops.progress(plan)
        _say(args, "\n".join(progress.describe()))
        if args.json:
            print(json.dumps({"applied": True, "progress": progress.to_json()}))
        return 0

    def show(progress: ReassignProgress) -> None:
        _say(args, "\n".join(progress.describe()))

    try:
        done = ops.wait(plan, timeout, show)
    except ReassignTimeout as exc:
        if args.json:
            print(json.dumps({"applied": True, "error": str(exc), "progress": ops.progress(plan).to_json()}))
        print(f"kzc: {exc}", file=sys.stderr)
        return 1
    topics = sorted({m.topic for m in plan.moves})
    with audit.attempt("reassign clear-throttles", {"topics": topics, "after": "reassign apply --wait"}) as attempt:
        cleared = ops.clear_throttles(topics)
        attempt.applied(f"removed throttles from {len(cleared)} entities", entities=cleared)
    if cleared:
        _say(args, "Throttle was removed.")
    if args.json:
        print(json.dumps({"applied": True, "progress": done.to_json(), "throttles_removed": cleared}))
    return 0


def _status(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    with open_reassign_ops(settings) as ops:
        # A file's targets, without its "current" (which the reassignment itself made stale).
        targets = dict(parse_reassignment_file(_read(args.file)).targets) if args.file else None
        progress = ops.progress_of(targets)
    if args.json:
        print(json.dumps(progress.to_json()))
    elif not progress.partitions:
        left = [f"  throttle still set: {t}" for t in progress.throttles]
        print("\n".join(["No partition reassignments found.", *left]))
    else:
        print("\n".join(progress.describe()))
    return 0


def _clear(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    arguments = {"topics": args.topic, "yes": args.yes}
    with (
        audit.attempt("reassign clear-throttles", arguments) as attempt,
        open_reassign_ops(settings, audit=audit) as ops,
    ):
        left = ops.throttles_left(args.topic)
        if not left:
            attempt.refused("no throttle set")
            _say(args, "No reassignment throttle is set.")
            if args.json:
                print(json.dumps({"removed": []}))
            return 0
        _say(args, "\n".join([cluster_banner(settings, audit.cluster_id), *(f"  {t}" for t in left)]))
        if ops.progress().moving:
            _say(args, "WARNING: partitions are still moving; without throttles they copy at full speed.")
        _confirm_count(args, len(left), "throttle settings", "remove", attempt)
        cleared = ops.clear_throttles(args.topic)
        attempt.applied(f"removed throttles from {len(cleared)} entities", before=left, entities=cleared)
    _say(args, "Throttle was removed.")
    if args.json:
        print(json.dumps({"removed": cleared}))
    return 0


def _cancel(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    with ExitStack() as stack:
        with audit.attempt("reassign cancel", {"yes": args.yes}) as attempt:
            ops = stack.enter_context(open_reassign_ops(settings, audit=audit))
            progress = ops.cancellable()
            if not args.json:
                print(cluster_banner(settings, audit.cluster_id))
                print("\n".join(["Cancel (revert to the original replicas):", *progress.describe()[1:]]))
                print("\n".join(progress.cancel_effects()))
            before = progress.to_json()
            _confirm_count(args, len(progress.moving), "partitions to revert", "cancel their reassignment", attempt)
            outcome = ops.cancel(progress)
            errors = {f"{t}-{p}": e for (t, p), e in outcome.items() if e is not None}
            attempt.applied(
                f"cancelled the reassignment of {len(outcome) - len(errors)} partition(s)", before=before, errors=errors
            )
        # As kafka-reassign-partitions.sh --cancel (without --preserve-throttles): the throttles go too.
        topics = sorted({p.topic for p in progress.moving})
        with audit.attempt("reassign clear-throttles", {"topics": topics, "after": "reassign cancel"}) as attempt:
            cleared = ops.clear_throttles(topics)
            attempt.applied(f"removed throttles from {len(cleared)} entities", entities=cleared)
    for name, error in errors.items():
        print(f"kzc: {name}: {error}", file=sys.stderr)
    _say(args, f"Cancelled the reassignment of {len(outcome) - len(errors)} partition(s).")
    if args.json:
        print(json.dumps({"cancelled": sorted(f"{t}-{p}" for (t, p), e in outcome.items() if e is None),
                          "errors": errors, "throttles_removed": cleared}))  # fmt: skip
    return 1 if errors else 0


# ---- steps ----------------------------------------------------------------------------------------------


def _plan_request(args: argparse.Namespace) -> Callable[[ReassignOps], ReassignPlan]:
    """The plan flags, checked before anything connects (bad input exits 2 at once)."""
    seed = _int_option("--seed", args.seed) if args.seed is not None else None
    if args.move_off:
        if seed is not None:
            raise UsageError("--seed applies to --onto only (--move-off has no random start)")
        off = _ids("--move-off", args.move_off)
        return lambda ops: ops.plan_move_off(off, args.topic, args.regex)
    onto = _ids("--onto", args.onto)
    return lambda ops: ops.plan_onto(onto, args.topic, args.regex, seed, not args.disable_rack_aware)


def _confirm(args: argparse.Namespace, count: int, attempt: Attempt) -> None:
    _confirm_count(args, count, "partitions to move", "start the reassignment", attempt)


def _confirm_count(args: argparse.Namespace, count: int, what: str, verb: str, attempt: Attempt) -> None:
    """Typed confirmation: the number of ``what``."""
    confirm(attempt, args.yes, str(count), f"the number of {what}", verb)


def _ids(option: str, text: str) -> list[int]:
    ids = [_int_option(option, part.strip()) for part in text.split(",") if part.strip()]
    if not ids:
        raise UsageError(f"{option} needs broker ids, e.g. 2,5")
    return ids


def _int_option(option: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{option} takes integers, got '{text}'") from None


def _throttle(text: str | None) -> int | None:
    if text is None:
        return None
    value = _int_option("--throttle", text)
    if value < 0:
        raise UsageError("--throttle must be at least 0 bytes per second")
    return value


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from exc


def _say(args: argparse.Namespace, text: str) -> None:
    print(text, file=sys.stderr if getattr(args, "json", False) else sys.stdout)


# ---- rendering ------------------------------------------------------------------------------------------


def render_plan(plan: ReassignPlan) -> str:
    """The plan for the terminal (``core.reassign.plan.describe_plan``, which the console shows too)."""
    return "\n".join(describe_plan(plan))
