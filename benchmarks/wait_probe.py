"""Where a process waits: its threads sampled from outside every few milliseconds, from ``/proc``.

Runs a command (or watches a running pid) and, for each interval between two samples, says whether some thread
of it ran on a core, else whether one waited for a core (runnable: the machine's load), else that every thread
slept, and in which system call each slept (kazoo's connection thread in ``pselect6`` waits for ZooKeeper; a
thread on a ``futex`` waits for a lock, a condition or the GIL). Each thread's ``schedstat`` gives its time on
a core and in the run queue; nothing is injected into the process, so it runs as a user runs it.

    .venv/bin/python benchmarks/wait_probe.py [--period 0.005] -- kzc --zookeeper HOST/CHROOT snapshot -o FILE
    .venv/bin/python benchmarks/wait_probe.py --pid PID --seconds 10
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

# x86_64 numbers of the calls a waiting thread is seen in (``/proc/PID/task/TID/syscall``'s first field).
_CALLS = {0: "read", 1: "write", 7: "poll", 23: "select", 202: "futex", 232: "epoll_wait", 270: "pselect6",
          271: "ppoll", 281: "epoll_pwait", 35: "nanosleep", 230: "clock_nanosleep", 61: "wait4", 45: "recvfrom",
          44: "sendto"}  # fmt: skip


@dataclass(frozen=True)
class Thread:
    """One thread at one sample: its name, state letter, the call it sleeps in, ns on a core and in the queue."""

    name: str
    state: str
    call: str
    run_ns: int
    queue_ns: int


def sample(pid: int) -> dict[str, Thread] | None:
    """Every thread of ``pid`` now (None once the process has ended: gone, or a zombie not yet waited for)."""
    base = Path(f"/proc/{pid}/task")
    try:
        tids = os.listdir(base)
        ended = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX"
    except OSError:
        return None
    if ended:
        return None
    threads = {}
    for tid in tids:
        try:
            stat = (base / tid / "stat").read_text()
            call = (base / tid / "syscall").read_text().split()
            run_ns, queue_ns = map(int, (base / tid / "schedstat").read_text().split()[:2])
        except (OSError, ValueError):
            continue  # the thread ended meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        state = stat[stat.rindex(")") + 2]
        what = call[0] if call and not call[0].lstrip("-").isdigit() else _CALLS.get(int(call[0]), call[0])
        threads[tid] = Thread(name, state, what, run_ns, queue_ns)
    return threads


def classify(before: dict[str, Thread], after: dict[str, Thread], seconds: float) -> str:
    """'on a core', 'waiting for a core', or what the sleeping threads sleep in."""
    ran = sum(t.run_ns - before[tid].run_ns for tid, t in after.items() if tid in before) / 1e9
    queued = sum(t.queue_ns - before[tid].queue_ns for tid, t in after.items() if tid in before) / 1e9
    if ran > 0.2 * seconds:
        return "on a core"
    if queued > 0.2 * seconds:
        return "waiting for a core"
    calls = Counter(t.call for t in after.values() if t.state != "Z")
    return "asleep: " + ", ".join(f"{n} in {call}" if n > 1 else call for call, n in sorted(calls.items()))


def probe(pid: int, period: float, until: float | None = None) -> list[tuple[float, float, str]]:
    """Sample ``pid`` until it ends (or ``until``, monotonic): (offset, seconds, class) per interval."""
    started = time.monotonic()
    intervals: list[tuple[float, float, str]] = []
    last, last_at = sample(pid), started
    while last is not None and (until is None or time.monotonic() < until):
        time.sleep(period)
        now, at = sample(pid), time.monotonic()
        if now is None:
            break
        intervals.append((last_at - started, at - last_at, classify(last, now, at - last_at)))
        last, last_at = now, at
    return intervals


def report(intervals: list[tuple[float, float, str]], stretch_s: float = 0.02) -> None:
    """Totals per class, the commonest ways of sleeping, and each stretch asleep of ``stretch_s`` or more."""
    totals: Counter[str] = Counter()  # seconds per class
    asleep: Counter[str] = Counter()
    for _, seconds, kind in intervals:
        totals["asleep" if kind.startswith("asleep") else kind] += seconds  # type: ignore[assignment]
        if kind.startswith("asleep"):
            asleep[kind] += seconds  # type: ignore[assignment]
    print("  " + ", ".join(f"{kind} {seconds:.2f} s" for kind, seconds in totals.most_common()))
    for kind, seconds in asleep.most_common(5):
        print(f"    {seconds:.3f} s {kind}")
    begun: float | None = None
    for offset, _, kind in [*intervals, (intervals[-1][0] + 1 if intervals else 0.0, 0.0, "end")]:
        if kind.startswith("asleep") and begun is None:
            begun = offset
        elif not kind.startswith("asleep") and begun is not None:
            if offset - begun >= stretch_s:
                print(f"    asleep {begun:.3f}-{offset:.3f} s")
            begun = None


def main() -> None:
    """Run the command (or watch ``--pid``) and print where it waited."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--period", type=float, default=0.005)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("command", nargs="*")
    args = parser.parse_args()
    started = time.monotonic()
    if args.pid:
        intervals = probe(args.pid, args.period, started + args.seconds)
        print(f"pid {args.pid}, {time.monotonic() - started:.2f} s")
    else:
        process = subprocess.Popen(args.command, stdout=subprocess.DEVNULL)
        intervals = probe(process.pid, args.period)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.monotonic() - started
        cpu = usage.ru_utime + usage.ru_stime
        code = os.waitstatus_to_exitcode(status)
        print(f"wall {wall:.2f} s, CPU {cpu:.2f} s, wall less CPU {wall - cpu:.2f} s, exit {code}")
    report(intervals)


if __name__ == "__main__":
    main()
