"""The cluster's health sets as ``kzc watch`` follows them: the offline, under-replicated and under-min-ISR
partitions of one snapshot (``core.snapshot.health.assess``), and the ``HealthChanged`` event between two.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.kafka.topic_partition import TopicPartition
from core.live.events import HealthChanged
from core.snapshot.health import HealthReport

HEALTH_SETS = ("offline", "under_replicated", "under_min_isr")


@dataclass(frozen=True, slots=True)
class HealthSets:
    """The partitions in each health set of one snapshot (``core.snapshot.health.assess``)."""

    offline: frozenset[TopicPartition]
    under_replicated: frozenset[TopicPartition]
    under_min_isr: frozenset[TopicPartition]

    @classmethod
    def of(cls, report: HealthReport) -> HealthSets:
        """The sets of ``report``."""
        return cls(
            frozenset((o.topic, o.partition) for o in report.offline),
            frozenset((u.topic, u.partition) for u in report.under_replicated),
            frozenset((u.topic, u.partition) for u in report.under_min_isr),
        )

    def get(self, name: str) -> frozenset[TopicPartition]:
        """The set called ``name`` (one of ``HEALTH_SETS``)."""
        value: frozenset[TopicPartition] = getattr(self, name)
        return value


EMPTY_HEALTH = HealthSets(frozenset(), frozenset(), frozenset())


def health_changed(before: HealthSets, after: HealthSets) -> HealthChanged | None:
    """The ``HealthChanged`` event from ``before`` to ``after``, or None when no set changed."""
    entered = []
    left = []
    for name in HEALTH_SETS:
        old, new = before.get(name), after.get(name)
        if new - old:
            entered.append((name, tuple(sorted(new - old))))
        if old - new:
            left.append((name, tuple(sorted(old - new))))
    if not entered and not left:
        return None
    return HealthChanged(
        len(after.offline), len(after.under_replicated), len(after.under_min_isr), tuple(entered), tuple(left)
    )
