"""The storage engine of a replica: SQLite + the CRDT document + the update log.

:class:`StoreEngine` knows nothing of what a note or a step is: it keeps generic
records of the kinds in ``sync.document.KINDS`` (validated into their table rows by
``sync.views``), runs every write through one transaction, and merges peers' updates.
The record kinds' own methods live in ``sync.records`` and the kernel's stores in
``sync.kernel_stores``; ``sync.store.MemoryStore`` is all three.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from types import TracebackType
from typing import Any, Self

from sync import recall as _recall
from sync.checkpoint import WalCheckpointer, shared_checkpointer
from sync.connection import open_database
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
from sync.entry_update import EditClient, MapSet
from sync.errors import InvalidRecordError, InvalidUpdateError, RecordNotFoundError
from sync.hlc import HybridLogicalClock
from sync.ids import json_safe
from sync.merge import (
    Merged,
    document_merge,
    gc_paused,
    merge_by_reading,
    merge_in_probe,
    write_merged,
)
from sync.recall import RecallHit
from sync.retention import retire_due, retire_from
from sync.tables import held_here, own_items, read_meta, remember_own, tomb, untomb, write_meta
from sync.transaction import TransactionState, log_entry
from sync.updatelog import UpdateLog
from sync.views import COLUMNS, DATA_BUILDERS, Embedder, build_row, iso_ms, materialise

_gc_paused = gc_paused  # the name the benches import


class StoreEngine:
    """One replica's storage: generic records in SQLite views of a CRDT document, the
    crash-safe update log, recall, and the sync primitives (state vector, diff, merge).

    Args:
        path: the SQLite file (created with its folder if missing), or ``":memory:"``.
        embedder: text -> vector, used to embed searchable texts and queries (optional).
        node_id: this replica's id in the CRDT document (only used when the file is
            new; a random one otherwise). No ``|``.
        now_ms: the physical clock in milliseconds, for tests.
        compact_every: compact the update log when the document is loaded and the log
            holds more entries.
        synchronous: SQLite's ``synchronous`` pragma; ``FULL`` survives power loss, and
            ``NORMAL`` (still safe against a killed process) is faster.
        mmap_size: bytes of the file SQLite reads through a memory map (``PRAGMA
            mmap_size``; SQLite caps it, at 2 GiB in common builds; 0 turns it off).
            Recall reads a few dozen rows at random per query; through the map that is
            a page-table hit instead of a ``read`` system call and a copy.
        history_days: sessions, steps, receipts and transitions older than this leave
            the synced document (their rows stay: ``sync.retention``); None keeps them.
        tombstone_days: tombstones older than this are collected; None keeps them.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        embedder: Embedder | None = None,
        node_id: str | None = None,
        now_ms: Callable[[], int] | None = None,
        compact_every: int = 2_000,
        synchronous: str = "FULL",
        mmap_size: int = 2 << 30,
        history_days: float | None = None,
        tombstone_days: float | None = None,
    ) -> None:
        self.path = str(path)
        self.db = open_database(self.path, synchronous, mmap_size)
        self.embedder = embedder
        self._lock = threading.RLock()
        self._checkpointer: WalCheckpointer | None = None
        if self.path != ":memory:":
            # Checkpoints run on the process's checkpoint thread, not inside the COMMIT
            # that crosses SQLite's threshold (sync.checkpoint).
            self.db.execute("PRAGMA wal_autocheckpoint = 0")
            self._checkpointer = shared_checkpointer()
        self.node_id = self._init_node_id(node_id)
        self.clock = HybridLogicalClock(now_ms)
        high = self._meta("hlc_high")
        if high:
            self.clock.observe(high)
        self._log = UpdateLog(self.db)
        self._tx = TransactionState()
        self._version = 0  # transactions ended: recall's caches follow it
        self._note_vectors = _recall.NoteVectors()
        self._term_stats = _recall.TermStats()
        self._compact_every = compact_every
        self.history_days = history_days
        self.tombstone_days = tombstone_days
        # The whole document is loaded on first need (a merge that needs it, a forget, a
        # snapshot), never at open: reads go to the SQLite views, and writes are encoded
        # without any document (sync.entry_update), as this Yjs client, clock by clock:
        # a record this replica never wrote is a new map key (no origin to refer to), an
        # edit of one it wrote replaces its own item (``own_items``). Nothing written
        # stays in memory after its transaction.
        self._doc: MemoryDocument | None = None
        self._edits = EditClient(secrets.randbits(31) + 1)
        self._own_items_complete = self._meta("own_items") == "complete"
        self._head = self._log.head()
        if self._head < 0 and self._meta("state_vector") is None:
            with self.db.atomic():  # a new store: its state vector is known, and empty
                self._set_meta("state_vector", encode_state_vector({}).hex())
        self._data_version = self._read_data_version()

    # ---- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            if self._doc is not None:
                self._doc.close()
            self._doc = None
            if self._checkpointer is not None:
                self._checkpointer.forget(self.path)
            self.db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of a read, taken under the store's lock (one connection, many threads)."""
        with self._lock:
            return self.db.execute(sql, list(params)).fetchall()

    def _meta(self, key: str) -> str | None:
        return read_meta(self.db.conn, key)

    def _set_meta(self, key: str, value: str) -> None:
        write_meta(self.db.conn, key, value)

    def _init_node_id(self, wanted: str | None) -> str:
        stored = self._meta("node_id")
        if stored:
            return stored
        node = check_id(wanted or uuid.uuid4().hex[:12], "node id")
        with self.db.atomic():
            self._set_meta("node_id", node)
        return node

    # ---- the document --------------------------------------------------------------

    @property
    def doc(self) -> MemoryDocument:
        """The whole CRDT document, loaded from snapshot + log on first use.

        Loading costs time and memory in proportion to the document, so only merges,
        snapshots and edits of records this replica already wrote need it. Inside a
        transaction, the updates captured so far (encoded without the document, not
        yet logged) are applied too.
        """
        with self._lock:
            if self._doc is None:
                self._doc = self._load_document(list(self._tx.captured))
                if not self._tx.depth and not self.db.conn.in_transaction:
                    # Upkeep that needs the whole document, done now that it is loaded.
                    if self._retire_due():
                        self.retire()
                    if len(self._log) > self._compact_every:
                        self.compact()
            return self._doc

    @property
    def document_loaded(self) -> bool:
        """True once the whole CRDT document is in memory (see :attr:`doc`)."""
        return self._doc is not None

    def _load_document(self, uncommitted: Sequence[bytes] = ()) -> MemoryDocument:
        doc = MemoryDocument(self.node_id, on_update=self._tx.captured.append)
        try:
            with self.db.atomic():  # one consistent read of snapshot + log
                self._head = self._log.head()
                doc.load(itertools.chain(self._log.replay(), uncommitted))
                self._data_version = self._read_data_version()
        except Exception:
            doc.close()
            raise
        return doc

    def _read_data_version(self) -> int:
        return int(self.db.execute("PRAGMA data_version").fetchone()[0])

    def _catch_up(self) -> None:
        """Reload the document if another connection to the same file wrote to it."""
        if self._tx.depth or self.path == ":memory:":
            return
        version = self._read_data_version()
        if version != self._data_version:
            self._data_version = version
            if self._log.head() != self._head:
                self._forget_document()

    def _forget_document(self) -> None:
        """Drop the in-memory document (reloaded from disk on next need)."""
        if self._doc is not None:
            self._doc.close()
            self._doc = None

    def _reload(self) -> None:
        """Forget every in-memory change: the next use loads the document from disk."""
        self._tx.discard_captured()
        self._forget_document()

    # ---- transactions --------------------------------------------------------------

    @contextmanager
    def _immediate(self) -> Iterator[None]:
        """A write transaction that holds the database's write lock from the start, so
        no other connection can append to the log between our look at it and our write."""
        conn = self.db.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        else:
            conn.execute("COMMIT")
            if self._checkpointer is not None:
                self._checkpointer.notify(self.path)

    def _sync_with_log(self) -> None:
        """Inside a write transaction: reload the document if another connection to the
        same file appended to the log since we last read it."""
        if self.path != ":memory:" and self._log.head() != self._head:
            self._reload()

    @contextmanager
    def _transaction(self) -> Iterator[TransactionState]:
        """One SQLite transaction around document changes and their log entries."""
        tx = self._tx
        with self._lock:
            if tx.depth:
                tx.depth += 1
                try:
                    yield tx
                finally:
                    tx.depth -= 1
                return
            tx.reset()
            tx.depth = 1
            edit_clock = self._edits.clock
            try:
                with self._immediate():
                    self._sync_with_log()
                    yield tx
                    if tx.captured:
                        self._log_captured()
                        self._set_meta("hlc_high", self.clock.last())
                        self._head = self._log.head()
            except BaseException:
                # Clocks of the edit client used by the rolled-back update are free again:
                # a gap would leave every later edit pending in the peers' documents.
                self._edits.clock = edit_clock
                if tx.dirty or tx.captured:
                    self._reload()
                raise
            finally:
                self._version += 1
                tx.reset()

    def _log_captured(self) -> None:
        """Append what this transaction changed as one log entry, with the Yjs clock
        ranges it brought, and keep the state vector of snapshot + log in ``meta``."""
        document = None if self._doc is None else decode_state_vector(self._doc.state_vector())
        edits = (self._edits.client, self._edits.clock)
        update, clocks, after = log_entry(self._tx, self._stored_state(), document, edits)
        self._log.append_one(update, clocks)
        if after is None:
            self.db.execute("DELETE FROM meta WHERE key = 'state_vector'")
        else:
            self._set_meta("state_vector", encode_state_vector(after).hex())

    def _stored_state(self) -> dict[int, int] | None:
        """The state vector of snapshot + log as last recorded (None: not known yet)."""
        stored = self._meta("state_vector")
        return None if stored is None else decode_state_vector(bytes.fromhex(stored))

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

    # ---- upkeep --------------------------------------------------------------------

    def search_index_matches(self) -> bool:
        """True if the full-text index holds exactly the texts of the recall rows
        (``sync.recall.search_index_matches``: a check for tests and repairs)."""
        with self._lock:
            return _recall.search_index_matches(self.db.conn)

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file now, and empty the log.

        Checkpoints otherwise run in the background after writes (sync.checkpoint);
        call this before copying the file, or to finish a bulk import's checkpoint
        before timing something else.
        """
        if self.path == ":memory:":
            return
        with self._lock:
            self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()

    def compact(self) -> None:
        """Write a snapshot of the document and trim the update log, and merge the FTS5
        index into one segment (all in one transaction).

        FTS5 adds a segment per transaction and merges them only a few at a time; a
        query looks each term up in every segment, so a store filled by many small
        transactions answers recall 2-3x slower than one merged index. The merge costs
        about as much as the snapshot (both are proportional to the store), and runs at
        the same moments: when the document is loaded and the log is long, or when
        called.
        """
        with self._lock:
            if self._tx.depth:
                raise RuntimeError("cannot compact inside a transaction")
            with self._immediate():
                self._sync_with_log()
                self._log.compact(self.doc.full_update())
                self.db.execute("INSERT INTO recall_fts (recall_fts) VALUES ('optimize')")

    def _retire_due(self) -> bool:
        return retire_due(self._meta("retired_at"), self.history_days, self.tombstone_days)

    def retire(
        self, *, history_days: float | None = None, tombstone_days: float | None = None
    ) -> dict[str, int]:
        """Take old history and old tombstones out of the CRDT document (``sync.retention``);
        return how many records of each kind left it.

        History rows stay in the tables (archived: still found by recall); the removals
        reach the other replicas at the next sync. Defaults: the store's horizons. Runs
        by itself at most once a day, when the document is loaded anyway.
        """
        history = self.history_days if history_days is None else history_days
        tombs = self.tombstone_days if tombstone_days is None else tombstone_days
        now_ms = self.clock.physical_ms()
        with self._lock:
            if self._tx.depth:
                raise RuntimeError("cannot retire inside a transaction")
            with self._transaction() as tx:
                doc = self.doc
                tx.dirty = True
                counts = retire_from(
                    doc, self.db.conn, now_ms, history_days=history, tombstone_days=tombs
                )
                self._set_meta("retired_at", iso_ms(now_ms))
        return counts

    def log_length(self) -> int:
        """Entries in the update log since the last snapshot."""
        with self._lock:
            return len(self._log)

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

    def apply_update(self, update: bytes) -> bool:
        """Merge a peer's update into the document and the tables; True if anything changed.

        Without the document when the update stands on its own (``sync.merge``: read
        out of its bytes, or integrated into a probe), into the whole document otherwise.

        Raises:
            InvalidUpdateError: malformed or not our records; the store is unchanged.
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
            if ours is not None:
                merged = merge_by_reading(self.db.conn, update, ours)
                if merged is not None:
                    self._take(merged)
                    # A large update is cheaper read than integrated: a loaded document
                    # is dropped, and rebuilt from the log when next needed.
                    self._forget_document()
                    return True
                if self._doc is None:
                    merged = merge_in_probe(self.db.conn, update, ours, self.node_id)
                    if merged is not None:
                        self._take(merged)
                        return bool(tx.captured)
            plans = document_merge(self.doc.apply_remote(update))
            if write_merged(self.db.conn, plans, self.embedder, self.clock):
                tx.forgot = True
            return bool(tx.captured)

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
