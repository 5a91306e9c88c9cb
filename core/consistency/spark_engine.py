"""The Spark engine, console side: a long-lived worker process that holds the SparkSession.

The console's process never hosts the JVM. ``SparkEngine.start()`` spawns
``python -m core.consistency.spark_worker`` and returns at once; the worker starts Spark (``local[*]`` by
default, any ``--spark-master``, or Spark Connect with ``sc://host:port``) while the caller goes on, says
it is ready as soon as the session is up, then warms it up with synthetic runs in the background (a real
run that arrives first interrupts the warm-up rather than wait for it). ``run`` hands it a snapshot file
(``run_many`` several, one per cluster, checked in one job) and gets findings back over a pipe (one JSON
object per line each way); the session stays warm for the next run until ``close``. The worker's own
output (Spark's logs) goes to a log file, named in every error.

pyspark is never imported here: only the worker process imports it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from core.config import DEFAULT_SPARK_MASTER
from core.consistency.checks import EVIDENCE
from core.consistency.findings import Finding, make_finding
from core.consistency.params import CheckParams
from core.errors import KzcError, MissingToolError

START_TIMEOUT = 300.0

ProgressEvent = Callable[[str, tuple[str, ...]], None]
"""Called with ("load", ()) when the data is loaded and ("checks", ids) as passes finish these checks."""
StepEvent = Callable[[int, str], None]
"""Called with (steps done, the step starting) as each step of the load starts (``spark_frames.load_steps``)."""


class SparkEngineError(KzcError):
    """The Spark worker could not start or a Spark job failed; the message names the log file."""

    exit_code = 2


@dataclass(frozen=True)
class SparkSettings:
    """Where Spark runs.

    ``master`` is any Spark master URL (``local[*]``, ``spark://host:7077``, ``yarn``, ``k8s://...``) or a
    Spark Connect URL (``sc://host:15002``), which makes the worker a Spark Connect client. ``stage_dir``
    is a directory every executor can read (``file://``, ``hdfs://``, ``s3a://``): the snapshot is copied
    there and converted to Parquet before the checks, which a remote cluster needs because it cannot read
    the console's local files.
    """

    master: str = DEFAULT_SPARK_MASTER
    stage_dir: str | None = None
    conf: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_connect(self) -> bool:
        """Whether ``master`` is a Spark Connect URL."""
        return self.master.startswith("sc://")


@dataclass(frozen=True)
class RunInput:
    """One cluster of a job: its snapshot file, its brokers' metadata file, the checks and their params."""

    snapshot_file: Path
    served_file: Path | None
    params: CheckParams
    checks: Sequence[str]

    def to_json(self) -> dict[str, Any]:
        """The input as the worker reads it (``spark_job.JobInput``)."""
        return {
            "snapshot": str(self.snapshot_file.resolve()),
            "served": str(self.served_file.resolve()) if self.served_file else None,
            "checks": list(self.checks),
            "params": self.params.to_json(),
        }


@dataclass(frozen=True)
class SparkRun:
    """What one Spark job returned: findings, partitions checked and the worker's timings (seconds)."""

    findings: list[Finding]
    partitions: int
    timings: dict[str, float]


def _send_stop(proc: subprocess.Popen[str]) -> None:
    """Tell the worker to stop Spark and end (and close its stdin: it also ends on that)."""
    if proc.stdin is not None:
        proc.stdin.write(json.dumps({"op": "stop"}) + "\n")
        proc.stdin.flush()
        proc.stdin.close()


class SparkEngine:
    """A warm Spark worker for check runs; one job at a time (``run`` serialises callers)."""

    def __init__(self, settings: SparkSettings | None = None, log_path: Path | None = None) -> None:
        self.settings = settings or SparkSettings()
        self.log_path = log_path or Path(tempfile.gettempdir()) / f"kzc-spark-{os.getpid()}-{id(self):x}.log"
        self._proc: subprocess.Popen[str] | None = None
        self._events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._lock = threading.Lock()
        self._next_id = 0
        self._ready: dict[str, Any] | None = None
        self._failed: str | None = None
        self._jobs = 0  # jobs in flight (``run_many``): ``release`` leaves those to the caller
        self.start_seconds: float | None = None

    # ---- lifecycle -----------------------------------------------------------------------------------

    def start(self) -> None:
        """Spawn the worker and ask it to start Spark and warm up; returns immediately.

        Raises:
            MissingToolError: ``java`` is not installed (not needed for Spark Connect).
        """
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                return
            if not self.settings.is_connect and shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
                raise MissingToolError("Spark needs Java 17: install a JDK (java on PATH), or use --engine local")
            self._ready = None
            self._failed = None
            self._events = queue.Queue()
            log = self.log_path.open("ab")
            env = dict(os.environ)
            env.setdefault("PYSPARK_PYTHON", sys.executable)
            env.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
            env.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
            env["PYTHONUNBUFFERED"] = "1"
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "core.consistency.spark_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                env=env,
                start_new_session=True,  # Ctrl-C in the console is the console's, not Spark's
            )
            log.close()
            stdout = self._proc.stdout
            assert stdout is not None
            threading.Thread(target=self._pump, args=(stdout, self._events), daemon=True, name="kzc-spark").start()
            self.start_seconds = None
            self._started_at = time.monotonic()
            self._send({"op": "start", "master": self.settings.master, "conf": dict(self.settings.conf)})

    @property
    def pid(self) -> int | None:
        """The worker process's id while it runs (Spark's JVM is a child of it), for resource accounting."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    @property
    def started(self) -> bool:
        """Whether the worker process runs."""
        return self._proc is not None and self._proc.poll() is None

    @property
    def ready(self) -> bool:
        """Whether Spark is up (``wait_ready`` would return at once); never waits."""
        # The worker's "ready" may sit in the queue: nobody reads it before a run or wait_ready.
        if self._ready is None and self._failed is None and self._lock.acquire(blocking=False):
            try:
                while self._ready is None and self._failed is None:
                    event = self._events.get_nowait()
                    if event.get("event") == "exited":
                        self._failed = f"the Spark worker exited unexpectedly ({self._log_tail()})"
                    else:
                        self._handle(event)
            except queue.Empty:
                pass
            finally:
                self._lock.release()
        return self.started and self._ready is not None

    def wait_ready(self, timeout: float = START_TIMEOUT) -> float:
        """Block until Spark's session is up; return how long start-up took (seconds).

        Raises:
            SparkEngineError: Spark did not start (the message says why and names the log file).
        """
        if self._ready is None and self._failed is None:
            self.start()
        with self._lock:
            deadline = time.monotonic() + timeout
            while self._ready is None and self._failed is None:
                self._handle(self._next_event(deadline, "Spark to start"))
            if self._failed is not None:
                raise SparkEngineError(self._failed)
            return float(self._ready.get("seconds", 0.0)) if self._ready else 0.0

    def close(self) -> None:
        """Stop Spark and the worker (idempotent)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                _send_stop(proc)
            proc.wait(timeout=60)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait(timeout=10)

    def release(self) -> bool:
        """Leave the worker to stop by itself, without waiting for it (a console quitting): a worker with Spark up
        is sent the stop and its stdin closed, and ends Spark cleanly on its own; one still starting Spark is sent
        SIGTERM with its JVM (it would finish starting before it read the stop). Returns False, doing nothing,
        while a job runs: how long that may take is the caller's choice (``close``, or a kill)."""
        if self._jobs:
            return False
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return True
        if self._ready is not None or self.ready:
            with contextlib.suppress(OSError, ValueError):
                _send_stop(proc)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM)  # its own session: the JVM is in the group; its hooks clean up
        return True

    def __enter__(self) -> SparkEngine:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- jobs ----------------------------------------------------------------------------------------

    def run(
        self,
        snapshot_file: Path,
        served_file: Path | None,
        params: CheckParams,
        checks: Sequence[str],
        on_event: ProgressEvent | None = None,
        timeout: float = 3600.0,
        on_step: StepEvent | None = None,
    ) -> SparkRun:
        """Run ``checks`` on ``snapshot_file`` (and the brokers' metadata in ``served_file``): ``run_many``
        with one input.

        Raises:
            SparkEngineError: the worker died or the Spark job failed.
        """
        return self.run_many([RunInput(snapshot_file, served_file, params, checks)], on_event, timeout, on_step)[0]

    def run_many(
        self,
        inputs: Sequence[RunInput],
        on_event: ProgressEvent | None = None,
        timeout: float = 3600.0,
        on_step: StepEvent | None = None,
    ) -> list[SparkRun]:
        """Run each input's checks in one Spark job (a fleet's clusters; their findings kept apart, one
        ``SparkRun`` per input, in order, each with the job's timings); ``on_event`` hears the load's end and
        the checks as they finish over every input, ``on_step`` each step of the load as it starts.

        Raises:
            SparkEngineError: the worker died or the Spark job failed.
        """
        self.wait_ready()
        with self._lock, self._job():
            job = self._send(
                {"op": "run", "inputs": [one.to_json() for one in inputs], "stage_dir": self.settings.stage_dir}
            )
            deadline = time.monotonic() + timeout
            findings: list[list[Finding]] = [[] for _ in inputs]
            while True:
                event = self._next_event(deadline, "the Spark job")
                if event.get("id") != job:
                    self._handle(event)
                    continue
                kind = event.get("event")
                if kind == "progress" and on_event is not None:
                    on_event(str(event["stage"]), tuple(event.get("checks", ())))
                elif kind == "step" and on_step is not None:
                    on_step(int(event["done"]), str(event["step"]))
                elif kind == "findings":
                    for cluster, *row in event["rows"]:
                        findings[cluster].append(_finding(row))
                elif kind == "done":
                    timings = dict(event["timings"])
                    return [
                        SparkRun(found, int(partitions), dict(timings))
                        for found, partitions in zip(findings, event["partitions"], strict=True)
                    ]
                elif kind == "error":
                    raise SparkEngineError(f"the Spark job failed: {event['message']} (Spark log: {self.log_path})")

    # ---- plumbing ------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _job(self) -> Iterator[None]:
        self._jobs += 1  # under ``_lock``: one job at a time
        try:
            yield
        finally:
            self._jobs -= 1

    def _send(self, request: dict[str, Any]) -> int:
        self._next_id += 1
        request["id"] = self._next_id
        proc = self._proc
        if proc is None or proc.stdin is None:
            raise SparkEngineError("the Spark worker is not running")
        try:
            proc.stdin.write(json.dumps(request) + "\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise SparkEngineError(f"the Spark worker has exited ({self._log_tail()})") from exc
        return self._next_id

    def _next_event(self, deadline: float, what: str) -> dict[str, Any]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise SparkEngineError(f"timed out waiting for {what} (Spark log: {self.log_path})")
        try:
            event = self._events.get(timeout=remaining)
        except queue.Empty:
            raise SparkEngineError(f"timed out waiting for {what} (Spark log: {self.log_path})") from None
        if event.get("event") == "exited":
            self._failed = f"the Spark worker exited unexpectedly ({self._log_tail()})"
            raise SparkEngineError(self._failed)
        return event

    def _handle(self, event: dict[str, Any]) -> None:
        if event.get("event") == "ready":
            self._ready = event
            self.start_seconds = float(event["_at"]) - self._started_at  # when it came, not when it was read
        elif event.get("event") == "start_failed":
            self._failed = f"Spark did not start: {event.get('message')} (Spark log: {self.log_path})"

    @staticmethod
    def _pump(stdout: IO[str], events: queue.Queue[dict[str, Any]]) -> None:
        # Runs on its own thread: only parses lines and queues them.
        for line in stdout:
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            event["_at"] = time.monotonic()
            events.put(event)
        events.put({"event": "exited"})

    def _log_tail(self, lines: int = 5) -> str:
        try:
            tail = self.log_path.read_text(errors="replace").strip().splitlines()[-lines:]
        except OSError:
            tail = []
        last = " | ".join(line.strip() for line in tail if line.strip())
        return f"last lines of {self.log_path}: {last}" if last else f"log: {self.log_path}"


def _finding(row: list[Any]) -> Finding:
    check, topic, partition, broker, path, evidence = row
    # The one place the Spark side's JSON evidence becomes the check's typed record.
    record = EVIDENCE[check].from_json(json.loads(evidence))
    return make_finding(record, path, topic=topic, partition=partition, broker=broker)


def checks_arg(only: Collection[str] | None) -> list[str] | None:
    """``only`` as a JSON-able list (None: every check)."""
    return None if only is None else sorted(only)
