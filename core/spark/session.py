"""The SparkSession every Spark engine starts (the checks' worker, the history questions) and its defaults.

pyspark is imported inside the functions only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

# Spark on loopback only, small shuffles for a few cores, no UI, quiet progress bars.
LOCAL_DEFAULTS = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.sql.shuffle.partitions": "8",
    # The check job's plan is fixed (broadcast joins are chosen explicitly; shuffles carry per-topic
    # aggregates): adaptive execution only adds a re-planning round and a Spark job per exchange, which
    # measured 2-3 s slower on 1M partitions (benchmarks/checks_bench.py).
    "spark.sql.adaptive.enabled": "false",
    "spark.driver.memory": "2g",
    # Throughput over pause times for a batch job: measured about 15 % less CPU than G1 on the checks.
    "spark.driver.extraJavaOptions": "-XX:+UseParallelGC",
    # A run compiles a few hundred generated classes; Spark keeps 100, so a warm run compiled most again.
    "spark.sql.codegen.cache.maxEntries": "2000",
    "spark.sql.session.timeZone": "UTC",
    # The history questions hand Spark the store's files by name (720 for 30 days of one cluster): above
    # this many paths Spark lists them in a Spark job of one task per path, 5-15 s here against 0.5 s
    # listed by the driver (benchmarks/history_bench.py); the files are local, the driver lists them fast.
    "spark.sql.sources.parallelPartitionDiscovery.threshold": "100000",
}


def start_session(master: str, conf: dict[str, str]) -> Any:
    """A SparkSession on ``master`` (or a Spark Connect session for ``sc://``)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName("kzc-check")
    builder = builder.remote(master) if master.startswith("sc://") else builder.master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    if not master.startswith("sc://"):
        spark.sparkContext.setLogLevel("ERROR")
    return spark


@contextmanager
def session(master: str) -> Iterator[Any]:
    """A session on ``master`` for the length of a ``with`` block: ``LOCAL_DEFAULTS`` and stopped at the end,
    except a Spark Connect one (``sc://``), whose server keeps its own settings and outlives the client."""
    remote = master.startswith("sc://")
    spark = start_session(master, {} if remote else dict(LOCAL_DEFAULTS))
    try:
        yield spark
    finally:
        if not remote:
            spark.stop()
