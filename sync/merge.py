"""Merging a peer's update into a store: three ways to decide, one way to write.

A merge decides, per record kind, which records the update creates and which entry now
wins each other record it touches (a :class:`KindMerge`); :func:`write_merged` then
writes those decisions into the tables, the recall index and the tombstones, whichever
way they were reached:

- :func:`merge_by_reading` reads the entries out of the update's bytes
  (``sync.update_reader``), without integrating it anywhere: the cheapest, for plain
  map updates that stand on their own (a first sync, new records);
- :func:`merge_in_probe` integrates the update into an empty *probe* document, for
  updates that stand on their own but that the reader declines;
- :func:`document_merge` integrates it into the replica's whole document (loaded for
  it), which decides everything else.

The first two need the replica's current winners only, from its rows and tombstones
(``sync.tables``); the store logs what they bring, and the document integrates it when
next loaded.
"""

from __future__ import annotations

import gc
import sqlite3
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import NamedTuple

from pycrdt import get_update

from sync.document import (
    KINDS,
    SEPARATOR,
    SYS_MAP,
    Entry,
    MemoryDocument,
    RemoteChanges,
    decode_entry_of,
    decode_state_vector,
    encode_state_vector,
)
from sync.entry_update import deleted_ranges
from sync.errors import InvalidUpdateError
from sync.hlc import HybridLogicalClock, decode_hlc
from sync.materialise import materialise
from sync.searchable import Embedder
from sync.tables import current_winners, has_tombstones, index_tombstones, tomb
from sync.update_reader import MapItem, MapUpdate, read_map_update
from sync.views import merged_rows


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector during a bulk merge.

    A merge allocates a few objects per record and no cycles; with the collector on, its
    full passes over the (large) document index cost about a fifth of a 100k-record merge.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class KindMerge(NamedTuple):
    """What a merge decided for one record kind."""

    kind: str
    created: Sequence[tuple[str, str, object]]
    """Records new here with one entry, undecoded: ``(id, node, stored value)``."""
    winners: dict[str, Entry | None]
    """The other touched records with their winning entries (None: no entry left)."""
    new: Collection[str] | None
    """The ids in ``winners`` with no row yet (None: unknown, looked up)."""


class Merged(NamedTuple):
    """A merge decided without the replica's document."""

    plans: list[KindMerge]
    updates: list[bytes]
    """What to log (the document integrates it when next loaded)."""
    clocks: dict[int, int]
    """The Yjs clocks the update brings, ``{client: end}``."""
    dropped: list[tuple[int, int]]
    """Items of entries that lost inside the update: the store deletes them (with a
    ``_sys`` bump of its own, as a document merge does)."""


UPDATE_ROOTS = frozenset((*KINDS, SYS_MAP))
"""The root maps a memory update may write (what ``read_map_update`` reads)."""


def write_merged(
    conn: sqlite3.Connection,
    plans: Sequence[KindMerge],
    embedder: Embedder | None,
    clock: HybridLogicalClock,
) -> bool:
    """Write a merge's decisions: the rows of new records and of new winners, the recall
    index, the tombstones; the store's clock observes the greatest clock merged.
    Returns True if a tombstone was written.

    Raises:
        InvalidUpdateError: a value is not one of ours, or a record does not fit its table.
    """
    forgot = False
    highest = ""
    for kind, created, winners, new in plans:
        if winners:
            forgot |= index_tombstones(conn, kind, winners)
            # A record with no entry left was taken out of the document by a replica's
            # retention: its row stays here too (archived).
            for record_id in [r for r, entry in winners.items() if entry is None]:
                del winners[record_id]
        if not created and not winners:
            continue
        tombs: list[tuple[str, str, str]] = []
        new_rows, changes, latest = merged_rows(kind, created, winners, tombs)
        for record_id, hlc, node in tombs:
            tomb(conn, kind, record_id, hlc, node)
            forgot = True
        highest = max(highest, latest)
        materialise(conn, kind, changes, embedder, new=new, new_rows=new_rows)
    if highest:
        decode_hlc(highest)
        clock.observe(highest)
    return forgot


def document_merge(touched: RemoteChanges) -> list[KindMerge]:
    """The decisions of a merge into the whole document (``MemoryDocument.apply_remote``)."""
    plans: list[KindMerge] = []
    for kind in KINDS:
        created = touched.created.get(kind, [])
        winners = touched.winners.get(kind, {})
        if created or winners:
            plans.append(KindMerge(kind, created, winners, touched.new.get(kind)))
    return plans


def plan_kind(
    conn: sqlite3.Connection,
    kind: str,
    created: Sequence[tuple[str, str, object]],
    incoming: dict[str, Entry],
) -> KindMerge | None:
    """One kind's part of a merge without the document: the records new here
    (``created`` entries whose record this replica does not hold), and the winners of
    the others against their current winners here. ``None`` where an incoming entry
    of a record held here is a new one: where Yjs puts it among the document's items
    of its key decides whether it survives, so the document must merge it."""
    current = current_winners(conn, kind, [c[0] for c in created] + list(incoming))
    fresh: list[tuple[str, str, object]] = []
    for record_id, writer, stored in created:
        if record_id in current:
            incoming[record_id] = decode_entry_of(kind, record_id, writer, stored)
        else:
            fresh.append((record_id, writer, stored))
    winners: dict[str, Entry | None] = {}
    for record_id, entry in incoming.items():
        now = current.get(record_id)
        if now is None:
            winners[record_id] = entry
        elif entry.order != now:
            return None
    return KindMerge(kind, fresh, winners, {r for r in winners if r not in current})


def merge_in_probe(
    conn: sqlite3.Connection,
    update: bytes,
    ours: Mapping[int, int],
    node_id: str,
    written: set[str] | None = None,
) -> Merged | None:
    """Merge a peer's update without loading the whole document, when it stands on
    its own; None when it does not (the caller merges it into the document).

    ``ours`` is the replica's state vector (of snapshot + log). The update is integrated
    into an empty *probe* document. It stands on its own when all of it integrates
    there: every Yjs client in it starts at clock 0 (a client this replica knows part
    of continues from there), and no item has an origin outside it (a new map key has
    none; an edit of an entry this replica holds does). Every entry it brings is then a
    new key, read from the probe as a merge reads it, and each touched record's winner
    is the greater of the update's best entry and the replica's current winner (its
    row, or its tombstone): a merge leaves a record only its winning entry, so the row
    names the one entry the document holds. The loser is dropped as a merge drops it:
    an incoming entry inside the probe, this replica's own entry by its item id
    (``own_items``); a peer's entry that loses to the incoming one has an item id the
    replica does not know, and the document decides. Deletions in the update (entries
    the peer replaced, or retired) are logged with it and applied when the document is
    next loaded; rows never follow deletions alone (a record whose entries are all
    retired keeps its row, archived). With ``written``, the node ids of the entries the
    update writes are added to it (when it returns a merge).
    """
    logged: list[bytes] = []
    probe = MemoryDocument(node_id, on_update=logged.append)
    try:
        touched = probe.apply_remote(update, written=written)
        state = probe.doc.get_state()
        merged = decode_state_vector(state)
        pending = get_update(update, state)[:1] != b"\x00"
        if (
            pending
            or all(clock <= ours.get(client, 0) for client, clock in merged.items())
            or (
                has_tombstones(conn)
                and _deletes_outside(
                    _delete_set(update, merged),
                    {client: (0, end) for client, end in merged.items()},
                )
            )
        ):
            # Structs left pending, nothing new (its deletions may be), or deletions
            # that may collect a tombstone (the tombstone index follows them): the
            # document decides.
            return None
        plans = _plans(
            conn,
            (
                (kind, touched.created.get(kind, []), touched.winners.get(kind, {}))
                for kind in KINDS
            ),
        )
    finally:
        probe.close()
    return None if plans is None else Merged(plans, logged, merged, [])


def merge_by_reading(
    conn: sqlite3.Connection,
    update: bytes,
    ours: Mapping[int, int],
    read: MapUpdate | None = None,
) -> Merged | None:
    """Merge a peer's update by reading its entries out of the bytes, without
    integrating it anywhere (``sync.update_reader``); None when the update is not a
    plain map update or does not stand on its own (see :func:`merge_in_probe`, whose
    rules this follows).

    Reading 100k entries costs a third of what integrating them into a Yjs
    document and being handed the changed keys does. The update is logged as
    received; the document, when next loaded, integrates it. The clocks it brings
    must continue this replica's (no gap), and an item's origin must be in the
    update itself (a new key, or a key the update writes twice).
    """
    read = read or read_map_update(update, UPDATE_ROOTS)
    if read is None:
        return None
    if any(first > ours.get(client, 0) for client, (first, _) in read.ranges.items()):
        return None  # a gap: what the peer's update builds on is missing here
    if all(end <= ours.get(client, 0) for client, (_, end) in read.ranges.items()):
        return None  # nothing new (its deletions may be): the document decides
    if _deletes_outside(read.deleted, read.ranges) and has_tombstones(conn):
        return None  # it may collect a tombstone, which the tombstone index follows
    grouped = _by_record(read.items)
    if grouped is None:
        return None
    single, several = grouped
    dropped: list[tuple[int, int]] = []  # items of entries that lost
    plans = _plans(conn, _decide_several(read.items, single, several, dropped))
    if plans is None:
        return None
    clocks = {client: end for client, (_, end) in read.ranges.items()}
    return Merged(plans, [update], clocks, dropped)


def _plans(
    conn: sqlite3.Connection,
    decided: Iterable[tuple[str, Sequence[tuple[str, str, object]], Mapping[str, Entry | None]]],
) -> list[KindMerge] | None:
    """The plans of a merge without the document from each kind's created records and
    incoming winners (:func:`plan_kind`); None as soon as one kind needs the document."""
    plans: list[KindMerge] = []
    for kind, created, winners in decided:
        incoming = {r: e for r, e in winners.items() if e}
        if not created and not incoming:
            continue
        plan = plan_kind(conn, kind, created, incoming)
        if plan is None:
            return None
        plans.append(plan)
    return plans


def _decide_several(
    items: Sequence[MapItem],
    single: _Single,
    several: _Several,
    dropped: list[tuple[int, int]],
) -> Iterator[tuple[str, list[tuple[str, str, object]], dict[str, Entry | None]]]:
    """Per kind, the records an update brings one entry of, and the best entry of those
    it brings several of; the item ids of the others go to ``dropped``."""
    item_ids: dict[tuple[str, str, str], tuple[int, int]] | None = None
    for kind in KINDS:
        incoming: dict[str, Entry | None] = {}
        for record_id, entries in several.get(kind, {}).items():
            decoded = [decode_entry_of(kind, record_id, n, v) for n, v in entries]
            best = max(decoded, key=lambda e: e.order)
            incoming[record_id] = best
            losers = [e for e in decoded if e is not best]
            if losers:
                if item_ids is None:  # only when an entry loses: rare
                    item_ids = _item_ids(items)
                dropped.extend(item_ids[(kind, record_id, e.node)] for e in losers)
        yield kind, list(single.get(kind, {}).values()), incoming


_Single = dict[str, dict[str, tuple[str, str, object]]]
_Several = dict[str, dict[str, list[tuple[str, object]]]]


def _by_record(items: Sequence[MapItem]) -> tuple[_Single, _Several] | None:
    """The update's record entries by kind: records with one entry (``(id, node,
    value)``, the bulk) and records with several (``[(node, value)]``); None if one
    node has two live items of a key (only Yjs can order them).

    Raises:
        InvalidUpdateError: a key is not ``"<id>|<node>"``.
    """
    single: _Single = {}
    again: list[tuple[str, str, str, object]] = []  # a record's second entry and more
    for _, _, root, key, value in items:
        if root == SYS_MAP:
            continue
        record_id, sep, node = key.partition(SEPARATOR)
        if not sep or not record_id or not node:
            raise InvalidUpdateError(f"malformed record key: {key[:80]!r}")
        alone = single.get(root)
        if alone is None:
            alone = single[root] = {}
        if record_id in alone:
            again.append((root, record_id, node, value))
        else:
            alone[record_id] = (record_id, node, value)
    several: _Several = {}
    for root, record_id, node, stored in again:
        many = several.setdefault(root, {})
        if record_id not in many:
            _, first_node, first_value = single[root].pop(record_id)
            many[record_id] = [(first_node, first_value)]
        if any(writer == node for writer, _ in many[record_id]):
            return None  # two live items of one key: only Yjs can order them
        many[record_id].append((node, stored))
    return single, several


def _item_ids(items: Sequence[MapItem]) -> dict[tuple[str, str, str], tuple[int, int]]:
    """The Yjs item ``(client, clock)`` of each entry, by ``(kind, record id, node)``."""
    out: dict[tuple[str, str, str], tuple[int, int]] = {}
    for client, clock, root, key, _ in items:
        record, _, writer = key.partition(SEPARATOR)
        out[(root, record, writer)] = (client, clock)
    return out


def _delete_set(update: bytes, clients: Mapping[int, int]) -> dict[int, list[tuple[int, int]]]:
    """The update's delete set (``clients``: the update's state vector, so that the
    delete set can be cut out of it without its structs)."""
    everything = encode_state_vector({client: 1 << 53 for client in clients})
    return deleted_ranges(get_update(update, everything))


def _deletes_outside(
    deleted: Mapping[int, Sequence[tuple[int, int]]], ranges: Mapping[int, tuple[int, int]]
) -> bool:
    """True if a delete set removes items the update does not bring itself."""
    for client, spans in deleted.items():
        first, end = ranges.get(client, (0, 0))
        if any(start < first or start + length > end for start, length in spans):
            return True
    return False
