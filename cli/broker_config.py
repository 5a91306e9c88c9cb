"""``kzc config set|delete --broker ID | --broker-default``: dynamic broker configs with a preview, typed
confirmation (or ``--yes``), the read-only refusal and an audit line, over ``core.configs.broker``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from contextlib import ExitStack

from cli.plan_output import ready_to_write, show_plan
from core.audit import AuditLog
from core.config import ConnectionSettings, cluster_name
from core.configs.broker import (
    BrokerConfigOps,
    broker_planned_writes,
    entity_label,
    masked,
    parse_broker_request,
)
from core.configs.ops import open_ops


def change_broker(
    args: argparse.Namespace,
    settings: ConnectionSettings,
    entity: str,
    items: Sequence[str],
    deletes: Sequence[str],
    operation: str,
) -> int:
    """Plan, preview, confirm and apply a dynamic broker config change (``entity``: an id or ``<default>``)."""
    audit = AuditLog(cluster_name(settings))
    keys = [i.partition("=")[0] for i in items]
    raw = {
        "broker": entity,
        "set": keys,
        "delete": list(deletes),
        "via": args.via,
        "dry_run": args.dry_run,
        "yes": args.yes,
    }
    with ExitStack() as stack, audit.attempt(f"{operation} broker", raw) as attempt:
        request = parse_broker_request(entity, items, deletes)
        ops = stack.enter_context(open_ops(BrokerConfigOps, settings, audit=audit))
        plan = ops.plan(request, args.via)
        facts = ops.reader.facts()
        writes = broker_planned_writes(plan, facts) if plan.changes else ()
        show_plan(args, settings, audit.cluster_id, plan, writes)
        before = masked(dict(plan.before.config))
        verb = f"change the dynamic config of {entity_label(entity)}"
        what = "the broker id" if plan.confirmation != "default" else "the word"
        if not ready_to_write(args, attempt, plan, before, plan.confirmation, what, verb):
            return 0
        stored = ops.apply(plan)
        after = masked(dict(stored.config))
        attempt.applied(
            f"changed the dynamic config of {entity_label(entity)}",
            before=before,
            after=after,
            via=plan.via,
            path=plan.via_reason,
        )
    if args.json:
        print(json.dumps({"applied": True, **plan.to_json(), "stored": after}))
    else:
        print(f"Changed the dynamic config of {entity_label(entity)} via {plan.via}.")
    return 0
