"""How long ``q`` takes to give the terminal back: the console on a synthetic N-partition layout in a 160x48 pty
(``end_to_end_bench.Console``), left open ``--settle`` seconds after the whole cluster is on screen (so that the
Spark worker it starts for the checks is up, as in a console left open), then ``q``; timed from the key to the
process's exit, with its exit status. ``--baseline DIR`` runs another checkout's kzc (e.g. main's) on the same
layout, alternating rounds, in the same run. With ``--stacks``, every thread's stack is written to
``/tmp/kzc-quit-stacks-<pid>.txt`` every 0.5 s during the quit (``faulthandler`` on SIGUSR1), to see where it goes.

    .venv/bin/python benchmarks/console_quit_bench.py [--partitions 30000] [--rounds 2] [--settle 20]
        [--baseline /path/to/other/checkout] [--stacks]
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

# Registers the stack dump on SIGUSR1, then runs kzc as its console script does.
_WITH_STACKS = (
    "import faulthandler, os, signal, sys; "
    "faulthandler.register(signal.SIGUSR1, open(f'/tmp/kzc-quit-stacks-{os.getpid()}.txt', 'w'), all_threads=True); "
    "sys.argv[0] = 'kzc'; from cli.main import run; run()"
)


def quit_once(checkout: Path, target: str, config: str, partitions: int, settle: float, stacks: bool) -> float:
    """Seconds from ``q`` to the exit of the console of ``checkout`` (its exit status must be 0)."""
    import end_to_end_bench
    from tui_pty import Terminal

    python = checkout / ".venv" / "bin" / "python"
    command = [str(python), "-c", _WITH_STACKS] if stacks else [str(checkout / ".venv" / "bin" / "kzc")]
    console = end_to_end_bench.Console.__new__(end_to_end_bench.Console)
    console.terminal = Terminal([*command, "--config", config, "--zookeeper", target])
    here = os.getcwd()
    os.chdir(checkout)  # ``python -c`` imports kzc from its working directory
    try:
        console.terminal.start()
    finally:
        os.chdir(here)
    try:
        console.wait_for_text(f"{partitions:,} partitions")
        time.sleep(settle)  # a console left open: what it started meanwhile (the Spark worker) is up
        process = console.terminal.process
        sent = time.monotonic()
        os.write(console.terminal.master, b"q")
        while process.poll() is None and time.monotonic() - sent < 120:
            if stacks:
                with_stacks_dump(process.pid)
            time.sleep(0.05)
        took = time.monotonic() - sent
        if process.wait(5) != 0:
            raise RuntimeError(f"the console exited {process.returncode}")
        return took
    finally:
        console.terminal.stop()


def with_stacks_dump(pid: int) -> None:
    """Ask the console for its stacks (it writes them to its file) and wait half a second."""
    try:
        os.kill(pid, signal.SIGUSR1)
    except ProcessLookupError:
        return
    time.sleep(0.45)


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=30_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--settle", type=float, default=20.0)
    parser.add_argument("--baseline", type=Path, help="another checkout (with its .venv) measured alongside")
    parser.add_argument("--stacks", action="store_true")
    args = parser.parse_args()
    logging.getLogger("kazoo").addHandler(logging.NullHandler())
    logging.getLogger("kazoo").propagate = False
    import zk_layout
    from snapshot_bench import BareZooKeeper

    checkouts = {"this checkout": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline else {})}
    for checkout in checkouts.values():  # as pip leaves kzc: compiled
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", "cli", "core", "tui"], cwd=checkout, env=env, check=True
        )
    config = str(Path(tempfile.mkdtemp(prefix="kzc-quit-")) / "none.toml")
    server = BareZooKeeper(heap="1g")
    try:
        chroot = f"/kzc-quit-{uuid.uuid4().hex[:8]}"
        zk_layout.populate(server.hosts, chroot, args.partitions)
        times: dict[str, list[float]] = {name: [] for name in checkouts}
        for n in range(1, args.rounds + 1):
            for name, checkout in checkouts.items():
                load = os.getloadavg()[0]
                took = quit_once(checkout, server.hosts + chroot, config, args.partitions, args.settle, args.stacks)
                times[name].append(took)
                print(f"  round {n}, {name} (load {load:.1f}): q to exit {took:.2f} s", flush=True)
        for name, values in times.items():
            best, worst = min(values), max(values)
            print(f"{name}: q to exit, best {best:.2f} s, worst {worst:.2f} s ({args.partitions:,} partitions)")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
