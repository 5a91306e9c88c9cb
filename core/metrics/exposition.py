"""One broker's exposition text, parsed with ``prometheus_client``'s own parser, and the Kafka figures kzc reads
from it.

Names are those of the Prometheus JMX exporter's example Kafka rules (lowercased ``kafka_<domain>_<type>_<name>``,
the sandbox's rules in ``core/sandbox/metrics.py``): a JMX meter ``...PerSec`` is its count
``..._total`` (``PerSec`` dropped) and, where the rules export it, its one-minute rate ``..._oneminuterate``; a
histogram's percentiles carry a ``quantile`` label; a gauge is its value. Older exporters write a counter
rule named ``..._count`` without the ``_total`` suffix: both spellings are read.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from prometheus_client.parser import text_string_to_metric_families

from core.errors import KzcError

_BROKER_TOPIC = "kafka_server_brokertopicmetrics_"
# The meters kzc reads, by what they count: the name of their count without _total.
METERS = {
    "bytes_in": _BROKER_TOPIC + "bytesin",
    "bytes_out": _BROKER_TOPIC + "bytesout",
    "messages_in": _BROKER_TOPIC + "messagesin",
    "isr_shrinks": "kafka_server_replicamanager_isrshrinks",
    "isr_expands": "kafka_server_replicamanager_isrexpands",
}
TOPIC_METERS = ("bytes_in", "bytes_out", "messages_in")  # also per topic (label ``topic``)
# RequestHandlerAvgIdlePercent is a meter marked with each handler's idle nanoseconds over the handler count:
# its count is idle nanoseconds, its rates the idle fraction.
_IDLE = "kafka_server_kafkarequesthandlerpool_requesthandleravgidlepercent"
_IDLE_MEAN = "kafka_server_kafkarequesthandlerpool_requesthandleravgidle_percent"
_NETWORK_IDLE = "kafka_network_socketserver_networkprocessoravgidlepercent"  # a gauge, the idle fraction
_TOTAL_TIME = "kafka_network_requestmetrics_totaltimems"  # a histogram per request type, in ms
_URP = "kafka_server_replicamanager_underreplicatedpartitions"
REQUESTS = {"produce": "Produce", "fetch": "FetchConsumer"}  # RequestMetrics' request label of each p99
_READ = (*METERS.values(), _IDLE, _IDLE_MEAN, _NETWORK_IDLE, _TOTAL_TIME, _URP)
MAX_BYTES = 128 * 1024 * 1024  # a bound on memory: per-partition gauges of 50k partitions make tens of MiB


class MetricsFormatError(KzcError):
    """The answer is not a Kafka broker's Prometheus metrics; ``str()`` says what it is instead."""


@dataclass(frozen=True)
class Meter:
    """A JMX meter as exported: its count and one-minute rate (None where the rules do not export them)."""

    count: float | None
    one_minute: float | None


@dataclass(frozen=True)
class Exposition:
    """The Kafka figures of one scrape (None: not in the answer, or NaN)."""

    meters: dict[str, Meter]  # by the keys of METERS
    topics: dict[str, dict[str, Meter]]  # topic -> the TOPIC_METERS
    request_idle: Meter  # count in idle nanoseconds per handler, one-minute rate as a fraction
    request_idle_mean: float | None  # the meter's mean rate since the broker started (the example rules' only one)
    network_idle: float | None  # fraction
    p99_ms: dict[str, float | None]  # by the keys of REQUESTS
    under_replicated: int | None


def parse_exposition(text: str) -> Exposition:
    """The Kafka figures of a scrape's text.

    Raises:
        MetricsFormatError: HTML, text the parser refuses, or no Kafka broker metrics in it.
    """
    head = text.lstrip()[:200].lower()
    if head.startswith(("<!doctype", "<html", "<?xml", "<")):
        raise MetricsFormatError("answers HTML, not Prometheus metrics (is the URL the exporter's /metrics?)")
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float] = {}
    try:
        for family in text_string_to_metric_families(_read_lines(text)):
            for sample in family.samples:
                samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise MetricsFormatError(f"not the Prometheus text format ({_first_line(exc)})") from None
    if not any(name.startswith(_BROKER_TOPIC) for name, _ in samples):
        raise MetricsFormatError(
            f"no Kafka broker metrics in the answer (no {_BROKER_TOPIC}*): is it a broker's JMX exporter with "
            "Kafka rules?"
        )

    def value(names: Iterable[str], **labels: str) -> float | None:
        key = frozenset(labels.items())
        for name in names:
            found = samples.get((name, key))
            if found is not None and not math.isnan(found):
                return found
        return None

    def meter(base: str, **labels: str) -> Meter:
        return Meter(value((base + "_total", base), **labels), value((base + "_oneminuterate",), **labels))

    topics = sorted({dict(labels)["topic"] for name, labels in samples if name.startswith(_BROKER_TOPIC)
                     and len(labels) == 1 and dict(labels).get("topic")})  # fmt: skip
    urp = value((_URP,))
    return Exposition(
        meters={key: meter(base) for key, base in METERS.items()},
        topics={t: {key: meter(METERS[key], topic=t) for key in TOPIC_METERS} for t in topics},
        request_idle=Meter(value((_IDLE + "_count_total", _IDLE + "_count")), value((_IDLE + "_oneminuterate",))),
        request_idle_mean=value((_IDLE_MEAN,)),
        network_idle=value((_NETWORK_IDLE,)),
        p99_ms={key: value((_TOTAL_TIME,), request=request, quantile="0.99") for key, request in REQUESTS.items()},
        under_replicated=int(urp) if urp is not None else None,
    )


def _read_lines(text: str) -> str:
    """The lines of the metrics kzc reads (samples and their ``# HELP``/``# TYPE``): a broker's answer holds
    far more (per-partition log gauges, every request type, the JVM), and the parser costs about 100 µs a
    line (benchmarks/README.md), a name's prefix test a fraction of one."""
    kept = []
    for line in text.splitlines():
        name = line.split(None, 3)[2] if line.startswith("#") and line.count(" ") >= 2 else line
        if name.startswith(_READ):
            kept.append(line)
    return "\n".join(kept) + "\n"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0][:120] if text else type(exc).__name__) or type(exc).__name__
