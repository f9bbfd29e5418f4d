"""The core of a replica's store: the connection, the lazily loaded CRDT document,
and the write transaction every change goes through.

:class:`StoreCore` opens the SQLite file (``sync.connection``), keeps the replica's
node id and hybrid logical clock, loads the whole CRDT document only when something
needs it (and reloads it when another connection wrote to the file), and runs each
write in one SQLite transaction whose captured CRDT updates become one entry of the
update log (``sync.transaction``). It also keeps the log short (``compact``) and the
document small (``retire``, ``sync.retention``). What a store does with all this --
records, recall, merges and diffs -- is ``sync.engine.StoreEngine``.
"""

from __future__ import annotations

import itertools
import os
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, Self

from sync import recall as _recall
from sync.checkpoint import WalCheckpointer, shared_checkpointer
from sync.connection import open_database
from sync.document import MemoryDocument, check_id, decode_state_vector, encode_state_vector
from sync.entry_update import EditClient
from sync.hlc import HybridLogicalClock
from sync.retention import retire_due, retire_from
from sync.searchable import Embedder
from sync.tables import read_meta, write_meta
from sync.transaction import TransactionState, log_entry
from sync.updatelog import UpdateLog
from sync.views import iso_ms


class StoreCore:
    """What every operation of a replica's store shares: its SQLite connection, its
    clock, its update log, its CRDT document (loaded on first need) and the write
    transaction (``_transaction``: one SQLite transaction, one log entry).

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

    # ---- upkeep --------------------------------------------------------------------

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
