"""Yjs v1 updates for map-entry writes, encoded without the document.

An edit of a record replaces this replica's entry ``"<id>|<node>"``: in Yjs that is a
new map item whose left origin is the entry's current item, plus the deletion of that
item. Both need only the item's id (its Yjs client and clock), which the store keeps
for the entries it wrote (``own_items``), so an edit need not load the whole document
to produce the update the document itself would have produced (the bytes are the same:
``tests/sync/test_sync_entry_update.py``). Encoding follows the Yjs v1 update format
(lib0 var-uints, ``ContentAny`` strings), as yjs and yrs write it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from sync.lib0 import read_delete_set, read_varuint, write_varstring, write_varuint

_HAS_ORIGIN = 0x80
_HAS_PARENT_SUB = 0x20
_CONTENT_ANY = 8
_ANY_STRING = 119
_PARENT_IS_ROOT_NAME = 1


class MapSet(NamedTuple):
    """One entry written into a root map: ``origin`` is the ``(client, clock)`` of the
    item it replaces (None: a key the document does not hold)."""

    root: str
    key: str
    value: str
    origin: tuple[int, int] | None


def encode_map_sets(
    client: int, clock: int, sets: Sequence[MapSet], deletions: Sequence[tuple[int, int]] = ()
) -> bytes:
    """The update of one transaction that writes ``sets`` (in order) as client ``client``
    from clock ``clock`` on, and deletes each replaced item (its origin) and the items
    ``deletions`` names."""
    out = bytearray()
    if sets:
        write_varuint(out, 1)  # one client
        write_varuint(out, len(sets))
        write_varuint(out, client)
        write_varuint(out, clock)
        for item in sets:
            if item.origin is None:
                out.append(_HAS_PARENT_SUB | _CONTENT_ANY)
                write_varuint(out, _PARENT_IS_ROOT_NAME)
                write_varstring(out, item.root)
                write_varstring(out, item.key)
            else:
                # With an origin, the parent and the key come from the origin item.
                out.append(_HAS_ORIGIN | _HAS_PARENT_SUB | _CONTENT_ANY)
                write_varuint(out, item.origin[0])
                write_varuint(out, item.origin[1])
            write_varuint(out, 1)  # one value
            out.append(_ANY_STRING)
            write_varstring(out, item.value)
    else:
        write_varuint(out, 0)
    deleted: dict[int, list[int]] = {}
    for item in sets:
        if item.origin is not None:
            deleted.setdefault(item.origin[0], []).append(item.origin[1])
    for owner, at in deletions:
        deleted.setdefault(owner, []).append(at)
    write_varuint(out, len(deleted))
    for owner in sorted(deleted):
        ranges: list[list[int]] = []
        for at in sorted(set(deleted[owner])):
            if ranges and ranges[-1][0] + ranges[-1][1] == at:
                ranges[-1][1] += 1
            else:
                ranges.append([at, 1])
        write_varuint(out, owner)
        write_varuint(out, len(ranges))
        for start, length in ranges:
            write_varuint(out, start)
            write_varuint(out, length)
    return bytes(out)


@dataclass(slots=True)
class EditClient:
    """The Yjs client a store writes as without its document, and its next clock.

    A random client per opened store (clock 0 when opened): its updates never collide
    with the document's own client, whose clock only the loaded document knows.
    """

    client: int
    clock: int = 0

    def encode(self, sets: Sequence[MapSet], deletions: Sequence[tuple[int, int]] = ()) -> bytes:
        """:func:`encode_map_sets` from this client's next clock, which moves past the sets."""
        update = encode_map_sets(self.client, self.clock, sets, deletions)
        self.clock += len(sets)
        return update


def join_plain(updates: Sequence[bytes]) -> bytes | None:
    """The update ``pycrdt.merge_updates`` makes of *plain* updates, by concatenation.

    A plain update is one client's new map keys, each struct one clock long, with an
    empty delete set: what :func:`encode_map_sets` writes for sets with no origin (and
    what joining such updates gives). Merging them decodes and re-encodes every struct;
    their structs only need to be laid end to end, client by client (in descending
    client order, as yrs writes them). None if an update is not of that shape or one
    client's clocks have a gap or overlap (the caller merges them instead). The caller
    vouches that the updates are plain (the trailing empty delete set cannot be told
    from the bytes alone without reading every struct).
    """
    by_client: dict[int, list[tuple[int, int, bytes]]] = {}
    for update in updates:
        try:
            clients, pos = read_varuint(update, 0)
            count, pos = read_varuint(update, pos)
            client, pos = read_varuint(update, pos)
            clock, pos = read_varuint(update, pos)
        except ValueError:
            return None
        if clients != 1 or not count or update[-1:] != b"\x00" or pos >= len(update) - 1:
            return None
        by_client.setdefault(client, []).append((clock, count, update[pos:-1]))
    out = bytearray()
    write_varuint(out, len(by_client))
    for client in sorted(by_client, reverse=True):
        parts = sorted(by_client[client], key=lambda part: part[0])
        first, end = parts[0][0], parts[0][0]
        for clock, count, _ in parts:
            if clock != end:
                return None
            end = clock + count
        write_varuint(out, end - first)
        write_varuint(out, client)
        write_varuint(out, first)
        for _, _, body in parts:
            out += body
    out.append(0)  # an empty delete set
    return bytes(out)


def deleted_ranges(update: bytes) -> dict[int, list[tuple[int, int]]]:
    """The delete set of an update that has no structs (``get_update`` of an update
    against a state vector that holds all of it): ``{client: [(clock, length)]}``."""
    count, pos = read_varuint(update, 0)
    if count:
        raise ValueError("the update has structs")
    return read_delete_set(update, pos)[0]
