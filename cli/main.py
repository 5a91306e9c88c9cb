"""The ``kzc`` command: global options, subcommand dispatch, and errors as messages with exit codes.

Global options read like Kafka's own tools and are accepted before or after the subcommand
(``kzc --zookeeper Z describe`` == ``kzc describe --zookeeper Z``). Without a subcommand kzc opens
the console. A ``KzcError`` is printed as one line (``{"error": ...}`` with ``--json``), never as a
traceback; exit code 2 means bad input, 1 a failure.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import threading
from collections.abc import Sequence

from cli import commands
from cli.options import add_global_options, add_spark_options, settings_from_args
from core import __version__
from core.errors import KzcError


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (every subcommand registered)."""
    parser = argparse.ArgumentParser(
        prog="kzc",
        description="kzc: a terminal console for Apache Kafka clusters that keep their metadata in ZooKeeper. "
        "Without a command it opens the console.",
        epilog="Global options may also be given after the command. Contexts: docs/configuration.md.",
    )
    parser.add_argument("--version", action="version", version=f"kzc {__version__}")
    add_global_options(parser, suppress=False)
    add_spark_options(parser, suppress=False)  # the console's checks (kzc check has them too)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in commands.REGISTRY:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run kzc with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    threading.excepthook = _quiet_thread_errors
    # kazoo logs reconnect attempts as warnings; kzc reports connection problems itself.
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    parser = build_parser()
    args = parser.parse_args(argv)
    as_json = bool(getattr(args, "json", False))
    try:
        settings = settings_from_args(args)
        handler = getattr(args, "handler", None)
        if handler is None:
            from cli.console_cmd import open_console

            return open_console(settings)
        result: int = handler(args, settings)
        return result
    except KzcError as exc:
        if as_json:
            print(json.dumps({"error": str(exc)}))
        print(f"kzc: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("kzc: interrupted", file=sys.stderr)
        return 130


def _quiet_thread_errors(args: threading.ExceptHookArgs) -> None:
    """One line instead of a traceback for a failing background thread.

    kazoo's connection thread dies on a SASL rejection; ZkSession already reports that clearly.
    """
    if args.thread is not None and args.thread.name.endswith("(zk_loop)"):
        return
    print(
        f"kzc: background thread {args.thread.name if args.thread else '?'} failed: {args.exc_value!r}", file=sys.stderr
    )


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
