"""The assignment preview of the console's create and expand forms: exactly what a ``CreatePlan`` or
``ExpandPlan`` would write, as the grid of partitions by broker draws it (``tui/widgets/assignment_preview.py``)."""

from __future__ import annotations

from dataclasses import dataclass

from core.kafka.assignment_metrics import AssignmentMetrics
from core.topics.plan import Assignment, CreatePlan, ExpandPlan


@dataclass(frozen=True, slots=True)
class BrokerSlot:
    """A broker as the assignment preview shows it: id, rack and whether it is registered."""

    id: int
    rack: str | None
    alive: bool = True


@dataclass(frozen=True, slots=True)
class AssignmentPreview:
    """Exactly what would be written: ``assignment`` (new partitions), with ``existing`` partitions
    (shown dimmed when expanding) and the brokers, by id, that the grid has columns for. Metrics are
    ``core.kafka.assignment_metrics``'s (after the change; ``metrics_before`` when expanding)."""

    brokers: tuple[BrokerSlot, ...]
    assignment: tuple[tuple[int, tuple[int, ...]], ...]
    existing: tuple[tuple[int, tuple[int, ...]], ...] = ()
    metrics: AssignmentMetrics | None = None
    metrics_before: AssignmentMetrics | None = None
    seed: int | None = None
    manual: bool = False

    def as_dict(self) -> dict[int, list[int]]:
        """The new partitions as ``{partition: replicas}``."""
        return {p: list(r) for p, r in self.assignment}


def assignment_preview(plan: CreatePlan | ExpandPlan) -> AssignmentPreview:
    """What the console draws for a plan: the grid's brokers (registered ones, plus any id the assignment
    names that is not registered, marked not alive), the partitions and the plan's metrics."""
    new: Assignment
    existing: Assignment = ()
    before: AssignmentMetrics | None = None
    seed: int | None = None
    if isinstance(plan, CreatePlan):
        new, seed = plan.assignment, plan.seed
    else:
        new, existing, before = plan.new_assignment, plan.existing, plan.metrics_before
    known = {b: BrokerSlot(b, rack, True) for b, rack in plan.racks}
    for _, replicas in (*existing, *new):
        for broker in replicas:
            known.setdefault(broker, BrokerSlot(broker, None, False))
    brokers = tuple(known[b] for b in sorted(known))
    return AssignmentPreview(brokers, new, existing, plan.metrics, before, seed, plan.manual)
