"""``kzc record [--out DIR] [--also-context NAME ...]``: record one or more clusters into a history store.

The store is ``--out DIR``, else the context's ``history``, else ``$KZC_HISTORY``
(``core.history.location``, the rule the questions and the console follow too).

Each cluster gets its own ZooKeeper session, live model (``core.live.model.LiveCluster``) and recorder
thread (``core.history.recorder``); every session is opened first, so a wrong connect string fails before
anything is written. Every ``--traffic-every`` it also samples the brokers' traffic (one ListOffsets and one
DescribeLogDirs per broker, by the layout the live model already holds: no ZooKeeper request added) and
records the rates (``--no-traffic``: none), and with them the consumer groups' lag against the high watermarks
of the same tick (ListGroups on every broker, one OffsetFetch per group, and ``/consumers``; brokers from
``--bootstrap-server``, else the registrations). Read-only by nature. Ctrl-C and SIGTERM stop it with a final
flush (exit code 130, as every interrupted command). docs/history.md describes the store.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from cli.options import add_command, positive_duration
from core.config import ConnectionSettings, resolve_settings
from core.config_file import load_config
from core.errors import UsageError
from core.groups.recorded import recorded_groups_read
from core.history.location import STORE_ENV, history_place, recorded_cluster
from core.history.recorder import Recorder, RecorderSettings, TrafficRead
from core.history.store import HistoryStore
from core.interrupt import on_interrupt
from core.live.model import LiveCluster
from core.snapshot.model import ClusterSnapshot
from core.traffic.sample import TIMEOUT_S, Layout, Sample, read_sample
from core.zookeeper.kafka_root import open_kafka_session
from core.zookeeper.session import ConnectionState, ZkSession


def register(sub: Any) -> None:
    """Declare ``kzc record``."""
    record = add_command(sub, "record")
    record.add_argument(
        "--out",
        metavar="DIR",
        help=f"the history store, created if absent (default: the context's history, else ${STORE_ENV})",
    )
    record.add_argument(
        "--also-context",
        action="append",
        default=[],
        metavar="NAME",
        help="record this context too (repeatable), each on its own session and thread",
    )
    record.add_argument("--snapshot-every", default="15m", metavar="DURATION", help="a whole snapshot this often")
    record.add_argument(
        "--flush-every", default="5s", metavar="DURATION", help="write to disk this often (the most a crash loses)"
    )
    record.add_argument("--retain", default="30d", metavar="DURATION", help="delete hours older than this")
    record.add_argument(
        "--no-compact", action="store_true", help="leave each flush's file (no merging of closed hours)"
    )
    record.add_argument("--traffic-every", default="1m", metavar="DURATION", help="sample the brokers' traffic "
                        "this often (one ListOffsets and one DescribeLogDirs per broker)")  # fmt: skip
    record.add_argument("--no-traffic", action="store_true", help="record no traffic (ZooKeeper only)")
    record.set_defaults(handler=_record, sigterm_interrupts=True)


def _record(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    options = RecorderSettings(
        flush_every_s=positive_duration(args.flush_every, "--flush-every"),
        snapshot_every_s=positive_duration(args.snapshot_every, "--snapshot-every"),
        retain_ms=int(positive_duration(args.retain, "--retain") * 1000),
        compact=not args.no_compact,
        traffic_every_s=None if args.no_traffic else positive_duration(args.traffic_every, "--traffic-every"),
    )
    out = history_place(settings, args.out, "--out").require()
    targets = [settings]
    if args.also_context:
        config = load_config(Path(args.config).expanduser() if args.config else None)
        targets += [resolve_settings(config, context=name, read_only=True) for name in args.also_context]
    names = [recorded_cluster(t) for t in targets]
    if len(set(names)) != len(names):
        raise UsageError("a cluster is named twice: give each context once")
    with ExitStack() as stack:
        sessions = [stack.enter_context(open_kafka_session(target)) for target in targets]
        store = HistoryStore.create(out)
        for name in names:
            stack.enter_context(store.recording(name))
        recorders = [
            Recorder(
                name, store, options, _connected(s), traffic=_traffic_read(t), groups=recorded_groups_read(t, s, stack)
            )
            for name, s, t in zip(names, sessions, targets, strict=True)
        ]
        stack.callback(on_interrupt(lambda: _stop_all(recorders)))
        failures: list[BaseException] = []
        threads = [
            threading.Thread(target=_run, args=(r, s, failures), name=f"kzc-record-{r.cluster}", daemon=True)
            for r, s in zip(recorders, sessions, strict=True)
        ]
        for thread in threads:
            thread.start()
        print(
            f"kzc: recording {', '.join(names)} into {out} (flush every {args.flush_every}, snapshot every "
            f"{args.snapshot_every}, retain {args.retain}); Ctrl-C to stop",
            file=sys.stderr,
            flush=True,
        )
        for thread in threads:
            while thread.is_alive():
                thread.join(0.5)
        if failures:
            raise failures[0]
    if args.json:
        print(json.dumps({"clusters": names, "rows": sum(r.rows_written for r in recorders)}))
    return 0


def _stop_all(recorders: list[Recorder]) -> None:
    """Ctrl-C or SIGTERM (the main thread): stop every recorder with a final flush."""
    for recorder in recorders:
        recorder.stop()


def _connected(session: ZkSession) -> Any:
    return lambda: session.state == ConnectionState.CONNECTED


def _traffic_read(settings: ConnectionSettings) -> TrafficRead:
    """One traffic sample of the cluster's brokers by a snapshot's layout (``core.traffic.sample``)."""
    security = settings.kafka_security

    def read(snapshot: ClusterSnapshot, now_ms: int) -> Sample:
        return read_sample(Layout.of(snapshot, security), TIMEOUT_S, now_ms, security)

    return read


def _run(recorder: Recorder, session: ZkSession, failures: list[BaseException]) -> None:
    live = LiveCluster(session, on_event=lambda _e: recorder.changed(), on_snapshot=recorder.changed)
    try:
        recorder.run(live)
    except BaseException as exc:  # handed to the command's thread
        failures.append(exc)
