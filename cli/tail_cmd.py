"""``kzc tail TOPIC``: a topic's messages, read without a trace (no group joined, nothing committed).

Each message: where it is (topic, partition, offset), its timestamp and type, key, headers, size and the value
shown as text, JSON or hex by what it is (``core.messages``). ``--json`` prints one ``kcat -J`` record per
line. Values are cut at ``--max-bytes`` (64 KiB unless told; 0: whole), their full size always said. The
header lines (where the read starts, which brokers, whether headers exist) go to stderr, so stdout holds only
messages. Without ``--follow`` the read ends at each partition's end as it was when the read started;
Ctrl-C ends it cleanly either way.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from cli.options import add_command
from core.config import ConnectionSettings
from core.errors import UsageError
from core.groups.reset import parse_datetime
from core.interrupt import interrupted
from core.messages.present import kcat_record, message_lines
from core.messages.reader import DEFAULT_FROM_END, MessageReader, TailRequest
from core.messages.source import resolve_source

DEFAULT_MAX_BYTES = 64 * 1024
_POLL_S = 0.2  # how long a poll waits: also how soon Ctrl-C is noticed


def register(sub: Any) -> None:
    """Declare ``kzc tail``."""
    tail = add_command(sub, "tail")
    tail.add_argument("topic", metavar="TOPIC")
    tail.add_argument("--partition", type=int, metavar="P", help="only this partition")
    start = tail.add_mutually_exclusive_group()
    start.add_argument(
        "--from-end",
        type=int,
        metavar="N",
        help=f"start N offsets before each partition's end, per partition, as kcat -o -N (default {DEFAULT_FROM_END})",
    )
    start.add_argument("--offset", type=int, metavar="O", help="start at offset O (in each partition read)")
    start.add_argument(
        "--timestamp",
        metavar="T",
        help="start at the first message at or after T: epoch milliseconds or yyyy-MM-ddTHH:mm:ss.SSS[zone]",
    )
    tail.add_argument("--follow", "-f", action="store_true", help="keep reading new messages until Ctrl-C")
    tail.add_argument("--count", "-c", type=int, metavar="N", help="stop after N messages")
    tail.add_argument(
        "--max-bytes",
        default=str(DEFAULT_MAX_BYTES),
        metavar="SIZE",
        help="show at most SIZE bytes of each value (e.g. 4096, 64k, 5m; 0: whole); the full size is always shown",
    )
    tail.add_argument("--fold", action="store_true", help="JSON values on one line, text with \\n escaped")
    tail.set_defaults(handler=_tail)


def parse_size(text: str) -> int | None:
    """``--max-bytes``: bytes, with an optional ``k``/``m`` suffix; 0 means no limit (None).

    Raises:
        UsageError: anything else.
    """
    raw = text.strip().lower()
    factor = {"k": 1024, "m": 1024 * 1024}.get(raw[-1:], 1)
    digits = raw[:-1] if factor != 1 else raw
    if not digits.isdigit():
        raise UsageError(f"--max-bytes takes a size such as 4096, 64k or 5m, got '{text}'")
    value = int(digits) * factor
    return value or None


def parse_timestamp(text: str) -> int:
    """``--timestamp``: epoch milliseconds, or Kafka's ``yyyy-MM-ddTHH:mm:ss.SSS[zone]`` (as reset-offsets)."""
    raw = text.strip()
    if raw.isdigit():
        return int(raw)
    return parse_datetime(raw)


def _tail(args: argparse.Namespace, settings: ConnectionSettings) -> int:
    limit = parse_size(args.max_bytes)
    request = TailRequest(
        topic=args.topic,
        partition=args.partition,
        from_end=args.from_end,
        offset=args.offset,
        timestamp_ms=None if args.timestamp is None else parse_timestamp(args.timestamp),
        follow=args.follow,
        count=args.count,
    )
    source = resolve_source(settings, args.topic)
    reader = MessageReader(source.bootstrap, security=source.security)
    read = 0
    try:
        starts = reader.plan(request)
        print(f"kzc: {args.topic}: {request.start_description}; brokers from {source.via}", file=sys.stderr)
        for start in starts:
            note = f" ({start.note})" if start.note else ""
            print(
                f"kzc:   partition {start.partition}: offsets {start.low}..{start.high}, from {start.start}{note}",
                file=sys.stderr,
            )
        if source.headers_unsupported:
            print(f"kzc: {source.headers_unsupported}", file=sys.stderr)
        reader.start(request, starts)
        while not reader.finished and not interrupted():
            for message in reader.poll(_POLL_S):
                if args.json:
                    print(json.dumps(kcat_record(message, limit=limit), ensure_ascii=False))
                else:
                    lines = message_lines(
                        message, limit=limit, pretty=not args.fold, headers_unsupported=source.headers_unsupported
                    )
                    print("\n".join(lines))
                read += 1
            sys.stdout.flush()
    finally:
        reader.close()
    if not interrupted():
        print(f"kzc: {read} message{'s' if read != 1 else ''}", file=sys.stderr)
    return 0
