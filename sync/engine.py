"""The storage engine of a replica: generic records, recall and the sync primitives.

:class:`StoreEngine` knows nothing of what a note or a step is: it keeps generic
records of the kinds in ``sync.document.KINDS`` (validated into their table rows by
``sync.views``), writes each through the store's one transaction (``sync.core``),
answers a peer's state vector with a diff (``sync.diff``) and merges peers' updates
(``sync.merge``). The record kinds' own methods live in ``sync.records`` and the
kernel's stores in ``sync.kernel_stores``; ``sync.store.MemoryStore`` is all of them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any, Self

from sync import recall as _recall
from sync.core import StoreCore
from sync.diff import LOG_DIFF_BYTES, diff_from_log
from sync.document import (
    KINDS,
    SEPARATOR,
    SYS_MAP,
    Entry,
    MemoryDocument,
    check_id,
    decode_state_vector,
    encode_entry,
    encode_state_vector,
)
from sync.entry_update import MapSet
from sync.errors import InvalidRecordError, InvalidUpdateError, RecordNotFoundError
from sync.ids import json_safe
from sync.materialise import materialise
from sync.merge import (
    UPDATE_ROOTS,
    Merged,
    document_merge,
    gc_paused,
    merge_by_reading,
    merge_in_probe,
    write_merged,
)
from sync.node_claims import CLAIM_PREFIX, nodes_of_items, refused, unclaimed
from sync.recall import RecallHit
from sync.tables import held_here, own_items, remember_own, tomb, untomb
from sync.update_reader import read_map_update
from sync.views import COLUMNS, DATA_BUILDERS, build_row


class StoreEngine(StoreCore):
    """One replica's storage: generic records in SQLite views of a CRDT document, the
    crash-safe update log, recall, and the sync primitives (state vector, diff, merge).
    Opened with the arguments of :class:`~sync.core.StoreCore`.
    """

    # ---- generic records -----------------------------------------------------------

    def put_record(self, kind: str, record_id: str, data: Mapping[str, Any]) -> str:
        """Write a record (validated against its table) and return its id."""
        self.put_records(kind, {record_id: data})
        return record_id

    def put_records(self, kind: str, records: Mapping[str, Mapping[str, Any]]) -> None:
        """Write many records of one kind in one transaction (all validated first)."""
        self._check_kind(kind)
        prepared = []
        for record_id, data in records.items():
            check_id(record_id)
            clean = json_safe(dict(data), "record")
            row = build_row(kind, record_id, Entry("0" * 16, self.node_id, clean))
            prepared.append((record_id, clean, row))
        with self._transaction() as tx:
            doc, origins = self._writable(kind, [record_id for record_id, _, _ in prepared])
            tx.dirty = True
            changes: list[tuple[str, tuple[Any, ...] | None]] = []
            items: list[tuple[str, str, int, int]] = []
            edits: list[MapSet] = []
            first_clock = self._edits.clock
            with nullcontext() if doc is None else doc.doc.transaction():
                for record_id, clean, row in prepared:
                    hlc = self.clock.now()
                    if doc is not None:
                        client, clock = doc.put(kind, record_id, hlc, clean)
                    else:
                        key = f"{record_id}{SEPARATOR}{self.node_id}"
                        value = encode_entry(hlc, clean)
                        edits.append(MapSet(kind, key, value, origins.get(record_id)))
                        client, clock = self._edits.client, first_clock + len(edits) - 1
                        origins[record_id] = (client, clock)  # written twice in one call
                    items.append((kind, record_id, client, clock))
                    changes.append((record_id, None if row is None else (record_id, hlc, *row[2:])))
            if edits:
                tx.captured.append(self._edits.encode(edits))
                if all(edit.origin is None for edit in edits):
                    tx.plain += 1
            conn = self.db.conn
            remember_own(conn, items)
            untomb(conn, kind, [record_id for record_id, _, _ in prepared])
            materialise(conn, kind, changes, self.embedder)

    @contextmanager
    def batch(self) -> Iterator[Self]:
        """Group many writes into one transaction and one CRDT update (all or nothing).

        Example:
            >>> store = StoreEngine(":memory:")
            >>> with store.batch():
            ...     for key in ("light@kitchen", "light@hall"):
            ...         _ = store.put_record("device_state", key, {"device": "light",
            ...             "room": key[6:], "state": {}, "updated_at": "2026-01-01T00:00:00Z"})
            >>> len(store.records("device_state"))
            2
        """
        with self._transaction():
            if self._doc is None:  # writes are merged into one update at commit
                yield self
            else:
                with self._doc.doc.transaction():
                    yield self

    def _writable(
        self, kind: str, record_ids: Sequence[str]
    ) -> tuple[MemoryDocument | None, dict[str, tuple[int, int]]]:
        """Where to write these records (inside a write transaction): the loaded
        document, or None and the item id of this replica's own entry of each record it
        wrote before, to encode the writes without a document.

        With the whole document loaded, everything goes there. Otherwise a record this
        replica wrote before (its item is in ``own_items``) is an edit of that item
        (``sync.entry_update``: the new item's origin is the old one, which it deletes,
        as Yjs itself would write it), and a record this replica never wrote is a new
        map key with no origin: it has no predecessor to replace, and its update is the
        same as the whole document's. (A peer's entry of such a record stays until the
        next merge that touches it: it loses to the newer one everywhere.) In a store
        whose own items are not all known (one written before schema v7), a record it
        holds a row or a tombstone of may have an entry of ours of unknown item: the
        whole document is loaded for it.
        """
        if self._doc is not None:
            return self._doc, {}
        conn = self.db.conn
        origins = own_items(conn, kind, record_ids)
        rest = [r for r in record_ids if r not in origins]
        if rest and not self._own_items_complete and held_here(conn, kind, rest):
            return self.doc, {}
        return None, origins

    def forget(self, kind: str, record_id: str) -> None:
        """Delete a record everywhere: a tombstone that wins over every older edit.

        Raises:
            RecordNotFoundError: no live record with that id.
        """
        self._check_kind(kind)
        if self.get_record(kind, record_id) is None:
            raise RecordNotFoundError(f"no {kind} record {record_id!r}")
        with self._transaction() as tx:
            # The whole document: every entry of the record goes, with its content.
            doc = self.doc
            tx.dirty = True
            tx.forgot = True
            hlc = self.clock.now()
            client, clock = doc.put(kind, record_id, hlc, None)
            conn = self.db.conn
            remember_own(conn, [(kind, record_id, client, clock)])
            tomb(conn, kind, record_id, hlc, self.node_id)
            materialise(conn, kind, [(record_id, None)], self.embedder)

    def get_record(self, kind: str, record_id: str) -> dict[str, Any] | None:
        """A record's current data (None if absent or deleted), read from its view row."""
        self._check_kind(kind)
        columns = ", ".join(COLUMNS[kind])
        rows = self._query(f"SELECT {columns} FROM {kind} WHERE id = ?", [record_id])
        return DATA_BUILDERS[kind](tuple(rows[0])) if rows else None

    def records(self, kind: str) -> dict[str, dict[str, Any]]:
        """Every live record of a kind, by id (from the SQLite view)."""
        self._check_kind(kind)
        columns = ", ".join(COLUMNS[kind])
        build = DATA_BUILDERS[kind]
        rows = self._query(f"SELECT id, {columns} FROM {kind} ORDER BY id")
        return {row[0]: build(tuple(row[1:])) for row in rows}

    def table_rows(self, kind: str) -> list[dict[str, Any]]:
        """The SQLite view of a kind, ordered by id (for checks and tools)."""
        self._check_kind(kind)
        with self._lock:
            return list(self.db.table(kind).rows_where(order_by="id"))

    @staticmethod
    def _check_kind(kind: str) -> None:
        if kind not in KINDS:
            raise InvalidRecordError(f"unknown record kind {kind!r}")

    # ---- recall --------------------------------------------------------------------

    def search_index_matches(self) -> bool:
        """True if the full-text index holds exactly the texts of the recall rows
        (``sync.recall.search_index_matches``: a check for tests and repairs)."""
        with self._lock:
            return _recall.search_index_matches(self.db.conn)

    def search(self, query: str, limit: int = 5) -> list[RecallHit]:
        """Search notes, step contents, final answers and facts (see ``sync.recall``)."""
        if not isinstance(query, str):
            raise InvalidRecordError("query must be a string")
        with self._lock:
            return _recall.search(
                self.db.conn,
                query,
                limit=limit,
                embedder=self.embedder,
                note_vectors=self._note_vectors,
                term_stats=self._term_stats,
                version=self._version,
            )

    # ---- sync ----------------------------------------------------------------------

    def state_vector(self) -> bytes:
        """The document's Yjs state vector (kept in ``meta``: no need to load it)."""
        with self._lock:
            self._catch_up()
            if self._doc is None:
                stored = self._stored_state()
                if stored is not None:
                    return encode_state_vector(stored)
            vector = self.doc.state_vector()
            if self._stored_state() is None and not self._tx.depth:
                with self._immediate():
                    if self._log.head() == self._head:
                        self._set_meta("state_vector", vector.hex())
            return vector

    def diff(self, state_vector: bytes) -> bytes:
        """The update a peer with ``state_vector`` lacks: cut from the log entries that
        hold it when they are all in the log (``sync.diff``), from the whole document
        otherwise.

        Raises:
            InvalidUpdateError: the state vector is malformed.
        """
        peer = decode_state_vector(state_vector)
        with self._lock:
            self._catch_up()
            update = self._diff_from_log(peer, state_vector)
            return self.doc.diff(state_vector) if update is None else update

    def _diff_from_log(self, peer: Mapping[int, int], state_vector: bytes) -> bytes | None:
        if self._tx.depth:
            return None
        ours = self._stored_state()
        if ours is None:
            return None
        if self._doc is not None and decode_state_vector(self._doc.state_vector()) != ours:
            return None  # the document holds what the log does not (written around the store)
        loaded = self._doc is not None
        return diff_from_log(self._log, ours, peer, state_vector, document_loaded=loaded)

    def apply_update(self, update: bytes, *, writer: str | None = None) -> bool:
        """Merge a peer's update into the document and the tables; True if anything changed.

        Without the document when the update stands on its own (``sync.merge``: read
        out of its bytes, or integrated into a probe), into the whole document otherwise.
        With ``writer`` (the device a server got the update from), the node ids it writes
        under must be that device's or unclaimed (``sync.node_claims``; it claims these).

        Raises:
            InvalidUpdateError: malformed or not our records; the store is unchanged.
            PermissionDeniedError: it writes under another device's node id (or the
                store's own); the store is unchanged.
        """
        if not isinstance(update, bytes | bytearray | memoryview):
            raise InvalidUpdateError("an update is bytes")
        update = bytes(update)
        with self._transaction() as tx, gc_paused():
            tx.dirty = True
            # Inside a batch that already wrote, the document decides (its writes are
            # captured, and their clocks come from the documents that made them).
            alone = not tx.captured
            aside = alone and (self._doc is None or len(update) > LOG_DIFF_BYTES)
            ours = self._stored_state() if aside else None
            read = None
            if writer is not None:
                known = ours if ours is not None else self._stored_state()
                read = read_map_update(update, UPDATE_ROOTS) if known is not None else None
                if read is not None and known is not None:
                    self._claim_nodes(writer, nodes_of_items(read.items, known))
            if ours is not None:
                merged = merge_by_reading(self.db.conn, update, ours, read)
                if merged is not None:
                    self._take(merged)
                    # A large update is cheaper read than integrated: a loaded document
                    # is dropped, and rebuilt from the log when next needed.
                    self._forget_document()
                    return True
                if self._doc is None:
                    probed: set[str] | None = set() if writer is not None and read is None else None
                    merged = merge_in_probe(self.db.conn, update, ours, self.node_id, probed)
                    if merged is not None:
                        if writer is not None and probed is not None:
                            self._claim_nodes(writer, probed)
                        self._take(merged)
                        return bool(tx.captured)
            # Not read, or not checked yet: the document tells which entries it writes.
            written: set[str] | None = set() if writer is not None and read is None else None
            touched = self.doc.apply_remote(update, written=written)
            if writer is not None and written is not None:
                self._claim_nodes(writer, written)
            plans = document_merge(touched)
            if write_merged(self.db.conn, plans, self.embedder, self.clock):
                tx.forgot = True
            return bool(tx.captured)

    def _claim_nodes(self, writer: str, nodes: set[str]) -> None:
        """Refuse an update by ``writer`` that writes under another device's node id (or
        ours); claim the free ones for it (in ``meta``, in this transaction)."""
        nodes.discard("")
        if not nodes:
            return
        owners = {n: o for n in nodes if (o := self._meta(CLAIM_PREFIX + n)) is not None}
        error = refused(writer, nodes, owners, self.node_id)
        if error is not None:
            raise error
        for node in unclaimed(nodes, owners):
            self._set_meta(CLAIM_PREFIX + node, writer)

    def node_claims(self) -> dict[str, str]:
        """Node id -> the device that claimed it (a server's stores; ``sync.node_claims``)."""
        rows = self._query(
            "SELECT key, value FROM meta WHERE key >= ? AND key < ?",
            [CLAIM_PREFIX, CLAIM_PREFIX[:-1] + chr(ord(CLAIM_PREFIX[-1]) + 1)],
        )
        return {str(k)[len(CLAIM_PREFIX) :]: str(v) for k, v in rows}

    def _take(self, merged: Merged) -> None:
        """Log and write what a merge without the document decided."""
        tx = self._tx
        tx.captured.extend(merged.updates)
        tx.merged = merged.clocks
        if merged.dropped:
            # Drop the losers and bump our ``_sys`` entry, as a merge does (its value
            # means nothing: a counter of this replica's own).
            bumps = int(self._meta("sys_bumps") or 0) + 1
            self._set_meta("sys_bumps", str(bumps))
            bump = MapSet(SYS_MAP, self.node_id, str(bumps), None)
            tx.captured.append(self._edits.encode([bump], merged.dropped))
        if write_merged(self.db.conn, merged.plans, self.embedder, self.clock):
            tx.forgot = True

    def document_json(self) -> dict[str, dict[str, str]]:
        """The document as plain data (tests compare replicas with it)."""
        with self._lock:
            self._catch_up()
            return self.doc.to_py()
