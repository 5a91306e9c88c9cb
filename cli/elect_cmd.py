"""``kzc elect preferred|unclean``: leader elections, previewed, confirmed, audited.

``preferred`` sends only partitions whose preferred replica is alive, in the ISR and not already leader,
and lists the others with why; ``--wait`` follows each to its preferred leader (or says why not); ``--via``
forces its path (the znode or ElectLeaders, ``core.elections.ops.preferred_route``).
``unclean`` (AdminClient only) names the data that can be lost and asks for the partition to be typed.
"""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from typing import Any

from cli.confirmation import confirm
from cli.options import add_command, add_via_option, parse_timeout
from cli.plan_output import show_plan
from core.audit import Attempt, AuditLog
from core.config import ConnectionSettings, cluster_banner, cluster_json, cluster_name
from core.elections.ops import ElectionTimeout, candidates_json, open_election_ops, planned_writes
from core.elections.plan import Candidate
from core.errors import KzcError, ReadOnlyError, UsageError

DEFAULT_WAIT = 60.0


def register(sub: Any) -> None:
    """Declare ``kzc elect`` and its subcommands."""
    elect = add_command(sub, "elect", json_flag=False)
    actions = elect.add_subparsers(dest="elect_command", metavar="ACTION", required=True)

    preferred = add_command(actions, "preferred", "make each partition's preferred replica its leader")
    scope = preferred.add_mutually_exclusive_group(required=True)
    scope.add_argument("--all", action="store_true", help="every partition of every topic")
    scope.add_argument("--topic", metavar="T", help="the partitions of this topic")
    preferred.add_argument("--partition", action="append", default=[], metavar="P", help="only this partition")
    add_via_option(preferred, "ElectLeaders, Kafka 2.4+")
    preferred.add_argument("--dry-run", action="store_true", help="show what would be sent; change nothing")
    preferred.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    preferred.add_argument("--wait", action="store_true", help="wait until each has its preferred leader")
    preferred.add_argument("--timeout", metavar="SECONDS", default=str(DEFAULT_WAIT), help="how long --wait waits")
    preferred.set_defaults(handler=_preferred)

    unclean = add_command(actions, "unclean", "elect a leader outside the ISR (data loss; AdminClient, Kafka 2.4+)")
    unclean.add_argument("--topic", metavar="T", required=True)
    unclean.add_argument("--partition", metavar="P", required=True)
    unclean.add_argument("--dry-run", action="store_true", help="show the risk; change nothing")
    unclean.set_defaults(handler=_unclean)


def _preferred(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    raw = {"all": args.all, "topic": args.topic, "partitions": args.partition, "dry_run": args.dry_run,
           "yes": args.yes, "wait": args.wait}  # fmt: skip
    with ExitStack() as stack:
        with audit.attempt("elect preferred", raw) as attempt:
            partitions = [_int("--partition", p) for p in args.partition]
            timeout = parse_timeout(args.timeout)
            ops = stack.enter_context(open_election_ops(settings, audit=audit))
            plan = ops.plan_preferred(args.topic, partitions, args.via)
            writes = planned_writes(plan) if plan.sent else ()
            show_plan(args, settings, audit.cluster_id, plan, writes)
            before = [c.to_json() for c in plan.sent]
            if args.dry_run:
                attempt.dry_run("plan shown, nothing written", before=before, via=plan.via, path=plan.via_reason)
                return 0
            if plan.blocked:
                raise ReadOnlyError(plan.blocked)
            if not plan.sent:
                attempt.refused("nothing to elect", skipped=len(plan.skipped))
                _say(args, "Nothing to elect.")
                if args.json:
                    print(json.dumps({"elected": [], **plan.to_json()}))
                return 0
            _confirm(args, str(len(plan.sent)), "the number of partitions", "elect their preferred leaders", attempt)
            outcome = ops.apply_preferred(plan)
            errors = {f"{t}-{p}": e for (t, p), e in outcome.items() if e is not None}
            attempt.applied(
                f"preferred election sent for {len(plan.sent)} partition(s)",
                before=before,
                errors=errors,
                via=plan.via,
                path=plan.via_reason,
            )
        _say(args, f"Preferred leader election sent for {len(plan.sent)} partition(s) via {plan.via}.")
        for name, error in errors.items():
            print(f"kzc: {name}: {error}", file=sys.stderr)
        if not args.wait:
            if args.json:
                print(json.dumps({"sent": [c.to_json() for c in plan.sent], "errors": errors}))
            return 0

        def show(candidates: list[Candidate]) -> None:
            done = sum(1 for c in candidates if c.skipped is not None)
            _say(args, f"{done}/{len(candidates)} settled")

        try:
            settled = ops.wait_preferred(plan, timeout, show)
        except ElectionTimeout as exc:
            if args.json:
                print(json.dumps({"sent": [c.to_json() for c in plan.sent], "errors": errors, "error": str(exc)}))
            print(f"kzc: {exc}", file=sys.stderr)
            return 1
    for candidate in settled:
        if candidate.skipped and not candidate.skipped.startswith("the preferred replica already"):
            _say(args, f"{candidate.topic}-{candidate.partition}: not elected: {candidate.skipped}")
    if args.json:
        print(
            json.dumps({"sent": [c.to_json() for c in plan.sent], "errors": errors, "result": candidates_json(settled)})
        )
    return 0


def _unclean(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    audit = AuditLog(cluster_name(settings))
    raw = {"topic": args.topic, "partition": args.partition, "dry_run": args.dry_run}
    with audit.attempt("elect unclean", raw) as attempt:
        partition = _int("--partition", args.partition)
        with open_election_ops(settings, audit=audit) as ops:
            plan = ops.plan_unclean(args.topic, partition)
            if args.json:
                cluster = cluster_json(settings, audit.cluster_id)
                print(json.dumps({"dry_run": args.dry_run, "cluster": cluster, **plan.to_json()}))
            else:
                print(cluster_banner(settings, audit.cluster_id))
                print("\n".join(plan.describe()))
            if args.dry_run:
                attempt.dry_run("risk shown, nothing sent", before=plan.to_json())
                return 0
            if plan.blocked:
                raise ReadOnlyError(plan.blocked)
            # Always typed, even with a terminal-less caller: this loses data (no --yes on purpose).
            _confirm(argparse.Namespace(yes=False), plan.confirmation, "the partition", "elect unclean", attempt)
            error = ops.apply_unclean(plan)
            if error is not None:
                raise KzcError(f"the brokers did not elect a leader for {plan.confirmation}: {error}")
            attempt.applied(f"unclean election sent for {plan.confirmation}", before=plan.to_json())
    _say(args, f"Unclean leader election sent for {plan.confirmation}.")
    return 0


def _confirm(args: argparse.Namespace, expected: str, what: str, verb: str, attempt: Attempt) -> None:
    confirm(attempt, args.yes, expected, what, verb, yes_allowed=verb != "elect unclean")


def _int(option: str, text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(f"{option} takes an integer, got '{text}'") from None


def _say(args: argparse.Namespace, text: str) -> None:
    print(text, file=sys.stderr if getattr(args, "json", False) else sys.stdout)
