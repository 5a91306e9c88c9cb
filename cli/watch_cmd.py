"""``kzc watch [--json] [--follow TOPIC ...]``: stream the cluster's change events as they happen.

Without ``--json`` each event is one line with the local time; a re-sync's changes follow it indented.
With ``--json`` each event is one JSON object per line (``time`` in UTC, the event's fields, ``text``).
Ctrl-C ends the stream (exit code 130, as every interrupted command: ``cli.main``).
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

from cli.options import add_command
from core.config import ConnectionSettings
from core.live.events import LiveEvent, Resynced
from core.live.state import LiveState
from core.live.watcher import ClusterWatcher
from core.zookeeper.session import ZkSession

_POLL_S = 0.5  # how often the main thread wakes to notice Ctrl-C while no event arrives


def register(sub: Any) -> None:
    """Declare ``kzc watch``."""
    watch = add_command(sub, "watch", "stream cluster changes (controller, brokers, topics, admin requests) live")
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
    session = ZkSession(settings)
    events: queue.SimpleQueue[LiveEvent] = queue.SimpleQueue()
    watcher = ClusterWatcher(session, events.put)  # called on the watcher's thread: only queue it
    try:
        session.start()
        initial = watcher.start()
        for topic in args.follow:
            watcher.follow_topic(topic)
        print(_summary(str(session.target), initial, args.follow), file=sys.stderr, flush=True)
        while True:
            try:
                event = events.get(timeout=_POLL_S)
            except queue.Empty:
                continue
            _print(event, args.json, sys.stdout)
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit.
        sys.stdout = open("/dev/null", "w")  # noqa: SIM115
        return 0
    finally:
        watcher.stop()
        session.stop()


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
