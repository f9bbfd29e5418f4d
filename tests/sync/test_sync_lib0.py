"""lib0 var-uints, var-strings and delete sets (sync.lib0), as yrs reads and writes them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pycrdt import Doc, Map

from sync.document import decode_state_vector
from sync.errors import InvalidUpdateError
from sync.lib0 import (
    YRS_SHIFT,
    TruncatedError,
    read_delete_set,
    read_varbytes,
    read_varuint,
    write_varstring,
    write_varuint,
)


@given(st.integers(0, (1 << 64) - 1), st.binary(max_size=3))
def test_a_varuint_reads_back_from_where_it_was_written(value: int, before: bytes) -> None:
    out = bytearray(before)
    write_varuint(out, value)
    assert read_varuint(bytes(out), len(before)) == (value, len(out))
    with pytest.raises(TruncatedError):
        read_varuint(bytes(out[:-1]), len(before))


@given(st.text(max_size=200))
def test_a_varstring_reads_back(text: str) -> None:
    out = bytearray()
    write_varstring(out, text)
    assert read_varbytes(bytes(out), 0) == (text.encode("utf-8"), len(out))
    with pytest.raises(TruncatedError):
        read_varbytes(bytes(out[:-1]), 0)


def test_the_longest_varuint_is_ten_bytes_or_eleven_as_yrs_reads_them() -> None:
    ten, eleven = b"\xff" * 9 + b"\x01", b"\xff" * 10 + b"\x01"
    assert read_varuint(ten, 0)[1] == 10
    with pytest.raises(ValueError):
        read_varuint(eleven, 0)
    assert read_varuint(eleven, 0, YRS_SHIFT)[1] == 11
    with pytest.raises(ValueError):
        read_varuint(b"\xff" + eleven, 0, YRS_SHIFT)
    # A state vector is read as yrs reads it: eleven bytes accepted, twelve refused.
    doc = Doc()
    doc.get("m", type=Map)["k"] = "v"
    assert decode_state_vector(b"\x01" + eleven + b"\x00")
    doc.get_update(b"\x01" + eleven + b"\x00")
    with pytest.raises(InvalidUpdateError, match="malformed"):
        decode_state_vector(b"\x01\xff" + eleven + b"\x00")
    with pytest.raises(ValueError):
        doc.get_update(b"\x01\xff" + eleven + b"\x00")


def test_the_delete_set_is_read_as_yrs_writes_it() -> None:
    doc = Doc()
    notes = doc.get("notes", type=Map)
    for key in "abcd":
        notes[key] = key
    state = doc.get_state()
    del notes["b"], notes["c"]
    update = doc.get_update(state)
    structs, pos = read_varuint(update, 0)
    assert structs == 0
    deleted, end = read_delete_set(update, pos)
    assert deleted == {doc.client_id: [(1, 2)]} and end == len(update)
