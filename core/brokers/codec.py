"""Kafka's message field types for the requests kzc builds itself, in both encodings: the classic one
(INT16-length STRING, INT32-count ARRAY) and the flexible one (KIP-482: COMPACT_STRING and COMPACT_ARRAY
with varint lengths + 1, a tag buffer after every struct). A message's ``flexibleVersions`` in Kafka's
``*Request.json`` / ``*Response.json`` says which a version uses.

``Encoder`` writes a request body, ``Decoder`` reads a response body; both know whether they are flexible,
so one function per message serves every version.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Sequence
from typing import TypeVar

from core.brokers.wire import CORRELATION, uvarint

T = TypeVar("T")


class Encoder:
    """A request body being written, classic or flexible."""

    def __init__(self, flexible: bool) -> None:
        self.flexible = flexible
        self.out = bytearray()

    def int8(self, value: int) -> Encoder:
        self.out += struct.pack(">b", value)
        return self

    def int16(self, value: int) -> Encoder:
        self.out += struct.pack(">h", value)
        return self

    def int32(self, value: int) -> Encoder:
        self.out += struct.pack(">i", value)
        return self

    def int64(self, value: int) -> Encoder:
        self.out += struct.pack(">q", value)
        return self

    def boolean(self, value: bool) -> Encoder:
        self.out += b"\x01" if value else b"\x00"
        return self

    def float64(self, value: float) -> Encoder:
        self.out += struct.pack(">d", value)
        return self

    def string(self, text: str | None) -> Encoder:
        """STRING / NULLABLE_STRING (None: length -1), or their compact forms (None: length 0)."""
        if text is None:
            self.out += uvarint(0) if self.flexible else struct.pack(">h", -1)
            return self
        data = text.encode("utf-8")
        self.out += uvarint(len(data) + 1) if self.flexible else struct.pack(">h", len(data))
        self.out += data
        return self

    def blob(self, data: bytes) -> Encoder:
        """BYTES (INT32 length; classic versions only: kzc sends no flexible BYTES)."""
        self.out += struct.pack(">i", len(data)) + data
        return self

    def array(self, items: Sequence[T], write: Callable[[Encoder, T], object]) -> Encoder:
        """ARRAY / COMPACT_ARRAY of structs, each written by ``write`` (and closed by its tag buffer when
        flexible)."""
        self.out += uvarint(len(items) + 1) if self.flexible else struct.pack(">i", len(items))
        for item in items:
            write(self, item)
            self.tags()
        return self

    def int32s(self, values: Sequence[int] | None) -> Encoder:
        """ARRAY / COMPACT_ARRAY of INT32 (no tag buffer after a primitive); None: a null array."""
        if values is None:
            self.out += uvarint(0) if self.flexible else struct.pack(">i", -1)
            return self
        self.out += uvarint(len(values) + 1) if self.flexible else struct.pack(">i", len(values))
        self.out += struct.pack(f">{len(values)}i", *values)
        return self

    def null_array(self) -> Encoder:
        """A null ARRAY / COMPACT_ARRAY of structs (a nullable array's "every one")."""
        self.out += uvarint(0) if self.flexible else struct.pack(">i", -1)
        return self

    def tags(self) -> Encoder:
        """An empty tag buffer (flexible versions only; nothing otherwise)."""
        if self.flexible:
            self.out += b"\x00"
        return self

    def body(self) -> bytes:
        """The body, ended by the top-level tag buffer when flexible."""
        return bytes(self.tags().out)


_FIXED = {"int8": "b", "int16": "h", "int32": "i", "int64": "q"}


class FixedRow:
    """A struct of fixed-width fields only, by Kafka's type names in order (``FixedRow("int32", "int64")``), read
    at once by ``Decoder.rows``."""

    def __init__(self, *types: str) -> None:
        self.layout = struct.Struct(">" + "".join(_FIXED[t] for t in types))


class Decoder:
    """A response body being read (after the size prefix), classic or flexible.

    Raises (every method):
        ValueError: the body ends early or holds something else than the schema says.
    """

    def __init__(self, data: bytes, flexible: bool) -> None:
        self.data = data
        self.flexible = flexible
        self.at = 0

    def _take(self, fmt: str) -> int | float | bool:
        try:
            (value,) = struct.unpack_from(fmt, self.data, self.at)
        except struct.error as exc:
            raise ValueError(f"the answer ends early: {exc}") from None
        self.at += struct.calcsize(fmt)
        return value  # type: ignore[no-any-return]

    def int8(self) -> int:
        return int(self._take(">b"))

    def int16(self) -> int:
        return int(self._take(">h"))

    def int32(self) -> int:
        return int(self._take(">i"))

    def int64(self) -> int:
        return int(self._take(">q"))

    def boolean(self) -> bool:
        return bool(self._take(">b"))

    def float64(self) -> float:
        return float(self._take(">d"))

    def rows(self, row: FixedRow) -> list[tuple[int, ...]] | None:
        """ARRAY / COMPACT_ARRAY of structs whose fields are all fixed-width (``row``), each struct read at once
        (its tag buffer skipped): the hot loops of large answers, a broker's 100k replicas; None: null."""
        count = self._count()
        if count < 0:
            return None
        layout = row.layout
        items = []
        try:
            for _ in range(count):
                items.append(layout.unpack_from(self.data, self.at))
                self.at += layout.size
                self.tags()
        except struct.error as exc:
            raise ValueError(f"the answer ends early: {exc}") from None
        return items

    def blob(self) -> bytes | None:
        """BYTES / NULLABLE_BYTES (INT32 length, classic versions only; None: null)."""
        length = self.int32()
        if length < 0:
            return None
        if self.at + length > len(self.data):
            raise ValueError("the answer ends inside a byte string")
        data = self.data[self.at : self.at + length]
        self.at += length
        return data

    def uvarint(self) -> int:
        shift = result = 0
        while True:
            if self.at >= len(self.data):
                raise ValueError("the answer ends inside a varint")
            byte = self.data[self.at]
            self.at += 1
            result |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return result
            shift += 7
            if shift > 63:
                raise ValueError("a varint longer than 64 bits")

    def string(self) -> str | None:
        """STRING / NULLABLE_STRING or their compact forms (None: null)."""
        length = self.uvarint() - 1 if self.flexible else self.int16()
        if length < 0:
            return None
        if self.at + length > len(self.data):
            raise ValueError("the answer ends inside a string")
        text = self.data[self.at : self.at + length].decode("utf-8", errors="replace")
        self.at += length
        return text

    def array(self, read: Callable[[Decoder], T]) -> list[T] | None:
        """ARRAY / COMPACT_ARRAY of structs, each read by ``read`` (its tag buffer skipped); None: null."""
        count = self._count()
        if count < 0:
            return None
        items = []
        for _ in range(count):
            items.append(read(self))
            self.tags()
        return items

    def _count(self) -> int:
        """An array's length (-1: null), no longer than the answer could hold."""
        count = self.uvarint() - 1 if self.flexible else self.int32()
        if count > len(self.data):
            raise ValueError(f"an array of {count} items in an answer of {len(self.data)} bytes")
        return count

    def tags(self) -> None:
        """Skip a tag buffer (flexible versions only)."""
        if not self.flexible:
            return
        for _ in range(self.uvarint()):
            self.uvarint()
            self.at += self.uvarint()

    def header(self) -> Decoder:
        """The response header: the correlation id (checked against ``wire.CORRELATION``), and a tag buffer when
        flexible (header v1)."""
        found = self.int32()
        if found != CORRELATION:
            raise ValueError(f"correlation id {found}, expected {CORRELATION}")
        self.tags()
        return self
