"""``kzc groups``, ``kzc group GROUP`` and ``kzc group reset GROUP ...``: consumer groups, lag, offset resets.

``groups`` lists every group (Kafka-stored through ``--bootstrap-server``, ZooKeeper-stored under
``/consumers`` through ``--zookeeper``) with state, members, topics, total and largest partition lag;
``group GROUP`` lists its partitions. A lag the brokers did not give reads ``unknown``, never 0.
``group reset`` follows ``kafka-consumer-groups --reset-offsets`` (``core.groups.reset``): preview of old
and new offsets and the lag change, then the typed group name (or ``--yes``), audited; ``--dry-run``
stops after the preview; read-only mode refuses.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

from cli.confirmation import confirm
from cli.options import add_command
from core.audit import Attempt, AuditLog
from core.config import ConnectionSettings, cluster_banner, cluster_json, cluster_name
from core.errors import ReadOnlyError, UsageError
from core.groups.lag import GroupLag
from core.groups.ops import GroupsOverview, ResetResult, open_group_ops
from core.groups.reset import ResetPlan, ResetRequest

_SCENARIOS = (
    ("--to-earliest", None, "reset to the log-start offset"),
    ("--to-latest", None, "reset to the log-end offset"),
    ("--to-offset", "N", "reset to offset N (kept within the log, as Kafka does)"),
    ("--shift-by", "N", "move the committed offset by N (negative: back)"),
    ("--to-datetime", "ISO", "reset to the first offset at or after yyyy-MM-ddTHH:mm:ss.SSS[zone] (UTC without zone)"),
)


def register(sub: Any) -> None:
    """Declare ``kzc groups`` and ``kzc group``."""
    groups = add_command(sub, "groups")
    groups.set_defaults(handler=_groups)

    group = add_command(sub, "group")
    group.add_argument("words", nargs="+", metavar="GROUP | reset GROUP", help="the group, or 'reset' and the group")
    reset = group.add_argument_group("reset (kzc group reset GROUP --topic T[:P,...] SCENARIO)")
    reset.add_argument("--topic", action="append", metavar="T[:P,...]", help="topic (and partitions) to reset")
    scenario = reset.add_mutually_exclusive_group()
    for flag, metavar, text in _SCENARIOS:
        if metavar is None:
            scenario.add_argument(flag, action="store_true", help=text)
        else:
            scenario.add_argument(flag, metavar=metavar, help=text)
    reset.add_argument("--dry-run", action="store_true", help="show the plan; change nothing")
    reset.add_argument("--yes", action="store_true", help="do not ask for the typed confirmation")
    group.set_defaults(handler=_group)


# ---- handlers -------------------------------------------------------------------------------------------


def _groups(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    with open_group_ops(settings) as ops:
        overview = ops.overview()
    if args.json:
        print(json.dumps(overview.to_json()))
    else:
        print(render_groups(overview))
    return 0


def _group(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    words = list(args.words)
    if len(words) == 2 and words[0] == "reset":
        return _reset(args, settings, words[1])
    if len(words) != 1:
        raise UsageError("usage: kzc group GROUP, or kzc group reset GROUP --topic T SCENARIO")
    if _scenario(args) is not None or args.topic or args.dry_run or args.yes:
        raise UsageError("--topic, the reset scenarios, --dry-run and --yes go with 'kzc group reset GROUP'")
    with open_group_ops(settings) as ops:
        group = ops.describe(words[0])
    if args.json:
        print(json.dumps(group.to_json()))
    else:
        print(render_group(group))
    return 0


def _scenario(args: argparse.Namespace) -> tuple[str, str | None] | None:
    for flag, metavar, _ in _SCENARIOS:
        name = flag[2:]
        value = getattr(args, name.replace("-", "_"))
        if metavar is None and value:
            return name, None
        if metavar is not None and value is not None:
            return name, str(value)
    return None


def _reset(args: argparse.Namespace, settings: ConnectionSettings, group: str) -> int:
    audit = AuditLog(cluster_name(settings))
    chosen = _scenario(args)
    raw = {"group": group, "topics": args.topic, "scenario": chosen, "dry_run": args.dry_run, "yes": args.yes}
    with ExitStack() as stack, audit.attempt("group reset", raw) as attempt:
        if chosen is None:
            raise UsageError(
                "Option '[reset-offsets]' requires one of the following scenarios: "
                "[to-earliest, to-latest, to-offset, shift-by, to-datetime]"
            )
        if not args.topic:
            raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
        request = ResetRequest(group, tuple(args.topic), chosen[0], chosen[1])
        attempt.describe({**request.to_json(), "dry_run": args.dry_run, "yes": args.yes})
        ops = stack.enter_context(open_group_ops(settings, audit=audit))
        plan = ops.plan_reset(request)
        if _preview(args, plan, attempt, settings, audit.cluster_id):
            return 0
        _confirm(args, plan, attempt)
        result = ops.apply(plan, attempt)
    _show_result(args, result)
    return 0


def _preview(
    args: argparse.Namespace, plan: ResetPlan, attempt: Attempt, settings: ConnectionSettings, cluster_id: str | None
) -> bool:
    """Show the plan under the cluster it is for; True when this is a dry run (recorded)."""
    if args.json and args.dry_run:
        print(json.dumps({"dry_run": True, "cluster": cluster_json(settings, cluster_id), **plan.to_json()}))
    elif not args.json:
        print(cluster_banner(settings, cluster_id))
        print(render_reset_plan(plan))
    else:
        for warning in plan.warnings:
            print(f"kzc: warning: {warning}", file=sys.stderr)
    if args.dry_run:
        attempt.dry_run("plan shown, nothing written", plan=plan.to_json())
        if plan.blocked and not args.json:
            print(f"Note: this plan cannot be applied now: {plan.blocked}")
        return True
    if plan.blocked:
        raise ReadOnlyError(plan.blocked)
    return False


def _confirm(args: argparse.Namespace, plan: ResetPlan, attempt: Attempt) -> None:
    confirm(attempt, args.yes, plan.confirmation, "the group name", "reset offsets")


def _show_result(args: argparse.Namespace, result: ResetResult) -> None:
    if args.json:
        print(json.dumps(result.to_json()))
        return
    print(f"Reset {len(result.plan.rows)} offset(s) of group {result.plan.group}.")
    wrong = [(k, v) for k, v in result.committed.items() if v != result.plan.offsets.get(k)]
    for (topic, partition), offset in wrong:
        print(f"kzc: warning: {topic}-{partition} reads back {offset}, not {result.plan.offsets[(topic, partition)]}")


# ---- rendering ------------------------------------------------------------------------------------------


def lag_text(lag: int | None, at_least: int = 0, unknown: int = 0) -> str:
    """A lag for people: the number, ``unknown``, or ``≥N (k unknown)`` when part of it is known."""
    if lag is not None:
        return str(lag)
    if unknown and at_least:
        return f">={at_least} ({unknown} unknown)"
    return "unknown"


def render_groups(overview: GroupsOverview) -> str:
    """``kzc groups`` as a table."""
    header = ("GROUP", "STATE", "MEMBERS", "TOPICS", "LAG", "MAX-LAG", "SOURCE")
    rows: list[tuple[str, ...]] = [header]
    for group in overview.groups:
        totals = group.lag_total
        rows.append(
            (
                group.group,
                group.state,
                str(len(group.members)),
                ",".join(group.topics) or "-",
                "unknown" if group.error else lag_text(group.lag, totals.lag_at_least, totals.unknown),
                "-" if totals.max_lag is None else str(totals.max_lag),
                group.source,
            )
        )
    lines = _table(rows) if overview.groups else ["no consumer groups"]
    lines += [f"note: {note}" for note in overview.notes]
    lines += [f"{g.group}: {g.error}" for g in overview.groups if g.error]
    return "\n".join(lines)


def render_group(group: GroupLag) -> str:
    """``kzc group GROUP``: the group's summary and one line per partition."""
    totals = group.lag_total
    lines = [
        f"Group {group.group} ({group.source}): {group.state}, {len(group.members)} member(s)"
        + (f", protocol {group.protocol}" if group.protocol else "")
        + (f", coordinator {group.coordinator}" if group.coordinator is not None else ""),
        f"Lag: {lag_text(group.lag, totals.lag_at_least, totals.unknown)}"
        + (f" (largest partition lag {totals.max_lag})" if totals.max_lag is not None else ""),
    ]
    if group.error:
        lines.append(f"ERROR: {group.error}")
    rows: list[tuple[str, ...]] = [("TOPIC", "PARTITION", "COMMITTED", "END", "LAG", "MEMBER", "HOST", "CLIENT-ID")]
    for row in group.partitions:
        rows.append(
            (
                row.topic,
                str(row.partition),
                _dash(row.committed),
                _dash(row.end),
                "unknown" if row.unknown else _dash(row.lag),
                row.member or "-",
                row.host or "-",
                row.client_id or "-",
            )
        )
    lines += _table(rows) if group.partitions else ["no partitions (no committed offsets, no assignment)"]
    unknown = sorted({row.unknown for row in group.partitions if row.unknown})
    lines += [f"unknown: {reason}" for reason in unknown]
    lines += [f"note: {note}" for note in group.notes]
    return "\n".join(lines)


def render_reset_plan(plan: ResetPlan) -> str:
    """The reset preview: old and new offset and lag of every partition, Kafka's warnings, the lag change."""
    before, after = plan.lag_change()
    lines = [
        f"Reset offsets of group {plan.group} ({plan.state}), {plan.request.scenario}"
        + (f" {plan.request.value}" if plan.request.value is not None else "")
        + f": {len(plan.rows)} partition(s)"
    ]
    rows: list[tuple[str, ...]] = [("TOPIC", "PARTITION", "OLD-OFFSET", "NEW-OFFSET", "END", "OLD-LAG", "NEW-LAG")]
    for r in plan.rows:
        rows.append(
            (r.topic, str(r.partition), _dash(r.old), str(r.new), _dash(r.end), _dash(r.old_lag), _dash(r.new_lag))
        )
    lines += ["  " + line for line in _table(rows)]
    lines.append(f"  lag of these partitions: {_dash(before)} -> {_dash(after)}")
    lines += [f"  WARNING: {w}" for w in plan.warnings]
    if plan.blocked:
        lines.append(f"  BLOCKED: {plan.blocked}")
    return "\n".join(lines)


def _dash(value: int | None) -> str:
    return "-" if value is None else str(value)


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
