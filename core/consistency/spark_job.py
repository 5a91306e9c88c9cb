"""The check catalog as a Spark job over one snapshot file or several, one per cluster (runs inside the
Spark worker process only).

Spark reads the snapshot file itself (``spark.read.json`` with an explicit schema, see
``core.consistency.spark_frames``): no Python rows are pushed through ``createDataFrame``. The small
records are cached; the few values every row needs (live brokers, racks, controller epoch, the snapshot
time) are collected to the driver and inlined as literals; the partition rows joined with their topic's
facts are cached by the first pass that reads them, and dropped when the run ends. The catalog runs as
a few passes (``spark_checks.PASSES``), one Spark action each: the partition checks as one fused
``select`` producing an array of findings per row, aggregations per topic and per preferred leader,
and small joins for the rest. Several clusters are checked in the same actions: each cluster's frames,
facts and plans are its own, as for one, and each pass unions the clusters' plans. Findings come back
as rows ``[cluster, check, topic, partition, broker, path, evidence JSON]`` and are turned into
``Finding`` objects (severity and detail) by the same code as the local engine's.

Every pyspark import is inside a function: importing this module never loads pyspark.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core.consistency.catalog import CHECK_IDS
from core.consistency.params import CheckParams

if TYPE_CHECKING:
    from core.consistency.spark_checks import Pass

PARALLEL_PASSES = 4
# The clusters one pass plans and runs together (a job over more takes them this many at a time): each
# cluster's plan is its own, and Spark's planning of a union grew faster than its size. Measured on the
# hand-built cases: 16.5 s CPU for one alone, 11.1 per cluster for 4 together, 10.0 for 8.
CLUSTERS_PER_PASS = 8
WARM_UP_PARTITIONS = 50_000
# A snapshot file smaller than this (a few thousand partitions) is checked with what a small input needs: one
# shuffle partition, and expressions evaluated as they are rather than compiled to Java. Its rows cost
# milliseconds; compiling a run's few hundred generated classes cost seconds, and most again on the next
# snapshot (the cluster's facts are literals in them). Measured in benchmarks/README.md.
SMALL_INPUT_BYTES = 1 << 20
SMALL_INPUT_CONF = {
    "spark.sql.shuffle.partitions": "1",
    "spark.sql.codegen.wholeStage": "false",
    "spark.sql.codegen.factoryMode": "NO_CODEGEN",
}

Progress = Callable[[str, tuple[str, ...]], None]


@dataclass(frozen=True)
class JobInput:
    """One cluster of a job: its snapshot file, its brokers' metadata file, the checks and their params."""

    snapshot: str
    served: str | None
    checks: tuple[str, ...]
    params: CheckParams

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobInput:
        """The input as sent by ``SparkEngine.run_many``."""
        return cls(
            snapshot=str(data["snapshot"]),
            served=data.get("served"),
            checks=tuple(data.get("checks") or CHECK_IDS),
            params=CheckParams.from_json(data.get("params", {})),
        )


@dataclass(frozen=True)
class JobRequest:
    """What the console asks the worker to check: one cluster or several (a fleet) in one job."""

    inputs: tuple[JobInput, ...]
    stage_dir: str | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> JobRequest:
        """The request as sent by ``SparkEngine.run_many``."""
        return cls(tuple(JobInput.from_json(one) for one in data["inputs"]), data.get("stage_dir"))


@dataclass
class JobResult:
    """Finding rows ``[cluster, check, ...]`` (the cluster an index into the inputs), the number of
    partitions checked per input and timings (seconds)."""

    rows: list[list[Any]]
    partitions: list[int]
    timings: dict[str, float] = field(default_factory=dict)


def warm_up(spark: Any, scratch: Path, cancelled: threading.Event) -> None:
    """Run the whole job on synthetic snapshots so that the first real run finds Spark warm: once on a
    tiny one holding every fault (every code path), then on ``WARM_UP_PARTITIONS`` partitions, enough for
    the JVM to compile the hot loops (the JSON reader, the cache, the aggregations). It runs after the
    worker said it is ready, in the background; ``cancelled`` stops it between steps (a real run arrived:
    the worker also interrupts the job in flight). ``scratch`` is removed at the end."""
    from core.consistency.synthetic import FaultMix, write_synthetic

    try:
        for name, partitions, topics, faults in (
            ("warm-tiny.jsonl", 300, 30, FaultMix.every_fault()),
            ("warm.jsonl", WARM_UP_PARTITIONS, None, FaultMix.default()),
        ):
            if cancelled.is_set():
                return
            path = scratch / name
            if topics is None:
                write_synthetic(path, partitions=partitions, faults=faults, seed=1)
            else:
                write_synthetic(path, partitions=partitions, topics=topics, brokers=6, faults=faults, seed=1)
            if cancelled.is_set():
                return
            request = JobRequest((JobInput(str(path), None, CHECK_IDS, CheckParams()),))
            run_job(spark, request, lambda _s, _c: None)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def run_job(
    spark: Any, request: JobRequest, progress: Progress, on_step: Callable[[int, str], None] | None = None
) -> JobResult:
    """Load every input's snapshot, run the passes that produce the requested checks, return their finding
    rows, each tagged with its input's index.

    ``progress`` hears ``("load", ())`` once the first inputs are read, then ``("checks", ids)`` as passes
    finish the checks they produce; ``on_step`` hears the load's steps as they start (``load_frames``).
    Every pass runs over ``CLUSTERS_PER_PASS`` inputs at once (``spark_checks.Pass``): N clusters cost the
    passes' few actions per batch, not per cluster; a small input is not cached. Passes run a few at a
    time (``PARALLEL_PASSES``): a small pass is mostly fixed costs (planning, scheduling) that overlap
    with the others' work. The first pass that reads the partition rows runs alongside the small ones and
    caches those rows; the other partition passes start when it is done, so they never compute the cache
    twice. Each pass's time goes to the worker's log.
    """
    from core.consistency.spark_checks import check_passes
    from core.consistency.spark_frames import load_frames

    timings: dict[str, float] = {"load": 0.0, "checks": 0.0}
    rows: list[list[Any]] = []
    partitions: list[int] = []
    want = frozenset(check for one in request.inputs for check in one.checks)
    reported: set[str] = set()  # the checks the last batch's passes report as they finish
    with _sized_for(spark, [one.snapshot for one in request.inputs]) as small:
        for first in range(0, len(request.inputs), CLUSTERS_PER_PASS):
            batch = request.inputs[first : first + CLUSTERS_PER_PASS]
            started = time.monotonic()
            inputs = [(one.snapshot, one.served) for one in batch]
            frames = load_frames(spark, inputs, request.stage_dir, on_step if first == 0 else None, cache=not small)
            timings["load"] += time.monotonic() - started
            if first == 0:
                progress("load", ())
            started = time.monotonic()
            try:
                passes = check_passes(
                    [(f, one.params, frozenset(one.checks)) for f, one in zip(frames, batch, strict=True)]
                )
                last = first + CLUSTERS_PER_PASS >= len(request.inputs)
                results, pending = _run_passes(passes, progress if last else lambda _s, _c: None)
                reported = set(pending) if last else reported
            finally:
                for one in frames:
                    one.release()
            timings["checks"] += time.monotonic() - started
            rows += [[first + row[0], *row[1:]] for one in passes for row in results[one.name]]
            partitions += [f.partition_count for f in frames]
    # Those only earlier batches ran, and those no pass produced (metadata_mismatch without brokers' metadata).
    rest = tuple(sorted(want - reported))
    if rest:
        progress("checks", rest)
    return JobResult(rows, partitions, timings)


@contextmanager
def _sized_for(spark: Any, snapshots: list[str]) -> Iterator[bool]:
    """The session set for the size of ``snapshots`` while a job runs (``SMALL_INPUT_CONF`` when each is
    below ``SMALL_INPUT_BYTES``: planning and compiling cost per cluster, as the rows do), as it was set
    afterwards; yields whether they are small. One job runs at a time in the worker."""
    try:
        small = all(os.path.getsize(snapshot) < SMALL_INPUT_BYTES for snapshot in snapshots)
    except OSError:  # a URI, not a local file: sized by the session as it is
        small = False
    if not small:
        yield False
        return
    before = {key: spark.conf.get(key, None) for key in SMALL_INPUT_CONF}
    for key, value in SMALL_INPUT_CONF.items():
        spark.conf.set(key, value)
    try:
        yield True
    finally:
        for key, value in before.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)


def _run_passes(passes: list[Pass], progress: Progress) -> tuple[dict[str, list[list[Any]]], Counter[str]]:
    """Each pass's finding rows, and how many passes each check still waited for (all zero at the end)."""
    pending = Counter(check for one in passes for check in one.checks)
    readers = [one for one in passes if one.reads_partitions]
    results: dict[str, list[list[Any]]] = {}

    def run(one: Pass) -> list[list[Any]]:
        pass_started = time.monotonic()
        rows = one.rows()
        print(f"kzc: pass {one.name}: {time.monotonic() - pass_started:.2f} s, {len(rows)} findings", file=sys.stderr)
        return rows

    pool = ThreadPoolExecutor(max_workers=PARALLEL_PASSES, thread_name_prefix="kzc-pass")
    try:
        first = readers[:1] + [one for one in passes if not one.reads_partitions]
        running = {pool.submit(run, one): one for one in first}
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                one = running.pop(future)
                results[one.name] = future.result()
                if readers and one is readers[0]:
                    running.update({pool.submit(run, later): later for later in readers[1:]})
                pending.subtract(one.checks)
                finished = tuple(sorted(check for check in one.checks if pending[check] == 0))
                if finished:
                    progress("checks", finished)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return results, pending
