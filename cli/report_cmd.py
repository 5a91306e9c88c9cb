"""``kzc report --since 2h [--until TIME] [--store DIR] [--cluster NAME] [--out FILE] [--format md|html|json]``:
the incident report of a window of the cluster's history store and the audit log (``core.incident``).

The store and the cluster are found as ``kzc history`` finds them; reading never takes the recorder's lock.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from cli.history_cmd import open_store, pick_cluster
from cli.options import add_command, duration_option, past_moment_option
from core.audit import read_audit
from core.config import ConnectionSettings
from core.errors import KzcError
from core.history.location import STORE_ENV
from core.human_time import utc_text
from core.incident.render import FORMATS, render
from core.incident.report import DEFAULT_SINCE, build_report


def register(sub: Any) -> None:
    """Declare ``kzc report``."""
    parser = add_command(sub, "report")
    parser.add_argument("--since", default=DEFAULT_SINCE, metavar="DURATION",
                        help=f"how far back from --until (default {DEFAULT_SINCE})")  # fmt: skip
    parser.add_argument(
        "--until", metavar="TIME", help="the window's end: 2026-11-28 03:12 (UTC), -45m, ISO or epoch ms (default now)"
    )
    parser.add_argument(
        "--store", metavar="DIR", help=f"the history store (default: the context's history, else ${STORE_ENV})"
    )
    parser.add_argument("--cluster", metavar="NAME", help="the recorded cluster (default: the context's)")
    parser.add_argument("--out", metavar="FILE", help="write the report to FILE (default: print it)")
    parser.add_argument("--format", choices=FORMATS, help="md, html or json (default: FILE's suffix, else md)")
    parser.set_defaults(handler=_report)


def window_bounds(since: str, until: str | None, now_ms: int) -> tuple[int, int]:
    """The window [since, until] in epoch ms.

    Raises:
        UsageError: a bound that does not parse, an end in the future, or a negative span.
    """
    span_ms = int(duration_option(since, "--since") * 1000)
    end = past_moment_option(until, "--until", now_ms) if until is not None else now_ms
    return end - span_ms, end


def _format(args: argparse.Namespace) -> str:
    if args.json:
        return "json"
    if args.format:
        return str(args.format)
    suffix = Path(args.out).suffix.lstrip(".").lower() if args.out else ""
    return {"htm": "html", "markdown": "md"}.get(suffix, suffix) if suffix in (*FORMATS, "htm", "markdown") else "md"


def _report(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    since_ms, until_ms = window_bounds(args.since, args.until, int(time.time() * 1000))
    store = open_store(args, settings)
    cluster = pick_cluster(store, args, settings)
    report = build_report(store, cluster, since_ms, until_ms, read_audit(), cluster)
    text = render(report, _format(args))
    if not args.out:
        print(text, end="")
        return 0
    target = Path(args.out).expanduser()
    temporary = target.with_name(f".{target.name}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, target)
    except OSError as exc:
        raise KzcError(f"cannot write {target}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps({"written": str(target), "format": "json"}))
    else:
        print(f"Wrote the report of cluster {cluster}, {utc_text(since_ms)} to {utc_text(until_ms)}, to {target}")
    return 0
