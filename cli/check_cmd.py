"""``kzc check``: run the consistency check catalog on the cluster, on a snapshot file, or on every context of the
config file (``--contexts``, ``core.fleet.check``).

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

from cli.fleet_cmd import chosen_contexts
from cli.options import add_command, add_spark_options, positive_duration
from core.config import DEFAULT_SPARK_MASTER, ConnectionSettings
from core.consistency.catalog import BY_ID, parse_only
from core.consistency.findings import CheckReport, StageProgress
from core.consistency.params import CheckParams
from core.consistency.pipeline import Engine, LocalEngine, SparkChecks, check_runnable, run_checks
from core.consistency.spark_engine import SparkEngine, SparkSettings
from core.errors import KzcError, UsageError
from core.fleet.check import CHECKED, FleetCheckReport, check_fleet
from core.fleet.read import DEFAULT_DEADLINE_S
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
    check.add_argument(
        "--contexts",
        action=_EveryContext,
        metavar="NAME,...|all",
        help="check these contexts of the config file (all: every one) as one run, each finding tagged with its "
        "context, plus the fleet's own findings (mirrors that differ, shared broker ids, a release left behind)",
    )
    check.add_argument(
        "--deadline",
        metavar="DURATION",
        help=f"with --contexts: how long each cluster's read may take (default {DEFAULT_DEADLINE_S:g}s)",
    )
    check.set_defaults(handler=_check, every_context_spark=True)  # --spark-master applies to --contexts too


class _EveryContext(argparse.Action):
    """``--contexts``: the contexts are read one by one with their own settings (``cli.options.resolve``)."""

    def __call__(self, parser: Any, namespace: argparse.Namespace, values: Any, option: str | None = None) -> None:
        namespace.contexts, namespace.every_context = values, True


def _check(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    try:
        only = parse_only(args.only)
        if args.min_isr is not None and args.min_isr < 1:
            raise UsageError("--min-isr must be at least 1")
        snapshot_file = Path(args.snapshot).expanduser() if args.snapshot else None
        if snapshot_file is not None and not snapshot_file.is_file():
            raise UsageError(f"--snapshot {snapshot_file}: no such file")
        contexts = chosen_contexts(args) if args.contexts is not None else None
        if args.deadline is not None and contexts is None:
            raise UsageError("--deadline bounds each context's read: it goes with --contexts")
        deadline = positive_duration(args.deadline or f"{DEFAULT_DEADLINE_S:g}s", "--deadline")
        if contexts is not None and snapshot_file is not None:
            raise UsageError("give --contexts or --snapshot, not both")
        if contexts is not None and only is not None and any(BY_ID[c].needs_brokers for c in only):
            raise UsageError("metadata_mismatch does not run with --contexts: each cluster is read from ZooKeeper")
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
            if contexts is not None:
                params = CheckParams(min_isr_given=args.min_isr)
                fleet = check_fleet(engine, contexts, deadline, params, only)
                print(json.dumps(fleet.to_json()) if args.json else _fleet_text(fleet))
                return 1 if fleet.has_errors else 0
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
            if spark is not None and not spark.release():  # the answer need not wait for Spark to shut down
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
    lines = _finding_lines(report)
    lines.append(_totals(report))
    lines.extend(f"note: {note}" for note in report.notes)
    return "\n".join(lines)


def _finding_lines(report: CheckReport, indent: str = "") -> list[str]:
    lines = []
    for f in report.findings:
        where = f.topic if f.partition is None else f"{f.topic}-{f.partition}"
        if where is None:
            where = f"broker {f.broker}" if f.broker is not None else f.path
        lines.append(f"{indent}{f.severity.value.upper():<8}{f.check:<32}{where:<28} {f.detail}")
    return lines


def _totals(report: CheckReport) -> str:
    counts = report.by_severity()
    total = report.timings.get("total", 0.0)
    return (
        f"{report.partitions} partitions checked with the {report.engine} engine in {total:.1f} s: "
        f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info']} info"
    )


def _fleet_text(fleet: FleetCheckReport) -> str:
    """The findings grouped by context (each with its totals, or why it was not checked), then the fleet's."""
    lines = []
    for cluster in fleet.clusters:
        lines.append(f"{cluster.context} ({cluster.zookeeper or 'no zookeeper'})")
        if cluster.state != CHECKED or cluster.report is None:
            lines.append(f"  NOT CHECKED: {cluster.state}: {cluster.reason}")
            continue
        lines.extend(_finding_lines(cluster.report, indent="  "))
        lines.append("  " + _totals(cluster.report))
    lines.append("the fleet")
    for f in fleet.fleet_findings:
        lines.append(f"  {f.severity.value.upper():<8}{f.check:<32}{', '.join(f.contexts):<28} {f.detail}")
    checked = sum(c.state == CHECKED for c in fleet.clusters)
    lines.append(
        f"  {checked} of {len(fleet.clusters)} cluster(s) checked with the {fleet.engine} engine in "
        f"{fleet.timings.get('total', 0.0):.1f} s; {len(fleet.fleet_findings)} fleet finding(s)"
    )
    return "\n".join(lines)
