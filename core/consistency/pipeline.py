"""A check run from end to end: snapshot, broker metadata, load, the checks, with progress and timings.

Stages, in order (each reported through the progress callback as it starts and finishes):

- ``snapshot``: read ZooKeeper into a ``ClusterSnapshot`` (skipped when a snapshot or a file is given);
- ``broker metadata``: with ``--bootstrap-server`` on a live snapshot, what the brokers serve (for
  ``metadata_mismatch``); unreachable brokers are a note, not a failure: the checks run on ZooKeeper alone;
- ``load``: the local engine reads the snapshot file into memory (one unit); the Spark engine writes an
  in-memory snapshot to a file (``stage``), waits for Spark if it is not up yet, and Spark reads the file,
  each a step of the stage with its label (``StageProgress.step``: "starting Spark"...);
- ``check <id>``: one per check, finished when the pass that computes it completes: the local engine's
  partition pass, then its cluster pass; the Spark engine's single job, so all of them at once.

``run_checks`` raises ``KzcError`` when the run cannot happen (no ZooKeeper, unreadable file, Spark
failure); findings never raise.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
import warnings
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from core.brokers.metadata import ServedMetadata, fetch_served_metadata, write_served_file
from core.config import ConnectionSettings
from core.consistency.catalog import BY_ID, selected
from core.consistency.findings import CheckReport, Finding, StageProgress
from core.consistency.local_engine import run_local
from core.consistency.params import CheckParams
from core.consistency.spark_engine import RunInput, SparkEngine
from core.consistency.spark_frames import load_steps
from core.errors import KzcError, UsageError
from core.snapshot.kraft import with_served_kraft_brokers
from core.snapshot.model import ClusterSnapshot, StaticMinIsr
from core.snapshot.static_min_isr import STATIC_MIN_ISR_UNREAD, read_static_min_isr

ProgressCallback = Callable[[StageProgress], None]

# The Spark engine's load steps on the console's side (``spark_frames.load_steps`` are the worker's).
STEP_WRITE = "writing the snapshot file"
STEP_START = "starting Spark"


@dataclass
class CheckInput:
    """The data a run checks: a snapshot in memory, a snapshot file, or both; optionally broker metadata."""

    snapshot: ClusterSnapshot | None = None
    snapshot_file: Path | None = None
    served: ServedMetadata | None = None


@dataclass
class EngineResult:
    """Findings, partitions checked and the engine's own timings (``load``, ``checks``...)."""

    findings: list[Finding]
    partitions: int
    timings: dict[str, float]


CheckJob = tuple[CheckInput, CheckParams, tuple[str, ...]]
"""One cluster's part of a run: its data, its params and the checks it runs."""


class Engine(Protocol):
    """Runs the catalog on a ``CheckInput``."""

    name: str

    def check(
        self,
        data: CheckInput,
        params: CheckParams,
        checks: tuple[str, ...],
        progress: ProgressCallback,
    ) -> EngineResult:
        """Run ``checks``; report ``load`` and each ``check <id>`` through ``progress``."""
        ...

    def check_many(self, jobs: Sequence[CheckJob], progress: ProgressCallback) -> list[EngineResult]:
        """Run each job (one per cluster), a result per job in order; ``progress`` hears every job's."""
        ...


def _check_stages(progress: ProgressCallback, checks: tuple[str, ...]) -> Callable[[tuple[str, ...]], None]:
    finished: list[str] = []

    def done(ids: tuple[str, ...]) -> None:
        for check in ids:
            if check in checks and check not in finished:
                finished.append(check)
                progress(StageProgress(f"check {check}", len(finished), len(checks), finished=True))

    return done


class LocalEngine:
    """The plain-Python engine (``--engine local``): no JVM, in this process."""

    name = "local"

    def check(
        self,
        data: CheckInput,
        params: CheckParams,
        checks: tuple[str, ...],
        progress: ProgressCallback,
    ) -> EngineResult:
        timings: dict[str, float] = {}
        snapshot = data.snapshot
        progress(StageProgress("load", 0, 1))
        started = time.monotonic()
        if snapshot is None:
            assert data.snapshot_file is not None
            snapshot = read_snapshot_file(data.snapshot_file)
        timings["load"] = time.monotonic() - started
        progress(StageProgress("load", 1, 1, finished=True))
        started = time.monotonic()
        findings = run_local(snapshot, data.served, params, checks, on_done=_check_stages(progress, checks))
        timings["checks"] = time.monotonic() - started
        return EngineResult(findings, snapshot.partition_count, timings)

    def check_many(self, jobs: Sequence[CheckJob], progress: ProgressCallback) -> list[EngineResult]:
        """One job after the other (the local engine has no fixed cost per run to share)."""
        return [self.check(data, params, checks, progress) for data, params, checks in jobs]


class SparkChecks:
    """The Spark engine (``--engine spark``): a warm worker process (``SparkEngine``) runs the job.

    ``engine`` may be shared across runs (the console keeps one); ``close`` it when done.
    """

    name = "spark"

    def __init__(self, engine: SparkEngine) -> None:
        self.engine = engine

    def check(
        self,
        data: CheckInput,
        params: CheckParams,
        checks: tuple[str, ...],
        progress: ProgressCallback,
    ) -> EngineResult:
        return self.check_many([(data, params, checks)], progress)[0]

    def check_many(self, jobs: Sequence[CheckJob], progress: ProgressCallback) -> list[EngineResult]:
        """Every job in one Spark job (``SparkEngine.run_many``): each cluster's findings kept apart."""
        if not jobs:
            return []
        self.engine.start()  # no-op when already running: start-up overlaps the snapshot stage
        timings: dict[str, float] = {}
        in_memory = any(data.snapshot_file is None for data, _, _ in jobs)
        served = any(data.served is not None for data, _, _ in jobs)
        # The load's steps, counted before the first starts so its bar has a fixed total: the console's
        # own (write the snapshots it holds in memory, wait for Spark), then the worker's.
        ours = (*((STEP_WRITE,) if in_memory else ()), *(() if self.engine.ready else (STEP_START,)))
        steps = (*ours, *load_steps(bool(self.engine.settings.stage_dir), served))

        def step(done: int, label: str) -> None:
            progress(StageProgress("load", done, len(steps), step=label))

        with tempfile.TemporaryDirectory(prefix="kzc-check-") as scratch:
            if in_memory:
                step(steps.index(STEP_WRITE), STEP_WRITE)
            inputs = []
            started = time.monotonic()
            for index, (data, params, checks) in enumerate(jobs):
                path = data.snapshot_file
                if path is None:
                    assert data.snapshot is not None
                    path = Path(scratch) / f"snapshot-{index}.jsonl"
                    write_snapshot_file(data.snapshot, path)
                served_path = None
                if data.served is not None:
                    served_path = Path(scratch) / f"served-{index}.jsonl"
                    write_served_file(data.served, served_path)
                inputs.append(RunInput(path, served_path, params, checks))
            if in_memory:
                timings["stage"] = time.monotonic() - started
            if STEP_START in steps:
                step(steps.index(STEP_START), STEP_START)
            started = time.monotonic()
            spark_start = self.engine.wait_ready()
            waited = time.monotonic() - started
            if waited > 0.05:
                timings["spark_start_wait"] = waited
            timings["spark_start"] = spark_start
            done = _check_stages(progress, tuple(dict.fromkeys(c for _, _, checks in jobs for c in checks)))

            def on_event(stage: str, ids: tuple[str, ...]) -> None:
                if stage == "load":
                    progress(StageProgress("load", len(steps), len(steps), finished=True))
                else:
                    done(ids)

            def on_step(worker_done: int, label: str) -> None:
                step(len(ours) + worker_done, label)

            results = self.engine.run_many(inputs, on_event, on_step=on_step)
        return [EngineResult(r.findings, r.partitions, {**timings, **r.timings}) for r in results]


def read_snapshot_file(path: Path) -> ClusterSnapshot:
    """The snapshot in ``path`` (``core.snapshot.jsonl``'s format).

    Raises:
        KzcError: the file is missing or not a kzc snapshot.
    """
    from core.snapshot.jsonl import read

    return read.read_snapshot_file(path)


def write_snapshot_file(snapshot: ClusterSnapshot, path: Path) -> None:
    """Write ``snapshot`` in ``core.snapshot.jsonl``'s format, in a forked child where the OS has ``fork``.

    The write is seconds of pure Python at 100k partitions; in the console's process it held the GIL against
    the UI thread (arrow keys p95 315 ms while writing against 15 ms idle, ``benchmarks/tui_responsiveness.py
    --checks``). A forked child has the snapshot for free (copy on write), writes and exits; this thread only
    waits. Should the child fail, the file is written here, where the error surfaces as usual.
    """
    from core.snapshot.jsonl import write

    if hasattr(os, "fork") and _write_in_child(snapshot, path):
        return
    write.write_snapshot_file(snapshot, path)


def _write_in_child(snapshot: ClusterSnapshot, path: Path) -> bool:
    """Write the file in a forked child; True if it exited 0."""
    from core.snapshot.jsonl import write

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads; the child runs no lock
        pid = os.fork()
    if pid == 0:  # the child: only this thread exists; never return into the parent's code
        code = 1
        try:
            write.write_snapshot_file(snapshot, path)
            code = 0
        finally:
            os._exit(code)
    try:
        _, status = os.waitpid(pid, 0)
    except BaseException:  # Ctrl+C or a cancelled run: the child must not outlive the run
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        raise
    return os.waitstatus_to_exitcode(status) == 0


def take_snapshot(settings: ConnectionSettings, progress: ProgressCallback) -> ClusterSnapshot:
    """Read the cluster's snapshot from ZooKeeper (works with every broker down).

    Raises:
        UsageError: no ZooKeeper connect string.
        ConnectError: ZooKeeper is unreachable or the session was lost.
    """
    from core.snapshot.reader import SnapshotProgress, read_snapshot
    from core.zookeeper.kafka_root import require_kafka_cluster
    from core.zookeeper.session import ZkSession

    if settings.zookeeper is None:
        raise UsageError("no cluster to check: give --zookeeper HOST:PORT[/chroot], --context NAME or --snapshot FILE")
    session = ZkSession(settings)
    session.start()
    try:
        require_kafka_cluster(session)

        def forward(p: SnapshotProgress) -> None:
            progress(StageProgress("snapshot", p.done, p.total))

        return read_snapshot(session, progress=forward)
    finally:
        session.stop()


def check_runnable(
    only: Collection[str] | None,
    settings: ConnectionSettings | None,
    snapshot: ClusterSnapshot | None = None,
    snapshot_file: Path | None = None,
) -> None:
    """Raise when ``only`` names a check that compares with the brokers but the run has none to ask.

    Raises:
        UsageError: no ``--bootstrap-server``, or a snapshot instead of the live cluster.
    """
    if only is None or not any(BY_ID[c].needs_brokers for c in only):
        return
    if snapshot is not None or snapshot_file is not None:
        raise UsageError(
            "metadata_mismatch compares what the live brokers serve with ZooKeeper: it cannot run on a snapshot "
            "file; drop --snapshot and give --zookeeper and --bootstrap-server"
        )
    if settings is None or not settings.bootstrap_servers:
        raise UsageError(
            "metadata_mismatch needs --bootstrap-server HOST:PORT: it compares what the brokers serve with ZooKeeper"
        )


def run_checks(
    engine: Engine,
    *,
    settings: ConnectionSettings | None = None,
    snapshot: ClusterSnapshot | None = None,
    snapshot_file: Path | None = None,
    params: CheckParams | None = None,
    only: Collection[str] | None = None,
    progress: ProgressCallback | None = None,
) -> CheckReport:
    """Run the check catalog (or ``only``) with ``engine`` on a snapshot, a snapshot file, or the cluster.

    The cluster (``settings.zookeeper``) is read only when neither ``snapshot`` nor ``snapshot_file`` is
    given; then, with ``settings.bootstrap_servers``, the brokers' metadata is fetched too and
    ``metadata_mismatch`` runs. ``report.notes`` says what was skipped and why; but when ``only`` names
    ``metadata_mismatch`` explicitly, a run that cannot compare with the brokers raises instead.

    Raises:
        UsageError: ``only`` names ``metadata_mismatch`` without brokers to compare with.
        KzcError: the run could not happen (its message says why).
    """
    report_progress: ProgressCallback = progress or (lambda _p: None)
    params = params or CheckParams()
    check_runnable(only, settings, snapshot, snapshot_file)
    asked_for_brokers = only is not None and any(BY_ID[c].needs_brokers for c in only)
    timings: dict[str, float] = {}
    notes: list[str] = []
    started = time.monotonic()
    data = CheckInput(snapshot=snapshot, snapshot_file=snapshot_file)
    if snapshot is None and snapshot_file is None:
        if settings is None:
            raise UsageError("no cluster to check: give --zookeeper HOST:PORT[/chroot] or --snapshot FILE")
        report_progress(StageProgress("snapshot", 0, 0))
        t = time.monotonic()
        data.snapshot = take_snapshot(settings, report_progress)
        timings["snapshot"] = time.monotonic() - t
        report_progress(StageProgress("snapshot", 1, 1, finished=True))
        if settings.bootstrap_servers:
            report_progress(StageProgress("broker metadata", 0, 1))
            t = time.monotonic()
            try:
                data.served = fetch_served_metadata(settings.bootstrap_servers, security=settings.kafka_security)
            except KzcError as exc:
                if asked_for_brokers:
                    raise KzcError(f"metadata_mismatch could not run: {exc}") from exc
                notes.append(f"metadata_mismatch skipped: {exc}")
                # No broker answered: asking each one for its config would wait out a timeout per broker.
                static = StaticMinIsr(reason=f"{STATIC_MIN_ISR_UNREAD}: {exc}")
            else:
                # The brokers' static min.insync.replicas, which ZooKeeper does not hold (core.snapshot.health).
                static = read_static_min_isr(settings.bootstrap_servers, settings.kafka_security, data.snapshot.brokers)
            params = params.with_static(static)
            timings["broker_metadata"] = time.monotonic() - t
            report_progress(StageProgress("broker metadata", 1, 1, finished=True))
    elif settings is not None and settings.bootstrap_servers and snapshot_file is not None:
        notes.append("metadata_mismatch skipped: a snapshot file is compared with ZooKeeper's past, not the brokers")
    data, params, checks = _job(data, params, only)
    result = engine.check(data, params, checks, report_progress)
    timings.update(result.timings)
    timings["total"] = time.monotonic() - started
    return CheckReport.build(result.findings, result.partitions, checks, engine.name, timings, notes)


def _job(data: CheckInput, params: CheckParams, only: Collection[str] | None) -> CheckJob:
    """What the engine runs for ``data``: the KRaft brokers and static ``min.insync.replicas`` a snapshot
    carries taken into account, the checks selected."""
    if data.snapshot is not None and data.snapshot.kraft_brokers is None:
        # During a migration the brokers rolled to KRaft are alive though gone from /brokers/ids: the brokers'
        # metadata lists them, else the ISR the KRaft controller keeps tells (core.snapshot.kraft). A snapshot
        # file carries the set determined when it was written; both engines read it from there.
        served = data.served.brokers if data.served is not None else None
        data = CheckInput(with_served_kraft_brokers(data.snapshot, served), data.snapshot_file, data.served)
    if data.snapshot is not None and not params.static_min_isr and data.snapshot.static_min_isr.by_broker:
        params = params.with_static(data.snapshot.static_min_isr)  # the console's live snapshot carries it
    return data, params, selected(only, data.served is not None)


@dataclass(frozen=True)
class CheckRequest:
    """One cluster of ``run_checks_many``: a snapshot in memory or a file, optionally what its brokers serve,
    the params and the checks (``only``; None: the catalog)."""

    snapshot: ClusterSnapshot | None = None
    snapshot_file: Path | None = None
    served: ServedMetadata | None = None
    params: CheckParams | None = None
    only: Collection[str] | None = None


def run_checks_many(
    engine: Engine, requests: Sequence[CheckRequest], progress: ProgressCallback | None = None
) -> list[CheckReport]:
    """``run_checks`` on each of ``requests`` (snapshots, never a live cluster) in one ``check_many`` of
    ``engine``: the Spark engine checks every cluster in one job. One report per request, in order, each
    with the run's timings.

    Raises:
        UsageError: a request's ``only`` names ``metadata_mismatch`` on a snapshot without brokers' metadata.
        KzcError: the run could not happen (its message says why).
    """
    started = time.monotonic()
    jobs = []
    for one in requests:
        if one.served is None:
            check_runnable(one.only, None, one.snapshot, one.snapshot_file)
        data = CheckInput(one.snapshot, one.snapshot_file, one.served)
        jobs.append(_job(data, one.params or CheckParams(), one.only))
    results = engine.check_many(jobs, progress or (lambda _p: None))
    total = time.monotonic() - started
    return [
        CheckReport.build(r.findings, r.partitions, checks, engine.name, {**r.timings, "total": total}, [])
        for (_, _, checks), r in zip(jobs, results, strict=True)
    ]
