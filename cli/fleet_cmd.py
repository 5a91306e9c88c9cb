"""``kzc fleet [--contexts a,b|all] [--deadline 10s] [--json] [--watch]``: every cluster of the config file at
once, one row each, worst first (``core.fleet``).

Each context is read in parallel with its own settings and the command never waits longer than the deadline:
a cluster that has not answered by then is ``no answer in N s``, the others arrive on time. A context that
cannot be used (a bad key, an unreadable secret file, ZooKeeper down, auth refused, no Kafka at its chroot,
no broker) is a row with its reason. Exit 0 when every cluster is ok or degraded, 1 when one is offline, has
no broker or cannot be read.
"""

from __future__ import annotations

import argparse
import json
import threading
import time
from pathlib import Path
from typing import Any

from cli.options import add_command, positive_duration
from core.config import ConnectionSettings
from core.config_file import load_config
from core.errors import UsageError
from core.fleet.read import DEFAULT_DEADLINE_S, FleetReader
from core.fleet.row import FleetRow, FleetTable
from core.human_time import utc_text

DEFAULT_INTERVAL = "10s"


def register(sub: Any) -> None:
    """Declare ``kzc fleet``."""
    fleet = add_command(sub, "fleet")
    fleet.add_argument(
        "--contexts",
        default="all",
        metavar="NAME,...|all",
        help="the contexts to read (default: all of the config file)",
    )
    fleet.add_argument(
        "--deadline",
        default=f"{DEFAULT_DEADLINE_S:g}s",
        metavar="DURATION",
        help=f"how long each cluster may take (default {DEFAULT_DEADLINE_S:g}s): kzc fleet never waits longer",
    )
    fleet.add_argument(
        "--watch",
        action="store_true",
        help="read again after each --interval: redraw the table (with --json: print each row that changed)",
    )
    fleet.add_argument(
        "--interval",
        default=DEFAULT_INTERVAL,
        metavar="DURATION",
        help=f"with --watch: the pause between two reads (default {DEFAULT_INTERVAL})",
    )
    # cli.options.resolve: the config file is read context by context, and no single cluster is chosen.
    fleet.set_defaults(handler=_fleet, every_context=True)


def _fleet(args: argparse.Namespace, _settings: ConnectionSettings) -> int:
    deadline = positive_duration(args.deadline, "--deadline")
    interval = positive_duration(args.interval, "--interval")
    reader = FleetReader(chosen_contexts(args), deadline)
    if not args.watch:
        rows = reader.read()
        print(json.dumps({"clusters": [r.to_json() for r in rows]}) if args.json else _text(rows))
        return 1 if any(r.severity >= 2 for r in rows) else 0
    shown: dict[str, dict[str, Any]] = {}

    def changed(row: FleetRow) -> None:
        # JSON lines: each row as it arrives, when it differs from what was last printed for its context.
        if shown.get(row.context) != row.content():
            shown[row.context] = row.content()
            print(json.dumps(row.to_json()), flush=True)

    pause = threading.Event()
    while True:
        rows = reader.read(changed if args.json else None)
        if not args.json:
            # Clear the screen and redraw: the rows keep their worst-first order.
            print("\033[H\033[2J" + _text(rows) + f"\n\nread at {utc_text(int(time.time() * 1000))}; again in "
                  f"{args.interval} (Ctrl-C ends)", flush=True)  # fmt: skip
        pause.wait(interval)


def chosen_contexts(args: argparse.Namespace) -> dict[str, ConnectionSettings | str]:
    """The contexts ``--contexts`` names (``all``: every one of the config file), each with its settings or why
    it is unusable (``kzc fleet``, ``kzc check --contexts``).

    Raises:
        UsageError: the config file has no context, or ``--contexts`` names one it does not have.
    """
    config = load_config(Path(args.config).expanduser() if args.config else None, per_context=True)
    known: dict[str, ConnectionSettings | str] = {**config.contexts, **config.broken}
    if not known:
        raise UsageError(
            f"no context in the config file {config.path}: kzc {args.command} reads its [contexts.NAME] tables"
        )
    names = sorted(known) if args.contexts == "all" else [n.strip() for n in args.contexts.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown or not names:
        raise UsageError(
            f"unknown context(s) {', '.join(unknown) or '(none given)'} in --contexts (known: "
            f"{', '.join(sorted(known))}; config file: {config.path})"
        )
    return {n: known[n] for n in names}


def _text(rows: list[FleetRow]) -> str:
    return "\n".join(FleetTable(rows).lines())
