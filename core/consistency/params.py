"""The tunable values the checks compare against, with Kafka's defaults."""

from __future__ import annotations

from dataclasses import dataclass

FIFTEEN_MINUTES_MS = 15 * 60 * 1000


@dataclass(frozen=True, slots=True)
class CheckParams:
    """Thresholds of the checks.

    ``min_isr_default`` applies when neither the topic (``/config/topics/<t>``) nor the cluster-wide
    dynamic default (``/config/brokers/<default>``) sets ``min.insync.replicas``: static broker configs are
    not in ZooKeeper, so give the brokers' ``server.properties`` value here (Kafka's default is 1).
    """

    min_isr_default: int = 1
    imbalance_percent: int = 10  # leader.imbalance.per.broker.percentage
    notification_max_age_ms: int = FIFTEEN_MINUTES_MS  # brokers purge config changes after 15 minutes
    deletion_stuck_after_ms: int = FIFTEEN_MINUTES_MS
