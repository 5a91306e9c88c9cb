"""``kzc check``: run the consistency check catalog on the cluster or on a snapshot file.

Exit codes: 0 when no finding has error severity, 1 when some do or when the connect string holds no
Kafka cluster, 2 when the checks could not run otherwise (the message says why).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
from contextlib import ExitStack, suppress
from functools import partial
from pathlib import Path
from typing import Any

from cli.options import add_command, add_spark_options
from core.config import DEFAULT_SPARK_MASTER, ConnectionSettings
from core.consistency.catalog import parse_only
from core.consistency.findings import CheckReport, StageProgress
from core.consistency.params import CheckParams
from core.consistency.pipeline import Engine, LocalEngine, SparkChecks, check_runnable, run_checks
from core.consistency.spark_engine import SparkEngine, SparkSettings
from core.errors import KzcError, UsageError
from core.interrupt import on_interrupt
from core.zookeeper.kafka_root import NoKafkaCluster


class CheckCouldNotRun(KzcError):
    """Any failure before findings exist: ``kzc check`` exits 2 for all of them."""

    exit_code = 2


def register(sub: Any) -> None:
    """Declare ``kzc check``."""
    check = add_command(sub, "check")
    check.add_argument("--snapshot", metavar="FILE", help="check this snapshot file instead of the live cluster")
    check.add_argument(
        "--engine",
        choices=["spark", "local"],
        default="spark",
        help="spark (default; a separate process, any master) or local (plain Python, no JVM)",
    )
    add_spark_options(check, suppress=True)
    check.add_argument("--only", metavar="ID,ID", help="run only these checks")
    check.add_argument(
        "--min-isr",
        type=int,
        metavar="N",
        help="the brokers' static min.insync.replicas (server.properties), used where no topic or dynamic override "
        "exists and --bootstrap-server does not report it; without either, under-min-ISR is not judged",
    )
    check.set_defaults(handler=_check)


def _check(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    try:
        only = parse_only(args.only)
        if args.min_isr is not None and args.min_isr < 1:
            raise UsageError("--min-isr must be at least 1")
        snapshot_file = Path(args.snapshot).expanduser() if args.snapshot else None
        if snapshot_file is not None and not snapshot_file.is_file():
            raise UsageError(f"--snapshot {snapshot_file}: no such file")
        check_runnable(only, settings, snapshot_file=snapshot_file)  # before Spark starts for nothing
        spark = None
        stack = ExitStack()
        engine: Engine = LocalEngine()
        if args.engine == "spark":
            spark = SparkEngine(
                SparkSettings(master=settings.spark_master or DEFAULT_SPARK_MASTER, stage_dir=settings.stage_dir)
            )
            spark.start()  # starts while the snapshot is read
            stack.callback(on_interrupt(partial(_kill_worker, spark)))
            engine = SparkChecks(spark)
        try:
            report = run_checks(
                engine,
                settings=settings,
                snapshot_file=snapshot_file,
                params=CheckParams(min_isr_given=args.min_isr),
                only=only,
                progress=None if args.json or not sys.stderr.isatty() else _show_progress,
            )
        finally:
            stack.close()
            if spark is not None:
                spark.close()
    except NoKafkaCluster:
        raise  # exit code 1, as every command says it
    except KzcError as exc:
        raise CheckCouldNotRun(str(exc)) from exc
    if args.json:
        print(json.dumps(report.to_json()))
    else:
        print(_text(report))
    return 1 if report.has_errors else 0


def _kill_worker(spark: SparkEngine) -> None:
    """On Ctrl-C: kill the Spark worker and its JVM at once (they run in their own process group)."""
    if (pid := spark.pid) is not None:
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)


def _show_progress(p: StageProgress) -> None:
    if p.finished:
        print(f"  {p.stage}: done ({p.done}/{p.total})", file=sys.stderr)


def _text(report: CheckReport) -> str:
    lines = []
    for f in report.findings:
        where = f.topic if f.partition is None else f"{f.topic}-{f.partition}"
        if where is None:
            where = f"broker {f.broker}" if f.broker is not None else f.path
        lines.append(f"{f.severity.value.upper():<8}{f.check:<32}{where:<28} {f.detail}")
    counts = report.by_severity()
    total = report.timings.get("total", 0.0)
    lines.append(
        f"{report.partitions} partitions checked with the {report.engine} engine in {total:.1f} s: "
        f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    )
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines)
