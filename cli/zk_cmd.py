"""``kzc zk ls PATH`` and ``kzc zk get PATH``: the generic ZooKeeper browser on the command line; ``kzc zk
health``: ZooKeeper's own health, every server of the connect string (``core.zookeeper.health``).

Paths are relative to the chroot of ``--zookeeper`` (the Kafka chroot). ``ls`` reads the child count
first and, above 10,000 children, lists names only with ``--all`` (ZooKeeper returns them all in one
response). ``get`` shows the data decoded (Kafka JSON for Kafka znodes, else text, else a hexdump), the
fields explained, the stat with readable times, and the ACL.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.options import add_command
from core.config import ConnectionSettings
from core.errors import KzcError, UsageError
from core.human_time import since_text
from core.snapshot.zk_session_timeout import read_kafka_session_timeouts
from core.zookeeper.health import (
    COLUMNS,
    PROBE_TIMEOUT_S,
    EnsembleHealth,
    probe_ensemble,
    server_cells,
    session_line,
    summary_line,
    tls_context,
)
from core.zookeeper.kafka_root import no_kafka_cluster
from core.zookeeper.session import ZkSession
from core.zookeeper.tree import LARGE_CHILD_COUNT, ChildPage, ZnodeView, list_children, read_znode

_ALL = 2**31


def register(sub: Any) -> None:
    """Declare ``kzc zk`` and its subcommands."""
    zk = add_command(sub, "zk", json_flag=False)
    actions = zk.add_subparsers(dest="zk_command", metavar="ACTION", required=True)

    ls = add_command(actions, "ls", "list the children of a znode (sorted; numbers numerically)")
    ls.add_argument("path", metavar="PATH", help="znode path under the chroot, e.g. /brokers/ids")
    ls.add_argument(
        "--all",
        action="store_true",
        help=f"list even more than {LARGE_CHILD_COUNT:,} children (fetched in one ZooKeeper response)",
    )
    ls.add_argument("--offset", type=int, default=0, metavar="N", help="skip the first N names")
    ls.add_argument("--limit", type=int, default=None, metavar="N", help="list at most N names")
    ls.set_defaults(handler=_ls)

    get = add_command(actions, "get", "show a znode: decoded data, Kafka fields explained, stat, ACL")
    get.add_argument("path", metavar="PATH", help="znode path under the chroot, e.g. /controller")
    get.set_defaults(handler=_get)

    health = add_command(
        actions,
        "health",
        "ZooKeeper's own health: every server's mode, lag, latency and load, the quorum, and alarms "
        "(srvr/mntr/conf, else the AdminServer); exits 1 when an alarm is an error",
    )
    health.add_argument(
        "--no-admin", action="store_true", help="never ask the AdminServer (its port: --zk-admin-port, default 8080)"
    )
    health.add_argument(
        "--timeout", type=float, default=PROBE_TIMEOUT_S, metavar="SECONDS", help="per request to a server"
    )
    health.set_defaults(handler=_health)


def _session(settings: ConnectionSettings) -> ZkSession:
    if settings.zookeeper is None:
        raise UsageError("no ZooKeeper to browse: give --zookeeper HOST:PORT[/chroot] or --context NAME")
    session = ZkSession(settings)
    session.start()
    try:
        problem = no_kafka_cluster(session)
    except KzcError:
        problem = None  # browsing raw ZooKeeper goes on; its own reads report failures
    if problem is not None:
        print(f"kzc: warning: {problem} (browsing raw ZooKeeper)", file=sys.stderr)
    return session


def _ls(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if args.offset < 0 or (args.limit is not None and args.limit < 1):
        raise UsageError("--offset must be 0 or more and --limit at least 1")
    limit = args.limit or _ALL
    session = _session(settings)
    try:
        if args.offset:
            skipped = list_children(session, args.path, page_size=args.offset, fetch_large=args.all)
            page = skipped
            if skipped.next_cursor is not None:
                page = list_children(session, args.path, page_size=limit, cursor=skipped.next_cursor)
            elif skipped.listed:
                page = _empty_after(skipped)
        else:
            page = list_children(session, args.path, page_size=limit, fetch_large=args.all)
    finally:
        session.stop()
    if args.json:
        print(
            json.dumps(
                {
                    "path": page.path,
                    "num_children": page.total,
                    "listed": page.listed,
                    "offset": page.offset,
                    "children": list(page.names),
                    # Not listed (over the limit, no --all): every name is still to come.
                    "more": page.next_cursor is not None or (not page.listed and page.total > 0),
                }
            )
        )
        return 0
    if not page.listed:
        print(
            f"{page.path} has {page.total:,} children: more than {LARGE_CHILD_COUNT:,}, so they were not fetched "
            "(ZooKeeper sends them all in one response). Add --all to list them.",
            file=sys.stderr,
        )
        return 0
    for name in page.names:
        print(name)
    shown_to = page.offset + len(page.names)
    if page.next_cursor is not None or page.offset:
        print(f"({page.offset + 1 if page.names else page.offset}-{shown_to} of {page.total:,})", file=sys.stderr)
    return 0


def _empty_after(page: ChildPage) -> ChildPage:
    """The (empty) page after the last one, for an offset past the end."""
    return ChildPage(page.path, page.total, (), page.offset + len(page.names), None, True, page.changed, page.stat)


def _get(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    session = _session(settings)
    try:
        view = read_znode(session, args.path)
    finally:
        session.stop()
    if args.json:
        print(json.dumps(view.to_json()))
    else:
        print(render(view))
    return 0


def render(view: ZnodeView, now_ms: int | None = None) -> str:
    """The text form of ``kzc zk get``."""
    import time

    now = now_ms if now_ms is not None else int(time.time() * 1000)
    kind = view.kafka_kind
    title = f"{view.path}  ({'Kafka ' + kind.value if kind else 'not a Kafka znode'})"
    lines = [title, f"data ({view.data.kind}, {view.stat.data_length:,} bytes):"]
    lines += ["  " + line for line in (view.data.text or "(empty)").splitlines()]
    rows = view.explained()
    if rows:
        lines.append("explained:")
        width = min(32, max(len(f) for f, _, _ in rows))
        value_width = min(40, max(len(v) for _, v, _ in rows))
        lines += [f"  {f:<{width}}  {v:<{value_width}}  {m}" for f, v, m in rows]
    s = view.stat
    lines += [
        "stat:",
        f"  created      {since_text(s.ctime_ms, now)}  czxid {hex(s.czxid)}",
        f"  modified     {since_text(s.mtime_ms, now)}  mzxid {hex(s.mzxid)}  version {s.version}",
        f"  children     {s.num_children:,}  cversion {s.cversion}  pzxid {hex(s.pzxid)}",
        f"  ephemeral    {'owner session ' + hex(s.ephemeral_owner) if s.ephemeral else 'no'}",
        f"  acl version  {s.aversion}",
        "acl:",
    ]
    lines += [f"  {entry}" for entry in view.acl]
    return "\n".join(lines)


def _health(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    if settings.zookeeper is None:
        raise UsageError("no ZooKeeper to probe: give --zookeeper HOST:PORT[,...] or --context NAME")
    if args.timeout <= 0:
        raise UsageError("--timeout must be above 0 seconds")
    # No ZooKeeper session: the words work when the quorum is lost, which is when this is asked.
    kafka = read_kafka_session_timeouts(settings.bootstrap_servers, settings.kafka_security)
    health = probe_ensemble(
        settings.zookeeper,
        timeout=args.timeout,
        admin_port=None if args.no_admin else settings.zk_admin_port,
        tls=tls_context(settings),
        kafka=kafka,
    )
    if args.json:
        print(json.dumps(health.to_json()))
    else:
        print(render_health(health))
    return 1 if any(a.severity == "error" for a in health.alarms) else 0


def render_health(health: EnsembleHealth) -> str:
    """The text form of ``kzc zk health``: a table of the servers, the leader's followers, session timeouts,
    alarms and notes."""
    rows = [server_cells(s) for s in health.servers]
    lines = [f"ZooKeeper ensemble: {summary_line(health)}", ""]
    lines += _table([title for _, title in COLUMNS], [[r[key] for key, _ in COLUMNS] for r in rows])
    for s in health.servers:
        problems = [*s.problems, *([s.error] if s.error else [])]
        if problems:
            lines.append(f"  {s.server}: " + "; ".join(problems))
    lines += ["", session_line(health)]
    lines.append("alarms:" if health.alarms else "alarms: none")
    lines += [f"  {a.severity.upper():<7} {a.text}" for a in health.alarms]
    lines += [f"note: {n}" for n in health.notes]
    return "\n".join(lines)


def _table(headers: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in [headers, *rows]]
