"""``kzc watch [--json] [--follow TOPIC ...]``: stream the cluster's change events as they happen.

Without ``--json`` each event is one line with the local time; a re-sync's changes follow it indented.
With ``--json`` each event is one JSON object per line (``time`` in UTC, the event's fields, ``text``).
Ctrl-C ends the stream (exit code 130, as every interrupted command: ``cli.main``).

Besides the watcher's events, ``HealthChanged`` reports the offline, under-replicated and under-min-ISR
partitions (``core.snapshot.health``, as ``kzc describe`` counts them) whenever a set changes: the model
(``core.live.model.LiveCluster``) reads the cluster once, then follows every partition state znode.
The first ``HealthChanged`` follows that first read and gives the current state (every member entered).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import queue
import sys
import threading
import time
from datetime import UTC, datetime
from typing import Any, TextIO

from cli.options import add_command
from core.config import ConnectionSettings
from core.live.events import HealthChanged, Resynced
from core.live.health_sets import EMPTY_HEALTH, HealthSets, health_changed
from core.live.live_event import LiveEvent
from core.live.model import LiveCluster
from core.live.state import LiveState
from core.snapshot.health import assess
from core.snapshot.kraft import served_broker_ids
from core.snapshot.static_min_isr import read_static_min_isr
from core.zookeeper.kafka_root import open_kafka_session
from core.zookeeper.session import ZkSession

_POLL_S = 0.2  # how often the main thread wakes to notice Ctrl-C and health changes while no event arrives
_HEALTH_EVERY_S = 0.25  # at most this often a full health pass over the model (O(partitions))


def register(sub: Any) -> None:
    """Declare ``kzc watch``."""
    watch = add_command(sub, "watch")
    watch.add_argument(
        "--follow",
        nargs="+",
        action="extend",
        default=[],
        metavar="TOPIC",
        help="also stream the partition states (leader, ISR) and assignment of these topics",
    )
    watch.set_defaults(handler=_watch)


def _watch(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    with open_kafka_session(settings) as session:
        return _stream(args, settings, session)


def _stream(args: argparse.Namespace, settings: ConnectionSettings, session: ZkSession) -> int:
    events: queue.SimpleQueue[LiveEvent] = queue.SimpleQueue()
    changed = threading.Event()
    # Callbacks run on the model's threads: only queue or flag.
    bootstrap = settings.bootstrap_servers
    # During a migration, which brokers run KRaft: DescribeCluster when the brokers are known, else the ISR.
    ask = (lambda: served_broker_ids(bootstrap, settings.kafka_security)) if bootstrap else None
    live = LiveCluster(
        session, on_event=lambda _e: None, on_snapshot=changed.set, on_raw=events.put, served_brokers=ask
    )
    health = _Health(live, changed)
    try:
        live.start()
        for topic in args.follow:
            live.watcher.follow_topic(topic)
        if settings.bootstrap_servers:
            threading.Thread(
                target=health.read_static, args=(settings,), name="kzc-broker-configs", daemon=True
            ).start()
        print(_summary(str(session.target), live.watcher.state(), args.follow), file=sys.stderr, flush=True)
        while True:
            with contextlib.suppress(queue.Empty):
                _print(events.get(timeout=_POLL_S), args.json, sys.stdout)
            if (event := health.changed()) is not None:
                _print(event, args.json, sys.stdout)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit.
        sys.stdout = open("/dev/null", "w")  # noqa: SIM115
        return 0
    finally:
        live.stop()


class _Health:
    """The health sets of the live model, compared after each change it reports (main thread)."""

    def __init__(self, live: LiveCluster, flag: threading.Event) -> None:
        self._live = live
        self._flag = flag
        self._sets: HealthSets | None = None
        self._at = 0.0
        self._gap = _HEALTH_EVERY_S  # at least as long as the last pass took (1.6 s at 100k partitions)

    def read_static(self, settings: ConnectionSettings) -> None:
        """The brokers' static min.insync.replicas (their own thread: DescribeConfigs may take seconds)."""
        brokers = self._live.watcher.state().brokers
        self._live.set_static_min_isr(read_static_min_isr(settings.bootstrap_servers, settings.kafka_security, brokers))
        self._flag.set()

    def changed(self) -> HealthChanged | None:
        """The change since the last call, once the first full read is done (the first: the whole state)."""
        if not self._flag.is_set() or self._live.loading() is not None:
            return None
        if time.monotonic() - self._at < self._gap:
            return None
        self._flag.clear()
        started = time.monotonic()
        sets = HealthSets.of(assess(self._live.snapshot()))
        self._at = time.monotonic()
        self._gap = max(_HEALTH_EVERY_S, self._at - started)
        first = self._sets is None
        event = health_changed(self._sets or EMPTY_HEALTH, sets)
        self._sets = sets
        if event is None and first:
            return HealthChanged(0, 0, 0, (), ())
        return event


def _summary(target: str, state: LiveState, followed: list[str]) -> str:
    controller = state.controller_id()
    epoch = state.epoch()
    parts = [
        f"controller {controller if controller is not None else 'none'}"
        + (f" (epoch {epoch})" if epoch is not None else ""),
        f"{len(state.brokers)} broker(s) {sorted(state.brokers)}",
        f"{len(state.topics)} topic(s)",
    ]
    if followed:
        parts.append("following " + ", ".join(followed))
    return f"kzc: watching {target}: {', '.join(parts)}; Ctrl-C to stop"


def _print(event: LiveEvent, as_json: bool, out: TextIO) -> None:
    now = datetime.now(UTC)
    if as_json:
        line = {"time": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"), **event.to_json()}
        line["text"] = event.describe()
        out.write(json.dumps(line) + "\n")
    else:
        stamp = now.astimezone().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
        out.write(f"{stamp}  {event.describe()}\n")
        if isinstance(event, Resynced):
            for change in event.changes:
                out.write(f"{' ' * len(stamp)}    {change.describe()}\n")
    out.flush()
