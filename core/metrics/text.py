"""One broker's metrics as text lines, the same on every surface (``kzc metrics``, ``kzc broker ID``, the console's
broker screen): each figure with where it comes from, or why it is unknown."""

from __future__ import annotations

from typing import Any

from core.human_size import human_size
from core.human_time import utc_text
from core.metrics.rates import COUNT_DELTA, Rate
from core.metrics.reader import BrokerMetrics


def broker_metric_lines(b: BrokerMetrics) -> list[str]:
    """One broker's metrics as lines (``kzc metrics``, ``kzc broker ID`` and the console's broker screen)."""
    head = f"Broker {b.broker} metrics ({b.url or 'no URL'})"
    if b.failure:
        return [head, f"  unavailable: {b.failure}"]
    f = b.figures
    assert f is not None
    read = f"read {utc_text(b.read_ms)}" if b.read_ms else ""
    lines = [f"{head} {read}".rstrip()]
    lines.append(f"  bytes in      {_rate(f.rates['bytes_in'], _bytes)}")
    lines.append(f"  bytes out     {_rate(f.rates['bytes_out'], _bytes)}")
    lines.append(f"  messages in   {_rate(f.rates['messages_in'], _count)}")
    lines.append(f"  produce p99   {_ms(f.p99_ms['produce'])}")
    lines.append(f"  fetch p99     {_ms(f.p99_ms['fetch'])} (consumers' fetches)")
    lines.append(
        f"  idle          request handlers {_rate(f.request_idle_pct, _pct)}; network processors "
        f"{_pct(f.network_idle_pct) if f.network_idle_pct is not None else 'unknown'}"
    )
    lines.append(
        f"  ISR           shrinks {_rate(f.rates['isr_shrinks'], _count)}; expands "
        f"{_rate(f.rates['isr_expands'], _count)}"
    )
    zk = b.zookeeper_under_replicated
    urp = str(f.under_replicated) if f.under_replicated is not None else "unknown"
    lines.append(f"  under-replicated (it leads) {urp}; ZooKeeper's ISRs: {zk if zk is not None else 'not registered'}")
    if b.disagreement:
        lines.append(f"  ! {b.disagreement}")
    if f.restarted:
        lines.append("  the broker restarted within the window: its counts began again")
    return lines


def _rate(rate: Rate, shown: Any) -> str:
    if rate.value is None:
        return f"unknown ({rate.why})"
    text = shown(rate.value)
    per = "" if shown is _pct else "/s"
    how = f"over {rate.window_s:.1f} s" if rate.source == COUNT_DELTA and rate.window_s else rate.source
    if rate.source == COUNT_DELTA and rate.value == 0:
        how = f"idle: nothing {how}"
    return f"{text}{per} ({how}{'; ' + rate.why if rate.why else ''})"


def _bytes(value: float) -> str:
    return human_size(round(value))


def _count(value: float) -> str:
    return f"{value:,.1f}"


def _pct(value: float) -> str:
    return f"{value:.1f}%"


def _ms(value: float | None) -> str:
    return f"{value:,.1f} ms" if value is not None else "unknown"
