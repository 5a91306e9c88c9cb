"""How message bytes are shown: kind by content, nothing that drives a terminal, cuts with the full size."""

from __future__ import annotations

import pytest

from core.config import PLAINTEXT
from core.messages.present import kcat_record
from core.messages.reader import Message, TailRequest, start_offset
from core.messages.render import EMPTY, HEX, JSON, NULL, TEXT, kind_of, show


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        (None, NULL),
        (b"", EMPTY),
        (b'{"a": 1}', JSON),
        (b"[1, 2]", JSON),
        (b"{not json", TEXT),
        ("héllo\nworld\t!".encode(), TEXT),
        (b"\x00\x01\xff", HEX),
        (b"red \x1b[31m", HEX),  # an escape sequence never reaches the terminal
        ("bidi \u202e".encode(), HEX),  # nor a format character that reorders the line
    ],
)
def test_kind_of_a_value_is_decided_by_its_content(value: bytes | None, kind: str) -> None:
    assert kind_of(value) == kind


def test_a_large_value_is_cut_to_the_limit_and_keeps_its_full_size() -> None:
    shown = show(b"x" * 10_000, pretty=True, limit=100)
    assert (shown.kind, len(shown.text), shown.size, shown.truncated) == (TEXT, 100, 10_000, True)


def test_json_is_pretty_when_opened_and_folded_in_a_list() -> None:
    assert show(b'{"a":[1,2]}', pretty=True, limit=None).text == '{\n  "a": [\n    1,\n    2\n  ]\n}'
    assert show(b'{"a": [1, 2]}', pretty=False, limit=None).text == '{"a":[1,2]}'


def test_the_kcat_record_has_kcats_fields_in_kcats_order() -> None:
    message = Message("t", 0, 7, "CreateTime", 1000, b"k", b"\xff\x00", (("h", b"v"),), broker=2)
    record = kcat_record(message, limit=None)
    assert list(record)[:9] == ["topic", "partition", "offset", "tstype", "ts", "broker", "headers", "key", "payload"]
    assert record["tstype"] == "create" and record["headers"] == ["h", "v"]
    assert (record["payload"], record["payload_encoding"]) == ("ff00", "hex")


@pytest.mark.parametrize(
    ("request_", "low", "high", "by_time", "start"),
    [
        (TailRequest("t"), 0, 100, None, 90),  # the default: the last 10 offsets
        (TailRequest("t", from_end=500), 20, 100, None, 20),  # never before the log start
        (TailRequest("t", offset=5), 10, 100, None, 10),
        (TailRequest("t", offset=500), 0, 100, None, 100),
        (TailRequest("t", timestamp_ms=5), 0, 100, 42, 42),
        (TailRequest("t", timestamp_ms=5), 0, 100, -1, 100),  # nothing at or after: the end
    ],
)
def test_start_offsets(request_: TailRequest, low: int, high: int, by_time: int | None, start: int) -> None:
    assert start_offset(request_, low, high, by_time)[0] == start


def test_the_unsafe_class_is_unicodes_control_and_format_characters() -> None:
    import sys
    import unicodedata

    from core.messages.render import _UNSAFE

    expected = {
        c for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cc", "Cf") and chr(c) not in "\t\n\r"
    }
    found = {c for c in range(sys.maxunicode + 1) if _UNSAFE.match(chr(c))}
    assert expected <= found
    assert found - expected <= set(range(0x13439, 0x13440))  # format characters Unicode 15 added to 14's


class _FakeRecord:
    def __init__(self, offset: int, size: int) -> None:
        self._offset, self._value = offset, b"x" * size

    def error(self) -> None:
        return None

    def value(self) -> bytes:
        return self._value

    def key(self) -> None:
        return None

    def topic(self) -> str:
        return "t"

    def partition(self) -> int:
        return 0

    def offset(self) -> int:
        return self._offset

    def timestamp(self) -> tuple[int, int]:
        return (1, 1000)

    def headers(self) -> None:
        return None


class _FakeConsumer:
    """librdkafka as it behaves: ``consume(n)`` hands over n messages when that many are there."""

    def __init__(self, sizes: list[int]) -> None:
        self.left = [_FakeRecord(i, s) for i, s in enumerate(sizes)]
        self.asked: list[int] = []

    def consume(self, n: int, timeout: float) -> list[_FakeRecord]:
        self.asked.append(n)
        taken, self.left = self.left[:n], self.left[n:]
        return taken

    def assign(self, partitions: object) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.parametrize("sizes", [[5 * 2**20] * 50, [1024] * 500 + [5 * 2**20] * 50])
def test_a_poll_hands_over_a_bounded_number_of_bytes(sizes: list[int]) -> None:
    from core.connect import HostPort
    from core.messages.reader import BATCH_BYTES, CONSUME_STEP, MessageReader

    reader = MessageReader([HostPort("127.0.0.1", 9)], security=PLAINTEXT)
    fake = _FakeConsumer(sizes)
    reader._consumer.close()
    reader._consumer = fake  # librdkafka's side, as it hands messages over
    reader.start(TailRequest("t", follow=True), [])
    largest = max(sizes)
    while fake.left:
        batch = reader.poll(0.0, batch=100)
        # The budget plus at most one step of messages (after small ones, the step is CONSUME_STEP).
        assert sum(m.size for m in batch) <= BATCH_BYTES + CONSUME_STEP * largest
        if len(sizes) == 50:
            assert sum(m.size for m in batch) <= BATCH_BYTES + largest  # only big ones: one at a time
    reader.close()
