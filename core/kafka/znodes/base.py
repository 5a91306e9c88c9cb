"""What every znode parser shares: the ``Unreadable`` value and strict readers for Kafka's JSON.

Strictness follows Kafka's own readers (``kafka.utils.json.DecodeJson`` in 3.9):

- ``to[Int]`` accepts only a JSON integer that fits 32 bits: no ``true``/``false`` (Python's ``bool`` is
  an ``int``, so it is rejected explicitly), no ``1.0``, no larger numbers. ``to[Long]`` likewise for
  64 bits. ``to[String]`` accepts only a JSON string, never ``null``.
- Jackson rejects ``NaN`` and ``Infinity``, which Python's ``json`` would accept.

A parser returns ``Unreadable`` when Kafka's reader would fail on the data, when a field Kafka writes is
present with the wrong JSON type, or when ``version`` is missing (every Kafka release writes it). Fields
Kafka writes but its reader ignores (timestamps, ``event``...) may be absent.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NoReturn, TypeVar

T = TypeVar("T")

INT16 = (-(2**15), 2**15 - 1)
INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)

# Java's Integer.parseInt / Long.parseLong: an optional sign and ASCII digits, nothing else (no spaces).
_JAVA_DECIMAL = re.compile(r"[+-]?[0-9]+")


@dataclass(frozen=True, slots=True)
class Unreadable:
    """Data at a Kafka path that is not in the format Kafka writes there.

    ``reason`` is one sentence for the user (Kafka's own wording where Kafka has one); ``raw`` is the
    data as read, so the browser can still show it.
    """

    path: str
    raw: bytes
    reason: str


class Malformed(Exception):
    """Raised inside a parser body and turned into ``Unreadable`` by ``@parser``; never escapes."""


def parser(func: Callable[[str, bytes], T]) -> Callable[[str, bytes | None], T | Unreadable]:
    """Make ``func`` total: ``Malformed`` (and, as a safety net, any other error) becomes ``Unreadable``.

    ``None`` data (kazoo's value for a znode created with null data) is passed on as ``b""``.
    """

    @functools.wraps(func)
    def wrapper(path: str, data: bytes | None) -> T | Unreadable:
        raw = data or b""
        try:
            return func(path, raw)
        except Malformed as error:
            return Unreadable(path, raw, str(error))
        except Exception as error:
            return Unreadable(path, raw, f"kzc parser error: {type(error).__name__}: {error}")

    return wrapper


def _reject_constant(name: str) -> NoReturn:
    raise Malformed(f"not JSON Kafka can read: contains {name}")


# One decoder, built once: json.loads with keyword arguments would build a new decoder on every call.
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)
# Its C scanner alone: what Kafka writes (no surrounding whitespace) decodes without ``decode``'s two
# whitespace matches, a third of the cost of a partition state (read 100k+ times per snapshot).
_SCAN: Callable[[str, int], tuple[object, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


def utf8_text(data: bytes) -> str:
    """``data`` as the UTF-8 text Kafka writes in every znode.

    Raises:
        Malformed: not UTF-8 (the offset of the first invalid byte).
    """
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Malformed(f"not UTF-8 text (invalid byte at offset {error.start})") from None


def load_json(data: bytes) -> object:
    """Decode ``data`` as UTF-8 JSON the way Jackson would accept it.

    Raises:
        Malformed: empty data, not UTF-8, not JSON, or nested/long beyond what Python can decode.
    """
    if not data:
        raise Malformed("empty data where Kafka writes JSON")
    text = utf8_text(data)
    try:
        value, end = _SCAN(text, 0)
        if end == len(text):
            return value
    except Exception:  # whitespace around the value, or an error: decode below says which
        pass
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        raise Malformed(f"not JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    except (ValueError, RecursionError) as error:
        # ValueError: an integer longer than Python's int/str limit; RecursionError: absurd nesting.
        raise Malformed(f"not JSON kzc can read: {type(error).__name__}") from None


def load_object(data: bytes) -> dict[str, object]:
    """``load_json`` that also requires a JSON object at the top."""
    return as_object(load_json(data), "the data")


def describe(value: object) -> str:
    """How a JSON value is named in messages: ``a string``, ``null``, ``true``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"the integer {value}" if abs(value) < 10**30 else "a huge integer"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def as_object(value: object, what: str) -> dict[str, object]:
    """``value`` if it is a JSON object, else ``Malformed`` naming ``what``."""
    if type(value) is not dict:
        raise Malformed(f"{what} is {describe(value)}, expected a JSON object")
    return value


def as_int(value: object, what: str, bounds: tuple[int, int] = INT32) -> int:
    """``value`` if it is a JSON integer within ``bounds`` (32 bits by default), else ``Malformed``."""
    if type(value) is not int:
        raise Malformed(f"{what} is {describe(value)}, expected an integer")
    if not bounds[0] <= value <= bounds[1]:
        bits = {INT16: 16, INT32: 32, INT64: 64}.get(bounds, 0)
        raise Malformed(f"{what} is {describe(value)}, beyond the {bits}-bit integer Kafka reads")
    return value


def as_str(value: object, what: str) -> str:
    """``value`` if it is a JSON string, else ``Malformed``."""
    if type(value) is not str:
        raise Malformed(f"{what} is {describe(value)}, expected a string")
    return value


def as_int_list(value: object, what: str) -> tuple[int, ...]:
    """A JSON array of 32-bit integers as a tuple (Kafka's ``to[Seq[Int]]``)."""
    if type(value) is not list:
        raise Malformed(f"{what} is {describe(value)}, expected an array of integers")
    items = tuple(value)
    low, high = INT32
    for item in items:
        if type(item) is not int or not low <= item <= high:
            # Only now name each item: the message says which one is wrong.
            return tuple(as_int(item, f"{what}[{index}]") for index, item in enumerate(items))
    return items


def missing(key: str) -> Malformed:
    """The error for a field Kafka's reader requires."""
    return Malformed(f'required field "{key}" is missing')


def req_int(obj: dict[str, object], key: str, bounds: tuple[int, int] = INT32) -> int:
    """The integer field ``key``; it must be present."""
    if key not in obj:
        raise missing(key)
    return as_int(obj[key], f'"{key}"', bounds)


def opt_int(obj: dict[str, object], key: str, bounds: tuple[int, int] = INT32) -> int | None:
    """The integer field ``key``, or ``None`` when absent (``null`` is still rejected)."""
    if key not in obj:
        return None
    return as_int(obj[key], f'"{key}"', bounds)


def req_str(obj: dict[str, object], key: str) -> str:
    """The string field ``key``; it must be present."""
    if key not in obj:
        raise missing(key)
    return as_str(obj[key], f'"{key}"')


def opt_str(obj: dict[str, object], key: str, *, null_ok: bool = False) -> str | None:
    """The string field ``key``, or ``None`` when absent (or ``null``, if ``null_ok``)."""
    value = obj.get(key)
    if value is None and (key not in obj or null_ok):
        return None
    return as_str(value, f'"{key}"')


def req_version(obj: dict[str, object]) -> int:
    """The ``version`` field every Kafka JSON znode carries."""
    return req_int(obj, "version")


def java_decimal(text: str, what: str, bounds: tuple[int, int] = INT64) -> int:
    """``text`` parsed as Java's ``Long.parseLong`` (or ``Integer.parseInt`` with ``INT32``) would."""
    if not _JAVA_DECIMAL.fullmatch(text):
        raise Malformed(f"{what} {text[:40]!r} is not a decimal number")
    number = int(text)
    if not bounds[0] <= number <= bounds[1]:
        raise Malformed(f"{what} {text[:40]!r} is beyond the range Kafka reads")
    return number


def opt_decimal_str(obj: dict[str, object], key: str) -> int | None:
    """A 64-bit number Kafka writes as a JSON string (timestamps); ``None`` when absent."""
    text = opt_str(obj, key)
    return None if text is None else java_decimal(text, f'"{key}"')


def preview(data: bytes, limit: int = 200) -> str:
    """The start of ``data`` as text for messages (Kafka quotes the whole JSON in its errors)."""
    text = data[:limit].decode("utf-8", errors="replace")
    return text + ("..." if len(data) > limit else "")


Row = tuple[str, str, str]
"""One line of ``explain``: (field, value as text, what it means for an operator)."""


def format_ms(ms: int | None) -> str:
    """A Kafka millisecond timestamp as UTC time, or a note when it is absent or out of range."""
    if ms is None:
        return "absent"
    try:
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return "not a valid time"
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def int_list_text(values: tuple[int, ...]) -> str:
    """``[1,2,3]`` the compact way Kafka writes integer arrays."""
    return "[" + ",".join(map(str, values)) + "]"
