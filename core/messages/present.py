"""One message as the CLI prints it and the console opens it: the header lines and the value, and the
``kcat -J`` record (``topic, partition, offset, tstype, ts, broker, headers, key, payload``, with kzc's own
additions after them: sizes, how each string is encoded, whether the payload was cut)."""

from __future__ import annotations

from typing import Any

from core.human_size import human_size
from core.messages.reader import CREATE_TIME, LOG_APPEND_TIME, Message
from core.messages.render import (
    HEX,
    JSON,
    NULL,
    TEXT,
    Shown,
    headers_text,
    kcat_string,
    kind_of,
    show,
    timestamp_text,
)

_KCAT_TSTYPE = {CREATE_TIME: "create", LOG_APPEND_TIME: "logappend"}


def message_lines(
    message: Message, *, limit: int | None, pretty: bool = True, headers_unsupported: str | None = None
) -> list[str]:
    """The message as terminal lines: where and when, key, headers, size, then the value by its kind."""
    value = show(message.value, pretty=pretty, limit=limit)
    key = show(message.key, pretty=False, limit=limit)
    head = (
        f"{message.topic} [{message.partition}] @ {message.offset}  "
        f"{timestamp_text(message.timestamp_type, message.timestamp_ms)}"
    )
    lines = [
        head,
        f"  key: {_one_line(key)}",
        f"  headers: {headers_text(message.headers, headers_unsupported)}",
        f"  value: {value.kind}, {human_size(value.size)}" + (f" ({value.size:,} bytes)" if value.size >= 1024 else ""),
    ]
    lines += ["  " + line for line in value.text.split("\n")] if value.kind not in ("null", "empty") else []
    if value.truncated:
        lines.append(f"  … cut at {human_size(limit or 0)} of {value.size:,} bytes (--max-bytes 0 shows it whole)")
    return lines


def _one_line(shown: Shown) -> str:
    if shown.kind == NULL:
        return "(null)"
    text = shown.text if shown.kind != HEX else f"<hex {shown.text}>"
    return text + (f" … ({shown.size:,} bytes)" if shown.truncated else "")


def value_preview(message: Message, width: int = 120) -> str:
    """The value on one line, cut to ``width`` characters (the console's table, a list)."""
    shown = show(message.value, pretty=False, limit=max(width * 4, 256))
    text = shown.text if shown.kind != HEX else f"<hex> {shown.text}"
    return text if len(text) <= width else text[: width - 1] + "…"


def kcat_record(message: Message, *, limit: int | None) -> dict[str, Any]:
    """The ``kcat -J`` record of ``message`` (kcat's fields in kcat's order; ``tstype``/``ts`` only when the
    message has a timestamp, ``headers`` only when the format has them, as a flat name/value list), then
    kzc's: ``key_encoding``/``payload_encoding`` (``text``, ``hex`` for bytes that are not UTF-8, ``null``),
    ``payload_kind`` (``json``, ``text``, ``hex``...), ``key_size``, ``payload_size``, ``payload_truncated``."""
    record: dict[str, Any] = {"topic": message.topic, "partition": message.partition, "offset": message.offset}
    if message.timestamp_type is not None:
        record["tstype"] = _KCAT_TSTYPE.get(message.timestamp_type, "unknown")
        record["ts"] = message.timestamp_ms
    record["broker"] = message.broker
    if message.headers is not None:
        flat: list[str | None] = []
        for name, raw in message.headers:
            text, _ = kcat_string(raw)
            flat += [name, text]
        record["headers"] = flat
    key, key_encoding = kcat_string(message.key)
    value = message.value
    kind = kind_of(value)
    truncated = limit is not None and value is not None and len(value) > limit
    if truncated and value is not None and kind in (TEXT, JSON):
        payload: str | None = value[:limit].decode("utf-8", errors="ignore")  # a cut may split a character
        payload_encoding, kind = TEXT, TEXT
    else:
        payload, payload_encoding = kcat_string(value[:limit] if truncated and value is not None else value)
    record["key"] = key
    record["payload"] = payload
    record.update(
        key_encoding=key_encoding,
        payload_encoding=payload_encoding,
        payload_kind=kind,
        key_size=len(message.key) if message.key is not None else 0,
        payload_size=message.size,
        payload_truncated=truncated,
    )
    return record
