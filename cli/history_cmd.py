"""``kzc history isr|flapping|urp|traffic``: questions over a history store (``kzc record``), on either engine.

The store is ``--store DIR``, else the context's ``history``, else ``$KZC_HISTORY`` (``core.history.location``);
the cluster is ``--cluster NAME``, else the name the context is recorded under, else the store's only
cluster; ``flapping`` and ``urp`` also take ``--cluster all``: every cluster of the store, ranked together (on
Spark, one job for the fleet). ``--engine local`` (default: plain Python and pyarrow, the reference) or
``spark`` (``--spark-master``, ``local[*]`` by default, any master or Spark Connect): identical answers.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from cli.options import add_command, add_spark_options, duration_option
from core.config import DEFAULT_SPARK_MASTER, ConnectionSettings
from core.errors import UsageError
from core.history.flapping import flapping, fleet_flapping
from core.history.isr import isr_history
from core.history.location import STORE_ENV, history_place, recorded_cluster
from core.history.observations import Window
from core.history.schema import cluster_key
from core.history.store import HistoryStore
from core.history.traffic import history_traffic
from core.history.urp import BY, fleet_urp, urp

FLEET = "all"  # --cluster all: every cluster of the store (flapping, urp)


def register(sub: Any) -> None:
    """Declare ``kzc history`` and its questions."""
    history = add_command(sub, "history", json_flag=False)
    questions = history.add_subparsers(dest="history_command", metavar="QUESTION", required=True)
    isr = add_command(questions, "isr", "each replica's time out of the ISR, and leader changes with epochs")
    isr.add_argument("--topic", required=True, metavar="T")
    isr.add_argument("--partition", type=int, metavar="P")
    _common(isr, "7d")
    isr.set_defaults(handler=_isr)
    flaps = add_command(questions, "flapping", "partitions and brokers ranked by ISR shrinks/expands, leader changes")
    flaps.add_argument("--top", type=int, default=20, metavar="N", help="how many of each (default 20)")
    _common(flaps, "24h", fleet=True)
    flaps.set_defaults(handler=_flapping)
    under = add_command(questions, "urp", "under-replicated and offline partition-minutes by broker, topic or rack")
    under.add_argument("--by", choices=BY, default="broker")
    _common(under, "7d", fleet=True)
    under.set_defaults(handler=_urp)
    rates = add_command(questions, "traffic", "per-hour mean, peak and p95 of messages and bytes in per second")
    scope = rates.add_mutually_exclusive_group()
    scope.add_argument("--topic", metavar="T", help="this topic's (default: the whole cluster's)")
    scope.add_argument("--broker", type=int, metavar="ID", help="the partitions this broker leads")
    _common(rates, "7d")
    rates.set_defaults(handler=_traffic)


def _common(parser: argparse.ArgumentParser, since: str, fleet: bool = False) -> None:
    parser.add_argument("--since", default=since, metavar="DURATION", help=f"how far back (default {since})")
    parser.add_argument(
        "--store", metavar="DIR", help=f"the history store (default: the context's history, else ${STORE_ENV})"
    )
    every = f", or {FLEET} for every cluster of the store, ranked together" if fleet else ""
    parser.add_argument("--cluster", metavar="NAME", help=f"the recorded cluster (default: the context's{every})")
    parser.add_argument("--engine", choices=["local", "spark"], default="local", help="local (default) or spark")
    add_spark_options(parser, suppress=True)


def open_store(args: argparse.Namespace, settings: ConnectionSettings) -> HistoryStore:
    """The store named by ``--store``, the context's ``history`` or ``$KZC_HISTORY``.

    Raises:
        UsageError: none names one, or it is not a store.
    """
    return HistoryStore.open(history_place(settings, args.store).require())


def pick_cluster(store: HistoryStore, args: argparse.Namespace, settings: ConnectionSettings) -> str:
    """The cluster the question is about (``--cluster``, the context, or the store's only one)."""
    known = store.clusters()
    wanted = args.cluster or (recorded_cluster(settings) if settings.context or settings.zookeeper else None)
    if wanted is not None:
        if cluster_key(wanted) not in known:
            raise UsageError(f"the store holds no cluster {wanted} (it holds: {', '.join(known) or 'none'})")
        return wanted
    if len(known) != 1:
        raise UsageError(f"give --cluster NAME (the store holds: {', '.join(known) or 'none'})")
    return known[0]


def window_of(args: argparse.Namespace, settings: ConnectionSettings) -> Window:
    """The store window the question reads."""
    store, since, now = _span(args, settings)
    return Window.of(store, pick_cluster(store, args, settings), since, now)


def fleet_windows(args: argparse.Namespace, settings: ConnectionSettings) -> list[Window]:
    """The windows of every cluster of the store (``--cluster all``), over the same span."""
    store, since, now = _span(args, settings)
    clusters = store.clusters()
    if not clusters:
        raise UsageError(f"the store {store.root} holds no cluster")
    return [Window.of(store, c, since, now) for c in clusters]


def _span(args: argparse.Namespace, settings: ConnectionSettings) -> tuple[HistoryStore, int, int]:
    seconds = duration_option(args.since, "--since")
    now = int(time.time() * 1000)
    return open_store(args, settings), now - int(seconds * 1000), now


@contextmanager
def engine(args: argparse.Namespace, settings: ConnectionSettings) -> Iterator[Any]:
    """None for the local engine, else a SparkSession built as the checks build theirs."""
    if args.engine == "local":
        yield None
        return
    from core.consistency.spark_job import start_session
    from core.consistency.spark_worker import LOCAL_DEFAULTS

    master = settings.spark_master or DEFAULT_SPARK_MASTER
    spark = start_session(master, {} if master.startswith("sc://") else dict(LOCAL_DEFAULTS))
    try:
        yield spark
    finally:
        if not master.startswith("sc://"):
            spark.stop()


def _answer(args: argparse.Namespace, settings: ConnectionSettings, ask: Callable[[Any, Any], Any]) -> int:
    """Ask the question of the window (or, ``--cluster all``, of every cluster's window) and print it."""
    where: Window | list[Window] = fleet_windows(args, settings) if args.cluster == FLEET else window_of(args, settings)
    with engine(args, settings) as spark:
        answer = ask(where, spark)
    print(json.dumps(answer.to_json()) if args.json else "\n".join(answer.lines()))
    return 0


def _isr(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.cluster == FLEET:
        raise UsageError(f"kzc history isr reads one cluster: give --cluster NAME (--cluster {FLEET} is for "
                         "flapping and urp)")  # fmt: skip
    return _answer(args, settings, lambda w, s: isr_history(w, args.topic, args.partition, spark=s))


def _flapping(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.top < 1:
        raise UsageError(f"--top must be at least 1, got {args.top}")
    return _answer(
        args, settings,
        lambda w, s: fleet_flapping(w, args.top, spark=s) if isinstance(w, list) else flapping(w, args.top, spark=s),
    )  # fmt: skip


def _urp(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    return _answer(
        args, settings,
        lambda w, s: fleet_urp(w, args.by, spark=s) if isinstance(w, list) else urp(w, args.by, spark=s),
    )  # fmt: skip


def _traffic(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.cluster == FLEET:
        raise UsageError(f"kzc history traffic reads one cluster: give --cluster NAME (--cluster {FLEET} is for "
                         "flapping and urp)")  # fmt: skip
    store, since, now = _span(args, settings)
    cluster = pick_cluster(store, args, settings)
    with engine(args, settings) as spark:
        answer = history_traffic(store, cluster, since, now, args.topic, args.broker, spark=spark)
    print(json.dumps(answer.to_json()) if args.json else "\n".join(answer.lines()))
    return 0
