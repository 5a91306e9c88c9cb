"""How a change command shows its plan before anything is written (one JSON object for ``--json --dry-run``,
else the cluster banner, the plan's own lines and, for a dry run, the writes it would make), and the one gate
a config change passes before its write (dry run, blocked, no change, typed confirmation)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, Protocol

from cli.confirmation import confirm
from core.audit import Attempt
from core.config import ConnectionSettings, cluster_banner, cluster_json
from core.errors import ReadOnlyError
from core.topics.write import PlannedWrite, describe_writes


class ShownPlan(Protocol):
    """What a config or election plan offers to be shown."""

    @property
    def via_reason(self) -> str | None: ...

    def to_json(self) -> dict[str, Any]: ...

    def describe(self) -> list[str]: ...


def show_plan(
    args: argparse.Namespace,
    settings: ConnectionSettings,
    cluster_id: str | None,
    plan: ShownPlan,
    writes: Sequence[PlannedWrite],
) -> None:
    """Print ``plan`` as ``args`` asks (nothing for ``--json`` without ``--dry-run``: the result says it all)."""
    if args.json and args.dry_run:
        cluster = cluster_json(settings, cluster_id)
        writes_json = [w.to_json() for w in writes]
        print(json.dumps({"dry_run": True, "cluster": cluster, **plan.to_json(), "writes": writes_json}))
    elif not args.json:
        print(cluster_banner(settings, cluster_id))
        print("\n".join(plan.describe()))
        if args.dry_run and writes:
            print("\n".join(describe_writes(writes, plan.via_reason)))


class GatedPlan(ShownPlan, Protocol):
    """What a config plan offers to the gate before its write."""

    @property
    def via(self) -> str: ...

    @property
    def blocked(self) -> str | None: ...

    @property
    def changes(self) -> Sequence[object]: ...


def ready_to_write(
    args: argparse.Namespace, attempt: Attempt, plan: GatedPlan, before: object, expected: str, what: str, verb: str
) -> bool:
    """The one gate before a config change is written: a dry run or no change ends here (audited, False); a
    blocked plan is refused; otherwise the typed confirmation of ``expected`` (``what`` names it) or ``--yes``
    lets ``verb`` through.

    Raises:
        ReadOnlyError: the plan is blocked (read-only mode, a migration).
        GuardError: no terminal to confirm on and no ``--yes``.
        Cancelled: the answer did not match (audited as cancelled).
    """
    if args.dry_run:
        attempt.dry_run("diff shown, nothing written", before=before, via=plan.via, path=plan.via_reason)
        return False
    if plan.blocked:
        raise ReadOnlyError(plan.blocked)
    if not plan.changes:
        attempt.refused("no change", before=before)
        return False
    confirm(attempt, args.yes, expected, what, verb)
    return True
