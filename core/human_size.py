"""Sizes as people read them in a terminal: the one byte formatter every surface uses."""

from __future__ import annotations

_UNITS = ("B", "KiB", "MiB", "GiB", "TiB")


def human_size(size: int | None) -> str:
    """Bytes, short, in powers of 1024: ``512 B``, ``12.4 KiB``, ``3.1 MiB``, up to ``TiB``; ``?`` for unknown."""
    if size is None:
        return "?"
    value = float(size)
    for unit in _UNITS:
        if abs(value) < 1024 or unit == _UNITS[-1]:
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("not reached")
