"""The tunable values the checks compare against, with Kafka's defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any

from core.snapshot.model import NOT_READ, StaticMinIsr

FIFTEEN_MINUTES_MS = 15 * 60 * 1000


@dataclass(frozen=True, slots=True)
class CheckParams:
    """Thresholds of the checks, and what ZooKeeper does not hold.

    ``min.insync.replicas`` is resolved as every surface resolves it (``core.snapshot.health``): the topic
    override, the leader's dynamic config, the cluster-wide dynamic default, then the brokers' static value,
    which is not in ZooKeeper: ``static_min_isr`` (broker id, value) as the brokers reported it through
    DescribeConfigs, else ``min_isr_given`` (the operator's ``--min-isr``), else unknown
    (``static_min_isr_reason`` says why) and no under-min-ISR finding is made for a partition with a leader.
    Flat fields so that the Spark job receives them as JSON.
    """

    min_isr_given: int | None = None
    static_min_isr: tuple[tuple[int, int], ...] = ()
    static_min_isr_reason: str = NOT_READ.reason
    imbalance_percent: int = 10  # leader.imbalance.per.broker.percentage
    notification_max_age_ms: int = FIFTEEN_MINUTES_MS  # brokers purge config changes after 15 minutes
    deletion_stuck_after_ms: int = FIFTEEN_MINUTES_MS

    def static(self) -> StaticMinIsr:
        """The brokers' static ``min.insync.replicas`` as ``core.snapshot.health`` takes it."""
        return StaticMinIsr(dict(self.static_min_isr), self.min_isr_given, self.static_min_isr_reason)

    def with_static(self, static: StaticMinIsr) -> CheckParams:
        """These params with what the brokers reported (the operator's ``min_isr_given`` is kept when set)."""
        given = self.min_isr_given if self.min_isr_given is not None else static.given
        return replace(
            self,
            min_isr_given=given,
            static_min_isr=tuple(sorted(static.by_broker.items())),
            static_min_isr_reason=static.reason,
        )

    def to_json(self) -> dict[str, Any]:
        """The params as JSON values (``from_json`` reads them back)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> CheckParams:
        """Params from ``to_json``'s output (lists back to tuples)."""
        values = dict(data)
        values["static_min_isr"] = tuple((int(b), int(v)) for b, v in values.get("static_min_isr", ()))
        return cls(**values)
