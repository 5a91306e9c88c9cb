"""What the console's fix screens need from core: the ``MoveOffActions`` capability and its real backend.

The move-off screen receives a ``MoveOffActions`` when it is built; ``ReassignActions`` implements it on a
ZooKeeper session (and an AdminClient when there is one) through ``core.reassign.ops``, so the console and
``kzc reassign`` plan, write and follow exactly alike. Every apply is audited as the CLI's is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.audit import AuditLog
from core.brokers.changes import ChangeAdmin
from core.config import ConnectionSettings
from core.reassign.ops import ReassignOps
from core.reassign.plan import ReassignPlan
from core.reassign.progress import ReassignProgress
from core.zookeeper.session import ZkSession


class MoveOffActions(Protocol):
    """Plan, apply and follow "move everything off these brokers" (blocking: call from a worker)."""

    def plan_move_off(self, brokers: Sequence[int]) -> ReassignPlan:
        """The minimal-movement plan over every topic (``KzcError`` when it cannot be planned)."""
        ...

    def apply(self, plan: ReassignPlan, throttle: int | None) -> None:
        """Start exactly ``plan`` (refusals raise ``KzcError`` with the user's message)."""
        ...

    def progress(self, plan: ReassignPlan) -> ReassignProgress:
        """One look at the plan's partitions."""
        ...

    def finish(self, plan: ReassignPlan) -> list[str]:
        """Remove the throttles once every partition is done; the entities changed."""
        ...


class ReassignActions:
    """``MoveOffActions`` on a live cluster, every apply audited with the before-state."""

    def __init__(
        self, session: ZkSession, admin: ChangeAdmin | None, settings: ConnectionSettings, audit: AuditLog
    ) -> None:
        self.ops = ReassignOps(session, admin, settings, audit)
        self.audit = audit

    def plan_move_off(self, brokers: Sequence[int]) -> ReassignPlan:
        return self.ops.plan_move_off(brokers)

    def apply(self, plan: ReassignPlan, throttle: int | None) -> None:
        before = {"partitions": [m.to_json() for m in plan.moves], "metrics": plan.metrics()}
        arguments = {"move_off": list(plan.brokers), "throttle": throttle, "from": "console"}
        with self.audit.attempt("reassign apply", arguments) as attempt:
            self.ops.apply(plan, throttle)
            attempt.applied(f"started the reassignment of {len(plan.moves)} partition(s)", before=before)

    def progress(self, plan: ReassignPlan) -> ReassignProgress:
        return self.ops.progress(plan)

    def finish(self, plan: ReassignPlan) -> list[str]:
        topics = sorted({m.topic for m in plan.moves})
        with self.audit.attempt("reassign clear-throttles", {"topics": topics, "from": "console"}) as attempt:
            cleared = self.ops.clear_throttles(topics)
            attempt.applied(f"removed throttles from {len(cleared)} entities", entities=cleared)
        return cleared
