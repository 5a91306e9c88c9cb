"""``kzc migration [--json]``: where a ZooKeeper-to-KRaft migration stands, what blocks it, what comes next.

Reads ZooKeeper (``/migration``, ``/controller``, ``/brokers/ids``, the topics) and, with
``--bootstrap-server``, the brokers (which serve, their migration flag and inter.broker.protocol.version).
Writes nothing. Exit 0 whatever the phase; docs/migration.md describes each phase.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from cli.options import add_command
from cli.snapshot_cmd import add_read_options, take_snapshot
from core.config import ConnectionSettings
from core.errors import UsageError
from core.migration.status import (
    MigrationStatus,
    ask_brokers,
    migration_advancing,
    migration_status,
    needs_advance_check,
)
from core.zookeeper.kafka_root import open_kafka_session


def register(sub: Any) -> None:
    """Declare ``kzc migration``."""
    migration = add_command(sub, "migration")
    add_read_options(migration)
    migration.set_defaults(handler=_migration)


def _migration(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if settings.zookeeper is None:
        raise UsageError("no cluster: give --zookeeper HOST:PORT[/chroot] or --context NAME")
    snapshot, _ = take_snapshot(settings, args.max_in_flight)
    advancing = None
    if needs_advance_check(snapshot):
        with open_kafka_session(settings) as session:
            advancing = migration_advancing(session)
    brokers = ask_brokers(settings.bootstrap_servers, settings.kafka_security, snapshot.brokers)
    status = migration_status(snapshot, brokers, advancing)
    print(json.dumps(status.to_json()) if args.json else render(status))
    return 0


def render(status: MigrationStatus) -> str:
    """The text form of ``kzc migration``."""
    lines = [f"Phase        {status.phase.label}", f"             {status.view.reason}"]
    controller = status.kraft_controller_json()
    if controller is None:
        lines.append("KRaft        no KRaft controller in ZooKeeper")
    else:
        moving = {True: ", advancing", False: ", not advancing", None: ""}[status.advancing]
        lines.append(
            f"KRaft        controller {controller['id']}, epoch {controller['epoch']}; /migration at offset "
            f"{controller['metadata_offset']}, epoch {controller['metadata_epoch']}{moving}"
        )
    modes = ", ".join(
        f"{b.id} {b.mode.value}" + ("" if b.source == "zookeeper" else f" ({b.source})") for b in status.brokers
    )
    lines.append(f"Brokers      {modes or 'none'}")
    lines.append(f"Next         {status.next_step}")
    lines.append(f"Rollback     {status.view.rollback}")
    if status.blockers:
        lines.append(f"Blockers     {len(status.blockers)}")
        lines += [f"  {b.check}: {b.detail}" for b in status.blockers]
    else:
        lines.append("Blockers     none")
    lines += [f"Note         {note}" for note in status.notes]
    return "\n".join(lines)
