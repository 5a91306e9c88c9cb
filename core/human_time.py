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


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_duration(text: str) -> float:
    """A duration as people type it: ``90s``, ``15m``, ``1h``, ``7d``, ``2w``, ``1h30m``; a bare number is seconds.

    Raises:
        ValueError: with a message naming the text, for anything else (empty, negative, unknown unit).
    """
    raw = text.strip().lower()
    if not raw:
        raise ValueError("a duration is empty: give e.g. 15m, 1h or 7d")
    try:
        seconds = float(raw)
    except ValueError:
        pass
    else:
        if not seconds >= 0 or seconds == float("inf"):
            raise ValueError(f"'{text}' is not a duration: give e.g. 15m, 1h or 7d")
        return seconds
    total, number = 0.0, ""
    for char in raw:
        if char.isdigit() or char == ".":
            number += char
        elif char in _UNITS and number:
            try:
                total += float(number) * _UNITS[char]
            except ValueError:
                raise ValueError(f"'{text}' is not a duration: give e.g. 15m, 1h or 7d") from None
            number = ""
        else:
            raise ValueError(f"'{text}' is not a duration: give e.g. 15m, 1h or 7d")
    if number:
        raise ValueError(f"'{text}' is not a duration: a unit (s, m, h, d, w) must follow {number}")
    return total


def parse_moment(text: str, now_ms: int) -> int:
    """A moment as people type it, in epoch ms: a duration ago (``45m``, ``-45m``), a UTC time
    (``2026-11-28 03:12``, ``2026-11-28T03:12:00``, an ISO timestamp with its offset) or epoch milliseconds.

    Raises:
        ValueError: none of these.
    """
    text = text.strip()
    if text.isdigit() and len(text) >= 12:
        return int(text)
    try:
        return now_ms - int(parse_duration(text.removeprefix("-")) * 1000)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"'{text}' is not a moment: give a duration ago (2h, -45m), a UTC time (2026-11-28 03:12) or epoch ms"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
