"""What reading one broker's metrics costs kzc: its exposition text parsed into Kafka's figures
(``core.metrics.exposition.parse_exposition``), beside the baseline of ``prometheus_client``'s parser alone
walking every sample, in the same run.

The text is a broker's answer grown to T topics: the recorded 3.9.1 answer of the sandbox's rules
(tests/unit/fixtures/metrics) with every per-topic BrokerTopicMetrics line repeated for each synthetic topic,
and, as the exporter's example rules also export, the four ``kafka.log:type=Log`` gauges of 10 partitions per
topic (which kzc does not read). Median of 3 per size; every round printed.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from core.metrics.exposition import parse_exposition

FIXTURE = Path(__file__).parent.parent / "tests" / "unit" / "fixtures" / "metrics" / "kafka-3.9.1-a.prom"
TOPICS = (100, 1_000, 5_000)
_LOG_GAUGES = ("size", "logstartoffset", "logendoffset", "numlogsegments")
BROKERS = 30  # the scale: a tick reads every broker


def exposition(topics: int) -> str:
    """The recorded answer with its ``topic="orders"`` lines repeated for ``topics`` topics."""
    lines = FIXTURE.read_text().splitlines()
    per_topic = [line for line in lines if 'topic="orders"' in line]
    grown = [line.replace('topic="orders"', f'topic="t{n:05d}"') for n in range(topics) for line in per_topic]
    logs = [f"# TYPE kafka_log_log_{g} gauge" for g in _LOG_GAUGES]
    logs += [f'kafka_log_log_{g}{{partition="{p}",topic="t{n:05d}"}} 42.0'
             for g in _LOG_GAUGES for n in range(topics) for p in range(10)]  # fmt: skip
    return "\n".join(lines + grown + logs) + "\n"


def _baseline(text: str) -> int:
    return sum(len(family.samples) for family in text_string_to_metric_families(text))


def _time(call: object, text: str) -> float:
    start = time.perf_counter()
    call(text)  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    print(
        f"{'topics':>7} {'lines':>7} {'bytes':>10}  {'kzc parse (ms)':>16}  {'prometheus_client alone (ms)':>30}  "
        f"{'x' + str(BROKERS) + ' brokers, kzc (s)':>22}"
    )
    for topics in TOPICS:
        text = exposition(topics)
        kzc, base = [], []
        for _ in range(3):
            base.append(_time(_baseline, text))
            kzc.append(_time(parse_exposition, text))
        print(f"  rounds kzc {[round(t * 1000, 1) for t in kzc]} ms, baseline {[round(t * 1000, 1) for t in base]} ms")
        k, b = statistics.median(kzc), statistics.median(base)
        print(
            f"{topics:>7,} {text.count(chr(10)):>7,} {len(text):>10,}  {k * 1000:>16.1f}  {b * 1000:>30.1f}  "
            f"{k * BROKERS:>22.2f}"
        )


if __name__ == "__main__":
    main()
