"""The console's crash log (``cli.console_cmd``): a native fault leaves the stacks of every thread in it, during
the console's run and after it, while the process exits (where client libraries' threads still run)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

_CRASH_AFTER_THE_RUN = """
import faulthandler
from cli.console_cmd import _fault_trace
faulthandler.disable()
with _fault_trace():
    pass  # the console ran and quit
faulthandler._sigsegv()  # a fault while the process ends
"""


def test_a_fault_after_the_console_closed_still_leaves_its_trace(tmp_path: Path) -> None:
    log = tmp_path / "console-crash.log"
    done = subprocess.run(
        [sys.executable, "-c", _CRASH_AFTER_THE_RUN],
        env={"KZC_CRASH_LOG": str(log), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert done.returncode < 0  # killed by the signal
    trace = log.read_text()
    assert "Fatal Python error: Segmentation fault" in trace and "<module>" in trace, trace
