"""How a message's bytes are shown: as text, JSON (pretty or folded) or hex, decided per value by what it is.

Nothing a producer wrote may reach the terminal raw: a value that is not UTF-8, or that holds control
characters other than tab and newline (an escape sequence would repaint the operator's screen), is shown
as hex. Values are cut to a byte budget before they are rendered, and the full size is always said.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

NULL = "null"
EMPTY = "empty"
JSON = "json"
TEXT = "text"
HEX = "hex"

_JSON_PARSE_LIMIT = 4 * 1024 * 1024  # bytes: a larger value is not parsed to find out whether it is JSON


# Every control (Cc, but tab, newline and carriage return) and format (Cf: bidi overrides, zero-width...)
# character of Unicode 15, as one class: a regex scans a 5 MiB value in C instead of per character in Python
# (tests/unit/test_message_render.py checks it against unicodedata, code point by code point).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2"
    "\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd"
    "\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
    "\U000e0020-\U000e007f]"
)


def _is_safe_text(text: str) -> bool:
    """No control or format character but tab/newline/CR: nothing that can drive a terminal."""
    return _UNSAFE.search(text) is None


def kind_of(value: bytes | None) -> str:
    """``null``, ``empty``, ``json`` (an object or array), ``text`` (safe UTF-8) or ``hex`` (anything else).

    A value larger than the JSON parse limit that looks like JSON is called ``text``: parsing it would cost
    more than showing it.
    """
    if value is None:
        return NULL
    if not value:
        return EMPTY
    try:
        text = value.decode("utf-8")
    except UnicodeDecodeError:
        return HEX
    if not _is_safe_text(text):
        return HEX
    stripped = text.lstrip()
    if stripped[:1] in ("{", "[") and len(value) <= _JSON_PARSE_LIMIT:
        try:
            json.loads(text)
        except ValueError:
            return TEXT
        return JSON
    return TEXT


@dataclass(frozen=True)
class Shown:
    """A value as shown: its kind, the rendered text, its full size in bytes, and whether it was cut."""

    kind: str
    text: str
    size: int
    truncated: bool


def show(value: bytes | None, *, pretty: bool, limit: int | None) -> Shown:
    """``value`` rendered by its kind: JSON pretty (``pretty``) or folded on one line, text as it is (one line
    with ``\\n`` shown escaped when not ``pretty``), binary as a hex dump (or one hex string when folded).

    Args:
        limit: at most this many bytes of the value are rendered (None: all of it).
    """
    kind = kind_of(value)
    if value is None:
        return Shown(NULL, "null", 0, False)
    size = len(value)
    if not value:
        return Shown(EMPTY, '""', 0, False)
    truncated = limit is not None and size > limit
    if kind == JSON and not truncated:
        parsed = json.loads(value)
        text = (
            json.dumps(parsed, indent=2, ensure_ascii=False)
            if pretty
            else json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
        )
        return Shown(JSON, text, size, False)
    part = value[:limit] if truncated and limit is not None else value
    if kind == HEX:
        return Shown(HEX, hex_dump(part) if pretty else part.hex(), size, truncated)
    text = part.decode("utf-8", errors="ignore")  # a cut may split the last character
    if not pretty:
        text = text.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n").replace("\t", "\\t")
    return Shown(kind if kind != JSON else TEXT, text, size, truncated)


def hex_dump(value: bytes) -> str:
    """``xxd``-like lines: offset, 16 bytes in hex, and those bytes as printable ASCII (``.`` otherwise)."""
    lines = []
    for start in range(0, len(value), 16):
        chunk = value[start : start + 16]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        ascii_ = "".join(chr(b) if 0x20 <= b < 0x7F else "." for b in chunk)
        lines.append(f"{start:08x}  {hexes:<47}  {ascii_}")
    return "\n".join(lines)


def kcat_string(value: bytes | None) -> tuple[str | None, str]:
    """A key or payload as a JSON string the way ``kcat -J`` writes it (the bytes as a string; null stays
    null), and the encoding used: ``text`` for UTF-8, ``hex`` for bytes that are not (kcat would write them
    raw, which is not valid JSON)."""
    if value is None:
        return None, NULL
    try:
        return value.decode("utf-8"), TEXT
    except UnicodeDecodeError:
        return value.hex(), HEX


def timestamp_text(timestamp_type: str | None, timestamp_ms: int | None) -> str:
    """``2026-11-26 19:30:00.123 UTC (CreateTime)``, or that the format has no timestamp."""
    if timestamp_type is None or timestamp_ms is None:
        return "no timestamp (message format v0)"
    return f"{utc_millis_text(timestamp_ms)} ({timestamp_type})"


def utc_millis_text(ms: int) -> str:
    """Epoch milliseconds as ``2026-11-26 19:30:00.123 UTC`` (``-1`` and the like said as they are)."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return f"{ms} (not a valid time)"
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d} UTC"


def headers_text(headers: tuple[tuple[str, bytes | None], ...] | None, unsupported: str | None) -> str:
    """``a=1, b=<hex 00ff>``; ``none``; or why the cluster cannot have them."""
    if headers is None:
        return unsupported or "none"
    if not headers:
        return "none"
    parts = []
    for name, value in headers:
        shown = show(value, pretty=False, limit=256)
        text = shown.text if shown.kind != HEX else f"<hex {shown.text}>"
        parts.append(f"{_safe_name(name)}={text}{' …' if shown.truncated else ''}")
    return ", ".join(parts)


def _safe_name(name: str) -> str:
    return name if _is_safe_text(name) and "\n" not in name else name.encode("unicode_escape").decode("ascii")
