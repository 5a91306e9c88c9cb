"""The console's adapter to ``core.consistency``: one check run with the Spark engine (a warm worker the
console keeps between runs) or the local engine, its stage progress and its report.

Stages are the pipeline's (``snapshot``, ``broker metadata``, ``load``, then ``check <id>`` for every
check); the console draws one progress bar per stage.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from core.config import DEFAULT_SPARK_MASTER, ConnectionSettings
from core.consistency.findings import CheckReport, StageProgress
from core.console.protocols import ProgressListener
from core.errors import UsageError
from core.snapshot.model import ClusterSnapshot

if TYPE_CHECKING:
    # Imported when a run starts: the console should not pay for the check engines at start-up.
    from core.consistency.spark_engine import SparkEngine, SparkSettings

ENGINES = ("spark", "local")
START_STAGE = "start Spark"  # the stage a run shows while it waits for the Spark worker to be ready


class CheckEngines:
    """The engines a console uses; the Spark worker starts on first use and stays warm until ``close``.

    Args:
        spark_master: where the Spark engine runs (``--spark-master``, a context's ``spark_master``);
            ``None`` is the default, ``local[*]``.
        stage_dir: where the snapshot is staged for a remote Spark cluster (``--stage-dir``), if anywhere.
        spark_log: the Spark worker's log file (default: a new file in the temporary directory).
    """

    def __init__(
        self, *, spark_master: str | None = None, stage_dir: str | None = None, spark_log: Path | None = None
    ) -> None:
        self._spark: SparkEngine | None = None
        self._spark_master = spark_master
        self._stage_dir = stage_dir
        self._spark_log = spark_log
        self._lock = threading.Lock()
        self.last_start_s: float | None = None  # how long the last run waited for Spark to be ready

    def warm_up(self) -> None:
        """Start the Spark worker now (returns at once; Spark starts in its own process) so that the first run
        rarely waits on a JVM. Raises ``MissingToolError`` without Java."""
        from core.consistency.spark_engine import SparkEngine

        with self._lock:
            if self._spark is None:
                self._spark = SparkEngine(self.spark_settings, log_path=self._spark_log)
            spark = self._spark
        spark.start()

    @property
    def spark_started(self) -> bool:
        """Whether a Spark worker runs (warm or busy)."""
        spark = self._spark
        return spark is not None and spark.started

    @property
    def spark_settings(self) -> SparkSettings:
        """The settings the Spark engine starts with."""
        from core.consistency.spark_engine import SparkSettings

        return SparkSettings(master=self._spark_master or DEFAULT_SPARK_MASTER, stage_dir=self._stage_dir)

    def run(
        self,
        progress: ProgressListener,
        engine: str,
        *,
        settings: ConnectionSettings | None = None,
        snapshot: ClusterSnapshot | None = None,
    ) -> CheckReport:
        """Run every check on a fresh read of the cluster (``settings``) or on ``snapshot``.

        Raises:
            UsageError: an unknown engine.
            KzcError: the run could not happen (ZooKeeper unreachable, Spark failed to start...).
        """
        if engine not in ENGINES:
            raise UsageError(f"unknown check engine '{engine}' (use {' or '.join(ENGINES)})")
        from core.consistency.pipeline import LocalEngine, SparkChecks, run_checks
        from core.consistency.spark_engine import SparkEngine

        if engine == "spark":
            with self._lock:
                if self._spark is None:
                    self._spark = SparkEngine(self.spark_settings, log_path=self._spark_log)
                spark = self._spark
            if not spark.ready:
                # The first run waits for Spark's JVM: say so, as a stage of its own with its own progress.
                progress(StageProgress(START_STAGE, 0, 1))
                started = time.monotonic()
                spark.wait_ready()
                progress(StageProgress(START_STAGE, 1, 1, True))
                self.last_start_s = time.monotonic() - started
            return run_checks(SparkChecks(spark), settings=settings, snapshot=snapshot, progress=progress)
        return run_checks(LocalEngine(), settings=settings, snapshot=snapshot, progress=progress)

    def close(self, wait_s: float | None = None) -> None:
        """Stop the Spark worker, if one was started: an idle one is left to stop by itself (``SparkEngine.release``:
        nothing waits for Spark to shut down); one running a job is waited for, with ``wait_s`` (quitting) at
        most that long, then killed (with Spark's JVM, its child in the worker's process group)."""
        with self._lock:
            spark, self._spark = self._spark, None
        if spark is None:
            return
        if spark.release():
            return  # nothing in flight: the worker ends Spark by itself, and the console need not wait for it
        if wait_s is None:
            spark.close()
            return
        pid = spark.pid
        closer = threading.Thread(target=spark.close, daemon=True, name="kzc-spark-close")
        closer.start()
        closer.join(wait_s)
        if closer.is_alive() and pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # the worker started its own session: its group is ours to end
