"""``kzc history isr|flapping|urp``: questions over a history store (``kzc record``), on either engine.

The store is ``--store DIR``, else the context's ``history``, else ``$KZC_HISTORY`` (``core.history.location``);
the cluster is ``--cluster NAME``, else the name the context is recorded under, else the store's only
cluster. ``--engine local`` (default: plain Python and pyarrow, the reference) or ``spark``
(``--spark-master``, ``local[*]`` by default, any master or Spark Connect): identical answers.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from cli.options import add_command, add_spark_options
from core.config import ConnectionSettings
from core.errors import UsageError
from core.history.flapping import flapping
from core.history.isr import isr_history
from core.history.location import history_place, recorded_cluster
from core.history.observations import Window
from core.history.schema import cluster_key
from core.history.store import STORE_ENV, HistoryStore
from core.history.urp import BY, urp
from core.human_time import parse_duration


def register(sub: Any) -> None:
    """Declare ``kzc history`` and its questions."""
    history = add_command(sub, "history", "questions over a history store recorded by kzc record", json_flag=False)
    questions = history.add_subparsers(dest="history_command", metavar="QUESTION", required=True)
    isr = add_command(questions, "isr", "each replica's time out of the ISR, and leader changes with epochs")
    isr.add_argument("--topic", required=True, metavar="T")
    isr.add_argument("--partition", type=int, metavar="P")
    _common(isr, "7d")
    isr.set_defaults(handler=_isr)
    flaps = add_command(questions, "flapping", "partitions and brokers ranked by ISR shrinks/expands, leader changes")
    flaps.add_argument("--top", type=int, default=20, metavar="N", help="how many of each (default 20)")
    _common(flaps, "24h")
    flaps.set_defaults(handler=_flapping)
    under = add_command(questions, "urp", "under-replicated and offline partition-minutes by broker, topic or rack")
    under.add_argument("--by", choices=BY, default="broker")
    _common(under, "7d")
    under.set_defaults(handler=_urp)


def _common(parser: argparse.ArgumentParser, since: str) -> None:
    parser.add_argument("--since", default=since, metavar="DURATION", help=f"how far back (default {since})")
    parser.add_argument(
        "--store", metavar="DIR", help=f"the history store (default: the context's history, else ${STORE_ENV})"
    )
    parser.add_argument("--cluster", metavar="NAME", help="the recorded cluster (default: the context's)")
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
    try:
        seconds = parse_duration(args.since)
    except ValueError as exc:
        raise UsageError(f"--since: {exc}") from None
    store = open_store(args, settings)
    cluster = pick_cluster(store, args, settings)
    now = int(time.time() * 1000)
    return Window.of(store, cluster, now - int(seconds * 1000), now)


@contextmanager
def engine(args: argparse.Namespace, settings: ConnectionSettings) -> Iterator[Any]:
    """None for the local engine, else a SparkSession built as the checks build theirs."""
    if args.engine == "local":
        yield None
        return
    from core.consistency.spark_engine import DEFAULT_MASTER
    from core.consistency.spark_job import start_session
    from core.consistency.spark_worker import LOCAL_DEFAULTS

    master = settings.spark_master or DEFAULT_MASTER
    spark = start_session(master, {} if master.startswith("sc://") else dict(LOCAL_DEFAULTS))
    try:
        yield spark
    finally:
        if not master.startswith("sc://"):
            spark.stop()


def _answer(args: argparse.Namespace, settings: ConnectionSettings, ask: Callable[[Window, Any], Any]) -> int:
    window = window_of(args, settings)
    with engine(args, settings) as spark:
        answer = ask(window, spark)
    print(json.dumps(answer.to_json()) if args.json else "\n".join(answer.lines()))
    return 0


def _isr(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    return _answer(args, settings, lambda w, s: isr_history(w, args.topic, args.partition, spark=s))


def _flapping(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    return _answer(args, settings, lambda w, s: flapping(w, args.top, spark=s))


def _urp(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    return _answer(args, settings, lambda w, s: urp(w, args.by, spark=s))
