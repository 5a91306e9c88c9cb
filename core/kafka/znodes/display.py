"""``decode_data``: how the generic ZooKeeper browser shows any znode's data."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from core.kafka.scram import redact_credentials
from core.kafka.znodes.base import Malformed, Unreadable, load_json
from core.kafka.znodes.dispatch import KafkaValue, parse_znode
from core.kafka.znodes.paths import USER_CONFIGS, StructuralZnode

DataKind = Literal["kafka", "json", "text", "hex", "empty"]

HEXDUMP_LIMIT = 64 * 1024  # bytes shown as hex; ZooKeeper allows up to 1 MiB per znode


@dataclass(frozen=True, slots=True)
class DecodedData:
    """A znode's data ready to display.

    ``kind`` says how ``text`` renders the bytes: ``kafka`` (data parsed as the Kafka format of the path;
    ``text`` is pretty JSON, or the data itself for non-JSON formats), ``json`` (pretty-printed), ``text``
    (printable UTF-8), ``hex`` (a hexdump) or ``empty``. ``parsed`` is the result of ``parse_znode``:
    the Kafka value, ``Unreadable`` (the data is shown generically, the reason explains why), or
    ``None`` for non-Kafka paths.
    """

    kind: DataKind
    text: str
    parsed: KafkaValue | Unreadable | None


def decode_data(path: str, data: bytes | None) -> DecodedData:
    """Decode ``data`` of the znode at ``path`` (relative to the Kafka chroot) for display; a user's config
    never shows its SCRAM salts and keys (``core.kafka.scram.redact_credentials``)."""
    decoded = _decode(path, data)
    if not path.startswith(USER_CONFIGS):
        return decoded
    if decoded.kind == "hex":
        return DecodedData("text", "(binary data of a user's config: not shown, it may hold credentials)", None)
    return DecodedData(decoded.kind, redact_credentials(decoded.text), decoded.parsed)


def _decode(path: str, data: bytes | None) -> DecodedData:
    raw = data or b""
    parsed = parse_znode(path, raw)
    if not raw:
        return DecodedData("empty", "", parsed)
    # Structural znodes carry no Kafka data: whatever someone stored there is shown generically.
    if parsed is not None and not isinstance(parsed, Unreadable | StructuralZnode):
        return DecodedData("kafka", _pretty_json(raw) or raw.decode("utf-8", errors="replace"), parsed)
    pretty = _pretty_json(raw, containers_only=True)
    if pretty is not None:
        return DecodedData("json", pretty, parsed)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return DecodedData("hex", hexdump(raw), parsed)
    if all(char.isprintable() or char in "\n\r\t" for char in text):
        return DecodedData("text", text, parsed)
    return DecodedData("hex", hexdump(raw), parsed)


def _pretty_json(raw: bytes, *, containers_only: bool = False) -> str | None:
    try:
        value = load_json(raw)
    except Malformed:
        return None
    if containers_only and not isinstance(value, dict | list):
        return None  # a bare number or string reads better as text
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None


def hexdump(data: bytes, limit: int = HEXDUMP_LIMIT) -> str:
    """``data`` as a classic hexdump: offset, 16 bytes in hex, and their printable ASCII."""
    lines = []
    for offset in range(0, min(len(data), limit), 16):
        chunk = data[offset : offset + 16]
        hex_part = " ".join(f"{byte:02x}" for byte in chunk)
        ascii_part = "".join(chr(byte) if 32 <= byte < 127 else "." for byte in chunk)
        lines.append(f"{offset:08x}  {hex_part:<47}  |{ascii_part}|")
    if len(data) > limit:
        lines.append(f"... {len(data) - limit} more bytes")
    return "\n".join(lines)
