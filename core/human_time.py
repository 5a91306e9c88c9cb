"""Times as people read them in a terminal: ZooKeeper and Kafka epoch milliseconds, and ages."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def utc_text(ms: int | None) -> str:
    """Epoch milliseconds as ``2024-05-01 12:00:00 UTC``; ``-`` for none or 0 (ZooKeeper's "never")."""
    if not ms:
        return "-"
    try:
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return f"{ms} (not a valid time)"
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def age_text(seconds: float) -> str:
    """A duration the short way: ``42s``, ``5m 3s``, ``3h 12m``, ``2d 4h``; negative ages read ``in the future``."""
    if seconds < 0:
        return "in the future"
    whole = int(seconds)
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d {hours}h"
    if hours:
        return f"{hours}h {minutes}m"
    if minutes:
        return f"{minutes}m {secs}s"
    return f"{secs}s"


def since_text(ms: int | None, now_ms: int) -> str:
    """``2024-05-01 12:00:00 UTC (3h 12m ago)`` for a moment before ``now_ms``."""
    if not ms:
        return "-"
    age = age_text((now_ms - ms) / 1000)
    return f"{utc_text(ms)} ({age})" if age == "in the future" else f"{utc_text(ms)} ({age} ago)"


def clock_text(ms: int) -> str:
    """Epoch milliseconds as ``HH:MM:SS`` in local time (a moment of today's session, e.g. a stale mark)."""
    return time.strftime("%H:%M:%S", time.localtime(ms / 1000))
