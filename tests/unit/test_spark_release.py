"""A quitting console leaves an idle Spark worker to stop by itself (``SparkEngine.release``): it does not wait
for Spark to shut down, and the worker still ends, cleanly when Spark is up, by SIGTERM while it starts.

The worker here is a stand-in process that speaks the protocol's end (no JVM in this tier): it notes every line
it reads and how it ended, in its own session as the real worker is.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.consistency.spark_engine import SparkEngine
from core.console.checks import CheckEngines
from core.polling import wait_until

# Reads requests until a stop or the end of stdin; then, "stopping Spark", either stays until it is killed or
# ends at once.
WORKER = """
import pathlib, signal, sys
notes = pathlib.Path(sys.argv[1])
for line in sys.stdin:
    notes.write_text(notes.read_text() + line)
    if '"stop"' in line:
        break
if sys.argv[2] == "stays":
    signal.pause()
notes.write_text(notes.read_text() + "ended\\n")
"""


def _worker(tmp_path: Path, stays: bool) -> tuple[subprocess.Popen[str], Path]:
    notes = tmp_path / "notes"
    notes.write_text("")
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKER, str(notes), "stays" if stays else "ends"],
        stdin=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    return proc, notes


def _engine(proc: subprocess.Popen[str], *, ready: bool) -> SparkEngine:
    engine = SparkEngine()
    engine._proc = proc
    engine._ready = {"event": "ready"} if ready else None
    return engine


def test_an_idle_worker_with_spark_up_is_sent_the_stop_and_ends_by_itself_without_being_waited_for(
    tmp_path: Path,
) -> None:
    proc, notes = _worker(tmp_path, stays=True)  # "stopping Spark" until killed
    try:
        assert _engine(proc, ready=True).release() is True
        assert proc.poll() is None  # released, not waited for: it is still stopping
        wait_until(lambda: '"op": "stop"' in notes.read_text(), 30, "the worker to read the stop")
    finally:
        proc.kill()
        proc.wait()


def test_a_released_worker_exits_on_its_own(tmp_path: Path) -> None:
    proc, notes = _worker(tmp_path, stays=False)
    assert _engine(proc, ready=True).release() is True
    assert proc.wait(timeout=30) == 0
    assert notes.read_text().endswith("ended\n")


def test_a_worker_still_starting_spark_is_ended_by_sigterm(tmp_path: Path) -> None:
    proc, _ = _worker(tmp_path, stays=False)
    assert _engine(proc, ready=False).release() is True
    assert proc.wait(timeout=30) == -signal.SIGTERM


def test_a_worker_running_a_job_is_left_to_the_caller(tmp_path: Path) -> None:
    proc, notes = _worker(tmp_path, stays=False)
    engine = _engine(proc, ready=True)
    try:
        with engine._lock, engine._job():
            assert engine.release() is False
        assert proc.poll() is None and notes.read_text() == ""
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("running_job", [False, True], ids=["idle", "running a job"])
def test_quitting_kills_only_a_worker_busy_past_the_wait(tmp_path: Path, running_job: bool) -> None:
    proc, notes = _worker(tmp_path, stays=True)
    engine = _engine(proc, ready=True)
    engines = CheckEngines()
    engines._spark = engine
    try:
        if running_job:
            engine._jobs = 1  # a check run in flight: the worker reads no stop before the job ends
        engines.close(wait_s=0.5)
        if running_job:
            assert proc.wait(timeout=30) == -signal.SIGKILL
        else:
            wait_until(lambda: '"op": "stop"' in notes.read_text(), 30, "the worker to read the stop")
            assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
