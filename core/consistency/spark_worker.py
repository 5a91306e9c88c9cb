"""The Spark worker process: holds one SparkSession and runs check jobs sent over its stdin.

Run as ``python -m core.consistency.spark_worker`` by ``core.consistency.spark_engine``. Protocol: one
JSON object per line. Requests on stdin: ``{"id", "op": "start", "master", "conf"}``,
``{"id", "op": "run", "inputs": [{"snapshot", "served", "checks", "params"}, ...], "stage_dir"}`` (one input
per cluster, all checked in one job), ``{"id", "op": "stop"}``. Events on the original stdout: ``ready`` /
``start_failed`` after start; ``step`` (a step of the load starting), ``progress``, ``findings`` (chunks of
rows, each led by its input's index), ``done`` (with the partitions checked per input) or ``error`` for a
run. Anything else written to stdout (the JVM, pyspark) is sent to stderr, which the engine points at a log
file, so it cannot corrupt the protocol. The worker exits when stdin closes, so it never outlives the console.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import IO, Any

FINDINGS_CHUNK = 5000
# Spark is batch work beside an interactive console on the same few cores: below it in CPU priority, the
# JVM (which inherits it) yields to the console's keys (benchmarks/tui_responsiveness.py --checks).
NICENESS = 10


class Worker:
    """The request loop around one SparkSession."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.spark: Any = None
        self._warm: threading.Thread | None = None
        self._warm_cancel = threading.Event()

    def send(self, event: dict[str, Any]) -> None:
        self.out.write(json.dumps(event, separators=(",", ":")) + "\n")
        self.out.flush()

    def serve(self, requests: IO[str]) -> None:
        for line in requests:
            if not line.strip():
                continue
            request = json.loads(line)
            op = request.get("op")
            if op == "start":
                self.start(request)
            elif op == "run":
                self.run(request)
            elif op == "stop":
                break
        self.stop()

    def start(self, request: dict[str, Any]) -> None:
        started = time.monotonic()
        try:
            from core.spark.session import LOCAL_DEFAULTS, start_session

            master = str(request["master"])
            conf = dict(request.get("conf") or {})
            if not master.startswith("sc://"):
                conf = {**LOCAL_DEFAULTS, **conf}
            self.spark = start_session(master, conf)
        except Exception as exc:  # anything at all: the console shows it, the log has the trace
            traceback.print_exc()
            self.send({"id": request["id"], "event": "start_failed", "message": _message(exc)})
            return
        seconds = time.monotonic() - started
        self.send({"id": request["id"], "event": "ready", "seconds": seconds, "session_seconds": seconds})
        # Warm up after saying ready: a run that arrives meanwhile interrupts the warm-up instead of waiting
        # for it (a first run right after start-up is then a little slower, not a warm-up longer).
        self._warm_cancel.clear()
        self._warm = threading.Thread(target=self._warm_up, name="kzc-warm-up", daemon=True)
        self._warm.start()

    def _warm_up(self) -> None:
        from core.consistency.spark_job import warm_up

        started = time.monotonic()
        try:
            warm_up(self.spark, Path(tempfile.mkdtemp(prefix="kzc-spark-warm-")), self._warm_cancel)
        except Exception:
            if not self._warm_cancel.is_set():
                traceback.print_exc()  # a failed warm-up only costs the first run its head start
        state = "interrupted by a run" if self._warm_cancel.is_set() else "done"
        print(f"kzc: warm-up {state} after {time.monotonic() - started:.2f} s", file=sys.stderr)

    def end_warm_up(self) -> None:
        """Stop the warm-up if it still runs: cancel its next step and interrupt its Spark job in flight."""
        thread, self._warm = self._warm, None
        if thread is None:
            return
        self._warm_cancel.set()
        while thread.is_alive():
            # Every job of this session (only the warm-up's run now); Spark Connect has no SparkContext.
            with contextlib.suppress(Exception):
                self.spark.interruptAll()
            with contextlib.suppress(Exception):
                self.spark.sparkContext.cancelAllJobs()
            thread.join(0.2)

    def run(self, request: dict[str, Any]) -> None:
        job = request["id"]
        self.end_warm_up()
        if self.spark is None:
            self.send({"id": job, "event": "error", "message": "Spark is not started"})
            return
        try:
            from core.consistency.spark_job import JobRequest, run_job

            def progress(stage: str, checks: tuple[str, ...]) -> None:
                self.send({"id": job, "event": "progress", "stage": stage, "checks": list(checks)})

            def step(done: int, label: str) -> None:
                self.send({"id": job, "event": "step", "done": done, "step": label})

            result = run_job(self.spark, JobRequest.from_json(request), progress, step)
            for start in range(0, len(result.rows), FINDINGS_CHUNK):
                self.send({"id": job, "event": "findings", "rows": result.rows[start : start + FINDINGS_CHUNK]})
            self.send({"id": job, "event": "done", "partitions": result.partitions, "timings": result.timings})
        except Exception as exc:
            traceback.print_exc()
            self.send({"id": job, "event": "error", "message": _message(exc)})

    def stop(self) -> None:
        self.end_warm_up()
        if self.spark is not None:
            try:
                self.spark.stop()
            except Exception:
                traceback.print_exc()
            self.spark = None


def _message(exc: BaseException) -> str:
    # Py4J and Spark errors carry the whole Java stack trace; the first line is the useful part.
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]


def main() -> None:
    """Serve requests from stdin until it closes or a ``stop`` arrives."""
    os.nice(NICENESS)
    protocol = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)  # the JVM and any print() now write to the log, not to the protocol
    sys.stdout = sys.stderr
    Worker(protocol).serve(sys.stdin)


if __name__ == "__main__":
    main()
