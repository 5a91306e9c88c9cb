"""``kzc`` without a command: open the console (Textual is imported only here)."""

from __future__ import annotations

from core.config import ConnectionSettings
from core.errors import UsageError


def open_console(settings: ConnectionSettings) -> int:
    """Run the Textual console until the user quits; return the exit code.

    Raises:
        UsageError: no cluster was named (no --zookeeper, no context).
    """
    if settings.zookeeper is None:
        raise UsageError(
            "no cluster to open: give --zookeeper HOST:PORT[/chroot] or --context NAME "
            "(start a local one with: kzc sandbox up)"
        )
    from tui.app import KzcApp

    KzcApp(settings).run()
    return 0
