"""Reading every broker's metrics once per call: each broker's URL from ``MetricsUrls`` over its registration,
all endpoints at once within the deadline (``core.metrics.scrape``), each answer parsed, and its figures from
this scrape and the broker's last good one (``core.metrics.rates``); a broker whose endpoint fails says why and
keeps no figures, the others are shown.

The broker's own under-replicated count is set beside ZooKeeper's (``under_replicated_by_leader`` of the
snapshot): a difference is worth a line (the broker's gauge and the ISRs in ZooKeeper disagree).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.config import MetricsUrls
from core.kafka.znodes import BrokerRegistration
from core.metrics.exposition import Exposition, MetricsFormatError, parse_exposition
from core.metrics.rates import Figures, figures
from core.metrics.scrape import DEFAULT_TIMEOUT, scrape_all
from core.snapshot.health import under_replicated_by_leader
from core.snapshot.model import ClusterSnapshot

NO_URL = "no metrics URL for this broker (--metrics-url or the context's metrics_url)"
NO_HOST = "its registration has no host for the metrics URL template (give it one: --metrics-url ID=URL)"


@dataclass(frozen=True)
class BrokerMetrics:
    """One broker's metrics, or why there are none (``failure``)."""

    broker: int
    url: str | None
    read_ms: int | None
    figures: Figures | None
    failure: str | None = None
    zookeeper_under_replicated: int | None = None  # what ZooKeeper's ISRs say it leads under-replicated

    @property
    def disagreement(self) -> str | None:
        """A sentence when the broker's under-replicated count and ZooKeeper's differ, else None."""
        own = self.figures.under_replicated if self.figures else None
        zk = self.zookeeper_under_replicated
        if own is None or zk is None or own == zk:
            return None
        return (
            f"broker {self.broker} counts {own} under-replicated partition(s) it leads; ZooKeeper's ISRs say {zk} "
            "(one of them has not caught up with the other yet, or the broker no longer writes its ISR changes)"
        )

    def to_json(self) -> dict[str, Any]:
        """The JSON form of ``kzc metrics``: figures per second, their source and window, or ``failure``."""
        data: dict[str, Any] = {
            "broker": self.broker,
            "url": self.url,
            "read_ms": self.read_ms,
            "failure": self.failure,
        }
        f = self.figures
        data.update(
            {
                **{f"{key}_per_s": f.rates[key].to_json() if f else None for key in _RATES},
                "produce_p99_ms": f.p99_ms["produce"] if f else None,
                "fetch_p99_ms": f.p99_ms["fetch"] if f else None,
                "request_handler_idle_pct": f.request_idle_pct.to_json() if f else None,
                "network_processor_idle_pct": f.network_idle_pct if f else None,
                "under_replicated": f.under_replicated if f else None,
                "zookeeper_under_replicated": self.zookeeper_under_replicated,
                "disagreement": self.disagreement,
                "restarted": f.restarted if f else None,
                "topics": {
                    topic: {f"{key}_per_s": rate.to_json() for key, rate in rates.items()}
                    for topic, rates in sorted(f.topics.items())
                }
                if f
                else {},
            }
        )
        return data


_RATES = ("bytes_in", "bytes_out", "messages_in", "isr_shrinks", "isr_expands")


def bytes_out_total(brokers: Sequence[BrokerMetrics]) -> tuple[float | None, str | None]:
    """The cluster's bytes out per second: the sum of every broker's ``BytesOutPerSec`` rate, or (None, why) as
    soon as one broker's is unknown (never a partial sum)."""
    total = 0.0
    for b in brokers:
        if b.figures is None:
            return None, f"broker {b.broker}'s metrics: {b.failure}"
        out = b.figures.rates["bytes_out"]
        if out.value is None:
            return None, f"broker {b.broker}: {out.why}"
        total += out.value
    return (total, None) if brokers else (None, "no broker to read")


def broker_hosts(snapshot: ClusterSnapshot) -> dict[int, str | None]:
    """Each registered broker's host for a ``{host}`` template: its registration's host (the PLAINTEXT
    listener's), else its first listener with a host; None when it has none (or is unreadable)."""
    hosts: dict[int, str | None] = {}
    for broker_id, entry in snapshot.brokers.items():
        reg = entry.registration
        host = None
        if isinstance(reg, BrokerRegistration):
            host = reg.host or next((e.host for e in reg.endpoints if e.host), None)
        hosts[broker_id] = host
    return hosts


class MetricsReader:
    """Reads the brokers' metrics; keeps each broker's last good scrape, so that the next read's rates are count
    deltas over the time between the two (thread-safe: one read at a time)."""

    def __init__(self, urls: MetricsUrls, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.urls = urls
        self.timeout = timeout
        self._last: dict[int, tuple[str, Exposition, int]] = {}  # url, scrape, monotonic ms
        self._lock = threading.Lock()

    def read(self, snapshot: ClusterSnapshot, only: int | None = None) -> tuple[BrokerMetrics, ...]:
        """Every registered broker's metrics (and any broker given its own URL), or only broker ``only``'s."""
        hosts = broker_hosts(snapshot)
        for broker_id, _url in self.urls.brokers:
            hosts.setdefault(broker_id, None)
        if only is not None:
            hosts = {only: hosts.get(only)}
        urls = {b: self.urls.url(b, h) for b, h in sorted(hosts.items())}
        zk = under_replicated_by_leader(snapshot)
        with self._lock:
            scraped = scrape_all({b: u for b, u in urls.items() if u is not None}, self.timeout)
            out = []
            for broker_id, url in urls.items():
                zk_urp = zk.get(broker_id)
                if url is None:
                    why = NO_HOST if self.urls.template and hosts.get(broker_id) is None else NO_URL
                    out.append(BrokerMetrics(broker_id, None, None, None, why, zk_urp))
                    continue
                got = scraped[broker_id]
                try:
                    if got.text is None:
                        raise MetricsFormatError(got.failure or "no answer")
                    exposition = parse_exposition(got.text)
                except MetricsFormatError as exc:
                    out.append(BrokerMetrics(broker_id, url, got.wall_ms, None, str(exc), zk_urp))
                    continue
                before = self._last.get(broker_id)
                previous = before[1] if before and before[0] == url else None
                now_ms = int(got.monotonic * 1000)
                window = (before[2], now_ms) if previous is not None and before else None
                self._last[broker_id] = (url, exposition, now_ms)
                out.append(
                    BrokerMetrics(broker_id, url, got.wall_ms, figures(previous, exposition, window), None, zk_urp)
                )
            return tuple(out)
