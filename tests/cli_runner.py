"""Running the ``kzc`` command line in-process, for the CLI tests."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    """Run kzc in-process; returns (exit code, stdout parsed as JSON when it is JSON, stderr)."""
    code = main(list(argv))
    captured = capsys.readouterr()
    try:
        out: Any = json.loads(captured.out)
    except json.JSONDecodeError:
        out = captured.out
    return code, out, captured.err
