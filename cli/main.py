"""The ``kzc`` command: global options, subcommand dispatch, and errors as messages with exit codes.

Global options read like Kafka's own tools and are accepted before or after the subcommand
(``kzc --zookeeper Z describe`` == ``kzc describe --zookeeper Z``). Without a subcommand kzc opens
the console. A ``KzcError`` is printed as one line (``{"error": ...}`` with ``--json``), never as a
traceback; exit code 2 means bad input, 1 a failure.
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from cli import commands, console_cmd
from cli.audit_args import audit_rejected
from cli.console_cmd import OpenConsole
from cli.options import (
    KzcArgumentParser,
    MalformedArguments,
    add_console_options,
    add_global_options,
    add_spark_options,
    resolve,
)
from core import __version__
from core.brokers.native_threads import exit_is_unsafe
from core.errors import KzcError, UsageError
from core.interrupt import interrupt, interrupted, left_behind

EXIT_INTERRUPTED = 130
_GRACE_S = 1.0  # how long the interrupted command may take to unwind before kzc exits anyway


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser: every command listed, its module imported when it is parsed (``cli.commands``)."""
    parser = KzcArgumentParser(
        prog="kzc",
        description="kzc: a terminal console for Apache Kafka clusters that keep their metadata in ZooKeeper. "
        "Without a command it opens the console.",
        epilog="Global options may also be given after the command. Contexts: docs/configuration.md.",
    )
    parser.add_argument("--version", action="version", version=f"kzc {__version__}")
    add_global_options(parser, suppress=False)
    add_spark_options(parser, suppress=False)  # the console's checks (kzc check has them too)
    add_console_options(parser)
    commands.add_subcommands(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run kzc with ``argv`` (default: ``sys.argv[1:]``) and return the exit code."""
    threading.excepthook = _quiet_thread_errors
    # kazoo logs reconnect attempts as warnings; kzc reports connection problems itself.
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except MalformedArguments as exc:
        audit_rejected(arguments, str(exc))
        return _error(exc, "--json" in arguments)
    as_json = bool(getattr(args, "json", False))
    fleet = bool(getattr(args, "fleet", False))
    if fleet:  # the console over every context: each with its own settings, as kzc fleet (cli.options.resolve)
        args.every_context, args.command = True, "--fleet"
    try:
        if getattr(args, "at", None) is not None and (fleet or getattr(args, "handler", None) is not None):
            raise UsageError("--at opens the console at a recorded moment; it takes no command and no --fleet")
        if fleet and getattr(args, "handler", None) is not None:
            raise UsageError("--fleet opens the console on every context; it takes no command (see kzc fleet)")
        try:
            settings, warnings = resolve(args)
        except KzcError as exc:
            audit_rejected(arguments, str(exc), args)
            raise
        for warning in warnings:
            print(f"kzc: warning: {warning}", file=sys.stderr)
        handler = getattr(args, "handler", None)
        if getattr(args, "sigterm_interrupts", False):
            _interrupt_on_sigterm()  # a long-running command (kzc record) stops as on Ctrl-C: cleanups, final flush
        # The console opens here, on the main thread, whether asked for directly or by a command (sandbox up --open).
        outcome = OpenConsole(settings) if handler is None else run_interruptibly(lambda: handler(args, settings))
        if isinstance(outcome, OpenConsole) and fleet:
            return console_cmd.open_fleet(args.config)
        if isinstance(outcome, OpenConsole) and getattr(args, "at", None) is not None:
            return console_cmd.open_moment(outcome.settings, args.at, getattr(args, "console_store", None))
        if isinstance(outcome, OpenConsole):
            return console_cmd.open_console(outcome.settings)
        return outcome
    except KzcError as exc:
        return _error(exc, as_json)
    except KeyboardInterrupt:
        interrupt()
        print("kzc: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): stop quietly, and keep Python from complaining at exit.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115
        return 0


def _error(exc: KzcError, as_json: bool) -> int:
    """Every refusal and failure, on every path: one line on stderr and, with ``--json``, one object on stdout."""
    if as_json:
        print(json.dumps({"error": str(exc)}), flush=True)
    print(f"kzc: error: {exc}", file=sys.stderr)
    return exc.exit_code


def run_interruptibly(command: Callable[[], int | OpenConsole]) -> int | OpenConsole:
    """Run ``command`` in a worker thread; Ctrl-C in the main thread ends kzc within ``_GRACE_S``.

    The main thread only waits, so it always receives Ctrl-C (kazoo's bare ``except:`` can swallow a
    KeyboardInterrupt in the thread that calls it). On Ctrl-C, ``core.interrupt.interrupt()`` closes the
    ZooKeeper sessions, stops kzc's Spark worker, removes partial files and records interrupted audit
    attempts; the worker is then given a moment to unwind and abandoned (it is a daemon thread).

    Raises:
        KzcError, any exception: whatever the command raised.
        KeyboardInterrupt: the user interrupted (after the cleanups ran).
    """
    outcome: dict[str, Any] = {}

    def work() -> None:
        try:
            outcome["code"] = command()
        except BaseException as exc:  # handed to the main thread as it is
            outcome["error"] = exc

    worker = threading.Thread(target=work, name="kzc-command", daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
    except KeyboardInterrupt:
        _ignore_further_interrupts()
        interrupt()
        worker.join(_GRACE_S)
        raise
    if interrupted():
        raise KeyboardInterrupt
    if "error" in outcome:
        raise outcome["error"]
    code = outcome["code"]
    return code if isinstance(code, OpenConsole) else int(code)


def _ignore_further_interrupts() -> None:
    """A second Ctrl-C while cleaning up must not cut the cleanup short (main thread only)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def _interrupt_on_sigterm() -> None:
    """SIGTERM raises KeyboardInterrupt in the main thread, so the command stops as on Ctrl-C (main thread only)."""

    def terminate(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, terminate)


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
    code = main()
    # What the command built is garbage now, and the interpreter's last collections would walk all of it (a console
    # on 50k partitions: 1.5 s after its screen was gone). Objects still alive are frozen out of those passes;
    # everything that must be written is written (the audit log line by line, the recorder's final flush).
    gc.freeze()
    if interrupted() or left_behind() or exit_is_unsafe():
        # Abandoned worker threads (a blocked kazoo call) must not hold the exit up; librdkafka's threads must not
        # outlive the interpreter (core.brokers.native_threads).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    run()
