"""What a sandbox's JVMs cost to start and stop, with their class data archives (``core.sandbox.class_data``) and
without (``KZC_CLASS_DATA=off``, the baseline), alternated in one run: ``Sandbox.up`` of N brokers of a release, to
every broker registered and serving, then ``down``. Wall time, and the CPU seconds of the JVMs (and the few
``java`` checks) the sandbox started, which load on the machine distorts far less.

    .venv/bin/python benchmarks/sandbox_start_bench.py [--brokers 3] [--rounds 3] [--versions 3.9.1,0.10.2.2]

The archives are written by the first clean stop of each JVM kind (a round before the timed ones)."""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from core.sandbox.local_cluster import Sandbox


def _children_cpu() -> float:
    """CPU seconds of the children reaped so far (a JVM's is counted once it exits)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _running_cpu(pids: list[int]) -> float:
    """CPU seconds the running ``pids`` have used so far."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def _round(directory: Path, brokers: int, version: str, archives: bool) -> tuple[float, float, float, float]:
    os.environ["KZC_CLASS_DATA"] = "on" if archives else "off"
    cpu, wall = _children_cpu(), time.monotonic()
    box = Sandbox.up(directory, brokers=brokers, racks=None, kafka_version=version, timeout=300)
    up_wall, running = time.monotonic() - wall, _running_cpu(box.running_pids())
    up_cpu = _children_cpu() - cpu + running
    cpu, wall = _children_cpu(), time.monotonic()
    box.down()
    return up_wall, up_cpu, time.monotonic() - wall, _children_cpu() - cpu - running


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--brokers", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--versions", default="3.9.1,0.10.2.2")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores; {args.brokers} brokers per sandbox")
    print("release   archives  up: wall / JVM CPU    down: wall / JVM CPU")
    with tempfile.TemporaryDirectory(prefix="kzc-start-bench-") as tmp:
        for version in args.versions.split(","):
            _round(Path(tmp) / f"{version}-warm", args.brokers, version, archives=True)  # writes any missing archive
            for n in range(args.rounds):
                for archives in (False, True):
                    up_wall, up_cpu, down_wall, down_cpu = _round(
                        Path(tmp) / f"{version}-{n}-{archives}", args.brokers, version, archives
                    )
                    print(
                        f"{version:9} {'on' if archives else 'off':9} {up_wall:6.2f} s / {up_cpu:5.2f} s"
                        f"      {down_wall:5.2f} s / {down_cpu:5.2f} s"
                    )
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
