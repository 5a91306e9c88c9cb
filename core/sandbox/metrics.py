"""The brokers' Prometheus metrics of ``kzc sandbox up --metrics``: each broker runs the Prometheus JMX exporter's
java agent (``core.sandbox.jars.ensure_exporter_jar``) on a free port of 127.0.0.1, with the rules file below,
written into the sandbox directory.

The rules name Kafka's MBeans as the exporter project's example Kafka rules do (``lowercaseOutputName``,
``kafka_<domain>_<type>_<name>``: a meter's count as ``..._total`` without its ``PerSec``, a histogram's
percentiles with a ``quantile`` label, a gauge as its value), which is what operators' exporters commonly
serve and what ``core.metrics`` reads; they add each meter's one-minute rate (``..._oneminuterate``).
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

RULES_FILE = "jmx-exporter-kafka.yml"
METRICS_PATH = "/metrics"

# Only the MBeans kzc reads are queried: all of RequestMetrics (every request type's histograms) makes one
# scrape take over a second of a loaded sandbox's CPU.
# First match wins. Meters (..PerSec) with 0-2 tags: count and one-minute rate; other meters (the request
# handlers' idle percent) as count, one-minute rate and mean rate; gauges; histograms' percentiles and counts.
RULES = r"""# Written by kzc sandbox up --metrics (core/sandbox/metrics.py).
lowercaseOutputName: true
includeObjectNames:
- kafka.server:type=BrokerTopicMetrics,*
- kafka.server:type=ReplicaManager,*
- kafka.server:type=KafkaRequestHandlerPool,*
- kafka.network:type=SocketServer,*
- kafka.network:type=RequestMetrics,name=TotalTimeMs,request=Produce
- kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchConsumer
- kafka.network:type=RequestMetrics,name=TotalTimeMs,request=FetchFollower
rules:
- pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*, (.+)=(.+), (.+)=(.+)><>Count
  name: kafka_$1_$2_$3_total
  type: COUNTER
  labels: {"$4": "$5", "$6": "$7"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*, (.+)=(.+)><>Count
  name: kafka_$1_$2_$3_total
  type: COUNTER
  labels: {"$4": "$5"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*><>Count
  name: kafka_$1_$2_$3_total
  type: COUNTER
- pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*, (.+)=(.+), (.+)=(.+)><>OneMinuteRate
  name: kafka_$1_$2_$3_oneminuterate
  type: GAUGE
  labels: {"$4": "$5", "$6": "$7"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*, (.+)=(.+)><>OneMinuteRate
  name: kafka_$1_$2_$3_oneminuterate
  type: GAUGE
  labels: {"$4": "$5"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)PerSec\w*><>OneMinuteRate
  name: kafka_$1_$2_$3_oneminuterate
  type: GAUGE
- pattern: kafka.(\w+)<type=(.+), name=(.+)><>OneMinuteRate
  name: kafka_$1_$2_$3_oneminuterate
  type: GAUGE
- pattern: kafka.(\w+)<type=(.+), name=(.+)Percent\w*><>MeanRate
  name: kafka_$1_$2_$3_percent
  type: GAUGE
- pattern: kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+), (.+)=(.+)><>Value
  name: kafka_$1_$2_$3
  type: GAUGE
  labels: {"$4": "$5", "$6": "$7"}
- pattern: kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+)><>Value
  name: kafka_$1_$2_$3
  type: GAUGE
  labels: {"$4": "$5"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)><>Value
  name: kafka_$1_$2_$3
  type: GAUGE
- pattern: kafka.(\w+)<type=(.+), name=(.+), (.+)=(.*)><>(\d+)thPercentile
  name: kafka_$1_$2_$3
  type: GAUGE
  labels: {"$4": "$5", "quantile": "0.$6"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)><>(\d+)thPercentile
  name: kafka_$1_$2_$3
  type: GAUGE
  labels: {"quantile": "0.$4"}
- pattern: kafka.(\w+)<type=(.+), name=(.+), (.+)=(.+)><>Count
  name: kafka_$1_$2_$3_count
  type: COUNTER
  labels: {"$4": "$5"}
- pattern: kafka.(\w+)<type=(.+), name=(.+)><>Count
  name: kafka_$1_$2_$3_count
  type: COUNTER
"""


def write_rules(directory: Path) -> Path:
    """Write the exporter's rules file into the sandbox directory; return its path."""
    path = directory / RULES_FILE
    path.write_text(RULES)
    return path


def metrics_url(port: int) -> str:
    """The URL a sandbox broker's exporter serves on."""
    return f"http://127.0.0.1:{port}{METRICS_PATH}"


def agent_option(jar: str, url: str, rules: str) -> str:
    """The JVM option that starts the exporter agent on ``url``'s loopback port with the rules file."""
    return f"-javaagent:{jar}=127.0.0.1:{urlsplit(url).port}:{rules}"
