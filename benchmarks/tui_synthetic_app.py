"""The console on a synthetic cluster (``TOPICS`` x ``PARTITIONS`` per topic), for the pty benchmarks.

Run as ``python benchmarks/tui_synthetic_app.py 50000 4 [warm]``: the layout is built in a worker after
the first frame, exactly as a real backend's first read would be. With ``warm`` the console starts the
Spark worker as it opens, as the CLI's console does (a recorded backend's console does not by default).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.config import ConnectionSettings, UserConfig
from core.console.recorded import RecordedBackend
from core.testdata.snapshots import synthetic_snapshot
from tui.app import KzcApp


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
    KzcApp(ConnectionSettings(), config=UserConfig(theme="dark"), backend=backend, warm_spark=warm).run()


if __name__ == "__main__":
    main()
