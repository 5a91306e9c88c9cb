"""What a user waits for, end to end, beside the bare read of the same znodes, in the same run.

On a real ZooKeeper (``BareZooKeeper``: the sandbox's jars) holding a synthetic Kafka layout of N partitions
(``zk_layout.py``, the znodes Kafka writes), alternating rounds of, each a process started from nothing:

- **bare**: ``python`` importing kazoo, connecting and reading through ``get_async``/``get_children_async``
  pipelined (2,000 in flight) exactly the requests kzc's full read makes, without parsing: the floor;
- **kzc snapshot -o FILE**: from the command to its exit;
- **the console** (``kzc --zookeeper ...`` in a 160x48 pty, as over SSH): from the command to the partition
  count of the whole cluster on screen (``N partitions`` in the cluster screen's totals); then ``q`` and the
  time to exit;

each with its peak resident memory (``wait4``'s ``ru_maxrss``; the console's ``VmHWM`` when the count shows).
kzc's modules are compiled first, as ``pip install`` leaves them (see ``main``).
Then ``python -c pass``, ``kzc --help`` and ``kzc describe --help`` as processes, and a breakdown of where the
time goes, measured in this process on the same layout: imports (a fresh interpreter importing what the console
imports), session (connect and the Kafka-cluster check), reads (``SnapshotReader.read`` less its parsing),
parsing and building the snapshot (``ReadAttempt._build``, timed by wrapping it), building the view
(``ViewBuilder.build``); "first paint and the rest" is the console's best figure less those (a separate run:
on a loaded machine it can come out negative, and then says only that the run was noisy). With ``--profile``,
also cProfile's heaviest functions of one more in-process read (the reader, its parsing and building).

With ``--large N`` (e.g. 200000), the console alone on N partitions: opens, stays live (a new topic written
into ZooKeeper shows up in the totals), quits cleanly (exit status 0); its memory before and after. With
``--churn R`` too, R rounds of 2,000 partitions' ISRs shrunk and restored and a screen change, with the memory
after each round.

    .venv/bin/python benchmarks/end_to_end_bench.py [--partitions 50000] [--rounds 3] [--profile]
        [--large 200000 [--churn 5]]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

KZC = str(Path(sys.executable).with_name("kzc"))
LIMIT_CONSOLE, LIMIT_SNAPSHOT, LIMIT_START_S = 1.3, 1.1, 0.5
_ESCAPES = re.compile(rb"\x1b(\[[0-9;?<>=$ ]*[A-Za-z~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][A-Za-z0-9]|[=>78])")


def bare_child(hosts: str, request_file: str) -> None:
    """The floor, as a process: kazoo alone reads the request list pipelined (nothing of kzc imported)."""
    from collections import deque

    from kazoo.client import KazooClient
    from kazoo.exceptions import NoNodeError

    requests = json.loads(Path(request_file).read_text())
    client = KazooClient(hosts=hosts, timeout=30)
    client.start(timeout=30)
    get, children = client.get_async, client.get_children_async
    in_flight: deque[Any] = deque()

    def answer(result: Any) -> None:
        with suppress(NoNodeError):
            result.get()

    for listing, path in requests:
        in_flight.append(children(path) if listing else get(path))
        if len(in_flight) >= 2000:
            answer(in_flight.popleft())
    while in_flight:
        answer(in_flight.popleft())
    client.stop()
    client.close()


@dataclass(frozen=True)
class Figure:
    """One measured run: wall seconds, CPU seconds of the process (every thread; on a shared machine the part
    the process itself controls) and its peak resident memory in MiB."""

    wall: float
    cpu: float
    peak_mib: float

    def text(self) -> str:
        return f"{self.wall:.2f} s (cpu {self.cpu:.2f} s, {self.peak_mib:.0f} MiB)"


def run_process(command: Sequence[str]) -> Figure:
    """Run ``command`` to its end (a non-zero exit is an error)."""
    started = time.perf_counter()
    process = subprocess.Popen(list(command), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    took = time.perf_counter() - started
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        error = process.stderr.read().decode() if process.stderr else ""
        raise RuntimeError(f"{' '.join(command)} exited {code}: {error}")
    return Figure(took, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)


def screen_text(raw: bytes) -> bytes:
    """The terminal output without its escape sequences (enough to find a line's text)."""
    return _ESCAPES.sub(b"", raw)


class Console:
    """The console as a process on a pty, and when its screen first showed a text."""

    def __init__(self, target: str, config: str) -> None:
        from tui_pty import Terminal

        self.terminal = Terminal([KZC, "--config", config, "--zookeeper", target])
        self.terminal.start()

    def wait_for_text(self, text: str, since: int = 0, timeout: float = 600) -> float:
        """Seconds from the start until ``text`` was on screen."""
        terminal, needle = self.terminal, text.encode()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with terminal._new:
                chunks = terminal.chunks[since:]
                closed = terminal._closed
            if needle in screen_text(b"".join(c.data for c in chunks)):
                # The first chunk by which the text was complete (a sequence may span two chunks).
                low, high = 0, len(chunks) - 1
                while low < high:
                    middle = (low + high) // 2
                    if needle in screen_text(b"".join(c.data for c in chunks[: middle + 1])):
                        high = middle
                    else:
                        low = middle + 1
                return chunks[low].at - terminal.started
            if closed:
                break
            with terminal._new:
                terminal._new.wait(timeout=0.2)
        tail = screen_text(terminal.output())[-2000:].decode(errors="replace")
        raise TimeoutError(f"{text!r} not on screen within {timeout} s; the screen ended with: {tail}")

    def cpu_s(self) -> float:
        """CPU seconds the console has used so far (every thread)."""
        fields = Path(f"/proc/{self.terminal.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def memory_mib(self) -> tuple[float, float]:
        """(current, peak) resident memory in MiB."""
        current, peak = self.terminal.rss_kib()
        return current / 1024, peak / 1024

    def quit(self, timeout: float = 60) -> tuple[float, int]:
        """Press q; (seconds until the process exited, its exit status)."""
        sent = time.monotonic()
        os.write(self.terminal.master, b"q")
        code = self.terminal.process.wait(timeout)
        took = time.monotonic() - sent
        os.close(self.terminal.master)
        return took, code


def console_open(target: str, config: str, partitions: int) -> tuple[Figure, float, int]:
    """From the command to ``N partitions`` on screen (CPU and peak memory then), quit seconds and status."""
    console = Console(target, config)
    try:
        shown = console.wait_for_text(f"{partitions:,} partitions")
        cpu = console.cpu_s()
        _, peak = console.memory_mib()
        quit_s, code = console.quit()
        return Figure(shown, cpu, peak), quit_s, code
    except BaseException:
        console.terminal.stop()
        raise


def starts(command: Sequence[str], times: int) -> list[float]:
    return [run_process(command).wall for _ in range(times)]


def breakdown(target: str) -> dict[str, float]:
    """Where the console's time goes, measured in this process (see the module docstring)."""
    from core.config import ConnectionSettings
    from core.connect import parse_zookeeper
    from core.console.view import ViewBuilder
    from core.snapshot.read_attempt import ReadAttempt
    from core.snapshot.reader import SnapshotReader
    from core.zookeeper.kafka_root import open_kafka_session

    figures: dict[str, float] = {}
    imports = "import time; t = time.perf_counter(); import cli.main, tui.app, core.console.zk; "
    imports += "print(time.perf_counter() - t)"
    figures["imports"] = min(
        float(subprocess.run([sys.executable, "-c", imports], capture_output=True, text=True, check=True).stdout)
        for _ in range(3)
    )
    settings = ConnectionSettings(zookeeper=parse_zookeeper(target), session_timeout=30.0)
    built: list[float] = []
    original: Callable[..., Any] = ReadAttempt._build

    def timed_build(self: Any) -> Any:
        began = time.perf_counter()
        try:
            return original(self)
        finally:
            built.append(time.perf_counter() - began)

    started = time.perf_counter()
    with open_kafka_session(settings) as session:
        figures["session"] = time.perf_counter() - started
        ReadAttempt._build = timed_build  # type: ignore[method-assign]
        try:
            started = time.perf_counter()
            snapshot = SnapshotReader(session).read()
            read = time.perf_counter() - started
        finally:
            ReadAttempt._build = original  # type: ignore[method-assign]
    figures["parse"] = sum(built)
    figures["reads"] = read - figures["parse"]
    started = time.perf_counter()
    ViewBuilder().build(snapshot, int(time.time() * 1000))
    figures["view"] = time.perf_counter() - started
    return figures


def profile_read(target: str, top: int = 20) -> str:
    """cProfile of one in-process snapshot read, the ``top`` functions by their own time."""
    import cProfile
    import io
    import pstats

    from core.config import ConnectionSettings
    from core.connect import parse_zookeeper
    from core.snapshot.reader import SnapshotReader
    from core.zookeeper.kafka_root import open_kafka_session

    settings = ConnectionSettings(zookeeper=parse_zookeeper(target), session_timeout=30.0)
    with open_kafka_session(settings) as session:
        profile = cProfile.Profile()
        profile.runcall(SnapshotReader(session).read)
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(top)
    return out.getvalue()


def write_topic(hosts: str, chroot: str, name: str) -> None:
    """A one-partition topic as Kafka writes it (topic znode, then its partition state)."""
    from kazoo.client import KazooClient

    client = KazooClient(hosts=hosts + chroot, timeout=30)
    client.start(timeout=30)
    try:
        topic = {"version": 3, "partitions": {"0": [1, 2, 3]}, "adding_replicas": {}, "removing_replicas": {}}
        client.create(f"/brokers/topics/{name}", json.dumps(topic).encode())
        state = {"controller_epoch": 7, "leader": 1, "version": 1, "leader_epoch": 0, "isr": [1, 2, 3]}
        client.create(f"/brokers/topics/{name}/partitions/0/state", json.dumps(state).encode(), makepath=True)
    finally:
        client.stop()
        client.close()


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--partitions", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--large", type=int, default=0, help="also open the console on this many partitions")
    parser.add_argument("--skip-main", action="store_true", help="only the --large console")
    parser.add_argument("--churn", type=int, default=0, help="with --large: rounds of ISR churn and screen changes")
    parser.add_argument("--profile", action="store_true", help="also profile one in-process snapshot read")
    parser.add_argument("--bare-child", nargs=2, metavar=("HOSTS", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.bare_child:
        bare_child(*args.bare_child)
        return

    # As installed: pip compiles a package's modules at install time, so a user's kzc starts from bytecode, as the
    # bare read's kazoo does. An environment with PYTHONDONTWRITEBYTECODE set would make every kzc process compile
    # its ~250 modules from source (0.5-0.9 CPU s more on these cores), a cost no user pays.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    subprocess.run([sys.executable, "-m", "compileall", "-q", "cli", "core", "tui"], cwd=ROOT, check=True)

    import zk_layout
    from snapshot_bench import BareZooKeeper, request_list

    from core.config import ConnectionSettings
    from core.connect import parse_zookeeper
    from core.snapshot.reader import SnapshotReader
    from core.zookeeper.session import ZkSession

    work = Path(tempfile.mkdtemp(prefix="kzc-e2e-"))
    config = str(work / "none.toml")  # no user config: what a new user runs
    server = BareZooKeeper(heap="2g")
    try:
        if not args.skip_main:
            chroot = f"/kzc-e2e-{uuid.uuid4().hex[:8]}"
            layout = zk_layout.populate(server.hosts, chroot, args.partitions)
            target = server.hosts + chroot
            print(f"layout: {layout.partitions:,} partitions in {layout.topics:,} topics, {layout.znodes:,} znodes")
            session = ZkSession(ConnectionSettings(zookeeper=parse_zookeeper(target), session_timeout=30.0))
            session.start()
            try:
                requests = request_list(SnapshotReader(session).read())
            finally:
                session.stop()
            request_file = work / "requests.json"
            request_file.write_text(json.dumps(requests))
            bare_command = [sys.executable, __file__, "--bare-child", target, str(request_file)]
            snapshot_command = [KZC, "--config", config, "--zookeeper", target, "snapshot", "-o", str(work / "s.jsonl")]
            run_process(bare_command)  # warm-up: the server's caches and JIT
            rows: dict[str, list[Figure]] = {"bare": [], "snapshot": [], "console": []}
            for n in range(1, args.rounds + 1):
                rows["bare"].append(run_process(bare_command))
                rows["snapshot"].append(run_process(snapshot_command))
                console, quit_s, code = console_open(target, config, args.partitions)
                rows["console"].append(console)
                bare, snapshot = rows["bare"][-1], rows["snapshot"][-1]
                print(
                    f"  round {n} (load {os.getloadavg()[0]:.1f}): bare {bare.text()}; kzc snapshot {snapshot.text()}, "
                    f"{snapshot.wall / bare.wall:.2f}x; console to the count {console.text()}, "
                    f"{console.wall / bare.wall:.2f}x; quit in {quit_s:.2f} s, exit {code}",
                    flush=True,
                )
            best = {name: min(f.wall for f in values) for name, values in rows.items()}
            cpu = {name: min(f.cpu for f in values) for name, values in rows.items()}
            peaks = {name: max(f.peak_mib for f in values) for name, values in rows.items()}
            print(f"{args.partitions:,} partitions, {len(requests):,} requests, best of {args.rounds}:")
            for name, limit in (("snapshot", LIMIT_SNAPSHOT), ("console", LIMIT_CONSOLE)):
                ratio = best[name] / best["bare"]
                ratios = sorted(a.wall / b.wall for a, b in zip(rows[name], rows["bare"], strict=True))
                print(
                    f"  {name}: {best[name]:.2f} s against bare {best['bare']:.2f} s: {ratio:.2f}x (goal <= {limit}: "
                    f"{'ok' if ratio <= limit else 'OVER'}); per round {', '.join(f'{r:.2f}' for r in ratios)}; "
                    f"cpu {cpu[name]:.2f} s against {cpu['bare']:.2f} s ({cpu[name] / cpu['bare']:.2f}x); "
                    f"peak RSS {peaks[name]:.0f} MiB (bare {peaks['bare']:.0f})"
                )
            figures = breakdown(target)
            rest = best["console"] - sum(figures.values())
            print(
                "  breakdown (in process): "
                + ", ".join(f"{name} {seconds:.2f} s" for name, seconds in figures.items())
                + f"; first paint and the rest {rest:.2f} s (of the console's {best['console']:.2f} s)"
            )
            if args.profile:
                print(profile_read(target))
        for command in (
            [sys.executable, "-c", "pass"],
            [KZC, "--help"],
            [KZC, "describe", "--help"],
        ):
            times = starts(command, 7)
            label = " ".join(Path(command[0]).name if i == 0 else part for i, part in enumerate(command))
            verdict = "" if "python" in label else f" (goal <= {LIMIT_START_S} s)"
            print(f"  {label}: best {min(times):.3f} s, median {median(times):.3f} s{verdict}")
        if args.large:
            large(server, config, args.large, args.churn)
    finally:
        server.stop()


def large(server: Any, config: str, partitions: int, rounds: int = 0, touched: int = 2000) -> None:
    """The console on ``partitions``: opens, stays live, quits cleanly; its memory. Then ``rounds`` rounds of
    churn, each: ``touched`` partitions' ISRs shrunk to their leader and back (two writes each, as a broker
    that falls behind and catches up), both on screen in the under-replicated counter, the topics screen opened
    and left; the console's memory after each round (a copy of the cluster per change or per screen would grow
    it round after round)."""
    import zk_layout

    chroot = f"/kzc-e2e-large-{uuid.uuid4().hex[:8]}"
    layout = zk_layout.populate(server.hosts, chroot, partitions)
    print(f"large layout: {layout.partitions:,} partitions in {layout.topics:,} topics ({layout.seconds:.0f} s)")
    console = Console(server.hosts + chroot, config)
    try:
        shown = console.wait_for_text(f"{partitions:,} partitions")
        opened_rss, opened_peak = console.memory_mib()
        mark = console.terminal.mark()
        written = time.monotonic()
        write_topic(server.hosts, chroot, "bench-new-topic")
        live = console.wait_for_text(f"{partitions + 1:,} partitions", since=mark, timeout=120)
        live_s = console.terminal.started + live - written
        rss, peak = console.memory_mib()
        print(
            f"  console: {shown:.2f} s to the count; RSS {opened_rss:.0f} MiB (peak {opened_peak:.0f}); a new topic "
            f"on screen {live_s:.2f} s after its write, RSS then {rss:.0f} MiB (peak {peak:.0f})",
            flush=True,
        )
        base = 0  # every broker of the layout is registered and every ISR whole
        for n in range(1, rounds + 1):
            started = time.monotonic()
            originals = churn(server.hosts + chroot, touched)
            mark = console.terminal.mark()
            console.wait_for_text(f"under-replicated {base + touched:,}", since=mark, timeout=300)
            churn(server.hosts + chroot, touched, originals)
            console.wait_for_text(f"under-replicated {base:,}", since=mark, timeout=300)
            mark = console.terminal.mark()
            os.write(console.terminal.master, b"t")
            console.wait_for_text("parts", since=mark, timeout=120)
            mark = console.terminal.mark()
            os.write(console.terminal.master, b"c")
            console.wait_for_text(f"under-replicated {base:,}", since=mark, timeout=120)
            rss, peak = console.memory_mib()
            print(
                f"  churn round {n}: {2 * touched:,} state changes and the topics screen in "
                f"{time.monotonic() - started:.1f} s; RSS {rss:.0f} MiB (peak {peak:.0f})",
                flush=True,
            )
    except BaseException:
        console.terminal.stop()
        raise
    quit_s, code = console.quit()
    print(f"  quit in {quit_s:.2f} s, exit {code}")


def churn(target: str, touched: int, originals: dict[str, bytes] | None = None) -> dict[str, bytes]:
    """Shrink the ISR of the first ``touched`` partitions with more than one in-sync replica to their leader (the
    state znode, as the controller or the leader writes it), or with ``originals`` write those back; returns what
    was there before."""
    from kazoo.client import KazooClient

    client = KazooClient(hosts=target, timeout=30)
    client.start(timeout=30)
    try:
        if originals is None:
            originals = {}
            for topic in sorted(client.get_children("/brokers/topics")):
                for p in client.get_children(f"/brokers/topics/{topic}/partitions"):
                    path = f"/brokers/topics/{topic}/partitions/{p}/state"
                    data, _ = client.get(path)
                    if len(json.loads(data)["isr"]) > 1:
                        originals[path] = data
                    if len(originals) == touched:
                        break
                if len(originals) == touched:
                    break
            writes = {}
            for path, data in originals.items():
                state = json.loads(data)
                writes[path] = json.dumps({**state, "isr": state["isr"][:1]}, separators=(",", ":")).encode()
        else:
            writes = originals
        for result in [client.set_async(path, data) for path, data in writes.items()]:
            result.get(timeout=60)
        return originals
    finally:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
