"""Worker results reach screens one way: a typed message (a nested ``Message`` posted from the worker and
handled with ``@on`` on the UI thread), never ``app.call_from_thread`` with a callback. A message names what
happened, is dropped with a dismissed screen instead of touching its removed widgets, and a test can wait for
it like any other.

The one exception is the messages screen's stream (``tui/screens/messages.py``): its reader waits until each
batch is drawn, which bounds memory and keeps start, rows and end in order."""

from __future__ import annotations

from pathlib import Path

SCREENS = Path(__file__).resolve().parents[2] / "tui" / "screens"
STREAMS = {"messages.py"}


def test_screens_get_worker_results_as_typed_messages() -> None:
    offenders = [
        f"{path.name}:{number}"
        for path in sorted(SCREENS.glob("*.py"))
        if path.name not in STREAMS
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "call_from_thread(" in line
    ]
    assert offenders == [], f"post a typed message instead of call_from_thread: {offenders}"


def test_the_stream_exception_still_needs_to_be_one() -> None:
    assert "call_from_thread(" in (SCREENS / "messages.py").read_text()
