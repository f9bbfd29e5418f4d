"""Read the map entries out of a Yjs v1 update without integrating it.

A merge without the document (``sync.engine``) needs the entries a peer's update brings
and the items it deletes; integrating the update into a Yjs document only to be told
its changed keys costs several times what reading the bytes does (yrs integrates, then
pycrdt builds a dict per changed key). This reader understands the updates memory
documents are made of: items of root maps, each holding one string (``ContentAny``),
deleted items and GC ranges, and the delete set. Anything else (nested types, other
contents, skips, an origin outside the update) makes it decline (None), and the caller
lets yrs decide; malformed bytes also make it decline, never half-read.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any, NamedTuple

from sync.lib0 import read_delete_set, read_varbytes, read_varuint

_GC = 0
_DELETED = 1
_ANY = 8
_SKIP = 10
_ANY_STRING = 119


MapItem = tuple[int, int, str, str, str]
"""A live map entry the update brings: ``(client, clock, root, key, value)``."""


class MapUpdate(NamedTuple):
    """What a plain map update holds."""

    items: list[MapItem]
    """Entries still live after the update's own delete set, in update order. A key may
    appear twice (two live items of one key, which only Yjs can order): callers check."""
    ranges: dict[int, tuple[int, int]]
    """Each client's clocks in the update: ``(first, end)``."""
    deleted: dict[int, list[tuple[int, int]]]
    """The delete set: ``{client: [(clock, length)]}``."""
    dead: int
    """Items of the update that its own delete set removes (or arrive deleted)."""


class _Decline(Exception):
    pass


class _Unusual(Exception):
    pass


def read_map_update(update: bytes, roots: frozenset[str]) -> MapUpdate | None:
    """The entries, clock ranges and delete set of a plain update of root maps named in
    ``roots``; None when the update holds anything else or is malformed."""
    try:
        try:
            return _read_new_keys(update, roots)
        except _Unusual:
            return _read(update, roots)
    except (_Decline, IndexError, ValueError):  # UnicodeDecodeError is a ValueError
        return None


def _read_new_keys(data: bytes, roots: frozenset[str]) -> MapUpdate:
    """:func:`_read` for an update none of whose items has an origin (what a first sync
    and new records bring: every entry a new key), in one tight loop: varints of one
    byte, the common case, and the strings are read inline (a ``sync.lib0`` call per
    item costs measurable time; longer varints go through it), and no item ids are
    kept. An item with an origin (or anything else unusual that :func:`_read` may
    accept) raises _Unusual, and the caller reads the update with :func:`_read`; what
    this declines, that declines too. A key written twice is found at the end, by counting."""
    size = len(data)
    uint = read_varuint  # a local: read per item whose value is 128 bytes or more
    names: dict[bytes, str] = {}
    found: list[Any] = []  # (client, clock, root, key, value or None: deleted)
    add = found.append
    deleted_items = 0
    ranges: dict[int, tuple[int, int]] = {}
    clients, pos = uint(data, 0)
    for _ in range(clients):
        count, client, clock, pos = _client_structs(data, pos, ranges)
        first = clock
        for _ in range(count):
            info = data[pos]
            ref = info & 0x1F
            if ref == _GC:
                length, pos = uint(data, pos + 1)
                clock += length
                continue
            if info & 0xC0 or ref == _SKIP:
                if info & 0x80 and ref != _SKIP:
                    raise _Unusual  # an origin
                raise _Decline  # a right origin (not a map entry), or a skip
            # No origin: the parent is a root named by a string, and the item a map entry.
            if not info & 0x20:
                raise _Decline
            if data[pos + 1] != 1:
                raise _Unusual  # not a root's name, or 1 written in more than one byte
            length = data[pos + 2]
            if length < 0x80:
                pos += 3
            else:
                length, pos = uint(data, pos + 2)
            end = pos + length
            if end > size:
                raise _Decline
            name = data[pos:end]
            root = names.get(name)
            if root is None:
                root = names[name] = name.decode("utf-8")
                if root not in roots:
                    raise _Decline
            length = data[end]
            if length < 0x80:
                pos = end + 1
            else:
                length, pos = uint(data, end)
            end = pos + length
            if end > size:
                raise _Decline
            key = data[pos:end].decode("utf-8")
            if ref == _ANY:
                if data[end] != 1 or data[end + 1] != _ANY_STRING:
                    raise _Decline
                length = data[end + 2]
                if length < 0x80:
                    pos = end + 3
                else:
                    length, pos = uint(data, end + 2)
                end = pos + length
                if end > size:
                    raise _Decline
                add((client, clock, root, key, data[pos:end].decode("utf-8")))
                pos = end
                clock += 1
            elif ref == _DELETED:
                length, pos = uint(data, end)
                if length < 1:
                    raise _Decline
                add((client, clock, root, key, None))
                deleted_items += 1
                clock += length
            else:
                raise _Decline
        ranges[client] = (first, clock)
    if len({(item[2], item[3]) for item in found}) != len(found):
        raise _Decline  # a second item of a key without an origin
    deleted, pos = read_delete_set(data, pos)
    if pos != size:
        raise _Decline
    return _live(found, ranges, deleted, deleted_items)


def _read(data: bytes, roots: frozenset[str]) -> MapUpdate:
    size = len(data)
    uint = read_varuint  # a local: read several times per item
    names: dict[bytes, str] = {}
    keys: dict[tuple[int, int], tuple[str, str]] = {}  # item id -> (root, key)
    last: dict[tuple[str, str], tuple[int, int]] = {}  # (root, key) -> its latest item
    found: list[Any] = []  # (client, clock, root, key, value or None: deleted)
    deleted_items = 0
    ranges: dict[int, tuple[int, int]] = {}
    clients, pos = uint(data, 0)
    for _ in range(clients):
        count, client, clock, pos = _client_structs(data, pos, ranges)
        first = clock
        for _ in range(count):
            info = data[pos]
            pos += 1
            ref = info & 0x1F
            if ref == _SKIP:
                raise _Decline
            if ref == _GC:
                length, pos = uint(data, pos)
                clock += length
                continue
            if info & 0x40:  # a right origin: not a map entry
                raise _Decline
            if info & 0x80:
                origin_client, pos = uint(data, pos)
                origin_clock, pos = uint(data, pos)
                origin = (origin_client, origin_clock)
                place = keys.get(origin)
                # Only an edit of its own client's latest item of the key, once: then
                # the new item is the key's last, as Yjs orders it. Anything else (an
                # origin outside the update or inside a deleted run, another client's,
                # two edits of one item) is ordered by Yjs alone.
                if place is None or origin[0] != client or last.get(place) != origin:
                    raise _Decline
                root, key = place
            else:
                parent, pos = uint(data, pos)
                if parent != 1 or not info & 0x20:  # a nested type, or not a map entry
                    raise _Decline
                name, pos = read_varbytes(data, pos)
                root = names.get(name) or names.setdefault(name, name.decode("utf-8"))
                if root not in roots:
                    raise _Decline
                raw_key, pos = read_varbytes(data, pos)
                key = raw_key.decode("utf-8")
                if (root, key) in last:  # a second item of a key without an origin
                    raise _Decline
            if ref == _DELETED:
                length, pos = uint(data, pos)
                if length < 1:
                    raise _Decline
                keys[(client, clock + length - 1)] = (root, key)
                last[(root, key)] = (client, clock + length - 1)
                found.append((client, clock, root, key, None))
                deleted_items += 1
                clock += length
                continue
            if ref != _ANY or data[pos] != 1 or data[pos + 1] != _ANY_STRING:
                raise _Decline
            pos += 2
            length = data[pos]
            if length < 0x80:
                pos += 1
            else:
                length, pos = uint(data, pos)
            end = pos + length
            if end > size:
                raise _Decline
            value = data[pos:end].decode("utf-8")
            pos = end
            keys[(client, clock)] = (root, key)
            last[(root, key)] = (client, clock)
            found.append((client, clock, root, key, value))
            clock += 1
        ranges[client] = (first, clock)
    deleted, pos = read_delete_set(data, pos)
    if pos != size:
        raise _Decline
    return _live(found, ranges, deleted, deleted_items)


def _client_structs(
    data: bytes, pos: int, ranges: dict[int, tuple[int, int]]
) -> tuple[int, int, int, int]:
    """The head of one client's structs at ``pos``: their count, the client, its first
    clock, and the position after them; a client the update names twice declines."""
    count, pos = read_varuint(data, pos)
    client, pos = read_varuint(data, pos)
    clock, pos = read_varuint(data, pos)
    if client in ranges:
        raise _Decline
    return count, client, clock, pos


def _live(
    found: list[Any],
    ranges: dict[int, tuple[int, int]],
    deleted: dict[int, list[tuple[int, int]]],
    deleted_items: int,
) -> MapUpdate:
    """The update's entries still live after its own delete set."""
    result = MapUpdate([], ranges, deleted, 0)
    if not deleted and not deleted_items:
        return result._replace(items=found)
    items = result.items
    dead = 0
    index = {client: merged_runs(runs) for client, runs in deleted.items()}
    for item in found:
        if item[4] is None or _in_runs(index.get(item[0]), item[1]):
            dead += 1
        else:
            items.append(item)  # type: ignore[arg-type]
    return result._replace(dead=dead)


def merged_runs(runs: list[tuple[int, int]]) -> tuple[list[int], list[int]]:
    """A client's delete runs ``(clock, length)`` sorted and merged, as the starts and
    ends of disjoint ranges: a look-up is then a bisection, not a scan of every run (an
    update with thousands of scattered edits has thousands of runs)."""
    starts: list[int] = []
    ends: list[int] = []
    for start, length in sorted(runs):
        if length <= 0:
            continue
        if ends and start <= ends[-1]:
            ends[-1] = max(ends[-1], start + length)
        else:
            starts.append(start)
            ends.append(start + length)
    return starts, ends


def _in_runs(index: tuple[list[int], list[int]] | None, clock: int) -> bool:
    if index is None:
        return False
    starts, ends = index
    at = bisect_right(starts, clock) - 1
    return at >= 0 and clock < ends[at]
