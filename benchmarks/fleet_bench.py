"""``kzc fleet`` over many synthetic clusters against the slowest single cluster's ``kzc describe``.

Starts its own ZooKeeper (``snapshot_bench.BareZooKeeper``), writes ``--contexts`` synthetic Kafka 3.9 layouts
of ``--partitions`` partitions each under chroots of it (``zk_layout.py``; no broker runs, so the brokers'
ApiVersions are refused at once), writes a config file with one context per chroot, then measures in the same
run, each as a fresh process (start-up included, as a user sees it):

- **describe, each cluster**: ``kzc describe --json`` on every chroot in turn; the slowest is the baseline.
- **fleet**: ``kzc fleet --json`` over every context at once (deadline 600 s, so nothing is cut short).

With ``--kazoo-select`` each round measures both again with kazoo's own ``select`` (a new epoll selector per
call) in place of ``core.zookeeper.select_handler.SelectHandler``'s, the figures before it, in the same run.

The issue's target: the fleet within 1.5x of the slowest describe, not the sum. Run::

    .venv/bin/python benchmarks/fleet_bench.py [--contexts 20] [--partitions 10000] [--rounds 1] [--kazoo-select]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import zk_layout  # noqa: E402
from snapshot_bench import BareZooKeeper  # noqa: E402

LIMIT_RATIO = 1.5
KZC = [sys.executable, "-m", "cli.main"]
KAZOO_SELECT = [  # kzc as before SelectHandler: kazoo's handler in every session
    sys.executable,
    "-c",
    "import core.zookeeper.session as s, kazoo.handlers.threading as t; "
    "s.SelectHandler = t.SequentialThreadingHandler; from cli.main import run; run()",
]


def timed(argv: list[str], env: dict[str, str], kzc: list[str] = KZC) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of one kzc process, and its stdout (it must exit 0 or 1: 1 is a sick
    cluster). The processes run one at a time, so the children's usage before and after is this one's."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run([*kzc, *argv], capture_output=True, text=True, env=env, cwd=ROOT, timeout=1200)
    took = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"kzc {' '.join(argv)} failed: {done.stderr.strip()}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return took, cpu, done.stdout


def main() -> None:
    """Populate, measure, print the figures beside the baseline."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contexts", type=int, default=20)
    parser.add_argument("--partitions", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--kazoo-select", action="store_true", help="also measure with kazoo's own select")
    args = parser.parse_args()
    zk = BareZooKeeper(heap="1g")
    try:
        names = [f"c{i:02d}" for i in range(args.contexts)]
        started = time.monotonic()
        for name in names:
            zk_layout.populate(zk.hosts, f"/{name}", args.partitions, brokers=3)
        print(f"wrote {args.contexts} x {args.partitions:,} partitions in {time.monotonic() - started:.1f} s")
        with tempfile.TemporaryDirectory(prefix="kzc-fleet-bench-") as tmp:
            config = Path(tmp) / "config.toml"
            config.write_text("".join(f'[contexts.{n}]\nzookeeper = "{zk.hosts}/{n}"\n' for n in names))
            env = {**os.environ, "KZC_CONFIG": str(config), "KZC_AUDIT_LOG": str(Path(tmp) / "audit.jsonl")}
            variants = [("SelectHandler", KZC)] + ([("kazoo's select", KAZOO_SELECT)] if args.kazoo_select else [])
            for round_, (variant, kzc) in ((r, v) for r in range(1, args.rounds + 1) for v in variants):
                runs = {n: timed(["describe", "--json", "--context", n], env, kzc) for n in names}
                describes = {n: run[0] for n, run in runs.items()}
                slowest = max(describes, key=lambda n: describes[n])
                fleet_s, fleet_cpu, out = timed(["fleet", "--json", "--deadline", "600s"], env, kzc)
                rows = json.loads(out)["clusters"]
                states = sorted({r["state"] for r in rows})
                total = sum(describes.values())
                ratio = fleet_s / describes[slowest]
                print(
                    f"round {round_} ({variant}): describe per cluster {min(describes.values()):.2f}-"
                    f"{describes[slowest]:.2f} s "
                    f"(slowest {slowest}), sum {total:.1f} s, CPU {sum(r[1] for r in runs.values()):.1f} s; fleet "
                    f"over {len(rows)} contexts {fleet_s:.2f} s, CPU {fleet_cpu:.1f} s (rows: {', '.join(states)}); "
                    f"fleet / slowest describe {ratio:.2f}x (target <= {LIMIT_RATIO}x), fleet / sum "
                    f"{fleet_s / total:.2f}x; load average {os.getloadavg()[0]:.1f}"
                )
    finally:
        zk.stop()


if __name__ == "__main__":
    main()
