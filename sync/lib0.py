"""lib0 encoding, as Yjs v1 updates and state vectors write it: var-uints, var-strings,
and the delete set (a run of var-uints).

The one place the memory's hand-written Yjs readers and writers (``sync.document``,
``sync.entry_update``, ``sync.update_reader``) decode and encode these. Readers take the
bytes and a position and return the value with the position after it; malformed bytes
raise ValueError: :class:`TruncatedError` where they end too soon.
"""

from __future__ import annotations


class TruncatedError(ValueError):
    """The bytes end before the value does."""


U64_SHIFT = 63
"""``read_varuint``'s default ``max_shift``: at most 10 bytes, what a u64 takes (every
encoder writes no more; a reader that must agree with yrs on the value keeps to it)."""

YRS_SHIFT = 70
"""At most 11 bytes: the longest var-uint yrs itself reads (12 it rejects)."""


def read_varuint(data: bytes, pos: int, max_shift: int = U64_SHIFT) -> tuple[int, int]:
    """The var-uint at ``pos`` and the position after it.

    Raises:
        TruncatedError: the bytes end first.
        ValueError: the var-uint goes on past ``max_shift`` bits.

    >>> read_varuint(b"\\x96\\x01", 0)
    (150, 2)
    """
    try:
        byte = data[pos]
        if byte < 0x80:  # the common case: one byte
            return byte, pos + 1
        result, shift = byte & 0x7F, 7
        while True:
            pos += 1
            byte = data[pos]
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result, pos + 1
            shift += 7
            if shift > max_shift:
                raise ValueError("var-uint too long")
    except IndexError:
        raise TruncatedError("truncated var-uint") from None


def read_varbytes(data: bytes, pos: int) -> tuple[bytes, int]:
    """The length-prefixed bytes at ``pos`` (a var-string, undecoded) and the position
    after them; ValueError if they run past the end."""
    length, pos = read_varuint(data, pos)
    end = pos + length
    if end > len(data):
        raise TruncatedError("truncated var-string")
    return data[pos:end], end


def read_delete_set(data: bytes, pos: int) -> tuple[dict[int, list[tuple[int, int]]], int]:
    """The delete set at ``pos`` (``{client: [(clock, length)]}``) and the position after
    it; ValueError if malformed."""
    deleted: dict[int, list[tuple[int, int]]] = {}
    clients, pos = read_varuint(data, pos)
    for _ in range(clients):
        client, pos = read_varuint(data, pos)
        runs = deleted.setdefault(client, [])
        count, pos = read_varuint(data, pos)
        for _ in range(count):
            clock, pos = read_varuint(data, pos)
            length, pos = read_varuint(data, pos)
            runs.append((clock, length))
    return deleted, pos


def write_varuint(out: bytearray, value: int) -> None:
    """Append ``value`` (>= 0) as a var-uint."""
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)


def write_varstring(out: bytearray, text: str) -> None:
    """Append ``text`` as a var-string (its UTF-8 length, then the bytes)."""
    data = text.encode("utf-8")
    write_varuint(out, len(data))
    out += data
