"""``core.brokers.codec``: an array of fixed rows (``Decoder.rows``) read as the field-by-field reads would."""

from __future__ import annotations

import pytest

from core.brokers.codec import Decoder, Encoder, FixedRow

ROW = FixedRow("int32", "int16", "int64", "int8")


def _body(flexible: bool, rows: list[tuple[int, int, int, int]] | None) -> bytes:
    out = Encoder(flexible)
    if rows is None:
        return bytes(out.null_array().out)
    return bytes(out.array(rows, lambda e, r: e.int32(r[0]).int16(r[1]).int64(r[2]).int8(r[3])).out)


@pytest.mark.parametrize("flexible", [False, True])
def test_rows_read_each_struct_at_once_and_skip_its_tag_buffer(flexible: bool) -> None:
    rows = [(0, -1, 1 << 40, 1), (7, 0, -1, 0)]
    d = Decoder(_body(flexible, rows) + b"\x2a", flexible)
    assert d.rows(ROW) == rows
    assert d.data[d.at :] == b"\x2a"  # what follows the array is left to read


@pytest.mark.parametrize("flexible", [False, True])
def test_a_null_array_of_rows_is_none(flexible: bool) -> None:
    assert Decoder(_body(flexible, None), flexible).rows(ROW) is None


def test_rows_cut_short_are_not_taken_for_rows() -> None:
    body = _body(False, [(1, 2, 3, 4)])
    with pytest.raises(ValueError, match="ends early"):
        Decoder(body[:-1], False).rows(ROW)
