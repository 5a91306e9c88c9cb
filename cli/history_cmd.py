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
from core.history.location import STORE_ENV, history_place, recorded_cluster
from core.history.question import Question, Span
from core.history.questions import FLEET_QUESTIONS, QUESTIONS
from core.history.schema import cluster_key
from core.history.store import HistoryStore
from core.history.urp import BY

FLEET = "all"  # --cluster all: every cluster of the store (the fleet questions)


def register(sub: Any) -> None:
    """Declare ``kzc history`` and its questions (``core.history.questions``, each with its entry here)."""
    history = add_command(sub, "history", json_flag=False)
    questions = history.add_subparsers(dest="history_command", metavar="QUESTION", required=True)
    for question in QUESTIONS:
        declare, since, _ = ENTRIES[question.name]
        parser = add_command(questions, question.name, question.summary)
        declare(parser)
        _common(parser, since, fleet=question.fleet)
        parser.set_defaults(handler=_asker(question))


def _isr_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--topic", required=True, metavar="T")
    parser.add_argument("--partition", type=int, metavar="P")


def _flapping_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--top", type=int, default=20, metavar="N", help="how many of each (default 20)")


def _flapping_params(args: argparse.Namespace) -> dict[str, Any]:
    if args.top < 1:
        raise UsageError(f"--top must be at least 1, got {args.top}")
    return {"top": args.top}


def _urp_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--by", choices=BY, default="broker")


def _traffic_options(parser: argparse.ArgumentParser) -> None:
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--topic", metavar="T", help="this topic's (default: the whole cluster's)")
    scope.add_argument("--broker", type=int, metavar="ID", help="the partitions this broker leads")


# Each question's CLI entry: its own options, its default --since, and its parameters from the arguments.
Entry = tuple[Callable[[argparse.ArgumentParser], None], str, Callable[[argparse.Namespace], dict[str, Any]]]
ENTRIES: dict[str, Entry] = {
    "isr": (_isr_options, "7d", lambda a: {"topic": a.topic, "partition": a.partition}),
    "flapping": (_flapping_options, "24h", _flapping_params),
    "urp": (_urp_options, "7d", lambda a: {"by": a.by}),
    "traffic": (_traffic_options, "7d", lambda a: {"topic": a.topic, "broker": a.broker}),
}


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


def span_of(args: argparse.Namespace, settings: ConnectionSettings) -> Span:
    """The span the question reads: the one cluster (``pick_cluster``) over ``--since``."""
    store, since, now = _since(args, settings)
    return Span(store, (pick_cluster(store, args, settings),), since, now)


def fleet_span(args: argparse.Namespace, settings: ConnectionSettings) -> Span:
    """Every cluster of the store (``--cluster all``) over the same span."""
    store, since, now = _since(args, settings)
    clusters = store.clusters()
    if not clusters:
        raise UsageError(f"the store {store.root} holds no cluster")
    return Span(store, tuple(clusters), since, now, fleet=True)


def _since(args: argparse.Namespace, settings: ConnectionSettings) -> tuple[HistoryStore, int, int]:
    seconds = duration_option(args.since, "--since")
    now = int(time.time() * 1000)
    return open_store(args, settings), now - int(seconds * 1000), now


@contextmanager
def engine(args: argparse.Namespace, settings: ConnectionSettings) -> Iterator[Any]:
    """None for the local engine, else a SparkSession built as the checks build theirs."""
    if args.engine == "local":
        yield None
        return
    from core.spark.session import session

    with session(settings.spark_master or DEFAULT_SPARK_MASTER) as spark:
        yield spark


def _asker(question: Question) -> Callable[[argparse.Namespace, ConnectionSettings], int]:
    def handler(args: argparse.Namespace, settings: ConnectionSettings) -> int:
        return _answer(question, args, settings)

    return handler


def _answer(question: Question, args: argparse.Namespace, settings: ConnectionSettings) -> int:
    """Ask the question of its span (one cluster, or with ``--cluster all`` every cluster) and print it."""
    if args.cluster == FLEET and not question.fleet:
        raise UsageError(
            f"kzc history {question.name} reads one cluster: give --cluster NAME (--cluster {FLEET} is "
            f"for {' and '.join(FLEET_QUESTIONS)})"
        )
    params = ENTRIES[question.name][2](args)
    span = fleet_span(args, settings) if args.cluster == FLEET else span_of(args, settings)
    with engine(args, settings) as spark:
        answer = question.ask(span, spark, **params)
    print(json.dumps(answer.to_json()) if args.json else "\n".join(answer.lines()))
    return 0
