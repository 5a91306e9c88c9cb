"""The console on a synthetic cluster (``TOPICS`` x ``PARTITIONS`` per topic), for the pty benchmarks.

Run as ``python benchmarks/tui_synthetic_app.py 50000 4 [warm|cold] [write]``: the layout is built in a
worker after the first frame, exactly as a real backend's first read would be. With ``warm`` the console
starts the Spark worker as it opens, as the CLI's console does (a recorded backend's console does not by
default). With ``write`` a thread of the console's process writes the snapshot file a Spark run stages,
over and over, from when the layout is built; the file ``<tmp>/kzc-bench-writes`` appears once the first
write starts.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config import ConnectionSettings, UserConfig
from core.testdata.snapshots import synthetic_snapshot
from tests.recorded_backend import RecordedBackend
from tui.app import KzcApp

WRITES_FLAG = Path(tempfile.gettempdir()) / "kzc-bench-writes"


def write_forever(backend: RecordedBackend) -> None:
    """What a Spark run does in the console's process: write the snapshot to a file (from a worker thread,
    through the pipeline's writer, which forks a child for it where it can)."""
    from core.consistency.pipeline import write_snapshot_file

    while backend.loading() is not None:
        time.sleep(0.2)  # the layout is built in the background
    snapshot = backend.snapshot()
    with tempfile.TemporaryDirectory(prefix="kzc-bench-") as scratch:
        WRITES_FLAG.touch()
        while True:
            write_snapshot_file(snapshot, Path(scratch) / "snapshot.jsonl")


def main() -> None:
    topics = int(sys.argv[1]) if len(sys.argv) > 1 else 50_000
    per_topic = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    # Brokers and controller first (as a live backend serves them before its first full read), the
    # 200k partitions built in the background.
    backend = RecordedBackend(
        lambda: synthetic_snapshot(topics=topics, partitions_per_topic=per_topic),
        name=f"synthetic {topics}x{per_topic}",
        preview=synthetic_snapshot(topics=0),
    )
    warm = len(sys.argv) > 3 and sys.argv[3] == "warm"
    if len(sys.argv) > 4:
        threading.Thread(target=write_forever, args=(backend,), daemon=True).start()
    KzcApp(ConnectionSettings(), config=UserConfig(theme="dark"), backend=backend, warm_spark=warm).run()


if __name__ == "__main__":
    main()
