"""How a change command shows its plan before anything is written: one JSON object for ``--json --dry-run``,
else the cluster banner, the plan's own lines and, for a dry run, the writes it would make."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any, Protocol

from core.config import ConnectionSettings, cluster_banner, cluster_json
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
